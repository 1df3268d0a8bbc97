//! The model's hyper-parameters as llama.cpp derives them from GGUF keys (`load_hparams`), each
//! with the key (or the rule) it came from.

use gpuledger_lang::Said;
use serde::Serialize;

use super::archs;
use crate::gguf::{GgufModel, MetaValue};

pub use gpuledger_model::llama_estimate::{CacheKind, Input, InputSource};

#[derive(Debug, Clone, Serialize)]
pub struct ModelParams {
    pub arch: String,
    pub n_layer: u32,
    pub n_ctx_train: u64,
    /// `expert_count` (0: not a mixture of experts).
    pub n_expert: u64,
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
    /// The first next-token-prediction (MTP) layer whose tensors llama-server does not load
    /// (`archs::skips_mtp_tensors`); `None` where every layer's tensors load.
    pub mtp_skipped_from: Option<u32>,
    pub recurrent: Vec<bool>,
    /// Recurrent state elements per layer (r + s), when the formula for the arch is known.
    pub rs_elems_per_layer: Option<u64>,
    /// qwen4exp's PLE conv history: its layer and the elements of its extra recurrent row
    /// (`qsa::ple_state`).
    pub ple_state: Option<(usize, u64)>,
    pub is_mla: bool,
    /// The sparse-attention indexer's key cache (`indexer.rs`), where the architecture has one.
    pub indexer: Option<super::indexer::IndexerParams>,
    pub cache: CacheKind,
    /// Whether the architecture is in `archs`' table (else the generic rule, said in `guesses`).
    pub arch_known: bool,
    /// What the estimate fills in with a generic rule (an unknown architecture, a memory module
    /// not modelled), one sentence each: the estimate is approximate where this is not empty.
    pub guesses: Vec<String>,
    pub inputs: Vec<Input>,
    pub notes: Vec<Said>,
}

/// `load_swa_pattern(ml, n, dense_first)` per architecture, where the file sets a window, in
/// b11434's `load_arch_hparams` (src/models/<arch>.cpp; the rule is
/// `llama_hparams::set_swa_pattern` in llama-hparams.cpp): layer `il` is SWA iff
/// `il % n < n - 1` (the n-th, 2n-th... layer is full), or with `dense_first` iff `il % n != 0`.
/// Windows an architecture forces (gemma2, llama4, smallthinker, exaone4) are
/// `archs::forced_window`'s.
const SWA_PATTERNS: &[(&str, u64, bool)] = &[
    ("gemma3", 6, false),
    ("gemma3n", 5, false),
    ("cohere2", 4, false),
    // llama_model_cohere2moe::load_arch_hparams: load_swa_pattern(ml, 4, true)
    ("cohere2moe", 4, true),
    ("gpt-oss", 2, false),
    // exaone-moe, olmo2, mellum, afmoe, muse-glimmer: load_swa_pattern(ml, 4)
    ("exaone-moe", 4, false),
    ("olmo2", 4, false),
    ("mellum", 4, false),
    ("afmoe", 4, false),
    ("muse-glimmer", 4, false),
    // llama_model_laguna::load_arch_hparams: full at il % 4 == 0
    ("laguna", 4, true),
    ("plamo3", 8, false),
];

pub struct Reader<'a> {
    pub(super) m: &'a GgufModel,
    pub(super) arch: String,
    pub inputs: Vec<Input>,
    pub notes: Vec<Said>,
    pub(super) guesses: Vec<String>,
}

/// `Display` is one line: the file's name and the message quote the model file (its
/// architecture, its keys), escaped so that a newline in them forges no line of output.
#[derive(Debug, thiserror::Error)]
#[error(
    "{}: {}",
    gpuledger_model::term_safe(file),
    gpuledger_model::term_safe(message)
)]
pub struct HparamError {
    pub file: String,
    /// What is wrong with the header, as a sentence (its keys quoted as the file has them).
    pub message: Said,
}

/// `key` with its values as strings: a header's figures are written as they are, not as the
/// language would group them.
pub(super) fn hdr(key: &'static str, args: &[(&'static str, String)]) -> Said {
    Said::new(
        key,
        args.iter().map(|(k, v)| (*k, v.as_str().into())).collect(),
    )
}

impl<'a> Reader<'a> {
    pub(super) fn err(&self, msg: impl Into<Said>) -> HparamError {
        HparamError {
            file: self.m.path().display().to_string(),
            message: msg.into(),
        }
    }

    pub(super) fn key(&self, suffix: &str) -> String {
        format!("{}.{suffix}", self.arch)
    }

