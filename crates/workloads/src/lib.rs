//! Workloads: what a GPU process is and what it should need.
//!
//! - [`identify`]: evidence chains from executable, command line, libraries, model files, ports;
//! - [`annotate`]: identification on the collection path, cached per process;
//! - [`asking`]: the runtimes' own APIs asked on collection (inline, or in the background);
//! - [`live`]: the runtime's own HTTP answers (loopback only, time-bounded, off the collection path);
//! - [`gguf`]: the GGUF header reader (bounded, buffered, header only);
//! - [`mod@estimate`]: the llama.cpp memory recipe — the *estimated* ledger, in its own types
//!   (`gpuledger_model::llama_estimate`, rendered by `gpuledger_views::estimate`), never mixed
//!   with the measured snapshot;
//! - [`llama_log`]: llama.cpp's own buffer-size log lines (runtime-reported figures);
//! - [`process_estimate`]: the recipe applied to a running process (its model, flags, env);
//! - [`runtimes`]: runtimes beyond llama-server: Ollama's runner and LM Studio's engine (their
//!   llama.cpp settings and figures), vLLM, SGLang and PyTorch (reservation, weights, KV, unknowns);
//! - [`safetensors`]: the safetensors header reader (header only, bounded, sharded models).

pub mod annotate;
pub mod asking;
pub mod confine;
pub mod estimate;
pub mod figures;
pub mod gguf;
pub mod group;
pub mod identify;
pub mod live;
pub mod llama_log;
pub mod process_estimate;
pub mod runtimes;
pub mod safetensors;

pub use estimate::{estimate, Estimate, LlamaSettings};
pub use gguf::{GgufError, GgufModel};
