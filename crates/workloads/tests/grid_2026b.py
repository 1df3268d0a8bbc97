"""The architectures the family grid added last (gen_models_grid.py takes MODELS from here): the
KDA + MLA hybrids bailingmoe3 (Ling 2.5) and kimi-k3, grovemoe's chunk experts, laguna's per-layer
heads with a gated attention, spark2_5's gated attention with a window pattern, talkie,
graniteswitch's adapter router and LoRA stacks, the RWKV variants arwkv7 and rwkv6qwen2, and the
text decoders of research and multimodal models (maple, muse-glimmer, hrm_text, cogvlm,
paddleocr, deepseek2-ocr, chameleon with a vocabulary past its image tokens).

Each writer has the keys and tensor shapes b11434's `load_arch_hparams` / `load_arch_tensors`
(src/models/<arch>.cpp) require; shapes in ggml's order (ne0 first)."""
from gen_models_2026 import Model, moe
from grid_layers import D, E, FF, H, HKV, attn, experts, ffn, moe_keys

# The KDA + MLA hybrids' sizes (gen_models_2026.py's kimi-linear): KDA heads of 64, an MLA latent
# of 64 with 32 rope and 32 nope dims per head, V heads of 32.
KDA_HEADS, KDA, D_CONV, KV_LORA, ROPE, NOPE, V_HEAD = 8, 64, 4, 64, 32, 32, 32


def hybrid_keys(m, kinds, *, n_ff_exp=64):
    """The keys a KDA (`K`) + MLA (`A`) hybrid shares: head_count_kv 0 marks a KDA layer
    (`is_recr_impl[il] = n_head_kv(il) == 0`), the MLA lengths, a dense first layer, experts
    with one shared expert and a sigmoid router."""
    m.u32(block_count=len(kinds), context_length=8192, embedding_length=E, feed_forward_length=FF,
          attention__head_count=KDA_HEADS, attention__key_length=KV_LORA + ROPE,
          attention__value_length=KV_LORA, attention__key_length_mla=NOPE + ROPE,
          attention__value_length_mla=V_HEAD, attention__kv_lora_rank=KV_LORA,
          rope__dimension_count=ROPE, ssm__conv_kernel=D_CONV, kda__head_dim=KDA,
          expert_shared_count=1, leading_dense_block_count=1, expert_gating_func=2,
          **moe_keys(n_ff_exp=n_ff_exp))
    m.arr("attention.head_count_kv", [0 if k == "K" else 1 for k in kinds])
    m.f32("attention.layer_norm_rms_epsilon", 1e-6)
    m.f32("rope.freq_base", 10000.0)
    m.t("token_embd.weight", E, m.n_vocab)
    m.t("output_norm.weight", E, ones=True)
    m.t("output.weight", E, m.n_vocab)


def kda_common(m, p, d_inner):
    """The KDA tensors both hybrids share: Q/K/V convolutions and projections, beta, A, the
    decay bias, the output norm and projection."""
    for x in "qkv":
        m.t(p + f"ssm_conv1d_{x}.weight", D_CONV, 1, d_inner)
        m.t(p + f"attn_{x}.weight", E, d_inner)
    m.t(p + "ssm_beta.weight", E, KDA_HEADS)
    m.t(p + "ssm_dt.bias", d_inner)
    m.t(p + "ssm_norm.weight", KDA, ones=True)
    m.t(p + "attn_output.weight", d_inner, E)


def mla_common(m, p):
    """The MLA tensors both hybrids share (no Q LoRA): Q, the latent and rope projection, its
    norm, the per-head K and V decompressions, a sigmoid output gate."""
    m.t(p + "attn_q.weight", E, KDA_HEADS * (NOPE + ROPE))
    m.t(p + "attn_kv_a_mqa.weight", E, KV_LORA + ROPE)
    m.t(p + "attn_kv_a_norm.weight", KV_LORA, ones=True)
    m.t(p + "attn_k_b.weight", NOPE, KV_LORA, KDA_HEADS)
    m.t(p + "attn_v_b.weight", KV_LORA, V_HEAD, KDA_HEADS)
    m.t(p + "attn_output.weight", KDA_HEADS * V_HEAD, E)


