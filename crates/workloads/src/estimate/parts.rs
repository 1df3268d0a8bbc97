//! The lines of the estimate, one entry function each: weights (which tensors `-ngl` puts on the
//! device), the KV cache (cells, streams, layers, types) and the runtime overhead; the compute
//! buffers are in `compute_line`.

use gpuledger_lang::Said;

use super::Plan;
use super::{
    device_bytes, pad, Backend, CacheKind, CompressedCache, EstimateError, GgmlType, HparamError,
    IndexerCache, IndexerKind, KvEstimate, LlamaSettings, ModelParams, OverheadEstimate, Resolved,
    Rules, TensorInfo, WeightsEstimate, MIB,
};
use std::path::Path;

/// The weights on the GPU and on the host, tensor by tensor: each where its layer is (`-ngl`)
/// unless a buffer-type override placed it.
pub(super) fn weights(plan: &Plan) -> (WeightsEstimate, Vec<u64>) {
    let (model, off, nl) = (plan.model, &plan.off, plan.p.n_layer);
    let (backend, mmap) = (plan.s.backend.value, plan.s.mmap.value);
    let mut dev = DeviceWeights::new(off, backend, mmap);
    let mut host = 0u64;
    let tied = model.tensor("output.weight").is_none();
    let mut tied_copy = 0;
    for part in &model.parts {
        // With mmap the host buffer is a view of the mapping: from the first to the last host
        // tensor of the file ("CPU_Mapped model buffer size").
        let mut lo = u64::MAX;
        let mut hi = 0u64;
        let mut host_tensor = |t: &TensorInfo, host: &mut u64| {
            if mmap {
                lo = lo.min(t.offset);
                hi = hi.max(t.offset + t.n_bytes);
            } else {
                *host += pad(t.n_bytes, 32);
            }
        };
        for t in &part.tensors {
            if mtp_skipped(&plan.p, t) {
                continue;
            }
            if off.tensor_on_gpu(t) {
                dev.add(t, off.tensor_device(t));
            } else {
                host_tensor(t, &mut host);
            }
            if tied && t.name == "token_embd.weight" && off.output_on_gpu {
                // TENSOR_DUPLICATED: the output layer gets its own copy of the embeddings, on
                // the output layer's device (or where an override of token_embd puts it).
                if off.tied_copy_on_gpu() {
                    let d = off.tied_copy_device();
                    tied_copy = dev.add(t, d);
                } else {
                    host_tensor(t, &mut host);
                }
            }
        }
        if mmap && hi > lo {
            host += hi - lo;
        }
        dev.end_file();
    }
    let per_dev = dev.bytes;
    let gpu = per_dev.iter().fold(0u64, |a, &x| a.saturating_add(x));
    let mut inputs: Vec<String> = vec![
        "-ngl".into(),
        "n_layer".into(),
        "backend".into(),
        "tensor table".into(),
    ];
    inputs.extend(off.effects.iter().map(|e| e.given.clone()));
    let w = WeightsEstimate {
        gpu_bytes: gpu,
        host_bytes: host,
        gpu_layers: off.gpu_layers,
        n_layer: nl,
        output_on_gpu: off.output_on_gpu,
        tied_output_copy_bytes: tied_copy,
        overrides: off.effects.clone(),
        inputs,
    };
    (w, per_dev)
}

/// Each device's weights buffer. llama_model::load_tensors: with mmap, a device whose buffer type
/// can wrap host memory (props.caps.buffer_from_host_ptr: Metal's; not CUDA's nor Vulkan's at
/// b11434) gets one buffer per file over the mapping from its first to its last tensor
/// (get_mapping_range): `MTL0_Mapped` then also holds whatever lies between them in the file,
/// the host's token embeddings included.
struct DeviceWeights {
    bytes: Vec<u64>,
    /// Whether the device's buffer is a file range; the range of the current file.
    mapped: Vec<bool>,
    span: Vec<(u64, u64)>,
    kinds: Vec<Backend>,
    backend: Backend,
}

impl DeviceWeights {
    fn new(off: &super::Offload, backend: Backend, mmap: bool) -> DeviceWeights {
        let n = off.devices.len();
        DeviceWeights {
            bytes: vec![0; n],
            mapped: off
                .devices
                .iter()
                .map(|d| mmap && d.kind == Backend::Metal && d.endpoint.is_none())
                .collect(),
            span: vec![(u64::MAX, 0); n],
            kinds: off.devices.iter().map(|d| d.kind).collect(),
            backend,
        }
    }

