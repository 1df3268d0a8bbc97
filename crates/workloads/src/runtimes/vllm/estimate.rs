//! The vLLM recipe: the settings (the server's `/metrics` over its flags over the defaults), the
//! weights per rank, the KV cache from the block count when it is known, and the rest of the
//! reservation; then the sentence that says so.

use super::capacity::{self, Request};
use super::kv_block::{kv_per_block, Block};
use super::version::{kv_rules, KvRules, TokenRule};
use super::{VllmMetrics, VllmSettings};
use crate::runtimes::hf::{gib, thousands};
use crate::runtimes::reservation::{
    device_total_input, model_inputs, rank_words, runtime, share_of, src, ModelFacts,
};
use crate::runtimes::{Input, InputSource, RuntimeEstimate};
use gpuledger_lang::said::Arg;
use gpuledger_lang::Said;
use gpuledger_model::{EstimatedMemory, ReportedFigure};

fn percent(x: f64) -> String {
    let p = x * 100.0;
    if (p - p.round()).abs() < 1e-6 {
        format!("{:.0} %", p)
    } else {
        format!("{:.1} %", p)
    }
}

/// The recipe. `device_total`: the measured size of the process's GPU.
pub fn estimate(
    model: &ModelFacts,
    s: &VllmSettings,
    device_total: Option<u64>,
    metrics: Option<&VllmMetrics>,
) -> RuntimeEstimate {
    let mut s = s.clone();
    let mut reported = Vec::new();
    let mut not_modelled = Vec::new();
    // The server's own configuration wins over flags and defaults.
    let blocks = metrics.and_then(|m| apply_metrics(&mut s, m, &mut reported));
    let tp = s.tensor_parallel_size.value;
    let pp = s.pipeline_parallel_size.value;
    // Args::parallel bounds both; saturating keeps settings built elsewhere from overflowing.
    let ranks = tp.saturating_mul(pp).max(1);
    let (weights, model_in) = model_inputs(model, ranks, &format!("{ranks} ranks"));
    let mut inputs = model_in.to_vec();
    inputs.extend(settings_inputs(&s));
    let t = Tokens {
        s: &s,
        model,
        rules: &kv_rules(s.version.as_ref()),
        device_total,
    };
    let (block, n_ctx) = t.block_and_tokens(blocks.as_ref(), &mut inputs, &mut not_modelled);
    let reservation = share_of(device_total, s.gpu_memory_utilization.value);
    let (kv, kv_how) = kv_size(&s, blocks.as_ref(), block, n_ctx);
    if kv.is_none() && block.is_some() {
        not_modelled.push(Said::new("recipe-vllm-nm-blocks", vec![]));
    }
    let rest_label = rest_label(&s, &mut not_modelled);
    not_modelled.extend(super::parallel::notes(&s, model.config.moe_experts));
    let (weights, weights_floor) = match super::gguf::weights_per_rank(model, &s, ranks) {
        Some((w, held)) => {
            inputs.push(held);
            (w, false)
        }
        None => super::moe_quant::moe_weights(model, &s, weights, &mut inputs, &mut not_modelled),
    };
    let weights = super::rope::add_to(weights, &model.config, &s, &mut inputs, &mut not_modelled);
    let parts = Parts {
        s: &s,
        weights,
        weights_floor,
        kv,
        kv_how,
        ranks,
        rest_label,
    };
    let (total, rest, why) = parts.split(reservation);
    if reservation.is_none() && s.kv_cache_memory_bytes.is_none() {
        not_modelled.push(Said::new("recipe-nm-device-total", vec![]));
    }
    let n_ctx = n_ctx.filter(|_| kv.is_some());
    RuntimeEstimate {
        summary: EstimatedMemory {
            recipe: "vllm".into(),
            model: model.dir.display().to_string(),
            n_ctx,
            weights_gpu_bytes: weights,
            kv_cache_gpu_bytes: kv,
            compute_gpu_bytes: rest,
            compute_exact: false,
            compute_label: Some(Said::new(
                "recipe-vllm-rest-row",
                vec![("label", parts.rest_label.clone().into())],
            )),
            overhead_gpu_bytes: None,
            overhead_included: true,
            overhead_source: Said::new("recipe-vllm-overhead-inside", vec![]),
            total_gpu_bytes: total,
            why: Some(why),
            reported,
            not_modelled,
            device_shares: Vec::new(),
        },
        inputs,
    }
}

