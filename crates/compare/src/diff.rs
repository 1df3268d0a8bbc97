//! What changed between two snapshots, per device and per process.
//!
//! Processes are paired by rules tried in order, and every pair says which rule made it:
//! 1. `pid+start_time`: the same process (a reused PID has another start time, so it is not paired);
//!    when either snapshot lacks the start time, `pid+name` (same PID and same name) stands in;
//!    when a side knows neither (its `/proc` entry could not be read: another PID namespace, a
//!    container on a shared box), `pid+device` (same PID on a common device) pairs by what is known
//!    — the same file twice then shows no change rather than a process gone and one appeared;
//! 2. `name+port`: a process that is gone paired with a new one of the same name listening on a
//!    common TCP port (a llama-server restarted with a bigger `-c` keeps its port);
//! 3. `name+model`: same name and same model file (`workload.model` when the snapshot has it, else
//!    the `-m`/`--model` argument of the command line), compared by file name;
//! 4. `workload+role`: a member of a workload of several processes (a vLLM worker, an SGLang
//!    scheduler) paired with the new member of the same name, runtime, role and model under a
//!    restarted root: a server restarted with new PIDs is the same workload. The members of one
//!    root before all pair with members of one root after; when two roots after could take them
//!    (two like servers on one machine), they are left unpaired rather than guessed.
//!
//! Measured values and estimated breakdowns are kept apart: a process's `estimate` (the estimated
//! ledger, `gpuledger_model::EstimatedMemory`) is diffed part by part ([`ESTIMATE_PARTS`]) and
//! shown in its own section.

use gpuledger_model::{EstimatedMemory, Process, Snapshot, Usage, WorkloadKind};
use serde::Serialize;

/// The estimate's parts: the snapshot's field name (the key in the diff's JSON) and the word the
/// views use for it.
pub const ESTIMATE_PARTS: [(&str, &str); 5] = [
    ("weights_gpu_bytes", "weights"),
    ("kv_cache_gpu_bytes", "KV cache"),
    ("compute_gpu_bytes", "compute"),
    ("overhead_gpu_bytes", "overhead"),
    ("total_gpu_bytes", "total"),
];

fn estimate_parts(e: Option<&EstimatedMemory>) -> [Option<u64>; 5] {
    match e {
        None => [None; 5],
        Some(e) => [
            Some(e.weights_gpu_bytes),
            e.kv_cache_gpu_bytes,
            e.compute_gpu_bytes,
            e.overhead_gpu_bytes,
            Some(e.total_gpu_bytes),
        ],
    }
}

/// The model file a process serves: the identified workload's model, else the `-m`/`--model`
/// argument.
pub fn model_of(p: &Process) -> Option<String> {
    let path = p
        .workload
        .as_ref()
        .and_then(|w| w.model.clone())
        .or_else(|| {
            let args = p.cmdline.as_ref()?;
            let mut it = args.iter();
            while let Some(a) = it.next() {
                if a == "-m" || a == "--model" {
                    return it.next().cloned();
                }
                if let Some(v) = a.strip_prefix("--model=").or_else(|| a.strip_prefix("-m=")) {
                    return Some(v.to_string());
                }
            }
            None
        })?;
    // By file name: the same model reached through another directory is still the same model.
    let name = path.rsplit(['/', '\\']).next().unwrap_or(&path);
    (!name.is_empty()).then(|| name.to_string())
}

#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize)]
#[serde(rename_all = "kebab-case")]
pub enum PairRule {
    /// Same PID and start time: the same process.
    #[serde(rename = "pid+start_time")]
    PidStart,
    /// Same PID and name, start time unknown in a snapshot.
    #[serde(rename = "pid+name")]
    PidName,
    /// Same PID on a common device, name or start time unknown in a snapshot (its `/proc` entry
    /// could not be read).
    #[serde(rename = "pid+device")]
    PidDevice,
    #[serde(rename = "name+port")]
    NamePort,
    #[serde(rename = "name+model")]
    NameModel,
    #[serde(rename = "workload+role")]
    WorkloadRole,
}

impl PairRule {
    pub fn as_str(self) -> &'static str {
        match self {
            PairRule::PidStart => "pid+start_time",
            PairRule::PidName => "pid+name",
            PairRule::PidDevice => "pid+device",
            PairRule::NamePort => "name+port",
            PairRule::NameModel => "name+model",
            PairRule::WorkloadRole => "workload+role",
        }
    }
}

