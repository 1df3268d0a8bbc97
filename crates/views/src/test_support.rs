//! Values the views' tests share.

use gpuledger_model::{Confidence, Workload, WorkloadKind};

/// A llama.cpp server identified with high confidence, serving `model`.
pub(crate) fn llama_workload(model: &str) -> Workload {
    Workload {
        kind: WorkloadKind::LlamaCpp,
        model: Some(model.into()),
        model_name: None,
        confidence: Confidence::High,
        evidence: Vec::new(),
        missing: Vec::new(),
        member: None,
    }
}
