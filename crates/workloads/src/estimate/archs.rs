//! The architectures llama.cpp knows and the memory it creates for each: one table, read from
//! llama.cpp b11434's source (`LLM_ARCH_NAMES` in llama-arch.cpp, `llama_model::create_memory`
//! in llama-model.cpp, each model's `load_arch_hparams` in src/models/*.cpp), and the rules that
//! depend on the architecture: which layers are recurrent, the sliding windows llama.cpp forces,
//! and the recurrent state's size (`llama_hparams::n_embd_r`/`n_embd_s`, llama-hparams.cpp).
//!
//! An architecture missing here is estimated with the generic transformer rule, and the estimate
//! says so (`guesses`): a newer llama.cpp may give it memory this table does not know.

/// Which layers `load_arch_hparams` marks recurrent (`hparams.is_recr_impl`), for a hybrid.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(super) enum Recurrent {
    /// `is_recr_impl[il] = n_head_kv(il) == 0` (jamba, granitehybrid, plamo2, lfm2, kimi-linear).
    NoKvHeads,
    /// `n_head_kv(il) == 0 && n_ff(il) == 0`; MLP-only layers are neither (nemotron_h).
    NoKvHeadsNoFfn,
    /// The converter's `attention.recurrent_layers` array, else every layer but each
    /// `full_attention_interval`-th (default 4) (qwen3next, qwen35, qwen35moe).
    ArrayOrInterval,
    /// Every layer is both recurrent and attention (falcon-h1: both filters return true).
    Every,
}

/// The memory `create_memory` builds.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(super) enum Memory {
    /// No memory module (`res = nullptr`): encoders, diffusion models.
    None,
    /// `llama_kv_cache`, or `llama_kv_cache_iswa` where the model has sliding-window layers.
    Attention,
    /// `llama_memory_recurrent` (`llm_arch_is_recurrent`).
    Recurrent,
    /// `llama_memory_hybrid` / `_iswa` (`llm_arch_is_hybrid`), with its recurrent-layer rule.
    Hybrid(Recurrent),
}

/// One architecture: its memory and, where llama.cpp builds something the recipe does not size,
/// what that is (named in the estimate, never silently left out).
pub(super) struct Arch {
    pub name: &'static str,
    pub memory: Memory,
    pub unmodelled: Option<&'static str>,
}

const fn a(name: &'static str, memory: Memory) -> Arch {
    Arch {
        name,
        memory,
        unmodelled: None,
    }
}

const fn partly(name: &'static str, memory: Memory, what: &'static str) -> Arch {
    Arch {
        name,
        memory,
        unmodelled: Some(what),
    }
}

use Memory::{Attention as KV, None as NONE, Recurrent as RS};
use Recurrent::{ArrayOrInterval, Every, NoKvHeads, NoKvHeadsNoFfn};

