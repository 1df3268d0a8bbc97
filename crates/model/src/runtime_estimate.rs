//! A runtime recipe's estimate (vLLM, SGLang, PyTorch): the snapshot's compact
//! [`EstimatedMemory`] and the inputs behind it, each with where it came from.
//! `gpuledger-workloads` computes it; views render it.

use crate::EstimatedMemory;
use serde::Serialize;

/// One input of a recipe and its source (`--gpu-memory-utilization`, `default (vLLM source)`,
/// `config.json`, `GET /metrics`).
#[derive(Debug, Clone, PartialEq, Eq, Serialize)]
pub struct Input {
    pub name: String,
    pub value: String,
    pub source: String,
}

impl Input {
    pub fn new(name: &str, value: impl ToString, source: impl Into<String>) -> Input {
        Input {
            name: name.into(),
            value: value.to_string(),
            source: source.into(),
        }
    }
}

/// A runtime's estimate: the snapshot's compact form and the inputs behind it.
#[derive(Debug, Clone, PartialEq, Serialize)]
pub struct RuntimeEstimate {
    pub summary: EstimatedMemory,
    pub inputs: Vec<Input>,
}
