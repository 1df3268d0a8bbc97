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

/// Whether an option or variable name carries a secret (`--api-key`, `HF_TOKEN`, `PGPASSWORD`),
/// not counting names that only contain a secret word (`--cache-type-k`, `max-tokens`).
pub fn is_secret_name(name: &str) -> bool {
    let n = name.trim_start_matches('-').to_ascii_lowercase();
    !n.is_empty() && !is_benign_name(&n) && SECRET_WORDS.iter().any(|w| n.contains(w))
}

/// What the previous argument said about the next one.
#[derive(Clone, Copy, PartialEq, Eq)]
enum Next {
    Plain,
    /// After `--api-key`: the value is a secret (an auth scheme such as `Bearer` is kept).
    Secret,
    /// After `-H` / `--header`: an HTTP header, whose value is a secret when its name is.
    Header,
    /// After curl's `-u` / `--user`: `user:password`.
    UserPass,
}

/// Option names whose value is an HTTP header (curl, wget, httpie-style tools).
fn is_header_flag(arg: &str) -> bool {
    arg == "-H" || arg.trim_start_matches('-').eq_ignore_ascii_case("header")
}

/// Option names whose value is `user:password` (curl `-u`, `--user`, `--proxy-user`).
fn is_userpass_flag(arg: &str) -> bool {
    matches!(arg, "-u" | "-U" | "--user" | "--proxy-user")
}

/// Authentication schemes that precede a credential (`Authorization: Bearer X`).
fn is_auth_scheme(word: &str) -> bool {
    ["bearer", "basic", "token", "digest", "negotiate", "apikey"]
        .iter()
        .any(|s| word.eq_ignore_ascii_case(s))
}

/// Redact a command line given as its argument list.
pub fn redact_arg_list(args: &[String]) -> Vec<String> {
    let mut out = Vec::with_capacity(args.len());
    let mut next = Next::Plain;
    for a in args {
        let (r, n) = redact_arg(a, next);
        out.push(r);
        next = n;
    }
    out
}

/// One argument, given what the previous one announced; returns what this one announces.
fn redact_arg(a: &str, next: Next) -> (String, Next) {
    match next {
        Next::Plain => {}
        // `--api-key --port 8080` would be odd, but never hide a following option.
        Next::Secret if !a.starts_with("--") => {
            if is_auth_scheme(a) {
                return (a.to_string(), Next::Secret);
            }
            return (REDACTED.to_string(), Next::Plain);
        }
        Next::Secret => {}
        // `-H 'Authorization: Bearer X'` split into words: the name alone, the value after it.
        Next::Header if a.ends_with(':') => {}
        Next::Header => return (redact_header(a), Next::Plain),
        Next::UserPass => {
            if let Some((user, pass)) = a.split_once(':') {
                // `docker run -u 1000:1000` is a uid:gid, not a password.
                let ids = |t: &str| !t.is_empty() && t.bytes().all(|c| c.is_ascii_digit());
                let uid_gid = ids(user) && ids(pass);
                if !a.starts_with('-') && !uid_gid {
                    return (format!("{user}:{REDACTED}"), Next::Plain);
                }
            }
        }
    }
    if let Some(stripped) = a.strip_prefix('-') {
        let body = stripped.trim_start_matches('-');
        if let Some((name, value)) = body.split_once('=') {
            let flag = &a[..a.len() - body.len() + name.len()];
            if is_secret_name(name) {
                return (format!("{flag}={REDACTED}"), Next::Plain);
            }
            if is_header_flag(flag) {
                return (format!("{flag}={}", redact_header(value)), Next::Plain);
            }
            if is_userpass_flag(flag) {
                if let Some((user, _)) = value.split_once(':') {
                    return (format!("{flag}={user}:{REDACTED}"), Next::Plain);
                }
            }
            return (format!("{flag}={}", redact_value(value)), Next::Plain);
        }
        if is_secret_name(body) {
            return (a.to_string(), Next::Secret);
        }
        if is_header_flag(a) {
            return (a.to_string(), Next::Header);
        }
        if is_userpass_flag(a) {
            return (a.to_string(), Next::UserPass);
        }
        // curl's attached form: `-uuser:password`.
        if let Some(rest) = a.strip_prefix("-u").filter(|r| !r.starts_with('-')) {
            if let Some((user, _)) = rest.split_once(':') {
                return (format!("-u{user}:{REDACTED}"), Next::Plain);
            }
        }
        return (redact_value(a), Next::Plain);
    }
    if a.contains(char::is_whitespace) {
        // A whole command line or text in one argument (`sh -c "..."`).
        return (redact_value(a), Next::Plain);
    }
    if let Some((name, _)) = a.split_once('=') {
        // Environment-style `HF_TOKEN=...` passed through `env` or a wrapper.
        if !name.is_empty() && !name.contains(['/', ':', ' ', '"', '\'']) && is_secret_name(name) {
            return (format!("{name}={REDACTED}"), Next::Plain);
        }
    }
    // `api_key:` (a YAML-ish or header-ish name alone) hides what follows it.
    if let Some(name) = a.strip_suffix(':') {
        if is_plain_name(name) && is_secret_name(name) {
            return (a.to_string(), Next::Secret);
        }
    }
    (redact_value(a), Next::Plain)
}

