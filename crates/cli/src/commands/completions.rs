//! `gpuledger completions SHELL` and `gpuledger man`: generated from the same clap definitions
//! that parse the command line, so they cannot drift from it.

use std::path::PathBuf;
use std::process::ExitCode;

use anyhow::Context;
use clap::CommandFactory;

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

pub fn run_man(a: &ManArgs) -> anyhow::Result<ExitCode> {
    let cmd = crate::Cli::command();
    let main = main_page(cmd.clone())?;
    let Some(dir) = &a.dir else {
        return super::print(&main);
    };
    std::fs::create_dir_all(dir).with_context(|| format!("cannot create {}", dir.display()))?;
    // clap_mangen names sub-command pages `gpuledger-<sub>.1` and writes the main page too;
    // the main page is then replaced by ours, which has the live view's keys.
    clap_mangen::generate_to(cmd.clone(), dir)
        .with_context(|| format!("cannot write man pages into {}", dir.display()))?;
    let path = dir.join(clap_mangen::Man::new(cmd).get_filename());
    std::fs::write(&path, main).with_context(|| format!("cannot write {}", path.display()))?;
    Ok(ExitCode::SUCCESS)
}

/// `gpuledger.1`: clap's page with a LIVE VIEW KEYS section before VERSION.
fn main_page(cmd: clap::Command) -> anyhow::Result<String> {
    let mut out = Vec::new();
    clap_mangen::Man::new(cmd).render(&mut out)?;
    let page = String::from_utf8_lossy(&out).into_owned();
    let keys = live_view_keys();
    Ok(match page.find("\n.SH VERSION") {
        Some(i) => format!("{}\n{}{}", &page[..i], keys.trim_end(), &page[i..]),
        None => format!("{page}{keys}"),
    })
}

/// The live view's keys and what the names on screen mean, written from the table its help
/// (`?`) draws (`gpuledger_tui::ui::HELP`, message keys of the English catalogue), so the man
/// page and the view cannot disagree.
fn live_view_keys() -> String {
    use roff::{bold, roman, Roff};
    let mut r = Roff::new();
    r.control("SH", ["LIVE VIEW KEYS"]);
    r.text([roman(
        "The live view (gpuledger with no sub-command) answers these keys; ? or F1 shows them there.",
    )]);
    let en = gpuledger_lang::Lang::En;
    for (keys, what) in gpuledger_tui::ui::HELP {
        r.control("TP", []);
        r.text([bold(*keys)]);
        r.text([roman(en.t(what))]);
    }
    for note in gpuledger_tui::ui::HELP_NOTES {
        r.control("PP", []);
        r.text([roman(en.t(note))]);
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
