//! What a process is, as a conclusion built from evidence (docs/DESIGN.md concept 5). Identification
//! itself lives in the workloads crate; these are the types a snapshot carries.

use gpuledger_lang::{said::Said, Lang};
use serde::{Deserialize, Serialize};

/// What a process is. The names are a stable format (JSON `kind`, CSV, Prometheus labels,
/// recorded snapshots and history read them back), so each kind is listed here once with its
/// label; everything else about a kind (whether it is AI, a server, which libraries support it)
/// is declared by the runtime that owns it, in the workloads crate's registry
/// (`gpuledger_workloads::runtimes::RUNTIMES`).
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, Serialize, Deserialize)]
#[serde(rename_all = "kebab-case")]
pub enum WorkloadKind {
    /// llama.cpp's llama-server / llama-cli, or a program embedding libllama.
    LlamaCpp,
    /// `ollama serve`.
    Ollama,
    /// The llama.cpp-based runner Ollama starts per loaded model.
    OllamaRunner,
    LmStudio,
    Vllm,
    /// SGLang's server (`python -m sglang.launch_server`).
    Sglang,
    Pytorch,
    Mlx,
    Comfyui,
    Browser,
    Compositor,
    /// Uses the CUDA runtime, nothing more specific known.
    CudaApp,
    /// Uses a graphics driver (GL/Vulkan), nothing more specific known.
    GraphicsApp,
    Unknown,
}

impl WorkloadKind {
    pub fn label(self) -> &'static str {
        match self {
            WorkloadKind::LlamaCpp => "llama.cpp",
            WorkloadKind::Ollama => "Ollama",
            WorkloadKind::OllamaRunner => "Ollama runner",
            WorkloadKind::LmStudio => "LM Studio",
            WorkloadKind::Vllm => "vLLM",
            WorkloadKind::Sglang => "SGLang",
            WorkloadKind::Pytorch => "PyTorch",
            WorkloadKind::Mlx => "MLX",
            WorkloadKind::Comfyui => "ComfyUI",
            WorkloadKind::Browser => "browser",
            WorkloadKind::Compositor => "compositor",
            WorkloadKind::CudaApp => "CUDA app",
            WorkloadKind::GraphicsApp => "graphics app",
            WorkloadKind::Unknown => "unknown",
        }
    }

    /// The catalogue key of a kind that is a word rather than a product's name (`browser`,
    /// `Ollama runner`); a product's name (`vLLM`) has none and is written as it is.
    pub fn word_key(self) -> Option<&'static str> {
        Some(match self {
            WorkloadKind::Browser => "report-kind-browser",
            WorkloadKind::Compositor => "report-kind-compositor",
            WorkloadKind::CudaApp => "report-kind-cuda-app",
            WorkloadKind::GraphicsApp => "report-kind-graphics-app",
            WorkloadKind::OllamaRunner => "report-kind-ollama-runner",
            WorkloadKind::Unknown => "report-kind-unknown",
            _ => return None,
        })
    }

    /// The kind's name inside a sentence that says it in the reader's language.
    pub fn said(self) -> gpuledger_lang::Said {
        match self.word_key() {
            Some(key) => gpuledger_lang::Said::new(key, vec![]),
            None => gpuledger_lang::Said::verbatim(self.label()),
        }
    }
}

#[derive(Debug, Clone, Copy, PartialEq, Eq, PartialOrd, Ord, Serialize, Deserialize)]
#[serde(rename_all = "lowercase")]
pub enum Confidence {
    Low,
    Medium,
    High,
}

#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "kebab-case")]
pub enum EvidenceKind {
    Executable,
    Cmdline,
    Library,
    ModelFile,
    ListeningPort,
    Parent,
    Http,
    Log,
    GgufHeader,
}

/// One observation: what kind, what it showed, where it was read.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
pub struct Evidence {
    pub kind: EvidenceKind,
    /// What it showed: its English in JSON, the reader's language in views.
    pub showed: Said,
    pub source: String,
}

/// The sentences of the evidence that recipes act on, written and read back here only: a recorded
/// snapshot carries the sentence and nothing else, so a replay reads the same facts from it.
impl Evidence {
    const MODEL_FILE: &'static str = "model file ";

    /// `model file PATH`: a model file the process has mapped or open.
    pub fn model_file(path: &str, source: String) -> Evidence {
        Evidence {
            kind: EvidenceKind::ModelFile,
            showed: Said::new("report-ev-model-file", vec![("path", path.into())]),
            source,
        }
    }

