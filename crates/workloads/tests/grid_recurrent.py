"""Tiny GGUF models of the recurrent architectures and hybrids for the architecture grid
(llama_family_grid.rs): Mamba-2 (mamba2, granitehybrid, falcon-h1), Mamba-1 variants (jamba,
plamo2), LFM2's short convolutions, RWKV-6/7 and MiniMax-01's lightning attention. The state
sizes are large enough (a few tens of KiB per layer and more) that llama-server's 0.01 MiB print
checks them. Written by gen_models_grid.py, which lists these in its MODELS."""
from gen_models_2026 import Model, moe
from grid_layers import D, E, FF, H, HKV, attn, base, experts, ffn, moe_keys


def mamba2_mixer(m, p, *, d_conv=4, d_inner=256, d_state=64, n_group=2, n_head=8):
    """Mamba-2's block (llama_model_mamba2 / granite_hybrid::load_arch_tensors)."""
    conv = d_inner + 2 * n_group * d_state
    m.t(p + "ssm_in.weight", E, 2 * d_inner + 2 * n_group * d_state + n_head)
    m.t(p + "ssm_conv1d.weight", d_conv, conv)
    m.t(p + "ssm_conv1d.bias", conv)
    m.t(p + "ssm_dt.bias", n_head)
    m.t(p + "ssm_a", 1, n_head)
    m.t(p + "ssm_d", 1, n_head)
    m.t(p + "ssm_norm.weight", d_inner // n_group, n_group, ones=True)
    m.t(p + "ssm_out.weight", d_inner, E)


def ssm_keys(m, *, d_conv=4, d_inner=256, d_state=64, n_group=2, n_head=8):
    m.u32(ssm__conv_kernel=d_conv, ssm__inner_size=d_inner, ssm__state_size=d_state,
          ssm__time_step_rank=n_head, ssm__group_count=n_group)


def write_mamba2(path, n_layer=3):
    m = base(path, "mamba2", n_layer, [0] * n_layer)
    ssm_keys(m)
    for il in range(n_layer):
        m.t(f"blk.{il}.attn_norm.weight", E, ones=True)
        mamba2_mixer(m, f"blk.{il}.")
    m.finish()


def write_granitehybrid(path, kinds="MM*M"):
    """granitehybrid: Mamba-2 layers where the KV heads are 0, attention elsewhere, a dense FFN
    in every layer."""
    kv = [HKV if k == "*" else 0 for k in kinds]
    m = base(path, "granitehybrid", len(kinds), kv)
    ssm_keys(m)
    for il, k in enumerate(kinds):
        p = f"blk.{il}."
        m.t(p + "attn_norm.weight", E, ones=True)
        if k == "*":
            attn(m, p)
        else:
            mamba2_mixer(m, p)
        m.t(p + "ffn_norm.weight", E, ones=True)
        ffn(m, p)
    m.finish()


def write_jamba(path, kinds="MM*M", d_conv=4, d_inner=256, d_state=16, dt_rank=8):
    """jamba: Mamba-1 layers where the KV heads are 0, attention elsewhere; experts in odd
    layers (a router present), a dense FFN in the others."""
    kv = [HKV if k == "*" else 0 for k in kinds]
    m = base(path, "jamba", len(kinds), kv)
    m.u32(ssm__conv_kernel=d_conv, ssm__inner_size=d_inner, ssm__state_size=d_state,
          ssm__time_step_rank=dt_rank, expert_count=4, expert_used_count=2)
    for il, k in enumerate(kinds):
        p = f"blk.{il}."
        m.t(p + "attn_norm.weight", E, ones=True)
        if k == "*":
            attn(m, p)
        else:
            m.t(p + "ssm_in.weight", E, 2 * d_inner)
            m.t(p + "ssm_conv1d.weight", d_conv, d_inner)
            m.t(p + "ssm_conv1d.bias", d_inner)
            m.t(p + "ssm_x.weight", d_inner, dt_rank + 2 * d_state)
            m.t(p + "ssm_dt_norm.weight", dt_rank, ones=True)
            m.t(p + "ssm_dt.weight", dt_rank, d_inner)
            m.t(p + "ssm_dt.bias", d_inner)
            m.t(p + "ssm_b_norm.weight", d_state, ones=True)
            m.t(p + "ssm_c_norm.weight", d_state, ones=True)
            m.t(p + "ssm_a", d_state, d_inner)
            m.t(p + "ssm_d", d_inner)
            m.t(p + "ssm_out.weight", d_inner, E)
        m.t(p + "ffn_norm.weight", E, ones=True)
        if il % 2:
            moe(m, p, E, FF, 4)
        else:
            ffn(m, p)
    m.finish()


def write_lfm2(path, kinds="CC*C*C", l_cache=3, arch="lfm2"):
    """lfm2: short-convolution layers where the KV heads are 0 (state: n_embd × (l_cache - 1)),
    attention with per-head Q/K norms elsewhere, a dense FFN everywhere (lfm2moe: experts after
    the first layer); its output norm is named token_embd_norm."""
    kv = [HKV if k == "*" else 0 for k in kinds]
    m = base(path, arch, len(kinds), kv, output_norm="token_embd_norm")
    m.u32(shortconv__l_cache=l_cache)
    if arch == "lfm2moe":
        m.u32(**moe_keys(leading_dense_block_count=1, expert_gating_func=2))
    for il, k in enumerate(kinds):
        p = f"blk.{il}."
        m.t(p + "attn_norm.weight", E, ones=True)
        if k == "*":
            attn(m, p, qk_norm="head")
        else:
            m.t(p + "shortconv.conv.weight", l_cache, E)
            m.t(p + "shortconv.in_proj.weight", E, 3 * E)
            m.t(p + "shortconv.out_proj.weight", E, E)
        m.t(p + "ffn_norm.weight", E, ones=True)
        if arch == "lfm2moe":
            experts(probs_b=True, dense_lead=1)(m, p, il)
        else:
            ffn(m, p)
    m.finish()


def write_plamo2(path, kinds="MM*M", d_conv=4, d_inner=256, d_state=16, n_head=8):
    """plamo2: Mamba layers where the KV heads are 0 (their dt/B/C norms and per-head dt),
    attention with a fused QKV and per-head Q/K norms elsewhere; post norms and a fused gate+up
    FFN in every layer; several norms have no .weight suffix (llama_model_plamo2)."""
    kv = [HKV if k == "*" else 0 for k in kinds]
    m = base(path, "plamo2", len(kinds), kv)
    m.u32(ssm__conv_kernel=d_conv, ssm__inner_size=d_inner, ssm__state_size=d_state,
          ssm__time_step_rank=n_head, ssm__group_count=0, attention__key_length=D,
          attention__value_length=D)
    dt = max(64, E // 16)
    for il, k in enumerate(kinds):
        p = f"blk.{il}."
        m.t(p + "attn_norm.weight", E, ones=True)
        if k == "*":
            m.t(p + "attn_qkv.weight", E, D * (H + 2 * HKV))
            m.t(p + "attn_q_norm.weight", D, H, ones=True)
            m.t(p + "attn_k_norm.weight", D, HKV, ones=True)
            m.t(p + "attn_output.weight", D * H, E)
        else:
            m.t(p + "ssm_in.weight", E, 2 * d_inner)
            m.t(p + "ssm_conv1d.weight", d_conv, d_inner)
            m.t(p + "ssm_x.weight", d_inner, dt + 2 * d_state)
            m.t(p + "ssm_dt.weight", dt, n_head)
            m.t(p + "ssm_dt.bias", n_head)
            m.t(p + "ssm_a", n_head)
            m.t(p + "ssm_d", n_head)
            m.t(p + "ssm_out.weight", d_inner, E)
            m.t(p + "ssm_dt_norm", dt, ones=True)
            m.t(p + "ssm_b_norm", d_state, ones=True)
            m.t(p + "ssm_c_norm", d_state, ones=True)
        m.t(p + "post_attention_norm", E, ones=True)
        m.t(p + "ffn_norm.weight", E, ones=True)
        ffn(m, p, "fused")
        m.t(p + "post_ffw_norm", E, ones=True)
    m.finish()


def write_falcon_h1(path, n_layer=3):
    """falcon-h1: every layer runs a Mamba-2 mixer beside attention, then a dense FFN whose norm
    is named blk.N.ffn_norm (no .weight) (llama_model_falcon_h1::load_arch_tensors)."""
    m = base(path, "falcon-h1", n_layer, [HKV] * n_layer)
    ssm_keys(m)
    for il in range(n_layer):
        p = f"blk.{il}."
        m.t(p + "attn_norm.weight", E, ones=True)
        mamba2_mixer(m, p)
        attn(m, p)
        m.t(p + "ffn_norm", E, ones=True)
        ffn(m, p)
    m.finish()


def write_rwkv6(path, n_layer=3, head=32, mix=16, decay=32):
    """rwkv6: layer-normed time mix (fused lerp) and channel mix; state: 2 token shifts of n_embd
    and n_embd × head_size per layer (llama_model_rwkv6::load_arch_tensors)."""
    m = Model(path, "rwkv6")
    m.u32(block_count=n_layer, context_length=8192, embedding_length=E, feed_forward_length=FF,
          wkv__head_size=head, time_mix_extra_dim=mix, time_decay_extra_dim=decay,
          rescale_every_n_layers=6, token_shift_count=2, attention__head_count=0)
    m.f32("attention.layer_norm_epsilon", 1e-5)
    m.t("token_embd.weight", E, m.n_vocab)
    for n in ("token_embd_norm", "output_norm"):
        m.t(n + ".weight", E, ones=True)
        m.t(n + ".bias", E)
    m.t("output.weight", E, m.n_vocab)
    for il in range(n_layer):
        p = f"blk.{il}."
        for n in ("attn_norm", "attn_norm_2", "time_mix_ln"):
            m.t(p + n + ".weight", E, ones=True)
            m.t(p + n + ".bias", E)
        m.t(p + "time_mix_w1.weight", E, mix * 5)
        m.t(p + "time_mix_w2.weight", mix, E, 5)
        m.t(p + "time_mix_lerp_x.weight", E, 1, 1)
        m.t(p + "time_mix_lerp_fused.weight", E, 1, 1, 5)
        m.t(p + "time_mix_first.weight", head, E // head)
        m.t(p + "time_mix_decay.weight", E)
        m.t(p + "time_mix_decay_w1.weight", E, decay)
        m.t(p + "time_mix_decay_w2.weight", decay, E)
        for n in ("key", "value", "receptance", "gate", "output"):
            m.t(p + f"time_mix_{n}.weight", E, E)
        m.t(p + "channel_mix_lerp_k.weight", E, 1, 1)
        m.t(p + "channel_mix_lerp_r.weight", E, 1, 1)
        m.t(p + "channel_mix_key.weight", E, FF)
        m.t(p + "channel_mix_value.weight", FF, E)
        m.t(p + "channel_mix_receptance.weight", E, E)
    m.finish()



def write_rwkv7(path, n_layer=3, head=32, lora=16):
    """rwkv7: LoRA-ranked decay / in-context rate / value mix / gate, a 6-way fused lerp; the
    state as RWKV-6's (llama_model_rwkv7::load_arch_tensors)."""
    m = Model(path, "rwkv7")
    m.u32(block_count=n_layer, context_length=8192, embedding_length=E, feed_forward_length=FF,
          wkv__head_size=head, attention__decay_lora_rank=lora, attention__iclr_lora_rank=lora,
          attention__value_residual_mix_lora_rank=lora, attention__gate_lora_rank=lora,
          token_shift_count=2, attention__head_count=0)
    m.f32("attention.layer_norm_epsilon", 1e-5)
    m.t("token_embd.weight", E, m.n_vocab)
    for n in ("token_embd_norm", "output_norm"):
        m.t(n + ".weight", E, ones=True)
        m.t(n + ".bias", E)
    m.t("output.weight", E, m.n_vocab)
    for il in range(n_layer):
        p = f"blk.{il}."
        for n in ("attn_norm", "attn_norm_2", "time_mix_ln"):
            m.t(p + n + ".weight", E, ones=True)
            m.t(p + n + ".bias", E)
        for x in "wavg":
            if x != "g":
                m.t(p + f"time_mix_{x}0.weight", E)
            m.t(p + f"time_mix_{x}1.weight", E, lora)
            m.t(p + f"time_mix_{x}2.weight", lora, E)
        m.t(p + "time_mix_lerp_fused.weight", E, 1, 1, 6)
        for n in ("k_k", "k_a", "r_k"):
            m.t(p + f"time_mix_{n}.weight", E)
        for n in ("key", "value", "receptance", "output"):
            m.t(p + f"time_mix_{n}.weight", E, E)
        m.t(p + "channel_mix_lerp_k.weight", E, 1, 1)
        m.t(p + "channel_mix_key.weight", E, FF)
        m.t(p + "channel_mix_value.weight", FF, E)
    m.finish()



def write_minimax01(path, n_layer=4, interval=2):
    """minimax-01: lightning (linear) attention layers, recurrent, where the layer is not every
    `interval`-th (fused QKV, a gate and a norm of their own), softmax attention elsewhere,
    experts everywhere (llama_model_minimax_01::load_arch_tensors)."""
    m = base(path, "minimax-01", n_layer, [HKV] * n_layer)
    m.u32(full_attention_interval=interval, attention__key_length=D, attention__value_length=D,
          **moe_keys(n_ff_exp=FF))
    m.f32("residual_scale", 1.0)
    for il in range(n_layer):
        p = f"blk.{il}."
        m.t(p + "attn_norm.weight", E, ones=True)
        if (il + 1) % interval:
            m.t(p + "attn_norm_2.weight", D * H, ones=True)
            m.t(p + "attn_qkv.weight", E, 3 * D * H)
            m.t(p + "attn_gate.weight", E, D * H)
            m.t(p + "attn_output.weight", D * H, E)
        else:
            attn(m, p)
        m.t(p + "ffn_norm.weight", E, ones=True)
        moe(m, p, E, FF, 4)
    m.finish()


# The recurrent models and hybrids of the grid, by name (merged into gen_models_grid.MODELS).
MODELS = {
    "mamba2": write_mamba2,
    "granitehybrid": write_granitehybrid,
    "jamba": write_jamba,
    "lfm2": write_lfm2,
    "falcon-h1": write_falcon_h1,
    "rwkv6": write_rwkv6,
    "rwkv7": write_rwkv7,
    "lfm2moe": lambda p: write_lfm2(p, arch="lfm2moe"),
    "plamo2": write_plamo2,
    "minimax-01": write_minimax01,
}