/// Every text architecture of llama.cpp b11434's `LLM_ARCH_NAMES` (`clip` is a vision encoder,
/// not loaded as a model).
const ARCHS: &[Arch] = &[
    a("llama", KV),
    a("llama4", KV),
    a("deci", KV),
    a("falcon", KV),
    a("grok", KV),
    a("gpt2", KV),
    a("gptj", KV),
    a("gptneox", KV),
    a("mpt", KV),
    a("baichuan", KV),
    a("starcoder", KV),
    a("refact", KV),
    a("bert", NONE),
    a("modern-bert", NONE),
    a("nomic-bert", NONE),
    a("nomic-bert-moe", NONE),
    a("neo-bert", NONE),
    a("jina-bert-v2", NONE),
    a("jina-bert-v3", NONE),
    a("eurobert", NONE),
    a("bloom", KV),
    a("stablelm", KV),
    a("qwen", KV),
    a("qwen2", KV),
    a("qwen2moe", KV),
    a("qwen2vl", KV),
    a("qwen3", KV),
    a("qwen3moe", KV),
    a("qwen3next", Memory::Hybrid(ArrayOrInterval)),
    a("qwen3vl", KV),
    a("qwen3vlmoe", KV),
    a("qwen35", Memory::Hybrid(ArrayOrInterval)),
    a("qwen35moe", Memory::Hybrid(ArrayOrInterval)),
    a("clef", NONE),
    // llama_memory_hybrid_idx: its QSA indexer cache and PLE conv history are sized by `qsa.rs`.
    a("qwen4exp", Memory::Hybrid(ArrayOrInterval)),
    a("phi2", KV),
    a("phi3", KV),
    a("phimoe", KV),
    a("plamo", KV),
    a("plamo2", Memory::Hybrid(NoKvHeads)),
    a("plamo3", KV),
    a("codeshell", KV),
    a("orion", KV),
    a("internlm2", KV),
    a("minicpm", KV),
    a("minicpm3", KV),
    a("gemma", KV),
    a("gemma2", KV),
    a("gemma3", KV),
    a("gemma3n", KV),
    a("gemma4", KV),
    partly(
        "gemma4-assistant",
        KV,
        "the KV it shares with its target model's context (layer_share_cb)",
    ),
    a("gemma-embedding", NONE),
    a("starcoder2", KV),
    a("mamba", RS),
    a("mamba2", RS),
    a("maple", KV),
    a("jamba", Memory::Hybrid(NoKvHeads)),
    a("falcon-h1", Memory::Hybrid(Every)),
    a("xverse", KV),
    a("command-r", KV),
    a("cohere2", KV),
    a("cohere2moe", KV),
    a("dbrx", KV),
    a("olmo", KV),
    a("olmo2", KV),
    a("olmoe", KV),
    a("muse-glimmer", KV),
    a("openelm", KV),
    a("arctic", KV),
    a("deepseek", KV),
    a("deepseek2", KV),
    a("deepseek2-ocr", KV),
    // The indexer key caches of deepseek32, glm-dsa, minimax-m3, dots3note, hy_v4 and glm5-next
    // are sized by `indexer.rs` (the last three's layers by `indexer_variants.rs`).
    a("deepseek32", KV),
    // llama_kv_cache_dsv4: its raw, compressed and indexer caches and states are sized by `dsv4.rs`.
    a("deepseek4", KV),
    a("chatglm", KV),
    a("glm4", KV),
    a("glm4moe", KV),
    a("glm-dsa", KV),
    a("bitnet", KV),
    a("t5", KV),
    a("t5encoder", KV),
    a("jais", KV),
    a("jais2", KV),
    a("nemotron", KV),
    a("nemotron_h", Memory::Hybrid(NoKvHeadsNoFfn)),
    a("nemotron_h_moe", Memory::Hybrid(NoKvHeadsNoFfn)),
    a("exaone", KV),
    a("exaone4", KV),
    a("exaone-moe", KV),
    a("rwkv6", RS),
    a("rwkv6qwen2", RS),
    a("rwkv7", RS),
    a("arwkv7", RS),
    a("granite", KV),
    a("granitemoe", KV),
    a("granitehybrid", Memory::Hybrid(NoKvHeads)),
    a("graniteswitch", KV),
    a("granite_swa", KV),
    a("chameleon", KV),
    a("wavtokenizer-dec", NONE),
    a("plm", KV),
    a("bailingmoe", KV),
    a("bailingmoe2", KV),
    a("bailingmoe3", Memory::Hybrid(NoKvHeads)),
    a("dots1", KV),
    a("dots3note", KV),
    a("arcee", KV),
    a("afmoe", KV),
    a("laguna", KV),
    a("ernie4_5", KV),
    a("ernie4_5-moe", KV),
    a("hunyuan-moe", KV),
    a("hunyuan-dense", KV),
    a("hunyuan_vl", KV),
    a("hy_v3", KV),
    a("hy_v4", KV),
    a("smollm3", KV),
    a("gpt-oss", KV),
    a("lfm2", Memory::Hybrid(NoKvHeads)),
    a("lfm2moe", Memory::Hybrid(NoKvHeads)),
    a("dream", NONE),
    a("smallthinker", KV),
    a("llada", NONE),
    a("llada-moe", NONE),
    a("seed_oss", KV),
    a("grovemoe", KV),
    a("apertus", KV),
    a("minimax-01", Memory::Hybrid(ArrayOrInterval)),
    a("hrm_text", KV),
    a("minimax-m2", KV),
    a("minimax-m3", KV),
    a("cogvlm", KV),
    a("rnd1", NONE),
    a("pangu-embedded", KV),
    a("mistral3", KV),
    partly("eagle3", KV, "a draft model's cache beside its target's"),
    partly("dflash", KV, "a draft model's cache beside its target's"),
    a("mistral4", KV),
    a("paddleocr", KV),
    a("mimo2", KV),
    a("step35", KV),
    a("spark2_5", KV),
    a("llama-embed", KV),
    a("maincoder", KV),
    a("kimi-linear", Memory::Hybrid(NoKvHeads)),
    a("kimi-k3", Memory::Hybrid(NoKvHeads)),
    a("glm5-next", Memory::Hybrid(NoKvHeads)),
    a("talkie", KV),
    a("mellum", KV),
    a("nanbeige", KV),
    a("qwen3tts", KV),
    a("pockettts", KV),
];