    /// The path of [`Evidence::model_file`] evidence.
    pub fn model_file_path(&self) -> Option<&str> {
        (self.kind == EvidenceKind::ModelFile)
            .then(|| self.showed.strip_prefix(Self::MODEL_FILE))
            .flatten()
    }

    /// `parent NAME (pid N)`: the process's parent, where it says what the process is.
    pub fn parent(name: &str, pid: u32, source: String) -> Evidence {
        Evidence {
            kind: EvidenceKind::Parent,
            showed: Said::new(
                "report-ev-parent",
                vec![("name", name.into()), ("pid", pid.to_string().into())],
            ),
            source,
        }
    }

    /// What the evidence showed in `lang`, for a line that already names its kind (`model
    /// file: …`): an English sentence that starts with the kind's own words (`model file
    /// /m/q.gguf`, `executable /opt/…`) does not say them twice, and the other languages'
    /// sentences are written without them. The stored sentence is unchanged (recipes read it).
    pub fn shown(&self, lang: Lang) -> String {
        if lang != Lang::En && self.showed.key().is_some() {
            return self.showed.in_lang(lang);
        }
        let label = self.kind.label();
        let english = self.showed.as_str();
        match english.get(..label.len()) {
            Some(head) if head.eq_ignore_ascii_case(label) => {
                let rest = &english[label.len()..];
                match rest.strip_prefix(' ').or_else(|| rest.strip_prefix(": ")) {
                    Some(r) if !r.is_empty() => r.to_string(),
                    _ => english.to_string(),
                }
            }
            _ => english.to_string(),
        }
    }

    /// Name and pid of [`Evidence::parent`] evidence.
    pub fn parent_of(&self) -> Option<(&str, u32)> {
        if self.kind != EvidenceKind::Parent {
            return None;
        }
        let rest = self.showed.strip_prefix("parent ")?.strip_suffix(')')?;
        let (name, pid) = rest.rsplit_once(" (pid ")?;
        Some((name, pid.parse().ok()?))
    }
}

#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct Workload {
    pub kind: WorkloadKind,
    /// Model file or name, when known.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub model: Option<String>,
    /// The runtime's own name for the model (`qwen3:8b` for the blob an Ollama runner loads),
    /// when it names it otherwise than the file; views show it instead of the file's name.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub model_name: Option<String>,
    pub confidence: Confidence,
    pub evidence: Vec<Evidence>,
    /// Links of the chain that were looked for and not found.
    #[serde(default, skip_serializing_if = "Vec::is_empty")]
    pub missing: Vec<Said>,
    /// The process's place in a workload of several processes, when it is one of them.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub member: Option<Member>,
}

/// What a member does in its workload: what rules match on; [`Member::role`] is its words
/// (`worker TP1/2`), for people.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Default, Serialize, Deserialize)]
#[serde(rename_all = "snake_case")]
pub enum RoleKind {
    /// The engine that schedules the ranks (vLLM's engine core): with one rank it runs the
    /// model itself, with several its workers do.
    EngineCore,
    /// An engine that runs a rank itself (vLLM V0's engine, rank 0).
    Engine,
    /// One tensor- or pipeline-parallel rank an engine started (vLLM's workers, SGLang's
    /// schedulers).
    Worker,
    /// A process of the runtime that holds no model (SGLang's detokenizer).
    Helper,
    /// The process a server runs the model in (Ollama's runner, LM Studio's node helper).
    Runner,
    /// A rank a launcher started, by its `RANK` and `WORLD_SIZE`.
    Rank,
    /// llama.cpp's `rpc-server`: a device of a llama-server.
    RpcDevice,
    /// A descendant whose part is not known.
    #[default]
    Child,
}

/// One process of a workload that runs as several (docs/DESIGN.md concept 7): an engine core or
/// a tensor-parallel worker under vLLM's API server, SGLang's schedulers, Ollama's runner under
/// `ollama serve`, the ranks `torchrun` starts.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
pub struct Member {
    /// The process the user started, or that serves the API: the workload's root; `None` when
    /// it is not among the process's ancestors (a rank whose launcher is out of sight).
    pub root_pid: Option<u32>,
    /// `engine core`, `worker TP1/4`, `scheduler TP0`, `runner`, `rank 3/8`, `child`.
    pub role: String,
    /// What the role is, for rules (never the words above).
    #[serde(default)]
    pub role_kind: RoleKind,
    /// How the membership was concluded, and where it was read.
    pub evidence: Said,
}

