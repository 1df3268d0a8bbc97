//! A sentence the program writes where the data is made (a kill's outcome, a source's reason)
//! and people read in a view: kept as its message key and values, so each view says it in the
//! reader's language, while everything machine-readable keeps the one English text.
//!
//! - [`Said::new`] makes one from a catalogue key; its English is formatted once, from the
//!   English catalogue (the one place the words live).
//! - Serialised (JSON, recordings) it is that English string and nothing else, so machine
//!   outputs do not change; read back, it is [`Said::verbatim`]: shown as written, or in the
//!   view's language where its English is certainly a catalogue sentence (`read_back`).
//! - It reads as its English (`Deref<Target = str>`, `Display`), so code that inspects the
//!   sentence (tests, rules) sees what the JSON has, never a translation.
//! - [`Said::in_lang`] formats it in a language; a value that is itself a sentence is formatted
//!   in the same language.

use crate::{Lang, Value};
use serde::{Deserialize, Deserializer, Serialize, Serializer};

/// A value in a [`Said`]: text as it is (a name, a path, a figure already written), a number
/// (which picks a plural form), or another sentence.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum Arg {
    Text(String),
    Number(i64),
    Said(Box<Said>),
    /// Sentences in a row (`a; b; c`), joined as the language joins them (`report-said-list`).
    List(Vec<Said>),
}

impl From<&str> for Arg {
    fn from(s: &str) -> Arg {
        Arg::Text(s.to_string())
    }
}

impl From<String> for Arg {
    fn from(s: String) -> Arg {
        Arg::Text(s)
    }
}

impl From<Said> for Arg {
    fn from(s: Said) -> Arg {
        Arg::Said(Box::new(s))
    }
}

macro_rules! number_arg {
    ($($t:ty),*) => {$(
        impl From<$t> for Arg {
            fn from(n: $t) -> Arg {
                Arg::Number(i64::try_from(n).unwrap_or(i64::MAX))
            }
        }
    )*};
}
number_arg!(i32, u32, i64, u64, usize);

/// A sentence: its English, and the key and values it was made from (none when it was read
/// back from text, or written before it had a key). Two sentences are equal when their English
/// is, as in the JSON: a value written and read back equals the one written.
#[derive(Debug, Clone, Default)]
pub struct Said {
    english: String,
    key: Option<&'static str>,
    args: Vec<(&'static str, Arg)>,
}

impl Said {
    /// The message `key` with its values; its English is the English catalogue's.
    pub fn new(key: &'static str, args: Vec<(&'static str, Arg)>) -> Said {
        let english = format(Lang::En, key, &args);
        Said {
            english,
            key: Some(key),
            args,
        }
    }

    /// A sentence with no key (text read back from JSON, or words not given a key): shown as
    /// written, unless its English is certainly a catalogue sentence (see [`Said::in_lang`]).
    pub fn verbatim(text: impl Into<String>) -> Said {
        Said {
            english: text.into(),
            key: None,
            args: Vec::new(),
        }
    }

    /// The English, as machine outputs carry it.
    pub fn as_str(&self) -> &str {
        &self.english
    }

    /// The key it was made from, if any.
    pub fn key(&self) -> Option<&'static str> {
        self.key
    }

    /// The same sentence with `f` applied to its English and to every text value in it
    /// (redaction: a secret in a value leaves no language's rendering).
    pub fn map_text(&self, f: &dyn Fn(&str) -> String) -> Said {
        let args = self
            .args
            .iter()
            .map(|(k, v)| {
                let v = match v {
                    Arg::Text(t) => Arg::Text(f(t)),
                    Arg::Number(n) => Arg::Number(*n),
                    Arg::Said(s) => Arg::Said(Box::new(s.map_text(f))),
                    Arg::List(items) => Arg::List(items.iter().map(|s| s.map_text(f)).collect()),
                };
                (*k, v)
            })
            .collect();
        Said {
            english: f(&self.english),
            key: self.key,
            args,
        }
    }

    /// `items` joined pair by pair with `key` (a message of `$a` and `$b`: `{ $a }, { $b }`),
    /// so each language uses its own separator; `None` when there are none.
    pub fn joined(key: &'static str, items: Vec<Said>) -> Option<Said> {
        items
            .into_iter()
            .reduce(|a, b| Said::new(key, vec![("a", a.into()), ("b", b.into())]))
    }

    /// The sentence in `lang`. One without a key (read back from a recording or a JSON file)
    /// is said in `lang` where its text is certainly a catalogue message (`read_back`); any
    /// other stays its English.
    pub fn in_lang(&self, lang: Lang) -> String {
        if lang == Lang::En {
            return self.english.clone();
        }
        if let Some(key) = self.key {
            return format(lang, key, &self.args);
        }
        use crate::read_back::{key_again, Found};
        let Some((key, found)) = key_again(&self.english) else {
            return self.english.clone();
        };
        // A value read back may be a sentence itself (a reason inside a reason).
        let args: Vec<(&'static str, Arg)> = found
            .into_iter()
            .map(|(name, v)| match v {
                Found::Count(n) => (name, Arg::Number(n)),
                Found::Text(t) => (name, Said::verbatim(t).into()),
            })
            .collect();
        format(lang, key, &args)
    }
}