def write_bailingmoe3(path):
    """bailingmoe3 (llama_model_bailingmoe3, Ling 2.5): KDA and MLA layers, a full-rank KDA decay
    (ssm_f_a) and output gate (ssm_g_a), a per-head MLA output gate, experts with a router bias
    and a shared expert, and one MTP (nextn) layer after the 4 trunk layers, whose tensors
    llama-server leaves unloaded (TENSOR_SKIP without --spec-type draft-mtp)."""
    kinds = "KAKAA"
    m = Model(path, "bailingmoe3")
    hybrid_keys(m, kinds)
    m.u32(nextn_predict_layers=1)
    m.f32("kda.gate_lower_bound", -5.0)
    d_inner = KDA * KDA_HEADS
    for il, k in enumerate(kinds):
        p = f"blk.{il}."
        m.t(p + "attn_norm.weight", E, ones=True)
        if k == "K":
            kda_common(m, p, d_inner)
            m.t(p + "ssm_f_a.weight", E, d_inner)
            m.t(p + "ssm_a", 1, KDA_HEADS)
            m.t(p + "ssm_g_a.weight", E, d_inner)
        else:
            mla_common(m, p)
            m.t(p + "attn_gate.weight", E, KDA_HEADS)
        m.t(p + "ffn_norm.weight", E, ones=True)
        experts(shared=64, probs_b=True, dense_lead=1)(m, p, il)
        if il == len(kinds) - 1:
            m.t(p + "nextn.eh_proj.weight", 2 * E, E)
            for n in ("enorm", "hnorm"):
                m.t(p + f"nextn.{n}.weight", E, ones=True)
            m.t(p + "layer_output_norm.weight", E, ones=True)
    m.finish()


def write_kimi_k3(path, latent=32):
    """kimi-k3 (llama_model_kimi_k3): kimi-linear's KDA and MLA layers with a full-rank KDA gate
    (ssm_g), a per-element MLA output gate, cross-layer residual attention (attn_res: a score
    vector per layer before the attention and the FFN, one before the output), experts in a
    latent width (`latent`: ffn_routed_down/up around them) beside a full-width shared expert."""
    kinds = "KAKA"
    m = Model(path, "kimi-k3")
    hybrid_keys(m, kinds)
    m.u32(expert_latent_length=latent, attn_res__block_size=2)
    m.f32("activation.situ_beta", 4.0)
    m.f32("activation.situ_linear_beta", 8.0)
    m.f32("kda.gate_lower_bound", -5.0)
    m.t("output_res_score.weight", E, ones=True)
    d_inner = KDA * KDA_HEADS
    for il, k in enumerate(kinds):
        p = f"blk.{il}."
        m.t(p + "attn_norm.weight", E, ones=True)
        m.t(p + "ffn_norm.weight", E, ones=True)
        m.t(p + "attn_res_score.weight", E, ones=True)
        m.t(p + "ffn_res_score.weight", E, ones=True)
        if k == "K":
            kda_common(m, p, d_inner)
            m.t(p + "ssm_f_a.weight", E, KDA)
            m.t(p + "ssm_f_b.weight", KDA, d_inner)
            m.t(p + "ssm_a", KDA_HEADS)
            m.t(p + "ssm_g.weight", E, d_inner)
        else:
            mla_common(m, p)
            m.t(p + "attn_gate.weight", E, KDA_HEADS * V_HEAD)
        if il < 1:
            ffn(m, p)
            continue
        m.t(p + "ffn_gate_inp.weight", E, 4)
        m.t(p + "exp_probs_b.bias", 4)
        for n, ne in (("gate", (latent, 64)), ("up", (latent, 64)), ("down", (64, latent))):
            m.t(p + f"ffn_{n}_exps.weight", *ne, 4)
        m.t(p + "ffn_routed_down.weight", E, latent)
        m.t(p + "ffn_routed_up.weight", latent, E)
        m.t(p + "ffn_routed_norm.weight", latent, ones=True)
        for n, ne in (("gate", (E, 64)), ("up", (E, 64)), ("down", (64, E))):
            m.t(p + f"ffn_{n}_shexp.weight", *ne)
    m.finish()


def grovemoe_layer(m, p, il):
    """grovemoe (llama_model_grovemoe): experts and, beside them, chunk experts (one per group of
    experts_per_group experts, expert_chunk_feed_forward_length wide)."""
    moe(m, p, E, 64, 4)
    m.t(p + "ffn_gate_chexps.weight", E, 32, 2)
    m.t(p + "ffn_down_chexps.weight", 32, E, 2)
    m.t(p + "ffn_up_chexps.weight", E, 32, 2)


# laguna's layers: a window on all but every 4th (dense first), more heads on the window layers.
LAGUNA_HEADS = [4, 8, 8, 8, 4]


