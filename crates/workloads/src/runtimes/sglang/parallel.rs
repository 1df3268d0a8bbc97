//! Where one SGLang rank's weights and KV come from under each parallel mode, as SGLang lays
//! them out:
//!
//! - tensor parallel (`--tp-size`): weights and KV heads split over the TP ranks;
//! - pipeline parallel (`--pp-size`): each stage holds its own layers, `get_pp_indices`
//!   (`python/sglang/srt/distributed/utils.py`) giving `layers // pp` to each and one more to
//!   each of the last `layers % pp` stages; its KV pool holds only those layers
//!   (`start_layer..end_layer` in `model_runner`); the stage is read from the scheduler's title
//!   (`sglang::scheduler_PP1_TP0`), else the largest stage is assumed and said;
//! - DP attention (`--enable-dp-attention --dp N`): attention runs over `tp / dp` ranks
//!   (`compute_dp_attention_world_info`), and the KV pool is sized with
//!   `get_num_kv_heads(get_attention_tp_size())`, so each rank holds `dp` times the heads it
//!   would under plain TP; its attention weights are likewise split over `tp / dp` ranks only,
//!   which this recipe does not size apart from the rest (named as a floor).

use super::SglangSettings;
use crate::runtimes::hf::gib;
use gpuledger_lang::said::Arg;
use gpuledger_lang::Said;

/// One rank's place: its pipeline stage's layers, and the words that say how they were found.
#[derive(Debug, Clone, PartialEq)]
pub struct Stage {
    pub layers: u64,
    /// `None`: one stage (no pipeline parallelism).
    pub words: Option<Said>,
}

/// The layers of pipeline stage `stage` of `pp` (SGLang's `get_pp_indices`), or of the largest
/// stage when the stage is not known.
pub fn stage(n_layer: u64, pp: u64, stage: Option<u64>) -> Stage {
    let pp = pp.max(1);
    if pp == 1 {
        return Stage {
            layers: n_layer,
            words: None,
        };
    }
    let (base, extra) = (n_layer / pp, n_layer % pp);
    let of = |r: u64| base + u64::from(r >= pp - extra);
    let n = |x: u64| Arg::from(x.to_string());
    let words = match stage.filter(|&r| r < pp) {
        Some(r) => (
            of(r),
            Said::new(
                "recipe-sglang-stage",
                vec![
                    ("stage", n(r)),
                    ("pp", n(pp)),
                    ("layers", n(of(r))),
                    ("n_layer", n(n_layer)),
                ],
            ),
        ),
        None => (
            of(pp - 1),
            Said::new(
                "recipe-sglang-stage-unknown",
                vec![
                    ("pp", n(pp)),
                    ("layers", n(of(pp - 1))),
                    ("n_layer", n(n_layer)),
                ],
            ),
        ),
    };
    Stage {
        layers: words.0,
        words: Some(words.1),
    }
}

/// The pipeline stage a process title names (`sglang::scheduler_PP1_TP0` → 1).
pub fn stage_in_title(title: &str) -> Option<u64> {
    title
        .rsplit("::")
        .next()?
        .split('_')
        .find_map(|p| p.strip_prefix("PP")?.parse().ok())
}

/// One rank's weights: `all ÷ TP`, times the stage's share of the layers under pipeline
/// parallelism. Returns the bytes and what the recipe does not size exactly, in words.
pub fn weights(all_per_tp: u64, n_layer: u64, st: &Stage, s: &SglangSettings) -> (u64, Vec<Said>) {
    let mut notes = Vec::new();
    let mut w = all_per_tp;
    if st.words.is_some() && n_layer > 0 {
        w = (all_per_tp as u128 * st.layers as u128 / n_layer as u128) as u64;
        notes.push(Said::new(
            "recipe-sglang-nm-stage-weights",
            vec![
                ("per_tp", gib(all_per_tp).into()),
                ("layers", st.layers.to_string().into()),
                ("n_layer", n_layer.to_string().into()),
            ],
        ));
    }
    if s.enable_dp_attention.value && s.dp_size.value > 1 {
        notes.push(Said::new(
            "recipe-sglang-nm-dp-attention",
            vec![
                ("atp", s.attention_tp().to_string().into()),
                ("tp", s.tp_size.value.to_string().into()),
                ("dp", s.dp_size.value.to_string().into()),
            ],
        ));
    }
    (w, notes)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn stages_follow_sglangs_layer_split() {
        // 28 layers over 2 stages: 14 each; 94 over 4: 23, 23, 24, 24.
        assert_eq!(stage(28, 2, Some(0)).layers, 14);
        let of = |r| stage(94, 4, Some(r)).layers;
        assert_eq!([of(0), of(1), of(2), of(3)], [23, 23, 24, 24]);
        // Unknown stage: the largest, said so.
        let st = stage(94, 4, None);
        assert_eq!(st.layers, 24);
        assert!(st.words.unwrap().contains("not known"));
        assert_eq!(
            stage(94, 1, Some(0)),
            Stage {
                layers: 94,
                words: None
            }
        );
        assert_eq!(stage_in_title("sglang::scheduler_PP1_TP0"), Some(1));
        assert_eq!(stage_in_title("sglang::scheduler_TP3"), None);
    }
}
