//! The per-layer input embeddings of Gemma 4 and Gemma 3n (models/gemma4.cpp,
//! models/gemma3n.cpp, the same shape in both): `build_inp_per_layer` looks up every layer's
//! slice of `per_layer_token_embd` for the batch's tokens (its own token input; the table stays
//! on the host), `project_per_layer_inputs` adds the projected, normed embeddings to them (a
//! contiguous [n_embd_per_layer, n_tokens, n_layer] tensor alive through every layer), and each
//! layer gates its slice in (gemma4 here, at the end of the layer; gemma3n in `gemma3n.rs`,
//! into its AltUp copies).

use super::super::galloc::{Id, HOST};
use super::builder::{Builder, Ple};
use super::F32;

impl Builder<'_> {
    /// `build_inp_per_layer`, right after the embeddings (gemma4 and gemma3n with
    /// per_layer_token_embd).
    pub(super) fn per_layer_inputs(&mut self, embd: Id) {
        let width = match self.p.arch.as_str() {
            "gemma4" => {
                let key = "gemma4.embedding_length_per_layer_input";
                self.model.get(key).and_then(|v| v.as_u64()).unwrap_or(0)
            }
            // llama_hparams' fixed n_embd_altup: gemma3n reads no key for it.
            "gemma3n" => 256,
            _ => 0,
        };
        let table = "per_layer_token_embd.weight";
        if width == 0 || !self.tensors.contains(table) {
            return;
        }
        let bytes = width * self.layers.len() as u64 * self.cur_t * F32;
        let tokens = self.g.input(self.cur_t * 4);
        let on = self.place.overridden.get(table).copied().flatten();
        let w = self.g.weight(self.tensors.bytes(table), on.unwrap_or(HOST));
        let rows = self.g.get_rows(bytes, &[w, tokens]);
        // reshape_3d, then the scale by sqrt(n_embd_per_layer): a new tensor on the host (an
        // op never takes a view's memory), in place on the copy a device split reads
        let rows = self.g.view(rows);
        let rows = self.g.inplace(bytes, &[rows]);
        self.ple = Some(Ple {
            width,
            rows,
            all: None,
            embd,
        });
    }

    /// The projected per-layer inputs, written where layer 0 first reads its slice (`None`
    /// without per-layer inputs).
    pub(super) fn per_layer_inputs_all(&mut self) -> Option<Id> {
        let ple = self.ple.as_ref()?;
        if let Some(all) = ple.all {
            return Some(all);
        }
        let (rows, embd) = (ple.rows, ple.embd);
        let all = self.project_per_layer_inputs(rows, embd);
        self.ple.as_mut().map(|p| p.all.insert(all)).copied()
    }

    /// `project_per_layer_inputs`.
    fn project_per_layer_inputs(&mut self, rows: Id, embd: Id) -> Id {
        let bytes = self.g.bytes(rows);
        let name = "per_layer_model_proj.weight";
        let on = self.place.layer_device.first().copied().flatten();
        let on = self.place.overridden.get(name).copied().unwrap_or(on);
        let w = self.g.weight(self.tensors.bytes(name), on.unwrap_or(HOST));
        let m = self.g.op(bytes, &[w, embd]);
        let m = self.g.inplace(bytes, &[m]); // scale
        let m = self.g.view(m); // reshape_3d
        let m = self.g.inplace(bytes, &[m]); // rms_norm
        let norm = self.tensors.bytes("per_layer_proj_norm.weight");
        let wn = self.g.weight(norm, on.unwrap_or(HOST));
        let m = self.g.inplace(bytes, &[m, wn]);
        let m = self.g.inplace(bytes, &[m, rows]); // + the looked-up rows
        let m = self.g.inplace(bytes, &[m]); // scale by 1/sqrt(2)
        let m = self.g.view(m); // permute
        self.g.op(bytes, &[m]) // cont
    }

    /// The end of layer `il` (gemma4): its per-layer input gated in, then `layer_output_scale`.
    pub(super) fn per_layer_embedding(&mut self, il: usize, cur: Id) -> Id {
        let Some(width) = self.ple.as_ref().map(|p| p.width) else {
            return cur;
        };
        let (et, t) = (self.et(), self.cur_t);
        let pt = width * t * F32;
        let [gate, proj, norm] =
            self.weights(il, ["inp_gate.weight", "proj.weight", "post_norm.weight"]);
        let g = self.g.op(pt, &[gate, cur]);
        let g = self.g.inplace(pt, &[g]); // gelu
                                          // ggml_build_forward_expand reaches the projection through the slice, after the gate.
        let Some(all) = self.per_layer_inputs_all() else {
            return cur;
        };
        // the layer's slice: what a split on another backend copies
        let mut slice = self.g.view_showing(all, pt);
        if il + 1 == self.layers.len() && t == self.n_outputs {
            // the last layer keeps only the outputs' rows (inp_out_ids)
            slice = self.g.op(pt, &[slice, self.inputs.out_ids]);
        }
        let m = self.g.inplace(pt, &[g, slice]);
        let y = self.g.op(et, &[proj, m]);
        let y = self.g.inplace(et, &[y]); // rms_norm
        let y = self.g.inplace(et, &[y, norm]);
        let mut out = self.g.inplace(et, &[cur, y]);
        if self
            .tensors
            .contains(&format!("blk.{il}.layer_output_scale.weight"))
        {
            let s = self.weight(Some(il), "layer_output_scale.weight");
            out = self.g.inplace(et, &[out, s]);
        }
        out
    }
}
