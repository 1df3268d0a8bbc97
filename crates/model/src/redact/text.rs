//! Secrets inside one piece of text, wherever they sit: quoted JSON or dict pairs (nested,
//! escaped, with spaces), `name=value` and `name:value` pairs (environment assignments, Java
//! properties, connection strings such as `Server=h;Password=X;` or `AccountKey=X`), URL
//! userinfo (`postgres://u:pa/X@h`) and credential query or fragment keys (`?token=`,
//! `#access_token=`, `sig=`). Token formats known by their shape are the last pass
//! ([`super::tokens`]).

use super::names::{is_auth_scheme, is_plain_name, is_secret_query_name, strength, Strength};
use super::tokens::{hide_bare_tokens, hide_pem, looks_random};
use super::REDACTED;

/// Every pass over one piece of text (no word structure assumed).
pub(crate) fn redact_value(s: &str) -> String {
    let out = hide_pem(s);
    let out = redact_quoted_pairs(&out);
    let out = redact_userinfo(&out);
    let out = redact_query(&out);
    let out = redact_encoded_auth(&out);
    let out = redact_pairs(&out);
    hide_bare_tokens(&out)
}

/// Whether a value after a name of this strength is hidden.
pub(crate) fn hides(s: Strength, value: &str) -> bool {
    match s {
        Strength::Strong => !value.is_empty(),
        Strength::Weak => !value.is_empty() && !harmless_for_weak(value),
        Strength::Hint => looks_random(value),
        Strength::None => false,
    }
}

/// What a weak name's value may be and still be shown: a path (`-auth /var/run/sddm/x`,
/// `--key ./k.pem`; not base64 that happens to start with `/`) or one digit (ffmpeg's `-pass 1`).
fn harmless_for_weak(v: &str) -> bool {
    let b = v.as_bytes();
    let drive =
        b.len() > 2 && b[0].is_ascii_alphabetic() && b[1] == b':' && matches!(b[2], b'\\' | b'/');
    let path = v.starts_with('/')
        || v.starts_with("./")
        || v.starts_with("../")
        || v.starts_with("~/")
        || drive;
    (path && !v.contains('+') && !v.ends_with('=')) || (b.len() == 1 && b[0].is_ascii_digit())
}

/// The end of a value starting at `j`: a quoted string (without its quotes), a braced ODBC value
/// (`{a;b}`), or a bare run up to a delimiter. Returns (start, end) of what to hide.
fn value_span(s: &str, j: usize) -> (usize, usize) {
    let b = s.as_bytes();
    if j >= b.len() {
        return (j, j);
    }
    match b[j] {
        q @ (b'"' | b'\'') => {
            let end = s[j + 1..].find(q as char).map_or(b.len(), |k| j + 1 + k);
            (j + 1, end)
        }
        b'{' => {
            let end = s[j..].find('}').map_or(b.len(), |k| j + k + 1);
            (j, end)
        }
        _ => {
            let end = s[j..]
                .find(|c: char| {
                    c.is_whitespace()
                        || matches!(
                            c,
                            ';' | '&' | ',' | '"' | '\'' | '`' | ')' | ']' | '}' | '<' | '>' | '|'
                        )
                })
                .map_or(b.len(), |k| j + k);
            (j, end)
        }
    }
}

/// The name at the end of `s`: its longest trailing run of name characters.
pub(crate) fn name_before(s: &str) -> &str {
    let start = s
        .char_indices()
        .rev()
        .find(|(_, c)| !(c.is_ascii_alphanumeric() || matches!(c, '-' | '_' | '.')))
        .map_or(0, |(k, c)| k + c.len_utf8());
    &s[start..]
}

/// `name=value` and `name:value` anywhere in the text: `DB_PASS=X`, `-Dspring.datasource.password=X`,
/// `Server=h;Password=X;`, `AccountKey=X==;`, `Pwd={X}`, `api_key:X`. A colon counts only after a
/// name that starts the text or follows a delimiter, and never before `//` (URLs).
fn redact_pairs(s: &str) -> String {
    let b = s.as_bytes();
    let mut out = String::with_capacity(s.len());
    let mut last = 0;
    let mut i = 0;
    while i < b.len() {
        let c = b[i];
        if c != b'=' && c != b':' {
            i += 1;
            continue;
        }
        let name = name_before(&s[..i]);
        let name_start = i - name.len();
        let colon_ok = c == b'='
            || ((name_start == 0 || !b[name_start - 1].is_ascii_alphanumeric())
                && !s[i + 1..].starts_with("//")
                && !s[i + 1..].starts_with(':'));
        let st = if colon_ok && !name.trim_start_matches('-').is_empty() {
            strength(name)
        } else {
            Strength::None
        };
        if st == Strength::None {
            i += 1;
            continue;
        }
        let (mut vs, mut ve) = value_span(s, i + 1);
        let mut value = &s[vs..ve];
        // `Authorization=Bearer X`: the scheme stays and the word after it goes (in a text
        // walked as words, the walk hides it; here the text is one value).
        if is_auth_scheme(value) && st >= Strength::Weak {
            let next = ve + s[ve..].len() - s[ve..].trim_start_matches([' ', '\t']).len();
            if next > ve {
                (vs, ve) = value_span(s, next);
                value = &s[vs..ve];
            }
        }
        if ve > vs && hides(st, value) && value != REDACTED && !is_auth_scheme(value) {
            out.push_str(&s[last..vs]);
            out.push_str(REDACTED);
            last = ve;
        }
        i = ve.max(i + 1);
    }
    out.push_str(&s[last..]);
    out
}

