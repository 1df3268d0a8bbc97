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
        self.buffer_sizes(&[], alignment).1
    }

    /// The compute buffer of each backend (`[device, host]`) when the backend scheduler runs
    /// the graph on a device and the host (`ggml_backend_sched_split_graph`, then
    /// `ggml_gallocr_reserve_n` with one buffer per backend). Without a device everything is on
    /// the host and the result is the one-buffer replay.
    pub fn buffer_sizes(&self, devices: &[DeviceBuffer], host_align: u64) -> (Vec<u64>, u64) {
        let seq = self.schedule(devices);
        let n = seq.info.len();
        let info = &seq.info;
        let nd = devices.len();
        let mut a: Vec<Alloc> = devices.iter().map(|d| Alloc::new(d.align)).collect();
        a.push(Alloc::new(host_align));
        let slot = |b: u8| if b == HOST { nd } else { b as usize };
        let mut children = vec![0u32; n];
        let mut views = vec![0u32; n];
        let mut addr: Vec<Option<u64>> = vec![None; n];
        for &l in &self.leafs {
            addr[l] = Some(a[slot(info[l].backend)].alloc(info[l].bytes));
        }
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
        let host = a.pop().map_or(0, |h| h.max);
        (a.iter().map(|d| d.max).collect(), host)
    }

    /// The backend scheduler's assignment and split of the graph (`ggml_backend_sched_split_graph`,
    /// ggml-backend.cpp): pass 1 fixes inputs on the host and ops on weights where the weights
    /// are (a host weight's op goes to the device when the device offloads it: `op_offload`);
    /// pass 2 spreads the device down then up the graph over unassigned ops, then any backend
    /// down then up; views follow their source; pass 5 cuts the graph where the backend changes
    /// (or where an op reads a weight from another backend once the split has inputs) and gives
    /// the split a copy of every tensor it reads from another backend, made once per backend and
    /// placed at the start of the split that first needs it. Each copy comes after a view of its
    /// source that nothing consumes, which keeps the source allocated to the end (ggml-alloc
    /// frees a tensor only when no view of it is left).
    fn schedule(&self, devices: &[DeviceBuffer]) -> Seq {
        let be = self.assign(devices);
        self.split(&be)
    }

    /// An op for the scheduler: not a view (a node writing into other memory is one).
    fn is_op(&self, id: Id) -> bool {
        let t = &self.t[id];
        !(t.is_view && (t.view_src.is_some() || t.backend.is_none()))
    }

    /// Passes 1 to 4: every tensor's backend.
    fn assign(&self, devices: &[DeviceBuffer]) -> Vec<u8> {
        let mut be: Vec<Option<u8>> = self.t.iter().map(|t| t.backend).collect();
        if devices.is_empty() {
            be.iter_mut().for_each(|b| *b = Some(HOST));
        }
        // `ggml_backend_sched_backend_from_buffer`'s op_offload: the first device that offloads.
        let offload_to = devices.iter().position(|d| d.offloads).map(|d| d as u8);
        self.ops_on_weights(&mut be, offload_to);
        self.expand(&mut be);
        // pass 4: views follow their source; an op still unassigned goes to the first backend.
        let first = if devices.is_empty() { HOST } else { 0 };
        for id in 0..self.t.len() {
            if be[id].is_none() {
                be[id] = self.t[id].view_src.and_then(|r| be[r]).or(Some(first));
            }
        }
        be.into_iter().map(|b| b.unwrap_or(HOST)).collect()
    }

    /// Pass 1: an op on a weight runs where the weight is, or on the device when it offloads it.
    fn ops_on_weights(&self, be: &mut [Option<u8>], offload_to: Option<u8>) {
        for &id in &self.nodes {
            let t = &self.t[id];
            if !self.is_op(id) || be[id].is_some() {
                continue;
            }
            let w = t
                .srcs
                .iter()
                .find(|&&s| self.t[s].ext == Some(Ext::Weight))
                .and_then(|&s| be[s]);
            be[id] = w.map(|wb| match offload_to {
                Some(d) if wb == HOST && !t.pinned && t.rows >= OFFLOAD_MIN_ROWS => d,
                _ => wb,
            });
        }
    }

    /// Pass 2: the device spreads down then up over unassigned ops, then any backend.
    fn expand(&self, be: &mut [Option<u8>]) {
        let ops: Vec<Id> = self
            .nodes
            .iter()
            .copied()
            .filter(|&id| self.is_op(id))
            .collect();
        for (gpu_only, down) in [(true, true), (true, false), (false, true), (false, false)] {
            let mut cur: Option<u8> = None;
            let mut step = |id: Id| match be[id] {
                Some(HOST) if gpu_only => cur = None,
                Some(b) => cur = Some(b),
                None => be[id] = cur,
            };
            if down {
                ops.iter().for_each(|&id| step(id));
            } else {
                ops.iter().rev().for_each(|&id| step(id));
            }
        }
    }

    /// Pass 5: cut the graph where the backend changes and give each split its input copies.
    fn split(&self, be: &[u8]) -> Seq {
        let info: Vec<Info> = self
            .t
            .iter()
            .zip(be)
            .map(|(t, &b)| Info {
                bytes: t.bytes,
                backend: b,
                view_src: t.view_src,
                is_view: t.is_view,
                output: t.output,
                inplace: t.inplace,
            })
            .collect();
        let mut s = Splitter {
            seq: Seq {
                info,
                nodes: Vec::new(),
            },
            pending: Vec::new(),
            inputs: Vec::new(),
            copy_of: Default::default(),
        };
        let mut cur: Option<u8> = None;
        for &id in &self.nodes {
            let t = &self.t[id];
            let b = s.seq.info[id].backend;
            let mut srcs = t.srcs.clone();
            if self.is_op(id) {
                let weight_elsewhere = t
                    .srcs
                    .iter()
                    .any(|&x| self.t[x].ext == Some(Ext::Weight) && s.seq.info[x].backend != b);
                if cur != Some(b) || (!s.inputs.is_empty() && weight_elsewhere) {
                    s.close();
                    cur = Some(b);
                }
                for x in srcs.iter_mut() {
                    if s.seq.info[*x].backend != b {
                        *x = s.copy(*x, b, self.t[*x].shown);
                    }
                }
            }
            s.pending.push((id, srcs));
        }
        s.close();
        s.seq
    }
}

