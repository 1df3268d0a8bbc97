//! Charging: each client to one process (the others holding it see it as shared), its engine
//! rates against the previous round, and the per-process sums merged into the snapshot.

use super::clients::Client;
use super::usage::{memory_of, rates, Agg};
use super::{DrmSource, DEDUPE_RULE};
use crate::procfs::ProcReader;
use gpuledger_lang::Said;
use gpuledger_model::{Process, Snapshot};
use std::collections::{BTreeMap, BTreeSet, HashMap};

/// Per process, per device uuid: what the clients charged to it hold.
pub(super) type Charged = BTreeMap<u32, BTreeMap<String, Agg>>;

/// Malformed fdinfo lines quoted in the snapshot notes.
const MAX_PROBLEM_NOTES: usize = 10;

impl DrmSource {
    /// Charge each client to one process and compute engine rates; returns per-pid usage.
    /// Notes on malformed lines and on de-duplication go into `snap`.
    pub(super) fn charge(
        &mut self,
        procs: &ProcReader,
        clients: &[Client],
        by_slot: &BTreeMap<String, String>,
        now_ns: u64,
        snap: &mut Snapshot,
    ) -> Charged {
        let mut out = Charged::new();
        let mut next_prev = HashMap::with_capacity(clients.len());
        let mut problems = ProblemNotes::default();
        for c in clients {
            let uuid = by_slot[&c.slot].clone();
            let mut holders: Vec<u32> = c.fds.iter().map(|f| f.0).collect();
            holders.dedup();
            let owner = owner_of(procs, &holders);
            let key = (c.slot.clone(), c.ident());
            let (sample, rates) = rates(self.prev.get(&key), &c.info, now_ns);
            next_prev.insert(key, sample);

            let (vram, sys) = memory_of(c);
            let agg = out
                .entry(owner)
                .or_default()
                .entry(uuid.clone())
                .or_default();
            agg.clients += 1;
            agg.add_memory(vram, sys);
            match rates {
                Some(r) => agg.add_rates(&r),
                None => agg.engines_missing = true,
            }
            problems.add(c);
            for &h in holders.iter().filter(|&&h| h != owner) {
                let a = out.entry(h).or_default().entry(uuid.clone()).or_default();
                a.notes.push(Said::new(
                    "report-drm-shared-client",
                    vec![
                        ("client", c.label().into()),
                        ("owner", owner.to_string().into()),
                    ],
                ));
                a.shared_only_clients += 1;
            }
        }
        self.prev = next_prev;
        let mut notes = problems.finish();
        if let Some(n) = self.dedupe_note() {
            notes.insert(0, n);
        }
        snap.notes.extend(notes);
        out
    }

    /// The de-duplication rule with this round's counts, when some client needed it.
    fn dedupe_note(&self) -> Option<Said> {
        let s = &self.stats;
        (s.shared_clients > 0 || s.dup_fd_clients > 0).then(|| {
            let args = vec![
                ("rule", Said::new(DEDUPE_RULE, vec![]).into()),
                ("dup", s.dup_fd_clients.into()),
                ("shared", s.shared_clients.into()),
            ];
            Said::new("report-note-drm-dedupe", args)
        })
    }

    /// Add the per-process usage to the snapshot (merging with processes other sources found).
    pub(super) fn merge(&self, snap: &mut Snapshot, usage: Charged) {
        let kfd: BTreeSet<u32> = self
            .index
            .as_ref()
            .map(|i| {
                i.entries
                    .iter()
                    .filter(|(_, e)| e.kfd)
                    .map(|(p, _)| *p)
                    .collect()
            })
            .unwrap_or_default();
        let mut kfd_without_drm = 0;
        for pid in &kfd {
            if !usage.contains_key(pid) {
                kfd_without_drm += 1;
            }
        }
        for (pid, devs) in usage {
            let pos = match snap.processes.iter().position(|p| p.pid == pid) {
                Some(i) => i,
                None => {
                    snap.processes.push(Process::new(pid));
                    snap.processes.len() - 1
                }
            };
            let p = &mut snap.processes[pos];
            let is_kfd = kfd.contains(&pid);
            p.rocm_kfd |= is_kfd;
            for (uuid, agg) in devs {
                p.usage.push(agg.into_usage(uuid, is_kfd));
            }
        }
        if kfd_without_drm > 0 {
            let args = vec![("count", kfd_without_drm.into())];
            snap.notes
                .push(Said::new("report-note-kfd-without-drm", args));
        }
    }
}

/// Notes quoting malformed fdinfo lines: the first [`MAX_PROBLEM_NOTES`], then a count of the
/// rest, so a hostile file cannot flood the snapshot.
#[derive(Default)]
struct ProblemNotes {
    notes: Vec<Said>,
    seen: usize,
}

impl ProblemNotes {
    fn add(&mut self, c: &Client) {
        for p in &c.info.problems {
            if self.seen < MAX_PROBLEM_NOTES {
                // The parser's reason goes in as written (a detail of the file, like an OS error).
                let args = vec![
                    ("path", c.fds[0].2.display().to_string().into()),
                    ("line", p.line.to_string().into()),
                    ("text", format!("{:?}", p.text).into()),
                    ("why", p.why.as_str().into()),
                ];
                self.notes.push(Said::new("report-note-fdinfo-line", args));
            }
            self.seen += 1;
        }
    }

    fn finish(mut self) -> Vec<Said> {
        if self.seen > MAX_PROBLEM_NOTES {
            let args = vec![("count", (self.seen - MAX_PROBLEM_NOTES).into())];
            self.notes.push(Said::new("report-note-fdinfo-more", args));
        }
        self.notes
    }
}

/// The process charged for a client: PID 1 and systemd descriptor holders last, then the lowest
/// PID.
fn owner_of(procs: &ProcReader, holders: &[u32]) -> u32 {
    if holders.len() > 1 {
        *holders
            .iter()
            .min_by_key(|&&p| (is_fd_store(procs, p), p))
            .unwrap_or(&holders[0])
    } else {
        holders[0]
    }
}

/// PID 1 and systemd's descriptor holders (logind keeps the compositor's DRM fds) hold clients
/// that some other process really uses; amdgpu_top excludes them for the same reason. The
/// command line comes from the round's process view: read once per round however many shared
/// clients a process holds.
fn is_fd_store(procs: &ProcReader, pid: u32) -> bool {
    if pid == 1 {
        return true;
    }
    procs.args(pid).is_some_and(|args| {
        args.first()
            .is_some_and(|a| a.starts_with("/lib/systemd/") || a.starts_with("/usr/lib/systemd/"))
    })
}