/// The end of a quoted string starting with quote `q` at `j` (`\"` and `\\` skipped), or the
/// text's end.
fn quoted_end(b: &[u8], j: usize, q: u8) -> usize {
    let mut k = j + 1;
    while k < b.len() && b[k] != q {
        k += if b[k] == b'\\' { 2 } else { 1 };
    }
    k.min(b.len())
}

/// The end of a balanced `{…}` or `[…]` starting at `j` (quoted strings skipped), or the text's end.
fn balanced_end(b: &[u8], j: usize) -> usize {
    let mut depth = 0usize;
    let mut k = j;
    while k < b.len() {
        match b[k] {
            b'{' | b'[' => depth += 1,
            b'}' | b']' => {
                depth = depth.saturating_sub(1);
                if depth == 0 {
                    return k + 1;
                }
            }
            q @ (b'"' | b'\'') => k = quoted_end(b, k, q),
            _ => {}
        }
        k += 1;
    }
    b.len()
}

/// `"api_key": "X"`, `'token': 'X'`, `"password":X`, `\"token\": \"X\"`: quoted names followed by
/// a colon, as in JSON, Python dicts and YAML flow maps, at any depth. A secret name's value that
/// is an object or a list goes whole (`"auth": {"token": "X"}` → `"auth": <redacted>`).
pub(crate) fn redact_quoted_pairs(s: &str) -> String {
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
        // `\"token\"` inside a shell string: the name ends before the backslash.
        let name = s[i + 1..close].trim_end_matches('\\');
        let mut j = close + 1;
        while j < b.len() && b[j] == b' ' {
            j += 1;
        }
        if !(is_plain_name(name) && j < b.len() && b[j] == b':') {
            // Not a key: its closing quote may open the next string (`'{"auth": …}'`).
            i += 1;
            continue;
        }
        let st = strength(name);
        if st == Strength::None {
            i = close + 1;
            continue;
        }
        j += 1;
        while j < b.len() && b[j] == b' ' {
            j += 1;
        }
        let escaped = s[j..].starts_with("\\\"");
        let (vs, ve) = if escaped {
            let end = s[j + 2..].find("\\\"").map_or(b.len(), |k| j + 2 + k);
            (j + 2, end)
        } else if j < b.len() && (b[j] == b'"' || b[j] == b'\'') {
            (j + 1, quoted_end(b, j, b[j]))
        } else if j < b.len() && (b[j] == b'{' || b[j] == b'[') {
            (j, balanced_end(b, j))
        } else {
            let k = s[j..]
                .find(|c: char| matches!(c, ',' | '}' | ']') || c.is_whitespace())
                .map_or(b.len(), |k| j + k);
            (j, k)
        };
        let value = &s[vs..ve];
        let nested = value.starts_with(['{', '[']);
        let hide = if nested {
            st >= Strength::Weak
        } else {
            hides(st, value)
        };
        if ve > vs && hide && value != REDACTED {
            out.push_str(&s[last..vs]);
            out.push_str(REDACTED);
            last = ve;
        }
        i = ve.max(close + 1);
    }
    out.push_str(&s[last..]);
    out
}

/// Where the userinfo of the URL whose authority starts at `a` ends (at its last `@`), if it has
/// one. A password may hold `/`, `?` or `#` unencoded (`postgres://u:pa/X@h`): then the `@` lies
/// past the usual end of the authority, and `user:` followed by something that is not a port
/// says that it is userinfo (`https://h/path/@scope` is not).
fn userinfo_end(s: &str, a: usize) -> Option<usize> {
    let word_end = s[a..]
        .find(|c: char| c.is_whitespace() || matches!(c, '"' | '\'' | '`' | '<' | '>'))
        .map_or(s.len(), |k| a + k);
    let word = &s[a..word_end];
    let auth_end = word.find(['/', '?', '#']).unwrap_or(word.len());
    if let Some(at) = word[..auth_end].rfind('@') {
        return Some(a + at);
    }
    let at = word.rfind('@')?;
    let (user, rest) = word[..auth_end].split_once(':')?;
    let port = !rest.is_empty() && rest.bytes().all(|c| c.is_ascii_digit());
    (!user.is_empty() && !port).then_some(a + at)
}

