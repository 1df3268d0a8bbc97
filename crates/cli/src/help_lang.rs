//! `--help` and the man pages in the chosen language: the program's and each command's
//! summary, every argument's help, the headings, the common exit-status block and clap's own
//! words. English is clap's text from the doc comments, untouched (a test keeps cli.ftl's
//! English equal to it, argument by argument); completions are built from the untranslated
//! command (they carry no sentences a shell shows).

use clap::{Arg, ArgAction, Command};
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

/// The commands whose `--help` ends with the common exit statuses.
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

/// The commands whose `--help` ends with their own text (their exit statuses, what they read,
/// what they answer), and its key.
const OWN_AFTER_HELP: [(&str, &str); 6] = [
    ("kill", "cli-exit-codes-kill"),
    ("probe", "cli-exit-codes-probe"),
    ("verify", "cli-exit-codes-verify"),
    ("estimate", "cli-after-estimate"),
    ("serve", "cli-after-serve"),
    ("ui", "cli-after-ui"),
];

/// The commands whose long help (`--help`, not `-h`) ends with a longer text, and its key.
const OWN_AFTER_LONG_HELP: [(&str, &str); 1] = [("watch", "cli-after-watch")];

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

/// `cmd` in `lang` (unchanged for English): the program's and each command's summary, every
/// argument's help (`cli-arg-…`), the headings, clap's own words (usage, options, arguments,
/// defaults, environment variables, possible values, the help flag and the help command). The
/// tree is built first, so that clap's generated arguments and the global ones copied into
/// each command are there to translate.
pub fn localise(cmd: Command, lang: Lang) -> Command {
    if lang == Lang::En {
        return cmd;
    }
    let mut cmd = cmd
        .about(lang.t("cli-about"))
        .long_about(lang.t("cli-long-about"))
        .after_help(lang.t("cli-exit-codes"));
    cmd = SUMMARIES.iter().fold(cmd, |cmd, (name, key)| {
        cmd.mut_subcommand(name, |sub| {
            let mut sub = sub.about(lang.t(key));
            if let Some(long) = lang.t_attr(key, "long") {
                sub = sub.long_about(long);
            }
            if COMMON_EXIT_CODES.contains(name) {
                sub = sub.after_help(lang.t("cli-exit-codes"));
            }
            if let Some((_, key)) = OWN_AFTER_LONG_HELP.iter().find(|(n, _)| n == name) {
                sub = sub.after_long_help(lang.t(key));
            }
            match OWN_AFTER_HELP.iter().find(|(n, _)| n == name) {
                Some((_, key)) => sub.after_help(lang.t(key)),
                None => sub,
            }
        })
    });
    cmd.build();
    localise_tree(cmd, lang, None)
}

/// One command and, below it, its sub-commands: `top` is the sub-command of `gpuledger` it
/// belongs to (`None` for `gpuledger` itself), which names its arguments' keys.
fn localise_tree(cmd: Command, lang: Lang, top: Option<&str>) -> Command {
    // A hidden command (verify's child) shows no help to translate.
    if cmd.is_hide_set() {
        return cmd;
    }
    let in_help = top == Some("help");
    // The heading and the usage in the language's order and punctuation (`用法：`, no space).
    let usage = lang.t_args("cli-usage", &[("usage", "{usage}".into())]);
    let template = DEFAULT_TEMPLATE.replace("{usage-heading} {usage}", &usage);
    let mut cmd = cmd
        .help_template(template)
        .subcommand_help_heading(lang.t("cli-heading-commands"))
        .mut_args(|a| localise_arg(a, lang, top, in_help));
    if in_help {
        cmd = cmd.about(lang.t("cli-help-command"));
    }
    let subs: Vec<String> = cmd
        .get_subcommands()
        .map(|s| s.get_name().to_string())
        .collect();
    for name in subs {
        let top = top.unwrap_or(&name).to_string();
        cmd = cmd.mut_subcommand(&name, |s| localise_tree(s, lang, Some(&top)));
    }
    cmd
}

/// clap's own template (`clap_builder::output::help_template`), its "Usage:" heading the
/// language's.
const DEFAULT_TEMPLATE: &str =
    "{before-help}{about-with-newline}\n{usage-heading} {usage}\n\n{all-args}{after-help}";