    /// Tensor `t` on device `d`: its bytes in that device's buffer type.
    fn add(&mut self, t: &TensorInfo, d: u8) -> u64 {
        let d = d as usize;
        let b = device_bytes(t, self.kinds.get(d).copied().unwrap_or(self.backend));
        if self.mapped.get(d).copied().unwrap_or(false) {
            let (lo, hi) = &mut self.span[d];
            *lo = (*lo).min(t.offset);
            *hi = (*hi).max(t.offset + t.n_bytes);
        } else if let Some(x) = self.bytes.get_mut(d) {
            *x += b;
        }
        b
    }

    /// The end of a file: each mapped device's range is a buffer.
    fn end_file(&mut self) {
        for (x, (lo, hi)) in self.bytes.iter_mut().zip(self.span.iter_mut()) {
            *x += hi.saturating_sub(*lo);
            (*lo, *hi) = (u64::MAX, 0);
        }
    }
}

/// A tensor of an MTP layer llama-server does not load (`ModelParams::mtp_skipped_from`).
fn mtp_skipped(p: &ModelParams, t: &TensorInfo) -> bool {
    let (Some(from), super::Place::Layer(il)) = (p.mtp_skipped_from, super::place_of(t)) else {
        return false;
    };
    let rest = t.name.splitn(3, '.').nth(2).unwrap_or("");
    let stem = rest
        .strip_suffix(".weight")
        .or_else(|| rest.strip_suffix(".bias"))
        .unwrap_or(rest);
    il >= from && !super::archs::mtp_tensor_loads(&p.arch, stem)
}

/// Cells per stream of the full and the sliding-window cache, and the streams.
pub(super) struct Cells {
    pub streams: u64,
    pub full: u64,
    pub swa: Option<u64>,
}

impl Cells {
    pub(super) fn of(p: &ModelParams, r: &Resolved, s: &LlamaSettings) -> Cells {
        let full = r.n_ctx_seq;
        let any_swa = p.cache == CacheKind::Iswa
            || (p.cache == CacheKind::Hybrid && p.swa_layers.iter().any(|&b| b));
        let swa = any_swa.then(|| {
            if s.swa_full.value {
                full
            } else {
                let window = p.n_swa * if r.unified { r.n_seq } else { 1 } + r.n_ubatch;
                let rules = Rules::for_build(s.llama_build.value);
                rules.swa_cells(full, window, r.fa)
            }
        });
        Cells {
            streams: if r.unified { 1 } else { r.n_seq },
            full,
            swa,
        }
    }
}

/// The cache's bytes as the layers add them up.
#[derive(Default)]
pub(super) struct KvSums {
    /// Every byte below, checked against 64 bits as it is added: the other sums are parts of it,
    /// so they cannot overflow once it did not.
    pub bytes: u64,
    pub k_bytes: u64,
    pub v_bytes: u64,
    pub gpu: u64,
    pub host: u64,
    pub layers_full: u32,
    pub layers_swa: u32,
    pub full_bytes: u64,
    pub swa_bytes: u64,
    pub per_layer: Vec<(u64, u64, bool)>,
}

impl KvSums {
    /// Count `n` more bytes in the total; `None` when the total leaves 64 bits.
    pub(super) fn add(&mut self, n: u64) -> Option<()> {
        self.bytes = self.bytes.checked_add(n)?;
        Some(())
    }

    /// Layer `il` keeps `k` + `v` bytes (already in the total), on the device or the host.
    pub(super) fn place(&mut self, il: usize, k: u64, v: u64, on_gpu: bool) {
        self.per_layer[il] = (k, v, on_gpu);
        if on_gpu {
            self.gpu += k + v;
        } else {
            self.host += k + v;
        }
    }
}

/// A cache whose size leaves 64 bits: only a hostile or corrupt header claims one (each of its
/// sizes may pass `check_plausible`, their product not).
pub(super) fn beyond_any_device(file: &Path, what: &str) -> EstimateError {
    EstimateError::Params(HparamError {
        file: file.display().to_string(),
        message: Said::new("recipe-hdr-beyond-64", vec![("what", what.into())]),
    })
}

pub(super) fn kv_cache(plan: &Plan) -> Result<KvEstimate, EstimateError> {
    let (p, r, s) = (&plan.p, &plan.r, plan.s);
    let file = plan.model.path();
    let (type_k, type_v) = (s.cache_type_k.value, s.cache_type_v.value);
    let cells = Cells::of(p, r, s);
    let on_gpu = |il: usize| s.kv_offload.value && plan.off.layer_on_gpu(il as u32);
    let mut sums = attention_kv(p, r.fa, &cells, (file, &on_gpu), (type_k, type_v))?;
    let recurrent_bytes = recurrent_state(p, r, (file, &on_gpu), &mut sums)?;
    let indexer = indexer_cache(
        p,
        r.fa,
        &cells,
        (file, &on_gpu),
        (type_k, type_v),
        &mut sums,
    )?;
    Ok(kv_estimate(
        plan,
        sums,
        cells,
        recurrent_bytes,
        indexer,
        Vec::new(),
    ))
}

