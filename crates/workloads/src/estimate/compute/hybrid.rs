//! What bailingmoe3 (models/bailingmoe3.cpp) and kimi-k3 (models/kimi-k3.cpp), the KDA + MLA
//! hybrids, add to the shared layers: the MLA output gate, bailingmoe3's trunk without its MTP
//! layer and its outputs selected after the output norm. Their KDA layers are in `gdn.rs`.

use super::super::galloc::Id;
use super::builder::Builder;
use super::F32;

impl Builder<'_> {
    /// The layers the graph runs: bailingmoe3's trunk, without the MTP layers its cache keeps
    /// (its graph loops to `hparams.n_layer()`, which leaves out `n_layer_nextn`).
    pub(super) fn graph_layers(&self) -> usize {
        match self.p.mtp_skipped_from {
            Some(n) if self.late_outputs() => (n as usize).min(self.layers.len()),
            _ => self.layers.len(),
        }
    }

    /// Whether the outputs' rows are selected after the output norm (models/bailingmoe3.cpp:
    /// the normed stream `h_nextn`, a graph output, then `inp_out_ids`), not in the last layer.
    pub(super) fn late_outputs(&self) -> bool {
        self.p.arch == "bailingmoe3"
    }

    /// The outputs' rows of the normed stream where they are selected after the output norm
    /// (the normed stream, `h_nextn`, stays a graph output); `x` unchanged otherwise.
    pub(super) fn late_output_rows(&mut self, x: Id) -> Id {
        if !self.late_outputs() || self.cur_t == self.n_outputs {
            return x;
        }
        self.g.set_output(x);
        let bytes = self.p.n_embd * self.n_outputs * F32;
        let rows = self.g.op(bytes, &[x, self.inputs.out_ids]);
        self.cur_t = self.n_outputs;
        self.g.rows = self.n_outputs;
        rows
    }

    /// The sigmoid output gate of bailingmoe3's and kimi-k3's MLA layers, after the attention
    /// (`attn_gate`: one per head in bailingmoe3, then the gated heads copied for `wo`; one per
    /// element in kimi-k3), on the layer's normed input `x`; `o` unchanged for other layers.
    pub(super) fn kda_hybrid_gate(&mut self, il: usize, x: Id, o: Id) -> Id {
        let arch = self.p.arch.as_str();
        let name = format!("blk.{il}.attn_gate.weight");
        let Some(rows) = self
            .model
            .tensor(&name)
            .and_then(|t| t.dims.get(1).copied())
        else {
            return o;
        };
        if !self.p.is_mla || !matches!(arch, "bailingmoe3" | "kimi-k3") {
            return o;
        }
        // `o` is a view (the attention's reshape): ggml-alloc runs nothing in place on a view.
        let bytes = rows * self.cur_t * F32;
        let l = &self.layers[il];
        let v_key = format!("{arch}.attention.value_length_mla");
        let v_mla = self.model.get(&v_key).and_then(|v| v.as_u64());
        let ob = l.n_head * v_mla.unwrap_or(l.head_v) * self.cur_t * F32;
        let w = self.weight(Some(il), "attn_gate.weight");
        let gate = self.g.op(bytes, &[w, x]);
        if arch == "bailingmoe3" {
            // a sigmoid and a product of reshapes, then ggml_cont_2d for wo: new blocks
            let gate = self.g.op(bytes, &[gate]);
            let y = self.g.op(ob, &[o, gate]);
            self.g.op(ob, &[y])
        } else {
            // kimi-k3: the sigmoid in place, and the product in the gate's block
            let gate = self.g.inplace(bytes, &[gate]);
            self.g.inplace(ob, &[o, gate])
        }
    }
}
