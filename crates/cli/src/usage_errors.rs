//! clap's usage errors in the reader's language. clap writes its errors in English only; the
//! kinds people meet (an unknown or misspelt option, a missing one, a bad value, options that
//! cannot go together) are said here from the catalogue with clap's own context (the argument,
//! its suggestion, the valid values, the usage line). Any other kind, and English, is clap's text
//! as it is. The exit status stays clap's (2 for a usage error).

use clap::error::{ContextKind, ContextValue, ErrorKind};
use gpuledger_lang::Lang;

/// Print `e` in `lang` and exit, as [`clap::Error::exit`] does.
pub fn exit(e: clap::Error, lang: Lang) -> ! {
    match render(&e, lang) {
        Some(text) => {
            eprint!("{text}");
            std::process::exit(e.exit_code())
        }
        None => e.exit(),
    }
}

/// `e` in `lang`, or `None` where clap's own text is shown (English, help and version output,
/// a kind not listed here, or context clap did not give).
pub fn render(e: &clap::Error, lang: Lang) -> Option<String> {
    if lang == Lang::En {
        return None;
    }
    let text = |k: ContextKind| match e.get(k)? {
        ContextValue::String(s) => Some(s.clone()),
        ContextValue::Strings(v) => Some(v.join(", ")),
        ContextValue::StyledStr(s) => Some(s.to_string()),
        ContextValue::Number(n) => Some(n.to_string()),
        _ => None,
    };
    let arg = || text(ContextKind::InvalidArg);
    let t = |key: &str, args: &[(&str, String)]| {
        let values: Vec<_> = args.iter().map(|(k, v)| (*k, v.as_str().into())).collect();
        lang.t_args(key, &values)
    };
    let mut out = match e.kind() {
        ErrorKind::UnknownArgument => t("cli-err-unknown-arg", &[("arg", arg()?)]),
        ErrorKind::InvalidSubcommand => t(
            "cli-err-unknown-subcommand",
            &[("name", text(ContextKind::InvalidSubcommand)?)],
        ),
        ErrorKind::MissingRequiredArgument => t("cli-err-missing", &[("args", arg()?)]),
        ErrorKind::InvalidValue | ErrorKind::ValueValidation => {
            let value = text(ContextKind::InvalidValue)?;
            let mut line = t(
                "cli-err-invalid-value",
                &[("value", value), ("arg", arg()?)],
            );
            if let Some(why) = std::error::Error::source(e) {
                line = t(
                    "cli-err-because",
                    &[
                        ("line", line),
                        ("why", crate::failed::error_in_lang(why, lang)),
                    ],
                );
            }
            line
        }
        ErrorKind::ArgumentConflict => t(
            "cli-err-conflict",
            &[("arg", arg()?), ("other", text(ContextKind::PriorArg)?)],
        ),
        _ => return None,
    };
    out.push('\n');
    if let Some(valid) = text(ContextKind::ValidValue) {
        out += &format!("  {}\n", t("cli-err-possible", &[("values", valid)]));
    }
    let suggested = text(ContextKind::SuggestedArg)
        .or_else(|| text(ContextKind::SuggestedSubcommand))
        .or_else(|| text(ContextKind::SuggestedValue));
    if let Some(s) = suggested {
        out += &format!("\n  {}\n", t("cli-err-tip-similar", &[("similar", s)]));
    }
    if let Some(usage) = text(ContextKind::Usage) {
        // clap's usage line starts with its English heading: the language's replaces it.
        let line = usage.strip_prefix("Usage: ").unwrap_or(&usage);
        out += &format!("\n{}\n", t("cli-usage", &[("usage", line.to_string())]));
    }
    out += &format!("\n{}\n", lang.t("cli-err-more-info"));
    Some(out)
}

#[cfg(test)]
mod tests {
    use super::*;
    use clap::{Arg, Command};

    fn cmd() -> Command {
        Command::new("gpuledger")
            .subcommand(
                Command::new("snapshot")
                    .arg(
                        Arg::new("group-by")
                            .long("group-by")
                            .value_parser(["pod", "user"]),
                    )
                    .arg(
                        Arg::new("json")
                            .long("json")
                            .num_args(0)
                            .conflicts_with("group-by"),
                    ),
            )
            .subcommand(Command::new("plot").arg(Arg::new("out").long("out").required(true)))
    }

    fn err(args: &[&str]) -> clap::Error {
        cmd().try_get_matches_from(args).unwrap_err()
    }

    #[test]
    fn the_usual_mistakes_are_said_in_chinese_with_claps_context() {
        let e = err(&["gpuledger", "snapshot", "--groups"]);
        let cn = render(&e, Lang::ZhCn).unwrap();
        assert!(cn.starts_with("错误：无法识别的参数 '--groups'\n"), "{cn}");
        assert!(cn.contains("提示：是否要用 '--group-by'？"), "{cn}");
        assert!(cn.contains("用法：gpuledger snapshot"), "{cn}");
        assert!(!cn.contains("Usage:") && !cn.contains("For more"), "{cn}");

        let e = err(&["gpuledger", "snapshot", "--group-by", "podz"]);
        let tw = render(&e, Lang::ZhTw).unwrap();
        assert!(
            tw.contains("'podz'") && tw.contains("'--group-by <group-by>'"),
            "{tw}"
        );
        assert!(tw.contains("可用的值：pod, user"), "{tw}");

        let e = err(&["gpuledger", "plot"]);
        let cn = render(&e, Lang::ZhCn).unwrap();
        assert!(cn.contains("缺少必需的参数：--out <out>"), "{cn}");

        let e = err(&["gpuledger", "snapshot", "--group-by", "pod", "--json"]);
        let cn = render(&e, Lang::ZhCn).unwrap();
        assert!(
            cn.contains("'--json'") && cn.contains("'--group-by <group-by>'"),
            "{cn}"
        );

        let e = err(&["gpuledger", "snapshto"]);
        let cn = render(&e, Lang::ZhCn).unwrap();
        assert!(
            cn.contains("'snapshto'") && cn.contains("'snapshot'"),
            "{cn}"
        );
    }

    #[test]
    fn english_and_help_stay_claps_own() {
        assert!(render(&err(&["gpuledger", "snapshot", "--groups"]), Lang::En).is_none());
        assert!(render(&err(&["gpuledger", "--help"]), Lang::ZhCn).is_none());
    }
}
