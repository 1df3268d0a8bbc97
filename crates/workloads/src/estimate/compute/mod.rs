//! The compute buffer: llama.cpp reserves its worst-case graph for one micro-batch and sizes each
//! compute buffer by allocating that graph once (`llama_context::sched_reserve` →
//! `ggml_backend_sched_reserve` → `ggml_gallocr`). This module writes that graph down as tensor
//! sizes in llama.cpp's execution order (`llama-graph.cpp`, `src/models/*.cpp`) and replays the
//! allocator over it ([`galloc`](super::galloc)).
//!
//! Exact where the graph is written down op for op (the llama family with optional Q/K norms,
//! Gemma 2/3's extra norms, dense gated FFNs, with or without flash attention, full and
//! sliding-window masks, Mamba-1 blocks, the DSA lightning indexer, MiniMax-M3's MSA, Gemma 3n's
//! AltUp, LAuReL and per-layer inputs, and DeepSeek V4's whole graph);
//! approximate for MoE routing, MLA and other recurrent layers, whose graphs are written more
//! coarsely. The rules that changed between llama.cpp builds are in [`Rules`].
//!
//! Layout: [`layers`] reads the layers' shapes from the tensor table, [`builder`] writes the
//! graph step by step, with the blocks in [`attention`], [`ffn`], [`ssm`], [`dsa`], [`kpool`],
//! [`msa`], [`ple`] and [`gemma3n`]; [`dsv4`] and [`dsv4_compress`] write DeepSeek V4's graph;
//! [`rules`] holds the build-dependent rules.

mod attention;
mod builder;
mod dsa;
mod dsv4;
mod dsv4_compress;
mod ffn;
mod gdn;
mod gemma3n;
mod hybrid;
mod ihc;
mod indexer_inputs;
mod inputs;
mod kpool;
mod layers;
mod mhc;
mod msa;
mod ple;
mod qple;
mod qrwkv;
mod qsa;
mod rules;
mod rwkv;
mod ssm;

use std::collections::HashMap;

use crate::gguf::GgufModel;

use super::galloc::{DeviceBuffer, Split};
use super::hparams::ModelParams;
use builder::{mask_bytes, Builder, Scope};
use layers::{read_layers, widest_row, Layer, Tensors};
pub use rules::{RuleInfo, Rules, RULES};

/// What the compute graph is reserved for (resolved context settings).
#[derive(Debug, Clone)]
pub struct Reserve {
    pub n_ctx: u64,
    pub n_ubatch: u64,
    pub n_seq: u64,
    pub fa: bool,
    /// One KV stream for every sequence (`kv_unified`).
    pub unified: bool,
    /// KV cells per stream of the full and the sliding-window cache.
    pub cells_full: u64,
    pub cells_swa: Option<u64>,
}

/// Where the weights and caches the graph reads are, for the backend scheduler.
#[derive(Debug, Clone)]
pub struct Placement {
    /// The devices' compute buffer types (none: everything on the host); the scheduler splits
    /// the graph between them and the host.
    pub devices: Vec<DeviceBuffer>,
    /// Each repeating layer's weights: on which device (`None`: the host).
    pub layer_device: Vec<Option<u8>>,
    pub output_device: Option<u8>,
    /// Weights a buffer-type override placed, by name: on which device or the host (whatever
    /// their layer's place).
    pub overridden: HashMap<String, Option<u8>>,
    /// Each layer's cache: K bytes, V bytes, on which device (`None`: the host).
    pub kv: Vec<(u64, u64, Option<u8>)>,
    /// Buffer alignment of the host's compute buffer type.
    pub host_align: u64,
    /// Copies of each graph and split input the scheduler keeps: 4 with pipeline parallelism
    /// (`GGML_SCHED_MAX_COPIES`), else 1.
    pub n_copies: u64,
    /// Every layer and the output layer are on devices (`-ngl` > n_layer).
    pub full_offload: bool,
    /// The scheduler keeps the backends the graph's build pinned (not in `--fit`'s projection:
    /// see `Sizing`).
    pub keeps_pins: bool,
    /// DeepSeek V4's compressed caches and compressor states (`dsv4.rs`); `None` for other
    /// models.
    pub dsv4: Option<Dsv4Caches>,
}

