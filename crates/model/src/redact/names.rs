//! Which names announce a secret: option names (`--api-key`), variable names (`HF_TOKEN`,
//! `DB_PASS`), header names (`Authorization`), JSON keys (`"token"`), connection-string keys
//! (`Pwd`, `AccountKey`, `SharedAccessKey`) and query keys (`access_token`, `sig`).
//!
//! A name is cut into lowercase words (at `-`, `_`, `.`, spaces and camelCase humps) and each word
//! is judged on its own, so `--max-tokens`, `--top-k`, `--tokenizer` and `--keyboard` stay
//! harmless while `PGPASSWORD`, `apiKey` and `AccountKey` do not.

/// How strongly a name says that its value is a secret.
#[derive(Clone, Copy, Debug, PartialEq, Eq, PartialOrd, Ord)]
pub enum Strength {
    /// Nothing secret about it (`--port`, `--top-k`, `--max-tokens`, `PWD`).
    None,
    /// A hint only (`--session`, `--api-base`, `--password-file`, `--eos-token`): the value is
    /// hidden when it looks random, shown when it reads as a word, a number, a path or a URL.
    Hint,
    /// A word that names secrets but also harmless things (`key`, `auth`, `pass`): the value is
    /// hidden unless it is a path or one digit (`-auth /var/run/sddm/x`, ffmpeg's `-pass 1`).
    Weak,
    /// The value is a secret whatever it looks like (`token`, `secret`, `password`, `pwd`).
    Strong,
}

/// Words that contain a secret word but name no secret (counts, tokenizers, keyboards).
const HARMLESS_WORDS: &[&str] = &[
    "tokens",
    "tokenizer",
    "tokenizers",
    "tokenize",
    "tokenization",
    "detokenize",
    "keyboard",
    "keyword",
    "keywords",
    "keyframe",
    "keyframes",
    "keymap",
    "keypoint",
    "keypoints",
    "keys",
    "hotkey",
    "monkey",
    "author",
    "authors",
    "authored",
    "passthrough",
    "bypass",
    "compass",
    "multipass",
    "renderpass",
    "subpass",
    "keyring",
    "passes",
];

/// A last word that makes the name about the secret rather than the secret itself
/// (`--password-file`, `--auth-type`, `--token-url`, `key_cache`, `--ssl-keyfile`).
const HARMLESS_TAILS: &[&str] = &[
    "file",
    "files",
    "path",
    "dir",
    "directory",
    "type",
    "kind",
    "mode",
    "method",
    "url",
    "uri",
    "endpoint",
    "host",
    "port",
    "size",
    "len",
    "length",
    "limit",
    "count",
    "num",
    "bits",
    "name",
    "cache",
    "dtype",
    "format",
    "algorithm",
    "version",
    "timeout",
    "ttl",
    "prefix",
    "header",
    "budget",
    "expiry",
    "stdin",
    "env",
    "var",
    "variable",
];

/// A first word that makes the name about the secret rather than the secret itself
/// (`--max-token`, `--eos-token`, `--no-auth`, `--use-auth-token`, `--ask-password`,
/// `--with-token`).
const HARMLESS_HEADS: &[&str] = &[
    "max", "min", "num", "n", "total", "bos", "eos", "pad", "unk", "sep", "cls", "mask", "stop",
    "special", "add", "skip", "use", "no", "enable", "disable", "allow", "require", "ask",
    "prompt", "with", "without",
];

/// Words that hint at a credential: the value goes when it looks random.
const HINT_WORDS: &[&str] = &[
    "session",
    "sess",
    "sid",
    "sig",
    "signature",
    "signing",
    "hmac",
    "salt",
    "otp",
    "license",
    "licence",
    "dsn",
    "private",
    "priv",
    "access",
    "api",
    "sas",
    "ticket",
    "nonce",
    "csrf",
];

