//! MXFP4 MoE experts as vLLM holds them: `Mxfp4MoEMethod.create_weights`
//! (vllm/model_executor/layers/quantization/mxfp4.py, 0.10.1 on) pads each expert's hidden and
//! per-rank intermediate sizes to the tiles of the kernel backend it picked, so a rank holds
//! more than the checkpoint's bytes: gpt-oss-120b's 60.77 GiB of tensors load as 65.97 GiB on
//! an H100 with Marlin (vllm-project/vllm#23278), gpt-oss-20b's 12.82 GiB as 13.72 GiB
//! (kserve/kserve#4657).
//!
//! Per layer and rank, with `E` experts, hidden `h` and intermediate `i` after padding, the
//! parameters are (uint8 blocks of two 4-bit values, one uint8 scale per 32 values, bf16 biases):
//! `w13`: E·2i·h/2, its scales E·2i·h/32, its bias E·2i·2; `w2`: E·h·i/2, E·h·i/32, E·h·2.
//! The checkpoint stores the same tensors unpadded (`gate_up_proj_blocks/scales/bias`,
//! `down_proj_*`), which is how the file's expert bytes are told apart from the rest.
//!
//! Which backend runs is the GPU's and the installed packages' business
//! (`get_mxfp4_backend`): it is taken from the server's log line, or
//! `VLLM_MXFP4_USE_MARLIN=1`; otherwise it stays unknown and every backend's figure is said.

use super::VllmSettings;
use crate::runtimes::hf::{gib, ModelConfig};
use crate::runtimes::reservation::ModelFacts;
use crate::runtimes::Input;
use crate::runtimes::{env_get, InputSource};
use gpuledger_lang::said::Arg;
use gpuledger_lang::Said;
use gpuledger_model::snapshot::ComputeCapability;

/// vLLM's MXFP4 MoE kernel families, by the padding `create_weights` gives them.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Mxfp4Backend {
    /// `Mxfp4Backend.MARLIN`: n % 256 and k % 128 for both products — hidden to 256,
    /// intermediate to 128.
    Marlin,
    /// `Mxfp4Backend.TRITON` (triton_kernels, CUDA): the intermediate to 64.
    Triton,
    /// FlashInfer's TRT-LLM kernels and SM100's BF16 path: both to 256.
    FlashInfer256,
    /// FlashInfer's SM100 CUTLASS (MXFP8 activations) and SM90 BF16 paths: both to 128.
    FlashInfer128,
}

impl Mxfp4Backend {
    const ALL: [Mxfp4Backend; 4] = [
        Mxfp4Backend::Marlin,
        Mxfp4Backend::Triton,
        Mxfp4Backend::FlashInfer128,
        Mxfp4Backend::FlashInfer256,
    ];

    /// (hidden, intermediate) multiples.
    fn tiles(self) -> (u64, u64) {
        match self {
            Mxfp4Backend::Marlin => (256, 128),
            Mxfp4Backend::Triton => (1, 64),
            Mxfp4Backend::FlashInfer256 => (256, 256),
            Mxfp4Backend::FlashInfer128 => (128, 128),
        }
    }

    pub fn name(self) -> &'static str {
        match self {
            Mxfp4Backend::Marlin => "Marlin",
            Mxfp4Backend::Triton => "Triton",
            Mxfp4Backend::FlashInfer256 => "FlashInfer (TRT-LLM / SM100 BF16)",
            Mxfp4Backend::FlashInfer128 => "FlashInfer (SM90 BF16 / SM100 CUTLASS)",
        }
    }

    /// The backend a vLLM log line names: `get_mxfp4_backend`'s own lines, or the Marlin
    /// FP4 warning `prepare_moe_fp4_layer_for_marlin` prints (kserve/kserve#4657 shows only it).
    pub fn in_log_line(line: &str) -> Option<Mxfp4Backend> {
        if line.contains("Using Marlin backend") || line.contains("leveraging the Marlin kernel") {
            Some(Mxfp4Backend::Marlin)
        } else if line.contains("Using Triton backend") {
            Some(Mxfp4Backend::Triton)
        } else if line.contains("FlashInfer MXFP4 BF16 backend for SM90")
            || line.contains("FlashInfer MXFP4 MXFP8 CUTLASS backend")
        {
            Some(Mxfp4Backend::FlashInfer128)
        } else if line.contains("FlashInfer MXFP4 BF16 backend for SM100") {
            Some(Mxfp4Backend::FlashInfer256)
        } else {
            None
        }
    }
}

/// The backend that runs, and where that was read.
#[derive(Debug, Clone, PartialEq)]
pub struct BackendSeen {
    pub backend: Mxfp4Backend,
    pub source: InputSource,
}

