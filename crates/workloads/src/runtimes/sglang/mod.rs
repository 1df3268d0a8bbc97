//! SGLang: a static pool by design. `--mem-fraction-static` of the GPU holds the weights and the
//! KV pool (the KV pool is what is left of the static pool after the weights); activations and
//! CUDA graphs live outside it, in the rest of the GPU.
//!
//! - the fraction: `--mem-fraction-static`, else the server's own answer (`/get_server_info` or
//!   `/server_info`); SGLang picks it from the GPU's size and the parallel settings at start-up
//!   when it is not given, so without either it stays unknown;
//! - the weights: safetensors headers, split evenly over the TP ranks;
//! - KV per token and rank: `layers × kv_heads_per_rank × head_dim × dtype bytes` for K and as much
//!   for V (MLA: `kv_lora_rank + qk_rope_head_dim` values per layer, one buffer);
//! - the token count (`max_total_num_tokens`): only SGLang knows it; read from its server info or
//!   log (`KV Cache is allocated. #tokens: N`).

mod args;
mod live;
pub mod parallel;
mod runtime;

pub use args::SglangSettings;
pub use runtime::Sglang;

use super::hf::{gib, thousands};
use super::reservation::{
    derived, device_total_input, first_answer, kv_bytes_per_token_layers, kv_dtype_not_sized,
    model_inputs, rank_words, runtime, share_of, ModelFacts, Src,
};
use super::{gib_bytes, number_text_after, set_noting};
use super::{Input, ProcessContext, RuntimeEstimate};
use crate::figures::{Checked, Kind};
use gpuledger_lang::said::Arg;
use gpuledger_lang::Said;
use gpuledger_model::{EstimatedMemory, ReportedFigure};
use serde_json::Value;

/// The paths of SGLang's API its recipe reads (the runtime's [`Api`](super::Api) declaration):
/// the server's settings and token capacity, under the newer name first.
const SERVER_INFO: &[&str] = &["/get_server_info", "/server_info"];

/// What SGLang says about itself: its server info or its log.
#[derive(Debug, Clone, Default, PartialEq)]
pub struct SglangReport {
    /// `max_total_num_tokens` / `#tokens`.
    pub max_total_num_tokens: Option<u64>,
    pub mem_fraction_static: Option<f64>,
    pub tp_size: Option<u64>,
    pub pp_size: Option<u64>,
    pub dp_size: Option<u64>,
    pub enable_dp_attention: Option<bool>,
    pub kv_cache_dtype: Option<String>,
    /// `K size: X GB, V size: Y GB` (GiB units, SGLang divides by 1024³).
    pub k_gib: Option<f64>,
    pub v_gib: Option<f64>,
    /// `KV size: X GB` (GiB units): the one-buffer pools, MLA's (DeepSeek) among them.
    pub kv_gib: Option<f64>,
    /// `Load weight end. ... mem usage=X GB`.
    pub weights_gib: Option<f64>,
    pub lines: Vec<String>,
    pub source: String,
    /// Figures the server or its log gave that cannot be true (left out above).
    pub invalid: Checked,
}

fn find_key<'a>(v: &'a Value, key: &str, depth: u32) -> Option<&'a Value> {
    if depth > 4 {
        return None;
    }
    match v {
        Value::Object(m) => m
            .get(key)
            .or_else(|| m.values().find_map(|x| find_key(x, key, depth + 1))),
        Value::Array(a) => a.iter().take(64).find_map(|x| find_key(x, key, depth + 1)),
        _ => None,
    }
}

