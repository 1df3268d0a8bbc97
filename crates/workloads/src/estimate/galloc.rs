//! A replay of ggml's graph allocator (`ggml-alloc.c`, `ggml_gallocr`) over a graph of tensor
//! sizes. llama.cpp sizes each compute buffer by allocating its worst-case graph once: tensors are
//! placed best-fit in one growing buffer, freed after their last consumer, and some ops write into
//! their input's memory. The buffer's size is where that placement peaked, which depends on the
//! order and on fragmentation, not only on which tensors are alive together — so the estimate
//! replays the placement instead of summing live tensors.
//!
//! On a GPU build the backend scheduler first assigns each op to the device or the host and adds
//! copies where a split reads a tensor of the other backend ([`Graph::buffer_sizes`], from
//! `ggml_backend_sched_split_graph`); each backend's buffer is then placed as below.
//!
//! What is replayed (ggml-alloc.c of llama.cpp b8000+; unchanged in its essentials since 2024):
//! - graph inputs are placed first, in graph order, before any node;
//! - a node is placed best-fit among the free blocks other than the tail; failing that, at the tail;
//! - a node whose op can run in place (add, mul, scale, norms, rope, softmax, unary) takes its
//!   first input's block when that input is owned by the allocator (not a view, not external), has
//!   no other consumer and no view, and is not a graph output;
//! - a tensor is freed when its last consumer has run; a view keeps its source alive; graph outputs
//!   are never freed; freed blocks merge with their neighbours.

mod sched;

pub use sched::Split;

/// One tensor of the graph.
#[derive(Debug, Clone, Default)]
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
    /// Size of the data a view shows (what a copy of it to another backend takes).
    shown: u64,
    /// Backend fixed before the scheduler's expansion (`ggml_backend_sched_backend_id_from_cur`):
    /// graph inputs (host), nodes writing into a pre-allocated buffer, tensors in other buffers.
    backend: Option<u8>,
    /// Lives in a buffer of its own (a weight, the KV cache): never placed here, but copied to
    /// another backend that reads it.
    ext: Option<Ext>,
    /// Rows of the op's result (`ne[1]`): a backend offloads an op on host weights only over a
    /// batch of at least 32 rows (`offload_op`).
    rows: u64,
    /// The op never moves to another backend for its weight (`GET_ROWS`: not offloaded).
    pinned: bool,
    /// A weight that no `MUL_MAT` / `MUL_MAT_ID` reads (a norm, a bias, a scale, a convolution
    /// kernel): Metal does not offload the ops on it.
    not_matmul: bool,
    /// A view that is an op for the scheduler (`set_rows` into a tensor of the graph).
    sched_op: bool,
    /// A leaf the graph makes (`Graph::leaf`), not a graph input.
    made_leaf: bool,
}

/// A tensor held by a buffer other than the compute buffers.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
enum Ext {
    /// In a weights buffer: an op reading it runs where it is (or is offloaded).
    Weight,
    /// Any other buffer (the KV cache): read where the op runs, copied if needed.
    Other,
}

/// The host (`CPU`; its buffer is `Vulkan_Host`/`CUDA_Host` on a GPU build): the scheduler's
/// last backend. Devices are numbered from 0 in llama.cpp's order, the first the
/// highest-priority backend.
pub const HOST: u8 = u8::MAX;
/// A device's compute buffer type, for the replay.
#[derive(Debug, Clone, Copy)]
pub struct DeviceBuffer {
    pub align: u64,
    /// Runs ops on host weights for a large batch (`offload_op`; RPC devices do not).
    pub offloads: bool,
    /// Offloads only matrix products (`ggml_backend_metal_device_offload_op`: `MUL_MAT` and
    /// `MUL_MAT_ID`); CUDA's and Vulkan's offload any op over the batch.
    pub offloads_matmul_only: bool,
}

/// `ggml_backend_vk_device_offload_op` / `ggml_backend_cuda_device_offload_op`: an op on host
/// weights is offloaded when its batch has at least this many rows.
const OFFLOAD_MIN_ROWS: u64 = 32;

