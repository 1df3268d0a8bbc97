//! Recurrent (state-space) layers: the Mamba-1 block op for op, which other recurrent
//! architectures borrow the shape of.

use crate::gguf::GgufModel;

use super::super::galloc::{Graph, Id};
use super::super::hparams::ModelParams;
use super::F32;

/// Recurrent-state sizes of a Mamba-1 layer (`ssm.*` keys).
#[derive(Debug, Clone, Copy)]
pub(super) struct Ssm {
    d_conv: u64,
    d_inner: u64,
    d_state: u64,
    dt_rank: u64,
}

pub(super) fn ssm_of(model: &GgufModel, p: &ModelParams) -> Ssm {
    let key = |k: &str| {
        model
            .get(&format!("{}.{k}", p.arch))
            .and_then(|v| v.as_u64())
    };
    Ssm {
        d_conv: key("ssm.conv_kernel").unwrap_or(4),
        d_inner: key("ssm.inner_size").unwrap_or(2 * p.n_embd),
        d_state: key("ssm.state_size").unwrap_or(16),
        dt_rank: key("ssm.time_step_rank").unwrap_or(p.n_embd.div_ceil(16)),
    }
}

/// A Mamba-1 block (`build_mamba_layer`): the conv state gathered per sequence and joined to the
/// projected input, the causal convolution, the selective scan, the gated output projection.
/// Other recurrent architectures (Mamba-2, RWKV) are counted with the same shape.
pub(super) fn recurrent_block(
    g: &mut Graph,
    m: Ssm,
    (x, t): (Id, u64),
    (s_copy, n_seq): (Id, u64),
    [w_in, w_conv, w_x, w_dt, w_out]: [Id; 5],
    rs: Id,
) -> Id {
    let di = m.d_inner;
    let rs_be = Some(g.backend_of(rs));
    let conv_in = g.op((m.d_conv - 1).max(1) * di * n_seq * F32, &[rs, s_copy]);
    let ci = g.view(conv_in);
    let cv = g.view(ci);
    g.external(&[cv], rs_be); // the state copied back into the cache
    let xz = g.op(2 * di * t * F32, &[w_in, x]);
    let xv = g.view(xz);
    let xt = g.view(xv);
    let cat = g.op(((m.d_conv - 1) + t / n_seq) * di * n_seq * F32, &[ci, xt]);
    let last = g.view(cat);
    g.external(&[last], rs_be);
    let conv = g.op(di * t * F32, &[cat, w_conv]);
    let conv = g.inplace(di * t * F32, &[conv]); // + bias
    let conv = g.inplace(di * t * F32, &[conv]); // silu
    let x_db = g.op((m.dt_rank + 2 * m.d_state) * t * F32, &[w_x, conv]);
    let dtv = g.view(x_db);
    let dt_c = g.op(m.dt_rank * t * F32, &[dtv]);
    let dt = g.op(di * t * F32, &[w_dt, dt_c]);
    let dt = g.inplace(di * t * F32, &[dt]); // + bias
    let bv = g.view(x_db);
    let cvv = g.view(x_db);
    let scan = g.op(
        di * t * F32 + m.d_state * di * n_seq * F32,
        &[conv, dt, bv, cvv, s_copy],
    );
    let sv = g.view(scan);
    g.external(&[sv], rs_be);
    let zv = g.view(xz);
    let z = g.op(di * t * F32, &[zv]);
    let y = g.inplace(di * t * F32, &[conv]); // * D
    let yv = g.view(scan);
    let y = g.inplace(di * t * F32, &[yv, y]);
    let gated = g.op(di * t * F32, &[z, y]);
    let out = g.op(g.bytes(x), &[w_out, gated]); // ssm_out: back to n_embd × n_tokens
    g.view(out)
}
