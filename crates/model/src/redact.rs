//! Secrets stay secret: command lines often carry API keys (`--api-key`, `--token=`, `HF_TOKEN=`,
//! `https://user:pass@host`, `?access_token=`). Every output goes through here; the raw command
//! line is never stored in a snapshot.

pub const REDACTED: &str = "<redacted>";

/// Substrings that mark an option or variable name as carrying a secret.
const SECRET_WORDS: [&str; 9] = [
    "key",
    "token",
    "secret",
    "passw",
    "pwd",
    "auth",
    "credential",
    "cookie",
    "bearer",
];

/// Option names that contain a secret word but carry no secret (paths, sizes, switches).
fn is_benign_name(name: &str) -> bool {
    // `--cache-type-k` and friends contain no secret word; these contain one but hold no secret.
    let benign = [
        "key-file",
        "keyfile",
        "key_file",
        "ssl-key",
        "tokens",
        "token-limit",
        "max-tokens",
        "n-tokens",
        "keep",
        "tokenizer",
        "no-auth",
        "auth-type",
        "key-type",
    ];
    benign.iter().any(|b| name.ends_with(b)) || name.contains("tokenizer")
}

fn is_secret_name(name: &str) -> bool {
    let n = name.trim_start_matches('-').to_ascii_lowercase();
    !n.is_empty() && !is_benign_name(&n) && SECRET_WORDS.iter().any(|w| n.contains(w))
}

/// Redact a command line given as its argument list.
pub fn redact_arg_list(args: &[String]) -> Vec<String> {
    let mut out = Vec::with_capacity(args.len());
    let mut hide_next = false;
    for a in args {
        if hide_next {
            hide_next = false;
            // `--api-key --port 8080` would be odd, but never hide a following option.
            if !a.starts_with("--") {
                out.push(REDACTED.to_string());
                continue;
            }
        }
        if let Some(stripped) = a.strip_prefix('-') {
            let body = stripped.trim_start_matches('-');
            if let Some((name, _)) = body.split_once('=') {
                if is_secret_name(name) {
                    out.push(format!(
                        "{}={REDACTED}",
                        &a[..a.len() - body.len() + name.len()]
                    ));
                    continue;
                }
            } else if is_secret_name(body) {
                hide_next = true;
                out.push(a.clone());
                continue;
            }
        } else if let Some((name, _)) = a.split_once('=') {
            // Environment-style `HF_TOKEN=...` passed through `env` or a wrapper.
            if !name.contains('/') && !name.contains(':') && is_secret_name(name) {
                out.push(format!("{name}={REDACTED}"));
                continue;
            }
        }
        out.push(redact_text(a));
    }
    out
}

/// Redact secrets inside free text: URL credentials and secret-looking query parameters.
pub fn redact_text(s: &str) -> String {
    let mut out = redact_userinfo(s);
    out = redact_query(&out);
    out
}

fn redact_userinfo(s: &str) -> String {
    let mut out = String::with_capacity(s.len());
    let mut rest = s;
    while let Some(i) = rest.find("://") {
        let (head, tail) = rest.split_at(i + 3);
        out.push_str(head);
        let end = tail
            .find(|c: char| c == '/' || c == '?' || c == '#' || c.is_whitespace())
            .unwrap_or(tail.len());
        let authority = &tail[..end];
        match authority.rfind('@') {
            Some(at) => {
                let userinfo = &authority[..at];
                match userinfo.split_once(':') {
                    Some((user, _)) => out.push_str(&format!("{user}:{REDACTED}")),
                    None => out.push_str(REDACTED),
                }
                out.push_str(&authority[at..]);
            }
            None => out.push_str(authority),
        }
        rest = &tail[end..];
    }
    out.push_str(rest);
    out
}

