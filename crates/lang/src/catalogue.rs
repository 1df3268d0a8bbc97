//! The Fluent catalogues, compiled in: one file per language and area, parsed once per language
//! into a bundle that every thread can read (the live view and the server format from several).

use crate::{Lang, Value};
use fluent_bundle::concurrent::FluentBundle;
use fluent_bundle::{FluentArgs, FluentResource};
use fluent_syntax::ast::Entry;
use std::sync::OnceLock;

/// A part of the program with its own catalogue file, so each keeps its own words.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Area {
    /// The text reports: `snapshot`, `explain`, `estimate` and the other commands' output.
    Reports,
    /// The command line: `--help` summaries and error messages.
    Cli,
    /// The live view (crates/tui).
    Tui,
    /// The browser page (crates/serve/assets), handed over by [`catalogue_json`].
    Page,
    /// The memory recipes' sentences (crates/workloads: an estimate's inputs and notes), made
    /// where the estimate is made and said by every view.
    Recipe,
}

/// Every area, in the order their files are loaded.
pub const AREAS: [Area; 5] = [
    Area::Reports,
    Area::Cli,
    Area::Tui,
    Area::Page,
    Area::Recipe,
];

impl Area {
    /// The file's name without `.ftl`, which is also the start of every key in it (`reports`
    /// keys start `report-`, the others `cli-`, `tui-`, `page-`, `recipe-`).
    pub fn name(self) -> &'static str {
        match self {
            Area::Reports => "reports",
            Area::Cli => "cli",
            Area::Tui => "tui",
            Area::Page => "page",
            Area::Recipe => "recipe",
        }
    }

    /// What every key of this area starts with.
    pub fn prefix(self) -> &'static str {
        match self {
            Area::Reports => "report-",
            Area::Cli => "cli-",
            Area::Tui => "tui-",
            Area::Page => "page-",
            Area::Recipe => "recipe-",
        }
    }
}

macro_rules! ftl {
    ($lang:literal) => {
        [
            include_str!(concat!("../catalogues/", $lang, "/reports.ftl")),
            include_str!(concat!("../catalogues/", $lang, "/cli.ftl")),
            include_str!(concat!("../catalogues/", $lang, "/tui.ftl")),
            include_str!(concat!("../catalogues/", $lang, "/page.ftl")),
            include_str!(concat!("../catalogues/", $lang, "/recipe.ftl")),
        ]
    };
}

const EN: [&str; 5] = ftl!("en");
const ZH_CN: [&str; 5] = ftl!("zh-CN");
const ZH_TW: [&str; 5] = ftl!("zh-TW");

/// The Fluent source of one catalogue file.
pub fn sources(lang: Lang, area: Area) -> &'static str {
    let files = match lang {
        Lang::En => &EN,
        Lang::ZhCn => &ZH_CN,
        Lang::ZhTw => &ZH_TW,
    };
    files[AREAS.iter().position(|a| *a == area).unwrap_or(0)]
}

pub(crate) fn parse(lang: Lang, area: Area) -> FluentResource {
    // A file that does not parse keeps the messages that do (the catalogue test fails on it).
    FluentResource::try_new(sources(lang, area).to_string()).unwrap_or_else(|(res, _)| res)
}

/// The message keys of one catalogue file, in file order.
pub fn keys(lang: Lang, area: Area) -> Vec<String> {
    parse(lang, area)
        .entries()
        .filter_map(|e| match e {
            Entry::Message(m) => Some(m.id.name.to_string()),
            _ => None,
        })
        .collect()
}

type Bundle = FluentBundle<FluentResource>;

fn bundle(lang: Lang) -> &'static Bundle {
    static BUNDLES: [OnceLock<Bundle>; 3] = [OnceLock::new(), OnceLock::new(), OnceLock::new()];
    let i = Lang::ALL.iter().position(|l| *l == lang).unwrap_or(0);
    BUNDLES[i].get_or_init(|| {
        let id: unic_langid::LanguageIdentifier = lang.code().parse().unwrap_or_default();
        let mut b = FluentBundle::new_concurrent(vec![id]);
        // Terminals show Unicode isolation marks as stray characters and count them in widths.
        b.set_use_isolating(false);
        for area in AREAS {
            // A key twice is a catalogue error the test reports; the first one stays.
            let _ = b.add_resource(parse(lang, area));
        }
        b
    })
}

pub(crate) fn format(lang: Lang, key: &str, args: &[(&str, Value<'_>)]) -> String {
    format_part(lang, key, None, args).unwrap_or_else(|| key.to_string())
}

/// A message's value, or with `attr` one of its attributes (`.long`), in `lang`, else English.
pub(crate) fn format_part(
    lang: Lang,
    key: &str,
    attr: Option<&str>,
    args: &[(&str, Value<'_>)],
) -> Option<String> {
    let mut fa = FluentArgs::new();
    for (k, v) in args {
        fa.set(*k, v.clone());
    }
    for l in [lang, Lang::En] {
        let b = bundle(l);
        let message = b.get_message(key);
        let pattern = match attr {
            None => message.and_then(|m| m.value()),
            Some(a) => message.and_then(|m| m.get_attribute(a)).map(|a| a.value()),
        };
        if let Some(pattern) = pattern {
            let mut errors = Vec::new();
            return Some(
                b.format_pattern(pattern, Some(&fa), &mut errors)
                    .into_owned(),
            );
        }
    }
    None
}

/// One area's messages in `lang` as a JSON object, key to text, for the page: a value stays as
/// its placeholder (`{$gpu}`) for the page to fill in, and a message that chooses by a number
/// gives its default (`*[other]`) form. Keys missing in `lang` come in English.
pub fn catalogue_json(lang: Lang, area: Area) -> String {
    let map: serde_json::Map<String, serde_json::Value> = keys(Lang::En, area)
        .into_iter()
        .map(|k| {
            let text = format(lang, &k, &[]);
            (k, serde_json::Value::String(text))
        })
        .collect();
    serde_json::Value::Object(map).to_string()
}
