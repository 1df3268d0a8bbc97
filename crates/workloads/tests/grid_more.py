"""More architectures for the family grid (gen_models_grid.py takes MODELS from here): Gemma 4
(per-layer sliding-window pattern and head sizes, KV shared by the last layers, per-layer input
embeddings, its MoE variant), the multi-head latent attention variants (minicpm3, plm, mistral4),
nextn (MTP) layers (glm4moe with nextn_predict_layers), nemotron_h_moe, dbrx, grok and arctic.

Each writer has the keys and tensor shapes b11434's `load_arch_hparams` / `load_arch_tensors`
(src/models/<arch>.cpp) require; shapes in ggml's order (ne0 first)."""
import gen_models
from gen_models_2026 import Model, common, moe
from grid_layers import D, E, FF, H, HKV, attn, experts, ffn, moe_keys

# Gemma 4's layer kinds: SWA layers with heads of 32, full layers with heads of 64.
G4_PATTERN = [True, True, False, True, False, True, False]
G4_D_SWA, G4_D_FULL, G4_PLE = 32, 64, 16


def write_gemma4(path, *, shared=2, n_expert=0, ple=True, n_ff=None):
    """gemma4 (llama_model_gemma4): a per-layer SWA pattern, full layers with bigger heads and
    proportional rope factors (one `rope_freqs`, shared), the last `shared` layers reusing earlier
    layers' KV (no K projection), per-layer input embeddings (`ple`) and, with `n_expert`, a
    shared MLP beside the experts (26B-A4B)."""
    nl = len(G4_PATTERN)
    m = Model(path, "gemma4")
    n_ff = n_ff or [FF] * nl
    m.u32(block_count=nl, context_length=8192, embedding_length=E, attention__head_count=H,
          attention__head_count_kv=HKV, attention__key_length=G4_D_FULL,
          attention__value_length=G4_D_FULL, attention__key_length_swa=G4_D_SWA,
          attention__value_length_swa=G4_D_SWA, rope__dimension_count=G4_D_FULL,
          rope__dimension_count_swa=G4_D_SWA, attention__sliding_window=512,
          attention__shared_kv_layers=shared,
          embedding_length_per_layer_input=G4_PLE if ple else 0)
    m.arr("feed_forward_length", n_ff)
    m.arr("attention.sliding_window_pattern", G4_PATTERN)
    m.f32("attention.layer_norm_rms_epsilon", 1e-6)
    m.f32("rope.freq_base", 1000000.0)
    m.f32("rope.freq_base_swa", 10000.0)
    m.f32("final_logit_softcapping", 30.0)
    if n_expert:
        m.u32(**moe_keys(n_expert=n_expert))
    m.t("token_embd.weight", E, m.n_vocab)
    if ple:
        m.t("per_layer_token_embd.weight", G4_PLE * nl, m.n_vocab)
        m.t("per_layer_model_proj.weight", E, G4_PLE * nl)
        m.t("per_layer_proj_norm.weight", G4_PLE, ones=True)
    m.t("output_norm.weight", E, ones=True)
    first_full = True
    for il, swa in enumerate(G4_PATTERN):
        p, d = f"blk.{il}.", G4_D_SWA if swa else G4_D_FULL
        has_kv = il < nl - shared
        m.t(p + "attn_norm.weight", E, ones=True)
        m.t(p + "attn_q.weight", E, d * H)
        if has_kv:
            m.t(p + "attn_k.weight", E, d * HKV)
            m.t(p + "attn_v.weight", E, d * HKV)
            m.t(p + "attn_k_norm.weight", d, ones=True)
        m.t(p + "attn_output.weight", d * H, E)
        m.t(p + "attn_q_norm.weight", d, ones=True)
        m.t(p + "post_attention_norm.weight", E, ones=True)
        m.t(p + "layer_output_scale.weight", 1, ones=True)
        if not swa and first_full:
            m.t("rope_freqs.weight", d // 2, ones=True)
            first_full = False
        m.t(p + "ffn_norm.weight", E, ones=True)
        ffn(m, p, n_ff=n_ff[il])
        m.t(p + "post_ffw_norm.weight", E, ones=True)
        if n_expert:
            moe(m, p, E, 64, n_expert)
            m.t(p + "ffn_gate_inp.scale", E, ones=True)
            for n in ("pre_ffw_norm_2", "post_ffw_norm_1", "post_ffw_norm_2"):
                m.t(p + n + ".weight", E, ones=True)
        if ple:
            m.t(p + "inp_gate.weight", E, G4_PLE)
            m.t(p + "proj.weight", G4_PLE, E)
            m.t(p + "post_norm.weight", E, ones=True)
    m.finish()


# The LoRA-ranked attention of minicpm3 / plm: heads of NOPE + ROPE for K, V_HEAD for V.
NOPE, ROPE, V_HEAD, Q_LORA, KV_LORA = 48, 16, 32, 64, 64  # K heads of 64: q8_0 blocks fit


def write_lora_attn(path, arch):
    """minicpm3 (llama_model_minicpm3): Q through a rank-Q_LORA projection, K and V decompressed
    from a rank-KV_LORA latent (attn_kv_a_mqa + attn_kv_b) into ordinary per-head K/V, cached as
    such (head_count_kv = head_count); plm (llama_model_plm): the same without the Q LoRA, an
    ungated FFN and the output tied to the embeddings."""
    m = Model(path, arch)
    m.u32(block_count=4, context_length=8192, embedding_length=E, feed_forward_length=FF,
          attention__head_count=H, attention__key_length=NOPE + ROPE,
          attention__value_length=V_HEAD, rope__dimension_count=ROPE,
          attention__kv_lora_rank=KV_LORA)
    if arch == "minicpm3":
        m.u32(attention__q_lora_rank=Q_LORA)
    m.f32("attention.layer_norm_rms_epsilon", 1e-6)
    m.f32("rope.freq_base", 10000.0)
    m.t("token_embd.weight", E, m.n_vocab)
    m.t("output_norm.weight", E, ones=True)
    for il in range(4):
        p = f"blk.{il}."
        m.t(p + "attn_norm.weight", E, ones=True)
        if arch == "minicpm3":
            m.t(p + "attn_q_a_norm.weight", Q_LORA, ones=True)
            m.t(p + "attn_q_a.weight", E, Q_LORA)
            m.t(p + "attn_q_b.weight", Q_LORA, H * (NOPE + ROPE))
        else:
            m.t(p + "attn_q.weight", E, H * (NOPE + ROPE))
        m.t(p + "attn_kv_a_norm.weight", KV_LORA, ones=True)
        m.t(p + "attn_kv_a_mqa.weight", E, KV_LORA + ROPE)
        m.t(p + "attn_kv_b.weight", KV_LORA, H * (NOPE + V_HEAD))
        m.t(p + "attn_output.weight", H * V_HEAD, E)
        m.t(p + "ffn_norm.weight", E, ones=True)
        ffn(m, p, "gated" if arch == "minicpm3" else "up")
    m.finish()


def gen_models_grid():
    """gen_models_grid.py, which imports this file (its `dense` writer, imported late)."""
    import gen_models_grid as g
    return g


def nextn_layer(inner, n_trunk):
    """A `layer` callback: `inner`'s layer, and for the layers from `n_trunk` on (the file's
    nextn_predict_layers), the MTP block's own tensors (llama_model_glm4_moe::load_arch_tensors:
    eh_proj, enorm, hnorm, shared_head_norm)."""
    def f(m, p, il):
        inner(m, p, il)
        if il >= n_trunk:
            m.t(p + "nextn.eh_proj.weight", 2 * E, E)
            for n in ("enorm", "hnorm", "shared_head_norm"):
                m.t(p + f"nextn.{n}.weight", E, ones=True)
    return f


def write_nemotron_h_moe(path, latent=0):
    """nemotron_h_moe (llama_model_nemotron_h::load_arch_tensors): nemotron_h's Mamba-2 (M) and
    attention (*) layers, its FFN layers (E) mixtures of ungated experts with a router bias and
    an ungated shared expert; `latent`: the experts work in a smaller width (moe_latent_size,
    ffn_latent_down / ffn_latent_up around them, Nemotron 3 Super)."""
    kinds, d_inner, d_state, n_group, n_ssm_head, d_conv = "MEM*EMEM", 256, 64, 2, 8, 4
    m = Model(path, "nemotron_h_moe")
    common(m, n_layer=len(kinds), n_embd=E)
    m.u32(attention__head_count=H, attention__key_length=D, attention__value_length=D,
          rope__dimension_count=D, ssm__conv_kernel=d_conv, ssm__inner_size=d_inner,
          ssm__state_size=d_state, ssm__group_count=n_group, ssm__time_step_rank=n_ssm_head,
          **moe_keys(expert_shared_feed_forward_length=128))
    if latent:
        m.u32(moe_latent_size=latent)
    m.f32("attention.layer_norm_epsilon", 1e-5)
    m.arr("attention.head_count_kv", [HKV if k == "*" else 0 for k in kinds])
    m.arr("feed_forward_length", [FF if k == "E" else 0 for k in kinds])
    conv, w = d_inner + 2 * n_group * d_state, latent or E
    for il, k in enumerate(kinds):
        p = f"blk.{il}."
        m.t(p + "attn_norm.weight", E, ones=True)
        if k == "M":
            m.t(p + "ssm_in.weight", E, 2 * d_inner + 2 * n_group * d_state + n_ssm_head)
            m.t(p + "ssm_conv1d.weight", d_conv, conv)
            m.t(p + "ssm_conv1d.bias", conv)
            m.t(p + "ssm_dt.bias", n_ssm_head)
            m.t(p + "ssm_a", 1, n_ssm_head)
            m.t(p + "ssm_d", 1, n_ssm_head)
            m.t(p + "ssm_norm.weight", d_inner // n_group, n_group, ones=True)
            m.t(p + "ssm_out.weight", d_inner, E)
        elif k == "*":
            attn(m, p)
        else:
            m.t(p + "ffn_gate_inp.weight", E, 4)
            m.t(p + "exp_probs_b.bias", 4)
            if latent:
                m.t(p + "ffn_latent_down.weight", E, latent)
                m.t(p + "ffn_latent_up.weight", latent, E)
            m.t(p + "ffn_down_exps.weight", 64, w, 4)
            m.t(p + "ffn_up_exps.weight", w, 64, 4)
            m.t(p + "ffn_down_shexp.weight", 128, E)
            m.t(p + "ffn_up_shexp.weight", E, 128)
    m.finish()


def dbrx_layer(m, p, il):
    """dbrx (llama_model_dbrx): a norm after the attention output, experts of n_ff."""
    m.t(p + "attn_output_norm.weight", E, ones=True)
    moe(m, p, E, FF, 4)


def arctic_layer(m, p, il):
    """arctic (llama_model_arctic): a dense FFN of n_embd beside experts of n_ff, with their own
    norm (ffn_norm_exps)."""
    ffn(m, p, n_ff=E)
    m.t(p + "ffn_norm_exps.weight", E, ones=True)
    moe(m, p, E, FF, 4)


def grok_layer(m, p, il):
    """grok (llama_model_grok, Grok-2's layout): a norm after the attention output, a dense FFN
    beside the experts, a norm after both (layer_output_norm)."""
    m.t(p + "attn_output_norm.weight", E, ones=True)
    ffn(m, p)
    moe(m, p, E, 64, 4)
    m.t(p + "layer_output_norm.weight", E, ones=True)


def write_mimo2(path):
    """mimo2 (llama_model_mimo2, MiMo-V2-Flash's layout): a sliding-window pattern array, KV
    heads per layer (fewer on the window layers), attention sinks, a dense first layer then
    experts with a router bias, one nextn (MTP) layer after the 5 trunk layers."""
    pattern = [False, True, True, True, False, True]
    kv = [HKV if not w else 1 for w in pattern]
    m = Model(path, "mimo2")
    m.u32(block_count=len(pattern), context_length=8192, embedding_length=E,
          feed_forward_length=FF, attention__key_length=D, attention__value_length=D,
          rope__dimension_count=D, attention__sliding_window=512, nextn_predict_layers=1,
          **moe_keys())
    m.arr("attention.head_count", [H] * len(pattern))
    m.arr("attention.head_count_kv", kv)
    m.arr("attention.sliding_window_pattern", pattern)
    m.f32("attention.layer_norm_rms_epsilon", 1e-6)
    m.f32("rope.freq_base", 10000.0)
    m.t("token_embd.weight", E, m.n_vocab)
    m.t("output_norm.weight", E, ones=True)
    m.t("output.weight", E, m.n_vocab)
    for il, swa in enumerate(pattern):
        p = f"blk.{il}."
        attn(m, p, hkv=kv[il])
        m.t(p + "attn_norm.weight", E, ones=True)
        m.t(p + "ffn_norm.weight", E, ones=True)
        if swa:
            m.t(p + "attn_sinks.weight", H)
        experts(probs_b=True, dense_lead=1)(m, p, il)
        if il == len(pattern) - 1:
            nextn_layer(lambda *a: None, il)(m, p, il)
    m.finish()


def hy_v3_layer(m, p, il):
    """hy_v3's layer: a dense first layer, then experts with a shared one and a router bias
    named without `.bias` (llama_model_hy_v3::load_block: `tn(LLM_TENSOR_FFN_EXP_PROBS_B, i)`)."""
    experts(shared=64, dense_lead=1)(m, p, il)
    if il >= 1:
        m.t(p + "exp_probs_b", 4)


def write_step35(path):
    """step35 (llama_model_step35): a sliding-window pattern array, KV heads per layer, per-head
    Q/K norms and a head-wise attention gate, a dense first layer then experts with a router
    bias and a shared expert, one MTP block after the 4 trunk layers whose norms, gate, FFN and
    experts load though its attention is skipped (load_block_mtp)."""
    pattern = [False, True, True, True, False]
    kv = [HKV if not w else 1 for w in pattern]
    m = Model(path, "step35")
    m.u32(block_count=len(pattern), context_length=8192, embedding_length=E,
          feed_forward_length=FF, attention__key_length=D, attention__value_length=D,
          rope__dimension_count=D, attention__sliding_window=512, nextn_predict_layers=1,
          **moe_keys(expert_shared_feed_forward_length=64))
    m.arr("attention.head_count", [H] * len(pattern))
    m.arr("attention.head_count_kv", kv)
    m.arr("attention.sliding_window_pattern", pattern)
    m.f32("attention.layer_norm_rms_epsilon", 1e-6)
    m.f32("rope.freq_base", 10000.0)
    m.t("token_embd.weight", E, m.n_vocab)
    m.t("output_norm.weight", E, ones=True)
    m.t("output.weight", E, m.n_vocab)
    for il in range(len(pattern)):
        p = f"blk.{il}."
        m.t(p + "attn_norm.weight", E, ones=True)
        attn(m, p, hkv=kv[il], qk_norm="head")
        m.t(p + "attn_gate.weight", E, H)
        m.t(p + "ffn_norm.weight", E, ones=True)
        experts(shared=64, probs_b=True, dense_lead=1)(m, p, il)
        if il == len(pattern) - 1:
            nextn_layer(lambda *a: None, il)(m, p, il)
    m.finish()


def bitnet_layer(m, p, il):
    """bitnet (llama_model_bitnet): sub-norms inside the attention and the FFN."""
    m.t(p + "attn_sub_norm.weight", E, ones=True)
    m.t(p + "ffn_sub_norm.weight", FF, ones=True)
    ffn(m, p)


def write_openelm(path):
    """openelm (llama_model_openelm): heads, KV heads and FFN width per layer, one fused qkv,
    per-head Q/K norms, the output tied to the embeddings."""
    heads, kv, ff = [2, 4, 4, 4], [1, 2, 2, 1], [128, 256, 256, 384]
    m = Model(path, "openelm")
    m.u32(block_count=len(heads), context_length=8192, embedding_length=E,
          attention__key_length=D, attention__value_length=D, rope__dimension_count=D)
    m.arr("attention.head_count", heads)
    m.arr("attention.head_count_kv", kv)
    m.arr("feed_forward_length", ff)
    m.f32("attention.layer_norm_rms_epsilon", 1e-6)
    m.f32("rope.freq_base", 10000.0)
    m.t("token_embd.weight", E, m.n_vocab)
    m.t("output_norm.weight", E, ones=True)
    for il in range(len(heads)):
        p = f"blk.{il}."
        m.t(p + "attn_norm.weight", E, ones=True)
        m.t(p + "attn_qkv.weight", E, (heads[il] + 2 * kv[il]) * D)
        m.t(p + "attn_q_norm.weight", D, ones=True)
        m.t(p + "attn_k_norm.weight", D, ones=True)
        m.t(p + "attn_output.weight", heads[il] * D, E)
        m.t(p + "ffn_norm.weight", E, ones=True)
        ffn(m, p, n_ff=ff[il])
    m.finish()


def plamo3_layer(m, p, il):
    """plamo3 (llama_model_plamo3): post norms named without `.weight`, a fused gate+up FFN."""
    m.t(p + "post_attention_norm", E, ones=True)
    m.t(p + "post_ffw_norm", E, ones=True)
    ffn(m, p, "fused")


MODELS = {
    # E2B/E4B-like: per-layer inputs, the last 2 layers sharing KV, wider FFNs in the shared ones
    "gemma4": lambda p: write_gemma4(p, n_ff=[FF] * 5 + [2 * FF] * 2),
    # 26B-A4B/31B-like: no per-layer inputs, no shared KV; the MoE variant with a shared MLP
    "gemma4-moe": lambda p: write_gemma4(p, shared=0, ple=False, n_expert=4),
    "minicpm3": lambda p: write_lora_attn(p, "minicpm3"),
    "plm": lambda p: write_lora_attn(p, "plm"),
    # glm4moe with one MTP (nextn) layer after its 4 trunk layers (GLM-4.5's layout)
    "glm4moe-nextn": lambda p: gen_models_grid().dense(
        p, "glm4moe", n_layer=5, norms=("attn_norm", "post_attention_norm"),
        u32=moe_keys(expert_shared_count=1, leading_dense_block_count=1, nextn_predict_layers=1),
        layer=nextn_layer(experts(shared=64, probs_b=True, dense_lead=1), 4)),
    "nemotron_h_moe": lambda p: write_nemotron_h_moe(p),
    "nemotron_h_moe-latent": lambda p: write_nemotron_h_moe(p, latent=64),
    # dbrx: a fused Q/K/V of n_embd + 2 n_embd_gqa, layer norms, clamp_kqv required
    "dbrx": lambda p: gen_models_grid().dense(
        p, "dbrx", eps="ln", norms=("attn_norm",), fused_qkv=True, layer=dbrx_layer,
        u32=moe_keys(n_ff_exp=FF), f32={"attention.clamp_kqv": 8.0}),
    "arctic": lambda p: gen_models_grid().dense(p, "arctic", u32=moe_keys(n_ff_exp=FF),
                                                layer=arctic_layer),
    "grok": lambda p: gen_models_grid().dense(p, "grok", layer=grok_layer,
                                              u32=moe_keys(n_ff_exp=64)),
    "mimo2": write_mimo2,
    # jais: layer norms with biases, one fused biased attn_qkv, a gated FFN with biases, ALiBi
    "jais": lambda p: gen_models_grid().dense(
        p, "jais", eps="ln", norm_bias=True, fused_qkv=True, hkv=H,
        layer=gen_models_grid().biased("gated", attn_qkv=3 * E, attn_output=E, ffn_down=E,
                                       ffn_gate=FF, ffn_up=FF)),
    "bitnet": lambda p: gen_models_grid().dense(p, "bitnet", tied=True, layer=bitnet_layer),
    "openelm": write_openelm,
    "plamo3": lambda p: gen_models_grid().dense(p, "plamo3", fused_qkv=True, qk_norm="head",
                                                layer=plamo3_layer),
    "step35": write_step35,
    # hy_v3: one MTP layer, whose FFN and experts llama.cpp loads though it skips its attention
    "hy_v3": lambda p: gen_models_grid().dense(
        p, "hy_v3", n_layer=5, qk_norm="head",
        u32=moe_keys(expert_shared_feed_forward_length=64, nextn_predict_layers=1),
        layer=nextn_layer(hy_v3_layer, 4)),
    # mistral4 (Mistral Small 4) is deepseek2's MLA with its own architecture name
    "mistral4": lambda p: gen_models.write_deepseek2(p, n_layer=4, ctx=8192, arch="mistral4"),
}
