//! vLLM's rotary cos/sin cache: the one owner of its bytes, for the safetensors and the GGUF
//! paths alike.
//!
//! Read from the released sources (the PyPI sdists 0.10.2, 0.18.0, 0.20.0, 0.20.1, 0.21.0,
//! 0.22.0, 0.25.0, 0.28.0 and the installed 0.32.0:
//! `model_executor/layers/rotary_embedding`): every attention layer asks `get_rope`, which
//! keeps one `RotaryEmbedding` per distinct set of parameters (`_ROPE_DICT`), so the layers
//! share one cache; each registers `cos_sin_cache` (positions × rotary dim, cos and sin halves)
//! as a buffer of the model, created on the GPU while the model is built, so the printed
//! "Model loading took" / "Loading model weights took" counts it. The buffer is cast to the
//! dtype `get_rope` is given: the model dtype unless the model asks another.

use super::VllmSettings;
use crate::runtimes::hf::{gib, model_dtype_bytes, thousands, ModelConfig};
use crate::runtimes::reservation::derived;
use crate::runtimes::Input;
use gpuledger_lang::said::Arg;
use gpuledger_lang::Said;
use serde_json::Value;

/// The cache one rank holds (every rank builds the layers it runs, each with the shared
/// cache: tensor and pipeline ranks alike hold all of it).
#[derive(Debug, Clone, PartialEq)]
pub struct RopeCache {
    pub bytes: u64,
    pub words: Said,
}

/// A cache longer than this many positions is taken as a bad config, not sized.
const MAX_POSITIONS: f64 = (1u64 << 32) as f64;

/// The first release whose `DynamicNTKScalingRotaryEmbedding` caches `max_position` rows
/// rather than `max_position × factor` (0.21.0's sdist still multiplies, 0.22.0's does not).
const DYNAMIC_UNSCALED_SINCE: (u64, u64, u64) = (0, 22, 0);

/// The cache vLLM allocates for `c` under `s`: `Ok(None)` when config.json names no rotary
/// embedding (learned or ALiBi positions: no cache), `Err` (words for "not modelled") when its
/// kind or shape is not one this rule sizes.
pub fn cache(c: &ModelConfig, s: &VllmSettings) -> Result<Option<RopeCache>, Said> {
    let unnamed = if c.rope.named {
        None
    } else {
        match unnamed_rope(c)? {
            None => return Ok(None),
            Some(words) => Some(words),
        }
    };
    let max = c.max_position_embeddings.ok_or_else(|| {
        let path = vec![("path", c.path.display().to_string().into())];
        Said::new("recipe-rope-err-no-max", path)
    })?;
    let gpt_oss = c.model_type.as_deref() == Some("gpt_oss");
    // gpt_oss.py passes dtype=torch.float32 (0.10.2 to 0.32.0); every other model the default
    // dtype, the model's, which `--dtype auto` makes 16-bit.
    let (elem, dtype_key) = if gpt_oss {
        (4, "recipe-rope-dtype-gpt-oss")
    } else if model_dtype_bytes(&s.dtype.value) == 4 {
        (4, "recipe-rope-dtype-f32")
    } else {
        (2, "recipe-rope-dtype-model")
    };
    let version = s
        .version
        .as_ref()
        .and_then(|(v, _)| super::version::parse(v));
    let mut parts = Vec::new();
    let mut rows = 0u64;
    for set in sets(c) {
        let (n, how) = positions(&set, max, version)?;
        let dim = rotary_dim(c, &set)?;
        let elems = n.checked_mul(dim).ok_or_else(too_large)?;
        rows = rows.checked_add(elems).ok_or_else(too_large)?;
        parts.push(Said::new(
            "recipe-rope-part",
            vec![
                ("positions", thousands(n).into()),
                ("how", how.into()),
                ("dim", dim.to_string().into()),
            ],
        ));
    }
    let bytes = rows.checked_mul(elem).ok_or_else(too_large)?;
    let shared = if parts.len() > 1 {
        Said::new(
            "recipe-rope-shared-many",
            vec![("count", parts.len().to_string().into())],
        )
    } else {
        Said::new("recipe-rope-shared-one", vec![])
    };
    let mut args = vec![
        ("bytes", gib(bytes).into()),
        (
            "parts",
            Said::joined("recipe-rope-parts", parts)
                .unwrap_or_default()
                .into(),
        ),
        ("dtype", Said::new(dtype_key, vec![]).into()),
        ("shared", shared.into()),
    ];
    let key = match unnamed {
        Some(w) => {
            args.push(("unnamed", w.into()));
            "recipe-rope-value-unnamed"
        }
        None => "recipe-rope-value",
    };
    Ok(Some(RopeCache {
        bytes,
        words: Said::new(key, args),
    }))
}

