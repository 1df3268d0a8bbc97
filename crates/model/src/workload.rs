//! What a process is, as a conclusion built from evidence (DESIGN concept 5). Identification
//! itself lives in the workloads crate; these are the types a snapshot carries.

use serde::{Deserialize, Serialize};

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

    /// Runtimes whose memory the estimated ledger can model.
    pub fn is_ai(self) -> bool {
        matches!(
            self,
            WorkloadKind::LlamaCpp
                | WorkloadKind::Ollama
                | WorkloadKind::OllamaRunner
                | WorkloadKind::LmStudio
                | WorkloadKind::Vllm
                | WorkloadKind::Pytorch
                | WorkloadKind::Mlx
                | WorkloadKind::Comfyui
        )
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
    pub showed: String,
    pub source: String,
}

#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct Workload {
    pub kind: WorkloadKind,
    /// Model file or name, when known.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub model: Option<String>,
    pub confidence: Confidence,
    pub evidence: Vec<Evidence>,
    /// Links of the chain that were looked for and not found.
    #[serde(default, skip_serializing_if = "Vec::is_empty")]
    pub missing: Vec<String>,
}

impl Workload {
    /// `llama.cpp · Qwen3-8B-Q4_K_M` for tables.
    pub fn short_label(&self) -> String {
        match &self.model {
            Some(m) => {
                let base = m.rsplit(['/', '\\']).next().unwrap_or(m);
                let base = base.strip_suffix(".gguf").unwrap_or(base);
                format!("{} · {base}", self.kind.label())
            }
            None => self.kind.label().to_string(),
        }
    }
}
