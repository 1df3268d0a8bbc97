//! What the browser view (`gpuledger serve`'s page) needs from the views to write like them: the
//! words and units every text view uses, as JSON (`/api/v1/words`), so the page holds no second
//! copy of a spelling (its snapshot is [`crate::render_json_compact`], `snapshot --json`'s). The page still lays numbers out itself (it runs in the browser), by the rule of
//! [`human_bytes`], with the unit names given here.

use crate::estimate::{gaps, GAP_CAUSES};
use gpuledger_lang::Lang;
use gpuledger_model::units::human_bytes;
use gpuledger_model::words::{NOTHING, UNKNOWN};
use gpuledger_model::{EvidenceKind, WorkloadKind};
use serde_json::{json, Map, Value};

/// Every workload kind, for the page's table of labels. The match below fails to compile when
/// a kind is added and not listed here.
const KINDS: [WorkloadKind; 14] = [
    WorkloadKind::LlamaCpp,
    WorkloadKind::Ollama,
    WorkloadKind::OllamaRunner,
    WorkloadKind::LmStudio,
    WorkloadKind::Vllm,
    WorkloadKind::Sglang,
    WorkloadKind::Pytorch,
    WorkloadKind::Mlx,
    WorkloadKind::Comfyui,
    WorkloadKind::Browser,
    WorkloadKind::Compositor,
    WorkloadKind::CudaApp,
    WorkloadKind::GraphicsApp,
    WorkloadKind::Unknown,
];

#[allow(dead_code)]
fn every_kind_is_listed(k: WorkloadKind) {
    match k {
        WorkloadKind::LlamaCpp
        | WorkloadKind::Ollama
        | WorkloadKind::OllamaRunner
        | WorkloadKind::LmStudio
        | WorkloadKind::Vllm
        | WorkloadKind::Sglang
        | WorkloadKind::Pytorch
        | WorkloadKind::Mlx
        | WorkloadKind::Comfyui
        | WorkloadKind::Browser
        | WorkloadKind::Compositor
        | WorkloadKind::CudaApp
        | WorkloadKind::GraphicsApp
        | WorkloadKind::Unknown => {}
    }
}

const EVIDENCE: [EvidenceKind; 9] = [
    EvidenceKind::Executable,
    EvidenceKind::Cmdline,
    EvidenceKind::Library,
    EvidenceKind::ModelFile,
    EvidenceKind::ListeningPort,
    EvidenceKind::Parent,
    EvidenceKind::Http,
    EvidenceKind::Log,
    EvidenceKind::GgufHeader,
];

#[allow(dead_code)]
fn every_evidence_kind_is_listed(k: EvidenceKind) {
    match k {
        EvidenceKind::Executable
        | EvidenceKind::Cmdline
        | EvidenceKind::Library
        | EvidenceKind::ModelFile
        | EvidenceKind::ListeningPort
        | EvidenceKind::Parent
        | EvidenceKind::Http
        | EvidenceKind::Log
        | EvidenceKind::GgufHeader => {}
    }
}

/// The process table's column titles, as `gpuledger snapshot` heads them (keys are the page's).
pub const COLUMNS: [(&str, &str); 9] = [
    ("pid", "PID"),
    ("user", "USER"),
    ("name", "NAME"),
    ("workload", "WORKLOAD"),
    ("gpu", "GPU"),
    ("mem", "MEMORY"),
    ("source", "SOURCE"),
    ("util", "SM%"),
    ("cmd", "COMMAND"),
];

/// A JSON object from `(serde name of k, label)` pairs.
fn labels<K: serde::Serialize + Copy>(all: &[K], label: impl Fn(K) -> &'static str) -> Value {
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

/// `/api/v1/words`: the spellings the page shares with the text views.
pub fn words_json() -> String {
    // The unit names, read off the formatter itself: 1 KiB, 1 MiB ... as human_bytes writes them.
    let units: Vec<String> = (0..6)
        .map(|i| {
            let s = human_bytes(1u64 << (10 * i));
            s.rsplit(' ').next().unwrap_or_default().to_string()
        })
        .collect();
    let columns: Map<String, Value> = COLUMNS
        .iter()
        .map(|(k, v)| (k.to_string(), Value::from(*v)))
        .collect();
    let v = json!({
        "schema": "gpuledger.words/1",
        "unknown": UNKNOWN,
        "nothing": NOTHING,
        "byte_units": units,
        "kinds": labels(&KINDS, WorkloadKind::label),
        "evidence": labels(&EVIDENCE, EvidenceKind::label),
        "columns": columns,
        "gap": gap_words(Lang::En),
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
        assert_eq!(v["kinds"].as_object().unwrap().len(), KINDS.len());
        assert_eq!(v["evidence"]["gguf-header"], "GGUF header");
        assert_eq!(v["columns"]["util"], "SM%");
        assert_eq!(v["gap"]["causes"].as_object().unwrap().len(), 3);
        assert_eq!(
            v["gap"]["causes"]["below-weights"],
            Lang::En.t("report-gap-below-weights")
        );
        assert!(v["gap"]["less"].as_str().unwrap().contains("{$measured}"));
    }
}
