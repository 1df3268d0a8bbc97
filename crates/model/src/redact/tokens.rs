//! Secrets that carry no name at all, known by their shape: the token formats of well-known
//! providers (by prefix, alphabet and length), JSON Web Tokens (base64url parts joined by dots),
//! webhook URLs and PEM private keys. The facts come from the providers' documentation and the
//! public rule sets of secret scanners; the code is ours. A checksum is never required: a token
//! whose checksum fails is still somebody's token, mistyped, and hiding it costs nothing.
//!
//! Also here: whether a value *looks* random ([`looks_random`]), for values after names that only
//! hint at a credential (`--session X`).

use super::REDACTED;

/// The characters a token's body may hold.
#[derive(Clone, Copy, PartialEq, Eq)]
enum Alphabet {
    /// `A-Z a-z 0-9`.
    Alnum,
    /// Alphanumerics and `_`.
    Word,
    /// Alphanumerics, `_` and `-` (base64url).
    Dash,
    /// Alphanumerics, `_`, `-` and `.`.
    Dotted,
    /// `A-Z 0-9` (AWS key ids).
    Upper,
    /// Lowercase hexadecimal.
    Hex,
}

impl Alphabet {
    fn has(self, c: u8) -> bool {
        match self {
            Alphabet::Alnum => c.is_ascii_alphanumeric(),
            Alphabet::Word => c.is_ascii_alphanumeric() || c == b'_',
            Alphabet::Dash => c.is_ascii_alphanumeric() || c == b'_' || c == b'-',
            Alphabet::Dotted => c.is_ascii_alphanumeric() || matches!(c, b'_' | b'-' | b'.'),
            Alphabet::Upper => c.is_ascii_uppercase() || c.is_ascii_digit(),
            Alphabet::Hex => c.is_ascii_digit() || (b'a'..=b'f').contains(&c),
        }
    }
}

/// One provider's token format.
struct Format {
    prefix: &'static str,
    alphabet: Alphabet,
    /// The shortest body of a whole token.
    min: usize,
    /// The shortest body still hidden when the text ends inside it (a command line or a process
    /// name cut by the kernel: `ghp_AbC…` in a 15-byte `comm`).
    cut: usize,
    /// Whether the body must mix character classes (lower, upper, digit): random text does,
    /// words (`hf_transfer`, `sk-learn`) do not.
    mixed: bool,
}

const fn f(
    prefix: &'static str,
    alphabet: Alphabet,
    min: usize,
    cut: usize,
    mixed: bool,
) -> Format {
    Format {
        prefix,
        alphabet,
        min,
        cut,
        mixed,
    }
}

use Alphabet::{Alnum, Dash, Dotted, Hex, Upper, Word};