/// A bare option, header or key name (no spaces, quotes or punctuation beyond `-_.`).
fn is_plain_name(s: &str) -> bool {
    !s.is_empty()
        && s.chars()
            .all(|c| c.is_ascii_alphanumeric() || matches!(c, '-' | '_' | '.'))
}

/// An HTTP header `Name: value`: the value goes when the name carries a secret
/// (`Authorization`, `X-Api-Key`, `Cookie`, `Proxy-Authorization`).
fn redact_header(h: &str) -> String {
    if let Some((name, _)) = h.split_once(':') {
        let n = name.trim();
        if is_plain_name(n) && is_secret_name(n) {
            return format!("{name}: {REDACTED}");
        }
    }
    redact_value(h)
}

/// Secrets inside one argument's text: a whole command line in one argument (`sh -c "... --api-key
/// X"`), a header (`Authorization: Bearer X`), JSON or a dict (`{"api_key": "X"}`), URL
/// credentials and query parameters.
fn redact_value(s: &str) -> String {
    let mut out = if s.contains(char::is_whitespace) {
        redact_words(s)
    } else if s.contains(':') && !s.contains("://") {
        // `api_key:X`, `Authorization:Bearer-X`.
        match s.split_once(':') {
            Some((name, _)) if is_plain_name(name) && is_secret_name(name) => {
                format!("{name}:{REDACTED}")
            }
            _ => s.to_string(),
        }
    } else {
        s.to_string()
    };
    out = redact_pairs(&out);
    out = redact_userinfo(&out);
    redact_query(&out)
}

/// Text with several words: redact them as an argument list and put them back in place, keeping
/// the original spacing. Quotes around words are kept out of the way of the flag rules.
fn redact_words(s: &str) -> String {
    let mut spans = Vec::new();
    let mut start = None;
    for (i, c) in s.char_indices() {
        match (c.is_whitespace(), start) {
            (true, Some(b)) => {
                spans.push((b, i));
                start = None;
            }
            (false, None) => start = Some(i),
            _ => {}
        }
    }
    if let Some(b) = start {
        spans.push((b, s.len()));
    }
    let mut out = String::with_capacity(s.len());
    let mut last = 0;
    let mut next = Next::Plain;
    for (b, e) in spans {
        let word = &s[b..e];
        // Quotes a shell would remove: `'Authorization: Bearer X'` splits into quoted words.
        let inner_b = word.len() - word.trim_start_matches(['\'', '"']).len();
        let inner_e = word.trim_end_matches(['\'', '"']).len().max(inner_b);
        let inner = &word[inner_b..inner_e];
        let (r, n) = redact_arg(inner, next);
        next = n;
        out.push_str(&s[last..b]);
        out.push_str(&word[..inner_b]);
        out.push_str(&r);
        out.push_str(&word[inner_e..]);
        last = e;
    }
    out.push_str(&s[last..]);
    out
}

