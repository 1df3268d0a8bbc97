//! The estimate's error type. The estimate's own types (each line with its inputs and their
//! sources) live in `gpuledger_model::llama_estimate`, so views render them without this crate;
//! they are re-exported here under their old paths.

use super::HparamError;

pub use gpuledger_model::llama_estimate::{
    CompressedCache, ComputeEstimate, ContextEstimate, DeviceShare, Estimate, FitOutcome, FitProbe,
    FitReplay, FitStage, FitStep, IndexerCache, KvEstimate, ModelSummary, OutputEstimate,
    OverheadEstimate, TensorOverrideEstimate, WeightsEstimate,
};

#[derive(Debug, thiserror::Error)]
pub enum EstimateError {
    #[error(transparent)]
    Params(#[from] HparamError),
    #[error("{0}")]
    Settings(String),
}