impl Workload {
    /// The model as views name it: the runtime's name, else the file's name without `.gguf`.
    pub fn model_shown(&self) -> Option<&str> {
        if let Some(n) = &self.model_name {
            return Some(n);
        }
        let m = self.model.as_deref()?;
        let base = m.rsplit(['/', '\\']).next().unwrap_or(m);
        Some(base.strip_suffix(".gguf").unwrap_or(base))
    }

    /// `llama.cpp · Qwen3-8B-Q4_K_M` for tables; a member adds its role (`vLLM · Qwen2-7B ·
    /// worker TP1/2`).
    pub fn short_label(&self) -> String {
        let mut label = match self.model_shown() {
            Some(m) => format!("{} · {m}", self.kind.label()),
            None => self.kind.label().to_string(),
        };
        if let Some(m) = &self.member {
            label.push_str(" · ");
            label.push_str(&m.role);
        }
        label
    }
}

/// The estimated ledger of an AI process: what a recipe computed from the model file and the
/// runtime's settings. Never measured, never added to measured totals; views show it apart.
///
/// A part the recipe cannot know for this runtime is `None` and named in `not_modelled`, never
/// filled with an invented figure (docs/DESIGN.md concept 3). `Some(x)` serialises as the bare number, so
/// snapshots written before these fields were optional read and write unchanged.
///
/// The JSON adds one figure derived here, `total_is_floor` ([`EstimatedMemory::is_partial`]), so
/// that a reader of the contract (the browser view) need not restate the rule; it is not read
/// back (it is derived again).
#[derive(Debug, Clone, Default, PartialEq, Serialize, Deserialize)]
// The derives generate inherent `serialize`/`deserialize`; the trait impls below wrap them.
#[serde(remote = "Self")]
pub struct EstimatedMemory {
    /// Which recipe (`llama.cpp/llama-server`, `ollama/runner`, `vllm`, `pytorch`).
    pub recipe: String,
    pub model: String,
    /// The context the recipe assumed (tokens, all slots); `None` where the runtime has none
    /// that the recipe can know (PyTorch).
    pub n_ctx: Option<u64>,
    pub weights_gpu_bytes: u64,
    pub kv_cache_gpu_bytes: Option<u64>,
    /// Compute buffers or activations: approximate unless [`EstimatedMemory::compute_exact`].
    pub compute_gpu_bytes: Option<u64>,
    /// The compute figure is exact: llama.cpp's graph reservation replayed for this model and
    /// build, every part of it as llama.cpp sizes it. Absent (older snapshots, other recipes):
    /// approximate.
    #[serde(default, skip_serializing_if = "std::ops::Not::not")]
    pub compute_exact: bool,
    /// What the compute line holds for this runtime, where it is not llama.cpp's compute buffers
    /// (`activations and CUDA graphs`).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub compute_label: Option<gpuledger_lang::Said>,
    /// Runtime overhead (CUDA context ...); `None` when no figure exists for the backend, or
    /// when [`EstimatedMemory::overhead_included`] says it is inside another part.
    pub overhead_gpu_bytes: Option<u64>,
    /// The overhead is not a part of its own but inside the total (vLLM's reservation holds the
    /// CUDA context): a `None` overhead is then not an unknown that makes the total a floor.
    #[serde(default, skip_serializing_if = "std::ops::Not::not")]
    pub overhead_included: bool,
    /// Where the overhead figure came from (a generic figure, or this machine's probe).
    pub overhead_source: gpuledger_lang::Said,
    /// The sum of the known parts, or the runtime's reservation where it reserves by design (vLLM).
    pub total_gpu_bytes: u64,
    /// One plain sentence that answers "why this much".
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub why: Option<gpuledger_lang::Said>,
    /// The runtime's own figures (Ollama `/api/ps`, vLLM `/metrics`, a log line), shown beside the
    /// estimate and never added to either ledger.
    #[serde(default, skip_serializing_if = "Vec::is_empty")]
    pub reported: Vec<ReportedFigure>,
    /// Parts that hold memory and that no recipe can size from outside the process, in words
    /// (`the caching allocator's reserve beyond live tensors`).
    #[serde(default, skip_serializing_if = "Vec::is_empty")]
    pub not_modelled: Vec<gpuledger_lang::Said>,
    /// A llama.cpp model cut over several devices: each device's part. The GPU figures above are
    /// this process's own devices'; an RPC device's part is the estimate of the `rpc-server`
    /// process that serves it.
    #[serde(default, skip_serializing_if = "Vec::is_empty")]
    pub device_shares: Vec<crate::llama_estimate::DeviceShare>,
}

