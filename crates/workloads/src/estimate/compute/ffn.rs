//! Feed-forward blocks: the dense gated or plain FFN (op for op) and the mixture-of-experts FFN
//! (coarsely).

use super::super::galloc::{Graph, Id};
use super::F32;

/// How a dense FFN makes its activation.
#[derive(Debug, Clone, Copy, Default, PartialEq, Eq)]
pub(super) enum Glu {
    /// Separate gate and up projections, then the GLU.
    #[default]
    Gate,
    /// One up projection of 2 × n_ff that the GLU splits in halves (phi3, glm4: `build_ffn`
    /// with no gate and `LLM_FFN_SWIGLU`, `ggml_swiglu` on the fused rows).
    Fused,
    /// No GLU: up, the activation in place, down.
    None,
}

/// A dense FFN (`build_ffn`): gate and up, the GLU, down. `n_ff` is the up projection's width.
pub(super) fn ffn(
    g: &mut Graph,
    e: u64,
    x: Id,
    t: u64,
    n_ff: u64,
    glu: Glu,
    [w_gate, w_up, w_down]: [Id; 3],
) -> Id {
    let fb = n_ff * t * F32;
    if glu == Glu::Gate {
        let gate = g.op(fb, &[w_gate, x]);
        let up = g.op(fb, &[w_up, x]);
        let glu = g.op(fb, &[gate, up]);
        g.op(e * t * F32, &[w_down, glu])
    } else if glu == Glu::Fused {
        let up = g.op(fb, &[w_up, x]);
        let half = g.op(fb / 2, &[up]);
        g.op(e * t * F32, &[w_down, half])
    } else {
        let up = g.op(fb, &[w_up, x]);
        let act = g.inplace(fb, &[up]);
        g.op(e * t * F32, &[w_down, act])
    }
}

/// A mixture-of-experts FFN (`build_moe_ffn`), written coarsely: router logits and top-k, the
/// selected experts' gate/up/GLU/down for every token, weighted and summed; the router's and the
/// experts' biases where the model has them (an ADD, then ADD_IDs in place).
pub(super) fn moe(
    g: &mut Graph,
    e: u64,
    x: Id,
    t: u64,
    (n_expert, n_used, ff): (u64, u64, u64),
    [w_inp, w_up, w_gate, w_down]: [Id; 4],
    [b_inp, b_up, b_gate, b_down]: [Option<Id>; 4],
) -> Id {
    let mut logits = g.op(n_expert * t * F32, &[w_inp, x]);
    if let Some(b) = b_inp {
        logits = g.inplace(n_expert * t * F32, &[logits, b]);
    }
    let probs = g.inplace(n_expert * t * F32, &[logits]);
    let order = g.op(n_expert * t * 4, &[probs]);
    // ggml_argsort_top_k: the first n_used of each token's n_expert indices, a strided view.
    let sel = g.view_showing(order, 4 * (n_used + t.saturating_sub(1) * n_expert));
    let pv = g.view(probs);
    let w = g.op(n_used * t * F32, &[pv, sel]);
    let fb = ff * n_used * t * F32;
    // The experts read `x` reshaped to [n_embd, 1, t]: a tensor of its own for the scheduler,
    // copied apart from `x` when the experts run elsewhere than the router.
    let xr = g.view(x);
    let biased = |g: &mut Graph, cur: Id, b: Option<Id>, bytes: u64| match b {
        Some(b) => g.inplace(bytes, &[cur, b, sel]),
        None => cur,
    };
    let up = g.op(fb, &[w_up, xr, sel]);
    let up = biased(g, up, b_up, fb);
    let gate = g.op(fb, &[w_gate, xr, sel]);
    let gate = biased(g, gate, b_gate, fb);
    let glu = g.op(fb, &[gate, up]);
    let down = g.op(e * n_used * t * F32, &[w_down, glu, sel]);
    let down = biased(g, down, b_down, e * n_used * t * F32);
    let weighted = g.inplace(e * n_used * t * F32, &[down, w]);
    let mut acc = None;
    for _ in 0..n_used {
        let v = g.view(weighted);
        acc = Some(match acc {
            None => v,
            Some(a) => g.inplace(e * t * F32, &[a, v]),
        });
    }
    let a = acc.unwrap_or(weighted);
    if n_used == 1 {
        g.op(e * t * F32, &[a])
    } else {
        a
    }
}
