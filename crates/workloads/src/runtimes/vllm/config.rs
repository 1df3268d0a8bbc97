//! vLLM's `--config FILE.yaml`: a YAML file of `key: value` lines that vLLM's
//! `FlexibleArgumentParser._pull_args_from_config` (`vllm/utils/argparse_utils.py`; earlier
//! `vllm/utils.py`) turns into options inserted right after `serve` (and after a positional
//! model), so the options written on the command line, which come later, win. A `true` value is
//! the bare switch, `false` leaves the option out, a list is the option with each item.
//!
//! Read here only when it is small ([`MAX_CONFIG_BYTES`]) and flat (one `key: value` per line,
//! lists as `key: [a, b]`); a nested mapping or an unreadable file is said in words, never
//! guessed, and the command line is read without it.

use gpuledger_lang::Said;
use std::path::Path;

/// The largest config file read: a server's options take a few hundred bytes.
pub const MAX_CONFIG_BYTES: u64 = 64 * 1024;

/// The command line with the config file's options in place of `--config FILE`, or the command
/// line as it is and why the file was not read. `read` returns the file's text (bounded).
pub fn expand(
    argv: &[String],
    read: &dyn Fn(&Path) -> Result<String, String>,
) -> (Vec<String>, Option<Said>) {
    let Some((at, path, width)) = config_flag(argv) else {
        return (argv.to_vec(), None);
    };
    let rest = || -> Vec<String> {
        let mut a = argv.to_vec();
        a.drain(at..at + width);
        a
    };
    let Some(path) = path else {
        return (
            rest(),
            Some(Said::new("recipe-note-vllm-config-no-name", vec![])),
        );
    };
    let options = read(Path::new(&path)).and_then(|text| options_of(&text));
    let options = match options {
        Ok(o) => o,
        Err(e) => {
            let said = vec![("path", path.as_str().into()), ("error", e.into())];
            return (
                rest(),
                Some(Said::new("recipe-note-vllm-config-unread", said)),
            );
        }
    };
    let mut out = rest();
    // After `serve` and a positional model right after it, as vLLM inserts them.
    let mut insert = out.iter().position(|a| a == "serve").map_or(1, |i| i + 1);
    if out
        .get(insert)
        .is_some_and(|a| super::super::pyargs::split_option(a).is_none())
    {
        insert += 1;
    }
    let insert = insert.min(out.len());
    out.splice(insert..insert, options);
    (out, None)
}

/// [`expand`] with the file read as process `pid` reads it: relative to its working
/// directory, inside its root, at most [`MAX_CONFIG_BYTES`].
pub fn expand_in_process(
    argv: &[String],
    proc_root: &Path,
    pid: u32,
) -> (Vec<String>, Option<Said>) {
    let read = |path: &Path| -> Result<String, String> {
        let path = if path.is_relative() {
            let cwd = std::fs::read_link(proc_root.join(pid.to_string()).join("cwd"))
                .map_err(|e| format!("its working directory is not readable: {e}"))?;
            cwd.join(path)
        } else {
            path.to_path_buf()
        };
        let seen = crate::runtimes::hf::in_process_root(proc_root, pid, &path);
        let (root, inner) = crate::confine::ProcessRoot::split(proc_root, pid, &seen);
        let bytes = root
            .reached(&inner)
            .and_then(|r| r.read_bounded(MAX_CONFIG_BYTES))
            .map_err(|e| e.to_string())?;
        String::from_utf8(bytes).map_err(|_| "not UTF-8 text".to_string())
    };
    expand(argv, &read)
}

/// Where `--config FILE` (or `--config=FILE`) is: its index, the file, and how many arguments
/// it takes.
fn config_flag(argv: &[String]) -> Option<(usize, Option<String>, usize)> {
    argv.iter().enumerate().find_map(|(i, a)| {
        if a == "--config" {
            Some((i, argv.get(i + 1).cloned(), 2.min(argv.len() - i)))
        } else {
            a.strip_prefix("--config=")
                .map(|p| (i, Some(p.to_string()), 1))
        }
    })
}

