//! vLLM serving a GGUF file (`vllm serve ./model.gguf`, `--quantization gguf`): no
//! `config.json` or safetensors beside it, so the weights and the attention shape come from the
//! GGUF header. vLLM keeps GGUF's quantised blocks on the GPU (its GGUF kernels dequantise on the
//! fly), so the weights are the header's tensor bytes, split over the ranks like any other.

use crate::gguf::GgufModel;
use crate::runtimes::hf::{in_process_root, LayerKinds, ModelConfig};
use crate::runtimes::reservation::{GgufWeights, ModelFacts};
use crate::runtimes::ProcessContext;
use std::path::Path;

/// Does the command line serve a GGUF file?
pub fn serves_gguf(model: &str, quantization: Option<&str>) -> bool {
    quantization.is_some_and(|q| q.eq_ignore_ascii_case("gguf"))
        || model.to_ascii_lowercase().ends_with(".gguf")
}

/// The model's facts from its GGUF header (the file as the process sees it, through its root).
pub fn read(model: &str, ctx: &ProcessContext) -> Result<ModelFacts, String> {
    let p = Path::new(model);
    let own = match (p.is_absolute(), &ctx.cwd) {
        (true, _) => p.to_path_buf(),
        (false, Some(c)) => c.join(p),
        (false, None) => {
            return Err(format!(
                "vLLM serves the GGUF file {model:?}, a relative path, and the process's working directory is not known"
            ))
        }
    };
    let path = in_process_root(ctx.proc_root, ctx.pid, &own);
    if !path.is_file() {
        return Err(format!(
            "vLLM serves a GGUF model ({model}), which is not a file this machine can read: its weights come from the GGUF header, and a hub id or a folder of GGUF files is not modelled"
        ));
    }
    let g =
        GgufModel::open(&path).map_err(|e| format!("cannot read the model's GGUF header: {e}"))?;
    facts(&g, &own)
}

/// The facts of an opened header; `shown` is the path as the process has it.
pub fn facts(g: &GgufModel, shown: &Path) -> Result<ModelFacts, String> {
    let config = config(g, shown)?;
    let weights = GgufWeights {
        bytes: g.tensors().fold(0u64, |a, t| a.saturating_add(t.n_bytes)),
        tensors: g.tensors().count() as u64,
        parts: g.parts.len() as u64,
    };
    Ok(ModelFacts {
        dir: shown.to_path_buf(),
        found: "GGUF file on the command line".into(),
        config,
        weights: crate::safetensors::Model {
            path: shown.to_path_buf(),
            files: vec![],
            index_total_size: None,
            aliases: 0,
        },
        gguf: Some(weights),
    })
}

/// What the KV recipe needs, from `{arch}.block_count`, `.attention.head_count(_kv)`,
/// `.attention.key_length` (else `embedding_length / head_count`).
fn config(g: &GgufModel, shown: &Path) -> Result<ModelConfig, String> {
    let arch = g
        .architecture()
        .ok_or_else(|| format!("{}: no general.architecture", shown.display()))?;
    let key = |k: &str| format!("{arch}.{k}");
    let num = |k: &str| g.get_u64(&key(k));
    let missing = |k: &str| format!("{}: no {}", shown.display(), key(k));
    let n_layer = num("block_count").ok_or_else(|| missing("block_count"))?;
    let n_head = num("attention.head_count").ok_or_else(|| missing("attention.head_count"))?;
    // A per-layer array (some hybrid models) reads as no single figure: the heads then.
    let n_kv_head = num("attention.head_count_kv").unwrap_or(n_head);
    let head_dim = match num("attention.key_length") {
        Some(h) => h,
        None => num("embedding_length").ok_or_else(|| missing("embedding_length"))? / n_head.max(1),
    };
    if n_layer == 0 || n_layer > 100_000 || n_head == 0 || n_head > 100_000 {
        return Err(format!(
            "{}: implausible {} {n_layer} / {} {n_head}",
            shown.display(),
            key("block_count"),
            key("attention.head_count")
        ));
    }
    if head_dim == 0 || head_dim > 1 << 20 || n_kv_head == 0 || n_kv_head > 100_000 {
        return Err(format!(
            "{}: implausible head size {head_dim} / KV heads {n_kv_head}",
            shown.display()
        ));
    }
    Ok(ModelConfig {
        path: shown.to_path_buf(),
        model_type: Some(arch.to_string()),
        n_layer,
        n_head,
        n_kv_head,
        head_dim,
        dtype: None,
        mla_dim: None,
        quant_method: Some("gguf".into()),
        max_position_embeddings: num("context_length"),
        moe_experts: num("expert_count"),
        hidden_size: num("embedding_length"),
        moe_intermediate: num("expert_feed_forward_length"),
        layers: layers(arch, n_layer, num("attention.sliding_window")),
    })
}

/// Gemma 2 and 3 as vLLM lays them out; another architecture with a window is named as a
/// kind the recipe does not size.
fn layers(arch: &str, n: u64, window: Option<u64>) -> Option<LayerKinds> {
    let kinds = |full: u64, sliding: u64, other: u64, source: &str| LayerKinds {
        full,
        sliding,
        other,
        other_names: if other > 0 {
            vec![format!("{arch} sliding window (GGUF)")]
        } else {
            vec![]
        },
        window,
        source: source.into(),
    };
    match arch {
        "gemma3" => Some(kinds(n / 6, n - n / 6, 0, "gemma3: every 6th layer full")),
        "gemma2" => Some(kinds(
            n / 2,
            n - n / 2,
            0,
            "gemma2: every other layer windowed",
        )),
        _ if window.is_some() => Some(kinds(0, 0, n, "GGUF attention.sliding_window")),
        _ => None,
    }
}