#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize)]
#[serde(rename_all = "lowercase")]
pub enum Change {
    Appeared,
    Disappeared,
    Grew,
    Shrank,
    Unchanged,
    /// One side's value is unknown: no change can be stated.
    Unknown,
}

/// A value before and after; `delta` only when both are known.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize)]
pub struct Delta {
    pub before: Option<u64>,
    pub after: Option<u64>,
    pub delta: Option<i64>,
}

impl Delta {
    pub fn of(before: Option<u64>, after: Option<u64>) -> Self {
        let delta = match (before, after) {
            (Some(a), Some(b)) => Some(b as i64 - a as i64),
            _ => None,
        };
        Delta {
            before,
            after,
            delta,
        }
    }

    fn change(&self) -> Change {
        match (self.before, self.after, self.delta) {
            (_, _, Some(d)) if d > 0 => Change::Grew,
            (_, _, Some(d)) if d < 0 => Change::Shrank,
            (_, _, Some(_)) => Change::Unchanged,
            _ => Change::Unknown,
        }
    }
}

#[derive(Debug, Clone, PartialEq, Serialize)]
pub struct DeviceDiff {
    pub uuid: String,
    pub label: String,
    /// `present` in both, or `appeared` / `disappeared`.
    pub presence: &'static str,
    pub used: Delta,
    pub free: Delta,
    pub unattributed: Delta,
}

#[derive(Debug, Clone, PartialEq, Serialize)]
pub struct ProcSide {
    pub pid: u32,
    pub start_time: Option<u64>,
    pub name: Option<String>,
    /// Redacted again on output: a snapshot file may come from anywhere.
    pub cmdline: Option<Vec<String>>,
}

#[derive(Debug, Clone, PartialEq, Serialize)]
pub struct UsageDiff {
    pub device: String,
    pub memory: Delta,
    pub source_before: Option<String>,
    pub source_after: Option<String>,
}

#[derive(Debug, Clone, PartialEq, Serialize)]
pub struct EstimateDiff {
    /// The snapshot's field name (`kv_cache_gpu_bytes`).
    pub key: String,
    /// The views' word for it (`KV cache`).
    #[serde(skip)]
    pub label: &'static str,
    pub values: Delta,
}

#[derive(Debug, Clone, PartialEq, Serialize)]
pub struct ProcessDiff {
    pub change: Change,
    /// Which rule paired the two sides; `None` for appeared/disappeared.
    pub paired_by: Option<PairRule>,
    pub before: Option<ProcSide>,
    pub after: Option<ProcSide>,
    /// Measured memory summed over devices (known values only; unknown when every value is).
    pub measured: Delta,
    pub usage: Vec<UsageDiff>,
    /// Estimated breakdown, kept apart from the measured figures.
    #[serde(skip_serializing_if = "Vec::is_empty")]
    pub estimated: Vec<EstimateDiff>,
}

#[derive(Debug, Clone, PartialEq, Serialize)]
pub struct SnapshotDiff {
    pub schema: &'static str,
    pub before_taken_at: String,
    pub after_taken_at: String,
    pub devices: Vec<DeviceDiff>,
    pub processes: Vec<ProcessDiff>,
}

pub const DIFF_SCHEMA: &str = "gpuledger.diff/1";

/// One side of a process's diff. Its texts are redacted here whoever built the snapshots (the
/// files `diff` reads are redacted on loading too).
fn side(p: &Process) -> ProcSide {
    ProcSide {
        pid: p.pid,
        start_time: p.start_time,
        name: p.name.as_deref().map(gpuledger_model::redact_text),
        cmdline: p
            .cmdline
            .as_ref()
            .map(|c| gpuledger_model::redact_arg_list(c)),
    }
}

/// Total memory over the process's devices; `None` when any of them is unknown (a device that
/// became known would otherwise read as growth by its whole amount). The per-device rows still
/// carry what is known.
fn measured_total(p: &Process) -> Option<u64> {
    p.usage.iter().map(|u| u.memory_bytes).sum()
}

