//! A runtime recipe's estimate (vLLM, SGLang, PyTorch): the snapshot's compact
//! [`EstimatedMemory`] and the inputs behind it, each with where it came from (the one
//! [`Input`] type every recipe uses), and how its
//! figures are written ([`gib`], [`thousands`]) in the recipes' sentences and in the rendering.
//! `gpuledger-workloads` computes it; views render it.

use crate::estimate_input::Input;
use crate::EstimatedMemory;
use serde::Serialize;

/// A runtime's estimate: the snapshot's compact form and the inputs behind it.
#[derive(Debug, Clone, PartialEq, Serialize)]
pub struct RuntimeEstimate {
    pub summary: EstimatedMemory,
    pub inputs: Vec<Input>,
}

/// `X.XX GiB`: two decimals, as the runtimes' own logs print them.
pub fn gib(b: u64) -> String {
    format!("{:.2} GiB", b as f64 / (1u64 << 30) as f64)
}

/// 27000 → `27,000`.
pub fn thousands(n: u64) -> String {
    let s = n.to_string();
    let mut out = String::new();
    for (i, c) in s.chars().enumerate() {
        if i > 0 && (s.len() - i).is_multiple_of(3) {
            out.push(',');
        }
        out.push(c);
    }
    out
}