impl Serialize for EstimatedMemory {
    fn serialize<S: serde::Serializer>(&self, s: S) -> Result<S::Ok, S::Error> {
        struct Fields<'a>(&'a EstimatedMemory);
        impl Serialize for Fields<'_> {
            fn serialize<S: serde::Serializer>(&self, s: S) -> Result<S::Ok, S::Error> {
                EstimatedMemory::serialize(self.0, s)
            }
        }
        #[derive(Serialize)]
        struct Wire<'a> {
            #[serde(flatten)]
            fields: Fields<'a>,
            total_is_floor: bool,
        }
        Wire {
            fields: Fields(self),
            total_is_floor: self.is_partial(),
        }
        .serialize(s)
    }
}

impl<'de> Deserialize<'de> for EstimatedMemory {
    fn deserialize<D: serde::Deserializer<'de>>(d: D) -> Result<Self, D::Error> {
        EstimatedMemory::deserialize(d)
    }
}

impl EstimatedMemory {
    /// Whether a part is unknown (`None`): then `total_gpu_bytes` is only the known parts, a floor,
    /// and no "measured − estimated" difference means anything. An overhead with no figure
    /// (llama.cpp on Vulkan or Metal) counts, unless it is inside the total.
    pub fn is_partial(&self) -> bool {
        self.kv_cache_gpu_bytes.is_none()
            || self.compute_gpu_bytes.is_none()
            || (self.overhead_gpu_bytes.is_none() && !self.overhead_included)
    }

    /// The total as text: `9.27 GiB`, or `≥ 4.35 GiB` when a part is unknown.
    pub fn total_text(&self) -> String {
        let t = crate::units::human_bytes(self.total_gpu_bytes);
        if self.is_partial() {
            format!("≥ {t}")
        } else {
            t
        }
    }
}

/// Why an AI process has no estimated ledger, in words, and the figures its runtime published
/// about it all the same (never an estimate: views show them as the runtime's).
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
pub struct NoEstimate {
    pub why: gpuledger_lang::Said,
    #[serde(default, skip_serializing_if = "Vec::is_empty")]
    pub reported: Vec<ReportedFigure>,
}

/// One figure a runtime published about its own memory.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
pub struct ReportedFigure {
    /// The runtime's name for it (`size_vram`, `KV cache`), or a name in words each view says
    /// in its language.
    pub what: gpuledger_lang::Said,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub bytes: Option<u64>,
    /// A fact that is not a byte count (`kept loaded until 14:32 (OLLAMA_KEEP_ALIVE=5m)`).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub text: Option<gpuledger_lang::Said>,
    /// Where it was read (`GET http://127.0.0.1:11434/api/ps`).
    pub source: String,
}

impl ReportedFigure {
    /// A figure that is a byte count, or a fact in words (`text`), or both.
    pub fn new(
        what: impl Into<gpuledger_lang::Said>,
        bytes: Option<u64>,
        text: Option<gpuledger_lang::Said>,
        source: &str,
    ) -> Self {
        ReportedFigure {
            what: what.into(),
            bytes,
            text,
            source: source.into(),
        }
    }
}

#[cfg(test)]
mod estimate_tests {
    use super::*;

    /// A part the recipe cannot know makes the total a floor, said as one.
    #[test]
    fn a_total_with_an_unknown_part_is_a_floor() {
        let mut e = EstimatedMemory {
            weights_gpu_bytes: 1 << 30,
            kv_cache_gpu_bytes: Some(1 << 30),
            compute_gpu_bytes: Some(0),
            overhead_gpu_bytes: Some(0),
            total_gpu_bytes: 2 << 30,
            ..Default::default()
        };
        assert!(!e.is_partial());
        assert_eq!(e.total_text(), "2 GiB");
        // No overhead figure for the backend (llama.cpp on Vulkan): a floor too…
        e.overhead_gpu_bytes = None;
        assert_eq!(e.total_text(), "≥ 2 GiB");
        // …unless the overhead is inside the total (vLLM's reservation).
        e.overhead_included = true;
        assert!(!e.is_partial());
        e.kv_cache_gpu_bytes = None;
        e.total_gpu_bytes = 1 << 30;
        assert!(e.is_partial());
        assert_eq!(e.total_text(), "≥ 1 GiB");
    }

