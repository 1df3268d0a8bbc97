//! One of vLLM's KV blocks on one rank: its bytes (over every layer, or one KV group's layers
//! for a hybrid model), the formula in words, and the groups a request takes blocks in.

use super::capacity::Layout;
use super::groups::KvGroups;
use super::version::KvRules;
use super::VllmSettings;
use crate::runtimes::hf::LayerKinds;
use crate::runtimes::reservation::{derived, kv_bytes_per_token, kv_dtype_not_sized, ModelFacts};
use crate::runtimes::Input;
use gpuledger_lang::said::Arg;
use gpuledger_lang::Said;

/// What one of vLLM's blocks holds on one rank: its bytes (over every layer, or over one KV
/// group's layers for a hybrid model) and the groups a request takes blocks in.
#[derive(Debug, Clone, Copy, PartialEq)]
pub(super) struct Block {
    pub bytes: u64,
    pub layout: Layout,
}

/// One block on one rank (an input), or why the cache is not sized (not modelled).
pub(super) fn kv_per_block(
    model: &ModelFacts,
    s: &VllmSettings,
    rules: &KvRules,
    inputs: &mut Vec<Input>,
    not_modelled: &mut Vec<Said>,
) -> Option<Block> {
    inputs.push(Input::said(
        Said::new("recipe-input-kv-rules", vec![]),
        rules.words.clone(),
        rules.source.clone(),
    ));
    let (tp, pp) = (s.tensor_parallel_size.value, s.pipeline_parallel_size.value);
    let Some((per_token, how)) =
        kv_bytes_per_token(&model.config, &s.kv_cache_dtype, &s.dtype, tp, pp)
    else {
        not_modelled.push(kv_dtype_not_sized(&s.kv_cache_dtype.value));
        return None;
    };
    let bs = s.block_size.value;
    let layers = model.config.n_layer.div_ceil(pp.max(1));
    let kinds = model.config.layers.as_ref();
    let groups = match (kinds, hybrid_on(s, rules, kinds, inputs)) {
        (Some(l), true) => match KvGroups::of(l, pp) {
            Ok(g) => g.map(|g| (g, l.source.clone())),
            Err(e) => {
                not_modelled.push(Said::new(
                    "recipe-nm-kv-cache",
                    vec![("why", e.to_string().into())],
                ));
                return None;
            }
        },
        _ => None,
    };
    let (tensors, n_groups, rule) = block_rule(how, groups.as_ref(), layers, bs);
    // Values from argv and /metrics: an absurd one is "not modelled", never an overflow.
    let bytes = (per_token / layers.max(1))
        .checked_mul(tensors)
        .and_then(|b| b.checked_mul(bs));
    let value = Said::new(
        "recipe-vllm-kv-block-value",
        vec![
            (
                "bytes",
                bytes.map_or_else(
                    || Said::new("recipe-too-large", vec![]).into(),
                    |b| b.to_string().into(),
                ),
            ),
            ("per_token", per_token.to_string().into()),
        ],
    );
    inputs.push(Input::said(
        Said::new("recipe-input-kv-block", vec![]),
        value,
        derived(rule),
    ));
    let layout = layout(groups.as_ref().map(|(g, _)| g), kinds);
    debug_assert!(n_groups == 1 || n_groups == layout.full_groups + layout.sliding_groups);
    bytes.map(|bytes| Block { bytes, layout })
}

/// The groups one request takes blocks in, by kind.
fn layout(groups: Option<&KvGroups>, kinds: Option<&LayerKinds>) -> Layout {
    match (groups, kinds) {
        (Some(g), Some(l)) => Layout {
            full_groups: l.full.div_ceil(g.group_size),
            sliding_groups: l.sliding.div_ceil(g.group_size),
            window: l.window,
        },
        // One kind of layer: every layer windowed alike (Mistral) stays a windowed group;
        // otherwise (or mixed kinds in one group) every layer is a full-attention one.
        (_, Some(l)) if l.full == 0 && l.sliding > 0 && l.other == 0 => Layout {
            full_groups: 0,
            sliding_groups: 1,
            window: l.window,
        },
        _ => Layout {
            full_groups: 1,
            sliding_groups: 0,
            window: None,
        },
    }
}

/// Whether vLLM groups a hybrid model's layers here: its release has the hybrid KV cache manager
/// and nothing turned it off (`--disable-hybrid-kv-cache-manager`, or `--kv-transfer-config`
/// without `--no-disable-hybrid-kv-cache-manager`: vLLM turns it off for KV connectors by
/// itself, from 0.9.1 on). An input says so when it matters for this model.
fn hybrid_on(
    s: &VllmSettings,
    rules: &KvRules,
    kinds: Option<&LayerKinds>,
    inputs: &mut Vec<Input>,
) -> bool {
    let hybrid_model = kinds.is_some_and(|l| l.full > 0 && l.sliding > 0);
    if !rules.hybrid_groups || s.disable_hybrid_kv_cache_manager {
        return false;
    }
    if s.kv_transfer_config && !s.hybrid_kv_cache_manager_forced {
        if hybrid_model {
            inputs.push(Input::said(
                Said::new("recipe-input-hybrid-manager", vec![]),
                Said::new("recipe-vllm-hybrid-off", vec![]),
                derived(Said::new("recipe-vllm-hybrid-off-rule", vec![])),
            ));
        }
        return false;
    }
    true
}

/// The layers one block covers, the number of KV groups and the rule in words: every layer,
/// or one KV group's layers for a hybrid model.
fn block_rule(
    how: Said,
    groups: Option<&(KvGroups, String)>,
    layers: u64,
    bs: u64,
) -> (u64, u64, Said) {
    let n = |x: u64| Arg::from(x.to_string());
    match groups {
        Some((g, src_)) => (
            g.group_size,
            g.groups,
            Said::new(
                "recipe-vllm-kv-block-rule-groups",
                vec![
                    ("per_token", how.into()),
                    ("layers", n(layers)),
                    ("group", n(g.group_size)),
                    ("groups", n(g.groups)),
                    ("source", src_.clone().into()),
                    ("block", n(bs)),
                ],
            ),
        ),
        None => (
            layers,
            1,
            Said::new(
                "recipe-vllm-kv-block-rule",
                vec![("per_token", how.into()), ("block", n(bs))],
            ),
        ),
    }
}