/// A graph in execution order: inputs, then nodes as `ggml_build_forward_expand` orders them.
/// Weights and KV-cache tensors live in other buffers and are left out.
#[derive(Debug, Default, Clone)]
pub struct Graph {
    t: Vec<Tensor>,
    leafs: Vec<usize>,
    nodes: Vec<usize>,
    /// Rows (`ne[1]`) recorded on the nodes created from now on.
    pub rows: u64,
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
            backend: Some(HOST),
            ..Tensor::default()
        });
        self.leafs.push(id);
        id
    }

    /// A tensor the graph makes with no op (`ggml_new_tensor`, then filled by an op, e.g.
    /// `ggml_fill`): a graph leaf, which ggml-alloc places in its leaf pass before any node
    /// (`ggml_gallocr_alloc_graph_impl`; a device's input copies come after, at their split), on
    /// the backend of its first consumer (the scheduler's pass 4).
    pub fn leaf(&mut self, bytes: u64) -> Id {
        let id = self.push(Tensor {
            bytes,
            made_leaf: true,
            ..Tensor::default()
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

    /// A strided view of `src` that shows `shown` bytes (`ggml_nbytes`: the last element's end;
    /// what a copy of it to another backend takes).
    pub fn view_showing(&mut self, src: Id, shown: u64) -> Id {
        let id = self.view_with(src, &[]);
        self.t[id].shown = shown;
        id
    }

    /// `set_rows` into `dst`, a tensor of this graph, from `srcs`: a view of `dst` for the
    /// allocator, an op for the scheduler (it runs on a backend, which copies what it reads).
    pub fn set_rows(&mut self, dst: Id, srcs: &[Id]) -> Id {
        let id = self.view_with(dst, srcs);
        self.t[id].sched_op = true;
        id
    }

    /// Fix the backend of an op before the scheduler's expansion
    /// (`ggml_backend_sched_set_tensor_backend`).
    pub fn pin(&mut self, id: Id, backend: u8) {
        self.t[id].backend = Some(backend);
    }

    /// A view of `src` that also reads `more`.
    fn view_with(&mut self, src: Id, more: &[Id]) -> Id {
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
            shown: self.t[src].shown,
            ..Tensor::default()
        });
        self.nodes.push(id);
        id
    }

    /// A node that writes into external memory (`set_rows` into the KV cache): it consumes
    /// `srcs` but places nothing.
    pub fn external(&mut self, srcs: &[Id], backend: Option<u8>) -> Id {
        let id = self.push(Tensor {
            bytes: 0,
            view_src: None,
            is_view: true,
            output: false,
            inplace: false,
            srcs: srcs.to_vec(),
            backend,
            ..Tensor::default()
        });
        self.nodes.push(id);
        id
    }

    /// A weight of `bytes` in a weights buffer on `backend`: ops that read it run there, or on
    /// the device when they read it from the host over a large batch (op offload), with a copy.
    pub fn weight(&mut self, bytes: u64, backend: u8) -> Id {
        self.ext(bytes, backend, Ext::Weight)
    }

    /// Mark a weight as one that no matrix product reads (see `DeviceBuffer::offloads_matmul_only`).
    pub fn not_matmul(&mut self, weight: Id) {
        self.t[weight].not_matmul = true;
    }

    /// A view of `bytes` into another buffer (the KV cache) on `backend`.
    pub fn cache_view(&mut self, bytes: u64, backend: u8) -> Id {
        self.ext(bytes, backend, Ext::Other)
    }

    fn ext(&mut self, bytes: u64, backend: u8, kind: Ext) -> Id {
        self.push(Tensor {
            shown: bytes,
            backend: Some(backend),
            ext: Some(kind),
            is_view: true,
            ..Tensor::default()
        })
    }

    /// The token lookup (`GET_ROWS` on a weight): runs where the weight is, never offloaded.
    pub fn get_rows(&mut self, bytes: u64, srcs: &[Id]) -> Id {
        let id = self.node(bytes, srcs, false);
        self.t[id].pinned = true;
        id
    }

    pub fn set_output(&mut self, id: Id) {
        self.t[id].output = true;
    }

    /// The backend a tensor was given (the host when none).
    pub fn backend_of(&self, id: Id) -> u8 {
        self.t[id].backend.unwrap_or(HOST)
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
            ..Tensor::default()
        });
        self.nodes.push(id);
        id
    }

    fn push(&mut self, mut t: Tensor) -> Id {
        t.rows = self.rows;
        if t.shown == 0 {
            t.shown = t.bytes;
        }
        self.t.push(t);
        self.t.len() - 1
    }

    /// The buffer size ggml-alloc reaches for this graph on one backend with this alignment.
    #[cfg(test)]
    pub fn buffer_size(&self, alignment: u64) -> u64 {
        self.buffer_sizes(&[], alignment, 1).host
    }

    /// The compute buffer of each backend (`[device, host]`) when the backend scheduler runs
    /// the graph on a device and the host (`ggml_backend_sched_split_graph`, then
    /// `ggml_gallocr_reserve_n` with one buffer per backend). Without a device everything is on
    /// the host and the result is the one-buffer replay.
    pub fn buffer_sizes(
        &self,
        devices: &[DeviceBuffer],
        host_align: u64,
        n_copies: u64,
    ) -> Buffers {
        let mut seq = self.schedule(devices);
        let (n, nd) = (seq.info.len(), devices.len());
        let mut a: Vec<Alloc> = devices.iter().map(|d| Alloc::new(d.align)).collect();
        a.push(Alloc::new(host_align));
        let slot = |b: u8| if b == HOST { nd } else { b as usize };
        let (mut children, mut views) = (vec![0u32; n], vec![0u32; n]);
        let mut addr: Vec<Option<u64>> = vec![None; n];
        self.place_first(&mut seq, &mut a, &mut addr, n_copies, slot);
        let info = &seq.info;
        for (id, srcs) in &seq.nodes {
            if let Some(v) = info[*id].view_src {
                views[v] += 1;
            }
            for &s in srcs {
                children[s] += 1;
            }
        }
        for (id, srcs) in &seq.nodes {
            let id = *id;
            let t = &info[id];
            let b = slot(t.backend);
            if !t.is_view && addr[id].is_none() {
                let mut reused = None;
                if t.inplace {
                    // Any input qualifies, in order; equal bytes stand for ggml's same-layout
                    // test; only a tensor of the same buffer.
                    for &p in srcs {
                        let pt = &info[p];
                        if addr[p].is_some()
                            && !pt.is_view
                            && !pt.output
                            && slot(pt.backend) == b
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
                    None => a[b].alloc(t.bytes),
                });
            }
            for &p in srcs {
                children[p] -= 1;
                if children[p] == 0 && views[p] == 0 {
                    if info[p].is_view {
                        if let Some(v) = info[p].view_src {
                            views[v] -= 1;
                            if views[v] == 0 && children[v] == 0 && !info[v].output {
                                if let Some(x) = addr[v].take() {
                                    a[slot(info[v].backend)].free(x, info[v].bytes);
                                }
                            }
                        }
                    } else if !info[p].output {
                        if let Some(x) = addr[p].take() {
                            a[slot(info[p].backend)].free(x, info[p].bytes);
                        }
                    }
                }
            }
        }
        let (host, splits) = (a.pop().map_or(0, |h| h.max), seq.splits);
        let devices = a.iter().map(|d| d.max).collect();
        Buffers {
            devices,
            host,
            splits,
        }
    }

    /// What ggml-alloc places before any node: the graph inputs; with pipeline parallelism
    /// (`n_copies` > 1) every graph input, then every split's input copy, `n_copies` times each,
    /// never freed (marked input and output: ggml_backend_sched_split_graph's passes 5 and 6).
    fn place_first(
        &self,
        seq: &mut sched::Seq,
        a: &mut [Alloc],
        addr: &mut [Option<u64>],
        n_copies: u64,
        slot: impl Fn(u8) -> usize,
    ) {
        let first: Vec<Id> = if n_copies > 1 {
            self.leafs.iter().chain(&seq.copies).copied().collect()
        } else {
            self.leafs.clone()
        };
        for id in first {
            let (b, bytes) = (slot(seq.info[id].backend), seq.info[id].bytes);
            addr[id] = Some(a[b].alloc(bytes));
            // a leaf made in the graph is no graph input: the scheduler keeps one of it
            if n_copies > 1 && !self.t.get(id).is_some_and(|t| t.made_leaf) {
                (1..n_copies).for_each(|_| {
                    a[b].alloc(bytes);
                });
                seq.info[id].output = true;
            }
        }
    }
}

