//! A Python server's command line as its argument parser reads it: `--flag value` and
//! `--flag=value`, the last occurrence winning, and positional arguments anywhere among the
//! options (argparse takes `vllm serve --port 8000 MODEL` as well as `vllm serve MODEL --port
//! 8000`). vLLM's `FlexibleArgumentParser` also reads `--a_b` as `--a-b`; SGLang's readers
//! normalise the same way. Each runtime keeps one reader built on this (`vllm::VllmSettings`,
//! `sglang::SglangSettings`) that identification, roles and the recipe all use.

/// `--a_b=v` → (`--a-b`, Some(`v`)); `--a-b` → (`--a-b`, None). `None` for anything that is
/// not a long option (`-tp` short options keep their spelling).
pub(crate) fn split_option(arg: &str) -> Option<(String, Option<&str>)> {
    if let Some(rest) = arg.strip_prefix("--") {
        let (name, value) = match rest.split_once('=') {
            Some((n, v)) => (n, Some(v)),
            None => (rest, None),
        };
        return Some((format!("--{}", name.replace('_', "-")), value));
    }
    if arg.len() > 1 && arg.starts_with('-') && !is_number(arg) {
        return Some(match arg.split_once('=') {
            Some((n, v)) => (n.to_string(), Some(v)),
            None => (arg.to_string(), None),
        });
    }
    None
}

/// `-1`, `-0.5`: argparse takes a negative number as a value, not an option.
fn is_number(a: &str) -> bool {
    a[1..].parse::<f64>().is_ok()
}

/// The last occurrence of one of `names` (spelled with dashes), as (the name matched, its value
/// if it has one). A value is the inline `=v` or the next argument when that is not an option.
pub(crate) fn last(argv: &[String], names: &[&str]) -> Option<(String, Option<String>)> {
    let mut found = None;
    for (i, a) in argv.iter().enumerate() {
        let Some((name, inline)) = split_option(a) else {
            continue;
        };
        if names.contains(&name.as_str()) {
            let v = inline.map(str::to_string).or_else(|| {
                argv.get(i + 1)
                    .filter(|v| split_option(v).is_none())
                    .cloned()
            });
            found = Some((name, v));
        }
    }
    found
}

/// The positional arguments after `argv[start]` (a sub-command such as `serve`): every
/// argument that is neither an option nor an option's value. An option takes the next argument
/// as its value unless it is written `--x=v`, starts with `--no-`, or `switch` says it takes
/// none (argparse's `store_true` and `BooleanOptionalAction` flags).
pub(crate) fn positionals<'a>(
    argv: &'a [String],
    start: usize,
    switch: &dyn Fn(&str) -> bool,
) -> Vec<&'a str> {
    let mut out = Vec::new();
    let mut i = start + 1;
    while i < argv.len() {
        let a = &argv[i];
        if a == "--" {
            out.extend(argv[i + 1..].iter().map(String::as_str));
            break;
        }
        match split_option(a) {
            Some((name, inline)) => {
                let takes_next = inline.is_none()
                    && !name.starts_with("--no-")
                    && !switch(&name)
                    && argv.get(i + 1).is_some_and(|v| split_option(v).is_none());
                if takes_next {
                    i += 1;
                }
            }
            None => out.push(a.as_str()),
        }
        i += 1;
    }
    out
}

#[cfg(test)]
mod tests {
    use super::*;

    fn argv(s: &str) -> Vec<String> {
        s.split(' ').map(str::to_string).collect()
    }

    #[test]
    fn options_read_in_every_spelling_the_parser_accepts() {
        let a = argv("vllm serve m --tensor_parallel_size 2 --max-model-len=4096 -tp 4 --tensor-parallel-size=8");
        assert_eq!(
            last(&a, &["--tensor-parallel-size"]),
            Some(("--tensor-parallel-size".into(), Some("8".into())))
        );
        assert_eq!(
            last(&a, &["--max-model-len"]),
            Some(("--max-model-len".into(), Some("4096".into())))
        );
        assert_eq!(last(&a, &["-tp"]), Some(("-tp".into(), Some("4".into()))));
        // A flag followed by another option has no value; a negative number is a value.
        let a = argv("x --enforce-eager --seed -1");
        assert_eq!(
            last(&a, &["--enforce-eager"]),
            Some(("--enforce-eager".into(), None))
        );
        assert_eq!(
            last(&a, &["--seed"]),
            Some(("--seed".into(), Some("-1".into())))
        );
    }

    #[test]
    fn positionals_are_found_among_the_options() {
        let switch = |n: &str| n == "--trust-remote-code";
        let a = argv(
            "vllm serve --port 8000 --trust-remote-code /models/q --no-enable-prefix-caching -tp 2",
        );
        assert_eq!(positionals(&a, 1, &switch), vec!["/models/q"]);
        let a = argv("vllm serve /models/q --port=8000");
        assert_eq!(positionals(&a, 1, &switch), vec!["/models/q"]);
        let a = argv("vllm serve --port 8000");
        assert!(positionals(&a, 1, &switch).is_empty());
    }
}