/// Pass 5's state: the scheduled nodes so far and the open split.
struct Splitter {
    seq: Seq,
    /// The open split's nodes.
    pending: Vec<(Id, Vec<Id>)>,
    /// (source, copy) of the open split.
    inputs: Vec<(Id, Id)>,
    copy_of: std::collections::HashMap<(Id, u8), Id>,
}

impl Splitter {
    /// The copy of `src` on backend `b` (`shown` bytes), made once per backend and placed at the
    /// start of the split that first needs it.
    fn copy(&mut self, src: Id, b: u8, shown: u64) -> Id {
        let (info, inputs) = (&mut self.seq.info, &mut self.inputs);
        *self.copy_of.entry((src, b)).or_insert_with(|| {
            let c = info.len();
            info.push(Info {
                bytes: shown,
                backend: b,
                view_src: None,
                is_view: false,
                output: false,
                inplace: false,
            });
            inputs.push((src, c));
            c
        })
    }

    /// Close the open split: each copy after a view of its source that nothing consumes, then
    /// the split's nodes.
    fn close(&mut self) {
        let Seq { info, nodes } = &mut self.seq;
        for (src, cpy) in self.inputs.drain(..) {
            let dep = info.len();
            info.push(Info {
                bytes: 0,
                backend: info[src].backend,
                view_src: None,
                is_view: true,
                output: false,
                inplace: false,
            });
            nodes.push((dep, vec![src]));
            nodes.push((cpy, vec![]));
        }
        nodes.append(&mut self.pending);
    }
}

/// What the allocator needs of a tensor, after scheduling (the graph's and the copies).
#[derive(Debug, Clone)]
struct Info {
    bytes: u64,
    backend: u8,
    view_src: Option<usize>,
    is_view: bool,
    output: bool,
    inplace: bool,
}

/// The scheduled graph: every tensor, and the nodes in order with their (replaced) sources.
struct Seq {
    info: Vec<Info>,
    nodes: Vec<(Id, Vec<Id>)>,
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