/// `/get_server_info` (or `/server_info`): the server's arguments and `max_total_num_tokens`.
pub fn parse_server_info(body: &str, source: &str) -> Option<SglangReport> {
    let v: Value = serde_json::from_str(body).ok()?;
    let tokens = find_key(&v, "max_total_num_tokens", 0);
    let fraction = find_key(&v, "mem_fraction_static", 0);
    // SGLang's answer has one of these; a bad value is still SGLang's answer, said as n/a.
    tokens.or(fraction)?;
    let mut bad = Checked::default();
    Some(SglangReport {
        max_total_num_tokens: bad.json_count("max_total_num_tokens", tokens),
        mem_fraction_static: bad.json("mem_fraction_static", fraction, Kind::Fraction),
        tp_size: bad.json_count("tp_size", find_key(&v, "tp_size", 0)),
        pp_size: bad.json_count("pp_size", find_key(&v, "pp_size", 0)),
        dp_size: bad.json_count("dp_size", find_key(&v, "dp_size", 0)),
        enable_dp_attention: find_key(&v, "enable_dp_attention", 0).and_then(Value::as_bool),
        kv_cache_dtype: find_key(&v, "kv_cache_dtype", 0)
            .and_then(Value::as_str)
            .map(str::to_string),
        source: source.into(),
        invalid: bad,
        ..Default::default()
    })
}

/// SGLang's start-up lines.
pub fn parse_log(text: &str) -> SglangReport {
    let mut r = SglangReport::default();
    for line in text.lines().take(1_000_000) {
        let mut changed = false;
        let c = &mut changed;
        let bad = &mut r.invalid;
        let gib_of = |bad: &mut Checked, what: &str, key: &str| {
            bad.take(what, number_text_after(line, key).as_deref(), Kind::Gib)
        };
        if line.contains("KV Cache is allocated") {
            let t = bad.count("#tokens", number_text_after(line, "#tokens").as_deref());
            set_noting(&mut r.max_total_num_tokens, t, c);
            set_noting(&mut r.k_gib, gib_of(bad, "K size", "K size"), c);
            set_noting(&mut r.v_gib, gib_of(bad, "V size", "V size"), c);
            set_noting(&mut r.kv_gib, gib_of(bad, "KV size", "KV size"), c);
        }
        let t = number_text_after(line, "max_total_num_tokens");
        if let Some(t) = bad.count("max_total_num_tokens", t.as_deref()) {
            set_noting(&mut r.max_total_num_tokens, Some(t), c);
        }
        if line.contains("Load weight end") {
            let w = gib_of(bad, "weights (Load weight end, mem usage)", "mem usage");
            set_noting(&mut r.weights_gib, w, c);
        }
        let f = number_text_after(line, "mem_fraction_static");
        if let Some(f) = bad.take("mem_fraction_static", f.as_deref(), Kind::Fraction) {
            set_noting(&mut r.mem_fraction_static, Some(f), c);
        }
        if changed {
            r.lines.push(line.trim().to_string());
        }
    }
    r
}

impl SglangReport {
    pub fn reported(&self, source: &str) -> Vec<ReportedFigure> {
        let mut out = Vec::new();
        let mut push = |what: &str, bytes: Option<u64>, text: Option<String>| {
            out.push(ReportedFigure::new(
                what,
                bytes,
                text.map(Into::into),
                source,
            ))
        };
        if let Some(t) = self.max_total_num_tokens {
            push(
                "max_total_num_tokens",
                None,
                Some(format!("{} tokens", thousands(t))),
            );
        }
        if let (Some(k), Some(v)) = (self.k_gib, self.v_gib) {
            push("KV cache (K + V)", Some(gib_bytes(k + v)), None);
        } else if let Some(kv) = self.kv_gib {
            push("KV cache (KV size)", Some(gib_bytes(kv)), None);
        }
        if let Some(w) = self.weights_gib {
            push(
                "weights (Load weight end, mem usage)",
                Some(gib_bytes(w)),
                None,
            );
        }
        if let Some(f) = self.mem_fraction_static {
            push("mem_fraction_static", None, Some(f.to_string()));
        }
        out.extend(self.invalid.figures(source));
        out
    }
}

