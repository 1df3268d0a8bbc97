//! `--help` in the chosen language: the program's and each command's summary, the headings
//! gpuledger names (commands, where to read from) and the common exit-status block. Each
//! option's own help and clap's words (Usage, Options) stay English for now. English is clap's
//! text from the doc comments, untouched (a test keeps cli.ftl's English equal to it); the man
//! pages and completions are built from the untranslated command.

use clap::Command;
use gpuledger_lang::Lang;
use std::ffi::OsString;

/// Each command and the key of its summary.
const SUMMARIES: [(&str, &str); 16] = [
    ("snapshot", "cli-about-snapshot"),
    ("explain", "cli-about-explain"),
    ("probe", "cli-about-probe"),
    ("estimate", "cli-about-estimate"),
    ("selftest", "cli-about-selftest"),
    ("diff", "cli-about-diff"),
    ("record", "cli-about-record"),
    ("history", "cli-about-history"),
    ("watch", "cli-about-watch"),
    ("plot", "cli-about-plot"),
    ("serve", "cli-about-serve"),
    ("ui", "cli-about-ui"),
    ("kill", "cli-about-kill"),
    ("verify", "cli-about-verify"),
    ("completions", "cli-about-completions"),
    ("man", "cli-about-man"),
];

/// The commands whose `--help` ends with the common exit statuses (the others have their own).
const COMMON_EXIT_CODES: [&str; 10] = [
    "snapshot",
    "explain",
    "selftest",
    "diff",
    "record",
    "history",
    "watch",
    "plot",
    "completions",
    "man",
];

/// The language `--help` speaks, read before clap parses (its help is printed while parsing):
/// `--lang X` or `--lang=X`, else `GPULEDGER_LANG`, else the locale. An unknown `--lang` is English here; the parse
/// after reports it.
pub fn from_args(args: &[OsString]) -> Lang {
    let mut flag = None;
    for (i, a) in args.iter().enumerate() {
        let a = a.to_string_lossy();
        if let Some(v) = a.strip_prefix("--lang=") {
            flag = Some(v.to_string());
        } else if a == "--lang" {
            flag = args
                .get(i + 1)
                .map(|v| v.to_string_lossy().into_owned())
                .filter(|v| !v.starts_with('-'));
        }
    }
    let flag = flag.or_else(|| std::env::var(crate::global::LANG_VAR).ok());
    match flag.as_deref() {
        Some("list") | None => gpuledger_lang::choose(None),
        Some(f) => gpuledger_lang::choose(Some(f)),
    }
    .unwrap_or_default()
}

/// `cmd` with its summaries and headings in `lang` (unchanged for English).
pub fn localise(cmd: Command, lang: Lang) -> Command {
    if lang == Lang::En {
        return cmd;
    }
    let cmd = headings(cmd, lang)
        .about(lang.t("cli-about"))
        .long_about(lang.t("cli-long-about"));
    SUMMARIES.iter().fold(cmd, |cmd, (name, key)| {
        cmd.mut_subcommand(name, |sub| {
            let sub = headings(sub, lang).about(lang.t(key));
            if COMMON_EXIT_CODES.contains(name) {
                sub.after_help(lang.t("cli-exit-codes"))
            } else {
                sub
            }
        })
    })
}

fn headings(cmd: Command, lang: Lang) -> Command {
    let sources = lang.t("cli-heading-sources");
    cmd.subcommand_help_heading(lang.t("cli-heading-commands"))
        .mut_args(move |a| {
            if a.get_help_heading() == Some(SOURCES_HEADING) {
                a.help_heading(sources.clone())
            } else {
                a
            }
        })
}

/// The heading of the global options that say where to read from (global.rs).
pub const SOURCES_HEADING: &str = "Where to read from";

#[cfg(test)]
mod tests {
    use super::*;
    use clap::CommandFactory;

    /// cli.ftl's English is what clap shows from the doc comments, so it cannot drift.
    #[test]
    fn the_english_catalogue_is_the_doc_comments() {
        let cmd = crate::Cli::command();
        let about = |c: &Command| c.get_about().map(|a| a.to_string());
        assert_eq!(about(&cmd), Some(Lang::En.t("cli-about")));
        let long = cmd.get_long_about().map(|a| a.to_string());
        assert_eq!(long, Some(Lang::En.t("cli-long-about")));
        let names: Vec<&str> = cmd
            .get_subcommands()
            .filter(|s| !s.is_hide_set() && s.get_name() != "help")
            .map(|s| s.get_name())
            .collect();
        assert_eq!(names, SUMMARIES.map(|s| s.0).to_vec());
        for (name, key) in SUMMARIES {
            let sub = cmd.find_subcommand(name).unwrap();
            assert_eq!(about(sub), Some(Lang::En.t(key)), "{name}");
            let after = sub.get_after_help().map(|a| a.to_string());
            let common = after.as_deref() == Some(crate::EXIT_CODES);
            assert_eq!(common, COMMON_EXIT_CODES.contains(&name), "{name}");
        }
        assert_eq!(crate::EXIT_CODES, Lang::En.t("cli-exit-codes"));
        let sources = cmd
            .get_arguments()
            .filter(|a| a.get_help_heading() == Some(SOURCES_HEADING))
            .count();
        assert!(sources >= 5, "{sources} options under {SOURCES_HEADING}");
        assert_eq!(Lang::En.t("cli-heading-sources"), SOURCES_HEADING);
    }

    #[test]
    fn the_flag_is_read_before_parsing() {
        let args = |v: &[&str]| v.iter().map(OsString::from).collect::<Vec<_>>();
        assert_eq!(
            from_args(&args(&["g", "--lang", "zh-TW", "-h"])),
            Lang::ZhTw
        );
        assert_eq!(
            from_args(&args(&["g", "snapshot", "--lang=zh-CN"])),
            Lang::ZhCn
        );
        assert_eq!(from_args(&args(&["g", "--lang", "xx", "-h"])), Lang::En);
    }
}
