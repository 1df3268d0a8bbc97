//! A replay of ggml's graph allocator (`ggml-alloc.c`, `ggml_gallocr`) over a graph of tensor
//! sizes. llama.cpp sizes each compute buffer by allocating its worst-case graph once: tensors are
//! placed best-fit in one growing buffer, freed after their last consumer, and some ops write into
//! their input's memory. The buffer's size is where that placement peaked, which depends on the
//! order and on fragmentation, not only on which tensors are alive together — so the estimate
//! replays the placement instead of summing live tensors.
//!
//! What is replayed (ggml-alloc.c of llama.cpp b8000+; unchanged in its essentials since 2024):
//! - graph inputs are placed first, in graph order, before any node;
//! - a node is placed best-fit among the free blocks other than the tail; failing that, at the tail;
//! - a node whose op can run in place (add, mul, scale, norms, rope, softmax, unary) takes its
//!   first input's block when that input is owned by the allocator (not a view, not external), has
//!   no other consumer and no view, and is not a graph output;
//! - a tensor is freed when its last consumer has run; a view keeps its source alive; graph outputs
//!   are never freed; freed blocks merge with their neighbours.

/// One tensor of the graph.
#[derive(Debug, Clone)]
struct Tensor {
    /// Bytes it takes (0 for a view or an external tensor).
    bytes: u64,
    /// The tensor whose memory this view shares (`None`: not a view, or a view of external memory).
    view_src: Option<usize>,
    is_view: bool,
    /// A graph output (`ggml_set_output`): never freed, never reused in place.
    output: bool,
    /// The op can write into its first input (`ggml_op_can_inplace`).
    inplace: bool,
    srcs: Vec<usize>,
}

/// A graph in execution order: inputs, then nodes as `ggml_build_forward_expand` orders them.
/// Weights and KV-cache tensors live in other buffers and are left out.
#[derive(Debug, Default, Clone)]
pub struct Graph {
    t: Vec<Tensor>,
    leafs: Vec<usize>,
    nodes: Vec<usize>,
}

pub type Id = usize;

impl Graph {
    /// A graph input of `bytes` (tokens, positions, the attention mask...): placed before any
    /// node, in the order of first use.
    pub fn input(&mut self, bytes: u64) -> Id {
        let id = self.push(Tensor {
            bytes,
            view_src: None,
            is_view: false,
            output: false,
            inplace: false,
            srcs: vec![],
        });
        self.leafs.push(id);
        id
    }

    /// A node computing a new tensor of `bytes` from `srcs`.
    pub fn op(&mut self, bytes: u64, srcs: &[Id]) -> Id {
        self.node(bytes, srcs, false)
    }

    /// A node whose op may run in place on one of `srcs` (same shape and type).
    pub fn inplace(&mut self, bytes: u64, srcs: &[Id]) -> Id {
        self.node(bytes, srcs, true)
    }

    /// A view (reshape, permute, view) of `src`: no memory of its own.
    pub fn view(&mut self, src: Id) -> Id {
        self.view_with(src, &[])
    }

    /// A view of `src` that also reads `more` (`set_rows` into a tensor of this graph).
    pub fn view_with(&mut self, src: Id, more: &[Id]) -> Id {
        let root = self.t[src]
            .view_src
            .or(if self.t[src].is_view { None } else { Some(src) });
        let id = self.push(Tensor {
            bytes: 0,
            view_src: root,
            is_view: true,
            output: false,
            inplace: false,
            srcs: std::iter::once(src).chain(more.iter().copied()).collect(),
        });
        self.nodes.push(id);
        id
    }

    /// A node that writes into external memory (`set_rows` into the KV cache): it consumes
    /// `srcs` but places nothing.
    pub fn external(&mut self, srcs: &[Id]) -> Id {
        let id = self.push(Tensor {
            bytes: 0,
            view_src: None,
            is_view: true,
            output: false,
            inplace: false,
            srcs: srcs.to_vec(),
        });
        self.nodes.push(id);
        id
    }

    pub fn set_output(&mut self, id: Id) {
        self.t[id].output = true;
    }

    pub fn bytes(&self, id: Id) -> u64 {
        self.t[id].bytes
    }

    fn node(&mut self, bytes: u64, srcs: &[Id], inplace: bool) -> Id {
        let id = self.push(Tensor {
            bytes,
            view_src: None,
            is_view: false,
            output: false,
            inplace,
            srcs: srcs.to_vec(),
        });
        self.nodes.push(id);
        id
    }

    fn push(&mut self, t: Tensor) -> Id {
        self.t.push(t);
        self.t.len() - 1
    }

