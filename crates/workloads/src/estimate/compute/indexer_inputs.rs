//! The sparse-attention indexers' graph inputs, kept with the builder's other inputs: the DSA
//! lightning indexer's (`dsa.rs`), the k-pool inputs glm5-next's indexer (`kpool.rs`) and
//! qwen4exp's QSA (`qsa.rs`) share, MiniMax-M3's MSA (`msa.rs`), and qwen4exp's PLE rows
//! (`qple.rs`).

use super::super::galloc::Id;

/// The indexer's graph inputs (`build_attn_inp_k_dsa_impl`): the Hadamard rotation (none for
/// hy_v4, whose graph skips it: models/hy-v4.cpp `build_indexer_top_k`), the key rows' indices
/// and the indexer's F16 mask.
#[derive(Clone, Copy)]
pub(super) struct LidInputs {
    pub(super) k_rot: Option<Id>,
    pub(super) k_idx: Id,
    pub(super) mask: Id,
}

/// The MSA graph inputs (`llm_graph_input_msa`): the local-block bias, the position mask, the
/// position → cell map and the cell → block map.
#[derive(Clone, Copy)]
pub(super) struct MsaInputs {
    pub(super) bias: Id,
    pub(super) pos_mask: Id,
    pub(super) pos_slot: Id,
    pub(super) cell_blk: Id,
    /// The indexer key rows' indices.
    pub(super) k_idx: Id,
    /// The F32 copy of the causal mask (`msa_mf`), once the first sparse layer made it.
    pub(super) mask_f32: Option<Id>,
    /// Positions (`n_ps`, whole blocks), blocks, top-k blocks, streams.
    pub(super) shape: [u64; 4],
}

impl MsaInputs {
    /// Keep the F32 mask copy the first sparse layer made, for the later ones.
    pub(super) fn keep_mask_f32(&mut self, mf: Id) {
        self.mask_f32 = Some(mf);
    }
}

/// The k-pool inputs (`llm_graph_input_kpool`), the one owner of what glm5-next's and
/// qwen4exp's graphs each declare under that name (models/glm5-next.cpp, models/qwen4exp.cpp
/// `build_inp_kpool`): the indexer key rows' indices, the pool cells, the pools' member
/// indices, the F16 pool mask, the tail indices, and the new pools' members and representative
/// rows, all sized by `llama_memory_hybrid_idx_context`; plus glm5-next's gather mask or
/// qwen4exp's new pools' M-RoPE positions (`extra`).
#[derive(Clone, Copy)]
pub(super) struct KpoolInputs {
    pub(super) k_idx: Id,
    pub(super) pool_cells: Id,
    pub(super) pool_idxs: Id,
    pub(super) pool_mask: Id,
    pub(super) tail_idxs: Id,
    pub(super) new_pool_idxs: Id,
    pub(super) new_pool_rep: Id,
    /// glm5-next's `gather_mask` ([n_sel, n_tokens] F32), qwen4exp's `new_pool_pos`
    /// ([4 × n_new] I32).
    pub(super) extra: Id,
    pub(super) shape: KpoolShape,
}

/// The counts the k-pool inputs fix at the reserve.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub(super) struct KpoolShape {
    /// Cells per pool (`indexer_kpool`).
    pub(super) kpool: u64,
    /// Pools scored, padded (`kpool_pad`).
    pub(super) n_pool: u64,
    /// Pools re-pooled (at least 1).
    pub(super) n_new: u64,
    /// Top pools kept per token.
    pub(super) n_top: u64,
    /// Cells selected per token: the top pools' and (with the tail) kpool − 1 more.
    pub(super) n_sel: u64,
}

/// `kpool_pad` (llama-memory-hybrid-idx.cpp): the pool count plus one unused pool, padded to
/// 64, at least 64.
pub(super) fn kpool_pad(n_pool: u64) -> u64 {
    (n_pool + 1).div_ceil(64).saturating_mul(64).max(64)
}

