//! The model's hyper-parameters as llama.cpp derives them from GGUF keys (`load_hparams`), each
//! with the key (or the rule) it came from.

use serde::Serialize;

use crate::gguf::{GgufModel, MetaValue};

pub use gpuledger_model::llama_estimate::{CacheKind, Input, InputSource};

#[derive(Debug, Clone, Serialize)]
pub struct ModelParams {
    pub arch: String,
    pub n_layer: u32,
    pub n_ctx_train: u64,
    pub n_embd: u64,
    pub n_vocab: u64,
    pub n_head: Vec<u64>,
    pub n_head_kv: Vec<u64>,
    /// `n_embd_head_k` / `n_embd_head_v` per layer (SWA layers may use `key_length_swa`).
    pub head_k: Vec<u64>,
    pub head_v: Vec<u64>,
    pub n_swa: u64,
    pub swa_layers: Vec<bool>,
    pub has_kv: Vec<bool>,
    pub recurrent: Vec<bool>,
    /// Recurrent state elements per layer (r + s), when the formula for the arch is known.
    pub rs_elems_per_layer: Option<u64>,
    pub is_mla: bool,
    pub cache: CacheKind,
    pub inputs: Vec<Input>,
    pub notes: Vec<String>,
}

const NO_KV_ARCHS: &[&str] = &[
    "bert",
    "modern-bert",
    "nomic-bert",
    "nomic-bert-moe",
    "neo-bert",
    "jina-bert-v2",
    "jina-bert-v3",
    "gemma-embedding",
    "t5encoder",
    "dream",
    "llada",
    "llada-moe",
];
const RECURRENT_ARCHS: &[&str] = &["mamba", "mamba2", "rwkv6", "rwkv6qwen2", "rwkv7", "arwkv7"];
const HYBRID_ARCHS: &[&str] = &[
    "jamba",
    "falcon-h1",
    "plamo2",
    "granitehybrid",
    "lfm2",
    "lfm2moe",
    "nemotron_h",
    "nemotron_h_moe",
    "qwen3next",
    "kimi-linear",
];
/// `set_swa_pattern(n)` per architecture in llama.cpp's `load_hparams` (llm-memory.md §2.5):
/// layer `il` is SWA iff `il % n < n - 1` (the n-th, 2n-th... layer is full).
const SWA_PATTERNS: &[(&str, u64)] = &[
    ("gemma2", 2),
    ("gemma3", 6),
    ("gemma3n", 5),
    ("cohere2", 4),
    ("gpt-oss", 2),
    ("exaone4", 4),
    ("llama4", 4),
];

pub struct Reader<'a> {
    m: &'a GgufModel,
    arch: String,
    pub inputs: Vec<Input>,
    pub notes: Vec<String>,
}

#[derive(Debug, thiserror::Error)]
#[error("{file}: {message}")]
pub struct HparamError {
    pub file: String,
    pub message: String,
}

impl<'a> Reader<'a> {
    fn err(&self, msg: String) -> HparamError {
        HparamError {
            file: self.m.path().display().to_string(),
            message: msg,
        }
    }

    fn key(&self, suffix: &str) -> String {
        format!("{}.{suffix}", self.arch)
    }

    fn record(&mut self, name: &str, value: impl ToString, source: InputSource) {
        self.inputs.push(Input {
            name: name.into(),
            value: value.to_string(),
            source,
        });
    }

    fn opt_u64(&mut self, name: &str, suffix: &str) -> Option<u64> {
        let key = self.key(suffix);
        let v = self.m.get(&key)?.as_u64()?;
        self.record(name, v, InputSource::Gguf { key });
        Some(v)
    }

    fn req_u64(&mut self, name: &str, suffix: &str) -> Result<u64, HparamError> {
        let key = self.key(suffix);
        self.opt_u64(name, suffix)
            .ok_or_else(|| self.err(format!("required key {key} is missing or not an integer")))
    }