    /// The buffer size ggml-alloc reaches for this graph with this alignment.
    pub fn buffer_size(&self, alignment: u64) -> u64 {
        let mut a = Alloc::new(alignment);
        let n = self.t.len();
        let mut children = vec![0u32; n];
        let mut views = vec![0u32; n];
        let mut addr: Vec<Option<u64>> = vec![None; n];
        let size = |id: Id| self.t[id].bytes;
        for &l in &self.leafs {
            addr[l] = Some(a.alloc(size(l)));
        }
        for &id in &self.nodes {
            if let Some(v) = self.t[id].view_src {
                views[v] += 1;
            }
            for &s in &self.t[id].srcs {
                children[s] += 1;
            }
        }
        for &id in &self.nodes {
            let t = &self.t[id];
            if !t.is_view && addr[id].is_none() {
                let mut reused = None;
                if t.inplace {
                    // Any input qualifies, in order; equal bytes stand for ggml's same-layout test.
                    for &p in &t.srcs {
                        let pt = &self.t[p];
                        if addr[p].is_some()
                            && !pt.is_view
                            && !pt.output
                            && children[p] == 1
                            && views[p] == 0
                            && pt.bytes == t.bytes
                        {
                            reused = addr[p].take();
                            break;
                        }
                    }
                }
                addr[id] = Some(match reused {
                    Some(x) => x,
                    None => a.alloc(t.bytes),
                });
            }
            for &p in &t.srcs {
                children[p] -= 1;
                if children[p] == 0 && views[p] == 0 {
                    if self.t[p].is_view {
                        if let Some(v) = self.t[p].view_src {
                            views[v] -= 1;
                            if views[v] == 0 && children[v] == 0 && !self.t[v].output {
                                if let Some(x) = addr[v].take() {
                                    a.free(x, self.t[v].bytes);
                                }
                            }
                        }
                    } else if !self.t[p].output {
                        if let Some(x) = addr[p].take() {
                            a.free(x, self.t[p].bytes);
                        }
                    }
                }
            }
        }
        a.max
    }
}

/// `ggml_dyn_tallocr` with one chunk: free blocks sorted by offset, the last one the open tail.
struct Alloc {
    align: u64,
    free: Vec<(u64, u64)>,
    max: u64,
}

const TAIL: u64 = u64::MAX / 4;

impl Alloc {
    fn new(align: u64) -> Self {
        Alloc {
            align: align.max(1),
            free: vec![(0, TAIL)],
            max: 0,
        }
    }

    fn alloc(&mut self, bytes: u64) -> u64 {
        let size = bytes.div_ceil(self.align) * self.align;
        // Best fit among the blocks before the tail; on equal sizes the later block wins.
        let mut best: Option<usize> = None;
        let mut best_size = u64::MAX;
        for (i, &(_, s)) in self.free[..self.free.len() - 1].iter().enumerate() {
            if s >= size && s <= best_size {
                best = Some(i);
                best_size = s;
            }
        }
        let i = best.unwrap_or(self.free.len() - 1);
        let (off, s) = self.free[i];
        if s == size {
            self.free.remove(i);
        } else {
            self.free[i] = (off + size, s - size);
        }
        self.max = self.max.max(off + size);
        off
    }

    fn free(&mut self, off: u64, bytes: u64) {
        let size = bytes.div_ceil(self.align) * self.align;
        if size == 0 {
            return;
        }
        for i in 0..self.free.len() {
            let (bo, bs) = self.free[i];
            if bo + bs == off {
                self.free[i].1 += size;
                if i + 1 < self.free.len() && self.free[i].0 + self.free[i].1 == self.free[i + 1].0
                {
                    self.free[i].1 += self.free[i + 1].1;
                    self.free.remove(i + 1);
                }
                return;
            }
            if off + size == bo {
                self.free[i] = (off, bs + size);
                if i > 0 && self.free[i - 1].0 + self.free[i - 1].1 == off {
                    self.free[i - 1].1 += self.free[i].1;
                    self.free.remove(i);
                }
                return;
            }
        }
        let pos = self.free.partition_point(|&(o, _)| o < off);
        self.free.insert(pos, (off, size));
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn freed_blocks_are_reused_best_fit_and_merge() {
        let mut g = Graph::default();
        let i = g.input(100);
        let a = g.op(1000, &[i]);
        let b = g.op(500, &[a]); // a freed after this: hole of 1024 at 128
        let c = g.op(400, &[b]); // fits in the hole
        let d = g.inplace(400, &[c]); // takes c's block
        let _ = g.op(64, &[d]);
        // 128 (input) + 1024 (a) + 512 (b) = 1664 at the peak; c and d reuse a's hole.
        assert_eq!(g.buffer_size(32), 128 + 1024 + 512);
    }

    #[test]
    fn views_keep_their_source_alive() {
        let mut g = Graph::default();
        let a = g.op(1024, &[]);
        let v = g.view(a);
        let b = g.op(1024, &[v]);
        let _ = g.op(1024, &[b]);
        // a is freed after b (its view's only consumer) ran: the last op reuses a's block.
        assert_eq!(g.buffer_size(32), 2048);
    }
}
