//! gpuledger's AI-workload side: the GGUF header reader, the llama.cpp memory recipe (the
//! *estimated* ledger, kept apart from the measured snapshot types) and a parser for llama.cpp's
//! own buffer-size log lines (runtime-reported figures to show beside the estimate).

pub mod estimate;
pub mod gguf;
pub mod llama_log;

pub use estimate::{estimate, render_text, Estimate, LlamaSettings};
pub use gguf::{GgufError, GgufModel};