/// What the replay of one graph gives: each device's compute buffer and the host's, and the
/// scheduler's splits.
pub struct Buffers {
    pub devices: Vec<u64>,
    pub host: u64,
    pub splits: Vec<Split>,
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
    fn a_made_leaf_is_placed_before_any_node() {
        let mut g = Graph::default();
        let i = g.input(128);
        let a = g.op(1024, &[i]);
        let b = g.op(1024, &[a]); // a's block free after this
        let z = g.leaf(1024);
        let f = g.inplace(1024, &[z]); // filled in place
        let _ = g.op(64, &[b, f]); // takes a's hole

        // As a node, z would have taken a's hole (128 + 2 × 1024); as a leaf it is placed first
        // (ggml_gallocr_alloc_graph_impl allocates the leafs before the nodes).
        assert_eq!(g.buffer_size(1), 128 + 3 * 1024);
    }

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

    #[test]
    fn a_made_leaf_goes_first_on_its_consumers_device() {
        let mut g = Graph::default();
        let i = g.input(100);
        let w = g.weight(4096, 0);
        let x = g.op(1024, &[w, i]);
        let l = g.leaf(512);
        let _ = g.op(1024, &[x, l]);
        let dev = DeviceBuffer {
            align: 32,
            offloads: false,
            offloads_matmul_only: false,
        };
        let b = g.buffer_sizes(&[dev], 32, 1);
        // the device: the leaf (512), then the input's copy (128), x (1024), the last op (1024)
        assert_eq!(b.devices, vec![512 + 128 + 1024 + 1024]);
        assert_eq!(b.host, 128);
        // a leaf read on the host stays there (no copy, nothing on the device)
        let mut g = Graph::default();
        let i = g.input(100);
        let w = g.weight(4096, HOST);
        let x = g.op(1024, &[w, i]);
        let l = g.leaf(512);
        let _ = g.op(1024, &[x, l]);
        let b = g.buffer_sizes(&[dev], 32, 1);
        assert_eq!((b.devices, b.host), (vec![0], 128 + 512 + 1024 + 1024));
    }
}