/// The backend the first line of a vLLM log that names one says (`source`: the log's name).
pub fn in_log(text: &str, source: &str) -> Option<BackendSeen> {
    let (line, backend) = text
        .lines()
        .take(1_000_000)
        .find_map(|l| Some((l, Mxfp4Backend::in_log_line(l)?)))?;
    // The words that name the kernel come last in vLLM's lines: a long line keeps its end.
    let line = line.trim();
    let n = line.chars().count();
    let shown: String = if n > 160 {
        "…".to_string() + &line.chars().skip(n - 159).collect::<String>()
    } else {
        line.to_string()
    };
    Some(BackendSeen {
        backend,
        source: InputSource::Runtime {
            detail: format!("{source}: {shown}").into(),
        },
    })
}

/// The backend from the process's environment: `VLLM_MXFP4_USE_MARLIN=1` picks Marlin unless
/// a FlashInfer switch is also on (FlashInfer is tried first on Hopper and Blackwell).
pub fn from_env(env: &[(String, String)]) -> Option<BackendSeen> {
    let on = |n: &str| env_get(env, n).is_some_and(|v| matches!(v, "1" | "true" | "True"));
    let flashinfer = [
        "VLLM_USE_FLASHINFER_MOE_MXFP4_BF16",
        "VLLM_USE_FLASHINFER_MOE_MXFP4_MXFP8",
        "VLLM_USE_FLASHINFER_MOE_MXFP4_MXFP8_CUTLASS",
    ];
    (on("VLLM_MXFP4_USE_MARLIN") && !flashinfer.iter().any(|n| on(n))).then(|| BackendSeen {
        backend: Mxfp4Backend::Marlin,
        source: InputSource::Env {
            var: "VLLM_MXFP4_USE_MARLIN".into(),
        },
    })
}

/// The backend a GPU's compute capability leaves (`get_mxfp4_backend`): FlashInfer is tried
/// only on 9.0 and the 10.x family, triton_kernels only from 9.0 to below 11.0; everywhere else
/// from vLLM's floor of 8.0 (`Mxfp4Config.get_min_capability`) it is Marlin whatever is
/// installed: Ampere and Ada (8.x), Thor (11.x) and the RTX 50 series (12.x). On 9.x and 10.x
/// it depends on the packages.
pub fn from_capability(cc: Option<ComputeCapability>) -> Option<BackendSeen> {
    let cc = cc?;
    matches!(cc.major, 8 | 11 | 12).then(|| BackendSeen {
        backend: Mxfp4Backend::Marlin,
        source: InputSource::Derived {
            rule: format!(
                "compute capability {cc} (NVML): outside 9.0–10.x vLLM's get_mxfp4_backend has only Marlin"
            )
            .into(),
        },
    })
}

/// One layer's MXFP4 expert bytes on one rank: `experts` experts of hidden `h` and
/// intermediate `i`, padded to `tiles`.
fn layer_bytes(experts: u64, h: u64, i: u64, tiles: (u64, u64)) -> Option<u64> {
    let h = h.checked_next_multiple_of(tiles.0)?;
    let i = i.checked_next_multiple_of(tiles.1)?;
    let w13 = (2 * i).checked_mul(h / 2 + h / 32 + 2)?;
    let w2 = h.checked_mul(i / 2 + i / 32 + 2)?;
    experts.checked_mul(w13.checked_add(w2)?)
}

/// What the experts weigh on one rank, per backend.
#[derive(Debug, Clone, PartialEq)]
pub struct ExpertShare {
    /// The checkpoint's expert bytes (all ranks, unpadded).
    pub file_bytes: u64,
    /// One rank's share of the rest of the checkpoint (attention, embeddings, norms, router).
    pub rest_per_rank: u64,
    layers: u64,
    experts: u64,
    h: u64,
    i: u64,
    /// How the share was split, in words.
    pub split: Said,
}