/// The catalogue key of an argument's help: `cli-arg-<command>-<argument>` (the argument's id
/// with `-` for `_`), `cli-arg-<argument>` for `gpuledger`'s own and the global ones; clap's
/// generated help and version flags and the help command's argument have their own keys.
/// `None` for the arguments no help shows.
pub fn arg_key(arg: &Arg, top: Option<&str>) -> Option<String> {
    let id = arg.get_id().as_str();
    if arg.is_hide_set() {
        return None;
    }
    Some(match (id, top) {
        ("help", _) if matches!(arg.get_action(), ArgAction::Help) => "cli-help-flag".into(),
        ("version", _) if matches!(arg.get_action(), ArgAction::Version) => {
            "cli-version-flag".into()
        }
        (_, Some("help")) => "cli-help-command-arg".into(),
        (_, None) => format!("cli-arg-{}", id.replace('_', "-")),
        (_, Some(_)) if arg.is_global_set() => format!("cli-arg-{}", id.replace('_', "-")),
        (_, Some(top)) => format!("cli-arg-{top}-{}", id.replace('_', "-")),
    })
}

fn localise_arg(arg: Arg, lang: Lang, top: Option<&str>, in_help: bool) -> Arg {
    let Some(key) = arg_key(&arg, if in_help { Some("help") } else { top }) else {
        return arg;
    };
    // clap's help flag says more where the command has more to say on --help.
    let (help, long) = if key == "cli-help-flag" && arg.get_long_help().is_some() {
        (
            lang.t("cli-help-flag-more"),
            Some(lang.t("cli-help-flag-summary")),
        )
    } else {
        (lang.t(&key), lang.t_attr(&key, "long"))
    };
    let specs = spec_values(&arg, lang);
    let with = |text: String, sep: &str| {
        if specs.is_empty() {
            text
        } else {
            format!("{text}{sep}{}", specs.join(sep))
        }
    };
    let long = long.map(|l| with(l, "\n\n"));
    let heading = match arg.get_help_heading() {
        Some(SOURCES_HEADING) => lang.t("cli-heading-sources"),
        Some(other) => other.to_string(),
        None if arg.is_positional() => lang.t("cli-heading-arguments"),
        None => lang.t("cli-heading-options"),
    };
    let arg = match long {
        Some(l) => arg.long_help(l),
        None => arg,
    };
    arg.help(with(help, " "))
        .help_heading(heading)
        .hide_default_value(true)
        .hide_env(true)
        .hide_possible_values(true)
}

/// What clap adds after an argument's help (`[env: …]`, `[default: …]`, `[possible values:
/// …]`, in clap's order), in `lang`.
fn spec_values(arg: &Arg, lang: Lang) -> Vec<String> {
    let mut out = Vec::new();
    let takes = arg.get_action().takes_values();
    if let Some(name) = arg.get_env().filter(|_| !arg.is_hide_env_set()) {
        let value = std::env::var_os(name).unwrap_or_default();
        let env = format!("{}={}", name.to_string_lossy(), value.to_string_lossy());
        out.push(lang.t_args("cli-spec-env", &[("env", env.into())]));
    }
    let defaults: Vec<String> = arg
        .get_default_values()
        .iter()
        .map(|v| v.to_string_lossy().into_owned())
        .collect();
    if takes && !defaults.is_empty() && !arg.is_hide_default_value_set() {
        let value = defaults.join(" ");
        out.push(lang.t_args("cli-spec-default", &[("value", value.into())]));
    }
    let possible: Vec<String> = arg
        .get_possible_values()
        .iter()
        .filter(|v| !v.is_hide_set())
        .map(|v| v.get_name().to_string())
        .collect();
    if takes && !possible.is_empty() && !arg.is_hide_possible_values_set() {
        let values = possible.join(", ");
        out.push(lang.t_args("cli-spec-possible", &[("values", values.into())]));
    }
    out
}

/// The heading of the global options that say where to read from (global.rs).
pub const SOURCES_HEADING: &str = "Where to read from";

#[cfg(test)]
mod tests {
    use super::*;
    use clap::CommandFactory;

    type Help = (String, String, Option<String>);

    /// Every argument any help shows, with its key, help and long help, as clap built it in
    /// English.
    fn every_argument() -> Vec<Help> {
        fn walk(cmd: &Command, top: Option<&str>, out: &mut Vec<Help>) {
            if cmd.is_hide_set() {
                return;
            }
            for a in cmd.get_arguments() {
                if let Some(key) = arg_key(a, top) {
                    let text = |t: Option<&clap::builder::StyledStr>| t.map(|t| t.to_string());
                    let help = text(a.get_help()).unwrap_or_default();
                    out.push((key, help, text(a.get_long_help())));
                }
            }
            for sub in cmd.get_subcommands() {
                walk(sub, Some(top.unwrap_or(sub.get_name())), out);
            }
        }
        let mut cmd = crate::Cli::command();
        cmd.build();
        let mut out = Vec::new();
        walk(&cmd, None, &mut out);
        out
    }