/// The recipe. `device_total`: the measured size of the process's GPU.
pub fn estimate(
    model: &ModelFacts,
    s: &SglangSettings,
    device_total: Option<u64>,
    report: Option<&SglangReport>,
) -> RuntimeEstimate {
    let mut s = s.clone();
    let mut reported = Vec::new();
    let mut not_modelled = Vec::new();
    let mut tokens: Option<Src<u64>> = None;
    if let Some(r) = report {
        tokens = apply_report(&mut s, r);
        reported = r.reported(&r.source);
    }
    let tp = s.tp_size.value;
    let (per_tp, model_in) = model_inputs(model, tp, &format!("TP {tp}"));
    let mut inputs = model_in.to_vec();
    settings_inputs(&s, &mut inputs, &mut not_modelled);
    let (weights, layers) = rank_share(model, &s, per_tp, &mut inputs, &mut not_modelled);
    let per_token = per_token_input(model, &s, layers, &mut inputs, &mut not_modelled);
    if let Some(t) = &tokens {
        inputs.push(t.input("max_total_num_tokens"));
    } else if let Some(t) = &s.max_total_tokens {
        tokens = Some(t.clone());
        inputs.push(t.input("max_total_tokens"));
    }
    let kv = match (&tokens, &per_token) {
        // The token count is the server's or the command line's, any u64: too large is unknown.
        (Some(t), Some((b, _))) => {
            let kv = t.value.checked_mul(*b);
            if kv.is_none() {
                let said = vec![
                    ("tokens", thousands(t.value).into()),
                    ("bytes", b.to_string().into()),
                ];
                not_modelled.push(Said::new("recipe-sglang-nm-kv-overflow", said));
            }
            kv
        }
        _ => None,
    };
    if kv.is_none() && tokens.is_none() && per_token.is_some() {
        not_modelled.push(Said::new("recipe-sglang-nm-tokens", vec![]));
    }
    not_modelled.push(Said::new("recipe-sglang-nm-activations", vec![]));
    not_modelled.extend(quantised_experts(model));
    if let Some(t) = device_total {
        inputs.push(device_total_input(t));
    }
    let (total, why) = total_and_why(&s, device_total, weights, kv, tokens.as_ref());
    RuntimeEstimate {
        summary: EstimatedMemory {
            recipe: "sglang".into(),
            model: model.dir.display().to_string(),
            n_ctx: tokens.as_ref().map(|t| t.value),
            weights_gpu_bytes: weights,
            kv_cache_gpu_bytes: kv,
            compute_gpu_bytes: None,
            compute_exact: false,
            compute_label: Some(Said::new("recipe-rest-activations-graphs", vec![])),
            overhead_gpu_bytes: None,
            overhead_included: false,
            overhead_source: Said::new("recipe-sglang-overhead", vec![]),
            total_gpu_bytes: total,
            why: Some(why),
            reported,
            not_modelled,
            device_shares: Vec::new(),
        },
        inputs,
    }
}

/// Quantised MoE experts (MXFP4 in gpt-oss, FP8, INT4) are repacked and padded for SGLang's
/// MoE kernels as for vLLM's (`moe_quant` sizes vLLM's MXFP4 padding); SGLang's own padding is
/// not sized, so the file's bytes are a floor, said in words.
fn quantised_experts(model: &ModelFacts) -> Option<Said> {
    let experts = model.config.moe_experts?;
    let q = model.config.quant_method.clone()?;
    Some(Said::new(
        "recipe-sglang-nm-quantised-experts",
        vec![("experts", experts.to_string().into()), ("q", q.into())],
    ))
}