/// Model types whose vLLM model has no rotary embedding (learned or ALiBi positions, or no
/// attention): a config.json of these with no rope key gets no cache.
const NO_ROTARY: &[&str] = &[
    "gpt2",
    "gpt_bigcode",
    "opt",
    "bloom",
    "mpt",
    "jais",
    "bert",
    "roberta",
    "xlm-roberta",
    "t5",
    "bart",
    "whisper",
    "mamba",
    "mamba2",
    "falcon_mamba",
    "rwkv",
];

/// Model types whose vLLM model always rotates: with no rope key in config.json, transformers'
/// config class supplies its default (`rope_theta` 10000, no scaling), and vLLM builds that.
const DEFAULT_ROTARY: &[&str] = &[
    "llama",
    "mistral",
    "mixtral",
    "qwen2",
    "qwen2_moe",
    "qwen3",
    "qwen3_moe",
    "gemma",
    "gemma2",
    "gemma3",
    "gemma3_text",
    "phi",
    "phi3",
    "phimoe",
    "stablelm",
    "starcoder2",
    "internlm2",
    "deepseek",
    "deepseek_v2",
    "deepseek_v3",
    "olmo",
    "olmo2",
    "olmoe",
    "granite",
    "granitemoe",
    "cohere",
    "cohere2",
    "exaone",
    "gpt_neox",
    "gptj",
    "gpt_oss",
    "glm",
    "glm4",
    "minicpm",
    "nemotron",
    "falcon",
];

/// A config.json that names no rotary embedding: `Ok(None)` for a model without one, the
/// words for a default rope where the model type always has one, `Err` where it is not known.
fn unnamed_rope(c: &ModelConfig) -> Result<Option<Said>, Said> {
    let t = c.model_type.as_deref().unwrap_or("");
    if c.rope.alibi || NO_ROTARY.contains(&t) {
        return Ok(None);
    }
    if DEFAULT_ROTARY.contains(&t) {
        return Ok(Some(Said::new(
            "recipe-rope-unnamed",
            vec![
                ("path", c.path.display().to_string().into()),
                ("model_type", t.into()),
            ],
        )));
    }
    let model_type: Arg = if t.is_empty() {
        Said::new("recipe-rope-no-model-type", vec![]).into()
    } else {
        t.into()
    };
    let said = vec![
        ("path", c.path.display().to_string().into()),
        ("model_type", model_type),
    ];
    Err(Said::new("recipe-rope-err-unnamed", said))
}

/// `weights` (one rank's) with the whole cache added (every rank holds all of it), said as an
/// input; where the cache is not sized, the weights stay and `not_modelled` says why.
pub fn add_to(
    weights: u64,
    c: &ModelConfig,
    s: &VllmSettings,
    inputs: &mut Vec<Input>,
    not_modelled: &mut Vec<Said>,
) -> u64 {
    match cache(c, s) {
        Ok(Some(r)) => {
            inputs.push(Input::said(
                Said::new("recipe-input-rope", vec![]),
                r.words,
                derived(Said::new("recipe-rope-rule", vec![])),
            ));
            weights.saturating_add(r.bytes)
        }
        Ok(None) => weights,
        Err(e) => {
            not_modelled.push(e);
            weights
        }
    }
}

