//! The estimate's error type. The estimate's own types (each line with its inputs and their
//! sources) live in `gpuledger_model::llama_estimate`, so views render them without this crate;
//! they are re-exported here under their old paths.

use super::HparamError;
use gpuledger_lang::Said;

pub use gpuledger_model::llama_estimate::{
    CompressedCache, ComputeEstimate, ContextEstimate, DeviceShare, Estimate, FitOutcome, FitProbe,
    FitReplay, FitStage, FitStep, IndexerCache, KvEstimate, ModelSummary, OutputEstimate,
    OverheadEstimate, TensorOverrideEstimate, WeightsEstimate,
};

#[derive(Debug, thiserror::Error)]
pub enum EstimateError {
    #[error(transparent)]
    Params(#[from] HparamError),
    /// Settings llama.cpp refuses (or that it cannot size), as a sentence.
    #[error("{0}")]
    Settings(Said),
}

impl EstimateError {
    /// The error as a sentence each view says in its language (a header's problem stays in
    /// the GGUF reader's words).
    pub fn said(&self) -> Said {
        match self {
            EstimateError::Params(e) => {
                let safe = |t: &str| gpuledger_model::term_safe(t).to_string();
                let args = vec![
                    ("file", safe(&e.file).into()),
                    ("message", e.message.map_text(&safe).into()),
                ];
                Said::new("recipe-err-header", args)
            }
            EstimateError::Settings(s) => s.clone(),
        }
    }
}
