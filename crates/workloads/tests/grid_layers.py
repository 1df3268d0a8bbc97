"""The layer pieces the architecture-grid writers share (gen_models_grid.py and
grid_recurrent.py): the tiny models' sizes, attention, FFN and expert blocks, the keys and
tensors outside the layers. Shapes in ggml's order (ne0 first), as `create_tensor` lists them."""
from gen_models_2026 import Model, moe

E, H, HKV, D, FF = 128, 4, 2, 32, 256  # n_embd, heads, KV heads, head size, FFN width


def attn(m, p, *, qk_norm=None, bias=False, hkv=HKV, fused=False):
    """Separate Q/K/V (or one fused attn_qkv) and the output (create_tensor_qkv); Q/K norms per
    head (`head`) or over the whole projection (`full`, olmo2)."""
    if fused:
        m.t(p + "attn_qkv.weight", E, D * (H + 2 * hkv))
    else:
        m.t(p + "attn_q.weight", E, D * H)
        m.t(p + "attn_k.weight", E, D * hkv)
        m.t(p + "attn_v.weight", E, D * hkv)
    if bias:
        m.t(p + "attn_q.bias", D * H)
        m.t(p + "attn_k.bias", D * hkv)
        m.t(p + "attn_v.bias", D * hkv)
    m.t(p + "attn_output.weight", D * H, E)
    if qk_norm == "head":
        m.t(p + "attn_q_norm.weight", D, ones=True)
        m.t(p + "attn_k_norm.weight", D, ones=True)
    elif qk_norm == "embd":  # olmoe: both over n_embd
        m.t(p + "attn_q_norm.weight", E, ones=True)
        m.t(p + "attn_k_norm.weight", E, ones=True)
    elif qk_norm == "full":
        m.t(p + "attn_q_norm.weight", D * H, ones=True)
        m.t(p + "attn_k_norm.weight", D * hkv, ones=True)


def ffn(m, p, kind="gated", n_ff=FF):
    """`gated` gate/up/down, `up` up/down only, `fused` one up of 2 × n_ff (phi3, glm4)."""
    if kind == "gated":
        m.t(p + "ffn_gate.weight", E, n_ff)
    m.t(p + "ffn_up.weight", E, 2 * n_ff if kind == "fused" else n_ff)
    m.t(p + "ffn_down.weight", n_ff, E)


def experts(n_expert=4, n_used=2, n_ff_exp=64, shared=0, probs_b=False, dense_lead=0):
    """A `layer` callback: MoE FFN (after `dense_lead` dense layers), with a shared expert of
    `shared` width and the router's bias (`exp_probs_b`) where the architecture wants them."""
    def f(m, p, il):
        if il < dense_lead:
            ffn(m, p)
            return
        moe(m, p, E, n_ff_exp, n_expert, shared=shared)
        if probs_b:
            m.t(p + "exp_probs_b.bias", n_expert)
    return f


def moe_keys(n_expert=4, n_used=2, n_ff_exp=64, **more):
    return dict(expert_count=n_expert, expert_used_count=n_used,
                expert_feed_forward_length=n_ff_exp, **more)


def base(path, arch, n_layer, kv, *, n_ff=FF, ctx=8192, output_norm="output_norm"):
    """The keys and tensors outside the layers; `kv` the KV heads per layer (0: recurrent)."""
    m = Model(path, arch)
    m.u32(block_count=n_layer, context_length=ctx, embedding_length=E, feed_forward_length=n_ff,
          attention__head_count=H, rope__dimension_count=D)
    m.arr("attention.head_count_kv", kv)
    m.f32("attention.layer_norm_rms_epsilon", 1e-6)
    m.f32("rope.freq_base", 10000.0)
    m.t("token_embd.weight", E, m.n_vocab)
    m.t(output_norm + ".weight", E, ones=True)
    m.t("output.weight", E, m.n_vocab)
    return m