fn too_large() -> Said {
    Said::new("recipe-rope-err-overflow", vec![])
}

/// The distinct parameter sets `get_rope` is called with: the per-layer-type form gives one per
/// kind of layer the model has; Gemma 3's windowed layers take a second, default rope (another
/// base: another cache).
fn sets(c: &ModelConfig) -> Vec<Value> {
    let scaling = c
        .rope
        .scaling
        .clone()
        .unwrap_or_else(|| Value::Object(Default::default()));
    let (full, sliding) = match &c.layers {
        Some(l) => (l.full > 0 || l.other > 0, l.sliding > 0),
        None => (true, false),
    };
    let per_type = scaling
        .as_object()
        .filter(|o| !o.is_empty() && o.values().all(Value::is_object));
    let is_per_type = per_type.is_some();
    let mut out: Vec<Value> = match per_type {
        Some(o) => o
            .iter()
            .filter(|(k, _)| match k.as_str() {
                "full_attention" => full,
                "sliding_attention" => sliding,
                _ => true,
            })
            .map(|(_, v)| v.clone())
            .collect(),
        None => vec![scaling.clone()],
    };
    if !is_per_type && c.rope.local_base && sliding {
        // Its own base (rope_local_base_freq), so its own cache even when shaped alike.
        out.push(serde_json::json!({"rope_type": "default", "base": "rope_local_base_freq"}));
    }
    // get_rope's key: equal parameters share one instance.
    let mut unique: Vec<Value> = Vec::new();
    for v in out {
        if !unique.contains(&v) {
            unique.push(v);
        }
    }
    unique
}

fn kind(set: &Value) -> String {
    let t = ["rope_type", "type"]
        .iter()
        .find_map(|k| set.get(*k).and_then(Value::as_str))
        .unwrap_or("default");
    // vLLM's config patch: "su" was longrope's name, "mrope" a default rope with sections.
    match t {
        "su" => "longrope".into(),
        "mrope" => "default".into(),
        t => t.to_string(),
    }
}

/// Rows of one cache, and how they were reached (`get_rope` and each class's
/// `_compute_cos_sin_cache`).
/// A formula of config.json's own words (`original 4096 × factor 8, yarn`) stays as written.
fn positions(set: &Value, max: u64, version: Option<(u64, u64, u64)>) -> Result<(u64, Said), Said> {
    let kind = kind(set);
    let f = |k: &str| set.get(k).and_then(Value::as_f64);
    let need = |k: &str| {
        f(k).filter(|x| x.is_finite() && *x > 0.0).ok_or_else(|| {
            let said = vec![("kind", kind.as_str().into()), ("key", k.into())];
            Said::new("recipe-rope-err-need", said)
        })
    };
    let rows = |key: &'static str, x: Option<f64>| {
        let mut said = vec![("max", thousands(max).into())];
        if let Some(x) = x {
            said.push(("factor", x.to_string().into()));
        }
        Said::new(key, said)
    };
    let mrope = set.get("mrope_section").is_some();
    let max_f = max as f64;
    let (n, how) = match kind.as_str() {
        // MRotaryEmbedding enlarges the table 4 times for video positions.
        "default" if mrope => (
            max_f * 4.0,
            Said::verbatim(format!("{} × 4, mrope", thousands(max))),
        ),
        "default" | "llama3" | "ntk" => (max_f, Said::verbatim("max_position_embeddings")),
        "linear" => {
            let x = need("factor")?;
            (
                max_f * x,
                Said::verbatim(format!("{} × factor {x}, linear", thousands(max))),
            )
        }
        "dynamic" if set.get("alpha").is_some() => {
            (max_f, Said::verbatim("max_position_embeddings"))
        }
        "dynamic" => {
            let x = need("factor")?;
            match version {
                Some(v) if v < DYNAMIC_UNSCALED_SINCE => {
                    (max_f * x, rows("recipe-rope-dynamic-before", Some(x)))
                }
                Some(_) => (max_f, rows("recipe-rope-dynamic-since", None)),
                None => (max_f, rows("recipe-rope-dynamic-unknown", Some(x))),
            }
        }
        "yarn" | "deepseek_yarn" | "deepseek_llama_scaling" if !mrope => {
            let (o, x) = (need("original_max_position_embeddings")?, need("factor")?);
            (
                o * x,
                Said::verbatim(format!("original {o} × factor {x}, {kind}")),
            )
        }
        // Phi3LongRoPEScaledRotaryEmbedding: the short table then the long one.
        "longrope" => {
            let o = need("original_max_position_embeddings")?;
            let said = vec![
                ("short", o.to_string().into()),
                ("long", thousands(max).into()),
            ];
            (max_f + o, Said::new("recipe-rope-longrope", said))
        }
        other => {
            let kind = if mrope {
                format!("{other} + mrope")
            } else {
                other.to_string()
            };
            return Err(Said::new(
                "recipe-rope-err-kind",
                vec![("kind", kind.into())],
            ));
        }
    };
    // torch.arange over a float length: ⌈n⌉ rows.
    let n = n.ceil();
    if !(n.is_finite() && n <= MAX_POSITIONS) {
        return Err(too_large());
    }
    Ok((n as u64, how))
}