/// What the rest of the reservation holds besides weights and KV, noting that its split is not
/// modelled.
fn rest_label(s: &VllmSettings, not_modelled: &mut Vec<Said>) -> Said {
    let label = Said::new(
        if s.enforce_eager.value {
            "recipe-vllm-rest-eager"
        } else {
            "recipe-rest-activations-graphs"
        },
        vec![],
    );
    not_modelled.push(Said::new(
        "recipe-vllm-nm-rest",
        vec![("label", label.clone().into())],
    ));
    label
}

/// Take the server's `vllm:cache_config_info` over the flags (a value out of range is passed
/// over), note its own figures in `reported`, and return its block count with the source.
fn apply_metrics(
    s: &mut VllmSettings,
    m: &VllmMetrics,
    reported: &mut Vec<ReportedFigure>,
) -> Option<(u64, InputSource)> {
    let from = |k: &str| format!("{} (vllm:cache_config_info {k})", m.source);
    let src_of = |k: &str| runtime(from(k));
    let c = &m.cache_config;
    let num = |k: &str| c.get(k).and_then(|v| v.parse::<u64>().ok());
    if let Some(u) = c
        .get("gpu_memory_utilization")
        .and_then(|v| v.parse::<f64>().ok())
    {
        if u > 0.0 && u <= 1.0 {
            s.gpu_memory_utilization = src(u, src_of("gpu_memory_utilization"));
        }
    }
    if let Some(b) = num("block_size") {
        if b > 0 && b <= 1 << 20 {
            s.block_size = src(b, src_of("block_size"));
        }
    }
    if let Some(d) = c.get("cache_dtype") {
        s.kv_cache_dtype = src(d.clone(), src_of("cache_dtype"));
    }
    let mut blocks = None;
    if let Some(n) = num("num_gpu_blocks") {
        blocks = Some((n, src_of("num_gpu_blocks")));
        reported.push(ReportedFigure::new(
            "num_gpu_blocks",
            None,
            Some(Said::new(
                "recipe-vllm-reported-blocks",
                vec![
                    ("blocks", thousands(n).into()),
                    ("tokens", s.block_size.value.to_string().into()),
                ],
            )),
            &from("num_gpu_blocks"),
        ));
    }
    // Newer releases publish the token capacity themselves (group-aware for hybrid models,
    // where blocks × block_size is not the capacity).
    if let Some(t) = num("kv_cache_size_tokens") {
        reported.push(ReportedFigure::new(
            "KV cache size",
            None,
            Some(Said::new(
                "recipe-vllm-reported-tokens",
                vec![("tokens", thousands(t).into())],
            )),
            &from("kv_cache_size_tokens"),
        ));
    }
    if let Some(u) = m.kv_usage {
        reported.push(ReportedFigure::new(
            "KV cache in use",
            None,
            Some(Said::new(
                "recipe-vllm-reported-usage",
                vec![("pct", format!("{:.1} %", u * 100.0).into())],
            )),
            &format!("{} (kv_cache_usage_perc)", m.source),
        ));
    }
    // What the server answered that cannot be true: n/a, with its answer (figures::Checked).
    reported.extend(m.invalid.figures(&m.source));
    blocks
}

/// The settings the recipe used, as inputs (pipeline parallelism, the context length and
/// quantization only when set).
fn settings_inputs(s: &VllmSettings) -> Vec<Input> {
    let mut inputs = vec![
        s.gpu_memory_utilization.input("gpu_memory_utilization"),
        s.tensor_parallel_size.input("tensor_parallel_size"),
    ];
    let pp = &s.pipeline_parallel_size;
    if pp.value > 1 {
        inputs.push(pp.input("pipeline_parallel_size"));
    }
    let dp = &s.data_parallel_size;
    if dp.value > 1 {
        inputs.push(dp.input(Said::new("recipe-input-dp-replicas", vec![])));
    }
    inputs.push(s.block_size.input("block_size"));
    inputs.push(s.kv_cache_dtype.input("kv_cache_dtype"));
    if let Some(m) = &s.max_model_len {
        inputs.push(m.input("max_model_len"));
    }
    if let Some(q) = &s.quantization {
        inputs.push(q.input("quantization"));
    }
    inputs.push(s.enforce_eager.input("enforce_eager"));
    inputs
}

