use super::*;

#[path = "../../../../testing/secret_corpus.rs"]
mod corpus;

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
fn environment_values_only_for_safe_names() {
    assert_eq!(
        redact_env_var("HF_TOKEN", "hf_abc"),
        "HF_TOKEN=<hidden: not on the safe list>"
    );
    assert_eq!(
        redact_env_var("DATABASE_URL", "postgres://me:hunter2@db/x"),
        "DATABASE_URL=<hidden: not on the safe list>"
    );
    assert_eq!(
        redact_env_var("CUDA_VISIBLE_DEVICES", "0,1"),
        "CUDA_VISIBLE_DEVICES=0,1"
    );
    // A safe name's value still goes through the detector.
    let host = redact_env_var("OLLAMA_HOST", "https://me:hunter2@h:11434");
    assert_eq!(host, "OLLAMA_HOST=https://me:<redacted>@h:11434");
    // A family member that looks like a key is not safe.
    assert!(!is_safe_env_name("LLAMA_ARG_API_KEY"));
    assert!(!is_safe_env_name("OLLAMA_AUTH_TOKEN"));
    assert!(is_safe_env_name("LLAMA_ARG_CTX_SIZE"));
    assert!(is_safe_env_name("PWD"));
    assert!(is_safe_env_name("=C:"));
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

/// Issue 40: the bearer family in every spelling, each keeping its layout.
#[test]
fn the_bearer_family() {
    assert_eq!(
        r(&["tool", "Authorization=Bearer abc"]),
        ["tool", "Authorization=Bearer <redacted>"]
    );
    assert_eq!(
        r(&["tool", "Authorization=Bearer", "abc"]),
        ["tool", "Authorization=Bearer", "<redacted>"]
    );
    assert_eq!(
        r(&["curl", "--header=Authorization=Bearer abc"]),
        ["curl", "--header=Authorization=<redacted>"]
    );
    assert_eq!(
        r(&["tool", "--config=Authorization=Bearer abc"]),
        ["tool", "--config=Authorization=Bearer <redacted>"]
    );
    assert_eq!(
        redact_text("python3 c.py Authorization = Bearer abc"),
        "python3 c.py Authorization = Bearer <redacted>"
    );
    assert_eq!(redact_text("Bearer abc123"), "Bearer <redacted>");
    assert_eq!(r(&["x", "BEARER", "a1"]), ["x", "BEARER", "<redacted>"]);
    assert_eq!(
        r(&[
            "open",
            "https://h/?h=Authorization%3A%20Bearer%20abc%2Bd&u=1"
        ]),
        [
            "open",
            "https://h/?h=Authorization%3A%20Bearer%20<redacted>&u=1"
        ]
    );
    assert_eq!(
        redact_text("Authorization%3a+basic+dXNlcjpwYXNz%26x"),
        "Authorization%3a+basic+<redacted>%26x"
    );
    // Scheme names as prose stay.
    for prose in [
        "Bearer of bad news",
        "basic+usage",
        "the token counts",
        "q=basic%20setup",
    ] {
        assert_eq!(redact_text(prose), prose);
    }
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

/// The secret corpus: every shape and provider format, through the argument-list rules, as a
/// process name, as free text and through a loaded snapshot's JSON: no secret survives.
#[test]
fn the_corpus_leaves_no_secret_anywhere() {
    for c in corpus::cases() {
        let mut shown = vec![redact_arg_list(&c.args).join(" ")];
        shown.push(redact_text(&c.args.join(" ")));
        if let Some(n) = &c.name {
            shown.push(redact_text(n));
        }
        for text in shown {
            for s in &c.secrets {
                assert!(!text.contains(s.as_str()), "{}: {s} in {text}", c.what);
            }
        }
    }
}

#[test]
fn the_corpus_leaves_no_secret_in_a_loaded_snapshot() {
    let mut snap = crate::Snapshot::new("2026-11-29T08:00:00Z".into(), Default::default());
    for (i, c) in corpus::cases().into_iter().enumerate() {
        let mut p = crate::Process::new(100 + i as u32);
        p.cmdline = Some(c.args.clone());
        p.name = c.name.clone().or(Some(c.args[0].clone()));
        p.exe = Some(c.args[0].clone());
        snap.processes.push(p);
    }
    redact_snapshot(&mut snap);
    let text = serde_json::to_string(&snap).unwrap();
    for c in corpus::cases() {
        for s in &c.secrets {
            assert!(!text.contains(s.as_str()), "{}: {s} in the JSON", c.what);
        }
    }
}

#[test]
fn the_corpus_is_redacted_once_for_all() {
    for c in corpus::cases() {
        let once = redact_arg_list(&c.args);
        assert_eq!(redact_arg_list(&once), once, "{}", c.what);
        if let Some(n) = &c.name {
            let once = redact_text(n);
            assert_eq!(redact_text(&once), once, "{}", c.what);
        }
    }
}

#[test]
fn harmless_command_lines_and_names_pass_unchanged() {
    for args in corpus::harmless() {
        assert_eq!(redact_arg_list(&args), args);
        assert_eq!(redact_text(&args.join(" ")), args.join(" "));
    }
    for n in corpus::harmless_names() {
        assert_eq!(redact_text(n), n);
    }
}

#[test]
fn the_environment_view_hides_what_is_not_on_the_safe_list() {
    for (name, value, secret) in corpus::environment() {
        let line = redact_env_var(&name, &value);
        match secret {
            Some(s) => assert!(!line.contains(&s), "{name}: {line}"),
            None => assert_eq!(line, format!("{name}={value}")),
        }
        if !is_safe_env_name(&name) {
            assert_eq!(line, format!("{name}={HIDDEN_ENV}"));
        }
    }
}

/// Provider tokens keep their prefix, so the reader sees what kind of credential was there.
#[test]
fn bare_tokens_keep_their_prefix() {
    for (what, token, body) in corpus::provider_tokens() {
        let out = redact_text(&format!("x {token} y"));
        assert!(!out.contains(&body), "{what}: {out}");
        assert!(
            out.starts_with("x ") && out.ends_with(" y"),
            "{what}: {out}"
        );
    }
    let ghp = format!("ghp_{}", corpus::fake(1, 36, corpus::ALNUM));
    assert_eq!(redact_text(&ghp), "ghp_<redacted>");
}

/// Decisions, one each: `PWD` as the shell sets it is a path; `Pwd=` in a connection string,
/// `DB_PWD` and `--pwd` are passwords.
#[test]
fn pwd_is_a_path_but_other_pwds_are_passwords() {
    assert_eq!(r(&["env", "PWD=/home/a"]), ["env", "PWD=/home/a"]);
    assert_eq!(r(&["env", "DB_PWD=x1"]), ["env", "DB_PWD=<redacted>"]);
    assert_eq!(r(&["x", "--pwd", "x1"]), ["x", "--pwd", REDACTED]);
    assert_eq!(redact_text("Server=h;Pwd=x1;"), "Server=h;Pwd=<redacted>;");
}

/// `--top-k`, `--cache-type-k`, `--max-tokens`, `--tokenizer` and `key_cache` hold no secret;
/// `--eos-token </s>` names a special token, and a name about a secret (`--password-file`,
/// `--token-url`) shows its path or URL.
#[test]
fn names_that_only_contain_a_secret_word() {
    for name in [
        "--top-k",
        "--cache-type-k",
        "--max-tokens",
        "--tokenizer",
        "--keyboard",
        "--author",
        "PWD",
        "OLDPWD",
        "TOKENIZERS_PARALLELISM",
    ] {
        assert_eq!(strength(name), Strength::None, "{name}");
    }
    for name in [
        "key_cache",
        "--eos-token",
        "--password-file",
        "--token-url",
        "--ssl-keyfile",
        "--no-auth",
        "--session",
        "SharedAccessKeyName",
    ] {
        assert_eq!(strength(name), Strength::Hint, "{name}");
    }
    for name in [
        "--key",
        "-auth",
        "AccountKey",
        "Authorization",
        "DB_PASS",
        "--requirepass",
    ] {
        assert_eq!(strength(name), Strength::Weak, "{name}");
    }
    for name in [
        "HF_TOKEN",
        "PGPASSWORD",
        "apiKey",
        "X-Api-Key",
        "Pwd",
        "PASSPHRASE",
        "GITHUB_PAT",
        "MY_JWT",
    ] {
        assert_eq!(strength(name), Strength::Strong, "{name}");
    }
}

/// A weak name keeps a path (`Xorg -auth /var/run/…`) and one digit (ffmpeg's `-pass 1`), but
/// not base64 that starts with a slash.
#[test]
fn weak_names_keep_paths() {
    assert_eq!(r(&["Xorg", "-auth", "/run/x"]), ["Xorg", "-auth", "/run/x"]);
    assert_eq!(r(&["ffmpeg", "-pass", "1"]), ["ffmpeg", "-pass", "1"]);
    assert_eq!(r(&["x", "--key", "/ab+cd=="]), ["x", "--key", REDACTED]);
    assert_eq!(r(&["x", "--key", "k1"]), ["x", "--key", REDACTED]);
}

/// `-p` is a password only for clients that take one there (mysql, mongosh, sshpass, docker
/// login); llama-server's `-p` is a prompt, ssh's and docker run's a port.
#[test]
fn short_password_options_only_for_their_clients() {
    assert_eq!(r(&["mysql", "-px1"]), ["mysql", "-p<redacted>"]);
    assert_eq!(r(&["mysql", "-p", "x1"]), ["mysql", "-p", REDACTED]);
    assert_eq!(r(&["mysql", "-p", "-h", "db"]), ["mysql", "-p", "-h", "db"]);
    assert_eq!(r(&["redis-cli", "-a", "x1"]), ["redis-cli", "-a", REDACTED]);
    assert_eq!(
        r(&["docker", "login", "-p", "x1"]),
        ["docker", "login", "-p", REDACTED]
    );
    for harmless in [
        &["llama-server", "-p", "Hello"][..],
        &["ssh", "-p", "2222", "h"],
        &["docker", "run", "-p", "8080:80", "img"],
        &["redis-cli", "-p", "6379"],
        &["llama-server", "-a", "alias"],
    ] {
        assert_eq!(r(harmless), harmless);
    }
}

/// Names that only hint at a credential hide random values only.
#[test]
fn hint_names_hide_only_random_values() {
    assert_eq!(
        r(&["x", "--session", "default"]),
        ["x", "--session", "default"]
    );
    assert_eq!(
        r(&["x", "--session", "Zq9a8B7c6D5e4F3g2"]),
        ["x", "--session", REDACTED]
    );
    assert_eq!(
        r(&["x", "--api-base", "http://localhost:8000/v1"]),
        ["x", "--api-base", "http://localhost:8000/v1"]
    );
    // A UUID and a model hash are not random-looking credentials.
    assert_eq!(
        r(&["x", "--session", "3f2a9c1e-7b4d-4e8a-9f0c-1d2e3f4a5b6c"]),
        ["x", "--session", "3f2a9c1e-7b4d-4e8a-9f0c-1d2e3f4a5b6c"]
    );
}

/// An empty value hides nothing and is shown as empty; after `--api-key ""` the next argument
/// is the key.
#[test]
fn empty_values() {
    assert_eq!(
        r(&["jupyter", "--ServerApp.token="]),
        ["jupyter", "--ServerApp.token="]
    );
    assert_eq!(
        r(&["x", "--api-key", "", "k1"]),
        ["x", "--api-key", "", REDACTED]
    );
}

/// A password with `/`, `?` or `#` in a URL is still userinfo; an `@` in a path is not, nor a
/// port before it.
#[test]
fn userinfo_with_odd_characters() {
    assert_eq!(
        redact_text("postgres://u:pa/X1@h/db"),
        "postgres://u:<redacted>@h/db"
    );
    assert_eq!(
        redact_text("postgres://u:pa?X1@h/db"),
        "postgres://u:<redacted>@h/db"
    );
    assert_eq!(
        redact_text("redis://:pw1@h:6379"),
        "redis://:<redacted>@h:6379"
    );
    for same in [
        "https://registry.npmjs.org/@scope/pkg",
        "https://h:8080/path/@user",
        "https://h/x?a=b@c",
    ] {
        assert_eq!(redact_text(same), same);
    }
}

/// Tokens cut by the end of the text (a 15-byte `comm`, a capped command line) are hidden when
/// long enough to matter; words with a token's prefix are not.
#[test]
fn tokens_cut_short() {
    assert_eq!(redact_text("ghp_AbC123dEf45"), "ghp_<redacted>");
    assert_eq!(redact_text("hf_transfer"), "hf_transfer");
    assert_eq!(redact_text("sk-runner"), "sk-runner");
    assert_eq!(redact_text("ghp_abc"), "ghp_abc");
}

/// A JSON value nested under a secret name goes whole; escaped JSON in a shell string too.
#[test]
fn nested_and_escaped_json() {
    assert_eq!(
        redact_text(r#"--config '{"auth": {"token": "X1", "u": "me"}, "n": 1}'"#),
        r#"--config '{"auth": <redacted>, "n": 1}'"#
    );
    assert_eq!(
        redact_text(r#"sh -c "x --json {\"api_key\": \"X1\"}""#),
        r#"sh -c "x --json {\"api_key\": \"<redacted>\"}""#
    );
}

/// Found by `never_panics`: a name of non-ASCII letters before `=` (byte offsets of chars).
#[test]
fn non_ascii_before_a_separator() {
    assert_eq!(redact_text("é="), "é=");
    assert_eq!(redact_text("é_token=x1"), "é_token=<redacted>");
    assert_eq!(redact_text("ü:"), "ü:");
}

/// Switches named after a secret take no value: what follows them is shown
/// (`docker login --password-stdin registry`, `gh auth login --with-token`); redis-server's
/// `--requirepass X` hides X.
#[test]
fn switches_about_a_secret_and_requirepass() {
    assert_eq!(
        r(&["docker", "login", "--password-stdin", "registry.example"]),
        ["docker", "login", "--password-stdin", "registry.example"]
    );
    assert_eq!(
        r(&["redis-server", "--requirepass", "x1", "--port", "6379"]),
        ["redis-server", "--requirepass", REDACTED, "--port", "6379"]
    );
}