/// Whether the architecture adds an attention layer after the file's blocks that holds KV but
/// no tensors: graniteswitch's adapter router (llama_model_granite_switch::load_arch_hparams:
/// `router_layer = n_real`, `n_layer_all = n_real + 1`, one head and one KV head of the model's
/// head size; `create_memory` keeps it in the cache, its layer filter applying only where
/// `router_layer < 0`).
pub(super) fn router_layer(arch: &str) -> bool {
    arch == "graniteswitch"
}

/// The architectures whose `load_arch_tensors` skips the tensors of the next-token-prediction
/// (nextn / MTP) layers unless the model is loaded for MTP drafting (src/models/<arch>.cpp:
/// `mtp_flags |= TENSOR_SKIP` when `!ml.load_mtp`; llama-server sets `load_mtp` only with
/// `--spec-type draft-mtp`, common.cpp `common_model_params_to_llama`). mistral4 takes
/// deepseek2's; dots3note skips them even then (no MTP graph yet: `TENSOR_SKIP` whatever
/// `load_mtp` says). The others (bailingmoe2, exaone-moe, exaone4...) load those tensors, unused.
const SKIPS_MTP_TENSORS: &[&str] = &[
    "bailingmoe3",
    "cohere2moe",
    "deepseek2",
    "deepseek32",
    "deepseek4",
    "dots3note",
    "glm-dsa",
    "glm4moe",
    "glm5-next",
    "hy_v3",
    "mimo2",
    "mistral4",
    "nemotron_h",
    "nemotron_h_moe",
    "qwen35",
    "qwen35moe",
    "qwen3next",
    "qwen4exp",
    "step35",
];

/// Whether llama-server leaves the MTP layers' tensors of this architecture unloaded.
pub(super) fn skips_mtp_tensors(arch: &str) -> bool {
    SKIPS_MTP_TENSORS.contains(&arch)
}

/// Whether an MTP layer's tensor (`stem`: its name after `blk.N.`, without `.weight`/`.bias`)
/// loads all the same: created `TENSOR_NOT_REQUIRED` without the skip flag in the
/// architecture's `load_arch_tensors`.
pub(super) fn mtp_tensor_loads(arch: &str, stem: &str) -> bool {
    const HEAD: &[&str] = &[
        "nextn.embed_tokens",
        "nextn.shared_head_head",
        "nextn.shared_head_norm",
    ];
    const FFN: &[&str] = &[
        "ffn_gate",
        "ffn_up",
        "ffn_down",
        "ffn_gate_inp",
        "exp_probs_b",
        "ffn_gate_exps",
        "ffn_up_exps",
        "ffn_down_exps",
        "ffn_gate_up_exps",
        "ffn_gate_shexp",
        "ffn_up_shexp",
        "ffn_down_shexp",
    ];
    match arch {
        // llama_model_cohere2moe::load_arch_tensors: the nextn head's optional tensors.
        "cohere2moe" => HEAD.contains(&stem),
        // llama_model_deepseek32 / glm_dsa: the router bias of every layer.
        "deepseek32" | "glm-dsa" => stem == "exp_probs_b",
        // llama_model_hy_v3::load_block: the FFN and experts of every block, the nextn head.
        "hy_v3" => HEAD.contains(&stem) || FFN.contains(&stem),
        // llama_model_step35::load_block_mtp: all but the norms, attention and nextn wiring.
        "step35" => {
            HEAD.contains(&stem)
                || FFN.contains(&stem)
                || matches!(
                    stem,
                    "attn_q_norm" | "attn_k_norm" | "attn_gate" | "rope_freqs"
                )
        }
        _ => false,
    }
}

