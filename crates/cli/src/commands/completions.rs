//! `gpuledger completions SHELL` and `gpuledger man`: generated from the same clap definitions
//! that parse the command line, so they cannot drift from it.

use crate::failed;
use std::path::PathBuf;
use std::process::ExitCode;

use clap::CommandFactory;
use gpuledger_lang::Lang;

#[derive(clap::Args)]
pub struct Args {
    /// The shell to write a completion script for.
    #[arg(value_enum)]
    pub shell: clap_complete::Shell,
}

#[derive(clap::Args)]
pub struct ManArgs {
    /// Write gpuledger.1 and one page per sub-command (gpuledger-snapshot.1, ...) into this
    /// folder instead of printing gpuledger.1 to standard output.
    #[arg(long, value_name = "DIR")]
    pub dir: Option<PathBuf>,
}

pub fn run(a: &Args) -> anyhow::Result<ExitCode> {
    let mut cmd = crate::Cli::command();
    let mut out = Vec::new();
    clap_complete::generate(a.shell, &mut cmd, "gpuledger", &mut out);
    super::print(&String::from_utf8_lossy(&out))
}

/// `gpuledger man [--dir DIR]`, in `lang`: the pages are clap_mangen's (the well-kept
/// generator clap's authors maintain, so the pages follow the same definitions that parse the
/// command line) from the command as `--help` shows it in `lang`, their section titles in
/// `lang` too.
pub fn run_man(a: &ManArgs, lang: Lang) -> anyhow::Result<ExitCode> {
    let cmd = man_command(lang);
    let main = main_page(cmd.clone(), lang)?;
    let Some(dir) = &a.dir else {
        return super::print(&main);
    };
    std::fs::create_dir_all(dir)
        .map_err(|e| failed::with_file("cli-err-cannot-create", dir, &e))?;
    // One page per command, named as clap_mangen names them (`gpuledger-<sub>.1`); the main
    // page is ours, which has the live view's keys.
    for (name, page) in pages(cmd, lang)? {
        let path = dir.join(name);
        let text = if path.ends_with("gpuledger.1") {
            &main
        } else {
            &page
        };
        std::fs::write(&path, text).map_err(|e| failed::cannot_write(&path, &e))?;
    }
    Ok(ExitCode::SUCCESS)
}

/// The command the pages are written from: no `help` sub-command (a page has no use for it),
/// built, in `lang`.
pub fn man_command(lang: Lang) -> clap::Command {
    let mut cmd =
        crate::help_lang::localise(crate::Cli::command().disable_help_subcommand(true), lang);
    cmd.build();
    cmd
}

/// Every page but the main one as clap_mangen renders it, with its file name; the main
/// page's own is replaced by [`main_page`].
pub fn pages(cmd: clap::Command, lang: Lang) -> anyhow::Result<Vec<(String, String)>> {
    let mut out = Vec::new();
    for sub in cmd.get_subcommands().filter(|s| !s.is_hide_set()) {
        out.extend(pages(sub.clone(), lang)?);
    }
    let man = clap_mangen::Man::new(cmd);
    let mut text = Vec::new();
    man.render(&mut text)?;
    out.push((
        man.get_filename(),
        titles(&String::from_utf8_lossy(&text), lang),
    ));
    Ok(out)
}

/// The section titles clap_mangen writes in English, in `lang` (the options' and commands'
/// sections are named by their help headings, already in `lang`).
fn titles(page: &str, lang: Lang) -> String {
    if lang == Lang::En {
        return page.to_string();
    }
    let sections = [
        ("NAME", "cli-man-name"),
        ("SYNOPSIS", "cli-man-synopsis"),
        ("DESCRIPTION", "cli-man-description"),
        ("EXTRA", "cli-man-extra"),
        ("VERSION", "cli-man-version"),
    ];
    // Each title as the roff crate writes the control line, so that only whole title lines
    // are matched.
    let line = |title: &str| control("SH", title);
    let mut out = String::with_capacity(page.len());
    for l in page.split_inclusive('\n') {
        match sections.iter().find(|(en, _)| line(en) == l) {
            Some((_, key)) => out.push_str(&line(&lang.t(key))),
            None => out.push_str(l),
        }
    }
    out
}