    /// A key that may be a scalar or a per-layer array (`get_key_or_arr`).
    fn per_layer(
        &mut self,
        name: &str,
        suffix: &str,
        n: usize,
    ) -> Result<Option<Vec<u64>>, HparamError> {
        let key = self.key(suffix);
        let Some(v) = self.m.get(&key) else {
            return Ok(None);
        };
        let out = match v {
            MetaValue::Array(a) => {
                let vals = a.values.as_ref().ok_or_else(|| {
                    self.err(format!(
                        "{key}: array of {} entries is too long to be per-layer",
                        a.len
                    ))
                })?;
                if vals.len() < n {
                    return Err(self.err(format!(
                        "{key} has {} entries but the model has {n} layers",
                        vals.len()
                    )));
                }
                vals[..n]
                    .iter()
                    .map(|x| x.as_u64())
                    .collect::<Option<Vec<_>>>()
                    .ok_or_else(|| self.err(format!("{key}: entries are not integers")))?
            }
            other => vec![
                other
                    .as_u64()
                    .ok_or_else(|| self.err(format!("{key} is not an integer")))?;
                n
            ],
        };
        let shown = if out.iter().all(|&x| x == out[0]) {
            out.first().map(|x| x.to_string()).unwrap_or_default()
        } else {
            format!("{out:?}")
        };
        self.record(name, shown, InputSource::Gguf { key });
        Ok(Some(out))
    }
}

