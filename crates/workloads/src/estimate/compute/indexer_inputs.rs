//! The sparse-attention indexers' graph inputs, kept with the builder's other inputs: the DSA
//! lightning indexer's (`dsa.rs`), glm5-next's k-pool indexer's (`kpool.rs`) and MiniMax-M3's
//! MSA (`msa.rs`).

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

/// The k-pool inputs (`llm_graph_input_kpool`) and the shapes they fix.
#[derive(Clone, Copy)]
pub(super) struct KpoolInputs {
    pub(super) k_idx: Id,
    pub(super) pool_cells: Id,
    pub(super) pool_idxs: Id,
    pub(super) pool_mask: Id,
    pub(super) tail_idxs: Id,
    pub(super) gather_mask: Id,
    pub(super) new_pool_idxs: Id,
    pub(super) new_pool_rep: Id,
    /// kpool, pools scored (padded), pools re-pooled, top pools, selected cells.
    pub(super) shape: [u64; 5],
}

/// qwen4exp's k-pool inputs (`llm_graph_input_kpool`, qsa.rs): the indexer key rows' indices,
/// the pool cells, the pools' member indices, the F16 pool mask, the tail indices, and the new
/// pools' member indices, representative rows and positions.
#[derive(Clone, Copy)]
pub(super) struct QsaInputs {
    pub(super) k_idx: Id,
    pub(super) pool_cells: Id,
    pub(super) pool_idxs: Id,
    pub(super) pool_mask: Id,
    pub(super) tail_idxs: Id,
    pub(super) new: [Id; 3],
    /// Pools (padded), new pools, selected cells, cells per pool.
    pub(super) shape: [u64; 4],
}