/// One rank's weights and the layers it holds KV for: its pipeline stage's share (an input
/// saying which stage), with what is not sized exactly named.
fn rank_share(
    model: &ModelFacts,
    s: &SglangSettings,
    per_tp: u64,
    inputs: &mut Vec<Input>,
    not_modelled: &mut Vec<Said>,
) -> (u64, u64) {
    let n_layer = model.config.n_layer;
    let st = parallel::stage(n_layer, s.pp_size.value, s.stage);
    if let Some(words) = &st.words {
        inputs.push(Input::new(
            Said::new("recipe-input-pipeline-stage", vec![]),
            st.layers,
            derived(words.clone()),
        ));
    }
    let (weights, notes) = parallel::weights(per_tp, n_layer, &st, s);
    not_modelled.extend(notes);
    (weights, st.layers)
}

/// Bytes of KV one token takes on one rank, as an input with its formula, or not modelled (a
/// packed cache dtype).
fn per_token_input(
    model: &ModelFacts,
    s: &SglangSettings,
    layers: u64,
    inputs: &mut Vec<Input>,
    not_modelled: &mut Vec<Said>,
) -> Option<(u64, Said)> {
    // The KV heads are split over the attention's TP ranks (`tp / dp` under DP attention).
    let tp = s.attention_tp();
    let per_token =
        kv_bytes_per_token_layers(&model.config, &s.kv_cache_dtype, &s.dtype, tp, layers);
    match &per_token {
        Some((b, how)) => inputs.push(Input::new(
            Said::new("recipe-input-kv-token", vec![]),
            b,
            derived(how.clone()),
        )),
        None => not_modelled.push(kv_dtype_not_sized(&s.kv_cache_dtype.value)),
    }
    per_token
}

/// The settings the recipe used, as inputs; an unknown static-pool fraction is not modelled.
fn settings_inputs(s: &SglangSettings, inputs: &mut Vec<Input>, not_modelled: &mut Vec<Said>) {
    inputs.push(s.tp_size.input("tp_size"));
    if s.pp_size.value > 1 {
        inputs.push(s.pp_size.input("pp_size"));
    }
    if s.enable_dp_attention.value {
        inputs.push(s.enable_dp_attention.input("enable_dp_attention"));
        inputs.push(s.dp_size.input("dp_size"));
        inputs.push(Input::new(
            Said::new("recipe-input-attention-tp", vec![]),
            s.attention_tp(),
            derived(Said::new(
                "recipe-sglang-attention-tp",
                vec![
                    ("tp", s.tp_size.value.to_string().into()),
                    ("dp", s.dp_size.value.to_string().into()),
                ],
            )),
        ));
    }
    if let Some(ep) = s.ep_size.as_ref().filter(|e| e.value > 1) {
        inputs.push(ep.input("ep_size"));
        not_modelled.push(Said::new(
            "recipe-sglang-nm-ep",
            vec![("ep", ep.value.to_string().into())],
        ));
    }
    inputs.push(s.kv_cache_dtype.input("kv_cache_dtype"));
    match &s.mem_fraction_static {
        Some(f) => inputs.push(f.input("mem_fraction_static")),
        None => not_modelled.push(Said::new("recipe-sglang-nm-fraction", vec![])),
    }
    if let Some(c) = &s.context_length {
        inputs.push(c.input("context_length"));
    }
}

/// Take what the server said over the command line (its fraction only when the command line
/// has none) and return its token count with the source.
fn apply_report(s: &mut SglangSettings, r: &SglangReport) -> Option<Src<u64>> {
    let from = |k: &str| runtime(format!("{} ({k})", r.source));
    if let (None, Some(f)) = (&s.mem_fraction_static, r.mem_fraction_static) {
        if f > 0.0 && f <= 1.0 {
            s.mem_fraction_static = Some(Src {
                value: f,
                source: from("mem_fraction_static"),
            });
        }
    }
    let sizes = [
        (&mut s.tp_size, r.tp_size, "tp_size"),
        (&mut s.pp_size, r.pp_size, "pp_size"),
        (&mut s.dp_size, r.dp_size, "dp_size"),
    ];
    for (slot, v, key) in sizes {
        if let Some(v) = v.filter(|&v| v > 0 && v <= 1 << 16) {
            *slot = Src {
                value: v,
                source: from(key),
            };
        }
    }
    if let Some(on) = r.enable_dp_attention {
        s.enable_dp_attention = Src {
            value: on,
            source: from("enable_dp_attention"),
        };
    }
    if let Some(d) = &r.kv_cache_dtype {
        s.kv_cache_dtype = Src {
            value: d.clone(),
            source: from("kv_cache_dtype"),
        };
    }
    r.max_total_num_tokens.map(|t| Src {
        value: t,
        source: from("max_total_num_tokens"),
    })
}

