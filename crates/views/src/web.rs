//! What the browser view (`gpuledger serve`'s page) needs from the views to write like them: the
//! words and units every text view uses, as JSON (`/api/v1/words`), in the page's language, so
//! the page holds no second copy of a spelling (its snapshot is [`crate::render_json_compact`],
//! `snapshot --json`'s, the same in every language). The page still lays numbers out itself (it
//! runs in the browser), by the rule of [`human_bytes`], with the unit names given here; its own
//! sentences are the `page-…` messages of `gpuledger_lang` (`"page"` in the JSON).

use crate::estimate::{gaps, GAP_CAUSES};
use crate::labels::{evidence_label, kind_label, ALL_EVIDENCE, ALL_KINDS};
use gpuledger_lang::{catalogue_json, languages_json, Area, Lang};
use gpuledger_model::units::human_bytes;
use gpuledger_model::words::{NOTHING, UNKNOWN};
use gpuledger_model::{Confidence, SourceState};
use serde_json::{json, Map, Value};

/// The process table's column titles, as `gpuledger snapshot` heads them (keys are the page's).
pub const COLUMNS: [(&str, &str); 9] = [
    ("pid", "report-col-pid"),
    ("user", "report-col-user"),
    ("name", "report-col-name"),
    ("workload", "report-col-workload"),
    ("gpu", "report-col-gpu"),
    ("mem", "report-col-memory"),
    ("source", "report-col-source"),
    ("util", "report-col-sm-pct"),
    ("cmd", "report-col-command"),
];

/// A JSON object from `(serde name of k, label)` pairs.
fn labels<K: serde::Serialize + Copy>(all: &[K], label: impl Fn(K) -> String) -> Value {
    let mut m = Map::new();
    for &k in all {
        if let Value::String(name) = json!(k) {
            m.insert(name, Value::from(label(k)));
        }
    }
    Value::Object(m)
}

/// How the page writes a large measured-vs-estimated gap (`estimate_gaps` of the snapshot), in
/// `lang`: the text views' own sentences (`report-vs-more`, `report-vs-less`,
/// `report-vs-with-cause`) with their values left as `{$name}` for the page to fill in, a
/// workload's sum (`page-gap-workload`), and each cause's words by the code the snapshot
/// carries.
pub fn gap_words(lang: Lang) -> Value {
    let causes: Map<String, Value> = GAP_CAUSES
        .iter()
        .map(|k| (gaps::code(k).to_string(), Value::from(lang.t(k))))
        .collect();
    json!({
        "more": lang.t("report-vs-more"),
        "less": lang.t("report-vs-less"),
        "with_cause": lang.t("report-vs-with-cause"),
        "workload": lang.t("page-gap-workload"),
        "causes": causes,
    })
}

/// The notes `gpuledger snapshot` writes under NOTES AND WHAT WAS NOT SEEN (and a source's line), as the table's own
/// messages with their values left as `{$name}` for the page to fill in. `unknown_one` is the
/// whole sentence for one process (its number chooses the form); `unknown_other` any other count.
fn note_templates(lang: Lang) -> Value {
    let v = |name: &'static str| -> (&'static str, gpuledger_lang::Value<'static>) {
        (name, format!("{{${name}}}").into())
    };
    json!({
        "unknown_one": lang.t_args("report-unknown-processes", &[v("gpu"), ("count", 1.into())]),
        "unknown_other": lang.t_args("report-unknown-processes", &[v("gpu"), v("count")]),
        "memory_na": lang.t_args("report-memory-na", &[v("pid"), v("name"), v("gpu"), v("reason")]),
        "engines_na": lang.t_args("report-engines-na", &[v("pid"), v("reason")]),
        "process_note": lang.t_args("report-process-note", &[v("pid"), v("name"), v("note")]),
        "metadata_na": lang.t_args("report-metadata-na", &[v("pid"), v("reason")]),
        "source_line": lang.t_args("report-source-line", &[v("state"), v("detail")]),
    })
}

/// `/api/v1/words` in English.
pub fn words_json() -> String {
    words_json_in(Lang::En)
}

