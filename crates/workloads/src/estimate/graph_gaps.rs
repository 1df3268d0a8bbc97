//! Parts of an architecture's compute graph that the replay (`compute`) does not build, named
//! from the tensors that need them, so the compute line says it is approximate and why instead
//! of passing a partial graph off as exact.

use crate::gguf::GgufModel;
use gpuledger_lang::Said;

use super::hparams::ModelParams;
use super::indexer::{IndexerKind, IndexerParams};

/// One sentence per graph part the replay leaves out for this model.
pub(super) fn missing_parts(model: &GgufModel, p: &ModelParams) -> Vec<Said> {
    let mut out: Vec<Said> = legacy_latent(model, p).into_iter().collect();
    if !p.arch_known {
        out.push(Said::new(
            "recipe-approx-unknown-arch",
            vec![("arch", p.arch.clone().into())],
        ));
    }
    // Replayed: compute/dsa.rs (DSA), compute/kpool.rs (glm5-next), compute/msa.rs (MSA),
    // compute/qsa.rs (qwen4exp).
    let replayed = super::compute::indexer_replayed(&p.arch);
    if let Some(ix) = p.indexer.as_ref().filter(|_| !replayed) {
        out.push(unreplayed_indexer(ix));
    }
    // `hyper_connection.count` copies of the hidden state, mixed by hc_attn_fn/hc_ffn_fn:
    // replayed for glm5-next (mHC, compute/mhc.rs), hy_v4 (iHC, compute/ihc.rs), qwen4exp
    // (compute/mhc.rs) and deepseek4 (compute/dsv4.rs).
    if model.tensor("blk.0.hc_attn_fn.weight").is_some()
        && !matches!(
            p.arch.as_str(),
            "deepseek4" | "qwen4exp" | "glm5-next" | "hy_v4"
        )
    {
        out.push(Said::new("recipe-approx-hyper-connections", vec![]));
    }
    // models/gemma3n.cpp: AltUp keeps n_altup copies of the hidden state through every layer
    // (predict / correct) and LAuReL adds a low-rank residual: replayed for gemma3n
    // (compute/gemma3n.rs); said for any other architecture with AltUp tensors.
    if model.tensor("altup_proj.weight").is_some() && p.arch != "gemma3n" {
        out.push(Said::new("recipe-approx-altup", vec![]));
    }
    // gemma4's and gemma3n's are replayed (compute/ple.rs; gemma3n's feed its AltUp stream),
    // and qwen4exp's n-gram embedding (compute/qple.rs).
    if !matches!(p.arch.as_str(), "gemma4" | "gemma3n" | "qwen4exp")
        && model.tensor("per_layer_token_embd.weight").is_some()
    {
        out.push(Said::new("recipe-approx-per-layer-embeddings", vec![]));
    }
    out.extend(arch_parts(model, p));
    out
}

/// Graph parts of single architectures the replay does not write.
fn arch_parts(model: &GgufModel, p: &ModelParams) -> Option<Said> {
    match p.arch.as_str() {
        // models/hrm-text.cpp: the low stack runs l_cycles times and the high stack once per
        // high cycle, each on the sum of both states; the output selection after the last.
        "hrm_text" => Some(Said::new("recipe-approx-hrm-cycles", vec![])),
        // models/kimi-k3.cpp: res_mix scores the banked layer inputs (rms_norm, sum_rows,
        // soft_max, dsv4_hc_pre) before every attention and FFN; the routed experts run in a
        // latent width between ffn_routed_down and ffn_routed_up.
        "kimi-k3" if model.tensor("output_res_score.weight").is_some() => {
            Some(Said::new("recipe-approx-kimi-k3-residual", vec![]))
        }
        _ => None,
    }
}

/// A deepseek2-style file with a latent (`kv_lora_rank`) but no MLA lengths: llama.cpp runs it
/// as multi-head attention, decompressing K and V with `attn_kv_b` (the KV line is sized so);
/// the graph replay has no such attention and uses the standard one's shape.
/// minicpm3 and plm are built that way by design (models/minicpm3.cpp, models/plm.cpp: the
/// latent `attn_kv_a_mqa` output decompressed by `attn_kv_b`, K/V cached per head).
fn legacy_latent(model: &GgufModel, p: &ModelParams) -> Option<Said> {
    let key = format!("{}.attention.kv_lora_rank", p.arch);
    if p.is_mla || model.get(&key).is_none() {
        return None;
    }
    Some(if matches!(p.arch.as_str(), "minicpm3" | "plm") {
        Said::new(
            "recipe-approx-latent-projected",
            vec![("arch", p.arch.clone().into())],
        )
    } else {
        Said::new("recipe-approx-legacy-latent", vec![])
    })
}

/// The sentence for a sparse-attention indexer the replay does not write.
fn unreplayed_indexer(ix: &IndexerParams) -> Said {
    match ix.kind {
        // models/glm5-next.cpp: the lightning indexer scores every cached
        // position per indexer head, then the top-k mask feeds the attention.
        IndexerKind::Dsa => Said::new(
            "recipe-approx-indexer-dsa",
            vec![("heads", ix.n_head.into()), ("size", ix.head_size.into())],
        ),
        // models/minimax-m3.cpp: block scores over the indexer cache, block top-k and
        // the local-block bias before the attention.
        IndexerKind::Msa => Said::new(
            "recipe-approx-indexer-msa",
            vec![("heads", ix.n_head.into()), ("size", ix.head_size.into())],
        ),
        // models/qwen4exp.cpp: the QSA indexer scores pooled keys and picks the top-k
        // blocks (compute/qsa.rs replays qwen4exp's; no other architecture has one).
        IndexerKind::Qsa => Said::new(
            "recipe-approx-indexer-qsa",
            vec![("heads", ix.n_head.into()), ("size", ix.head_size.into())],
        ),
    }
}