    /// The JSON says whether the total is a floor, and reads back unchanged (the flag is derived
    /// again, not read).
    #[test]
    fn the_json_says_when_the_total_is_a_floor() {
        let mut e = EstimatedMemory {
            weights_gpu_bytes: 1 << 30,
            kv_cache_gpu_bytes: Some(1 << 30),
            compute_gpu_bytes: Some(0),
            overhead_gpu_bytes: Some(0),
            total_gpu_bytes: 2 << 30,
            why: Some("because".into()),
            ..Default::default()
        };
        for floor in [false, true] {
            let v = serde_json::to_value(&e).unwrap();
            assert_eq!(v["total_is_floor"], floor, "{v}");
            assert_eq!(v["weights_gpu_bytes"], 1u64 << 30);
            assert_eq!(v["why"], "because");
            assert!(
                v.get("reported").is_none(),
                "empty lists are still left out"
            );
            let back: EstimatedMemory = serde_json::from_value(v).unwrap();
            assert_eq!(back, e);
            e.compute_gpu_bytes = None;
        }
        // Written by an older gpuledger, without the flag: read as before.
        let old = r#"{"recipe":"r","model":"m","n_ctx":null,"weights_gpu_bytes":1,"kv_cache_gpu_bytes":null,"compute_gpu_bytes":null,"overhead_gpu_bytes":null,"overhead_source":"","total_gpu_bytes":1}"#;
        let e: EstimatedMemory = serde_json::from_str(old).unwrap();
        assert!(e.is_partial());
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    /// What recipes read back is what identification wrote, also after a snapshot's JSON round
    /// trip (a replay), and only from evidence of the right kind.
    #[test]
    fn model_file_and_parent_read_back_what_was_written() {
        let ev = vec![
            Evidence::model_file("/m/a b (1).gguf", "/proc/7/maps".into()),
            Evidence::parent("ollama (x)", 900, "/proc/7/stat".into()),
            Evidence {
                kind: EvidenceKind::Cmdline,
                showed: "model file /not/this".into(),
                source: "/proc/7/cmdline".into(),
            },
        ];
        let back: Vec<Evidence> =
            serde_json::from_str(&serde_json::to_string(&ev).unwrap()).unwrap();
        assert_eq!(back, ev);
        assert_eq!(back[0].showed, "model file /m/a b (1).gguf");
        // Shown under its kind's name, the kind's words are not said twice.
        assert_eq!(back[0].shown(Lang::En), "/m/a b (1).gguf");
        // Other languages say it in their words; read back from JSON it is the English.
        assert_eq!(ev[0].shown(Lang::ZhCn), "/m/a b (1).gguf");
        assert_eq!(ev[1].shown(Lang::ZhCn), "ollama (x)（PID 900）");
        assert_eq!(back[1].shown(Lang::ZhCn), "ollama (x) (pid 900)");
        assert_eq!(
            back[1].shown(Lang::En),
            "parent ollama (x) (pid 900)"
                .strip_prefix("parent ")
                .unwrap()
        );
        let exe = Evidence {
            kind: EvidenceKind::Executable,
            showed: "executable /opt/llama-server".into(),
            source: String::new(),
        };
        assert_eq!(exe.shown(Lang::En), "/opt/llama-server");
        let lib = Evidence {
            kind: EvidenceKind::Library,
            showed: "llama.cpp / ggml library /opt/libggml-cuda.so".into(),
            source: String::new(),
        };
        assert_eq!(lib.shown(Lang::En), lib.showed.as_str());
        assert_eq!(back[0].model_file_path(), Some("/m/a b (1).gguf"));
        assert_eq!(back[1].showed, "parent ollama (x) (pid 900)");
        assert_eq!(back[1].parent_of(), Some(("ollama (x)", 900)));
        assert_eq!(back[2].model_file_path(), None);
        assert_eq!(back[0].parent_of(), None);
    }
}