/// `"api_key": "X"`, `'token': 'X'`, `"password":X`: quoted names followed by a colon, as in JSON,
/// Python dicts and YAML flow maps.
fn redact_pairs(s: &str) -> String {
    let b = s.as_bytes();
    let mut out = String::with_capacity(s.len());
    let mut last = 0;
    let mut i = 0;
    while i < b.len() {
        let q = b[i];
        if q != b'"' && q != b'\'' {
            i += 1;
            continue;
        }
        let Some(close) = s[i + 1..].find(q as char).map(|k| i + 1 + k) else {
            break;
        };
        let name = &s[i + 1..close];
        let mut j = close + 1;
        while j < b.len() && b[j] == b' ' {
            j += 1;
        }
        if j >= b.len() || b[j] != b':' || !is_plain_name(name) || !is_secret_name(name) {
            i = close + 1;
            continue;
        }
        j += 1;
        while j < b.len() && b[j] == b' ' {
            j += 1;
        }
        // The value: a quoted string (escapes skipped) or a bare word.
        let (vstart, vend) = if j < b.len() && (b[j] == b'"' || b[j] == b'\'') {
            let vq = b[j];
            let mut k = j + 1;
            while k < b.len() && b[k] != vq {
                k += if b[k] == b'\\' { 2 } else { 1 };
            }
            (j + 1, k.min(b.len()))
        } else {
            let k = s[j..]
                .find(|c: char| matches!(c, ',' | '}' | ']') || c.is_whitespace())
                .map_or(b.len(), |k| j + k);
            (j, k)
        };
        if vend > vstart {
            out.push_str(&s[last..vstart]);
            out.push_str(REDACTED);
            last = vend;
        }
        i = vend.max(close + 1);
    }
    out.push_str(&s[last..]);
    out
}

/// One environment variable as it may be shown: the value of a secret-looking name
/// (`HF_TOKEN`, `OPENAI_API_KEY`, `PGPASSWORD`) replaced, and secrets inside any other value
/// (`DATABASE_URL=postgres://user:pass@db`, a token in a query) redacted as in a command line.
pub fn redact_env_var(name: &str, value: &str) -> String {
    if is_secret_name(name) {
        format!("{name}={REDACTED}")
    } else {
        format!("{name}={}", redact_value(value))
    }
}

/// Redact secrets inside free text: flags and their values, headers, JSON pairs, URL credentials
/// and secret-looking query parameters.
pub fn redact_text(s: &str) -> String {
    redact_words(s)
}

/// Redact every text of a snapshot that can carry a command line's secrets. Collection already
/// does this; a snapshot read from a file (a replay, an old recording, one written by hand) is
/// passed through here too, so what is shown never depends on who wrote the file.
pub fn redact_snapshot(snap: &mut crate::Snapshot) {
    for p in &mut snap.processes {
        if let Some(c) = &mut p.cmdline {
            *c = redact_arg_list(c);
        }
        for t in [&mut p.name, &mut p.exe].into_iter().flatten() {
            *t = redact_text(t);
        }
        if let Some(w) = &mut p.workload {
            let w = std::sync::Arc::make_mut(w);
            if let Some(m) = &mut w.model {
                *m = redact_text(m);
            }
            for e in &mut w.evidence {
                e.showed = redact_text(&e.showed);
            }
            for m in &mut w.missing {
                *m = redact_text(m);
            }
        }
        if let Some(e) = &mut p.estimate {
            let e = std::sync::Arc::make_mut(e);
            // The recipe and the overhead's source are free text from files too.
            for t in [&mut e.model, &mut e.recipe, &mut e.overhead_source] {
                *t = redact_text(t);
            }
            for t in [&mut e.why, &mut e.compute_label].into_iter().flatten() {
                *t = redact_text(t);
            }
            for t in e
                .not_modelled
                .iter_mut()
                .chain(e.reported.iter_mut().flat_map(|r| {
                    [&mut r.what, &mut r.source]
                        .into_iter()
                        .chain(r.text.as_mut())
                }))
            {
                *t = redact_text(t);
            }
        }
    }
}