/// DeepSeek V4's caches beside the raw window cache (`KvEstimate::compressed` and its
/// lightning indexer's), for the graph that reads and writes them.
#[derive(Debug, Clone)]
pub struct Dsv4Caches {
    /// Name (`csa`, `hca`, `lid`, `csa state`, `hca state`, `lid state`), cells (state rows)
    /// per stream, bytes per layer.
    pub parts: Vec<(&'static str, u64, Vec<u64>)>,
    /// The K rows are quantized (`-ctk`): llama.cpp rotates Q, K and the compressed rows.
    pub quantized: bool,
}

impl Placement {
    /// A GPU backend runs beside the host.
    pub fn device(&self) -> bool {
        !self.devices.is_empty()
    }
}

/// The result, with what the figure rests on.
#[derive(Debug, Clone)]
pub struct ComputeGraph {
    /// Each device's compute buffer, in device order (empty without a device).
    pub device_bytes: Vec<u64>,
    /// The host's compute buffer (the only one on the CPU backend).
    pub host_bytes: u64,
    pub n_tokens: u64,
    pub n_outputs: u64,
    /// The largest intermediate tensors (for the explanation).
    pub logits_bytes: u64,
    pub mask_bytes: u64,
    /// Parts of the graph written coarsely (MoE routing, MLA, recurrent), as the catalogue keys
    /// of their sentences (`recipe-approx-*`): empty when exact.
    pub approximate_parts: Vec<&'static str>,
    /// The backend scheduler's splits of the graph, in order.
    pub splits: Vec<Split>,
}

const F32: u64 = 4;
/// No tensor of a real graph comes near 16 TiB; beyond it a header is not describing a model.
const MAX_TENSOR: u128 = 1 << 44;
/// Real models have at most a few hundred layers.
const MAX_LAYERS: usize = 4096;

/// Whether the replay writes the architecture's sparse-attention indexer: the DSA lightning
/// indexer ([`dsa`]), glm5-next's k-pool indexer ([`kpool`]), MiniMax-M3's block indexer
/// ([`msa`]) or qwen4exp's QSA ([`qsa`]).
pub fn indexer_replayed(arch: &str) -> bool {
    dsa::replayed(arch) || matches!(arch, "minimax-m3" | "glm5-next" | "qwen4exp")
}

/// Reserve the worst-case prompt-processing graph as llama-server does and replay its allocation.
pub fn reserve(
    model: &GgufModel,
    p: &ModelParams,
    r: &Reserve,
    rules: Rules,
    place: &Placement,
) -> ComputeGraph {
    let tensors = Tensors::new(model);
    let mut layers = read_layers(model, p, &tensors);
    // graniteswitch's router layer has no tensors and runs before layer 0 (models/
    // granite-switch.cpp: its one-head attention over the adapter tokens): not replayed.
    let router = super::archs::router_layer(&p.arch) && layers.pop().is_some();
    // sched_reserve: n_tokens = min(n_ctx, n_ubatch), a multiple of the sequences; one output
    // per sequence (server) or every token (older builds).
    let n_seq = r.n_seq.max(1);
    let n_tokens = super::pad(r.n_ctx.min(r.n_ubatch).max(1), n_seq);
    let n_outputs = if rules.outputs_per_seq {
        n_tokens.min(n_seq)
    } else {
        n_tokens
    };
    if let Some(g) = beyond_any_device(p, r, place, &layers, (n_tokens, n_outputs)) {
        return g;
    }
    let masks = mask_bytes(&layers, r, rules, n_tokens);
    let scope = Scope {
        model,
        p,
        r,
        rules,
        place,
        tensors: &tensors,
        layers: &layers,
    };
    let mut b = Builder::new(scope, (n_tokens, n_outputs));
    if let Some(logits_bytes) = b.dsv4_graph() {
        return finish(b, place, (n_tokens, n_outputs), logits_bytes, masks);
    }
    if router {
        b.approximate("recipe-approx-adapter-router-one-head");
    }
    b.inputs(masks);
    let mut x = b.embeddings();
    b.per_layer_inputs(x);
    x = b.mhc_init(x);
    x = b.altup_init(x);
    for il in 0..b.graph_layers() {
        x = b.layer(il, x);
    }
    let x = b.mhc_head(x);
    let x = b.altup_merge(x);
    let logits_bytes = b.output(x);
    finish(b, place, (n_tokens, n_outputs), logits_bytes, masks)
}

/// The allocator's replay of the written graph.
fn finish(
    b: Builder,
    place: &Placement,
    (n_tokens, n_outputs): (u64, u64),
    logits_bytes: u64,
    masks: [Option<u64>; 2],
) -> ComputeGraph {
    let buffers =
        b.g.buffer_sizes(&place.devices, place.host_align, place.n_copies);
    ComputeGraph {
        device_bytes: buffers.devices,
        host_bytes: buffers.host,
        n_tokens,
        n_outputs,
        logits_bytes,
        mask_bytes: masks[0].unwrap_or(0) + masks[1].unwrap_or(0),
        approximate_parts: b.approx,
        splits: buffers.splits,
    }
}

/// A header can claim sizes no device holds (hostile or corrupt): every tensor the graph would
/// create is bounded before doing arithmetic on them, and such a graph is not replayed; its
/// figure is then the largest single tensor.
fn beyond_any_device(
    p: &ModelParams,
    r: &Reserve,
    place: &Placement,
    layers: &[Layer],
    (n_tokens, n_outputs): (u64, u64),
) -> Option<ComputeGraph> {
    let cells = r.cells_full.max(r.cells_swa.unwrap_or(0)) as u128;
    let largest = widest_row(layers, p, cells) * n_tokens as u128 * 8;
    if largest <= MAX_TENSOR && layers.len() <= MAX_LAYERS {
        return None;
    }
    let largest = u64::try_from(largest).unwrap_or(u64::MAX);
    Some(ComputeGraph {
        device_bytes: vec![largest; place.devices.len()],
        host_bytes: largest,
        n_tokens,
        n_outputs,
        logits_bytes: u64::try_from(p.n_vocab as u128 * n_outputs as u128 * 4).unwrap_or(u64::MAX),
        mask_bytes: 0,
        approximate_parts: vec!["recipe-approx-header-beyond-any-device"],
        splits: Vec::new(),
    })
}
