//! The model's own words for what a process is (`browser`, `compositor`, `unknown`) in the
//! reader's language. Product names (llama.cpp, vLLM, Ollama) stay as they are; the label is
//! still composed by the model ([`Workload::short_label`]: kind · model · role), only its kind
//! is said in the language.

use gpuledger_lang::Lang;
use gpuledger_model::{EvidenceKind, Workload, WorkloadKind};

/// Every workload kind (the page's table of labels, the catalogue tests). The match below fails to compile when
/// a kind is added and not listed here.
pub(crate) const ALL_KINDS: [WorkloadKind; 14] = [
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

/// Every kind of evidence, likewise.
pub(crate) const ALL_EVIDENCE: [EvidenceKind; 9] = [
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

/// The catalogue key of a kind that is a word rather than a product's name (the model's).
fn kind_key(kind: WorkloadKind) -> Option<&'static str> {
    kind.word_key()
}

/// How a kind is named in `lang`: a product's name as it is, a word (`browser`) translated.
pub fn kind_label(kind: WorkloadKind, lang: Lang) -> String {
    match (lang, kind_key(kind)) {
        (Lang::En, _) | (_, None) => kind.label().to_string(),
        (_, Some(key)) => lang.t(key),
    }
}

/// [`Workload::short_label`] with its kind in `lang` (unchanged in English).
pub fn workload_label(w: &Workload, lang: Lang) -> String {
    let label = w.short_label();
    if lang == Lang::En {
        return label;
    }
    // The member's role is the label's tail (`… · worker TP1/2`): said in the language too.
    let (label, role) = match &w.member {
        Some(m) => match label.strip_suffix(&format!(" · {}", m.role)) {
            Some(head) => (head.to_string(), Some(m.role.as_str())),
            None => (label.clone(), None),
        },
        None => (label, None),
    };
    let label = match kind_key(w.kind) {
        Some(key) => match label.strip_prefix(w.kind.label()) {
            Some(rest) => format!("{}{rest}", lang.t(key)),
            None => label,
        },
        None => label,
    };
    match role {
        Some(r) => format!("{label} · {}", role_label(r, lang)),
        None => label,
    }
}

/// The leading words of a member's role as the runtimes write them (`worker TP1/2`,
/// `scheduler TP0/2`, `rank 3/8`), longest first, with their message keys.
pub const ROLE_WORDS: [(&str, &str); 9] = [
    ("engine (node helper)", "report-role-node-helper"),
    ("engine core", "report-role-engine-core"),
    ("engine", "report-role-engine"),
    ("worker", "report-role-worker"),
    ("scheduler", "report-role-scheduler"),
    ("detokenizer", "report-role-detokenizer"),
    ("runner", "report-role-runner"),
    ("rpc device", "report-role-rpc-device"),
    ("child", "report-role-child"),
];

/// A member's role (`worker TP1/2`) in `lang`: its leading words in the language's, what
/// follows (`TP1/2`, `DP0`) as written; a role of other words stays as the runtime gave it.
/// Machine outputs (JSON, metrics' `role` label) keep the English.
pub fn role_label(role: &str, lang: Lang) -> String {
    if lang == Lang::En {
        return role.to_string();
    }
    for (words, key) in ROLE_WORDS {
        match role.strip_prefix(words) {
            Some(rest) if rest.is_empty() || rest.starts_with(' ') => {
                return format!("{}{rest}", lang.t(key));
            }
            _ => {}
        }
    }
    role.to_string()
}

/// How sure an identification is (`high`), in `lang`.
pub fn confidence_label(c: gpuledger_model::Confidence, lang: Lang) -> String {
    use gpuledger_model::Confidence;
    lang.t(match c {
        Confidence::High => "report-confidence-high",
        Confidence::Medium => "report-confidence-medium",
        Confidence::Low => "report-confidence-low",
    })
}

/// How a kind of evidence is named (`executable`, `model file`) in `lang`.
pub fn evidence_label(kind: EvidenceKind, lang: Lang) -> String {
    lang.t(match kind {
        EvidenceKind::Executable => "report-evidence-executable",
        EvidenceKind::Cmdline => "report-evidence-cmdline",
        EvidenceKind::Library => "report-evidence-library",
        EvidenceKind::ModelFile => "report-evidence-model-file",
        EvidenceKind::ListeningPort => "report-evidence-listening-port",
        EvidenceKind::Parent => "report-evidence-parent",
        EvidenceKind::Http => "report-evidence-http",
        EvidenceKind::Log => "report-evidence-log",
        EvidenceKind::GgufHeader => "report-evidence-gguf-header",
    })
}

#[cfg(test)]
mod tests {
    use super::*;

    /// The English catalogue says what the model says, so English output cannot change.
    #[test]
    fn english_kinds_are_the_models_labels() {
        for k in ALL_KINDS {
            if let Some(key) = kind_key(k) {
                assert_eq!(Lang::En.t(key), k.label(), "{k:?}");
            }
        }
    }

    #[test]
    fn english_evidence_and_confidence_words_are_the_models() {
        for k in ALL_EVIDENCE {
            assert_eq!(evidence_label(k, Lang::En), k.label(), "{k:?}");
        }
        use gpuledger_model::Confidence;
        for (c, key) in [
            (Confidence::High, "report-confidence-high"),
            (Confidence::Medium, "report-confidence-medium"),
            (Confidence::Low, "report-confidence-low"),
        ] {
            assert_eq!(Lang::En.t(key), c.word());
        }
    }

    #[test]
    fn the_kind_is_translated_and_the_rest_kept() {
        let mut w = crate::test_support::llama_workload("/m/Qwen3-8B.gguf");
        assert_eq!(workload_label(&w, Lang::ZhCn), w.short_label());
        w.kind = WorkloadKind::Compositor;
        w.model = None;
        assert_eq!(workload_label(&w, Lang::En), "compositor");
        assert_eq!(workload_label(&w, Lang::ZhCn), "窗口合成器");
        assert_eq!(workload_label(&w, Lang::ZhTw), "視窗合成器");
    }

    /// A role's leading words as every runtime writes them read in the language, what follows
    /// kept; `engine core` is not `engine` + ` core`; other words stay as written.
    #[test]
    fn a_member_s_role_is_said_in_the_language() {
        for (words, _) in ROLE_WORDS {
            assert_eq!(role_label(words, Lang::En), words);
            assert_ne!(role_label(words, Lang::ZhCn), words, "{words}");
        }
        assert_eq!(role_label("worker TP1/2", Lang::ZhCn), "工作进程 TP1/2");
        assert_eq!(role_label("engine core DP1", Lang::ZhTw), "引擎核心 DP1");
        assert_eq!(role_label("engine 0", Lang::ZhCn), "引擎 0");
        assert_eq!(role_label("rank 3/8", Lang::ZhCn), "rank 3/8");
        assert_eq!(role_label("workers", Lang::ZhCn), "workers");
        let mut w = crate::test_support::llama_workload("/m/Qwen3-8B.gguf");
        w.member = Some(gpuledger_model::Member {
            root_pid: Some(900),
            role: "runner".into(),
            role_kind: gpuledger_model::RoleKind::Runner,
            evidence: Default::default(),
        });
        assert_eq!(
            workload_label(&w, Lang::ZhCn),
            "llama.cpp · Qwen3-8B · 运行器"
        );
        assert_eq!(
            workload_label(&w, Lang::En),
            "llama.cpp · Qwen3-8B · runner"
        );
    }
}