/// `/api/v1/words` in `lang`: the spellings the page shares with the text views, its own
/// messages (`page`), its language (`lang`) and the languages of its switch (`languages`).
pub fn words_json_in(lang: Lang) -> String {
    // The unit names, read off the formatter itself: 1 KiB, 1 MiB ... as human_bytes writes them.
    let units: Vec<String> = (0..6)
        .map(|i| {
            let s = human_bytes(1u64 << (10 * i));
            s.rsplit(' ').next().unwrap_or_default().to_string()
        })
        .collect();
    let columns: Map<String, Value> = COLUMNS
        .iter()
        .map(|(k, key)| (k.to_string(), Value::from(lang.t(key))))
        .collect();
    let parse = |s: String| serde_json::from_str::<Value>(&s).unwrap_or(Value::Null);
    let v = json!({
        "schema": "gpuledger.words/1",
        "lang": lang.code(),
        "unknown": UNKNOWN,
        "nothing": NOTHING,
        "byte_units": units,
        "kinds": labels(&ALL_KINDS, |k| kind_label(k, lang)),
        "evidence": labels(&ALL_EVIDENCE, |k| evidence_label(k, lang)),
        "roles": crate::labels::ROLE_WORDS
            .iter()
            .map(|(words, _)| (words.to_string(), Value::from(crate::labels::role_label(words, lang))))
            .collect::<Map<String, Value>>(),
        "columns": columns,
        "confidence": labels(&[Confidence::High, Confidence::Medium, Confidence::Low], |c| {
            lang.t(match c {
                Confidence::High => "report-confidence-high",
                Confidence::Medium => "report-confidence-medium",
                Confidence::Low => "report-confidence-low",
            })
        }),
        "source_states": labels(&[SourceState::Ok, SourceState::Unavailable, SourceState::Error], |st| {
            lang.t(match st {
                SourceState::Ok => "report-source-ok",
                SourceState::Unavailable => "report-source-unavailable",
                SourceState::Error => "report-source-error",
            })
        }),
        "notes": note_templates(lang),
        "gap": gap_words(lang),
        "page": parse(catalogue_json(lang, Area::Page)),
        "languages": parse(languages_json()),
    });
    let mut s = v.to_string();
    s.push('\n');
    s
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn words_are_the_text_views_words() {
        let v: Value = serde_json::from_str(&words_json()).unwrap();
        assert_eq!(v["unknown"], "n/a");
        assert_eq!(
            v["byte_units"],
            json!(["B", "KiB", "MiB", "GiB", "TiB", "PiB"])
        );
        assert_eq!(v["kinds"]["llama-cpp"], "llama.cpp");
        assert_eq!(v["kinds"]["cuda-app"], "CUDA app");
        assert_eq!(v["kinds"].as_object().unwrap().len(), ALL_KINDS.len());
        assert_eq!(v["evidence"]["gguf-header"], "GGUF header");
        assert_eq!(v["columns"]["util"], "SM%");
        assert_eq!(v["gap"]["causes"].as_object().unwrap().len(), 3);
        assert_eq!(
            v["gap"]["causes"]["below-weights"],
            Lang::En.t("report-gap-below-weights")
        );
        assert!(v["gap"]["less"].as_str().unwrap().contains("{$measured}"));
        assert_eq!(v["columns"]["mem"], "MEMORY");
        assert_eq!(
            v["notes"]["unknown_one"],
            "GPU{$gpu}: memory of 1 process is unknown; it is inside the unattributed figure"
        );
    }

    #[test]
    fn words_in_chinese_keep_the_keys_and_product_names() {
        let en: Value = serde_json::from_str(&words_json()).unwrap();
        for lang in [Lang::ZhCn, Lang::ZhTw] {
            let v: Value = serde_json::from_str(&words_json_in(lang)).unwrap();
            assert_eq!(v["lang"], lang.code());
            for part in ["kinds", "evidence", "columns", "notes", "page"] {
                let keys = |v: &Value| {
                    v[part]
                        .as_object()
                        .unwrap()
                        .keys()
                        .cloned()
                        .collect::<Vec<_>>()
                };
                assert_eq!(keys(&v), keys(&en), "{part}");
            }
            assert_eq!(v["kinds"]["llama-cpp"], "llama.cpp");
            assert_eq!(v["byte_units"], en["byte_units"]);
        }
        let cn: Value = serde_json::from_str(&words_json_in(Lang::ZhCn)).unwrap();
        assert_eq!(cn["columns"]["mem"], "显存");
        assert_eq!(cn["kinds"]["cuda-app"], "CUDA 程序");
        assert_eq!(cn["confidence"]["high"], "高");
        assert_eq!(en["confidence"]["medium"], "medium");
        assert_eq!(en["source_states"]["error"], "ERROR");
        let tw: Value = serde_json::from_str(&words_json_in(Lang::ZhTw)).unwrap();
        assert_eq!(tw["notes"]["source_line"], "{$state}：{$detail}");
        assert_eq!(tw["languages"][2]["name"], "繁體中文");
    }
}