/// The KV line from the summed caches.
pub(super) fn kv_estimate(
    plan: &Plan,
    sums: KvSums,
    cells: Cells,
    recurrent_bytes: Option<u64>,
    indexer: Option<IndexerCache>,
    compressed: Vec<CompressedCache>,
) -> KvEstimate {
    let (type_k, type_v) = (plan.s.cache_type_k.value, plan.s.cache_type_v.value);
    KvEstimate {
        bytes: sums.bytes,
        gpu_bytes: sums.gpu,
        host_bytes: sums.host,
        k_bytes: sums.k_bytes,
        v_bytes: sums.v_bytes,
        full_bytes: sums.full_bytes,
        swa_bytes: sums.swa_bytes,
        cells_full: cells.full,
        cells_swa: cells.swa,
        streams: cells.streams,
        layers_full: sums.layers_full,
        layers_swa: sums.layers_swa,
        recurrent_bytes,
        indexer,
        compressed,
        type_k: type_k.lower_name(),
        type_v: type_v.lower_name(),
        per_layer: sums.per_layer,
        inputs: vec![
            "n_ctx".into(),
            "-np".into(),
            "kv_unified".into(),
            "n_head_kv".into(),
            "key_length".into(),
            "value_length".into(),
            "n_swa".into(),
            "swa_pattern".into(),
            "-ctk".into(),
            "-ctv".into(),
            "-ub".into(),
        ],
    }
}

/// Bytes of one cache row of `n` elements stored as `-ctk`/`-ctv` type `t`: llama.cpp sizes it
/// with ggml_row_size, which needs whole blocks, so a type whose block does not divide the row
/// is one llama.cpp cannot run (not a layer of 0 bytes).
pub(super) fn cache_row(t: GgmlType, n: u64, flag: &str, il: usize) -> Result<u64, EstimateError> {
    t.row_bytes(n).ok_or_else(|| {
        EstimateError::Settings(Said::new(
            "recipe-err-cache-row-blocks",
            vec![
                ("flag", flag.into()),
                ("type", t.lower_name().into()),
                ("layer", il.to_string().into()),
                ("n", n.to_string().into()),
                ("block", t.block_size.to_string().into()),
            ],
        ))
    })
}

/// K and V of every attention layer: its cells (full or sliding-window, per stream) times its
/// row bytes of each type.
fn attention_kv(
    p: &ModelParams,
    fa: bool,
    cells: &Cells,
    (file, on_gpu): (&Path, &dyn Fn(usize) -> bool),
    (type_k, type_v): (GgmlType, GgmlType),
) -> Result<KvSums, EstimateError> {
    let nl = p.n_layer as usize;
    let kv_layers = || (0..nl).filter(|&il| p.has_kv[il]);
    // V is stored transposed without flash attention; then every layer uses the widest V.
    let v_max = kv_layers()
        .map(|il| p.head_v[il] * p.n_head_kv[il])
        .max()
        .unwrap_or(0);
    let mut sums = KvSums {
        per_layer: vec![(0u64, 0u64, false); nl],
        ..KvSums::default()
    };
    for il in kv_layers() {
        let swa = p.swa_layers[il] && cells.swa.is_some();
        let n_cells = if swa {
            cells.swa.unwrap_or(cells.full)
        } else {
            cells.full
        } * cells.streams;
        let k_el = p.head_k[il] * p.n_head_kv[il];
        let v_el = if fa {
            p.head_v[il] * p.n_head_kv[il]
        } else {
            v_max
        };
        let too_big = || beyond_any_device(file, &format!("layer {il}'s KV cache"));
        let k = cache_row(type_k, k_el, "-ctk", il)?
            .checked_mul(n_cells)
            .ok_or_else(too_big)?;
        let v = if p.is_mla {
            0
        } else {
            cache_row(type_v, v_el, "-ctv", il)?
                .checked_mul(n_cells)
                .ok_or_else(too_big)?
        };
        sums.add(k).and_then(|()| sums.add(v)).ok_or_else(too_big)?;
        sums.k_bytes += k;
        sums.v_bytes += v;
        if swa {
            sums.layers_swa += 1;
            sums.swa_bytes += k + v;
        } else {
            sums.layers_full += 1;
            sums.full_bytes += k + v;
        }
        sums.place(il, k, v, on_gpu(il));
    }
    Ok(sums)
}