/// The options a flat YAML file stands for.
fn options_of(text: &str) -> Result<Vec<String>, String> {
    let mut out = Vec::new();
    for (n, line) in text.lines().enumerate() {
        let body = line.split(" #").next().unwrap_or("").trim_end();
        if body.trim().is_empty() || body.trim_start().starts_with('#') {
            continue;
        }
        if body.starts_with([' ', '\t', '-']) {
            return Err(format!(
                "line {}: a nested value, which this reader does not read",
                n + 1
            ));
        }
        let (key, value) = body
            .split_once(':')
            .ok_or_else(|| format!("line {}: not a `key: value` line", n + 1))?;
        let key = format!("--{}", unquote(key.trim()));
        let value = value.trim();
        match value {
            "" => {
                return Err(format!(
                    "line {}: {key} has a nested value, which this reader does not read",
                    n + 1
                ))
            }
            "true" | "True" => out.push(key),
            "false" | "False" => {}
            v if v.starts_with('[') && v.ends_with(']') => {
                out.push(key);
                let items = v[1..v.len() - 1].split(',').map(|i| unquote(i.trim()));
                out.extend(items.filter(|i| !i.is_empty()).map(str::to_string));
            }
            v if v.starts_with('{') => {
                out.push(key);
                out.push(v.to_string());
            }
            v => {
                out.push(key);
                out.push(unquote(v).to_string());
            }
        }
    }
    Ok(out)
}

fn unquote(v: &str) -> &str {
    for q in ['"', '\''] {
        if let Some(inner) = v.strip_prefix(q).and_then(|r| r.strip_suffix(q)) {
            return inner;
        }
    }
    v
}

#[cfg(test)]
mod tests {
    use super::*;

    fn argv(s: &str) -> Vec<String> {
        s.split(' ').map(str::to_string).collect()
    }

    /// The example of vLLM's docs (`docs/configuration/serve_args.md`): a config file's
    /// options go after the model, so `-tp 2` on the command line wins over its `4`.
    #[test]
    fn config_options_go_after_the_model_and_yield_to_the_command_line() {
        let yaml = "# server\nport: 12323\ntensor-parallel-size: 4\nenforce_eager: true\ndisable-log-stats: false\nserved-model-name: [\"a\", 'b']\n";
        let read = |_: &Path| Ok(yaml.to_string());
        let (a, note) = expand(
            &argv("vllm serve facebook/opt-12B --config config.yaml -tp 2"),
            &read,
        );
        assert_eq!(note, None);
        assert_eq!(
            a,
            argv("vllm serve facebook/opt-12B --port 12323 --tensor-parallel-size 4 --enforce_eager --served-model-name a b -tp 2")
        );
        let s = crate::runtimes::vllm::VllmSettings::from_args(&a, "t").unwrap();
        assert_eq!(s.tensor_parallel_size.value, 2);
        assert!(s.enforce_eager.value);
    }

    #[test]
    fn a_config_not_read_is_said_and_left_out() {
        let nested = |_: &Path| Ok("model: m\ncompilation-config:\n  level: 3\n".to_string());
        let (a, note) = expand(&argv("vllm serve --config c.yaml -tp 2"), &nested);
        assert_eq!(a, argv("vllm serve -tp 2"));
        let note = note.unwrap();
        assert!(
            note.contains("--config c.yaml was not read") && note.contains("line 2"),
            "{note}"
        );
        let missing = |_: &Path| Err("no such file".to_string());
        let (_, note) = expand(&argv("vllm serve --config=c.yaml"), &missing);
        assert!(note.unwrap().contains("no such file"));
        let (a, note) = expand(&argv("vllm serve --config"), &missing);
        assert_eq!(
            (a, note.as_deref()),
            (argv("vllm serve"), Some("--config has no file name"))
        );
    }

    #[test]
    fn the_model_may_come_from_the_config() {
        let read = |_: &Path| Ok("model: /models/q\ntensor_parallel_size: 2\n".to_string());
        let (a, _) = expand(&argv("vllm serve --config c.yaml --port 8000"), &read);
        let s = crate::runtimes::vllm::VllmSettings::from_args(&a, "t").unwrap();
        assert_eq!(s.model.as_deref(), Some("/models/q"));
        assert_eq!(s.tensor_parallel_size.value, 2);
    }
}