/// The architecture's entry, or `None` for one llama.cpp b11434 does not know.
pub(super) fn lookup(name: &str) -> Option<&'static Arch> {
    ARCHS.iter().find(|a| a.name == name)
}

/// A sliding window llama.cpp sets for an architecture in `load_arch_hparams`, whatever the file
/// says (or only when the file says something).
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(super) struct Window {
    pub n_swa: u64,
    /// `load_swa_pattern(ml, pattern, dense_first)`: the file's `sliding_window_pattern` wins.
    pub pattern: u64,
    pub dense_first: bool,
    /// Llama 4's chunked attention (`LLAMA_SWA_TYPE_CHUNKED`): sized as a window.
    pub chunked: bool,
    /// The catalogue key of the rule's sentence (`recipe-window-*`).
    pub rule: &'static str,
}

/// What the architecture's `load_arch_hparams` makes of the window: `Some(Some(w))` a window it
/// sets, `Some(None)` none whatever the file says, `None` no rule of its own (the file's window
/// and the pattern table decide). `n_layer` is the trunk's (`hparams.n_layer()`).
pub(super) fn forced_window(
    arch: &str,
    n_layer: u64,
    file_swa: Option<u64>,
) -> Option<Option<Window>> {
    let w = |n_swa, pattern, dense_first, chunked, rule| Window {
        n_swa,
        pattern,
        dense_first,
        chunked,
        rule,
    };
    match arch {
        // llama_model_llama4::load_arch_hparams: chunked attention of 8192 tokens, 3 chunked :
        // 1 full, unless the file sets sliding_window to 0.
        "llama4" => {
            Some((file_swa != Some(0)).then(|| w(8192, 4, false, true, "recipe-window-llama4")))
        }
        // llama_model_smallthinker::load_arch_hparams: any window in the file becomes 4096, the
        // first of every 4 layers full (dense first).
        "smallthinker" => Some(
            (file_swa.unwrap_or(0) > 0)
                .then(|| w(4096, 4, true, false, "recipe-window-smallthinker")),
        ),
        // llama_model_exaone4::load_arch_hparams: a window only at 64 layers (the 32B), 4096
        // unless the file gives one; other sizes have none whatever the file says.
        "exaone4" => Some((n_layer == 64).then(|| {
            w(
                file_swa.unwrap_or(4096),
                4,
                false,
                false,
                "recipe-window-exaone4",
            )
        })),
        // llama_model_phi3::load_arch_hparams: a window in the file is switched off
        // (LLAMA_SWA_TYPE_NONE, set_swa_pattern(1)): every layer keeps the full context.
        "phi3" => Some(None),
        // llama_model_gemma2::load_arch_hparams: 4096 unless the file gives one.
        "gemma2" => Some(Some(w(
            file_swa.unwrap_or(4096),
            2,
            false,
            false,
            "recipe-window-gemma2",
        ))),
        _ => None,
    }
}

/// The layer facts the recurrent-layer rules read.
pub(super) struct LayerFacts<'a> {
    /// `hparams.n_layer()`: the trunk, without next-token-prediction layers.
    pub n_trunk: usize,
    pub n_head_kv: &'a [u64],
    /// `feed_forward_length` per layer (0 where the file gives none).
    pub n_ff: &'a [u64],
    /// The file's `attention.recurrent_layers`, where the rule reads it.
    pub array: Option<Vec<bool>>,
    /// The file's `full_attention_interval`.
    pub interval: Option<u64>,
}

