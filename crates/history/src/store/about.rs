//! What a process was identified as (schema 3): its workload, its estimate and its kinds of use
//! (C/G per device), kept once per process in `processes.about` and rewritten when it changes,
//! so that a replay shows what the live view knew rather than `—` and "not an AI runtime".

use super::{Host, Process, Snapshot};
use gpuledger_model::{EstimatedMemory, NoEstimate, UsageKind, Workload};
use serde::{Deserialize, Serialize};
use std::collections::BTreeMap;
use std::collections::HashMap;
use std::sync::Arc;

/// The identification of a process as recorded: the last one seen while it ran.
#[derive(Debug, Clone, Default, Serialize, Deserialize)]
pub struct About {
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub workload: Option<Arc<Workload>>,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub estimate: Option<Arc<EstimatedMemory>>,
    /// Why an AI process had no estimate, and what its runtime reported.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub no_estimate: Option<Arc<NoEstimate>>,
    /// Device UUID → compute / graphics / MPS, as the TYPE column shows them.
    #[serde(default, skip_serializing_if = "BTreeMap::is_empty")]
    pub kinds: BTreeMap<String, Vec<UsageKind>>,
}

impl About {
    /// The process's identification as stored: `None` when there is nothing to keep. Texts are
    /// redacted again (never store a raw secret, whoever built the snapshot).
    pub fn json_of(p: &Process) -> Option<String> {
        let kinds: BTreeMap<String, Vec<UsageKind>> = p
            .usage
            .iter()
            .filter(|u| !u.kinds.is_empty())
            .map(|u| (u.device.clone(), u.kinds.clone()))
            .collect();
        if p.workload.is_none()
            && p.estimate.is_none()
            && p.no_estimate.is_none()
            && kinds.is_empty()
        {
            return None;
        }
        let mut one = Snapshot::new(String::new(), Host::default());
        let mut q = Process::new(p.pid);
        q.workload = p.workload.clone();
        q.estimate = p.estimate.clone();
        q.no_estimate = p.no_estimate.clone();
        one.processes.push(q);
        gpuledger_model::redact_snapshot(&mut one);
        let q = one.processes.pop()?;
        serde_json::to_string(&About {
            workload: q.workload,
            estimate: q.estimate,
            no_estimate: q.no_estimate,
            kinds,
        })
        .ok()
    }

    /// A stored identification; one that does not parse (edited, or from a newer version) is
    /// read as none rather than failing the whole recording.
    pub fn parse(text: &str) -> Option<About> {
        serde_json::from_str(text).ok()
    }

    /// Put it back on a replayed process (its usage rows already built).
    pub fn apply_to(&self, p: &mut Process) {
        p.workload = self.workload.clone();
        p.estimate = self.estimate.clone();
        p.no_estimate = self.no_estimate.clone();
        for u in &mut p.usage {
            if let Some(k) = self.kinds.get(&u.device) {
                u.kinds = k.clone();
            }
        }
    }
}

/// The recorder's memory of what it stored for each process: the values it last serialised (the
/// shared workload and estimate, held so that their addresses cannot be reused, and the kinds),
/// so an unchanged process costs no serialisation per sample, and the hash of the text written.
#[derive(Debug, Default)]
pub(super) struct AboutCache {
    seen: HashMap<u32, Seen>,
}

#[derive(Debug)]
struct Seen {
    workload: Option<Arc<Workload>>,
    estimate: Option<Arc<EstimatedMemory>>,
    no_estimate: Option<Arc<NoEstimate>>,
    kinds: u64,
    text: u64,
}

fn same<T>(a: &Option<Arc<T>>, b: &Option<Arc<T>>) -> bool {
    match (a, b) {
        (Some(a), Some(b)) => Arc::ptr_eq(a, b),
        (None, None) => true,
        _ => false,
    }
}

fn hash_of<T: std::hash::Hash>(t: &T) -> u64 {
    use std::hash::{BuildHasher, BuildHasherDefault};
    BuildHasherDefault::<rustc_hash::FxHasher>::default().hash_one(t)
}

impl AboutCache {
    /// What to write for process row `id` when it changed since the last one written (`NULL`
    /// when the identification went away).
    pub(super) fn changed(&mut self, id: u32, p: &Process) -> Option<Option<String>> {
        let kinds = hash_of(
            &p.usage
                .iter()
                .map(|u| (&u.device, u.kinds_label()))
                .collect::<Vec<_>>(),
        );
        let before = self.seen.get(&id);
        if before.is_some_and(|s| {
            s.kinds == kinds
                && same(&s.workload, &p.workload)
                && same(&s.estimate, &p.estimate)
                && same(&s.no_estimate, &p.no_estimate)
        }) {
            return None;
        }
        let text = About::json_of(p);
        let h = hash_of(&text);
        let before = before.map(|s| s.text);
        self.seen.insert(
            id,
            Seen {
                workload: p.workload.clone(),
                estimate: p.estimate.clone(),
                no_estimate: p.no_estimate.clone(),
                kinds,
                text: h,
            },
        );
        // A process never identified has nothing to write the first time either.
        match (before, &text) {
            (Some(b), _) if b == h => None,
            (None, None) => None,
            _ => Some(text),
        }
    }

    /// After pruning: rows may have gone (and the values held with them).
    pub(super) fn clear(&mut self) {
        self.seen.clear();
    }
}
