//! The estimated ledgers as text, each apart from the measured one: the llama.cpp recipe's
//! ([`llama`]), a runtime recipe's ([`runtime`]: vLLM, SGLang, PyTorch), and the estimate a
//! recorded snapshot carries ([`recorded`]); here, the one sentence that puts an estimate beside
//! the driver's measurement.

pub mod llama;
pub mod recorded;
pub mod runtime;

pub use llama::{render_comparison, render_text};

use gpuledger_model::units::human_opt;

/// `measured M {label}vs estimated E: the driver reports D more|less` (no newline): the two
/// figures side by side and how far apart, never one folded into the other.
pub fn measured_vs_estimated(measured: u64, label: &str, estimated: u64) -> String {
    let d = measured as i64 - estimated as i64;
    format!(
        "measured {} {label}vs estimated {}: the driver reports {} {}",
        human_opt(Some(measured)),
        human_opt(Some(estimated)),
        human_opt(Some(d.unsigned_abs())),
        if d >= 0 { "more" } else { "less" },
    )
}