/// `hparams.is_recr_impl` as the architecture's `load_arch_hparams` sets it, over all layers.
pub(super) fn recurrent_layers(rule: Recurrent, f: &LayerFacts) -> Vec<bool> {
    let trunk = |il: usize| il < f.n_trunk;
    let n = f.n_head_kv.len();
    match rule {
        Recurrent::Every => vec![true; n],
        Recurrent::NoKvHeads => (0..n).map(|il| trunk(il) && f.n_head_kv[il] == 0).collect(),
        Recurrent::NoKvHeadsNoFfn => (0..n)
            .map(|il| {
                trunk(il) && f.n_head_kv[il] == 0 && f.n_ff.get(il).copied().unwrap_or(0) == 0
            })
            .collect(),
        Recurrent::ArrayOrInterval => match &f.array {
            Some(a) => (0..n)
                .map(|il| a.get(il).copied().unwrap_or(false))
                .collect(),
            None => {
                // The caller refuses an interval of 0 (llama.cpp would divide by it).
                let iv = f.interval.unwrap_or(4).max(1) as usize;
                (0..n)
                    .map(|il| trunk(il) && !(il + 1).is_multiple_of(iv))
                    .collect()
            }
        },
    }
}

/// Which layers the hybrid's attention cache holds (`filter_attn` in `create_memory`).
pub(super) fn attention_layer(
    rule: Recurrent,
    f: &LayerFacts,
    recurrent: &[bool],
    il: usize,
) -> bool {
    match rule {
        Recurrent::Every => true,
        Recurrent::NoKvHeadsNoFfn => !recurrent[il] && f.n_ff.get(il).copied().unwrap_or(0) == 0,
        Recurrent::ArrayOrInterval => il < f.n_trunk && !recurrent[il],
        Recurrent::NoKvHeads => !recurrent[il],
    }
}

/// The keys `n_embd_r()`/`n_embd_s()` read (0 where the file has none, as in `llama_hparams`).
#[derive(Debug, Clone, Copy, Default)]
pub(super) struct StateKeys {
    pub n_embd: u64,
    /// `n_head()`: layer 0's.
    pub n_head: u64,
    pub wkv_head_size: u64,
    pub token_shift_count: u64,
    pub shortconv_l_cache: u64,
    pub kda_head_dim: u64,
    /// MiniMax-01's linear attention head (`n_embd_head_la = n_embd_head_k`).
    pub la_head_dim: u64,
    pub ssm_d_conv: u64,
    pub ssm_d_inner: u64,
    pub ssm_d_state: u64,
    pub ssm_n_group: u64,
}

/// `llama_hparams::n_embd_r()` and `n_embd_s()` (llama-hparams.cpp), branch for branch: the
/// recurrent state's elements per layer and cell (conv/shift state, then the state matrix).
/// Saturating: the header's values are unchecked here; `check_plausible` refuses the result.
pub(super) fn state_elems(k: &StateKeys) -> (u64, u64) {
    let m = |a: u64, b: u64| a.saturating_mul(b);
    let r = if k.wkv_head_size != 0 {
        m(k.token_shift_count, k.n_embd) // RWKV's token shift
    } else if k.shortconv_l_cache != 0 {
        m(k.n_embd, k.shortconv_l_cache - 1) // LFM2's short convolution
    } else if k.kda_head_dim != 0 {
        // Kimi's KDA: conv state for Q, K and V, 3 when the file gives no kernel.
        let conv = if k.ssm_d_conv > 0 {
            k.ssm_d_conv - 1
        } else {
            3
        };
        m(m(3, conv), m(k.n_head, k.kda_head_dim))
    } else {
        // Mamba's conv_states (also Gated DeltaNet's: d_inner + 2 groups of d_state).
        let conv_ch = k
            .ssm_d_inner
            .saturating_add(m(m(2, k.ssm_n_group), k.ssm_d_state));
        m(k.ssm_d_conv.saturating_sub(1), conv_ch)
    };
    let s = if k.wkv_head_size != 0 {
        m(k.n_embd, k.wkv_head_size)
    } else if k.kda_head_dim != 0 {
        m(m(k.kda_head_dim, k.kda_head_dim), k.n_head)
    } else if k.la_head_dim != 0 {
        m(m(k.la_head_dim, k.la_head_dim), k.n_head)
    } else {
        m(k.ssm_d_state, k.ssm_d_inner)
    };
    (r, s)
}
