//! Which layers hold which memory, as llama.cpp's `create_memory` lays it out for the
//! architecture (`archs`' table): the attention cache's layers, the recurrent layers and the
//! recurrent state's size per layer.

use super::archs::{self, LayerFacts, Memory, Recurrent, StateKeys};
use super::hparams::{hdr, CacheKind, HparamError, InputSource, Reader};
use crate::gguf::MetaValue;
use gpuledger_lang::Said;

/// The memory's layout.
pub(super) struct Layout {
    pub cache: CacheKind,
    pub recurrent: Vec<bool>,
    pub has_kv: Vec<bool>,
    /// `n_embd_r() + n_embd_s()`, when the recurrent layers' keys are there.
    pub rs_elems: Option<u64>,
    pub arch_known: bool,
}

impl Reader<'_> {
    /// The memory llama.cpp creates for this architecture and which layers hold it; an
    /// architecture the table does not know gets the generic transformer's, said in `guesses`.
    pub(super) fn memory(
        &mut self,
        n_embd: u64,
        n_trunk: usize,
        (n_head, n_head_kv): (&[u64], &[u64]),
        any_swa: bool,
    ) -> Result<Layout, HparamError> {
        let arch = self.arch.clone();
        let entry = archs::lookup(&arch);
        let memory = match entry {
            Some(a) => a.memory,
            None => {
                self.guesses.push(format!(
                    "architecture '{arch}' is not in gpuledger's table of llama.cpp's \
                     architectures (build b11434): estimated as a plain transformer (a KV cache \
                     on every layer with KV heads, the generic graph); a newer llama.cpp may give \
                     it other memory (recurrent state, windows, indexer caches)"
                ));
                Memory::Attention
            }
        };
        if let Some(what) = entry.and_then(|a| a.unmodelled) {
            self.guesses.push(format!(
                "{arch}: llama.cpp also allocates {what}, which gpuledger does not size: the \
                 KV cache line leaves it out"
            ));
        }
        let nl = n_head_kv.len();
        let cache = match memory {
            Memory::None => CacheKind::None,
            Memory::Attention if any_swa => CacheKind::Iswa,
            Memory::Attention => CacheKind::Kv,
            Memory::Recurrent => CacheKind::Recurrent,
            Memory::Hybrid(_) => CacheKind::Hybrid,
        };
        let (recurrent, attn): (Vec<bool>, Vec<bool>) = match memory {
            Memory::None => (vec![false; nl], vec![false; nl]),
            Memory::Recurrent => (vec![true; nl], vec![false; nl]),
            Memory::Attention => (vec![false; nl], (0..nl).map(|il| il < n_trunk).collect()),
            Memory::Hybrid(rule) => self.hybrid_layers(rule, n_trunk, n_head_kv)?,
        };
        let kv_from_start = self.kv_from_start(nl);
        let has_kv = (0..nl)
            .map(|il| attn[il] && il < kv_from_start && n_head_kv[il] > 0)
            .collect();
        let rs_elems = if recurrent.iter().any(|&b| b) {
            self.state_elems(n_embd, n_head.first().copied().unwrap_or(0))
        } else {
            None
        };
        Ok(Layout {
            cache,
            recurrent,
            has_kv,
            rs_elems,
            arch_known: entry.is_some(),
        })
    }

    /// A hybrid's recurrent layers (`is_recr_impl`) and attention layers (`filter_attn`).
    fn hybrid_layers(
        &mut self,
        rule: Recurrent,
        n_trunk: usize,
        n_head_kv: &[u64],
    ) -> Result<(Vec<bool>, Vec<bool>), HparamError> {
        let nl = n_head_kv.len();
        let n_ff = if rule == Recurrent::NoKvHeadsNoFfn {
            self.per_layer("n_ff", "feed_forward_length", nl)?
                .unwrap_or_else(|| vec![0; nl])
        } else {
            Vec::new()
        };
        let (array, interval) = if rule == Recurrent::ArrayOrInterval {
            match self.recurrent_array(nl)? {
                Some(a) => (Some(a), None),
                None => (None, self.interval()?),
            }
        } else {
            (None, None)
        };
        let facts = LayerFacts {
            n_trunk,
            n_head_kv,
            n_ff: &n_ff,
            array,
            interval,
        };
        let recurrent = archs::recurrent_layers(rule, &facts);
        let attn = (0..nl)
            .map(|il| archs::attention_layer(rule, &facts, &recurrent, il))
            .collect();
        Ok((recurrent, attn))
    }

    /// The converter's `attention.recurrent_layers` (a bool per layer; `get_key_or_arr`).
    fn recurrent_array(&mut self, nl: usize) -> Result<Option<Vec<bool>>, HparamError> {
        let key = self.key("attention.recurrent_layers");
        let flag = |v: &MetaValue| v.as_bool().or_else(|| v.as_u64().map(|x| x != 0));
        let out = match self.m.get(&key) {
            None => return Ok(None),
            Some(MetaValue::Array(a)) => {
                let vals = a.values.as_ref().filter(|v| v.len() >= nl).ok_or_else(|| {
                    self.err(hdr(
                        "recipe-hdr-bool-array-layers",
                        &[
                            ("key", key.clone()),
                            ("n", a.len.to_string()),
                            ("layers", nl.to_string()),
                        ],
                    ))
                })?;
                vals[..nl]
                    .iter()
                    .map(flag)
                    .collect::<Option<Vec<_>>>()
                    .ok_or_else(|| {
                        self.err(hdr("recipe-hdr-not-booleans", &[("key", key.clone())]))
                    })?
            }
            Some(v) => {
                vec![
                    flag(v).ok_or_else(
                        || self.err(hdr("recipe-hdr-not-boolean", &[("key", key.clone())]))
                    )?;
                    nl
                ]
            }
        };
        let n = out.iter().filter(|&&b| b).count();
        let shown = Said::new(
            "recipe-value-n-of-layers",
            vec![("n", n.into()), ("total", nl.into())],
        );
        self.record_said("recurrent_layers", shown, InputSource::Gguf { key });
        Ok(Some(out))
    }

    /// `full_attention_interval` (llama.cpp's default 4); 0 is refused: llama.cpp divides by it.
    fn interval(&mut self) -> Result<Option<u64>, HparamError> {
        let iv = self.opt_u64("full_attention_interval", "full_attention_interval");
        if iv == Some(0) {
            let key = self.key("full_attention_interval");
            return Err(self.err(hdr("recipe-hdr-interval-zero", &[("key", key)])));
        }
        if iv.is_none() {
            let detail = Said::new("recipe-rule-full-attention-interval", vec![]);
            self.record(
                "full_attention_interval",
                4,
                InputSource::Default { detail },
            );
        }
        Ok(iv)
    }

    /// Layers below `n_layer_kv_from_start` keep a KV cache (`llama_hparams::has_kv`): the
    /// others share an earlier layer's (Gemma 3n, Gemma 4).
    fn kv_from_start(&mut self, nl: usize) -> usize {
        if let Some(shared) = self.opt_u64("shared_kv_layers", "attention.shared_kv_layers") {
            return nl.saturating_sub(shared as usize);
        }
        if self.arch == "gemma3n" {
            let kv_from_start = 20.min(nl);
            let detail = Said::new("recipe-rule-gemma3n-kv-from-start", vec![]);
            self.record(
                "n_layer_kv_from_start",
                kv_from_start,
                InputSource::Default { detail },
            );
            return kv_from_start;
        }
        nl
    }

    /// `n_embd_r() + n_embd_s()` from the keys the architecture's `load_arch_hparams` reads;
    /// `None`, with a note, when they are missing (llama.cpp would refuse the file).
    fn state_elems(&mut self, n_embd: u64, n_head: u64) -> Option<u64> {
        let mut k = StateKeys {
            n_embd,
            n_head,
            token_shift_count: 2,
            ..StateKeys::default()
        };
        let get = |r: &mut Self, name: &str, suffix: &str| r.opt_u64(name, suffix).unwrap_or(0);
        k.wkv_head_size = get(self, "wkv_head_size", "wkv.head_size");
        if k.wkv_head_size != 0 {
            k.token_shift_count = self
                .opt_u64("token_shift_count", "token_shift_count")
                .unwrap_or(2);
        }
        k.shortconv_l_cache = get(self, "shortconv_l_cache", "shortconv.l_cache");
        k.kda_head_dim = get(self, "kda_head_dim", "kda.head_dim");
        k.ssm_d_conv = get(self, "ssm_d_conv", "ssm.conv_kernel");
        k.ssm_d_inner = get(self, "ssm_d_inner", "ssm.inner_size");
        k.ssm_d_state = get(self, "ssm_d_state", "ssm.state_size");
        k.ssm_n_group = get(self, "ssm_n_group", "ssm.group_count");
        if self.arch == "minimax-01" {
            // llama_model_minimax_01::load_arch_hparams: n_embd_head_la = n_embd_head_k.
            k.la_head_dim = self
                .opt_u64("key_length", "attention.key_length")
                .unwrap_or_else(|| n_embd.checked_div(n_head).unwrap_or(0));
        }
        let (r, s) = archs::state_elems(&k);
        if r.saturating_add(s) == 0 {
            self.notes.push(Said::new(
                "recipe-note-state-keys-missing",
                vec![("arch", self.arch.as_str().into())],
            ));
            return None;
        }
        Some(r.saturating_add(s))
    }
}