def laguna_layer(m, p, il):
    """laguna (llama_model_laguna): per-layer heads (Q and output sized by them), per-head Q/K
    norms, a per-head attention output gate, a dense first layer then experts with a router
    bias and a shared expert."""
    h = LAGUNA_HEADS[il]
    m.t(p + "attn_q.weight", E, D * h)
    m.t(p + "attn_k.weight", E, D * HKV)
    m.t(p + "attn_v.weight", E, D * HKV)
    m.t(p + "attn_output.weight", D * h, E)
    m.t(p + "attn_q_norm.weight", D, ones=True)
    m.t(p + "attn_k_norm.weight", D, ones=True)
    m.t(p + "attn_gate.weight", E, h)
    experts(shared=64, probs_b=True, dense_lead=1)(m, p, il)


def write_laguna(path):
    n = len(LAGUNA_HEADS)
    m = Model(path, "laguna")
    m.u32(block_count=n, context_length=8192, embedding_length=E, feed_forward_length=FF,
          attention__head_count_kv=HKV, attention__key_length=D, attention__value_length=D,
          rope__dimension_count=D, attention__sliding_window=512, leading_dense_block_count=1,
          expert_shared_feed_forward_length=64, **moe_keys())
    m.arr("attention.head_count", LAGUNA_HEADS)
    m.f32("attention.layer_norm_rms_epsilon", 1e-6)
    m.f32("rope.freq_base", 500000.0)
    m.t("token_embd.weight", E, m.n_vocab)
    m.t("output_norm.weight", E, ones=True)
    m.t("output.weight", E, m.n_vocab)
    for il in range(n):
        p = f"blk.{il}."
        m.t(p + "attn_norm.weight", E, ones=True)
        m.t(p + "ffn_norm.weight", E, ones=True)
        laguna_layer(m, p, il)
    m.finish()


def spark_layer(m, p, il):
    """spark2_5 (llama_model_spark2_5): a per-head sigmoid gate on the attention output."""
    m.t(p + "attn_gate.weight", E, H)
    ffn(m, p)


def talkie_layer(m, p, il):
    """talkie (llama_model_talkie): no norm weights, a Q gain per head (attn_q_norm of 1 × heads,
    no K gain), a scalar output scale per layer."""
    m.t(p + "attn_q_norm.weight", 1, H, ones=True)
    ffn(m, p)
    m.t(p + "layer_output_scale.weight", 1, ones=True)


def write_graniteswitch(path, n_adapters=2, rank=8):
    """graniteswitch (llama_model_granite_switch): granite with one fused attn_qkv and a stack
    of LoRA deltas per projection (`n_adapters` + 1 slots of rank `rank`), chosen per token by
    an extra one-head attention layer after the trunk (the router) that holds KV but no
    tensors."""
    g = gen_models_grid()
    slots = n_adapters + 1

    def layer(m, p, il):
        ffn(m, p)
        for name, n_in, n_out in (("attn_q", E, D * H), ("attn_k", E, D * HKV),
                                  ("attn_v", E, D * HKV), ("attn_output", D * H, E),
                                  ("ffn_gate", E, FF), ("ffn_up", E, FF), ("ffn_down", FF, E)):
            m.t(p + name + ".lora_a", n_in, rank, slots)
            m.t(p + name + ".lora_b", rank, n_out, slots)

    m = g.dense(path, "graniteswitch", fused_qkv=True, f32={"logit_scale": 8.0}, layer=layer,
                u32={"adapters__count": n_adapters, "adapters__lora_rank": rank},
                arr={"adapters.token_ids_activate": [300, 301],
                     "adapters.token_ids_substitute": [302, 303]})
    return m


def write_arwkv7(path, n_layer=3, head=32, lora=16):
    """arwkv7 (llama_model_arwkv7): RWKV-7's time mix (LoRA-ranked decay, in-context rate, value
    mix and gate, a 6-way fused lerp) with an RMS-normed gated FFN instead of the channel mix;
    one token shift."""
    m = Model(path, "arwkv7")
    m.u32(block_count=n_layer, context_length=8192, embedding_length=E, feed_forward_length=FF,
          wkv__head_size=head, attention__decay_lora_rank=lora, attention__iclr_lora_rank=lora,
          attention__value_residual_mix_lora_rank=lora, attention__gate_lora_rank=lora,
          token_shift_count=1, attention__head_count=0)
    m.f32("attention.layer_norm_rms_epsilon", 1e-6)
    m.t("token_embd.weight", E, m.n_vocab)
    m.t("output_norm.weight", E, ones=True)
    m.t("output.weight", E, m.n_vocab)
    for il in range(n_layer):
        p = f"blk.{il}."
        m.t(p + "attn_norm.weight", E, ones=True)
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
        m.t(p + "ffn_norm.weight", E, ones=True)
        ffn(m, p)
    m.finish()


