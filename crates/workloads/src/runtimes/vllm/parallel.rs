//! What one vLLM rank holds under each parallel mode, and what the recipe does not size exactly,
//! in words (the recipe itself is in `estimate`):
//!
//! - tensor parallel: weights and KV heads split over the TP ranks (modelled);
//! - pipeline parallel: each stage loads its own layers (`get_pp_indices` in
//!   `vllm/distributed/utils.py`: `layers // pp` each, the remainder on the stages before the
//!   last) and allocates KV for them; the recipe splits the weights evenly over `tp × pp` and
//!   sizes KV for the largest stage (`⌈layers / pp⌉`), said here;
//! - data parallel (`--data-parallel-size`): whole replicas, each with its own engine core
//!   (`VLLM::EngineCore_DP0`) and `tp × pp` workers: a rank's share is the one above;
//! - expert parallel (`--enable-expert-parallel`): MoE experts spread over `tp × dp` ranks
//!   instead of split by TP inside each replica: not sized, said here.

use super::VllmSettings;
use gpuledger_lang::Said;

/// The notes for the parallel modes the recipe sizes only approximately or not at all.
pub fn notes(s: &VllmSettings, moe_experts: Option<u64>) -> Vec<Said> {
    let (tp, pp, dp) = (
        s.tensor_parallel_size.value,
        s.pipeline_parallel_size.value,
        s.data_parallel_size.value,
    );
    let mut out = Vec::new();
    if pp > 1 {
        out.push(Said::new(
            "recipe-vllm-nm-pipeline",
            vec![("stages", pp.to_string().into())],
        ));
    }
    if s.expert_parallel {
        if let Some(e) = moe_experts {
            out.push(Said::new(
                "recipe-vllm-nm-expert-parallel",
                vec![
                    ("experts", e.to_string().into()),
                    ("ranks", tp.saturating_mul(dp).to_string().into()),
                    ("tp", tp.to_string().into()),
                    ("dp", dp.to_string().into()),
                ],
            ));
        }
    }
    out
}

#[cfg(test)]
mod tests {
    use super::*;

    fn settings(cmd: &str) -> VllmSettings {
        let argv: Vec<String> = cmd.split(' ').map(str::to_string).collect();
        VllmSettings::from_args(&argv, "t").unwrap()
    }

    /// `vllm serve` with `--data-parallel-size 8 --enable-expert-parallel` as in
    /// vllm-project/vllm#51454 (DeepSeek-V4-Flash, 8× B200), and a PP 2 command line.
    #[test]
    fn the_modes_not_sized_are_named() {
        let s = settings(
            "vllm serve /m --data-parallel-size 8 --enable-expert-parallel --block-size 256",
        );
        assert_eq!(s.data_parallel_size.value, 8);
        let n = notes(&s, Some(256));
        assert!(
            n.len() == 1 && n[0].contains("spread over 8 ranks"),
            "{n:?}"
        );
        let zh = n[0].in_lang(gpuledger_lang::Lang::ZhCn);
        assert!(zh.contains("256 个专家分布在 8 个 rank 上"), "{zh}");
        // A dense model: expert parallelism changes nothing.
        assert!(notes(&s, None).is_empty());
        let n = notes(&settings("vllm serve /m -tp 2 -pp 2"), None);
        assert!(n[0].contains("largest stage"), "{n:?}");
        assert!(notes(&settings("vllm serve /m -tp 2"), None).is_empty());
    }
}
