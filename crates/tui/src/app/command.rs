//! The command line as the table shows it: what tells two processes apart first. The program
//! by its file name (`python3`, not `/usr/local/bin/python3.11`'s path), and for an interpreter
//! the script it runs by its file name too (`python3 train.py --config lora.yaml`); the rest as
//! written. The whole line, paths included, is in the details (Enter) and the CSV export.

/// Programs whose first plain argument is the script that says what runs.
fn is_interpreter(program: &str) -> bool {
    let p = program.trim_end_matches(".exe");
    let stem = p.trim_end_matches(|c: char| c.is_ascii_digit() || c == '.');
    matches!(
        stem,
        "python"
            | "pypy"
            | "node"
            | "nodejs"
            | "ruby"
            | "perl"
            | "php"
            | "bash"
            | "sh"
            | "zsh"
            | "dash"
            | "deno"
            | "bun"
            | "Rscript"
            | "julia"
            | "lua"
            | "luajit"
    )
}

/// The last part of a path (`/` or `\`); the text itself when it has none.
fn file_name(s: &str) -> &str {
    s.rsplit(['/', '\\'])
        .next()
        .filter(|n| !n.is_empty())
        .unwrap_or(s)
}

/// Options of an interpreter that take the next word as their value (Python's `-X opt`,
/// `-W arg`; node's `-r module`).
const VALUE_OPTIONS: &[&str] = &["-X", "-W", "-r", "--require", "-I", "--import"];

/// `argv` shortened for the table: see the module's doc.
pub fn short_command(argv: &[String]) -> String {
    let Some((program, args)) = argv.split_first() else {
        return String::new();
    };
    let program = file_name(program);
    let mut out = vec![program];
    let mut script_seen = !is_interpreter(program);
    let mut value_next = false;
    for a in args {
        if script_seen || value_next {
            value_next = false;
            out.push(a);
            continue;
        }
        if a == "-m" || a == "-c" || a == "-e" || a == "--" {
            // A module, inline code or the end of options: no script file to shorten.
            script_seen = true;
            out.push(a);
        } else if a.starts_with('-') {
            value_next = VALUE_OPTIONS.contains(&a.as_str());
            out.push(a);
        } else {
            script_seen = true;
            out.push(file_name(a));
        }
    }
    out.join(" ")
}

#[cfg(test)]
mod tests {
    use super::short_command;

    fn s(argv: &[&str]) -> String {
        short_command(&argv.iter().map(|x| x.to_string()).collect::<Vec<_>>())
    }

    #[test]
    fn the_script_name_comes_first() {
        assert_eq!(
            s(&[
                "/usr/local/bin/python3.11",
                "/home/bob/exp/train.py",
                "--config",
                "a/b.yaml"
            ]),
            "python3.11 train.py --config a/b.yaml"
        );
        assert_eq!(
            s(&["python3", "-u", "-X", "dev", "./x/eval.py"]),
            "python3 -u -X dev eval.py"
        );
        assert_eq!(
            s(&[
                "/usr/bin/python3",
                "-m",
                "vllm.entrypoints.openai.api_server",
                "--model",
                "/m/q"
            ]),
            "python3 -m vllm.entrypoints.openai.api_server --model /m/q"
        );
        assert_eq!(
            s(&["/opt/llama/llama-server", "-m", "/models/q.gguf"]),
            "llama-server -m /models/q.gguf"
        );
        assert_eq!(s(&["node", "/srv/app/server.js"]), "node server.js");
        assert_eq!(
            s(&["C:\\Python312\\python.exe", "C:\\w\\run.py"]),
            "python.exe run.py"
        );
        assert_eq!(s(&["Xorg"]), "Xorg");
        assert_eq!(s(&[]), "");
    }
}