impl ExpertShare {
    /// The share for `model` under `s`, when its experts are MXFP4 and the shapes add up: the
    /// computed checkpoint expert bytes must fit in the file's tensor bytes.
    pub fn of(c: &ModelConfig, file_bytes: u64, s: &VllmSettings) -> Option<ExpertShare> {
        if !c.quant_method.as_deref()?.eq_ignore_ascii_case("mxfp4") {
            return None;
        }
        let (experts, h, i) = (c.moe_experts?, c.hidden_size?, c.moe_intermediate?);
        // Blocks of 32 values: the checkpoint's shapes need both sizes divisible by 32.
        if h % 32 != 0 || i % 32 != 0 || h == 0 || i == 0 {
            return None;
        }
        let all = layer_bytes(experts, h, i, (1, 1))?.checked_mul(c.n_layer)?;
        if all > file_bytes {
            return None;
        }
        let tp = s.tensor_parallel_size.value.max(1);
        let pp = s.pipeline_parallel_size.value.max(1);
        let dp = s.data_parallel_size.value.max(1);
        let ranks = tp.saturating_mul(pp);
        // Expert parallelism: whole experts spread over tp × dp ranks; otherwise each expert's
        // intermediate is split by TP (FusedMoE's `intermediate_size_per_partition`).
        let (per_rank_experts, per_rank_i, split) = if s.expert_parallel {
            let ep = tp.saturating_mul(dp);
            (
                experts.div_ceil(ep),
                i,
                Said::new(
                    "recipe-mxfp4-split-ep",
                    vec![
                        ("experts", experts.to_string().into()),
                        ("ep", ep.to_string().into()),
                    ],
                ),
            )
        } else {
            (
                experts,
                i / tp,
                Said::new(
                    "recipe-mxfp4-split-tp",
                    vec![
                        ("i", i.to_string().into()),
                        ("tp", tp.to_string().into()),
                        ("per_rank", (i / tp).to_string().into()),
                    ],
                ),
            )
        };
        Some(ExpertShare {
            file_bytes: all,
            rest_per_rank: (file_bytes - all) / ranks,
            layers: c.n_layer.div_ceil(pp),
            experts: per_rank_experts,
            h,
            i: per_rank_i,
            split,
        })
    }

    /// One rank's expert bytes with `b`'s padding.
    pub fn experts_per_rank(&self, b: Mxfp4Backend) -> Option<u64> {
        layer_bytes(self.experts, self.h, self.i, b.tiles())?.checked_mul(self.layers)
    }

    /// One rank's weights with `b`: the rest of the checkpoint's share plus the padded experts.
    pub fn weights(&self, b: Mxfp4Backend) -> Option<u64> {
        self.rest_per_rank.checked_add(self.experts_per_rank(b)?)
    }

    /// The input line that says how the weights were reached with `b`.
    pub fn words(&self, b: Mxfp4Backend) -> Said {
        let (th, ti) = b.tiles();
        let n = |x: u64| Arg::from(x.to_string());
        let per_rank: Arg = match self.experts_per_rank(b) {
            Some(x) => gib(x).into(),
            None => Said::new("recipe-too-large", vec![]).into(),
        };
        Said::new(
            "recipe-mxfp4-words",
            vec![
                ("experts", n(self.experts)),
                ("layers", n(self.layers)),
                ("h", n(self.h)),
                ("h_pad", n(self.h.next_multiple_of(th))),
                ("i", n(self.i)),
                ("i_pad", n(self.i.next_multiple_of(ti))),
                ("split", self.split.clone().into()),
                ("backend", b.name().into()),
                ("th", n(th)),
                ("ti", n(ti)),
                ("per_rank", per_rank),
                ("file", gib(self.file_bytes).into()),
            ],
        )
    }

    /// The sentence for an unknown backend: every backend's figure.
    pub fn unknown_words(&self) -> Said {
        let each: Vec<String> = Mxfp4Backend::ALL
            .iter()
            .filter_map(|&b| Some(format!("{} {}", b.name(), gib(self.weights(b)?))))
            .collect();
        Said::new(
            "recipe-mxfp4-unknown",
            vec![("each", each.join(", ").into())],
        )
    }
}

/// One rank's weights when the experts are quantised, and whether the figure is only a floor.
/// MXFP4 experts (gpt-oss) are sized as the kernel backend pads them when the log or the
/// environment names it (`moe_quant`); otherwise, and for FP8 / INT4 experts, which vLLM also
/// repacks for its fused-MoE kernels, the file's bytes stay a floor, said in words.
pub(super) fn moe_weights(
    model: &ModelFacts,
    s: &VllmSettings,
    file_share: u64,
    inputs: &mut Vec<Input>,
    not_modelled: &mut Vec<Said>,
) -> (u64, bool) {
    let Some(experts) = model.config.moe_experts else {
        return (file_share, false);
    };
    // A GGUF file's experts are `gguf::weights_per_rank`'s, which runs first.
    if let Some(share) = ExpertShare::of(&model.config, model.weights.tensor_bytes(), s) {
        match &s.mxfp4_backend {
            Some(seen) => {
                if let Some(w) = share.weights(seen.backend) {
                    inputs.push(Input::said(
                        Said::new("recipe-input-mxfp4", vec![]),
                        share.words(seen.backend),
                        seen.source.clone(),
                    ));
                    return (w, false);
                }
            }
            None => {
                not_modelled.push(share.unknown_words());
                return (file_share, true);
            }
        }
    }
    let Some(q) = model
        .config
        .quant_method
        .clone()
        .or_else(|| s.quantization.as_ref().map(|q| q.value.clone()))
    else {
        return (file_share, false);
    };
    let args = vec![
        ("experts", experts.to_string().into()),
        ("q", q.as_str().into()),
    ];
    not_modelled.push(Said::new(kernel_key(&q), args));
    (file_share, true)
}