fn redact_query(s: &str) -> String {
    let mut out = String::with_capacity(s.len());
    let mut chars = s.char_indices().peekable();
    let mut last = 0;
    while let Some((i, c)) = chars.next() {
        if c != '?' && c != '&' {
            continue;
        }
        let start = i + 1;
        let rest = &s[start..];
        let Some(eq) = rest.find('=') else { continue };
        let name = &rest[..eq];
        if name.is_empty() || name.contains(|c: char| c == '&' || c.is_whitespace()) {
            continue;
        }
        if is_secret_name(name) {
            let vstart = start + eq + 1;
            let vend = s[vstart..]
                .find(|c: char| c == '&' || c == '#' || c.is_whitespace())
                .map(|e| vstart + e)
                .unwrap_or(s.len());
            out.push_str(&s[last..vstart]);
            out.push_str(REDACTED);
            last = vend;
            while chars.peek().is_some_and(|(j, _)| *j < vend) {
                chars.next();
            }
        }
    }
    out.push_str(&s[last..]);
    out
}

#[cfg(test)]
mod tests {
    use super::*;

    fn r(args: &[&str]) -> Vec<String> {
        redact_arg_list(&args.iter().map(|s| s.to_string()).collect::<Vec<_>>())
    }

    #[test]
    fn separate_value_flags() {
        assert_eq!(
            r(&["llama-server", "--api-key", "sk-123", "--port", "8080"]),
            ["llama-server", "--api-key", REDACTED, "--port", "8080"]
        );
        assert_eq!(
            r(&["x", "--hf-token", "hf_abc"]),
            ["x", "--hf-token", REDACTED]
        );
        assert_eq!(r(&["x", "--password", "p"]), ["x", "--password", REDACTED]);
    }

    #[test]
    fn equals_flags() {
        assert_eq!(r(&["x", "--token=abc"]), ["x", "--token=<redacted>"]);
        assert_eq!(r(&["x", "--api_key=abc"]), ["x", "--api_key=<redacted>"]);
        assert_eq!(r(&["x", "-api-key=abc"]), ["x", "-api-key=<redacted>"]);
    }

    #[test]
    fn env_style() {
        assert_eq!(
            r(&["env", "HF_TOKEN=hf_x", "OPENAI_API_KEY=sk", "PATH=/bin"]),
            [
                "env",
                "HF_TOKEN=<redacted>",
                "OPENAI_API_KEY=<redacted>",
                "PATH=/bin"
            ]
        );
    }

    #[test]
    fn urls() {
        assert_eq!(
            r(&["x", "https://user:pass@host.example/v1"]),
            ["x", "https://user:<redacted>@host.example/v1"]
        );
        assert_eq!(
            r(&["x", "--url=https://tok@h/x"]),
            ["x", "--url=https://<redacted>@h/x"]
        );
        assert_eq!(
            redact_text("http://h/p?model=a&access_token=zzz&x=1"),
            "http://h/p?model=a&access_token=<redacted>&x=1"
        );
        assert_eq!(
            redact_text("http://h/p?api_key=zzz"),
            "http://h/p?api_key=<redacted>"
        );
    }

    #[test]
    fn benign_options_survive() {
        let a = [
            "llama-server",
            "-m",
            "/m/q.gguf",
            "--cache-type-k",
            "q8_0",
            "-n",
            "128",
            "--n-predict",
            "5",
            "--ssl-key-file",
            "/k.pem",
            "--max-tokens",
            "64",
            "--keep",
            "4",
        ];
        assert_eq!(r(&a), a);
    }

    #[test]
    fn secret_never_survives_any_form() {
        let secret = "SUPERSECRET42";
        let forms = [
            vec!["--api-key".to_string(), secret.to_string()],
            vec![format!("--api-key={secret}")],
            vec![format!("--token={secret}")],
            vec![format!("https://me:{secret}@h/")],
            vec![format!("API_KEY={secret}")],
            vec![format!("http://h/?token={secret}")],
        ];
        for f in forms {
            let out = redact_arg_list(&f).join(" ");
            assert!(!out.contains(secret), "{f:?} -> {out}");
        }
    }
}