    pub(super) fn record(&mut self, name: &str, value: impl ToString, source: InputSource) {
        self.record_said(name, Said::verbatim(value.to_string()), source);
    }

    /// An input whose value is a sentence each view says in its language.
    pub(super) fn record_said(&mut self, name: &str, value: Said, source: InputSource) {
        self.inputs.push(Input {
            name: name.into(),
            value,
            source,
        });
    }

    pub(super) fn opt_u64(&mut self, name: &str, suffix: &str) -> Option<u64> {
        let key = self.key(suffix);
        let v = self.m.get(&key)?.as_u64()?;
        self.record(name, v, InputSource::Gguf { key });
        Some(v)
    }

    fn req_u64(&mut self, name: &str, suffix: &str) -> Result<u64, HparamError> {
        let key = self.key(suffix);
        self.opt_u64(name, suffix)
            .ok_or_else(|| self.err(hdr("recipe-hdr-required", &[("key", key.clone())])))
    }

    /// A key that may be a scalar or a per-layer array (`get_key_or_arr`).
    pub(super) fn per_layer(
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
                    self.err(hdr(
                        "recipe-hdr-array-too-long",
                        &[("key", key.clone()), ("n", a.len.to_string())],
                    ))
                })?;
                if vals.len() < n {
                    return Err(self.err(hdr(
                        "recipe-hdr-array-layers",
                        &[
                            ("key", key.clone()),
                            ("n", vals.len().to_string()),
                            ("layers", n.to_string()),
                        ],
                    )));
                }
                vals[..n]
                    .iter()
                    .map(|x| x.as_u64())
                    .collect::<Option<Vec<_>>>()
                    .ok_or_else(|| {
                        self.err(hdr("recipe-hdr-not-integers", &[("key", key.clone())]))
                    })?
            }
            other => vec![
                other.as_u64().ok_or_else(
                    || self.err(hdr("recipe-hdr-not-integer", &[("key", key.clone())]))
                )?;
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

/// Read the hyper-parameters llama.cpp's `load_hparams` reads, group by group: sizes, heads and
/// head dimensions, MLA, the sliding window, the kind of memory and which layers hold it.
pub fn read_params(m: &GgufModel) -> Result<ModelParams, HparamError> {
    let arch = m
        .architecture()
        .ok_or_else(|| HparamError {
            file: m.path().display().to_string(),
            message: Said::new("recipe-hdr-no-arch", vec![]),
        })?
        .to_string();
    let mut r = Reader {
        m,
        arch: arch.clone(),
        inputs: Vec::new(),
        notes: Vec::new(),
        guesses: Vec::new(),
    };
    r.record(
        "architecture",
        &arch,
        InputSource::Gguf {
            key: "general.architecture".into(),
        },
    );
    let nl = r.layer_count()? as usize;
    let n_ctx_train = r.req_u64("n_ctx_train", "context_length")?;
    let n_embd = r.req_u64("n_embd", "embedding_length")?;
    let n_vocab = r.vocab_size();
    let (n_head, n_head_kv) = r.heads(nl)?;
    let nl = n_head_kv.len();
    // n_embd_head_k = n_embd / n_head() unless key_length is given (n_head() is layer 0's).
    let default_head = n_embd.checked_div(n_head[0]).unwrap_or(0);
    let hk = r.u64_or_derived("key_length", "attention.key_length", default_head);
    let hv = r.u64_or_derived("value_length", "attention.value_length", default_head);
    let is_mla = r.mla();
    let nextn = r.opt_u64("nextn_predict_layers", "nextn_predict_layers");
    let n_trunk = nl.saturating_sub(nextn.unwrap_or(0) as usize);
    let (n_swa, swa_layers) = r.window(nl, n_trunk)?;
    let head_k = r.head_dims(
        "key_length_swa",
        "attention.key_length_swa",
        hk,
        &swa_layers,
    );
    let head_v = r.head_dims(
        "value_length_swa",
        "attention.value_length_swa",
        hv,
        &swa_layers,
    );
    let any_swa = swa_layers.iter().any(|&b| b);
    let mem = r.memory(n_embd, n_trunk, (&n_head, &n_head_kv), any_swa)?;
    let indexer = r.indexer((&mem.has_kv, n_trunk), n_ctx_train)?;
    let p = ModelParams {
        arch,
        n_layer: nl as u32,
        n_ctx_train,
        n_expert: r.expert_count(),
        n_embd,
        n_vocab,
        n_head,
        n_head_kv,
        head_k,
        head_v,
        n_swa,
        swa_layers,
        has_kv: mem.has_kv,
        mtp_skipped_from: r.mtp_skipped(nl, n_trunk),
        ple_state: r.ple_state(n_embd, &mem.recurrent)?,
        recurrent: mem.recurrent,
        rs_elems_per_layer: mem.rs_elems,
        is_mla,
        indexer,
        cache: mem.cache,
        arch_known: mem.arch_known,
        guesses: std::mem::take(&mut r.guesses),
        inputs: std::mem::take(&mut r.inputs),
        notes: std::mem::take(&mut r.notes),
    };
    r.check_plausible(&p)?;
    Ok(p)
}

impl Reader<'_> {
    /// llama.cpp's `hparams.n_expert`; not an input of the memory lines, so not recorded.
    fn expert_count(&self) -> u64 {
        let key = self.key("expert_count");
        self.m.get(&key).and_then(MetaValue::as_u64).unwrap_or(0)
    }

    /// `block_count`, refused when no model could have it.
    fn layer_count(&mut self) -> Result<u64, HparamError> {
        let n_layer = self.req_u64("n_layer", "block_count")?;
        if n_layer == 0 || n_layer > 100_000 {
            let key = format!("{}.block_count", self.arch);
            let args = [("key", key), ("n", n_layer.to_string())];
            return Err(self.err(hdr("recipe-hdr-block-count", &args)));
        }
        Ok(n_layer)
    }

    /// `vocab_size`, else the tokenizer's token count, else `token_embd`'s rows (0: unknown).
    fn vocab_size(&mut self) -> u64 {
        if let Some(v) = self.opt_u64("n_vocab", "vocab_size") {
            return v;
        }
        let m = self.m;
        if let Some(a) = m.get("tokenizer.ggml.tokens").and_then(|v| v.as_array()) {
            let key = "tokenizer.ggml.tokens (length)".into();
            self.record("n_vocab", a.len, InputSource::Gguf { key });
            a.len
        } else if let Some(t) = m.tensor("token_embd.weight") {
            let v = t.dims.get(1).copied().unwrap_or(0);
            let detail = "token_embd.weight ne[1]".into();
            self.record("n_vocab", v, InputSource::Tensors { detail });
            v
        } else {
            self.notes
                .push(Said::new("recipe-note-vocab-unknown", vec![]));
            0
        }
    }

    /// Heads and KV heads per layer (KV heads default to the heads), and the router layer's
    /// where the architecture adds one.
    fn heads(&mut self, nl: usize) -> Result<(Vec<u64>, Vec<u64>), HparamError> {
        let n_head = self
            .per_layer("n_head", "attention.head_count", nl)?
            .unwrap_or_else(|| vec![0; nl]);
        let n_head_kv = match self.per_layer("n_head_kv", "attention.head_count_kv", nl)? {
            Some(v) => v,
            None => {
                let rule = Said::new("recipe-rule-head-kv-absent", vec![]);
                self.record("n_head_kv", n_head[0], InputSource::Derived { rule });
                n_head.clone()
            }
        };
        let (mut n_head, mut n_head_kv) = (n_head, n_head_kv);
        if archs::router_layer(&self.arch) {
            // One head and one KV head, after the file's blocks.
            n_head.push(1);
            n_head_kv.push(1);
            let rule = Said::new("recipe-rule-router-layer", vec![]);
            self.record("router_layer", nl, InputSource::Derived { rule });
        }
        Ok((n_head, n_head_kv))
    }

    /// A head dimension: the key, else `n_embd / head_count`.
    fn u64_or_derived(&mut self, name: &str, suffix: &str, default_head: u64) -> u64 {
        if let Some(v) = self.opt_u64(name, suffix) {
            return v;
        }
        let rule = "n_embd / head_count".into();
        self.record(name, default_head, InputSource::Derived { rule });
        default_head
    }

    /// The trunk's end where the architecture leaves its nextn layers' tensors unloaded.
    fn mtp_skipped(&mut self, nl: usize, n_trunk: usize) -> Option<u32> {
        if n_trunk >= nl || !archs::skips_mtp_tensors(&self.arch) {
            return None;
        }
        self.notes.push(Said::new(
            "recipe-note-mtp-skipped",
            vec![
                ("count", (nl - n_trunk).to_string().into()),
                ("after", (n_trunk - 1).to_string().into()),
                ("arch", self.arch.as_str().into()),
            ],
        ));
        Some(n_trunk as u32)
    }

    /// Whether the cache is MLA's compressed latent (both `*_mla` lengths given), with a note
    /// either way where the model has a latent.
    fn mla(&mut self) -> bool {
        let k_mla = self
            .opt_u64("key_length_mla", "attention.key_length_mla")
            .unwrap_or(0);
        let v_mla = self
            .opt_u64("value_length_mla", "attention.value_length_mla")
            .unwrap_or(0);
        let is_mla = k_mla > 0 && v_mla > 0;
        if is_mla {
            self.notes.push(Said::new("recipe-note-mla", vec![]));
        } else if self.m.get(&self.key("attention.kv_lora_rank")).is_some() {
            self.notes
                .push(Said::new("recipe-note-mla-old-conversion", vec![]));
        }
        is_mla
    }

    /// The window and which layers use it: a window the architecture's `load_arch_hparams` sets
    /// or refuses (`archs::forced_window`), else the file's, with the file's pattern or
    /// llama.cpp's for the architecture.
    fn window(&mut self, nl: usize, n_trunk: usize) -> Result<(u64, Vec<bool>), HparamError> {
        let file_swa = self.opt_u64("n_swa", "attention.sliding_window");
        let arch = self.arch.clone();
        match archs::forced_window(&arch, n_trunk as u64, file_swa) {
            Some(None) => {
                if file_swa.unwrap_or(0) > 0 && arch == "exaone4" {
                    self.notes.push(Said::new(
                        "recipe-note-exaone4-no-swa",
                        vec![("layers", n_trunk.to_string().into())],
                    ));
                }
                if file_swa.unwrap_or(0) > 0 && arch == "phi3" {
                    self.notes
                        .push(Said::new("recipe-note-phi3-no-swa", vec![]));
                }
                Ok((0, vec![false; nl]))
            }
            Some(Some(w)) => {
                let detail = Said::new(w.rule, vec![]);
                self.record("n_swa", w.n_swa, InputSource::Default { detail });
                if w.chunked {
                    self.notes.push(Said::new(
                        "recipe-note-chunked",
                        vec![
                            ("arch", arch.as_str().into()),
                            ("tokens", w.n_swa.to_string().into()),
                        ],
                    ));
                }
                let default = Some((w.pattern, w.dense_first, Said::new(w.rule, vec![])));
                Ok((w.n_swa, self.swa_layers(nl, n_trunk, default)?))
            }
            None => {
                let n_swa = file_swa.unwrap_or(0);
                if n_swa == 0 {
                    return Ok((0, vec![false; nl]));
                }
                let default =
                    SWA_PATTERNS
                        .iter()
                        .find(|(a, _, _)| *a == arch)
                        .map(|&(_, p, first)| {
                            let rule = vec![("arch", arch.as_str().into())];
                            (p, first, Said::new("recipe-rule-swa-pattern", rule))
                        });
                Ok((n_swa, self.swa_layers(nl, n_trunk, default)?))
            }
        }
    }

    /// Which layers use the sliding window (`load_swa_pattern`): the file's per-layer array or
    /// period, else the architecture's `(period, dense_first, rule)`; the trunk's layers only
    /// (`set_swa_pattern` leaves next-token-prediction layers full).
    fn swa_layers(
        &mut self,
        nl: usize,
        n_trunk: usize,
        default: Option<(u64, bool, Said)>,
    ) -> Result<Vec<bool>, HparamError> {
        let mut swa_layers = vec![false; nl];
        let arch = self.arch.clone();
        let pat_key = self.key("attention.sliding_window_pattern");
        let dense_first = default.as_ref().is_some_and(|d| d.1);
        let trunk = n_trunk.min(nl);
        match self.m.get(&pat_key) {
            // load_swa_pattern's get_arr takes any length: layers past its end are not SWA
            // (dots3note's converter writes the trunk's layers only).
            Some(MetaValue::Array(a)) => {
                let vals = a.values.as_ref().ok_or_else(|| {
                    self.err(hdr(
                        "recipe-hdr-pattern-too-long",
                        &[("key", pat_key.clone()), ("n", a.len.to_string())],
                    ))
                })?;
                for (il, v) in vals.iter().take(nl).enumerate() {
                    swa_layers[il] = v.as_bool().unwrap_or(false);
                }
                let value = Said::new("recipe-value-per-layer-array", vec![]);
                let key = pat_key;
                self.record_said("swa_pattern", value, InputSource::Gguf { key });
            }
            Some(v) if v.as_u64().is_some() => {
                let p = v.as_u64().unwrap_or(0);
                set_pattern(&mut swa_layers[..trunk], p, dense_first);
                self.record("swa_pattern", p, InputSource::Gguf { key: pat_key });
            }
            _ => match default {
                Some((p, dense_first, detail)) => {
                    set_pattern(&mut swa_layers[..trunk], p, dense_first);
                    let key = match dense_first {
                        true => "recipe-value-swa-pattern-full-first",
                        false => "recipe-value-swa-pattern",
                    };
                    let shown = Said::new(key, vec![("swa", p.saturating_sub(1).into())]);
                    self.record_said("swa_pattern", shown, InputSource::Default { detail });
                }
                None => self.notes.push(Said::new(
                    "recipe-note-swa-pattern-unknown",
                    vec![("arch", arch.as_str().into())],
                )),
            },
        }
        Ok(swa_layers)
    }

    /// A head dimension per layer: SWA layers may have their own (`*_swa`).
    fn head_dims(&mut self, name: &str, suffix: &str, full: u64, swa_layers: &[bool]) -> Vec<u64> {
        let swa = if swa_layers.iter().any(|&b| b) {
            self.opt_u64(name, suffix)
        } else {
            None
        };
        swa_layers
            .iter()
            .map(|&is_swa| if is_swa { swa.unwrap_or(full) } else { full })
            .collect()
    }

    /// The sparse-attention indexer's cache, where the architecture has one (`indexer.rs`).
    fn indexer(
        &mut self,
        layers: (&[bool], usize),
        n_ctx_train: u64,
    ) -> Result<Option<super::indexer::IndexerParams>, HparamError> {
        let (m, arch) = (self.m, self.arch.clone());
        let (inputs, notes) = (&mut self.inputs, &mut self.notes);
        if arch == "qwen4exp" {
            return super::qsa::read(m, &arch, layers.0, inputs).map_err(|e| self.err(e));
        }
        if arch == "deepseek4" {
            // Its lightning indexer's cache is one of llama_kv_cache_dsv4's (`dsv4.rs`).
            return Ok(None);
        }
        super::indexer::read(m, &arch, layers, n_ctx_train, inputs, notes).map_err(|e| self.err(e))
    }

    /// qwen4exp's PLE conv history row (`qsa.rs`); other architectures have none.
    fn ple_state(
        &mut self,
        n_embd: u64,
        recurrent: &[bool],
    ) -> Result<Option<(usize, u64)>, HparamError> {
        if self.arch != "qwen4exp" {
            return Ok(None);
        }
        let (m, arch) = (self.m, self.arch.clone());
        super::qsa::ple_state(m, &arch, n_embd, recurrent, &mut self.inputs)
            .map_err(|e| self.err(e))
    }

    /// Sizes no model has (a corrupt or hostile header): a clear error instead of arithmetic that
    /// overflows. The bounds are orders of magnitude above any published model.
    fn check_plausible(&self, p: &ModelParams) -> Result<(), HparamError> {
        let plausible = |name: &str, v: u64, max: u64| -> Result<(), HparamError> {
            if v > max {
                let args = [
                    ("name", name.to_string()),
                    ("value", v.to_string()),
                    ("max", max.to_string()),
                ];
                return Err(self.err(hdr("recipe-hdr-implausible", &args)));
            }
            Ok(())
        };
        plausible("embedding_length", p.n_embd, 1 << 20)?;
        plausible("n_vocab", p.n_vocab, 1 << 32)?;
        plausible("sliding_window", p.n_swa, 1 << 32)?;
        for il in 0..p.n_layer as usize {
            plausible("head_count", p.n_head[il], 1 << 16)?;
            plausible("head_count_kv", p.n_head_kv[il], 1 << 16)?;
            plausible("key_length", p.head_k[il], 1 << 16)?;
            plausible("value_length", p.head_v[il], 1 << 16)?;
        }
        if let Some(rs) = p.rs_elems_per_layer {
            plausible("recurrent state per layer", rs, 1 << 40)?;
        }
        Ok(())
    }
}

/// `llama_hparams::set_swa_pattern(n, dense_first)`: SWA iff `il % n < n - 1`, or dense first
/// iff `il % n != 0`; 0 = all SWA.
fn set_pattern(layers: &mut [bool], n: u64, dense_first: bool) {
    for (il, l) in layers.iter_mut().enumerate() {
        let i = il as u64;
        *l = n == 0
            || if dense_first {
                !i.is_multiple_of(n)
            } else {
                i % n < n - 1
            };
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn gemma3_pattern_is_five_swa_then_one_full() {
        let mut l = vec![false; 12];
        set_pattern(&mut l, 6, false);
        assert_eq!(
            l,
            [true, true, true, true, true, false, true, true, true, true, true, false]
        );
        let mut l = vec![false; 4];
        set_pattern(&mut l, 2, false);
        assert_eq!(l, [true, false, true, false]);
    }
}
