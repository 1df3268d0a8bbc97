//! The words people read, in their language: English, Simplified Chinese (`zh-CN`) and
//! Traditional Chinese (`zh-TW`, also for Hong Kong and Macau). Machine-readable outputs (JSON,
//! CSV, Prometheus, recordings, exit codes) never pass through here.
//!
//! - Which language: [`choose`] (the `--lang` flag, then GNU `LANGUAGE`, `LC_ALL` / `LC_MESSAGES` / `LANG`, then
//!   the Windows user's UI language), [`from_accept_language`] for the browser page.
//! - The words: [`Lang::t`] and [`Lang::t_args`] format a message of the Fluent catalogues in
//!   `catalogues/<lang>/<area>.ftl` (compiled in), plural and number forms by the language's
//!   rules; [`catalogue_json`] gives one area's messages to the page, [`languages_json`] the
//!   languages for its switch.
//!
//! - Sentences written where the data is made and read in a view ([`Said`]): English in every
//!   machine output, the reader's language in views.
//!
//! Keys are named by area (`report-…`, `cli-…`, `tui-…`, `page-…`), one file per area, so each
//! part of the program keeps its own file.

mod catalogue;
mod choose;
mod read_back;
pub mod said;

pub use catalogue::{catalogue_json, keys, sources, Area, AREAS};
pub use choose::{choose, from_accept_language, from_locale, from_windows_langid, UnknownLang};
/// A value put into a message (`{ $n }`): a string, or a number (which also picks the plural).
pub use fluent_bundle::FluentValue as Value;
pub use said::Said;

/// A language gpuledger speaks.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, Default)]
pub enum Lang {
    #[default]
    En,
    ZhCn,
    ZhTw,
}

impl Lang {
    /// Every language with a catalogue, English (the reference) first.
    pub const ALL: [Lang; 3] = [Lang::En, Lang::ZhCn, Lang::ZhTw];

    /// The BCP 47 tag: `en`, `zh-CN`, `zh-TW` (what `--lang` takes and the catalogues' folders).
    pub fn code(self) -> &'static str {
        match self {
            Lang::En => "en",
            Lang::ZhCn => "zh-CN",
            Lang::ZhTw => "zh-TW",
        }
    }

    /// The language's name in itself, for `--lang list` and the page's switch.
    pub fn native_name(self) -> &'static str {
        match self {
            Lang::En => "English",
            Lang::ZhCn => "简体中文",
            Lang::ZhTw => "繁體中文",
        }
    }

    /// The message `key` with no values. A key missing from this language's catalogue falls back
    /// to English, then to the key itself (never a panic; the catalogue test keeps them whole).
    pub fn t(self, key: &str) -> String {
        catalogue::format(self, key, &[])
    }

    /// The attribute `attr` of message `key` (`cli-arg-x` with `.long`), when the message has
    /// it (in this language, else English).
    pub fn t_attr(self, key: &str, attr: &str) -> Option<String> {
        catalogue::format_part(self, key, Some(attr), &[])
    }

    /// The message `key` with its values (`&[("gpu", 0.into()), ("n", 3.into())]`): the catalogue
    /// decides the word order and, from a number, the plural form.
    pub fn t_args(self, key: &str, args: &[(&str, Value<'_>)]) -> String {
        catalogue::format(self, key, args)
    }
}

impl std::fmt::Display for Lang {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.write_str(self.code())
    }
}

/// The languages for the page's switch: `[{"code":"en","name":"English"}, ...]`.
pub fn languages_json() -> String {
    let all: Vec<serde_json::Value> = Lang::ALL
        .iter()
        .map(|l| serde_json::json!({ "code": l.code(), "name": l.native_name() }))
        .collect();
    serde_json::Value::Array(all).to_string()
}

/// `gpuledger --lang list`: one line per language, its tag and its own name.
pub fn list() -> String {
    Lang::ALL
        .iter()
        .map(|l| format!("{:<6} {}\n", l.code(), l.native_name()))
        .collect()
}