/// Query parameters that are signatures rather than names containing a secret word (S3, Azure
/// SAS, GCS signed URLs).
fn is_secret_query_name(name: &str) -> bool {
    let n = name.to_ascii_lowercase();
    is_secret_name(&n)
        || matches!(
            n.as_str(),
            "sig" | "signature" | "x-amz-signature" | "x-goog-signature"
        )
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
        if is_secret_query_name(name) {
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

    /// A snapshot from a file: the estimate's texts are redacted like the command line.
    #[test]
    fn a_loaded_snapshot_s_estimate_texts_are_redacted() {
        let mut snap = crate::Snapshot::new("t".into(), Default::default());
        let mut p = crate::Process::new(1);
        p.estimate = Some(std::sync::Arc::new(crate::EstimatedMemory {
            model: "https://u:hunter2@host/m.gguf".into(),
            recipe: "vllm --api-key sk-RECIPE".into(),
            overhead_source: "probe of https://u:pw0rd@probe/x".into(),
            why: Some("started with --api-key sk-SECRET".into()),
            reported: vec![crate::ReportedFigure::new(
                "x",
                None,
                Some("token=abc123".into()),
                "GET http://h/api?access_token=zzz",
            )],
            ..Default::default()
        }));
        snap.processes.push(p);
        redact_snapshot(&mut snap);
        let text = serde_json::to_string(&snap).unwrap();
        for secret in [
            "hunter2",
            "sk-SECRET",
            "abc123",
            "zzz",
            "sk-RECIPE",
            "pw0rd",
        ] {
            assert!(!text.contains(secret), "{secret} in {text}");
        }
    }

    #[test]
    fn environment_values_of_secret_names_and_secrets_inside_values() {
        assert_eq!(redact_env_var("HF_TOKEN", "hf_abc"), "HF_TOKEN=<redacted>");
        assert_eq!(
            redact_env_var("OPENAI_API_KEY", "sk-1"),
            "OPENAI_API_KEY=<redacted>"
        );
        assert_eq!(redact_env_var("PGPASSWORD", "x"), "PGPASSWORD=<redacted>");
        let url = redact_env_var("DATABASE_URL", "postgres://me:hunter2@db/x");
        assert!(
            !url.contains("hunter2") && url.starts_with("DATABASE_URL=postgres://"),
            "{url}"
        );
        assert_eq!(
            redact_env_var("CUDA_VISIBLE_DEVICES", "0,1"),
            "CUDA_VISIBLE_DEVICES=0,1"
        );
    }

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
    fn http_headers() {
        assert_eq!(
            r(&["curl", "-H", "Authorization: Bearer abc", "http://h/"]),
            ["curl", "-H", "Authorization: <redacted>", "http://h/"]
        );
        assert_eq!(
            r(&["curl", "--header=Authorization:abc"]),
            ["curl", "--header=Authorization: <redacted>"]
        );
        assert_eq!(
            r(&[
                "curl",
                "--header",
                "X-Api-Key: abc",
                "-H",
                "Accept: text/plain"
            ]),
            [
                "curl",
                "--header",
                "X-Api-Key: <redacted>",
                "-H",
                "Accept: text/plain"
            ]
        );
    }

    #[test]
    fn user_and_password() {
        assert_eq!(
            r(&["curl", "-u", "me:abc", "http://h/"]),
            ["curl", "-u", "me:<redacted>", "http://h/"]
        );
        assert_eq!(r(&["curl", "-ume:abc"]), ["curl", "-ume:<redacted>"]);
        assert_eq!(
            r(&["curl", "--user=me:abc"]),
            ["curl", "--user=me:<redacted>"]
        );
        // Not a password: python's -u, docker's uid:gid.
        assert_eq!(
            r(&["python3", "-u", "train.py"]),
            ["python3", "-u", "train.py"]
        );
        assert_eq!(
            r(&["docker", "-u", "1000:1000"]),
            ["docker", "-u", "1000:1000"]
        );
    }

    #[test]
    fn a_command_line_inside_one_argument() {
        assert_eq!(
            r(&[
                "sh",
                "-c",
                "llama-server -m /m.gguf --api-key abc --port 8080"
            ]),
            [
                "sh",
                "-c",
                "llama-server -m /m.gguf --api-key <redacted> --port 8080"
            ]
        );
        assert_eq!(
            r(&["sh", "-c", "curl -H 'Authorization: Bearer abc' http://h/"]),
            [
                "sh",
                "-c",
                "curl -H 'Authorization: Bearer <redacted>' http://h/"
            ]
        );
        assert_eq!(
            r(&["bash", "-c", "HF_TOKEN=abc  exec  x --token=def"]),
            [
                "bash",
                "-c",
                "HF_TOKEN=<redacted>  exec  x --token=<redacted>"
            ]
        );
    }

    #[test]
    fn json_and_dicts() {
        assert_eq!(
            r(&["x", "--config", r#"{"api_key":"abc","model":"m"}"#]),
            ["x", "--config", r#"{"api_key":"<redacted>","model":"m"}"#]
        );
        assert_eq!(
            r(&["x", "--config={'token': 'abc', 'n': 1}"]),
            ["x", "--config={'token': '<redacted>', 'n': 1}"]
        );
        assert_eq!(
            r(&["x", r#"{"password": 12345, "port": 80}"#]),
            ["x", r#"{"password": <redacted>, "port": 80}"#]
        );
        assert_eq!(
            r(&["x", r#"{"secret": "a\"b", "k": 1}"#]),
            ["x", r#"{"secret": "<redacted>", "k": 1}"#]
        );
    }

    #[test]
    fn signed_url_query() {
        assert_eq!(
            redact_text("https://acct.blob.core.windows.net/c/m.gguf?sv=2024&sig=abc%3D&se=1"),
            "https://acct.blob.core.windows.net/c/m.gguf?sv=2024&sig=<redacted>&se=1"
        );
        assert_eq!(
            r(&["wget", "https://b.s3.amazonaws.com/m?X-Amz-Signature=abc"]),
            [
                "wget",
                "https://b.s3.amazonaws.com/m?X-Amz-Signature=<redacted>"
            ]
        );
    }

    #[test]
    fn snapshots_read_from_files_are_redacted() {
        let mut snap = crate::Snapshot::new("2026-11-29T08:00:00Z".into(), Default::default());
        let mut p = crate::Process::new(7);
        p.cmdline = Some(vec![
            "llama-server".into(),
            "--api-key".into(),
            "sk-1".into(),
        ]);
        p.name = Some("--token=sk-2".into());
        snap.processes.push(p);
        redact_snapshot(&mut snap);
        let text = serde_json::to_string(&snap).unwrap();
        assert!(!text.contains("sk-1") && !text.contains("sk-2"), "{text}");
        assert_eq!(snap.processes[0].cmdline.as_ref().unwrap()[2], REDACTED);
    }

    proptest::proptest! {
        #[test]
        fn never_panics(args in proptest::collection::vec(r#"[-a-z: ='"{},?&/\\é]{0,24}"#, 0..6)) {
            let _ = redact_arg_list(&args);
            let _ = redact_text(&args.join(" "));
        }
    }

    #[test]
    fn redacting_twice_changes_nothing() {
        let once = r(&[
            "sh",
            "-c",
            "curl -H 'Authorization: Bearer abc' -u me:p 'http://h/?sig=x'",
            "--api-key",
            "k",
            r#"{"api_key":"z"}"#,
        ]);
        assert_eq!(redact_arg_list(&once), once);
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
            vec!["-H".into(), format!("Authorization: Bearer {secret}")],
            vec![format!("--header=Authorization:{secret}")],
            vec!["-u".into(), format!("user:{secret}")],
            vec![
                "sh".into(),
                "-c".into(),
                format!("llama-server -m m.gguf --api-key {secret}"),
            ],
            vec!["--config".into(), format!(r#"{{"api_key":"{secret}"}}"#)],
            vec![format!("https://h/m.gguf?sig={secret}")],
            vec![format!("Authorization: Bearer {secret}")],
        ];
        for f in forms {
            let out = redact_arg_list(&f).join(" ");
            assert!(!out.contains(secret), "{f:?} -> {out}");
        }
    }
}
