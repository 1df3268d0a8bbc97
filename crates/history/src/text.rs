//! Text that came from outside (process names, command lines, engine and device names from a
//! recording) made safe for a terminal: control characters would otherwise retitle the
//! terminal, clear the screen or move the cursor.

use std::borrow::Cow;

/// `s` with every control character (C0, DEL, C1) written as a visible escape: `\e` for ESC,
/// `\n`, `\r`, `\t`, else `\u{9b}`-style. Text without any is returned as it is.
pub fn term_safe(s: &str) -> Cow<'_, str> {
    if !s.chars().any(char::is_control) {
        return Cow::Borrowed(s);
    }
    let mut out = String::with_capacity(s.len() + 8);
    for c in s.chars() {
        match c {
            '\x1b' => out.push_str("\\e"),
            '\n' => out.push_str("\\n"),
            '\r' => out.push_str("\\r"),
            '\t' => out.push_str("\\t"),
            c if c.is_control() => out.extend(c.escape_unicode()),
            c => out.push(c),
        }
    }
    Cow::Owned(out)
}

/// JSON text with DEL and the C1 controls written as `\u` escapes, which serde_json leaves raw
/// (it escapes only C0). Lossless: a JSON reader gets the same string back.
pub fn json_safe(json: String) -> String {
    if !json.chars().any(|c| ('\x7f'..='\u{9f}').contains(&c)) {
        return json;
    }
    let mut out = String::with_capacity(json.len() + 12);
    for c in json.chars() {
        if ('\x7f'..='\u{9f}').contains(&c) {
            out.push_str(&format!("\\u{:04x}", c as u32));
        } else {
            out.push(c);
        }
    }
    out
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn control_characters_are_shown_not_sent() {
        assert!(matches!(term_safe("llama-server ü"), Cow::Borrowed(_)));
        assert_eq!(
            term_safe("a\x1b]0;PWNED\x07\x1b[2J\u{9b}31m\x7f\n"),
            "a\\e]0;PWNED\\u{7}\\e[2J\\u{9b}31m\\u{7f}\\n"
        );
    }

    #[test]
    fn json_keeps_its_meaning_without_raw_c1() {
        let v = serde_json::json!({"name": "x\u{9b}2J\x7f\x1b"});
        let safe = json_safe(v.to_string());
        assert_eq!(safe, r#"{"name":"x\u009b2J\u007f\u001b"}"#);
        assert_eq!(serde_json::from_str::<serde_json::Value>(&safe).unwrap(), v);
    }
}