/// The KV cache and its words: `--kv-cache-memory-bytes` when given, else blocks × block bytes.
fn kv_size(
    s: &VllmSettings,
    blocks: Option<&(u64, InputSource)>,
    block: Option<Block>,
    tokens: Option<u64>,
) -> (Option<u64>, Said) {
    match (&s.kv_cache_memory_bytes, blocks, block) {
        (Some(k), _, _) => (
            Some(k.value),
            Said::new(
                "recipe-vllm-kv-bytes",
                vec![
                    ("kv", gib(k.value).into()),
                    ("source", k.source.detail().into()),
                ],
            ),
        ),
        (None, Some((n, _)), Some(b)) if n.checked_mul(b.bytes).is_some() => {
            let n_groups = b.layout.full_groups + b.layout.sliding_groups;
            let groups: Said = match tokens {
                Some(t) if n_groups > 1 => Said::new(
                    "recipe-vllm-kv-groups",
                    vec![
                        ("tokens", thousands(t).into()),
                        ("groups", n_groups.to_string().into()),
                    ],
                ),
                _ => Said::verbatim(""),
            };
            (
                Some(n * b.bytes),
                Said::new(
                    "recipe-vllm-kv-blocks",
                    vec![
                        ("kv", gib(n * b.bytes).into()),
                        ("blocks", thousands(*n).into()),
                        ("block", s.block_size.value.to_string().into()),
                        ("groups", groups.into()),
                    ],
                ),
            )
        }
        _ => (None, Said::verbatim("")),
    }
}

/// What vLLM's printed token count depends on besides the blocks.
struct Tokens<'a> {
    s: &'a VllmSettings,
    model: &'a ModelFacts,
    rules: &'a KvRules,
    device_total: Option<u64>,
}

impl Tokens<'_> {
    /// One block (an input) and the tokens `blocks` of them hold as vLLM prints them, with the
    /// block count and the device's size as inputs.
    fn block_and_tokens(
        &self,
        blocks: Option<&(u64, InputSource)>,
        inputs: &mut Vec<Input>,
        not_modelled: &mut Vec<Said>,
    ) -> (Option<Block>, Option<u64>) {
        let block = kv_per_block(self.model, self.s, self.rules, inputs, not_modelled);
        if let Some((n, src_)) = blocks {
            inputs.push(Input::new("num_gpu_blocks", n, src_.clone()));
        }
        if let Some(t) = self.device_total {
            inputs.push(device_total_input(t));
        }
        let n_ctx =
            (blocks.zip(block)).and_then(|((n, _), b)| self.count(*n, b, inputs, not_modelled));
        (block, n_ctx)
    }

    /// The tokens `n` blocks hold as the release that runs prints them (`GPU KV cache size`),
    /// noting the inputs it took; `None`, said in `not_modelled`, where one is not known.
    fn count(
        &self,
        n: u64,
        b: Block,
        inputs: &mut Vec<Input>,
        not_modelled: &mut Vec<Said>,
    ) -> Option<u64> {
        let s = self.s;
        let max_model_len = match (&s.max_model_len, self.model.config.max_position_embeddings) {
            (Some(m), _) => Some(m.value),
            (None, Some(p)) if self.rules.tokens == TokenRule::Concurrency => {
                inputs.push(Input::new(
                    "max_model_len",
                    p,
                    InputSource::Assumed {
                        why: Said::new(
                            "recipe-vllm-max-len-assumed",
                            vec![("path", self.model.config.path.display().to_string().into())],
                        ),
                    },
                ));
                Some(p)
            }
            _ => None,
        };
        let needs_in_flight = self.rules.tokens == TokenRule::Concurrency
            && b.layout.sliding_groups > 0
            && b.layout
                .window
                .zip(max_model_len)
                .is_some_and(|(w, l)| w < l);
        let in_flight = if needs_in_flight {
            match capacity::in_flight(s, self.rules, self.device_total) {
                Ok(x) => {
                    inputs.push(x.input(Said::new("recipe-input-tokens-in-flight", vec![])));
                    Some(x.value)
                }
                Err(e) => {
                    not_modelled.push(kv_count_unknown(e));
                    return None;
                }
            }
        } else {
            None
        };
        let r = Request {
            block_size: s.block_size.value,
            max_model_len,
            in_flight,
        };
        match capacity::tokens(self.rules.tokens, n, &b.layout, &r) {
            Ok((t, _)) => Some(t),
            Err(e) => {
                not_modelled.push(kv_count_unknown(e));
                None
            }
        }
    }
}