/// `scheme://user:pass@host` → `scheme://user:<redacted>@host`; `scheme://token@host` →
/// `scheme://<redacted>@host`.
fn redact_userinfo(s: &str) -> String {
    let mut out = String::with_capacity(s.len());
    let mut rest = s;
    while let Some(i) = rest.find("://") {
        let a = i + 3;
        out.push_str(&rest[..a]);
        match userinfo_end(rest, a) {
            Some(at) => {
                let info = &rest[a..at];
                match info.split_once(':') {
                    Some((user, pass)) if !pass.is_empty() => {
                        out.push_str(user);
                        out.push(':');
                        out.push_str(REDACTED);
                    }
                    Some((user, _)) => {
                        out.push_str(user);
                        out.push(':');
                    }
                    None if info.is_empty() => {}
                    None => out.push_str(REDACTED),
                }
                rest = &rest[at..];
            }
            None => rest = &rest[a..],
        }
    }
    out.push_str(rest);
    out
}

/// `?token=X`, `&access_token=X`, `#access_token=X`, `?sig=X`, `?session=<random>`: query and
/// fragment parameters whose name is a credential's.
fn redact_query(s: &str) -> String {
    let b = s.as_bytes();
    let mut out = String::with_capacity(s.len());
    let mut last = 0;
    let mut i = 0;
    while i < b.len() {
        if !matches!(b[i], b'?' | b'&' | b'#') {
            i += 1;
            continue;
        }
        let start = i + 1;
        let Some(eq) = s[start..]
            .find(['=', '&', '#'])
            .filter(|k| b[start + k] == b'=')
        else {
            i += 1;
            continue;
        };
        let name = &s[start..start + eq];
        if name.is_empty() || name.contains(char::is_whitespace) {
            i += 1;
            continue;
        }
        let vstart = start + eq + 1;
        let vend = s[vstart..]
            .find(|c: char| c == '&' || c == '#' || c.is_whitespace() || matches!(c, '"' | '\''))
            .map_or(s.len(), |e| vstart + e);
        let value = &s[vstart..vend];
        let hide = is_secret_query_name(name) || hides(strength(name), value);
        if hide && vend > vstart && value != REDACTED {
            out.push_str(&s[last..vstart]);
            out.push_str(REDACTED);
            last = vend;
        }
        i = vend.max(i + 1);
    }
    out.push_str(&s[last..]);
    out
}

/// Where a URL-encoded credential starting at `vs` ends: at a delimiter, plain or encoded.
fn credential_end(lower: &str, vs: usize) -> usize {
    let mut ve = vs;
    while let Some(c) = lower[ve..].chars().next() {
        let t = &lower[ve..];
        let plain =
            c.is_whitespace() || matches!(c, '&' | '#' | '"' | '\'' | '`' | '<' | '>' | ';');
        let encoded = ["%26", "%22", "%27", "%20", "%3b", "%23"]
            .iter()
            .any(|d| t.starts_with(d));
        if plain || encoded {
            break;
        }
        ve += c.len_utf8();
    }
    ve
}

/// Spaces as a URL encodes them (`%20`, `+`): the length of the run at the start of `s`.
fn encoded_spaces(s: &str) -> usize {
    let mut n = 0;
    loop {
        let rest = &s[n..];
        if rest.starts_with('+') {
            n += 1;
        } else if rest.starts_with("%20") {
            n += 3;
        } else {
            return n;
        }
    }
}

/// `Authorization%3A%20Bearer%20X`, `Bearer+X` in a URL or form: an auth scheme followed by an
/// encoded space hides the credential after it, up to the next parameter. `Bearer` says so
/// anywhere; the other schemes only after an `Authorization` name (`basic+usage` is prose).
pub(crate) fn redact_encoded_auth(s: &str) -> String {
    let lower = s.to_ascii_lowercase();
    let mut out = String::with_capacity(s.len());
    let mut last = 0;
    let mut i = 0;
    while let Some(k) = lower[i..].find(['b', 'd', 'n', 'a']) {
        let at = i + k;
        i = at + 1;
        let Some(scheme) = ["bearer", "basic", "digest", "negotiate", "apikey"]
            .into_iter()
            .find(|w| lower[at..].starts_with(w))
        else {
            continue;
        };
        // A word starts after a non-alphanumeric or after an encoded character (`%20Bearer`).
        let boundary = at == 0
            || !lower.as_bytes()[at - 1].is_ascii_alphanumeric()
            || (at >= 3 && lower.as_bytes()[at - 3] == b'%');
        let spaces = encoded_spaces(&lower[at + scheme.len()..]);
        if !boundary || spaces == 0 || at < last {
            continue;
        }
        if scheme != "bearer" {
            let before = lower[..at].trim_end_matches(['+', ' ']);
            let before = before.strip_suffix("%20").unwrap_or(before);
            let named = ["authorization%3a", "authorization:", "authorization="]
                .iter()
                .any(|n| before.ends_with(n));
            if !named {
                continue;
            }
        }
        let vs = at + scheme.len() + spaces;
        let ve = credential_end(&lower, vs);
        if ve > vs && &s[vs..ve] != REDACTED {
            out.push_str(&s[last..vs]);
            out.push_str(REDACTED);
            last = ve;
            i = ve;
        }
    }
    out.push_str(&s[last..]);
    out
}