/// The sparse-attention indexer's cache (`indexer.rs`): the main cache's cells and streams,
/// `-ctk`/`-ctv` rows of its one-head K (and MSA's V), with its layer like the KV. Counted in the
/// totals and the device/host split, not in the per-layer K/V the compute graph reads.
fn indexer_cache(
    p: &ModelParams,
    fa: bool,
    cells: &Cells,
    (file, on_gpu): (&Path, &dyn Fn(usize) -> bool),
    (type_k, type_v): (GgmlType, GgmlType),
    sums: &mut KvSums,
) -> Result<Option<IndexerCache>, EstimateError> {
    let Some(ix) = &p.indexer else {
        return Ok(None);
    };
    let nl = p.n_layer as usize;
    let v_max = p.head_v.iter().copied().max().unwrap_or(0);
    let n_cells = cells.full * cells.streams;
    let too_big = || beyond_any_device(file, "the indexer cache");
    let mut c = IndexerCache {
        kind: match ix.kind {
            IndexerKind::Dsa => "dsa",
            IndexerKind::Msa => "msa",
            IndexerKind::Qsa => "qsa",
        },
        bytes: 0,
        k_bytes: 0,
        v_bytes: 0,
        layers: 0,
        head_size: ix.head_size.saturating_mul(ix.kpool_row),
        per_layer: vec![0; nl],
    };
    for il in (0..nl).filter(|&il| ix.layers.get(il).copied().unwrap_or(false)) {
        let (k_el, v_el) = ix.row_elems(p.head_v[il], v_max, fa);
        let k = cache_row(type_k, k_el, "-ctk", il)?
            .checked_mul(n_cells)
            .ok_or_else(too_big)?;
        let v = if v_el == 0 {
            0
        } else {
            cache_row(type_v, v_el, "-ctv", il)?
                .checked_mul(n_cells)
                .ok_or_else(too_big)?
        };
        sums.add(k).and_then(|()| sums.add(v)).ok_or_else(too_big)?;
        if on_gpu(il) {
            sums.gpu += k + v;
        } else {
            sums.host += k + v;
        }
        c.k_bytes += k;
        c.v_bytes += v;
        c.bytes += k + v;
        c.layers += 1;
        c.per_layer[il] = k + v;
    }
    Ok(Some(c))
}

/// The recurrent state (one per sequence), which lives with its layer like the KV.
fn recurrent_state(
    p: &ModelParams,
    r: &Resolved,
    (file, on_gpu): (&Path, &dyn Fn(usize) -> bool),
    sums: &mut KvSums,
) -> Result<Option<u64>, EstimateError> {
    let Some(rs) = p.rs_elems_per_layer else {
        return Ok(None);
    };
    let layers = p.recurrent.iter().filter(|&&b| b).count() as u64;
    let too_big = || beyond_any_device(file, "the recurrent state");
    // f32 elements, one state per sequence, per recurrent layer.
    let rb = [4, r.n_seq.max(1), layers]
        .into_iter()
        .try_fold(rs, u64::checked_mul)
        .ok_or_else(too_big)?;
    sums.add(rb).ok_or_else(too_big)?;
    let per_layer_rs = rb / layers.max(1);
    for (il, _) in p.recurrent.iter().enumerate().filter(|(_, &b)| b) {
        sums.place(il, per_layer_rs, 0, on_gpu(il));
    }
    // qwen4exp's PLE conv history: a third f32 row per cell on its layer (`qsa::ple_state`).
    let Some((il, elems)) = p.ple_state else {
        return Ok(Some(rb));
    };
    let pb = [4, r.n_seq.max(1)]
        .into_iter()
        .try_fold(elems, u64::checked_mul)
        .ok_or_else(too_big)?;
    sums.add(pb).ok_or_else(too_big)?;
    let (k, v, dev) = sums.per_layer[il];
    sums.per_layer[il] = (k + pb, v, dev);
    if on_gpu(il) {
        sums.gpu += pb;
    } else {
        sums.host += pb;
    }
    Ok(Some(rb + pb))
}

pub(super) fn overhead(backend: Backend) -> OverheadEstimate {
    match backend {
        Backend::Cuda => OverheadEstimate {
            gpu_bytes: Some(300 * MIB),
            approximate: true,
            what: Said::new("recipe-overhead-cuda", vec![]),
            range: Some((128 * MIB, 512 * MIB)),
        },
        Backend::Rocm => OverheadEstimate {
            gpu_bytes: Some(300 * MIB),
            approximate: true,
            what: Said::new("recipe-overhead-rocm", vec![]),
            range: Some((128 * MIB, 512 * MIB)),
        },
        Backend::Metal => OverheadEstimate {
            gpu_bytes: None,
            approximate: true,
            what: Said::new("recipe-overhead-metal", vec![]),
            range: None,
        },
        Backend::Vulkan => OverheadEstimate {
            gpu_bytes: None,
            approximate: true,
            what: Said::new("recipe-overhead-vulkan", vec![]),
            range: None,
        },
        Backend::Cpu => OverheadEstimate {
            gpu_bytes: Some(0),
            approximate: false,
            what: Said::new("recipe-overhead-cpu", vec![]),
            range: None,
        },
    }
}