/// Longest prefixes first where one prefix starts another (`sk-ant-` before `sk-`).
const FORMATS: &[Format] = &[
    // GitHub: fine-grained and classic personal, OAuth, user-to-server, server-to-server, refresh.
    f("github_pat_", Word, 22, 8, false),
    f("ghp_", Alnum, 30, 8, false),
    f("gho_", Alnum, 30, 8, false),
    f("ghu_", Alnum, 30, 8, false),
    f("ghs_", Alnum, 30, 8, false),
    f("ghr_", Alnum, 30, 8, false),
    // GitLab personal, pipeline trigger, deploy and runner tokens.
    f("glpat-", Dash, 20, 8, false),
    f("glptt-", Dash, 20, 8, false),
    f("gldt-", Dash, 20, 8, false),
    f("glrt-", Dash, 20, 8, false),
    // Slack bot, user, app-level, legacy and refresh tokens.
    f("xoxb-", Dash, 10, 8, false),
    f("xoxp-", Dash, 10, 8, false),
    f("xoxa-", Dash, 10, 8, false),
    f("xoxr-", Dash, 10, 8, false),
    f("xoxs-", Dash, 10, 8, false),
    f("xoxe.", Dotted, 10, 8, false),
    f("xoxe-", Dash, 10, 8, false),
    f("xapp-", Dash, 10, 8, false),
    // AWS access key ids (long-term, temporary, and the rarer kinds).
    f("AKIA", Upper, 16, 8, true),
    f("ASIA", Upper, 16, 8, true),
    f("ABIA", Upper, 16, 8, true),
    f("ACCA", Upper, 16, 8, true),
    // Google API keys and OAuth access tokens.
    f("AIza", Dash, 30, 8, false),
    f("ya29.", Dash, 20, 8, false),
    // Anthropic, then OpenAI (legacy, project, service-account and admin keys share `sk-`).
    f("sk-ant-", Dash, 20, 8, false),
    f("sk-", Dash, 20, 12, true),
    // Stripe secret and restricted keys, webhook signing secrets.
    f("sk_live_", Alnum, 10, 8, false),
    f("sk_test_", Alnum, 10, 8, false),
    f("sk_prod_", Alnum, 10, 8, false),
    f("rk_live_", Alnum, 10, 8, false),
    f("rk_test_", Alnum, 10, 8, false),
    f("whsec_", Alnum, 20, 8, false),
    // Hugging Face user and organisation tokens.
    f("hf_", Alnum, 30, 12, true),
    f("api_org_", Alnum, 30, 12, true),
    // NVIDIA API catalogue / NGC, Perplexity, Groq, Replicate, xAI.
    f("nvapi-", Dash, 40, 8, false),
    f("pplx-", Alnum, 40, 8, false),
    f("gsk_", Alnum, 40, 8, false),
    f("r8_", Alnum, 30, 12, true),
    f("xai-", Alnum, 40, 8, false),
    // npm, PyPI upload tokens, SendGrid, DigitalOcean, Databricks, Grafana.
    f("npm_", Alnum, 36, 8, false),
    f("pypi-", Dash, 50, 12, false),
    f("SG.", Dotted, 40, 12, false),
    f("dop_v1_", Hex, 64, 8, false),
    f("doo_v1_", Hex, 64, 8, false),
    f("dor_v1_", Hex, 64, 8, false),
    f("dapi", Hex, 32, 0, false),
    f("glc_", Dash, 32, 8, false),
    f("glsa_", Word, 32, 8, false),
];

/// Hosts and paths after which the rest of a URL is the credential (webhooks).
const WEBHOOKS: [&str; 4] = [
    "hooks.slack.com/",
    "discord.com/api/webhooks/",
    "discordapp.com/api/webhooks/",
    "webhook.office.com/webhookb2/",
];

fn classes(body: &[u8]) -> usize {
    [
        body.iter().any(u8::is_ascii_lowercase),
        body.iter().any(u8::is_ascii_uppercase),
        body.iter().any(u8::is_ascii_digit),
    ]
    .iter()
    .filter(|x| **x)
    .count()
}

/// The end of a provider token starting at `i` (its prefix kept), or `None`.
fn provider_token(b: &[u8], i: usize) -> Option<(usize, usize)> {
    for fm in FORMATS {
        let p = fm.prefix.as_bytes();
        if !b[i..].starts_with(p) {
            continue;
        }
        let start = i + p.len();
        let end = start
            + b[start..]
                .iter()
                .take_while(|c| fm.alphabet.has(**c))
                .count();
        let body = &b[start..end];
        let whole = body.len() >= fm.min;
        let cut = fm.cut > 0 && end == b.len() && body.len() >= fm.cut;
        if (whole || cut) && (!fm.mixed || classes(body) >= 2) {
            return Some((start, end));
        }
        // A shorter prefix may still match (`sk-` after `sk-ant-`).
    }
    None
}

fn b64url(c: u8) -> bool {
    c.is_ascii_alphanumeric() || c == b'_' || c == b'-'
}

/// A JSON Web Token at `i`: `eyJ…` (a base64url JSON header), a dot, a payload, a dot and a
/// signature (possibly empty; more parts for an encrypted one). One dot and the end of the text
/// is a token cut short.
fn jwt(b: &[u8], i: usize) -> Option<(usize, usize)> {
    if !b[i..].starts_with(b"eyJ") {
        return None;
    }
    let mut end = i + b[i..].iter().take_while(|c| b64url(**c)).count();
    if end - i < 10 {
        return None;
    }
    let mut parts = 1;
    while end < b.len() && b[end] == b'.' {
        let n = b[end + 1..].iter().take_while(|c| b64url(**c)).count();
        end += 1 + n;
        parts += 1;
    }
    while end < b.len() && b[end] == b'=' {
        end += 1;
    }
    let cut = parts == 2 && end == b.len();
    (parts >= 3 || cut).then_some((i, end))
}

