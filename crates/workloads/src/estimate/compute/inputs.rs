//! The per-micro-batch graph inputs (`llm_graph_input_*`), placed before any node in the order
//! the graph first reads them: tokens, positions, the caches' row indices and masks, the
//! indexers' inputs, the output rows.

use super::super::galloc::Id;
use super::attention::Cache;
use super::builder::{Builder, Inputs};

impl Builder<'_> {
    /// The graph inputs (`llm_graph_input_*`), placed before any node in the order of first use.
    pub(super) fn inputs(&mut self, masks: [Option<u64>; 2]) {
        let (t, n_seq) = (self.cur_t, self.n_seq);
        let tokens = self.token_inputs();
        // qwen4exp's PLE row indices (qple.rs)
        self.qple = self.qple_input();
        // kimi-k3's nope-only MLA reads no positions (models/kimi-k3.cpp).
        let any_kv = self.layers.iter().any(|l| l.has_kv) && self.p.arch != "kimi-k3";
        let any_rec = self.layers.iter().any(|l| l.recurrent);
        // Positions exist only for attention layers; recurrent layers read a state-copy index.
        // M-RoPE's four positions per token (qwen4exp reads them among its k-pool inputs, qsa.rs)
        let pos_bytes = t * 4 * self.positions_per_token();
        let qsa_first = any_kv && self.qsa_sizes().is_some();
        let mut pos = (any_kv && !qsa_first).then(|| self.g.input(pos_bytes));
        let s_copy = any_rec.then(|| self.g.input(n_seq * 4));
        let lid = self.lid_inputs(self.r.cells_full);
        let qsa = self.qsa_inputs(qsa_first.then_some((&mut pos, pos_bytes)));
        if any_kv && pos.is_none() {
            pos = Some(self.g.input(pos_bytes));
        }
        let caches = self.cache_inputs(masks);
        let kpool = self.kpool_inputs();
        let msa = self.msa_inputs();
        let out_ids = self.g.input(self.n_outputs * 4);
        let lightning = self.lightning_inputs();
        self.inputs = Inputs {
            tokens,
            mixed: self.inputs.mixed,
            scale_rows: self.inputs.scale_rows,
            pos,
            s_copy,
            caches,
            out_ids,
            lightning,
            lid,
            msa,
            kpool: kpool.or(qsa),
        };
    }

    /// `build_inp_embd`'s inputs: the tokens (returned), the embeddings alternative (never
    /// consumed when tokens are given), a mixed batch's tokens, rows and embeddings.
    pub(super) fn token_inputs(&mut self) -> Id {
        let (t, et) = (self.cur_t, self.et());
        let g = &mut self.g;
        self.inputs.tokens = g.input(t * 4);
        if self.rules.embd_input {
            g.input(et);
        }
        // llm_arch_supports_mixed_batch: not deepseek4 (nor granite-switch, left as it was).
        let mixed = self.rules.mixed_input && self.p.arch != "deepseek4";
        self.inputs.mixed = mixed.then(|| (g.input(t * 4), g.input(t * 8), g.input(et)));
        // Gemma's sqrt(n_embd) scaling of the embeddings: a per-row scale input with the mixed
        // batches (b11434's graph), a SCALE op before (b10434's scheduler log: `inp_scaled`, SCALE).
        self.inputs.scale_rows = (self.gemma && self.rules.mixed_input).then(|| g.input(t * 4));
        self.inputs.tokens
    }

    /// Each cache's row indices and mask, in the order of their first use: layer 0's cache first.
    fn cache_inputs(&mut self, masks: [Option<u64>; 2]) -> [Option<Cache>; 2] {
        let t = self.cur_t;
        // v_idxs: one index per row; with a transposed V cache one per element of the row.
        let v_trans = !self.r.fa;
        let v_idx_max = |swa: bool| {
            self.layers
                .iter()
                .filter(|l| l.has_kv && l.swa == swa)
                .map(|l| {
                    if v_trans {
                        t * l.n_head_kv * l.head_v * 8
                    } else {
                        t * 8
                    }
                })
                .max()
                .unwrap_or(t * 8)
        };
        let first_swa = self.layers.iter().find(|l| l.has_kv).map(|l| l.swa);
        let order = match first_swa {
            Some(true) => [true, false],
            _ => [false, true],
        };
        let mut caches: [Option<Cache>; 2] = [None, None];
        for swa in order {
            if let Some(bytes) = masks[swa as usize] {
                // No index inputs where the cache is written with ggml_cpy (rule kv-write-idxs).
                let set_rows = self.rules.kv_set_rows;
                let k_idx = set_rows.then(|| self.g.input(t * 8));
                // MLA caches only K (V is a view of it): no V indices.
                let v_idx = if self.p.is_mla {
                    k_idx
                } else {
                    set_rows.then(|| self.g.input(v_idx_max(swa)))
                };
                let mask = self.g.input(bytes);
                caches[swa as usize] = Some(Cache {
                    k_idx,
                    v_idx,
                    mask,
                    cast: None,
                });
            }
        }
        caches
    }

    /// `llama_hparams::n_pos_per_embd`: four with M-RoPE or interleaved M-RoPE (the rope types
    /// `llama_model_rope_type` gives these architectures; glm4 and bailingmoe3 only with rope
    /// sections), else one.
    fn positions_per_token(&self) -> u64 {
        let sections = || {
            let key = format!("{}.rope.dimension_sections", self.p.arch);
            let values = self
                .model
                .get(&key)
                .and_then(|v| v.as_array()?.values.as_ref());
            let at = |i: usize| values.and_then(|v| v.get(i)?.as_u64()).unwrap_or(0);
            at(0) > 0 && at(1) > 0 // llama_hparams::use_mrope
        };
        let mrope = match self.p.arch.as_str() {
            "qwen2vl" | "paddleocr" | "qwen3vl" | "qwen3vlmoe" | "qwen35" | "qwen35moe"
            | "clef" | "qwen4exp" | "qwen3tts" => true,
            "glm4" | "bailingmoe3" => sections(),
            _ => false,
        };
        if mrope {
            4
        } else {
            1
        }
    }
}