/// The rotary dimension: `rope_dim` in the parameters, MLA's / GPT-J's own, else the head size
/// × `partial_rotary_factor` (`int(head_size × factor)`, get_rope).
fn rotary_dim(c: &ModelConfig, set: &Value) -> Result<u64, Said> {
    if let Some(d) = set
        .get("rope_dim")
        .and_then(Value::as_u64)
        .or(c.rope.rotary_dim)
    {
        return (d > 0 && d <= 1 << 20)
            .then_some(d)
            .ok_or_else(|| Said::new("recipe-rope-err-dim", vec![("dim", d.to_string().into())]));
    }
    let p = set
        .get("partial_rotary_factor")
        .and_then(Value::as_f64)
        .or(c.rope.partial_rotary_factor)
        .unwrap_or(1.0);
    if !(p > 0.0 && p <= 1.0) {
        let p = vec![("factor", p.to_string().into())];
        return Err(Said::new("recipe-rope-err-partial", p));
    }
    Ok((c.head_dim as f64 * p) as u64)
}

#[cfg(test)]
mod tests {
    use super::*;
    use std::path::Path;

    fn cfg(json: &str) -> ModelConfig {
        ModelConfig::parse(json.as_bytes(), Path::new("c.json")).unwrap()
    }

    fn settings(extra: &str) -> VllmSettings {
        let argv: Vec<String> = format!("vllm serve m {extra}")
            .split_whitespace()
            .map(str::to_string)
            .collect();
        VllmSettings::from_args(&argv, "test").unwrap()
    }

    const BASE: &str = r#""num_hidden_layers":2,"num_attention_heads":4,"head_dim":128,"max_position_embeddings":4096"#;

    fn bytes(extra: &str, s: &VllmSettings) -> Result<Option<u64>, Said> {
        cache(&cfg(&format!("{{{BASE}{extra}}}")), s).map(|c| c.map(|c| c.bytes))
    }