def write_rwkv6qwen2(path, n_layer=3, head=32, mix=16, decay=32):
    """rwkv6qwen2 (llama_model_rwkv6qwen2): RWKV-6's time mix with Qwen 2.5's grouped K/V width
    (head_count_kv × head_size) and biases, an RMS-normed gated FFN; one token shift. No
    time_mix_first, as in the QRWKV6 files (the graph's `is_qrwkv` path): with it and grouped
    K/V, b11434 crashes (SIGSEGV) reserving the graph."""
    kv = HKV * head
    m = Model(path, "rwkv6qwen2")
    m.u32(block_count=n_layer, context_length=8192, embedding_length=E, feed_forward_length=FF,
          wkv__head_size=head, time_mix_extra_dim=mix, time_decay_extra_dim=decay,
          token_shift_count=1, attention__head_count=H, attention__head_count_kv=HKV)
    m.f32("attention.layer_norm_rms_epsilon", 1e-6)
    m.t("token_embd.weight", E, m.n_vocab)
    m.t("output_norm.weight", E, ones=True)
    m.t("output.weight", E, m.n_vocab)
    for il in range(n_layer):
        p = f"blk.{il}."
        m.t(p + "attn_norm.weight", E, ones=True)
        m.t(p + "time_mix_w1.weight", E, mix * 5)
        m.t(p + "time_mix_w2.weight", mix, E, 5)
        m.t(p + "time_mix_lerp_x.weight", E, 1, 1)
        m.t(p + "time_mix_lerp_fused.weight", E, 1, 1, 5)
        m.t(p + "time_mix_decay.weight", E)
        m.t(p + "time_mix_decay_w1.weight", E, decay)
        m.t(p + "time_mix_decay_w2.weight", decay, E)
        m.t(p + "time_mix_key.weight", E, kv)
        m.t(p + "time_mix_value.weight", E, kv)
        m.t(p + "time_mix_key.bias", kv)
        m.t(p + "time_mix_value.bias", kv)
        m.t(p + "time_mix_receptance.bias", E)
        for n in ("receptance", "gate", "output"):
            m.t(p + f"time_mix_{n}.weight", E, E)
        m.t(p + "ffn_norm.weight", E, ones=True)
        ffn(m, p)
    m.finish()


def maple_layer(m, p, il):
    """maple (llama_model_maple): per-head Q/K norms and experts without a shared one."""
    moe(m, p, E, 64, 4)


def write_hrm_text(path, lps=1, h_cycles=2, l_cycles=1):
    """hrm_text (llama_model_hrm_text): a low (L) and a high (H) stack of `lps` blocks each,
    run in h_cycles × (l_cycles + 1) slots: block_count counts the slots (each with its own KV),
    the file holds the two stacks' tensors (blk.0.. L, blk.lps.. H) that the slots share; no
    norm weights, a gated attention, the L stack's initial state (hrm.z_l_init)."""
    n_slot = lps * h_cycles * (l_cycles + 1)
    m = Model(path, "hrm_text")
    m.u32(block_count=n_slot, context_length=8192, embedding_length=E, feed_forward_length=FF,
          attention__head_count=H, attention__head_count_kv=HKV, rope__dimension_count=D,
          hrm__layers_per_stack=lps, hrm__h_cycles=h_cycles, hrm__l_cycles=l_cycles)
    m.f32("attention.layer_norm_rms_epsilon", 1e-6)
    m.f32("rope.freq_base", 10000.0)
    m.t("token_embd.weight", E, m.n_vocab)
    m.t("output.weight", E, m.n_vocab)
    m.t("hrm.z_l_init", E)
    for bid in range(2 * lps):
        p = f"blk.{bid}."
        attn(m, p)
        m.t(p + "attn_gate.weight", E, D * H)
        ffn(m, p)
    m.finish()


def cogvlm_layer(m, p, il):
    """cogvlm (llama_model_cogvlm): a second (vision expert) fused attention and FFN per layer."""
    ffn(m, p)
    m.t(p + "vis_attn_qkv.weight", E, 3 * D * H)
    m.t(p + "vis_attn_output.weight", D * H, E)
    m.t(p + "vis_gate.weight", E, FF)
    m.t(p + "vis_down.weight", FF, E)
    m.t(p + "vis_up.weight", E, FF)