/// Pair processes of `a` with processes of `b`: (index in a, index in b, rule).
pub fn pair(a: &Snapshot, b: &Snapshot) -> Vec<(usize, usize, PairRule)> {
    let pa = &a.processes;
    let pb = &b.processes;
    let mut used_a = vec![false; pa.len()];
    let mut used_b = vec![false; pb.len()];
    let mut out = Vec::new();

    // Rule 1: identity.
    for (i, p) in pa.iter().enumerate() {
        for (j, q) in pb.iter().enumerate() {
            if used_b[j] || p.pid != q.pid {
                continue;
            }
            let rule = match (p.start_time, q.start_time) {
                (Some(x), Some(y)) if x == y => Some(PairRule::PidStart),
                (Some(_), Some(_)) => None, // PID reused by another process
                _ if p.name.is_some() && p.name == q.name => Some(PairRule::PidName),
                // Both names known and different: another process.
                _ if p.name.is_some() && q.name.is_some() => None,
                // What is known is the PID and the devices it holds memory on.
                _ if shares_a_device(p, q) => Some(PairRule::PidDevice),
                _ => None,
            };
            if let Some(rule) = rule {
                used_a[i] = true;
                used_b[j] = true;
                out.push((i, j, rule));
                break;
            }
        }
    }

    // Rules 2 and 3: a process that has gone, matched with a new one of the same name.
    type Key<'a> = Box<dyn Fn(&Snapshot, usize, &Snapshot, usize) -> bool + 'a>;
    let rules: [(PairRule, Key); 2] = [
        (
            PairRule::NamePort,
            Box::new(|a: &Snapshot, i, b: &Snapshot, j| {
                let (p, q) = (&a.processes[i], &b.processes[j]);
                p.listen_ports
                    .iter()
                    .any(|port| q.listen_ports.contains(port))
            }),
        ),
        (
            PairRule::NameModel,
            Box::new(|a: &Snapshot, i, b: &Snapshot, j| {
                let m = model_of(&a.processes[i]);
                m.is_some() && m == model_of(&b.processes[j])
            }),
        ),
    ];
    for (rule, matches) in rules.iter() {
        for i in 0..pa.len() {
            if used_a[i] || pa[i].name.is_none() {
                continue;
            }
            let found = (0..pb.len())
                .find(|&j| !used_b[j] && pb[j].name == pa[i].name && matches(a, i, b, j));
            if let Some(j) = found {
                used_a[i] = true;
                used_b[j] = true;
                out.push((i, j, *rule));
            }
        }
    }

    pair_members(pa, pb, &mut used_a, &mut used_b, &mut out);
    push_unpaired(&used_a, &used_b, &mut out);
    out
}

/// Unpaired: disappeared (only in a) and appeared (only in b), as sentinel indices.
fn push_unpaired(used_a: &[bool], used_b: &[bool], out: &mut Vec<(usize, usize, PairRule)>) {
    for (i, u) in used_a.iter().enumerate() {
        if !u {
            out.push((i, usize::MAX, PairRule::PidStart));
        }
    }
    for (j, u) in used_b.iter().enumerate() {
        if !u {
            out.push((usize::MAX, j, PairRule::PidStart));
        }
    }
}

/// A member's runtime, role and root, and its model by file name.
fn member_key(p: &Process) -> Option<(WorkloadKind, &str, u32, Option<String>)> {
    let w = p.workload.as_ref()?;
    let m = w.member.as_ref()?;
    Some((w.kind, m.role.as_str(), m.root_pid?, model_of(p)))
}

