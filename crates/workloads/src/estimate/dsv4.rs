//! DeepSeek V4's caches: `llama_kv_cache_dsv4` (llama-kv-cache-dsv4.cpp), which
//! `llama_model::create_memory` (llama-model.cpp) builds for `deepseek4` outside MTP drafting.
//!
//! Its constructor makes, each with `type_k` rows and K only (`dsv4_make_k_only` sets the MLA
//! lengths, so `llama_kv_cache` keeps no V), and with one stream per sequence whatever
//! `kv_unified` says (`unified_raw` / `unified_compressed` are false):
//! - the raw cache, a `llama_kv_cache_iswa` of `n_ctx_seq` cells over every layer
//!   (`load_arch_hparams` marks them all sliding-window): its non-SWA half has no layer, its SWA
//!   half the usual window cells (`n_swa + n_ubatch`, one stream each);
//! - three compressed `llama_kv_cache`s of `GGML_PAD(ceil(n_ctx_seq / ratio), 256)` cells: CSA
//!   (ratio 4) and HCA (ratio 128) with the layer's K row on the layers of that
//!   `compress_ratios` entry, and the lightning indexer's on the CSA layers, one head of
//!   `indexer.key_length`;
//! - three `llama_dsv4_comp_state`s over the trunk's layers of that ratio: an f32 `kv` and
//!   `score` tensor each of `n_embd_state x state_size x n_stream`: CSA `2 head_k x 8`, HCA
//!   `head_k x 128`, the indexer's `2 indexer.key_length x 8`.
//!
//! Each layer's rows sit with the layer (`model.dev_layer(il)`), like any KV.

use super::hparams::ModelParams;
use super::parts::{beyond_any_device, cache_row, kv_estimate, Cells, KvSums};
use super::types::EstimateError;
use super::{CompressedCache, IndexerCache, KvEstimate, Plan, Rules};
use crate::gguf::{GgufModel, MetaValue};
use gpuledger_lang::Said;

/// `DSV4_CSA_RATIO`, `DSV4_HCA_RATIO` (llama-kv-cache-dsv4.cpp).
const CSA: u64 = 4;
const HCA: u64 = 128;

/// One cache or state: cells per stream and its bytes per layer (0 where the layer has none).
pub(super) struct Part {
    pub name: &'static str,
    pub cells: u64,
    pub per_layer: Vec<u64>,
}

/// Every part, in the order llama.cpp creates (and prints) them.
pub(super) struct Caches {
    /// The raw cache's window half (its full half has no layer).
    pub raw: Part,
    /// CSA, HCA compressed caches.
    pub compressed: Vec<Part>,
    /// The lightning indexer's compressed cache.
    pub lid: Part,
    /// The compressor states (CSA, HCA, the indexer's).
    pub states: Vec<Part>,
    /// `indexer.key_length`.
    pub idx_dim: u64,
}

/// What the caches are sized from, beside the model's hparams.
pub(super) struct Sizing<'a> {
    pub n_ctx_seq: u64,
    pub n_seq: u64,
    /// The raw cache's window cells for a window of `n_swa` tokens (one stream each).
    pub swa_cells: &'a dyn Fn(u64) -> u64,
    /// Bytes of one `-ctk` row of `n` elements at layer `il`.
    pub k_row: &'a dyn Fn(u64, usize) -> Result<u64, EstimateError>,
}

fn params_err(m: &GgufModel, message: String) -> EstimateError {
    EstimateError::Params(super::hparams::HparamError {
        file: m.path().display().to_string(),
        message: message.into(),
    })
}

/// The caches of a deepseek4 file; `Err` for a key llama.cpp requires and the file lacks.
pub(super) fn caches(m: &GgufModel, p: &ModelParams, z: &Sizing) -> Result<Caches, EstimateError> {
    let nl = p.n_layer as usize;
    let key = |s: &str| format!("{}.{s}", p.arch);
    let u = |s: &str| {
        m.get(&key(s))
            .and_then(MetaValue::as_u64)
            .ok_or_else(|| params_err(m, format!("required key {} is missing", key(s))))
    };
    let n_swa = u("attention.sliding_window")?;
    let idx_dim = u("attention.indexer.key_length")?;
    let rk = key("attention.compress_ratios");
    let ratios: Vec<u64> = match m.get(&rk) {
        Some(MetaValue::Array(a)) => a
            .values
            .as_ref()
            .and_then(|v| v.iter().map(MetaValue::as_u64).collect::<Option<Vec<_>>>())
            .filter(|v| v.len() >= nl)
            .ok_or_else(|| params_err(m, format!("{rk} is shorter than block_count")))?,
        _ => return Err(params_err(m, format!("required key {rk} is missing"))),
    };
    if let Some(r) = ratios[..nl].iter().find(|r| ![0, CSA, HCA].contains(r)) {
        return Err(params_err(
            m,
            format!("{rk}: DeepSeek-V4 supports ratios 0, 4 and 128, not {r}"),
        ));
    }
    let n_trunk = trunk(m, p);
    let head_k = |il: usize| p.head_k[il] * p.n_head_kv[il];
    let streams = z.n_seq;
    let cache = |name, cells: u64, on: &dyn Fn(usize) -> bool, elems: &dyn Fn(usize) -> u64| {
        let per_layer = (0..nl)
            .map(|il| match on(il) {
                true => Ok((z.k_row)(elems(il), il)? * cells * streams),
                false => Ok(0),
            })
            .collect::<Result<_, EstimateError>>()?;
        Ok::<_, EstimateError>(Part {
            name,
            cells,
            per_layer,
        })
    };
    let comp_cells = |ratio: u64| super::pad(z.n_ctx_seq.div_ceil(ratio).max(1), 256);
    let ratios = &ratios;
    let is = |r: u64| move |il: usize| ratios[il] == r;
    let raw = cache("raw", (z.swa_cells)(n_swa), &|_| true, &head_k)?;
    let compressed = vec![
        cache("csa", comp_cells(CSA), &is(CSA), &head_k)?,
        cache("hca", comp_cells(HCA), &is(HCA), &head_k)?,
    ];
    let lid = cache("lid", comp_cells(CSA), &is(CSA), &|_| idx_dim)?;
    // llama_dsv4_comp_state: kv and score, f32, n_embd_state x state_size per stream.
    let hk0 = p.head_k.first().copied().unwrap_or(0);
    let state = |name, ratio: u64, rows: u64, width: u64| Part {
        name,
        cells: rows,
        per_layer: (0..nl)
            .map(|il| match il < n_trunk && ratios[il] == ratio {
                true => 2 * 4 * width * rows * streams,
                false => 0,
            })
            .collect(),
    };
    let states = vec![
        state("csa state", CSA, 2 * CSA, 2 * hk0),
        state("hca state", HCA, HCA, hk0),
        state("lid state", CSA, 2 * CSA, 2 * idx_dim),
    ];
    Ok(Caches {
        raw,
        compressed,
        lid,
        states,
        idx_dim,
    })
}