    #[test]
    fn each_kind_takes_its_own_length() {
        let s = settings("");
        let learned = bytes(r#","model_type":"gpt2""#, &s);
        assert_eq!(learned, Ok(None), "learned positions: no cache");
        let alibi = bytes(r#","model_type":"falcon","alibi":true"#, &s);
        assert_eq!(alibi, Ok(None), "ALiBi: no cache");
        // transformers' LlamaConfig supplies rope_theta when config.json does not.
        let llama = cfg(&format!(r#"{{{BASE},"model_type":"llama"}}"#));
        let r = cache(&llama, &s).unwrap().unwrap();
        assert_eq!(r.bytes, 4096 * 128 * 2);
        assert!(r.words.contains("names no rope"), "{}", r.words);
        let unknown = bytes("", &s).unwrap_err();
        assert!(unknown.contains("none given"), "{unknown}");
        assert_eq!(
            bytes(r#","rope_theta":10000"#, &s),
            Ok(Some(4096 * 128 * 2))
        );
        let lin = r#","rope_scaling":{"rope_type":"linear","factor":8.0}"#;
        assert_eq!(bytes(lin, &s), Ok(Some(8 * 4096 * 128 * 2)));
        let yarn = r#","rope_scaling":{"type":"yarn","factor":4.0,"original_max_position_embeddings":1024}"#;
        assert_eq!(bytes(yarn, &s), Ok(Some(4096 * 128 * 2)));
        let long = r#","rope_scaling":{"type":"su","original_max_position_embeddings":1024,"short_factor":[1],"long_factor":[1]}"#;
        assert_eq!(bytes(long, &s), Ok(Some((4096 + 1024) * 128 * 2)));
        let mrope = r#","rope_scaling":{"type":"mrope","mrope_section":[16,24,24]}"#;
        assert_eq!(bytes(mrope, &s), Ok(Some(4 * 4096 * 128 * 2)));
        let partial = r#","rope_theta":10000,"partial_rotary_factor":0.5"#;
        assert_eq!(bytes(partial, &s), Ok(Some(4096 * 64 * 2)));
        let f32 = settings("--dtype float32");
        assert_eq!(bytes(r#","rope_theta":1"#, &f32), Ok(Some(4096 * 128 * 4)));
        let odd = bytes(r#","rope_scaling":{"rope_type":"mllama4"}"#, &s).unwrap_err();
        assert!(odd.contains("mllama4"), "{odd}");
    }

    #[test]
    fn dynamic_scaling_changed_in_0_22() {
        let dynamic = r#","rope_scaling":{"rope_type":"dynamic","factor":2.0}"#;
        let mut s = settings("");
        s.version = Some(("0.20.0".into(), "test".into()));
        assert_eq!(bytes(dynamic, &s), Ok(Some(2 * 4096 * 128 * 2)));
        s.version = Some(("0.22.0".into(), "test".into()));
        assert_eq!(bytes(dynamic, &s), Ok(Some(4096 * 128 * 2)));
        s.version = None;
        let c = cfg(&format!("{{{BASE}{dynamic}}}"));
        let unknown = cache(&c, &s).unwrap().unwrap();
        assert_eq!(unknown.bytes, 4096 * 128 * 2);
        assert!(
            unknown.words.contains("version is not known"),
            "{}",
            unknown.words
        );
    }

    #[test]
    fn gemma3_keeps_two_caches_and_gpt_oss_asks_float32() {
        let s = settings("");
        let gemma = r#","model_type":"gemma3_text","rope_local_base_freq":10000,"sliding_window":1024,"rope_scaling":{"rope_type":"linear","factor":8.0}"#;
        assert_eq!(bytes(gemma, &s), Ok(Some(9 * 4096 * 128 * 2)));
        let per_type = r#","layer_types":["sliding_attention","full_attention"],"rope_parameters":{"full_attention":{"rope_type":"linear","factor":8.0,"rope_theta":1e6},"sliding_attention":{"rope_type":"default","rope_theta":1e4}}"#;
        assert_eq!(bytes(per_type, &s), Ok(Some(9 * 4096 * 128 * 2)));
        let oss = r#","model_type":"gpt_oss","rope_scaling":{"rope_type":"yarn","factor":32.0,"original_max_position_embeddings":128}"#;
        assert_eq!(bytes(oss, &s), Ok(Some(4096 * 128 * 4)));
    }

    #[test]
    fn absurd_configs_are_not_sized() {
        let s = settings("");
        let huge = r#","rope_scaling":{"rope_type":"linear","factor":1e300}"#;
        assert!(bytes(huge, &s).is_err());
        let bad = r#","rope_scaling":{"rope_type":"linear","factor":-1}"#;
        assert!(bytes(bad, &s).is_err());
        assert!(bytes(r#","rope_theta":1,"partial_rotary_factor":2"#, &s).is_err());
    }
}