/// Rule 4: members of a restarted workload, root by root (see the module's doc).
fn pair_members(
    pa: &[Process],
    pb: &[Process],
    used_a: &mut [bool],
    used_b: &mut [bool],
    out: &mut Vec<(usize, usize, PairRule)>,
) {
    let mut roots: Vec<(u32, u32)> = Vec::new();
    for i in 0..pa.len() {
        let Some((kind, role, root_a, model)) = member_key(&pa[i]).filter(|_| !used_a[i]) else {
            continue;
        };
        let like = |j: usize| {
            !used_b[j]
                && pb[j].name == pa[i].name
                && member_key(&pb[j])
                    .is_some_and(|(k, r, _, m)| k == kind && r == role && m == model)
        };
        let candidates: Vec<usize> = (0..pb.len()).filter(|&j| like(j)).collect();
        let root_b = |j: usize| member_key(&pb[j]).map(|k| k.2);
        let chosen = match roots.iter().find(|(a, _)| *a == root_a) {
            Some(&(_, rb)) => candidates.iter().copied().find(|&j| root_b(j) == Some(rb)),
            None => {
                let mut rbs: Vec<u32> = candidates.iter().filter_map(|&j| root_b(j)).collect();
                rbs.sort_unstable();
                rbs.dedup();
                // A root after that another root before already took is not this one's.
                rbs.retain(|rb| !roots.iter().any(|(_, b)| b == rb));
                match rbs.as_slice() {
                    [rb] => {
                        roots.push((root_a, *rb));
                        candidates.iter().copied().find(|&j| root_b(j) == Some(*rb))
                    }
                    _ => None,
                }
            }
        };
        if let Some(j) = chosen {
            used_a[i] = true;
            used_b[j] = true;
            out.push((i, j, PairRule::WorkloadRole));
        }
    }
}

/// The two processes hold memory on (or are seen on) a common device.
fn shares_a_device(p: &Process, q: &Process) -> bool {
    p.usage
        .iter()
        .any(|u| q.usage.iter().any(|v| v.device == u.device))
}

fn usage_on<'a>(p: &'a Process, dev: &str) -> Option<&'a Usage> {
    p.usage.iter().find(|u| u.device == dev)
}

/// The parts either side has a value for (a part unknown on both sides has nothing to diff).
fn estimate_diff(a: Option<&EstimatedMemory>, b: Option<&EstimatedMemory>) -> Vec<EstimateDiff> {
    let (x, y) = (estimate_parts(a), estimate_parts(b));
    ESTIMATE_PARTS
        .iter()
        .zip(x.into_iter().zip(y))
        .filter(|(_, (x, y))| x.is_some() || y.is_some())
        .map(|(&(key, label), (x, y))| EstimateDiff {
            key: key.to_string(),
            label,
            values: Delta::of(x, y),
        })
        .collect()
}

/// The whole diff. Devices in `b`'s order then those only in `a`; processes sorted by the size of
/// the change, largest first, then by PID.
pub fn diff(a: &Snapshot, b: &Snapshot) -> SnapshotDiff {
    let mut processes: Vec<ProcessDiff> = pair(a, b)
        .into_iter()
        .map(|(i, j, rule)| process_diff(a.processes.get(i), b.processes.get(j), rule))
        .collect();
    processes.sort_by_key(|d| {
        let size = d
            .measured
            .delta
            .map(|x| x.unsigned_abs())
            .or(d.measured.before)
            .or(d.measured.after)
            .unwrap_or(0);
        let pid = d
            .after
            .as_ref()
            .or(d.before.as_ref())
            .map(|s| s.pid)
            .unwrap_or(0);
        (std::cmp::Reverse(size), pid)
    });
    SnapshotDiff {
        schema: DIFF_SCHEMA,
        before_taken_at: a.taken_at.clone(),
        after_taken_at: b.taken_at.clone(),
        devices: device_diffs(a, b),
        processes,
    }
}

/// Devices in `b`'s order, then those only in `a`.
fn device_diffs(a: &Snapshot, b: &Snapshot) -> Vec<DeviceDiff> {
    let mut devices = Vec::new();
    for d in &b.devices {
        let before = a.device_by_uuid(&d.uuid);
        devices.push(DeviceDiff {
            uuid: d.uuid.clone(),
            label: d.label(),
            presence: if before.is_some() {
                "present"
            } else {
                "appeared"
            },
            used: Delta::of(
                before.and_then(|x| x.memory.used_bytes),
                d.memory.used_bytes,
            ),
            free: Delta::of(
                before.and_then(|x| x.memory.free_bytes),
                d.memory.free_bytes,
            ),
            unattributed: Delta::of(
                before.and_then(|x| x.ledger.unattributed_bytes),
                d.ledger.unattributed_bytes,
            ),
        });
    }
    for d in &a.devices {
        if b.device_by_uuid(&d.uuid).is_none() {
            devices.push(DeviceDiff {
                uuid: d.uuid.clone(),
                label: d.label(),
                presence: "disappeared",
                used: Delta::of(d.memory.used_bytes, None),
                free: Delta::of(d.memory.free_bytes, None),
                unattributed: Delta::of(d.ledger.unattributed_bytes, None),
            });
        }
    }
    devices
}

