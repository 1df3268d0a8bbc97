//! Parts of an architecture's compute graph that the replay (`compute`) does not build, named
//! from the tensors that need them, so the compute line says it is approximate and why instead
//! of passing a partial graph off as exact.

use crate::gguf::GgufModel;

use super::hparams::ModelParams;
use super::indexer::{IndexerKind, IndexerParams};

/// One sentence per graph part the replay leaves out for this model.
pub(super) fn missing_parts(model: &GgufModel, p: &ModelParams) -> Vec<String> {
    let mut out: Vec<String> = legacy_latent(model, p).into_iter().collect();
    if !p.arch_known {
        out.push(format!(
            "the graph of '{}', an architecture gpuledger does not know: the generic \
             transformer's layers",
            p.arch
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
        out.push(
            "the hyper-connections (several residual streams mixed around every attention and \
             FFN block by hc_attn_fn / hc_ffn_fn): not in the replay, which keeps one stream"
                .into(),
        );
    }
    // models/gemma3n.cpp: AltUp keeps n_altup copies of the hidden state through every layer
    // (predict / correct) and LAuReL adds a low-rank residual: replayed for gemma3n
    // (compute/gemma3n.rs); said for any other architecture with AltUp tensors.
    if model.tensor("altup_proj.weight").is_some() && p.arch != "gemma3n" {
        out.push(
            "Gemma 3n's AltUp (several copies of the hidden state through every layer) and \
             LAuReL blocks: not in the replay, which builds one hidden state per layer"
                .into(),
        );
    }
    // gemma4's and gemma3n's are replayed (compute/ple.rs; gemma3n's feed its AltUp stream),
    // and qwen4exp's n-gram embedding (compute/qple.rs).
    if !matches!(p.arch.as_str(), "gemma4" | "gemma3n" | "qwen4exp")
        && model.tensor("per_layer_token_embd.weight").is_some()
    {
        out.push(
            "the per-layer input embeddings (per_layer_token_embd rows looked up on the host, \
             projected by per_layer_model_proj and fed to every layer): not in the replay"
                .into(),
        );
    }
    out.extend(arch_parts(model, p));
    out
}

/// Graph parts of single architectures the replay does not write.
fn arch_parts(model: &GgufModel, p: &ModelParams) -> Option<String> {
    match p.arch.as_str() {
        // models/hrm-text.cpp: the low stack runs l_cycles times and the high stack once per
        // high cycle, each on the sum of both states; the output selection after the last.
        "hrm_text" => Some(
            "HRM's cycles (the low and high stacks' slots, each reading the sum of both \
             states, the outputs selected after the last slot): the replay writes the slots \
             as a plain stack of layers"
                .into(),
        ),
        // models/kimi-k3.cpp: res_mix scores the banked layer inputs (rms_norm, sum_rows,
        // soft_max, dsv4_hc_pre) before every attention and FFN; the routed experts run in a
        // latent width between ffn_routed_down and ffn_routed_up.
        "kimi-k3" if model.tensor("output_res_score.weight").is_some() => Some(
            "Kimi-K3's cross-layer residual attention (the banked layer inputs scored and \
             mixed before every attention and FFN) and its latent-width experts: not in the \
             replay"
                .into(),
        ),
        _ => None,
    }
}

/// A deepseek2-style file with a latent (`kv_lora_rank`) but no MLA lengths: llama.cpp runs it
/// as multi-head attention, decompressing K and V with `attn_kv_b` (the KV line is sized so);
/// the graph replay has no such attention and uses the standard one's shape.
/// minicpm3 and plm are built that way by design (models/minicpm3.cpp, models/plm.cpp: the
/// latent `attn_kv_a_mqa` output decompressed by `attn_kv_b`, K/V cached per head).
fn legacy_latent(model: &GgufModel, p: &ModelParams) -> Option<String> {
    let key = format!("{}.attention.kv_lora_rank", p.arch);
    if p.is_mla || model.get(&key).is_none() {
        return None;
    }
    Some(if matches!(p.arch.as_str(), "minicpm3" | "plm") {
        format!(
            "{}'s latent-projected attention (K and V decompressed per head from a \
             kv_lora_rank latent by attn_kv_b, then cached as ordinary K/V): the replay writes \
             the standard attention's shape without the decompression's intermediate tensors",
            p.arch
        )
    } else {
        "attention of an older latent-attention conversion without MLA (kv_lora_rank, no \
         *_mla lengths, attn_kv_b instead of attn_k_b/attn_v_b): llama.cpp decompresses K \
         and V per head with attn_kv_b; the replay writes the standard attention's shape"
            .into()
    })
}

/// The sentence for a sparse-attention indexer the replay does not write.
fn unreplayed_indexer(ix: &IndexerParams) -> String {
    match ix.kind {
        // models/glm5-next.cpp: the lightning indexer scores every cached
        // position per indexer head, then the top-k mask feeds the attention.
        IndexerKind::Dsa => format!(
            "the DSA lightning indexer ({} heads of {} over every cached position, its \
             top-k selection and sparse mask): not in the replay, so the compute buffer \
             can be several times larger than estimated at long context",
            ix.n_head, ix.head_size
        ),
        // models/minimax-m3.cpp: block scores over the indexer cache, block top-k and
        // the local-block bias before the attention.
        IndexerKind::Msa => format!(
            "the MSA block indexer ({} heads of {}, block scores, block top-k and \
             local-block bias): not in the replay",
            ix.n_head, ix.head_size
        ),
        // models/qwen4exp.cpp: the QSA indexer scores pooled keys and picks the top-k
        // blocks (compute/qsa.rs replays qwen4exp's; no other architecture has one).
        IndexerKind::Qsa => format!(
            "the QSA indexer ({} heads of {}: key pooling, scores, top-k selection): not \
             in the replay",
            ix.n_head, ix.head_size
        ),
    }
}
