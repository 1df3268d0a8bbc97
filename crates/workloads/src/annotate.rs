//! Identification on the collection path, cached: facts (maps, fds, sockets) are read once per
//! process and refreshed on a slow cadence, never every round (docs/DESIGN.md concept 7).

use crate::identify::identify;
use crate::process_estimate::{estimate_inputs, llama_inputs, runtime_estimate, summary_for};
use gpuledger_model::{EstimatedMemory, Snapshot, Workload};
use gpuledger_sources::procfs::{staggered, ProcReader};
use gpuledger_sources::Annotate;
use std::collections::HashMap;
use std::sync::Arc;
use std::time::{Duration, Instant};

/// Re-read a process's facts at most this long after the last reading (at least half of it,
/// spread by pid: see [`staggered`]): a server can load a model or open a port after start.
const REFRESH: Duration = Duration::from_secs(30);

/// A process: its pid and start time (a reused pid has another start time).
type Key = (u32, Option<u64>);

/// What was concluded about one process, and when its facts were read.
struct Known {
    workload: Arc<Workload>,
    ports: Vec<u16>,
    estimate: Option<Arc<EstimatedMemory>>,
    at: Instant,
}

#[derive(Default)]
pub struct Identifier {
    cache: HashMap<Key, Known>,
    /// This machine's measured runtime overhead (a saved probe): bytes and its label.
    overhead: Option<(u64, String)>,
}

impl Identifier {
    pub fn new() -> Self {
        Self::default()
    }

    /// Use a measured per-process overhead (from `gpuledger probe --save`) in CUDA estimates.
    pub fn with_overhead(mut self, overhead: Option<(u64, String)>) -> Self {
        self.overhead = overhead;
        self
    }
}

impl Annotate for Identifier {
    fn annotate(&mut self, snap: &mut Snapshot, procs: &ProcReader) {
        let now = Instant::now();
        let devices: Vec<(String, gpuledger_model::Vendor, Option<u64>)> = snap
            .devices
            .iter()
            .map(|d| (d.uuid.clone(), d.vendor, d.memory.total_bytes))
            .collect();
        // A set: with hundreds of processes a list's `contains` below is quadratic.
        let mut seen = std::collections::HashSet::with_capacity(snap.processes.len());
        for p in &mut snap.processes {
            // A process we cannot see in /proc has no facts to read.
            if p.metadata_unavailable.is_some() {
                continue;
            }
            let key = (p.pid, p.start_time);
            seen.insert(key);
            let fresh = self
                .cache
                .get(&key)
                .is_some_and(|k| now.duration_since(k.at) < staggered(p.pid, REFRESH));
            if !fresh {
                let facts = gpuledger_sources::process_facts(procs, p.pid);
                let workload = identify(&facts);
                let device = p
                    .usage
                    .iter()
                    .find_map(|u| devices.iter().find(|(id, _, _)| *id == u.device));
                let vendor = device.map(|(_, v, _)| *v);
                // The recipe reads only the GGUF header (about a millisecond), once per refresh.
                // Each kind has at most one recipe: llama.cpp's, else a runtime's, else none.
                let estimate = match llama_inputs(p, &workload, procs.root(), vendor) {
                    Some(inputs) => inputs
                        .and_then(|i| estimate_inputs(&i).map(|e| (i, e)))
                        .ok()
                        .map(|(i, mut e)| {
                            if let Some((bytes, label)) = &self.overhead {
                                if e_backend(&e) == crate::estimate::Backend::Cuda {
                                    e.overhead.gpu_bytes = Some(*bytes);
                                    e.overhead.what = format!("CUDA context, {label}");
                                    e.total_gpu_bytes = e.total_gpu_bytes_without_overhead + bytes;
                                }
                            }
                            summary_for(&i, &e)
                        }),
                    // vLLM, SGLang, PyTorch: headers only (cached), no HTTP here.
                    None => runtime_estimate(
                        p,
                        &workload,
                        procs.root(),
                        device.and_then(|(_, _, t)| *t),
                        self.overhead.clone(),
                    )
                    .and_then(Result::ok)
                    .map(|r| r.summary),
                };
                self.cache.insert(
                    key,
                    Known {
                        workload: Arc::new(workload),
                        ports: facts.listen_ports,
                        estimate: estimate.map(Arc::new),
                        at: now,
                    },
                );
            }
            if let Some(k) = self.cache.get(&key) {
                // Shared, not copied: the snapshot's JSON is the same.
                p.workload = Some(Arc::clone(&k.workload));
                p.listen_ports = k.ports.clone();
                p.estimate = k.estimate.clone();
            }
        }
        // Forget processes that are gone (a reused PID has another start time anyway).
        self.cache.retain(|k, _| seen.contains(k));
    }
}

/// The backend an estimate was made for (from its inputs).
fn e_backend(e: &crate::estimate::Estimate) -> crate::estimate::Backend {
    e.inputs
        .iter()
        .find(|i| i.name == "backend")
        .and_then(|i| crate::estimate::Backend::parse(&i.value))
        .unwrap_or(crate::estimate::Backend::Cuda)
}