/// One pair (or a process on one side only): `rule` counts only when both sides are there.
fn process_diff(p: Option<&Process>, q: Option<&Process>, rule: PairRule) -> ProcessDiff {
    let measured = Delta::of(p.and_then(measured_total), q.and_then(measured_total));
    let (change, paired_by) = match (p, q) {
        (Some(_), None) => (Change::Disappeared, None),
        (None, Some(_)) => (Change::Appeared, None),
        _ => (measured.change(), Some(rule)),
    };
    ProcessDiff {
        change,
        paired_by,
        before: p.map(side),
        after: q.map(side),
        measured,
        usage: usage_diffs(p, q),
        estimated: if let (Some(p), Some(q)) = (p, q) {
            estimate_diff(p.estimate.as_deref(), q.estimate.as_deref())
        } else {
            Vec::new()
        },
    }
}

/// Memory per device either side used, by device id.
fn usage_diffs(p: Option<&Process>, q: Option<&Process>) -> Vec<UsageDiff> {
    let mut devs: Vec<&str> = p
        .iter()
        .chain(q.iter())
        .flat_map(|x| x.usage.iter().map(|u| u.device.as_str()))
        .collect();
    devs.sort();
    devs.dedup();
    devs.into_iter()
        .map(|dev| {
            let ua = p.and_then(|p| usage_on(p, dev));
            let ub = q.and_then(|q| usage_on(q, dev));
            UsageDiff {
                device: dev.to_string(),
                memory: Delta::of(
                    ua.and_then(|u| u.memory_bytes),
                    ub.and_then(|u| u.memory_bytes),
                ),
                source_before: ua.map(|u| u.memory_source.clone()),
                source_after: ub.map(|u| u.memory_source.clone()),
            }
        })
        .collect()
}

#[cfg(test)]
mod tests {
    use super::*;
    use gpuledger_model::parse_snapshot;
    use gpuledger_model::test_support::{device, named_process, process, snapshot, usage, MIB};

    /// `name` (pid `pid`, started at `start`, run as `args`) holding `mem` on GPU-0.
    fn proc(pid: u32, start: u64, name: &str, mem: Option<u64>, args: &[&str]) -> Process {
        let mut p = named_process(pid, name, vec![usage("GPU-0", mem)]);
        p.start_time = Some(start);
        p.cmdline = Some(args.iter().map(|s| s.to_string()).collect());
        p
    }

    /// GPU-0 (10,000 MiB, `used` of it used) running `procs`, taken at `taken`.
    fn snap(taken: &str, used: u64, procs: Vec<Process>) -> Snapshot {
        let mut d = device(0, "GPU-0", Some(10_000 * MIB), Some(used));
        d.name = Some("Test".into());
        d.memory.free_bytes = Some(10_000 * MIB - used);
        snapshot(taken, vec![d], procs)
    }

    fn find(d: &SnapshotDiff, pid_after: Option<u32>, pid_before: Option<u32>) -> &ProcessDiff {
        d.processes
            .iter()
            .find(|p| {
                p.after.as_ref().map(|s| s.pid) == pid_after
                    && p.before.as_ref().map(|s| s.pid) == pid_before
            })
            .unwrap_or_else(|| panic!("no row {pid_before:?} → {pid_after:?}: {d:#?}"))
    }

    /// A vLLM tensor-parallel worker of the server at `root`.
    fn worker(pid: u32, root: u32, rank: u32, mem: u64) -> Process {
        let mut p = proc(pid, pid as u64, "VLLM::Worker_TP", Some(mem), &[]);
        p.cmdline = Some(vec![format!("VLLM::Worker_TP{rank}")]);
        p.workload = Some(std::sync::Arc::new(gpuledger_model::Workload {
            kind: WorkloadKind::Vllm,
            model: None,
            model_name: None,
            confidence: gpuledger_model::Confidence::High,
            evidence: vec![],
            missing: vec![],
            member: Some(gpuledger_model::Member {
                root_pid: Some(root),
                role: format!("worker TP{rank}/2"),
                role_kind: gpuledger_model::RoleKind::Worker,
                evidence: "test".into(),
            }),
        }));
        p
    }