/// The total and the sentence: the static pool when its fraction and the device's size are
/// known, else weights and whatever KV is known.
fn total_and_why(
    s: &SglangSettings,
    device_total: Option<u64>,
    weights: u64,
    kv: Option<u64>,
    tokens: Option<&Src<u64>>,
) -> (u64, Said) {
    let reservation = s
        .mem_fraction_static
        .as_ref()
        .and_then(|f| share_of(device_total, f.value));
    let kv_words = match (kv, tokens, reservation) {
        (Some(k), Some(t), _) => Said::new(
            "recipe-sglang-kv",
            vec![("kv", gib(k).into()), ("tokens", thousands(t.value).into())],
        ),
        (_, _, Some(r)) => Said::new(
            "recipe-sglang-kv-left",
            vec![("most", gib(r.saturating_sub(weights)).into())],
        ),
        _ => Said::new("recipe-sglang-kv-unknown", vec![]),
    };
    let pct = |x: f64| format!("{:.0} %", x * 100.0);
    let mut args: Vec<(&'static str, Arg)> = vec![
        ("weights", gib(weights).into()),
        ("ranks", rank_words(s.tp_size.value).into()),
        ("kv_words", kv_words.into()),
    ];
    match (reservation, &s.mem_fraction_static) {
        // No part may exceed the whole: say so rather than show "at most 0.00 GiB".
        (Some(r), Some(f)) if weights.saturating_add(kv.unwrap_or(0)) > r => {
            args.extend([
                ("pct", pct(f.value).into()),
                ("pool", gib(r).into()),
                ("fraction", f.value.to_string().into()),
            ]);
            let key = match kv {
                Some(k) => {
                    args.push(("kv", gib(k).into()));
                    "recipe-sglang-why-contradiction-kv"
                }
                None => "recipe-sglang-why-contradiction",
            };
            (r, Said::new(key, args))
        }
        (Some(r), Some(f)) => {
            let from_server = f.source.detail().contains("GET");
            args.extend([
                ("pct", pct(f.value).into()),
                ("fraction", f.value.to_string().into()),
                ("remaining", pct(1.0 - f.value).into()),
            ]);
            let key = if from_server {
                "recipe-sglang-why-pool-server"
            } else {
                "recipe-sglang-why-pool"
            };
            (r, Said::new(key, args))
        }
        _ => (
            weights.saturating_add(kv.unwrap_or(0)),
            Said::new("recipe-sglang-why-no-fraction", args),
        ),
    }
}

/// The recipe for a running process: its command line (or its server's), its model folder,
/// and its server info when `explain` may ask.
pub fn estimate_process(ctx: &ProcessContext) -> Result<RuntimeEstimate, Said> {
    let mut s = SglangSettings::from_args(&ctx.argv, ctx.argv_source())
        .map_err(|e| Said::new("recipe-err-sglang-argv", vec![("error", e.into())]))?;
    s.stage = ctx.title.as_deref().and_then(parallel::stage_in_title);
    let model = s
        .model
        .clone()
        .ok_or_else(|| Said::new("recipe-err-sglang-no-model", vec![]))?;
    let facts = ModelFacts::read(&model, ctx)?;
    let report = first_answer(ctx, SERVER_INFO, parse_server_info);
    Ok(estimate(&facts, &s, ctx.device_total, report.as_ref()))
}
