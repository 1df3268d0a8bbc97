//! vLLM V1's KV cache groups for models that mix full-attention and sliding-window layers
//! (Gemma 2 and 3, gpt-oss, Qwen with `max_window_layers`).
//!
//! The rule, read from `vllm/v1/core/kv_cache_utils.py` (`_get_kv_cache_groups_uniform_page_size`,
//! `get_kv_cache_config_from_groups`, `_report_kv_cache_config`; vllm-project/vllm at 001cabc1):
//! the layers of each attention kind are cut into groups of `group_size` layers, where
//! `group_size` is the smallest kind's layer count, or the largest's when that is under 1.5×
//! the smallest (gpt-oss-20b with an EAGLE drafter: 12 + 13 layers → groups of 13); the last
//! group of a kind is padded. Every group shares one block table, and the memory is
//! `group_size` tensors of `num_blocks × page` (a page: one block of one layer), so
//! `num_blocks = available // page // group_size` and the KV cache is
//! `num_blocks × group_size × page`, not `num_blocks × layers × page`. The token count vLLM
//! prints depends on the release (`capacity`).
//!
//! A model whose layers are all of one kind (every layer full, or every layer windowed with one
//! window, as Mistral) is one group of all its layers: the plain rule. This holds from v0.9.1,
//! the first release with the hybrid KV cache manager (`version::HYBRID_KV_SINCE`; the
//! gemma-3-27b log in fixtures/vllm is 0.11.0rc2); before it, and with
//! `--disable-hybrid-kv-cache-manager` (or `--kv-transfer-config`, which turns the manager off
//! unless `--no-disable-hybrid-kv-cache-manager`), every layer is in one group.

use crate::runtimes::hf::LayerKinds;

/// How vLLM groups a hybrid model's layers.
#[derive(Debug, Clone, PartialEq)]
pub struct KvGroups {
    /// Layers per group: the tensors each block spans.
    pub group_size: u64,
    /// Groups over all kinds: a token takes one block slot in each.
    pub groups: u64,
    /// Empty layer slots the last groups are padded with.
    pub padding: u64,
}

impl KvGroups {
    /// `None`: one kind of layer only (the plain rule). `Err`: layers the rule does not size.
    pub fn of(l: &LayerKinds, pp: u64) -> Result<Option<KvGroups>, String> {
        if l.other > 0 {
            return Err(format!(
                "{} layer(s) of kind {} ({}): vLLM keeps their state in pages of its own, which this recipe does not size",
                l.other,
                l.other_names.join(", "),
                l.source
            ));
        }
        let counts: Vec<u64> = [l.full, l.sliding].into_iter().filter(|&c| c > 0).collect();
        if counts.len() < 2 {
            return Ok(None);
        }
        if pp > 1 {
            return Err(format!(
                "the KV groups of a hybrid model ({} full + {} sliding-window layers, {}) under pipeline parallelism: each stage's share of the groups",
                l.full, l.sliding, l.source
            ));
        }
        let min = counts.iter().copied().min().unwrap_or(1);
        let max = counts.iter().copied().max().unwrap_or(1);
        // max < 1.5 × min, in integers.
        let group_size = if 2 * max < 3 * min { max } else { min };
        let groups: u64 = counts.iter().map(|c| c.div_ceil(group_size)).sum();
        let padding = groups * group_size - counts.iter().sum::<u64>();
        Ok(Some(KvGroups {
            group_size,
            groups,
            padding,
        }))
    }
}

#[cfg(test)]
mod tests {
    use super::KvGroups;
    use crate::runtimes::hf::LayerKinds;

    fn kinds(full: u64, sliding: u64) -> LayerKinds {
        LayerKinds {
            full,
            sliding,
            other: 0,
            other_names: vec![],
            window: Some(1024),
            source: "test".into(),
        }
    }

    #[test]
    fn groups_follow_vllms_rule() {
        // Gemma-3-27B: 10 full + 52 windowed → groups of 10, 1 + 6 groups, 8 padding layers
        // (vLLM logs "Add 8 padding layers").
        let g = KvGroups::of(&kinds(10, 52), 1).unwrap().unwrap();
        assert_eq!((g.group_size, g.groups, g.padding), (10, 7, 8));
        // gpt-oss-20b: 12 + 12 → 2 groups of 12; with a 13th full layer, groups of 13.
        let g = KvGroups::of(&kinds(12, 12), 1).unwrap().unwrap();
        assert_eq!((g.group_size, g.groups, g.padding), (12, 2, 0));
        let g = KvGroups::of(&kinds(13, 12), 1).unwrap().unwrap();
        assert_eq!((g.group_size, g.groups, g.padding), (13, 2, 1));
        // One kind only: the plain rule.
        assert_eq!(KvGroups::of(&kinds(0, 32), 1).unwrap(), None);
        // Pipeline stages and other layer kinds are said to be unmodelled.
        assert!(KvGroups::of(&kinds(10, 52), 2).is_err());
        let mut l = kinds(16, 0);
        l.other = 48;
        l.other_names = vec!["linear_attention".into()];
        assert!(KvGroups::of(&l, 1)
            .unwrap_err()
            .contains("linear_attention"));
    }
}