    #[test]
    fn a_restarted_servers_workers_pair_by_role() {
        // vLLM TP 2 restarted: server 100 → 200, workers 101/102 → 201/202 (new PIDs, no
        // ports, no model on their titles): each worker pairs with the one of its rank.
        let a = snap(
            "2026-11-29T08:00:00Z",
            0,
            vec![
                worker(101, 100, 0, 500 * MIB),
                worker(102, 100, 1, 500 * MIB),
            ],
        );
        let b = snap(
            "2026-11-29T09:00:00Z",
            0,
            vec![
                worker(202, 200, 1, 600 * MIB),
                worker(201, 200, 0, 600 * MIB),
            ],
        );
        let d = diff(&a, &b);
        for (after, before) in [(201, 101), (202, 102)] {
            let p = find(&d, Some(after), Some(before));
            assert_eq!(p.paired_by, Some(PairRule::WorkloadRole));
            assert_eq!(p.change, Change::Grew);
        }
        // Two like servers after: which one is the restarted one cannot be told, so nothing
        // is guessed.
        let b = snap(
            "2026-11-29T09:00:00Z",
            0,
            vec![
                worker(201, 200, 0, 600 * MIB),
                worker(202, 200, 1, 600 * MIB),
                worker(301, 300, 0, 600 * MIB),
                worker(302, 300, 1, 600 * MIB),
            ],
        );
        let d = diff(&a, &b);
        assert!(d.processes.iter().all(|p| p.paired_by.is_none()), "{d:#?}");
    }

    #[test]
    fn same_process_grew_and_device_deltas() {
        let a = snap(
            "t0",
            3000 * MIB,
            vec![proc(10, 100, "llama-server", Some(2000 * MIB), &[])],
        );
        let b = snap(
            "t1",
            3083 * MIB,
            vec![proc(10, 100, "llama-server", Some(2083 * MIB), &[])],
        );
        let d = diff(&a, &b);
        let p = find(&d, Some(10), Some(10));
        assert_eq!(p.change, Change::Grew);
        assert_eq!(p.paired_by, Some(PairRule::PidStart));
        assert_eq!(p.measured.delta, Some(83 * MIB as i64));
        assert_eq!(p.usage[0].source_after.as_deref(), Some("nvml"));
        assert_eq!(d.devices[0].used.delta, Some(83 * MIB as i64));
        assert_eq!(d.devices[0].free.delta, Some(-(83 * MIB as i64)));
        assert_eq!(d.devices[0].unattributed.delta, Some(0));
    }

    #[test]
    fn reused_pid_is_not_the_same_process() {
        let a = snap(
            "t0",
            0,
            vec![proc(10, 100, "python3", Some(500 * MIB), &[])],
        );
        let b = snap(
            "t1",
            0,
            vec![proc(10, 999, "blender", Some(700 * MIB), &[])],
        );
        let d = diff(&a, &b);
        assert_eq!(d.processes.len(), 2);
        assert_eq!(find(&d, None, Some(10)).change, Change::Disappeared);
        let new = find(&d, Some(10), None);
        assert_eq!(new.change, Change::Appeared);
        assert_eq!(new.paired_by, None);
        assert_eq!(new.measured.after, Some(700 * MIB));
    }

    #[test]
    fn reused_pid_same_name_is_still_not_paired_by_pid() {
        // Same name, same PID, another start time: a new run. No port, no model: no pair.
        let a = snap("t0", 0, vec![proc(10, 100, "python3", Some(5), &[])]);
        let b = snap("t1", 0, vec![proc(10, 200, "python3", Some(6), &[])]);
        let d = diff(&a, &b);
        assert_eq!(d.processes.len(), 2);
        assert!(d.processes.iter().all(|p| p.paired_by.is_none()));
    }

