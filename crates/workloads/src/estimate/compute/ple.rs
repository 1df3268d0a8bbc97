//! Gemma 4's per-layer input embeddings (models/gemma4.cpp): `build_inp_per_layer` looks up
//! every layer's slice of `per_layer_token_embd` for the batch's tokens (its own token input; the
//! table stays on the host), `project_per_layer_inputs` adds the projected, normed embeddings to
//! them (a contiguous [n_embd_per_layer, n_tokens, n_layer] tensor alive through every layer),
//! and each layer ends by gating, projecting and norming its slice into the residual stream.

use super::super::galloc::{Id, HOST};
use super::builder::{Builder, Ple};
use super::F32;

impl Builder<'_> {
    /// `build_inp_per_layer`, right after the embeddings (gemma4 with per_layer_token_embd).
    pub(super) fn per_layer_inputs(&mut self, embd: Id) {
        let key = format!("{}.embedding_length_per_layer_input", self.p.arch);
        let width = self.model.get(&key).and_then(|v| v.as_u64()).unwrap_or(0);
        let table = "per_layer_token_embd.weight";
        if self.p.arch != "gemma4" || width == 0 || !self.tensors.contains(table) {
            return;
        }
        let bytes = width * self.layers.len() as u64 * self.cur_t * F32;
        let tokens = self.g.input(self.cur_t * 4);
        let on = self.place.overridden.get(table).copied().flatten();
        let w = self.g.weight(self.tensors.bytes(table), on.unwrap_or(HOST));
        let rows = self.g.get_rows(bytes, &[w, tokens]);
        let rows = self.g.inplace(bytes, &[rows]); // scale by sqrt(n_embd_per_layer)
        self.ple = Some(Ple {
            width,
            rows,
            all: None,
            embd,
        });
    }

    /// `project_per_layer_inputs`: expanded where layer 0 first reads its slice.
    fn project_per_layer_inputs(&mut self, ple: &Ple) -> Id {
        let bytes = self.g.bytes(ple.rows);
        let name = "per_layer_model_proj.weight";
        let on = self.place.layer_device.first().copied().flatten();
        let on = self.place.overridden.get(name).copied().unwrap_or(on);
        let w = self.g.weight(self.tensors.bytes(name), on.unwrap_or(HOST));
        let m = self.g.op(bytes, &[w, ple.embd]);
        let m = self.g.inplace(bytes, &[m]); // scale
        let m = self.g.view(m); // reshape_3d
        let m = self.g.inplace(bytes, &[m]); // rms_norm
        let norm = self.tensors.bytes("per_layer_proj_norm.weight");
        let wn = self.g.weight(norm, on.unwrap_or(HOST));
        let m = self.g.inplace(bytes, &[m, wn]);
        let m = self.g.inplace(bytes, &[m, ple.rows]); // + the looked-up rows
        let m = self.g.inplace(bytes, &[m]); // scale by 1/sqrt(2)
        let m = self.g.view(m); // permute
        self.g.op(bytes, &[m]) // cont
    }

    /// The end of layer `il` (gemma4): its per-layer input gated in, then `layer_output_scale`.
    pub(super) fn per_layer_embedding(&mut self, il: usize, cur: Id) -> Id {
        let Some(mut ple) = self.ple.take() else {
            return cur;
        };
        let all = match ple.all {
            Some(a) => a,
            None => self.project_per_layer_inputs(&ple),
        };
        ple.all = Some(all);
        let (et, t) = (self.et(), self.cur_t);
        let pt = ple.width * t * F32;
        let [gate, proj, norm] =
            self.weights(il, ["inp_gate.weight", "proj.weight", "post_norm.weight"]);
        let g = self.g.op(pt, &[gate, cur]);
        let g = self.g.inplace(pt, &[g]); // gelu
        let mut slice = self.g.view(all);
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
        self.ple = Some(ple);
        out
    }
}