/// One roff control line (`.SH NAME\n`), as the roff crate writes it.
fn control(name: &str, arg: &str) -> String {
    let preamble = roff::Roff::new().render();
    let mut r = roff::Roff::new();
    r.control(name, [arg]);
    let text = r.render();
    text.strip_prefix(&preamble).unwrap_or(&text).to_string()
}

/// `gpuledger.1`: clap's page with a LIVE VIEW KEYS section before VERSION.
fn main_page(cmd: clap::Command, lang: Lang) -> anyhow::Result<String> {
    let mut out = Vec::new();
    clap_mangen::Man::new(cmd).render(&mut out)?;
    let page = titles(&String::from_utf8_lossy(&out), lang);
    let keys = live_view_keys(lang);
    let version = control("SH", &lang.t("cli-man-version"));
    Ok(match page.find(&format!("\n{version}")) {
        Some(i) => format!("{}\n{}{}", &page[..i], keys.trim_end(), &page[i..]),
        None => format!("{page}{keys}"),
    })
}

/// The live view's keys and what the names on screen mean, written from the table its help
/// (`?`) draws (`gpuledger_tui::ui::HELP`, message keys of the live view's catalogue), so the
/// man page and the view cannot disagree.
fn live_view_keys(lang: Lang) -> String {
    use roff::{bold, roman, Roff};
    let mut r = Roff::new();
    r.control("SH", [lang.t("cli-man-live-view-keys").as_str()]);
    r.text([roman(lang.t("cli-man-live-view-intro"))]);
    for (keys, what) in gpuledger_tui::ui::HELP {
        r.control("TP", []);
        r.text([bold(*keys)]);
        r.text([roman(lang.t(what))]);
    }
    for note in gpuledger_tui::ui::HELP_NOTES {
        r.control("PP", []);
        r.text([roman(lang.t(note))]);
    }
    // Both renderings start with the same preamble; the page has it already.
    let preamble = Roff::new().render();
    let text = r.render();
    text.strip_prefix(&preamble).unwrap_or(&text).to_string()
}

#[cfg(test)]
mod tests {
    use super::*;

    /// The example command lines of every command's help text: lines that start with
    /// `  gpuledger `, and the lines a trailing ` \` continues them on.
    fn examples(text: &str) -> Vec<String> {
        let mut out = Vec::new();
        let mut continued = false;
        for line in text.lines() {
            if line.starts_with("  gpuledger ") || continued {
                out.push(line.trim_end().to_string());
                continued = line.ends_with(" \\");
            }
        }
        out
    }

    fn each_command(cmd: &clap::Command, f: &mut impl FnMut(&clap::Command)) {
        f(cmd);
        for sub in cmd.get_subcommands() {
            each_command(sub, f);
        }
    }

    /// `watch --help` broke a quoted `--exec` example across two lines. Examples
    /// are never wrapped in an 80-column terminal: each is a line of its own in the help.
    #[test]
    fn help_examples_are_never_wrapped_at_80_columns() {
        let root = crate::Cli::command().term_width(80);
        let mut checked = 0;
        each_command(&root, &mut |cmd| {
            let source: String = [cmd.get_after_help(), cmd.get_after_long_help()]
                .into_iter()
                .flatten()
                .map(|s| s.to_string())
                .collect();
            let mut c = cmd.clone().term_width(80);
            let shown = c.render_long_help().to_string();
            let lines: Vec<&str> = shown.lines().map(str::trim_end).collect();
            for ex in examples(&source) {
                assert!(
                    ex.chars().count() <= 80,
                    "{}: example longer than 80 columns: {ex}",
                    cmd.get_name()
                );
                assert!(
                    lines.contains(&ex.as_str()),
                    "{}: example wrapped: {ex}\n{shown}",
                    cmd.get_name()
                );
                checked += 1;
            }
        });
        assert!(checked >= 3, "examples found: {checked}");
    }
}