/// The name's words in lowercase: split at non-alphanumerics and at camelCase humps.
fn words(name: &str) -> Vec<String> {
    let mut out = Vec::new();
    let mut cur = String::new();
    let mut prev_lower = false;
    for c in name.chars() {
        if !c.is_ascii_alphanumeric() {
            if !cur.is_empty() {
                out.push(std::mem::take(&mut cur));
            }
            prev_lower = false;
            continue;
        }
        if c.is_ascii_uppercase() && prev_lower && !cur.is_empty() {
            out.push(std::mem::take(&mut cur));
        }
        prev_lower = c.is_ascii_lowercase() || c.is_ascii_digit();
        cur.push(c.to_ascii_lowercase());
    }
    if !cur.is_empty() {
        out.push(cur);
    }
    out
}

/// One word on its own.
fn word_strength(w: &str) -> Strength {
    if HARMLESS_WORDS.contains(&w) {
        return Strength::None;
    }
    let strong = [
        "passw",
        "passphrase",
        "secret",
        "token",
        "credential",
        "cookie",
        "bearer",
    ];
    if strong.iter().any(|s| w.contains(s))
        || w.contains("apikey")
        || w.ends_with("pwd")
        || matches!(
            w,
            "jwt" | "creds" | "pat" | "passin" | "passout" | "passcode" | "passkey"
        )
        || matches!(
            w,
            "dbpass" | "rootpass" | "adminpass" | "userpass" | "mypass"
        )
    {
        return Strength::Strong;
    }
    // `pass` alone or at a word's end (`DB_PASS`, redis-server's `--requirepass`), not inside
    // one (`passthrough`, `compass` are harmless words above).
    if w.contains("key") || w.contains("auth") || w.ends_with("pass") {
        return Strength::Weak;
    }
    if HINT_WORDS.contains(&w) {
        return Strength::Hint;
    }
    Strength::None
}

/// How strongly `name` (an option, variable, header, JSON or query key; leading dashes allowed)
/// announces a secret.
pub fn strength(name: &str) -> Strength {
    let bare = name.trim_start_matches('-');
    // The shell's working directories are paths, not passwords (`PWD` as the shell sets it).
    if matches!(bare, "PWD" | "OLDPWD") {
        return Strength::None;
    }
    let ws = words(bare);
    // `api_key`, `apiKey`, `ACCESS_KEY` name keys outright, not files or hotkeys.
    let api_key = ws
        .windows(2)
        .any(|p| matches!(p[0].as_str(), "api" | "access") && p[1] == "key");
    let s = ws
        .iter()
        .map(|w| word_strength(w))
        .chain(api_key.then_some(Strength::Strong))
        .max();
    let Some(s) = s.filter(|s| *s >= Strength::Weak) else {
        return s.unwrap_or(Strength::None);
    };
    let last = ws.last().map(String::as_str).unwrap_or("");
    let first = ws.first().map(String::as_str).unwrap_or("");
    let about_it = HARMLESS_TAILS.iter().any(|t| last.ends_with(t))
        || (ws.len() > 1 && HARMLESS_HEADS.contains(&first));
    if about_it {
        Strength::Hint
    } else {
        s
    }
}

/// Whether an option or variable name carries a secret (`--api-key`, `HF_TOKEN`, `PGPASSWORD`,
/// `DB_PASS`), not counting names that only contain a secret word (`--cache-type-k`,
/// `--max-tokens`, `--password-file`, `PWD`).
pub fn is_secret_name(name: &str) -> bool {
    strength(name) >= Strength::Weak
}

/// A bare option, header or key name (no spaces, quotes or punctuation beyond `-_.`).
pub(crate) fn is_plain_name(s: &str) -> bool {
    !s.is_empty()
        && s.chars()
            .all(|c| c.is_ascii_alphanumeric() || matches!(c, '-' | '_' | '.'))
}

/// Query and fragment keys that are signatures rather than names with a secret word (S3, Azure
/// SAS, GCS signed URLs).
pub(crate) fn is_secret_query_name(name: &str) -> bool {
    let n = name.to_ascii_lowercase();
    is_secret_name(&n)
        || matches!(
            n.as_str(),
            "sig" | "signature" | "x-amz-signature" | "x-goog-signature"
        )
}

/// Authentication schemes that precede a credential (`Authorization: Bearer X`).
pub(crate) fn is_auth_scheme(word: &str) -> bool {
    ["bearer", "basic", "token", "digest", "negotiate", "apikey"]
        .iter()
        .any(|s| word.eq_ignore_ascii_case(s))
}
