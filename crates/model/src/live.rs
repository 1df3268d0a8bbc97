//! A model server's live state, from its own HTTP answers on loopback (`gpuledger-workloads`
//! asks; `explain` shows it beside the measured and estimated ledgers).

use serde::Serialize;

#[derive(Debug, Clone, Default, PartialEq, Serialize)]
pub struct LiveState {
    /// `llama-server`, `ollama`, `lm-studio`, `vllm`.
    pub server: String,
    pub port: u16,
    /// The server answered 401: it was started with an API key.
    pub auth_required: bool,
    #[serde(skip_serializing_if = "Option::is_none")]
    pub n_ctx: Option<u64>,
    #[serde(skip_serializing_if = "Option::is_none")]
    pub total_slots: Option<u64>,
    #[serde(skip_serializing_if = "Option::is_none")]
    pub slots_busy: Option<u64>,
    #[serde(skip_serializing_if = "Option::is_none")]
    pub model_path: Option<String>,
    #[serde(skip_serializing_if = "Option::is_none")]
    pub build: Option<String>,
    #[serde(skip_serializing_if = "Option::is_none")]
    pub tokens_per_second: Option<f64>,
    #[serde(skip_serializing_if = "Option::is_none")]
    pub kv_cache_usage_ratio: Option<f64>,
    #[serde(skip_serializing_if = "Vec::is_empty")]
    pub models: Vec<LoadedModel>,
    /// What could not be asked, and why.
    #[serde(skip_serializing_if = "Vec::is_empty")]
    pub unavailable: Vec<String>,
}

/// A model a multi-model server reports as loaded (Ollama `/api/ps`, LM Studio `/api/v0/models`).
#[derive(Debug, Clone, Default, PartialEq, Serialize)]
pub struct LoadedModel {
    pub name: String,
    #[serde(skip_serializing_if = "Option::is_none")]
    pub size_bytes: Option<u64>,
    /// The runtime's own figure for its VRAM use: shown beside estimates, never as a measurement.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub vram_bytes: Option<u64>,
    #[serde(skip_serializing_if = "Option::is_none")]
    pub context_length: Option<u64>,
}
