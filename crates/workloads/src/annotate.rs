//! Identification on the collection path, cached: facts (maps, fds, sockets) are read once per
//! process and refreshed on a slow cadence, never every round (DESIGN concept 7).

use crate::identify::identify;
use gpuledger_model::{Snapshot, Workload};
use gpuledger_sources::procfs::ProcReader;
use gpuledger_sources::Annotate;
use std::collections::HashMap;
use std::time::{Duration, Instant};

/// Re-read a process's facts this often: a server can load a model or open a port after start.
const REFRESH: Duration = Duration::from_secs(30);

/// A process: its pid and start time (a reused pid has another start time).
type Key = (u32, Option<u64>);

#[derive(Default)]
pub struct Identifier {
    /// What was concluded, the listening ports, and when the facts were read.
    cache: HashMap<Key, (Workload, Vec<u16>, Instant)>,
}

impl Identifier {
    pub fn new() -> Self {
        Self::default()
    }
}

impl Annotate for Identifier {
    fn annotate(&mut self, snap: &mut Snapshot, procs: &ProcReader) {
        let now = Instant::now();
        let mut seen = Vec::with_capacity(snap.processes.len());
        for p in &mut snap.processes {
            // A process we cannot see in /proc has no facts to read.
            if p.metadata_unavailable.is_some() {
                continue;
            }
            let key = (p.pid, p.start_time);
            seen.push(key);
            let fresh = self
                .cache
                .get(&key)
                .is_some_and(|(_, _, at)| now.duration_since(*at) < REFRESH);
            if !fresh {
                let facts = procs.facts(p.pid);
                self.cache
                    .insert(key, (identify(&facts), facts.listen_ports, now));
            }
            if let Some((w, ports, _)) = self.cache.get(&key) {
                p.workload = Some(w.clone());
                p.listen_ports = ports.clone();
            }
        }
        // Forget processes that are gone (a reused PID has another start time anyway).
        self.cache.retain(|k, _| seen.contains(k));
    }
}