/// `` `--gpu-memory-utilization X`, from its command line `` (where the fraction came from).
fn util_words(s: &VllmSettings) -> Said {
    let from = match &s.gpu_memory_utilization.source {
        InputSource::Default { .. } => "recipe-vllm-util-default",
        InputSource::Flag { .. } => "recipe-vllm-util-flag",
        InputSource::Runtime { detail } if detail.contains("/metrics") => {
            "recipe-vllm-util-metrics"
        }
        _ => "recipe-vllm-util-log",
    };
    Said::new(
        "recipe-vllm-util",
        vec![
            ("value", s.gpu_memory_utilization.value.to_string().into()),
            ("from", Said::new(from, vec![]).into()),
        ],
    )
}

/// What the why sentence and the total are made of.
struct Parts<'a> {
    s: &'a VllmSettings,
    weights: u64,
    /// The weights figure is the files' size, which vLLM's kernels may exceed.
    weights_floor: bool,
    kv: Option<u64>,
    kv_how: Said,
    ranks: u64,
    rest_label: Said,
}

impl Parts<'_> {
    /// The total, the rest of the reservation (when the KV cache is known) and the sentence:
    /// the reservation when the device's size is known, else what is known of it; with
    /// `--kv-cache-memory-bytes`, weights and that cache (it replaces the reservation).
    fn split(&self, reservation: Option<u64>) -> (u64, Option<u64>, Said) {
        let Parts {
            s,
            weights,
            weights_floor,
            kv,
            kv_how,
            ranks,
            rest_label,
        } = self;
        let (weights, kv) = (*weights, *kv);
        let gib_w = if *weights_floor {
            format!("≥ {}", gib(weights))
        } else {
            gib(weights)
        };
        let args = |more: Vec<(&'static str, Arg)>| {
            let mut v: Vec<(&'static str, Arg)> = vec![
                ("pct", percent(s.gpu_memory_utilization.value).into()),
                ("util", util_words(s).into()),
                ("weights", gib_w.as_str().into()),
                ("ranks", rank_words(*ranks).into()),
                ("kv_how", kv_how.clone().into()),
                ("rest_label", rest_label.clone().into()),
            ];
            v.extend(more);
            v
        };
        match (reservation, s.kv_cache_memory_bytes.is_some()) {
            (Some(r), false) if weights.saturating_add(kv.unwrap_or(0)) > r => {
                // No part may exceed the whole: say so rather than show "the rest 0.00 GiB".
                let key = if kv.is_some() {
                    "recipe-vllm-why-contradiction-kv"
                } else {
                    "recipe-vllm-why-contradiction"
                };
                (
                    r,
                    None,
                    Said::new(key, args(vec![("reserved", gib(r).into())])),
                )
            }
            (Some(r), false) => {
                let rest = kv.map(|k| r - weights - k);
                let why = match (kv, rest) {
                    (Some(_), Some(rest)) => Said::new(
                        "recipe-vllm-why-reserves",
                        args(vec![("rest", gib(rest).into())]),
                    ),
                    _ => Said::new(
                        "recipe-vllm-why-reserves-no-blocks",
                        args(vec![("rest", gib(r - weights).into())]),
                    ),
                };
                (r, rest, why)
            }
            (None, false) => (
                weights.saturating_add(kv.unwrap_or(0)),
                None,
                Said::new(
                    if kv.is_some() {
                        "recipe-vllm-why-no-size-kv"
                    } else {
                        "recipe-vllm-why-no-size"
                    },
                    args(vec![]),
                ),
            ),
            (_, true) => (
                weights.saturating_add(kv.unwrap_or(0)),
                None,
                Said::new("recipe-vllm-why-kv-bytes", args(vec![])),
            ),
        }
    }
}

/// Why vLLM's printed KV token count is not modelled (`e`: what the capacity rule lacks).
fn kv_count_unknown(e: impl ToString) -> Said {
    Said::new(
        "recipe-note-vllm-kv-count",
        vec![("why", e.to_string().into())],
    )
}