    #[test]
    fn restarted_server_pairs_by_port_then_by_model() {
        let mut old = proc(
            10,
            100,
            "llama-server",
            Some(2000 * MIB),
            &["llama-server", "-c", "4096"],
        );
        old.listen_ports = vec![8080];
        let mut new = proc(
            20,
            300,
            "llama-server",
            Some(2500 * MIB),
            &["llama-server", "-c", "8192"],
        );
        new.listen_ports = vec![8080];
        // Another llama-server on another port that was also restarted; same model file.
        let mut other_old = proc(
            11,
            100,
            "llama-server",
            Some(100 * MIB),
            &["llama-server", "-m", "/a/qwen.gguf"],
        );
        other_old.listen_ports = vec![9000];
        let other_new = proc(
            21,
            300,
            "llama-server",
            Some(90 * MIB),
            &["llama-server", "--model=/b/qwen.gguf"],
        );
        let a = snap("t0", 0, vec![old, other_old]);
        let b = snap("t1", 0, vec![other_new, new]);
        let d = diff(&a, &b);
        assert_eq!(d.processes.len(), 2);
        let p = find(&d, Some(20), Some(10));
        assert_eq!(p.paired_by, Some(PairRule::NamePort));
        assert_eq!(p.change, Change::Grew);
        assert_eq!(p.measured.delta, Some(500 * MIB as i64));
        let q = find(&d, Some(21), Some(11));
        assert_eq!(q.paired_by, Some(PairRule::NameModel));
        assert_eq!(q.change, Change::Shrank);
        assert_eq!(q.measured.delta, Some(-(10 * MIB as i64)));
    }

    #[test]
    fn identified_model_pairs_an_ollama_runner_without_model_flag() {
        use gpuledger_model::{Confidence, Workload, WorkloadKind};
        let wl = |m: &str| Workload {
            kind: WorkloadKind::OllamaRunner,
            model: Some(m.into()),
            model_name: None,
            confidence: Confidence::High,
            evidence: Vec::new(),
            missing: Vec::new(),
            member: None,
        };
        let mut old = proc(10, 1, "ollama", Some(3000 * MIB), &["ollama", "runner"]);
        old.workload = Some(wl("/root/.ollama/models/blobs/sha256-abc").into());
        let mut new = proc(20, 2, "ollama", Some(3100 * MIB), &["ollama", "runner"]);
        new.workload = Some(wl("/root/.ollama/models/blobs/sha256-abc").into());
        let d = diff(&snap("t0", 0, vec![old]), &snap("t1", 0, vec![new]));
        assert_eq!(d.processes.len(), 1);
        assert_eq!(d.processes[0].paired_by, Some(PairRule::NameModel));
        assert_eq!(d.processes[0].measured.delta, Some(100 * MIB as i64));
    }

    /// A process whose `/proc` entry could not be read (no name, no start time: a container's
    /// process on a shared box) is paired by PID and device: the same snapshot twice is no change.
    #[test]
    fn a_process_without_metadata_pairs_by_pid_and_device() {
        let hidden = |mem: u64, dev: &str| {
            let mut p = process(77, dev, Some(mem));
            p.metadata_unavailable = Some("not visible in /proc (another PID namespace)".into());
            p
        };
        let a = snap("t0", 0, vec![hidden(300 * MIB, "GPU-0")]);
        let d = diff(&a, &a);
        assert_eq!(d.processes.len(), 1, "{d:#?}");
        assert_eq!(d.processes[0].change, Change::Unchanged);
        assert_eq!(d.processes[0].paired_by, Some(PairRule::PidDevice));
        // It grew: still the same process as far as anything tells.
        let b = snap("t1", 0, vec![hidden(400 * MIB, "GPU-0")]);
        let d = diff(&a, &b);
        assert_eq!(d.processes.len(), 1, "{d:#?}");
        assert_eq!(d.processes[0].change, Change::Grew);
        // Readable in one snapshot only: the PID and device still pair it.
        let mut known = hidden(300 * MIB, "GPU-0");
        known.name = Some("python3".into());
        known.start_time = Some(5);
        let d = diff(&snap("t0", 0, vec![known]), &a);
        assert_eq!(d.processes[0].paired_by, Some(PairRule::PidDevice));
        // The same PID on another device only: nothing says it is the same process.
        let other = snap("t1", 0, vec![hidden(300 * MIB, "GPU-9")]);
        let d = diff(&a, &other);
        assert_eq!(d.processes.len(), 2);
        assert!(d.processes.iter().all(|p| p.paired_by.is_none()));
    }