pub fn read_params(m: &GgufModel) -> Result<ModelParams, HparamError> {
    let arch = m
        .architecture()
        .ok_or_else(|| HparamError {
            file: m.path().display().to_string(),
            message: "general.architecture is missing: not a model file llama.cpp can load".into(),
        })?
        .to_string();
    let mut r = Reader {
        m,
        arch: arch.clone(),
        inputs: Vec::new(),
        notes: Vec::new(),
    };
    r.record(
        "architecture",
        &arch,
        InputSource::Gguf {
            key: "general.architecture".into(),
        },
    );
    let n_layer = r.req_u64("n_layer", "block_count")?;
    if n_layer == 0 || n_layer > 100_000 {
        return Err(r.err(format!(
            "{}.block_count {n_layer} is not a plausible layer count",
            arch
        )));
    }
    let nl = n_layer as usize;
    let n_ctx_train = r.req_u64("n_ctx_train", "context_length")?;
    let n_embd = r.req_u64("n_embd", "embedding_length")?;
    let n_vocab = match r.opt_u64("n_vocab", "vocab_size") {
        Some(v) => v,
        None => {
            if let Some(a) = m.get("tokenizer.ggml.tokens").and_then(|v| v.as_array()) {
                r.record(
                    "n_vocab",
                    a.len,
                    InputSource::Gguf {
                        key: "tokenizer.ggml.tokens (length)".into(),
                    },
                );
                a.len
            } else if let Some(t) = m.tensor("token_embd.weight") {
                let v = t.dims.get(1).copied().unwrap_or(0);
                r.record(
                    "n_vocab",
                    v,
                    InputSource::Tensors {
                        detail: "token_embd.weight ne[1]".into(),
                    },
                );
                v
            } else {
                r.notes
                    .push("vocabulary size unknown: output buffer not estimated".into());
                0
            }
        }
    };
    let n_head = r
        .per_layer("n_head", "attention.head_count", nl)?
        .unwrap_or_else(|| vec![0; nl]);
    let n_head_kv = match r.per_layer("n_head_kv", "attention.head_count_kv", nl)? {
        Some(v) => v,
        None => {
            r.record(
                "n_head_kv",
                n_head[0],
                InputSource::Derived {
                    rule: "head_count_kv absent: equals head_count".into(),
                },
            );
            n_head.clone()
        }
    };
    // n_embd_head_k = n_embd / n_head() unless key_length is given (n_head() is layer 0's).
    let default_head = n_embd.checked_div(n_head[0]).unwrap_or(0);
    let hk = match r.opt_u64("key_length", "attention.key_length") {
        Some(v) => v,
        None => {
            r.record(
                "key_length",
                default_head,
                InputSource::Derived {
                    rule: "n_embd / head_count".into(),
                },
            );
            default_head
        }
    };
    let hv = match r.opt_u64("value_length", "attention.value_length") {
        Some(v) => v,
        None => {
            r.record(
                "value_length",
                default_head,
                InputSource::Derived {
                    rule: "n_embd / head_count".into(),
                },
            );
            default_head
        }
    };
    let k_mla = r
        .opt_u64("key_length_mla", "attention.key_length_mla")
        .unwrap_or(0);
    let v_mla = r
        .opt_u64("value_length_mla", "attention.value_length_mla")
        .unwrap_or(0);
    let is_mla = k_mla > 0 && v_mla > 0;
    if is_mla {
        r.notes.push(
            "MLA: the cache holds the compressed latent (key_length = kv_lora_rank + rope dims); \
             V is a view of K in current llama.cpp, so V adds no bytes"
                .into(),
        );
    } else if m.get(&format!("{arch}.attention.kv_lora_rank")).is_some() {
        r.notes.push(
            "kv_lora_rank present without *_mla lengths: an older conversion whose cache holds \
             full per-head K/V (several times larger than an MLA conversion)"
                .into(),
        );
    }

    // Sliding window.
    let n_swa = r.opt_u64("n_swa", "attention.sliding_window").unwrap_or(0);
    let mut swa_layers = vec![false; nl];
    if n_swa > 0 {
        let pat_key = format!("{arch}.attention.sliding_window_pattern");
        match m.get(&pat_key) {
            Some(MetaValue::Array(a)) => {
                let vals = a.values.as_ref().filter(|v| v.len() >= nl).ok_or_else(|| {
                    r.err(format!("{pat_key} has {} entries for {nl} layers", a.len))
                })?;
                for (il, v) in vals.iter().take(nl).enumerate() {
                    swa_layers[il] = v.as_bool().unwrap_or(false);
                }
                r.record("swa_pattern", "per-layer array", InputSource::Gguf { key: pat_key });
            }
            Some(v) if v.as_u64().is_some() => {
                let p = v.as_u64().unwrap_or(0);
                set_pattern(&mut swa_layers, p);
                r.record("swa_pattern", p, InputSource::Gguf { key: pat_key });
            }
            _ => match SWA_PATTERNS.iter().find(|(a, _)| *a == arch) {
                Some(&(_, p)) => {
                    set_pattern(&mut swa_layers, p);
                    r.record(
                        "swa_pattern",
                        format!("{} SWA : 1 full", p - 1),
                        InputSource::Default {
                            detail: format!("llama.cpp's pattern for {arch}"),
                        },
                    );
                }
                None => r.notes.push(format!(
                    "{arch}.attention.sliding_window is set but gpuledger does not know llama.cpp's \
                     layer pattern for {arch}: every layer is counted as full-context (an upper bound)"
                )),
            },
        }
    }
    let any_swa = swa_layers.iter().any(|&b| b);
    let hk_swa = if any_swa {
        r.opt_u64("key_length_swa", "attention.key_length_swa")
    } else {
        None
    };
    let hv_swa = if any_swa {
        r.opt_u64("value_length_swa", "attention.value_length_swa")
    } else {
        None
    };
    let head_k = (0..nl)
        .map(|il| {
            if swa_layers[il] {
                hk_swa.unwrap_or(hk)
            } else {
                hk
            }
        })
        .collect();
    let head_v = (0..nl)
        .map(|il| {
            if swa_layers[il] {
                hv_swa.unwrap_or(hv)
            } else {
                hv
            }
        })
        .collect();

    // Which kind of memory, which layers.
    let cache = if NO_KV_ARCHS.contains(&arch.as_str()) {
        CacheKind::None
    } else if RECURRENT_ARCHS.contains(&arch.as_str()) {
        CacheKind::Recurrent
    } else if HYBRID_ARCHS.contains(&arch.as_str()) {
        CacheKind::Hybrid
    } else if any_swa {
        CacheKind::Iswa
    } else {
        CacheKind::Kv
    };
    let mut recurrent = vec![false; nl];
    match cache {
        CacheKind::Recurrent => recurrent = vec![true; nl],
        CacheKind::Hybrid => {
            if let Some(iv) = r.opt_u64("full_attention_interval", "full_attention_interval") {
                for (il, rec) in recurrent.iter_mut().enumerate() {
                    *rec = iv == 0 || !(il as u64 + 1).is_multiple_of(iv);
                }
            } else {
                for il in 0..nl {
                    recurrent[il] = n_head_kv[il] == 0;
                }
            }
        }
        _ => {}
    }
    // Layers with KV: not recurrent, with KV heads, and below n_layer_kv_from_start.
    let mut kv_from_start = nl;
    if let Some(shared) = r.opt_u64("shared_kv_layers", "attention.shared_kv_layers") {
        kv_from_start = nl.saturating_sub(shared as usize);
    } else if arch == "gemma3n" {
        kv_from_start = 20.min(nl);
        r.record(
            "n_layer_kv_from_start",
            kv_from_start,
            InputSource::Default {
                detail: "llama.cpp's value for gemma3n".into(),
            },
        );
    }
    if let Some(nextn) = r.opt_u64("nextn_predict_layers", "nextn_predict_layers") {
        kv_from_start = kv_from_start.min(nl.saturating_sub(nextn as usize));
    }
    let has_kv: Vec<bool> = (0..nl)
        .map(|il| {
            cache != CacheKind::None && !recurrent[il] && il < kv_from_start && n_head_kv[il] > 0
        })
        .collect();

    let rs_elems_per_layer = if recurrent.iter().any(|&b| b) {
        rs_elems(&mut r, &arch, n_embd)
    } else {
        None
    };

    // Sizes no model has (a corrupt or hostile header): a clear error instead of arithmetic that
    // overflows. The bounds are orders of magnitude above any published model.
    let plausible = |name: &str, v: u64, max: u64| -> Result<(), HparamError> {
        if v > max {
            return Err(r.err(format!(
                "{name} = {v} is not a plausible value (at most {max})"
            )));
        }
        Ok(())
    };
    plausible("embedding_length", n_embd, 1 << 20)?;
    plausible("n_vocab", n_vocab, 1 << 32)?;
    plausible("sliding_window", n_swa, 1 << 32)?;
    for il in 0..nl {
        let head_k: &Vec<u64> = &head_k;
        let head_v: &Vec<u64> = &head_v;
        plausible("head_count", n_head[il], 1 << 16)?;
        plausible("head_count_kv", n_head_kv[il], 1 << 16)?;
        plausible("key_length", head_k[il], 1 << 16)?;
        plausible("value_length", head_v[il], 1 << 16)?;
    }
    if let Some(rs) = rs_elems_per_layer {
        plausible("recurrent state per layer", rs, 1 << 40)?;
    }
    let inputs = std::mem::take(&mut r.inputs);
    let notes = std::mem::take(&mut r.notes);
    Ok(ModelParams {
        arch,
        n_layer: n_layer as u32,
        n_ctx_train,
        n_embd,
        n_vocab,
        n_head,
        n_head_kv,
        head_k,
        head_v,
        n_swa,
        swa_layers,
        has_kv,
        recurrent,
        rs_elems_per_layer,
        is_mla,
        cache,
        inputs,
        notes,
    })
}

