//! The flag table (`estimate::FLAGS`) against llama.cpp's own `common/arg.cpp` of the pinned
//! build: every option llama-server accepts there must be a row here, with every spelling, the
//! same `LLAMA_ARG_*` variable and the same number of values; every row here must be an option
//! there or one of the marked rows for older builds.
//!
//! `.ci/setup-llama.sh` keeps that file as `target/llama-tools/arg.cpp`; `GPULEDGER_LLAMA_ARG_CPP`
//! points elsewhere. Missing: skipped with a printed reason, except under `CI=true`.

use std::path::{Path, PathBuf};

use gpuledger_workloads::estimate::{find_flag, Takes, FLAGS, OLDER_BUILDS};

/// One option as arg.cpp declares it.
#[derive(Debug)]
struct Opt {
    names: Vec<String>,
    env: Option<String>,
    values: usize,
}

fn arg_cpp() -> Option<PathBuf> {
    let root = Path::new(env!("CARGO_MANIFEST_DIR")).join("../..");
    let p = std::env::var_os("GPULEDGER_LLAMA_ARG_CPP")
        .filter(|v| !v.is_empty())
        .map(PathBuf::from)
        .unwrap_or_else(|| root.join("target/llama-tools/arg.cpp"));
    if p.exists() {
        return Some(p);
    }
    let why = format!(
        "llama.cpp's common/arg.cpp not found at {} (run .ci/setup-llama.sh, or set \
         GPULEDGER_LLAMA_ARG_CPP)",
        p.display()
    );
    if std::env::var("CI").as_deref() == Ok("true") {
        panic!("CI=true and {why}");
    }
    eprintln!("SKIPPED: {why}");
    None
}

/// The source without `//` comments (outside strings), so that quotes in comments do not count.
fn without_comments(src: &str) -> String {
    let mut out = String::with_capacity(src.len());
    for line in src.lines() {
        let mut in_str = false;
        let mut prev = ' ';
        let mut cut = line.len();
        for (i, c) in line.char_indices() {
            if c == '"' && prev != '\\' && prev != '\'' {
                in_str = !in_str;
            } else if !in_str && c == '/' && prev == '/' {
                cut = i - 1;
                break;
            }
            prev = c;
        }
        out.push_str(&line[..cut]);
        out.push('\n');
    }
    out
}

/// The strings of the `{ ... }` list that starts at `s` (after spaces), and what follows it.
fn string_list(s: &str) -> Option<(Vec<String>, &str)> {
    let s = s.trim_start().strip_prefix('{')?;
    let end = s.find('}')?;
    let names = s[..end]
        .split('"')
        .skip(1)
        .step_by(2)
        .map(String::from)
        .collect();
    Some((names, &s[end + 1..]))
}

/// The options llama-server accepts: in the common set or the server's, not excluded from it.
fn server_options(src: &str) -> Vec<Opt> {
    let src = without_comments(src);
    // The options end where the function that declares them returns (preset-only keys follow).
    let start = src.find("add_opt(common_arg(").expect("options in arg.cpp");
    let end = src[start..]
        .find("return ctx_arg;")
        .map_or(src.len(), |e| start + e);
    let mut opts = Vec::new();
    let blocks: Vec<&str> = src[..end].split("add_opt(common_arg(").skip(1).collect();
    for block in blocks {
        let (mut names, rest) = string_list(block).expect("a name list");
        if let Some((neg, _)) = rest.trim_start().strip_prefix(',').and_then(string_list) {
            names.extend(neg);
        }
        let handler = block
            .split("[](common_params &")
            .nth(1)
            .and_then(|h| h.split(')').next())
            .unwrap_or("");
        let values = match handler.matches("std::string").count() {
            2 => 2,
            _ if handler.contains("bool") || !handler.contains(',') => 0,
            _ => 1,
        };
        let env = block
            .split("set_env(\"")
            .nth(1)
            .map(|e| e[..e.find('"').unwrap()].to_string());
        let list = |call: &str| -> Vec<String> {
            block
                .split(call)
                .nth(1)
                .and_then(string_list_plain)
                .unwrap_or_default()
        };
        let examples = list("set_examples(");
        let excludes = list("set_excludes(");
        let in_server = examples.is_empty()
            || examples
                .iter()
                .any(|e| e == "LLAMA_EXAMPLE_SERVER" || e == "LLAMA_EXAMPLE_COMMON");
        let excluded = excludes.iter().any(|e| e == "LLAMA_EXAMPLE_SERVER");
        if in_server && !excluded && !block.contains("set_preset_only") {
            opts.push(Opt { names, env, values });
        }
    }
    opts
}

/// The words of a `{ A, B }` list of identifiers.
fn string_list_plain(s: &str) -> Option<Vec<String>> {
    let s = s.trim_start().strip_prefix('{')?;
    let end = s.find('}')?;
    Some(
        s[..end]
            .split(',')
            .map(|w| w.trim().to_string())
            .filter(|w| !w.is_empty())
            .collect(),
    )
}

#[test]
fn the_flag_table_is_llama_servers_own() {
    let Some(path) = arg_cpp() else { return };
    let src = std::fs::read_to_string(&path).unwrap();
    let opts = server_options(&src);
    assert!(
        opts.len() > 200,
        "only {} options read from {}",
        opts.len(),
        path.display()
    );
    let mut problems = Vec::new();
    for o in &opts {
        let first = &o.names[0];
        let Some(row) = find_flag(first) else {
            problems.push(format!("{first}: no row"));
            continue;
        };
        for n in &o.names {
            if !row.names.contains(&n.as_str()) {
                problems.push(format!("{n}: not in the row of {first}"));
            }
        }
        if row.env != o.env.as_deref() {
            problems.push(format!("{first}: env {:?}, arg.cpp {:?}", row.env, o.env));
        }
        let values = match row.takes {
            Takes::Nothing => 0,
            Takes::Value | Takes::OptionalValue => 1,
            Takes::TwoValues => 2,
        };
        if values != o.values {
            problems.push(format!("{first}: {values} values, arg.cpp {}", o.values));
        }
    }
    for row in FLAGS {
        for n in row.names {
            let known = opts.iter().any(|o| o.names.iter().any(|m| m == n));
            if !known && !OLDER_BUILDS.contains(n) {
                problems.push(format!(
                    "{n}: not in arg.cpp and not marked as an older build's"
                ));
            }
        }
    }
    assert!(problems.is_empty(), "{}", problems.join("\n"));
}