    /// Each argument has its key in every catalogue, English the same as clap's own text (the
    /// help flag's forms apart), and no `cli-arg-` key names an argument that is gone.
    #[test]
    fn every_argument_of_every_command_has_its_words_in_every_language() {
        let args = every_argument();
        assert!(args.len() > 100, "{} arguments", args.len());
        let mut problems = Vec::new();
        for (key, help, long) in &args {
            for lang in Lang::ALL {
                let keys = gpuledger_lang::keys(lang, gpuledger_lang::Area::Cli);
                if !keys.contains(key) {
                    problems.push(format!("{lang}: no {key}"));
                }
            }
            if key == "cli-help-flag" {
                let forms = ["cli-help-flag", "cli-help-flag-more"].map(|k| Lang::En.t(k));
                assert!(forms.contains(help), "{help}");
                continue;
            }
            if Lang::En.t(key) != *help {
                let en = Lang::En.t(key);
                problems.push(format!("{key}: English {en:?}, clap {help:?}"));
            }
            let en_long = Lang::En.t_attr(key, "long");
            if en_long != *long {
                problems.push(format!("{key}.long: {en_long:?}, clap {long:?}"));
            }
        }
        for key in gpuledger_lang::keys(Lang::En, gpuledger_lang::Area::Cli) {
            if key.starts_with("cli-arg-") && !args.iter().any(|a| a.0 == key) {
                problems.push(format!("{key} names no argument"));
            }
        }
        assert!(problems.is_empty(), "\n{}", problems.join("\n"));
    }

    /// Prints cli.ftl's English for every argument from clap's own text (by hand, when
    /// arguments are added: `cargo test -p gpuledger --bin gpuledger dump_argument_help --
    /// --ignored --nocapture`).
    #[test]
    #[ignore]
    fn dump_argument_help() {
        let ftl = |text: &str| {
            let text: String = text
                .chars()
                .map(|c| match c {
                    '{' => "{\"{\"}".to_string(),
                    '}' => "{\"}\"}".to_string(),
                    c => c.to_string(),
                })
                .collect();
            let lines: Vec<String> = text
                .lines()
                .map(|l| match l.chars().next() {
                    Some(c @ ('[' | '*' | '.')) => format!("{{\"{c}\"}}{}", &l[1..]),
                    _ => l.to_string(),
                })
                .collect();
            if lines.len() == 1 {
                format!(" {}", lines[0])
            } else {
                let body: Vec<String> = lines
                    .iter()
                    .map(|l| {
                        if l.is_empty() {
                            String::new()
                        } else {
                            format!("        {l}")
                        }
                    })
                    .collect();
                format!("\n{}", body.join("\n"))
            }
        };
        let mut cmd = crate::Cli::command();
        cmd.build();
        for sub in cmd.get_subcommands() {
            let texts = [
                ("after", sub.get_after_help()),
                ("after-long", sub.get_after_long_help()),
            ];
            for (what, text) in texts {
                if let Some(t) = text {
                    println!("# {} {what}\n={}", sub.get_name(), ftl(&t.to_string()));
                }
            }
        }
        let mut seen = std::collections::BTreeSet::new();
        for (key, help, long) in every_argument() {
            if key.starts_with("cli-help") || key == "cli-version-flag" || !seen.insert(key.clone())
            {
                continue;
            }
            println!("{key} ={}", ftl(&help));
            if let Some(l) = long {
                println!("    .long ={}", ftl(&l));
            }
        }
    }

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
            let long = sub.get_long_about().map(|a| a.to_string());
            assert_eq!(long, Lang::En.t_attr(key, "long"), "{name}");
            let after = sub.get_after_help().map(|a| a.to_string());
            let common = after.as_deref() == Some(crate::EXIT_CODES);
            assert_eq!(common, COMMON_EXIT_CODES.contains(&name), "{name}");
            if let Some((_, key)) = OWN_AFTER_HELP.iter().find(|(n, _)| *n == name) {
                assert_eq!(after, Some(Lang::En.t(key)), "{name}");
            }
            let after_long = sub.get_after_long_help().map(|a| a.to_string());
            match OWN_AFTER_LONG_HELP.iter().find(|(n, _)| *n == name) {
                Some((_, key)) => assert_eq!(after_long, Some(Lang::En.t(key)), "{name}"),
                None => assert_eq!(after_long, None, "{name}"),
            }
            // Every command's own text is in the catalogue: the common statuses or its own.
            let own = OWN_AFTER_HELP.iter().any(|(n, _)| *n == name);
            assert!(
                common || own || after.is_none(),
                "{name}: after-help with no key"
            );
        }
        assert_eq!(
            Lang::En.t_args("cli-usage", &[("usage", "{usage}".into())]),
            "Usage: {usage}"
        );
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