impl KpoolShape {
    /// The reserve walks a full context (`llama_memory_hybrid_idx_context`'s constructor):
    /// `n_pool_real = cells / kpool × n_seq_max` pools, every one new; `kpool_pad` of them
    /// scored; `min(n_pool, top_k / kpool)` kept. `None` where a tensor of `t` tokens these
    /// counts size would be beyond any device (a header not describing a model).
    pub(super) fn at_reserve(
        (cells, n_seq, t): (u64, u64, u64),
        (kpool, top_k, tail): (u64, u64, bool),
        head_size: u64,
    ) -> Option<Self> {
        if kpool < 2 {
            return None;
        }
        let real = (cells / kpool).checked_mul(n_seq.max(1))?;
        let (n_pool, n_new) = (kpool_pad(real), real.max(1));
        // Every tensor the inputs and the indexer make is bounded before its bytes are
        // computed in u64.
        let (k, t128, hs) = (kpool as u128, t as u128, head_size as u128);
        let widest = [
            n_pool as u128 * t128,
            2 * hs * k * n_new as u128,
            k * n_pool as u128,
            k * t128,
            (top_k as u128 + k) * t128,
            (cells as u128 + top_k as u128 + k) * t128,
        ];
        if widest.iter().any(|&w| w * 8 > super::MAX_TENSOR) {
            return None;
        }
        let n_top = n_pool.min(top_k / kpool);
        let n_sel = kpool * n_top + if tail { kpool - 1 } else { 0 };
        Some(KpoolShape {
            kpool,
            n_pool,
            n_new,
            n_top,
            n_sel,
        })
    }
}

/// The PLE embedding's shapes and its gathered rows, once the host gathered them.
#[derive(Clone, Copy)]
pub(super) struct QPle {
    /// The layer that reads it.
    pub(super) layer: usize,
    /// The rows' row indices (an input), then the gathered rows (`ple_embd`).
    pub(super) rows: Id,
    /// `(ngram_size - 1) × heads_per_ngram` heads of `n_embd_per_layer`.
    pub(super) width: u64,
    pub(super) kernel: u64,
    pub(super) ngram: u64,
}

#[cfg(test)]
mod tests {
    use super::{kpool_pad, KpoolShape};

    #[test]
    fn the_pool_count_is_padded_past_the_last_pool_to_64() {
        // llama-memory-hybrid-idx.cpp kpool_pad: max(64, GGML_PAD(n + 1, 64)); the reserve of
        // `-c 4096` with 4 slots and ratio 4 has 4096 pools, whose F16 mask llama-server's
        // host buffer holds as 4160 × 512.
        assert_eq!(kpool_pad(0), 64);
        assert_eq!(kpool_pad(63), 64);
        assert_eq!(kpool_pad(64), 128);
        assert_eq!(kpool_pad(4096), 4160);
    }

    #[test]
    fn the_reserve_counts_follow_the_memory_context() {
        // qwen4exp-qsa `-c 4096` (4 slots, ratio 4, top-k 64): 4096 pools, all new, 4160
        // scored, 16 kept, 16 × 4 + 3 tail cells selected (the server's 4160 × 512 pool mask
        // and 67-wide selection).
        let s = KpoolShape::at_reserve((4096, 4, 512), (4, 64, true), 64).unwrap();
        let want = KpoolShape {
            kpool: 4,
            n_pool: 4160,
            n_new: 4096,
            n_top: 16,
            n_sel: 67,
        };
        assert_eq!(s, want);
        // No tail (glm5-next without kpool_select_tail), a ratio of 1, and sizes beyond any
        // device.
        let s = KpoolShape::at_reserve((4096, 1, 512), (4, 64, false), 64).unwrap();
        assert_eq!(s.n_sel, 64);
        assert!(KpoolShape::at_reserve((4096, 1, 512), (1, 64, true), 64).is_none());
        assert!(KpoolShape::at_reserve((1 << 40, 1, 512), (4, 64, true), 64).is_none());
    }
}
