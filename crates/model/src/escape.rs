//! Text from outside (process names and command lines, GGUF metadata, host and device names from
//! a replayed file) must never drive the terminal: an `ESC ] 0 ;` in a process's `argv[0]` would
//! retitle it, `ESC [ 2 J` clear it, a carriage return overwrite a line, a bidi override reorder
//! what is read. This is the one rule for every text output: control characters become visible
//! `\u001b`-style escapes (the JSON spelling, so JSON output stays valid JSON with the same
//! meaning). The live view draws through ratatui, which drops control characters itself.

use std::borrow::Cow;

/// Characters a terminal may act on rather than print: C0 controls, DEL, C1 controls (8-bit
/// CSI/OSC in UTF-8 terminals), and the Unicode bidi and line/paragraph separators.
fn is_unsafe(c: char) -> bool {
    c.is_control()
        || matches!(
            c,
            '\u{061c}'
                | '\u{200e}'
                | '\u{200f}'
                | '\u{2028}'
                | '\u{2029}'
                | '\u{202a}'..='\u{202e}'
                | '\u{2066}'..='\u{2069}'
        )
}

fn escape_with(s: &str, keep: impl Fn(char) -> bool) -> Cow<'_, str> {
    if !s.chars().any(|c| is_unsafe(c) && !keep(c)) {
        return Cow::Borrowed(s);
    }
    let mut out = String::with_capacity(s.len() + 16);
    for c in s.chars() {
        if is_unsafe(c) && !keep(c) {
            out.push_str(&format!("\\u{:04x}", c as u32));
        } else {
            out.push(c);
        }
    }
    Cow::Owned(out)
}

/// One field (a name, a command line, a path): every control character escaped, newlines and
/// tabs included, so the field stays on its line.
pub fn term_safe(s: &str) -> Cow<'_, str> {
    escape_with(s, |_| false)
}

/// A whole rendered text (a table, a report, JSON, an error message): like [`term_safe`] but
/// newlines and tabs are kept, as they are the text's own layout.
pub fn term_safe_text(s: &str) -> Cow<'_, str> {
    escape_with(s, |c| c == '\n' || c == '\t')
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn escapes_what_a_terminal_would_act_on() {
        let evil = "\u{1b}]0;PWNED\u{7}\u{1b}[2Jllama-server";
        assert_eq!(
            term_safe(evil),
            "\\u001b]0;PWNED\\u0007\\u001b[2Jllama-server"
        );
        assert_eq!(
            term_safe("a\rb\nc\u{9b}31m\u{7f}"),
            "a\\u000db\\u000ac\\u009b31m\\u007f"
        );
        assert_eq!(term_safe("abc\u{202e}txt.exe"), "abc\\u202etxt.exe");
        assert_eq!(term_safe_text("line\n\tok\u{1b}"), "line\n\tok\\u001b");
    }

    #[test]
    fn plain_text_is_untouched_and_not_copied() {
        for s in ["llama-server -m /m/Qwen3 Q4.gguf", "naïve 日本語 · ✓", ""] {
            assert!(matches!(term_safe(s), Cow::Borrowed(_)));
        }
    }

    #[test]
    fn escaped_json_is_still_the_same_json() {
        let v = serde_json::json!({"name": "a\u{9b}b\u{202e}c\u{7f}"});
        let text = serde_json::to_string_pretty(&v).unwrap();
        let safe = term_safe_text(&text);
        assert!(!safe.chars().any(|c| is_unsafe(c) && c != '\n'));
        let back: serde_json::Value = serde_json::from_str(&safe).unwrap();
        assert_eq!(back, v);
    }
}