/// The sentence for a quantisation's experts, with what vLLM's source says of them until a
/// printed figure checks it (fixtures/vllm/README.md names the log that would).
fn kernel_key(q: &str) -> &'static str {
    match q.to_ascii_lowercase().as_str() {
        // Fp8MoEMethod.process_weights_after_loading keeps the fp8 weights and float32 block
        // scales as loaded; prepare_moe_fp8_layer_for_marlin repeats each block scale over its
        // 128 output columns in the model dtype.
        "fp8" => "recipe-vllm-nm-experts-fp8",
        // AWQMoEMethod / GPTQMarlinMoEMethod / compressed-tensors WNA16: the Marlin repacks
        // (awq_marlin_moe_repack, gptq_marlin_moe_repack, marlin_moe_permute_scales) keep each
        // tensor's element count.
        "awq" | "awq_marlin" | "gptq" | "gptq_marlin" | "moe_wna16" => {
            "recipe-vllm-nm-experts-int4"
        }
        _ => "recipe-vllm-nm-experts",
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn log_lines_name_the_backend() {
        let marlin = "(EngineCore_0 pid=144) WARNING 08-21 11:11:22 [marlin_utils_fp4.py:196] Your GPU does not have native support for FP4 computation but FP4 quantization is being used. Weight-only FP4 compression will be used leveraging the Marlin kernel.";
        assert_eq!(
            Mxfp4Backend::in_log_line(marlin),
            Some(Mxfp4Backend::Marlin)
        );
        assert_eq!(
            Mxfp4Backend::in_log_line(
                "INFO [mxfp4.py:93] Using FlashInfer MXFP4 BF16 backend for SM90"
            ),
            Some(Mxfp4Backend::FlashInfer128)
        );
        assert_eq!(
            Mxfp4Backend::in_log_line("Using max model len 131072"),
            None
        );
    }

    #[test]
    fn marlin_only_from_the_env_without_a_flashinfer_switch() {
        let e = |v: &[(&str, &str)]| -> Vec<(String, String)> {
            v.iter()
                .map(|(a, b)| (a.to_string(), b.to_string()))
                .collect()
        };
        assert!(from_env(&e(&[("VLLM_MXFP4_USE_MARLIN", "1")])).is_some());
        assert!(from_env(&e(&[("VLLM_MXFP4_USE_MARLIN", "0")])).is_none());
        assert!(from_env(&e(&[
            ("VLLM_MXFP4_USE_MARLIN", "1"),
            ("VLLM_USE_FLASHINFER_MOE_MXFP4_BF16", "1")
        ]))
        .is_none());
    }

    #[test]
    fn only_a_gpu_below_hopper_settles_the_kernel() {
        let cc = |major, minor| Some(ComputeCapability { major, minor });
        assert_eq!(
            from_capability(cc(8, 9)).map(|b| b.backend),
            Some(Mxfp4Backend::Marlin)
        );
        assert_eq!(from_capability(cc(9, 0)), None);
        assert_eq!(from_capability(cc(10, 0)), None);
        assert_eq!(from_capability(cc(10, 3)), None);
        // An RTX 5090 (12.0): neither FlashInfer's nor triton_kernels' range.
        assert_eq!(
            from_capability(cc(12, 0)).map(|b| b.backend),
            Some(Mxfp4Backend::Marlin)
        );
        // vLLM refuses MXFP4 below 8.0 (Mxfp4Config.get_min_capability).
        assert_eq!(from_capability(cc(7, 5)), None);
        assert_eq!(from_capability(None), None);
    }

    #[test]
    fn the_floor_says_what_each_kernel_keeps() {
        let said = |q: &str| {
            Said::new(
                kernel_key(q),
                vec![("experts", "8".into()), ("q", q.into())],
            )
        };
        assert!(said("FP8").contains("compute capability 8.9"));
        assert!(said("awq").contains("Marlin MoE repack"));
        assert!(said("mxfp4").ends_with("is a floor, not exact"));
        let cn = said("FP8").in_lang(gpuledger_lang::Lang::ZhCn);
        assert!(
            cn.contains("每层 8 个 FP8 专家") && cn.contains("计算能力 8.9"),
            "{cn}"
        );
    }

    #[test]
    fn absurd_shapes_do_not_overflow() {
        assert_eq!(layer_bytes(u64::MAX, 2880, 2880, (256, 128)), None);
        assert_eq!(layer_bytes(1, u64::MAX - 1, 32, (256, 128)), None);
    }
}