    #[test]
    fn two_processes_of_the_same_name() {
        let a = snap(
            "t0",
            0,
            vec![
                proc(10, 100, "python3", Some(100 * MIB), &[]),
                proc(11, 101, "python3", Some(200 * MIB), &[]),
            ],
        );
        let b = snap(
            "t1",
            0,
            vec![
                proc(11, 101, "python3", Some(200 * MIB), &[]),
                proc(12, 102, "python3", Some(300 * MIB), &[]),
            ],
        );
        let d = diff(&a, &b);
        assert_eq!(d.processes.len(), 3);
        assert_eq!(find(&d, Some(11), Some(11)).change, Change::Unchanged);
        assert_eq!(find(&d, None, Some(10)).change, Change::Disappeared);
        assert_eq!(find(&d, Some(12), None).change, Change::Appeared);
        // Largest change first.
        assert_eq!(d.processes[0].after.as_ref().map(|s| s.pid), Some(12));
    }

    /// A second device that becomes known is not growth by its whole amount.
    #[test]
    fn a_device_that_becomes_known_is_not_growth() {
        let two = |second: Option<u64>| {
            let mut p = proc(10, 1, "x", Some(100 * MIB), &[]);
            p.usage.push(usage("GPU-9", second));
            p
        };
        let d = diff(
            &snap("t0", 0, vec![two(None)]),
            &snap("t1", 0, vec![two(Some(5 * MIB))]),
        );
        assert_eq!(d.processes[0].change, Change::Unknown);
        assert_eq!(d.processes[0].measured.delta, None);
    }

    #[test]
    fn unknown_memory_is_not_a_change() {
        let a = snap("t0", 0, vec![proc(10, 1, "x", None, &[])]);
        let b = snap("t1", 0, vec![proc(10, 1, "x", Some(5), &[])]);
        let p = diff(&a, &b).processes.remove(0);
        assert_eq!(p.change, Change::Unknown);
        assert_eq!(p.measured.delta, None);
    }

    #[test]
    fn estimates_are_diffed_apart_from_measured_values() {
        let a = snap(
            "t0",
            0,
            vec![proc(10, 1, "llama-server", Some(1000 * MIB), &[])],
        );
        let b = snap(
            "t1",
            0,
            vec![proc(10, 1, "llama-server", Some(1083 * MIB), &[])],
        );
        let est = |kv: u64| gpuledger_model::EstimatedMemory {
            recipe: "llama.cpp/llama-server".into(),
            model: "/m/q.gguf".into(),
            n_ctx: Some(4096),
            weights_gpu_bytes: 800 * MIB,
            kv_cache_gpu_bytes: Some(kv),
            compute_gpu_bytes: Some(0),
            overhead_gpu_bytes: None,
            overhead_source: "none".into(),
            total_gpu_bytes: 800 * MIB + kv,
            ..Default::default()
        };
        let (mut sa, mut sb) = (a.clone(), b.clone());
        sa.processes[0].estimate = Some(est(100 * MIB).into());
        sb.processes[0].estimate = Some(est(184 * MIB).into());
        let a = parse_snapshot(&serde_json::to_string(&sa).unwrap()).unwrap();
        let b = parse_snapshot(&serde_json::to_string(&sb).unwrap()).unwrap();
        let d = diff(&a, &b);
        let p = &d.processes[0];
        assert_eq!(p.measured.delta, Some(83 * MIB as i64));
        // In the views' order; the overhead, unknown on both sides, has no value to diff.
        let keys: Vec<&str> = p.estimated.iter().map(|e| e.key.as_str()).collect();
        assert_eq!(
            keys,
            [
                "weights_gpu_bytes",
                "kv_cache_gpu_bytes",
                "compute_gpu_bytes",
                "total_gpu_bytes"
            ]
        );
        assert_eq!(p.estimated[1].values.delta, Some(84 * MIB as i64));
        assert_eq!(p.estimated[0].values.delta, Some(0));
    }

    #[test]
    fn cmdline_and_name_are_redacted_on_output() {
        let a = snap("t0", 0, vec![]);
        let b = snap(
            "t1",
            0,
            vec![
                proc(10, 1, "x", Some(1), &["x", "--api-key", "sk-SECRET"]),
                proc(
                    11,
                    1,
                    "--token=NAMESECRET",
                    Some(1),
                    &["mysql", "-pSECRET2"],
                ),
            ],
        );
        let v = serde_json::to_string(&diff(&a, &b)).unwrap();
        for secret in ["sk-SECRET", "NAMESECRET", "SECRET2"] {
            assert!(!v.contains(secret), "{v}");
        }
    }
}