/// b11434's `build_hc_pre` asserts 4 hyper-connection streams (`GGML_ASSERT(hc == 4)`, models/
/// deepseek4.cpp): a file with another count loads, then aborts when the context reserves its
/// graph.
pub(super) fn hc_note(m: &GgufModel) -> Option<Said> {
    let hc = m
        .get("deepseek4.hyper_connection.count")
        .and_then(MetaValue::as_u64);
    // Without the key llama.cpp refuses the file earlier (a required key).
    hc.filter(|&n| n != 4)
        .map(|has| Said::new("recipe-note-dsv4-hc-abort", vec![("streams", has.into())]))
}

/// `hparams.n_layer()`: block_count less the MTP layers, which `load_arch_hparams` keeps only
/// when the file has their `nextn.eh_proj` tensor.
pub(super) fn trunk(m: &GgufModel, p: &ModelParams) -> usize {
    let nl = p.n_layer as usize;
    let nextn = m
        .get(&format!("{}.nextn_predict_layers", p.arch))
        .and_then(MetaValue::as_u64)
        .unwrap_or(0) as usize;
    let main = nl.saturating_sub(nextn);
    match m.tensor(&format!("blk.{main}.nextn.eh_proj.weight")) {
        Some(_) if nextn > 0 => main,
        _ => nl,
    }
}

/// The KV line of a deepseek4 model: its raw cache stands as the window cache (one stream per
/// sequence, no full-context layer), its lightning indexer's cache as the indexer's, and the
/// compressed caches and compressor states beside them.
pub(super) fn kv_cache(plan: &Plan) -> Result<KvEstimate, EstimateError> {
    let (p, r, s) = (&plan.p, &plan.r, plan.s);
    let on_gpu = |il: usize| s.kv_offload.value && plan.off.layer_on_gpu(il as u32);
    let mut cells = Cells::of(p, r, s);
    let type_k = s.cache_type_k.value;
    let rules = Rules::for_build(s.llama_build.value);
    let swa_cells = |n_swa: u64| match s.swa_full.value {
        true => r.n_ctx_seq,
        false => rules.swa_cells(r.n_ctx_seq, n_swa + r.n_ubatch, r.fa),
    };
    let k_row = |n: u64, il: usize| cache_row(type_k, n, "-ctk", il);
    let z = Sizing {
        n_ctx_seq: r.n_ctx_seq,
        n_seq: r.n_seq,
        swa_cells: &swa_cells,
        k_row: &k_row,
    };
    let c = caches(plan.model, p, &z)?;
    let nl = p.n_layer as usize;
    let mut sums = KvSums {
        per_layer: vec![(0u64, 0u64, false); nl],
        ..KvSums::default()
    };
    let too_big = || beyond_any_device(plan.model.path(), "DeepSeek V4's caches");
    for (il, &k) in c.raw.per_layer.iter().enumerate().filter(|(_, &k)| k > 0) {
        sums.add(k).ok_or_else(too_big)?;
        (sums.k_bytes, sums.swa_bytes) = (sums.k_bytes + k, sums.swa_bytes + k);
        sums.layers_swa += 1;
        sums.place(il, k, 0, on_gpu(il));
    }
    (cells.swa, cells.streams) = (Some(c.raw.cells), r.n_seq);
    let mut part = |x: &Part| -> Result<CompressedCache, EstimateError> {
        for (il, &b) in x.per_layer.iter().enumerate() {
            sums.add(b).ok_or_else(too_big)?;
            *(if on_gpu(il) {
                &mut sums.gpu
            } else {
                &mut sums.host
            }) += b;
        }
        Ok(CompressedCache {
            name: x.name,
            cells: x.cells,
            layers: x.per_layer.iter().filter(|&&b| b > 0).count() as u32,
            bytes: x.per_layer.iter().sum(),
            per_layer: x.per_layer.clone(),
        })
    };
    let lid = part(&c.lid)?;
    let mut compressed = Vec::new();
    for x in c.compressed.iter().chain(&c.states) {
        compressed.push(part(x)?);
    }
    let indexer = IndexerCache {
        kind: "dsv4",
        bytes: lid.bytes,
        k_bytes: lid.bytes,
        v_bytes: 0,
        layers: lid.layers,
        head_size: c.idx_dim,
        per_layer: lid.per_layer,
    };
    Ok(kv_estimate(
        plan,
        sums,
        cells,
        None,
        Some(indexer),
        compressed,
    ))
}