/// The credential part of a webhook URL whose host and path start at `i`.
fn webhook(b: &[u8], i: usize) -> Option<(usize, usize)> {
    let w = WEBHOOKS.iter().find(|w| b[i..].starts_with(w.as_bytes()))?;
    let start = i + w.len();
    let n = b[start..]
        .iter()
        .take_while(|c| c.is_ascii_alphanumeric() || matches!(c, b'/' | b'_' | b'-' | b'+'))
        .count();
    (n >= 8).then_some((start, start + n))
}

/// The body of a PEM private key whose `-----BEGIN` is at `i`, up to its `-----END` (or the end
/// of the text).
fn pem(s: &str, i: usize) -> Option<(usize, usize)> {
    let rest = s[i..].strip_prefix("-----BEGIN ")?;
    let head_end = rest.find("-----")?;
    if !rest[..head_end].contains("PRIVATE KEY") {
        return None;
    }
    let start = i + "-----BEGIN ".len() + head_end + 5;
    let end = s[start..].find("-----END").map_or(s.len(), |e| start + e);
    (end > start).then_some((start, end))
}

/// Hide the bodies of PEM private keys (they span lines, so this runs before words are split).
pub(crate) fn hide_pem(s: &str) -> String {
    let mut out = String::with_capacity(s.len());
    let mut last = 0;
    let mut from = 0;
    while let Some(k) = s[from..].find("-----BEGIN ") {
        let i = from + k;
        match pem(s, i) {
            Some((start, end)) => {
                out.push_str(&s[last..start]);
                out.push_str(REDACTED);
                last = end;
                from = end;
            }
            None => from = i + 1,
        }
    }
    out.push_str(&s[last..]);
    out
}

/// Hide every token known by its shape; the provider's prefix is kept (`ghp_<redacted>`), a JWT
/// and a key's body go whole.
pub(crate) fn hide_bare_tokens(s: &str) -> String {
    let b = s.as_bytes();
    let mut out = String::with_capacity(s.len());
    let mut last = 0;
    let mut i = 0;
    while i < b.len() {
        let boundary = i == 0 || !b[i - 1].is_ascii_alphanumeric();
        let found = if !s.is_char_boundary(i) {
            None
        } else if b[i] == b'-' {
            pem(s, i)
        } else if boundary {
            jwt(b, i)
                .or_else(|| provider_token(b, i))
                .or_else(|| webhook(b, i))
        } else {
            None
        };
        match found {
            Some((start, end)) if end > start => {
                out.push_str(&s[last..start]);
                out.push_str(REDACTED);
                last = end;
                i = end;
            }
            _ => i += 1,
        }
    }
    out.push_str(&s[last..]);
    out
}

/// Shannon entropy of the text's bytes, in bits per byte.
fn entropy(s: &str) -> f64 {
    let mut counts = [0usize; 256];
    for c in s.bytes() {
        counts[c as usize] += 1;
    }
    let n = s.len() as f64;
    counts
        .iter()
        .filter(|c| **c > 0)
        .map(|c| {
            let p = *c as f64 / n;
            -p * p.log2()
        })
        .sum()
}

/// Whether a value reads as a random credential rather than a word, number, path, URL or model
/// name: 16 or more token characters, high entropy, and either all three character classes or
/// (for hex and base32) two classes over 20 or more characters with no separators. Hashes in
/// paths and UUIDs do not count: this is only asked of values after a name that hints at a
/// credential.
pub(crate) fn looks_random(v: &str) -> bool {
    let b = v.as_bytes();
    if b.len() < 16
        || v.contains("://")
        || matches!(b[0], b'/' | b'.' | b'~')
        || !b.iter().all(|c| {
            c.is_ascii_alphanumeric() || matches!(c, b'+' | b'/' | b'=' | b'_' | b'-' | b'.' | b'~')
        })
    {
        return false;
    }
    // A slash reads as a path (`org/model`) unless the value is base64 (`+` or `=` padding).
    if v.contains('/') && !(v.contains('+') || v.ends_with('=')) {
        return false;
    }
    let separators = b.iter().any(|c| matches!(c, b'-' | b'.' | b'_' | b'/'));
    let k = classes(b);
    entropy(v) >= 3.0 && (k == 3 || (k == 2 && b.len() >= 20 && !separators))
}
