//! The backend scheduler's part of the replay (`ggml_backend_sched_split_graph`, ggml-backend.cpp):
//! which backend runs each op, where the graph is cut into splits, and the copies each split
//! makes of what it reads from another backend.

use super::{DeviceBuffer, Ext, Graph, Id, HOST, OFFLOAD_MIN_ROWS};

impl Graph {
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
    pub(super) fn schedule(&self, devices: &[DeviceBuffer]) -> Seq {
        let be = self.assign(devices);
        self.split(&be)
    }

    /// An op for the scheduler: not a view (a node writing into other memory is one).
    fn is_op(&self, id: Id) -> bool {
        let t = &self.t[id];
        t.sched_op || !(t.is_view && (t.view_src.is_some() || t.backend.is_none()))
    }

    /// Passes 1 to 4: every tensor's backend.
    fn assign(&self, devices: &[DeviceBuffer]) -> Vec<u8> {
        let mut be: Vec<Option<u8>> = self.t.iter().map(|t| t.backend).collect();
        if devices.is_empty() {
            be.iter_mut().for_each(|b| *b = Some(HOST));
        }
        // `ggml_backend_sched_backend_from_buffer`'s op_offload: the first device that offloads.
        let offload_to = devices
            .iter()
            .position(|d| d.offloads)
            .map(|d| (d as u8, devices[d].offloads_matmul_only));
        self.ops_on_weights(&mut be, offload_to);
        self.expand(&mut be);
        // pass 4: a leaf made in the graph (`Graph::leaf`) runs where its first consumer runs.
        for &id in &self.nodes {
            for &s in &self.t[id].srcs {
                if self.t[s].made_leaf && be[s].is_none() && be[id].is_some() {
                    be[s] = be[id];
                }
            }
        }
        // Views follow their source; an op still unassigned goes to the first backend.
        let first = if devices.is_empty() { HOST } else { 0 };
        for id in 0..self.t.len() {
            if be[id].is_none() {
                be[id] = self.t[id].view_src.and_then(|r| be[r]).or(Some(first));
            }
        }
        be.into_iter().map(|b| b.unwrap_or(HOST)).collect()
    }

    /// Pass 1: an op on a weight runs where the weight is, or on the device when it offloads it.
    fn ops_on_weights(&self, be: &mut [Option<u8>], offload_to: Option<(u8, bool)>) {
        for &id in &self.nodes {
            let t = &self.t[id];
            if !self.is_op(id) || be[id].is_some() {
                continue;
            }
            let Some(&w) = t.srcs.iter().find(|&&s| self.t[s].ext == Some(Ext::Weight)) else {
                continue;
            };
            let matmul = !self.t[w].not_matmul;
            be[id] = be[w].map(|wb| match offload_to {
                Some((d, only_mm))
                    if wb == HOST
                        && !t.pinned
                        && t.rows >= OFFLOAD_MIN_ROWS
                        && (matmul || !only_mm) =>
                {
                    d
                }
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
                copies: Vec::new(),
                splits: Vec::new(),
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
                    s.close(cur);
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
        s.close(cur);
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

    /// Close the open split (on `backend`; `None` before the first op): each copy after a view
    /// of its source that nothing consumes, then the split's nodes.
    fn close(&mut self, backend: Option<u8>) {
        let Seq {
            info,
            nodes,
            copies,
            splits,
        } = &mut self.seq;
        if let Some(backend) = backend {
            let inputs = self.inputs.iter().map(|&(_, c)| info[c].bytes).collect();
            splits.push(Split { backend, inputs });
        }
        for (src, cpy) in self.inputs.drain(..) {
            copies.push(cpy);
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
pub(super) struct Info {
    pub(super) bytes: u64,
    pub(super) backend: u8,
    pub(super) view_src: Option<usize>,
    pub(super) is_view: bool,
    pub(super) output: bool,
    pub(super) inplace: bool,
}

/// The scheduled graph: every tensor, and the nodes in order with their (replaced) sources.
pub(super) struct Seq {
    pub(super) info: Vec<Info>,
    pub(super) nodes: Vec<(Id, Vec<Id>)>,
    /// The splits' input copies, in split order.
    pub(super) copies: Vec<Id>,
    pub(super) splits: Vec<Split>,
}

/// One split of the scheduled graph, as `GGML_SCHED_DEBUG` prints it (`## SPLIT #i: backend #
/// n inputs: ...`): its backend (`HOST`, the host, or a device) and the bytes of each input it
/// copies from another backend, in the order the split first reads them.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Split {
    pub backend: u8,
    pub inputs: Vec<u64>,
}