def write_chameleon(path):
    """chameleon (llama_model_chameleon): Q/K norms over every head (head dim × heads), tied
    output; its graph masks the image tokens 4..8196 of the logits (ggml_set_1d), so the
    vocabulary must reach past 8196 tokens (8,259 here)."""
    m = Model(path, "chameleon", n_words=8000)
    m.u32(block_count=4, context_length=8192, embedding_length=E, feed_forward_length=FF,
          attention__head_count=H, attention__head_count_kv=HKV, rope__dimension_count=D)
    m.f32("attention.layer_norm_rms_epsilon", 1e-6)
    m.f32("rope.freq_base", 10000.0)
    m.t("token_embd.weight", E, m.n_vocab)
    m.t("output_norm.weight", E, ones=True)
    for il in range(4):
        p = f"blk.{il}."
        m.t(p + "attn_norm.weight", E, ones=True)
        m.t(p + "attn_q_norm.weight", D, H, ones=True)
        m.t(p + "attn_k_norm.weight", D, HKV, ones=True)
        attn(m, p)
        m.t(p + "ffn_norm.weight", E, ones=True)
        ffn(m, p)
    m.finish()


def gen_models_grid():
    """gen_models_grid.py, which imports this file (its `dense` writer, imported late)."""
    import gen_models_grid as g
    return g


MODELS = {
    "bailingmoe3": write_bailingmoe3,
    "kimi-k3": write_kimi_k3,
    "grovemoe": lambda p: gen_models_grid().dense(
        p, "grovemoe", qk_norm="head", layer=grovemoe_layer,
        u32=moe_keys(expert_chunk_feed_forward_length=32, experts_per_group=2),
        f32={"expert_group_scale": 0.05}),
    "laguna": write_laguna,
    # the window pattern is required (get_arr): 3 window layers, then a full one
    "spark2_5": lambda p: gen_models_grid().dense(
        p, "spark2_5", layer=spark_layer, u32={"attention__sliding_window": 512},
        arr={"attention.sliding_window_pattern": [True, True, True, False]}),
    "talkie": lambda p: gen_models_grid().dense(p, "talkie", norms=(), output_norm=False,
                                                f32={"logit_scale": 0.5}, layer=talkie_layer),
    "graniteswitch": write_graniteswitch,
    "arwkv7": write_arwkv7,
    "rwkv6qwen2": write_rwkv6qwen2,
    # maple: a window pattern array and swiglu_clamp_exp, both required
    "maple": lambda p: gen_models_grid().dense(
        p, "maple", qk_norm="head", layer=maple_layer,
        u32=moe_keys(attention__sliding_window=512),
        arr={"attention.sliding_window_pattern": [True, True, True, False]},
        f32={"swiglu_clamp_exp": 7.0}),
    # muse-glimmer: post norms, per-head Q/K norms, a per-element attention gate, a window on 3
    # of every 4 layers (load_swa_pattern(ml, 4)), logit_scale required
    "muse-glimmer": lambda p: gen_models_grid().dense(
        p, "muse-glimmer", qk_norm="head", u32={"attention__sliding_window": 512},
        f32={"logit_scale": 0.5},
        norms=("attn_norm", "post_attention_norm", "ffn_norm", "post_ffw_norm"),
        layer=lambda m, q, il: (m.t(q + "attn_gate.weight", E, D * H), ffn(m, q))),
    "hrm_text": write_hrm_text,
    # cogvlm: one fused attn_qkv of 3 × n_embd (as many KV heads as heads)
    "cogvlm": lambda p: gen_models_grid().dense(p, "cogvlm", fused_qkv=True, hkv=H,
                                                layer=cogvlm_layer),
    # paddleocr: ernie4_5's text decoder with the multimodal rope's sections
    "paddleocr": lambda p: gen_models_grid().dense(p, "paddleocr",
                                                   arr={"rope.dimension_sections": [4, 2, 2, 0]}),
    # deepseek2-ocr: plain multi-head attention (no MLA), a dense first layer, then experts with
    # a shared one
    "deepseek2-ocr": lambda p: gen_models_grid().dense(
        p, "deepseek2-ocr", hkv=H, layer=experts(shared=64, dense_lead=1),
        u32=moe_keys(expert_shared_count=1, leading_dense_block_count=1)),
    "chameleon": write_chameleon,
}