fn format(lang: Lang, key: &str, args: &[(&'static str, Arg)]) -> String {
    let values: Vec<(&str, Value<'_>)> = args
        .iter()
        .map(|(k, v)| {
            let v: Value = match v {
                Arg::Text(t) => t.as_str().into(),
                Arg::Number(n) => (*n).into(),
                Arg::Said(s) => s.in_lang(lang).into(),
                Arg::List(items) => join(items, lang).into(),
            };
            (*k, v)
        })
        .collect();
    lang.t_args(key, &values)
}

/// `a; b; c` in `lang`, pair by pair through `report-said-list` (the language's separator).
fn join(items: &[Said], lang: Lang) -> String {
    let mut parts = items.iter().map(|s| s.in_lang(lang));
    let first = parts.next().unwrap_or_default();
    parts.fold(first, |a, b| {
        lang.t_args("report-said-list", &[("a", a.into()), ("b", b.into())])
    })
}

impl std::ops::Deref for Said {
    type Target = str;
    fn deref(&self) -> &str {
        &self.english
    }
}

impl std::fmt::Display for Said {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.write_str(&self.english)
    }
}

/// A sentence is an error message too (a value parser's refusal, a command's failure): shown
/// in English where no language is at hand, and in the reader's where the printer downcasts it.
impl std::error::Error for Said {}

impl From<String> for Said {
    fn from(s: String) -> Said {
        Said::verbatim(s)
    }
}

impl From<&str> for Said {
    fn from(s: &str) -> Said {
        Said::verbatim(s)
    }
}

impl PartialEq for Said {
    fn eq(&self, other: &Said) -> bool {
        self.english == other.english
    }
}

impl Eq for Said {}

impl PartialEq<str> for Said {
    fn eq(&self, other: &str) -> bool {
        self.english == other
    }
}

impl PartialEq<String> for Said {
    fn eq(&self, other: &String) -> bool {
        self.english == *other
    }
}

impl PartialEq<&str> for Said {
    fn eq(&self, other: &&str) -> bool {
        self.english == *other
    }
}

impl Serialize for Said {
    fn serialize<S: Serializer>(&self, s: S) -> Result<S::Ok, S::Error> {
        s.serialize_str(&self.english)
    }
}

impl<'de> Deserialize<'de> for Said {
    fn deserialize<D: Deserializer<'de>>(d: D) -> Result<Said, D::Error> {
        String::deserialize(d).map(Said::verbatim)
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    /// Read back, a sentence is said in the language again, with or without values, and
    /// English as it is.
    #[test]
    fn a_plain_sentence_read_back_is_said_in_the_language_again() {
        let plain = Said::new("report-verify-not-confirmed", vec![]);
        let back: Said = serde_json::from_str(&serde_json::to_string(&plain).unwrap()).unwrap();
        assert_eq!(back.key(), None);
        assert_eq!(back.in_lang(Lang::ZhCn), plain.in_lang(Lang::ZhCn));
        assert_ne!(back.in_lang(Lang::ZhCn), back.as_str());
        assert_eq!(back.in_lang(Lang::En), back.as_str());
        let valued = Said::new(
            "report-verify-tool-missing",
            vec![("tool", "amd-smi".into())],
        );
        let back = Said::verbatim(valued.as_str());
        assert_eq!(back.in_lang(Lang::ZhTw), valued.in_lang(Lang::ZhTw));
        assert_eq!(
            Said::verbatim("anything else").in_lang(Lang::ZhCn),
            "anything else"
        );
    }

    #[test]
    fn a_mapped_sentence_maps_every_value_in_every_language() {
        let inner = Said::new("report-kill-unknown", vec![("reason", "sk-SECRET".into())]);
        let s = Said::new("report-kill-now", vec![("text", inner.into())]);
        let m = s.map_text(&|t: &str| t.replace("sk-SECRET", "<redacted>"));
        for lang in Lang::ALL {
            assert!(!m.in_lang(lang).contains("SECRET"), "{}", m.in_lang(lang));
            assert!(m.in_lang(lang).contains("<redacted>"));
        }
        assert!(s.in_lang(Lang::ZhCn).contains("sk-SECRET"));
    }

    #[test]
    fn english_for_machines_the_language_for_people() {
        let inner = Said::new(
            "report-kill-unknown",
            vec![("reason", "WSL2 does not expose it".into())],
        );
        let s = Said::new("report-kill-now", vec![("text", inner.into())]);
        assert_eq!(s, "now: GPU memory unknown: WSL2 does not expose it");
        assert_eq!(
            serde_json::to_string(&s).unwrap(),
            "\"now: GPU memory unknown: WSL2 does not expose it\""
        );
        assert_eq!(
            s.in_lang(Lang::ZhCn),
            "当前：显存未知：WSL2 does not expose it"
        );
        // Read back, it has no key, and equals what was written.
        let json = serde_json::to_string(&s).unwrap();
        assert_eq!(serde_json::from_str::<Said>(&json).unwrap(), s);
        let back: Said = serde_json::from_str("\"now: x\"").unwrap();
        assert_eq!(back.key(), None);
        assert_eq!(back.in_lang(Lang::ZhTw), "now: x");
        assert!(s.contains("WSL2"));
    }
}