/// `llama_hparams::set_swa_pattern(n)` (not dense-first): SWA iff `il % n < n - 1`; 0 = all SWA.
fn set_pattern(layers: &mut [bool], n: u64) {
    for (il, l) in layers.iter_mut().enumerate() {
        *l = n == 0 || (il as u64 % n) < n - 1;
    }
}

/// `n_embd_r() + n_embd_s()` (llm-memory.md §2.7).
fn rs_elems(r: &mut Reader<'_>, arch: &str, n_embd: u64) -> Option<u64> {
    if arch.starts_with("rwkv") || arch == "arwkv7" {
        let shift = r
            .opt_u64("token_shift_count", "token_shift_count")
            .unwrap_or(2);
        let head = r.opt_u64("wkv_head_size", "wkv.head_size")?;
        return Some(shift * n_embd + n_embd * head);
    }
    if arch.starts_with("lfm2") {
        let l = r.opt_u64("shortconv_l_cache", "shortconv.l_cache")?;
        return Some(n_embd * l.saturating_sub(1));
    }
    if arch == "qwen3next" || arch == "kimi-linear" {
        r.notes.push(format!(
            "the recurrent-state formula for {arch} is not modelled: its RS buffer is left out"
        ));
        return None;
    }
    let d_conv = r.opt_u64("ssm_d_conv", "ssm.conv_kernel")?;
    let d_inner = r.opt_u64("ssm_d_inner", "ssm.inner_size")?;
    let d_state = r.opt_u64("ssm_d_state", "ssm.state_size")?;
    let n_group = r.opt_u64("ssm_n_group", "ssm.group_count").unwrap_or(0);
    Some(d_conv.saturating_sub(1) * (d_inner + 2 * n_group * d_state) + d_state * d_inner)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn gemma3_pattern_is_five_swa_then_one_full() {
        let mut l = vec![false; 12];
        set_pattern(&mut l, 6);
        assert_eq!(
            l,
            [true, true, true, true, true, false, true, true, true, true, true, false]
        );
        let mut l = vec![false; 4];
        set_pattern(&mut l, 2);
        assert_eq!(l, [true, false, true, false]);
    }
}
