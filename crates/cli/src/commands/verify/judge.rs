//! The record `verify` keeps (every raw reading, so it can be replayed) and the verdicts derived
//! from it. Pure: no I/O, so a saved record re-derives the same verdicts anywhere.

use gpuledger_cuda::workload::{ChildDevice, StepReport};
use gpuledger_model::units::human_bytes;
use gpuledger_model::{Snapshot, Usage};
use serde::{Deserialize, Serialize};

pub const SCHEMA: &str = "gpuledger.verify/1";

/// The steps, in order. The child's memory is expected to be: absent, present, +N, −N, absent.
pub const STEPS: [&str; 5] = ["idle", "context", "allocated", "freed", "exited"];

/// How far a step's change may differ from N: the driver rounds allocations up to its 2 MiB
/// granularity and may add a 2 MiB page of its own bookkeeping on the first allocation.
pub const TOLERANCE: u64 = 4 << 20;

#[derive(Debug, Clone, Serialize, Deserialize)]
pub struct Record {
    pub schema: String,
    pub taken_at: String,
    pub gpuledger_version: String,
    pub machine: Machine,
    /// The path that ran: `cuda` or `vulkan` (`none` when neither could start).
    pub path: String,
    /// Each path: whether it ran, and why it did not (absent in records from before the Vulkan
    /// path, which ran `cuda` only).
    #[serde(default, skip_serializing_if = "Vec::is_empty")]
    pub paths: Vec<PathNote>,
    pub size_bytes: u64,
    pub tolerance_bytes: u64,
    pub child_pid: Option<u32>,
    pub device: Option<ChildDevice>,
    pub steps: Vec<Step>,
    pub verdicts: Vec<Verdict>,
    #[serde(default)]
    pub notes: Vec<String>,
}

/// One workload path and what became of it.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct PathNote {
    /// `cuda` or `vulkan`.
    pub path: String,
    pub ran: bool,
    /// In words: `ran (...)`, `the CUDA workload cannot start: ...`, `not tried: ...`.
    pub why: String,
}

#[derive(Debug, Clone, Default, Serialize, Deserialize)]
pub struct Machine {
    pub os: String,
    pub arch: String,
    pub hostname: Option<String>,
    pub kernel: Option<String>,
    pub wsl: bool,
    /// The display driver's version as the first round's devices report it.
    pub driver_version: Option<String>,
}

#[derive(Debug, Clone, Serialize, Deserialize)]
pub struct Step {
    pub name: String,
    /// What the child said after the step (none for `exited`).
    pub child: Option<StepReport>,
    /// The whole collection round taken after the step.
    pub snapshot: Snapshot,
    /// The vendor tool's raw answer, taken right after the round.
    pub nvidia_smi: Option<ToolRun>,
    /// The AMD and Intel tools' raw answers, taken right after the round, by query
    /// (`amd-smi process`, `rocm-smi --showpids`, `xpu-smi ps`, ...; see `vendor`). Absent in
    /// records from before they were asked.
    #[serde(default, skip_serializing_if = "std::collections::BTreeMap::is_empty")]
    pub witnesses: std::collections::BTreeMap<String, ToolRun>,
    /// Extra rounds taken before this one because the release had not shown yet (the driver
    /// frees asynchronously); only this last round is kept.
    #[serde(default)]
    pub settle_reads: u32,
}

/// One run of an external tool, kept raw.
#[derive(Debug, Clone, Default, PartialEq, Serialize, Deserialize)]
pub struct ToolRun {
    pub command: String,
    pub exit_code: Option<i32>,
    pub stdout: String,
    pub stderr: String,
    /// Why it did not run or did not finish (not installed, timed out).
    pub error: Option<String>,
    /// Whether stdout or stderr was cut at the bound on what is kept.
    #[serde(default, skip_serializing_if = "std::ops::Not::not")]
    pub truncated: bool,
}

#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct Verdict {
    /// `nvml (per process)`, `nvml (device used)`, `unattributed`, `nvidia-smi`, ...
    pub source: String,
    /// `ok`, `off`, `cannot see`, `not implemented`.
    pub verdict: String,
    /// The verdict in words: `ok`, `off by 300 MiB at context (why)`, `cannot see (why)`.
    pub text: String,
    /// Whether this is gpuledger's own reading (counts for the exit status) or a witness.
    pub witness: bool,
    pub checks: Vec<Check>,
}

#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct Check {
    pub step: String,
    pub expected: String,
    pub observed: String,
    pub ok: bool,
}

/// One source's view of the child at one step.
#[derive(Debug, Clone, PartialEq)]
pub enum Seen {
    Absent,
    Unknown(String),
    Bytes(u64),
}

impl Seen {
    fn bytes(&self) -> Option<u64> {
        match self {
            Seen::Bytes(b) => Some(*b),
            _ => None,
        }
    }
    fn show(&self) -> String {
        match self {
            Seen::Absent => "not listed".into(),
            Seen::Unknown(_) => "listed, memory n/a".into(),
            Seen::Bytes(b) => human_bytes(*b),
        }
    }
}

fn near(a: i64, b: i64, tol: u64) -> bool {
    a.abs_diff(b) <= tol
}

fn signed(b: i64) -> String {
    if b < 0 {
        format!("-{}", human_bytes(b.unsigned_abs()))
    } else {
        format!("+{}", human_bytes(b as u64))
    }
}

/// The child's usage rows on the device in one round.
fn usage<'a>(snap: &'a Snapshot, pid: u32, uuid: &str) -> Vec<&'a Usage> {
    snap.processes
        .iter()
        .filter(|p| p.pid == pid)
        .flat_map(|p| &p.usage)
        .filter(|u| u.device == uuid)
        .collect()
}

/// What the per-process source `label` saw of the child.
pub fn seen(snap: &Snapshot, pid: u32, uuid: &str, label: &str) -> Seen {
    for u in usage(snap, pid, uuid) {
        if let Some(b) = u.memory_by_source.get(label) {
            return Seen::Bytes(*b);
        }
        if u.memory_source == label {
            return match u.memory_bytes {
                Some(b) => Seen::Bytes(b),
                None => Seen::Unknown(
                    u.unavailable_reason
                        .clone()
                        .unwrap_or_else(|| "no reason given".into()),
                ),
            };
        }
    }
    Seen::Absent
}

/// Verdicts for a series of per-step readings of the child's memory (one source).
pub fn judge_process(source: &str, series: &[Seen], n: u64, tol: u64, witness: bool) -> Verdict {
    let mut checks = Vec::new();
    let present = |s: &Seen| !matches!(s, Seen::Absent);
    let mut first_off: Option<(String, Option<u64>)> = None;
    let mut push = |step: &str, expected: String, observed: String, ok: bool, by: Option<u64>| {
        if !ok && first_off.is_none() {
            first_off = Some((step.to_string(), by));
        }
        checks.push(Check {
            step: step.into(),
            expected,
            observed,
            ok,
        });
    };
    let get = |i: usize| series.get(i).cloned().unwrap_or(Seen::Absent);
    let (idle, ctx, alloc, freed, exited) = (get(0), get(1), get(2), get(3), get(4));
    push(
        "idle",
        "not listed".into(),
        idle.show(),
        !present(&idle) || idle.bytes() == Some(0),
        idle.bytes(),
    );
    push(
        "context",
        "listed (a context holds memory)".into(),
        ctx.show(),
        present(&ctx),
        None,
    );
    let delta = |a: &Seen, b: &Seen| Some(b.bytes()? as i64 - a.bytes()? as i64);
    for (step, a, b, want) in [
        ("allocated", &ctx, &alloc, n as i64),
        ("freed", &alloc, &freed, -(n as i64)),
    ] {
        let d = delta(a, b);
        push(
            step,
            signed(want),
            d.map(signed).unwrap_or_else(|| b.show()),
            d.is_some_and(|d| near(d, want, tol)),
            d.map(|d| d.abs_diff(want)),
        );
    }
    push(
        "exited",
        "not listed".into(),
        exited.show(),
        !present(&exited),
        exited.bytes(),
    );

    let all_absent = series.iter().all(|s| !present(s));
    let unknown = series.iter().find_map(|s| match s {
        Seen::Unknown(r) => Some(r.clone()),
        _ => None,
    });
    let (verdict, text) = if all_absent {
        let why = "it never listed the child process";
        ("cannot see", format!("cannot see ({why})"))
    } else if series.iter().all(|s| s.bytes().is_none()) {
        let why = unknown.unwrap_or_default();
        ("cannot see", format!("cannot see ({why})"))
    } else if let Some((step, by)) = first_off {
        let why = explain(series, n, tol);
        let by = by
            .map(|b| format!(" by {}", human_bytes(b)))
            .unwrap_or_default();
        let why = why.map(|w| format!(" ({w})")).unwrap_or_default();
        ("off", format!("off{by} at {step}{why}"))
    } else {
        ("ok", "ok".into())
    };
    Verdict {
        source: source.into(),
        verdict: verdict.into(),
        text,
        witness,
        checks,
    }
}

/// Why a per-process series is off, when its shape says so.
fn explain(series: &[Seen], n: u64, tol: u64) -> Option<String> {
    let b = |i: usize| series.get(i).and_then(Seen::bytes);
    let absent = |i: usize| matches!(series.get(i), Some(Seen::Absent) | None);
    // One step late: nothing at context, the context at allocated, the allocation at freed.
    if absent(1) {
        if let (Some(a), Some(f)) = (b(2), b(3)) {
            if near(f as i64 - a as i64, n as i64, tol) {
                return Some("it lags a round: each step shows what the step before should".into());
            }
        }
    }
    if let (Some(c), Some(a)) = (b(1), b(2)) {
        let d = a as i64 - c as i64;
        if near(d, 2 * n as i64, 2 * tol) {
            return Some("about twice the allocation: the memory is counted twice".into());
        }
        if d == 0 {
            return Some("the allocation did not show at all".into());
        }
    }
    if series.len() > 4 && !absent(4) {
        return Some("still listed after the process ended".into());
    }
    None
}

/// Device-wide checks: used memory moves by ±N with the allocation and returns to where it was
/// after the exit; the unattributed remainder does not move at all.
pub fn judge_device(
    source: &str,
    used: &[Option<u64>],
    n: u64,
    tol: u64,
    unattributed: bool,
) -> Verdict {
    let mut checks = Vec::new();
    let get = |i: usize| used.get(i).copied().flatten();
    let show = |v: Option<u64>| v.map(human_bytes).unwrap_or_else(|| "n/a".into());
    let mut first: Option<(String, u64)> = None;
    let mut add = |step: &str, base: Option<u64>, v: Option<u64>, want: i64| {
        let d = match (base, v) {
            (Some(a), Some(b)) => Some(b as i64 - a as i64),
            _ => None,
        };
        let ok = d.is_some_and(|d| near(d, want, tol));
        if !ok && first.is_none() {
            first = Some((step.into(), d.map(|d| d.abs_diff(want)).unwrap_or(0)));
        }
        checks.push(Check {
            step: step.into(),
            expected: signed(want),
            observed: d.map(signed).unwrap_or_else(|| show(v)),
            ok,
        });
    };
    if unattributed {
        for (i, step) in STEPS.iter().enumerate().skip(1) {
            add(step, get(0), get(i), 0);
        }
    } else {
        add("allocated", get(1), get(2), n as i64);
        add("freed", get(2), get(3), -(n as i64));
        add("exited", get(0), get(4), 0);
    }
    let (verdict, text) = if used.iter().all(Option::is_none) {
        let why = if unattributed {
            "device used is unknown, or the processes add up to more than it"
        } else {
            "the device's used memory is unknown"
        };
        ("cannot see", format!("cannot see ({why})"))
    } else if let Some((step, by)) = first {
        let why = if unattributed {
            " (the per-process figures do not account for the child's memory as they should)"
        } else {
            ""
        };
        ("off", format!("off by {} at {step}{why}", human_bytes(by)))
    } else {
        ("ok", "ok".into())
    };
    Verdict {
        source: source.into(),
        verdict: verdict.into(),
        text,
        witness: false,
        checks,
    }
}

/// `nvidia-smi --query-compute-apps=pid,used_memory --format=csv`: the child's row, in bytes
/// (nvidia-smi prints MiB).
pub fn smi_seen(run: &ToolRun, pid: u32) -> Result<Seen, String> {
    let out = super::vendor::finished(run)?;
    for line in out.lines().skip(1) {
        let mut f = line.split(',').map(str::trim);
        if f.next().and_then(|p| p.parse::<u32>().ok()) != Some(pid) {
            continue;
        }
        let mem = f.next().unwrap_or("");
        let num = mem.trim_end_matches("MiB").trim();
        return Ok(match num.parse::<u64>() {
            Ok(m) => Seen::Bytes(m << 20),
            Err(_) => Seen::Unknown(format!("nvidia-smi prints {mem:?}")),
        });
    }
    Ok(Seen::Absent)
}

/// The PCI address (normalised, `0000:03:00.0`) of the workload's device in one round: the Vulkan
/// device's own (VK_EXT_pci_bus_info), else the address the round reports for the device whose
/// UUID the workload gave. The AMD and Intel tools are asked for this device by it.
pub fn target_pci(rec: &Record, snap: &Snapshot) -> Option<String> {
    let norm = gpuledger_sources::sysfs::normalise_bus_id;
    let d = rec.device.as_ref()?;
    if let Some(b) = d.vulkan.as_ref().and_then(|v| v.pci_bus_id.as_deref()) {
        return Some(norm(b));
    }
    let uuid = d.uuid.as_deref()?;
    snap.devices
        .iter()
        .find(|x| x.uuid.eq_ignore_ascii_case(uuid))?
        .pci_bus_id
        .as_deref()
        .map(norm)
}

/// The AMD and Intel tools' verdicts, each beside the sources' as nvidia-smi's is: the child's
/// memory per step (`TOOL (per process)`) and the device's used VRAM (`TOOL (device used)`),
/// judged with the same expectations. A tool that is not installed gets one line saying so;
/// records from before these tools were asked get none.
pub fn vendor_verdicts(rec: &Record, pid: u32) -> Vec<Verdict> {
    use super::vendor::{device_used, process_seen, WITNESSES};
    let (n, tol) = (rec.size_bytes, rec.tolerance_bytes);
    let mut out = Vec::new();
    let cannot = |source: String, why: String| Verdict {
        source,
        verdict: "cannot see".into(),
        text: format!("cannot see ({why})"),
        witness: true,
        checks: Vec::new(),
    };
    for (tool, pq, dq) in WITNESSES {
        let runs = |q: &str| -> Vec<Option<&ToolRun>> {
            rec.steps.iter().map(|s| s.witnesses.get(q)).collect()
        };
        let (pr, dr) = (runs(pq), runs(dq));
        if pr.iter().all(Option::is_none) {
            continue;
        }
        let missing = |r: &Option<&ToolRun>| {
            r.and_then(|r| r.error.as_deref())
                .is_some_and(|e| e.contains("is not installed"))
        };
        if pr.iter().all(missing) {
            out.push(Verdict {
                source: tool.into(),
                verdict: "not installed".into(),
                text: format!("not installed ({tool} is not on PATH)"),
                witness: true,
                checks: Vec::new(),
            });
            continue;
        }
        let series: Result<Vec<Seen>, String> = pr
            .iter()
            .map(|r| {
                r.ok_or_else(|| "not run".to_string())
                    .and_then(|r| process_seen(pq, r, pid))
            })
            .collect();
        let source = format!("{tool} (per process)");
        out.push(match series {
            // xpu-smi prints kB, amd-smi and rocm-smi bytes: a little more room, as for nvidia-smi.
            Ok(series) => judge_process(&source, &series, n, tol + (1 << 20), true),
            Err(why) => cannot(source, why),
        });
        let source = format!("{tool} (device used)");
        if dr.iter().all(Option::is_none) {
            out.push(cannot(
                source,
                "the device's PCI address is unknown, so the tool could not be asked for it".into(),
            ));
            continue;
        }
        let used: Result<Vec<Option<u64>>, String> = rec
            .steps
            .iter()
            .zip(&dr)
            .map(|(s, r)| {
                let r = r.ok_or_else(|| "not run".to_string())?;
                let bdf = target_pci(rec, &s.snapshot)
                    .ok_or_else(|| "the device's PCI address is unknown".to_string())?;
                device_used(dq, r, &bdf).map(Some)
            })
            .collect();
        out.push(match used {
            // amd-smi prints whole MB, xpu-smi MiB with decimals.
            Ok(used) => Verdict {
                witness: true,
                ..judge_device(&source, &used, n, tol + (1 << 20), false)
            },
            Err(why) => cannot(source, why),
        });
    }
    out
}

/// The name of the Vulkan device's driver (or the device) when it is a CPU device (lavapipe,
/// SwiftShader): its "device-local" heap is host memory, which no GPU source reports.
pub fn cpu_device(rec: &Record) -> Option<String> {
    let d = rec.device.as_ref()?;
    let v = d.vulkan.as_ref()?;
    (rec.path == "vulkan" && v.device_type == "cpu")
        .then(|| v.driver_name.clone().unwrap_or_else(|| d.name.clone()))
}

/// The snapshot's identity (`uuid`) of the device the workload ran on. CUDA: the driver's UUID
/// in NVML's spelling. Vulkan: the device whose PCI address matches VK_EXT_pci_bus_info's, else
/// the one whose UUID matches the Vulkan device UUID (NVIDIA reports NVML's), in any round.
pub fn target_uuid(rec: &Record) -> Result<String, String> {
    let Some(d) = rec.device.as_ref() else {
        return Err("the workload reported no device".into());
    };
    let Some(v) = d.vulkan.as_ref() else {
        return d.uuid.clone().ok_or_else(|| {
            "the CUDA driver gave no device UUID, so its device cannot be matched to what the sources report".into()
        });
    };
    let devices = rec.steps.iter().flat_map(|s| &s.snapshot.devices);
    let norm = gpuledger_sources::sysfs::normalise_bus_id;
    if let Some(bus) = &v.pci_bus_id {
        let bus = norm(bus);
        if let Some(found) = devices
            .clone()
            .find(|x| x.pci_bus_id.as_deref().map(norm).as_deref() == Some(bus.as_str()))
        {
            return Ok(found.uuid.clone());
        }
    }
    if let Some(u) = &d.uuid {
        if let Some(found) = devices.clone().find(|x| x.uuid.eq_ignore_ascii_case(u)) {
            return Ok(found.uuid.clone());
        }
    }
    Err(format!(
        "no source reports the Vulkan device {} ({}; PCI {}, UUID {})",
        d.ordinal,
        d.name,
        v.pci_bus_id.as_deref().unwrap_or("not reported"),
        v.device_uuid.as_deref().unwrap_or("not reported")
    ))
}

/// Why a Vulkan allocation is judged on the device's system memory (GTT: amdgpu `gtt`, i915/xe
/// `system0`) instead of VRAM, or `None` for VRAM. It is system memory where the rounds report
/// the device's system memory and either no VRAM at all (an Intel integrated GPU) or less VRAM
/// than the device-local heap the workload allocated from (a heap that reaches past the VRAM is
/// not VRAM). Where the rounds report no system memory there is nothing else to judge: VRAM.
pub fn system_ledger(rec: &Record, uuid: &str) -> Option<String> {
    let heap = rec.device.as_ref()?.vulkan.as_ref()?.heap_bytes;
    let dev = rec
        .steps
        .iter()
        .find_map(|s| s.snapshot.device_by_uuid(uuid))?;
    dev.system_memory.as_ref()?;
    match dev.memory.total_bytes {
        None | Some(0) => Some(
            "the device reports no VRAM, so its device-local heap is system memory (GTT)".into(),
        ),
        // 5 % of slack: drivers report a heap a little under the VRAM they manage.
        Some(v) if heap > v + v / 20 => Some(format!(
            "the device-local heap ({}) is larger than the device's VRAM ({}), so it is system memory (GTT)",
            human_bytes(heap),
            human_bytes(v)
        )),
        Some(_) => None,
    }
}

/// The child's system-memory (GTT) reading on the device in one round.
fn seen_system(snap: &Snapshot, pid: u32, uuid: &str) -> Seen {
    let rows = usage(snap, pid, uuid);
    if rows.is_empty() {
        return Seen::Absent;
    }
    match rows
        .iter()
        .filter_map(|u| u.system_memory_bytes)
        .reduce(u64::max)
    {
        Some(b) => Seen::Bytes(b),
        None => Seen::Unknown("the source reports no system memory (GTT) for this process".into()),
    }
}

/// The per-process, device-used and unattributed verdicts on the device's system memory.
fn judge_system(rec: &Record, pid: u32, uuid: &str, dev_source: &str) -> Vec<Verdict> {
    let (n, tol) = (rec.size_bytes, rec.tolerance_bytes);
    let snaps: Vec<&Snapshot> = rec.steps.iter().map(|s| &s.snapshot).collect();
    let label = snaps
        .iter()
        .flat_map(|s| usage(s, pid, uuid))
        .map(|u| u.memory_source.clone())
        .next()
        .unwrap_or_else(|| dev_source.to_string());
    let series: Vec<Seen> = snaps.iter().map(|s| seen_system(s, pid, uuid)).collect();
    let dev = |s: &Snapshot| s.device_by_uuid(uuid).cloned();
    let used: Vec<Option<u64>> = snaps
        .iter()
        .map(|s| dev(s).and_then(|d| d.system_memory?.used_bytes))
        .collect();
    let un: Vec<Option<u64>> = snaps
        .iter()
        .map(|s| dev(s).and_then(|d| d.system_ledger?.unattributed_bytes))
        .collect();
    vec![
        judge_process(
            &format!("{label} GTT (per process)"),
            &series,
            n,
            tol,
            false,
        ),
        judge_device(
            &format!("{dev_source} GTT (device used)"),
            &used,
            n,
            tol,
            false,
        ),
        judge_device("unattributed GTT", &un, n, tol, true),
    ]
}

/// Every source of the first round, each unable to see a CPU device.
fn cpu_verdicts(rec: &Record, driver: &str) -> Vec<Verdict> {
    let text = format!("cannot see: a CPU device ({driver}) has no VRAM");
    let mut names: Vec<String> = rec
        .steps
        .first()
        .map(|s| {
            s.snapshot
                .sources
                .iter()
                // procfs reads process facts, not GPU memory.
                .filter(|s| s.name != "procfs")
                .map(|s| s.name.clone())
                .collect()
        })
        .unwrap_or_default();
    if names.is_empty() {
        names.push("every source".into());
    }
    names
        .into_iter()
        .map(|source| Verdict {
            source,
            verdict: "cannot see".into(),
            text: text.clone(),
            witness: false,
            checks: Vec::new(),
        })
        .collect()
}

/// A CPU device's allocation is host memory in the child: its resident memory (reported by the
/// child after each step) should move by +N when it allocates and fills, and by −N when it frees.
/// A witness that the workload really ran, not a reading of gpuledger's.
pub fn judge_rss(rec: &Record) -> Verdict {
    let rss = |step: &str| {
        rec.steps
            .iter()
            .find(|s| s.name == step)
            .and_then(|s| s.child.as_ref()?.rss_bytes)
    };
    let n = rec.size_bytes;
    let mut checks = Vec::new();
    let mut first: Option<(String, u64)> = None;
    for (step, from, to, want) in [
        ("allocated", "context", "allocated", n as i64),
        ("freed", "allocated", "freed", -(n as i64)),
    ] {
        let d = rss(from).zip(rss(to)).map(|(a, b)| b as i64 - a as i64);
        let ok = d.is_some_and(|d| near(d, want, rec.tolerance_bytes));
        if !ok && first.is_none() {
            first = Some((step.into(), d.map(|d| d.abs_diff(want)).unwrap_or(0)));
        }
        checks.push(Check {
            step: step.into(),
            expected: signed(want),
            observed: d.map(signed).unwrap_or_else(|| "n/a".into()),
            ok,
        });
    }
    let (verdict, text) = if rss("allocated").is_none() {
        (
            "cannot see",
            "cannot see (the workload reported no resident memory: only read on Linux)".into(),
        )
    } else if let Some((step, by)) = first {
        ("off", format!("off by {} at {step}", human_bytes(by)))
    } else {
        ("ok", "ok".into())
    };
    Verdict {
        source: "host memory (the child's RSS)".into(),
        verdict: verdict.into(),
        text,
        witness: true,
        checks,
    }
}

fn smi_not_run() -> Verdict {
    Verdict {
        source: "nvidia-smi".into(),
        verdict: "not run".into(),
        text: "not run (only the CUDA path asks nvidia-smi as a second witness)".into(),
        witness: true,
        checks: Vec::new(),
    }
}

/// All verdicts of a record, from its raw readings alone.
pub fn judge(rec: &Record) -> Vec<Verdict> {
    let mut out = Vec::new();
    if let Some(driver) = cpu_device(rec) {
        let mut v = cpu_verdicts(rec, &driver);
        v.push(judge_rss(rec));
        v.push(smi_not_run());
        return v;
    }
    let target = target_uuid(rec);
    let (Some(pid), Ok(uuid)) = (rec.child_pid, target.clone()) else {
        // Never a silent pass: without the device's identity no reading can be matched to it.
        let why = target
            .err()
            .unwrap_or_else(|| "the workload's PID is unknown".into());
        out.push(Verdict {
            source: "every source".into(),
            verdict: "cannot see".into(),
            text: format!("cannot see ({why})"),
            witness: false,
            checks: Vec::new(),
        });
        return out;
    };
    let n = rec.size_bytes;
    let tol = rec.tolerance_bytes;
    let snaps: Vec<&Snapshot> = rec.steps.iter().map(|s| &s.snapshot).collect();
    let dev = |s: &Snapshot| s.device_by_uuid(&uuid).cloned();
    let dev_source = snaps
        .iter()
        .find_map(|s| dev(s).map(|d| d.source))
        .unwrap_or_else(|| "nvml".into());
    // Every per-process source that reported the child at some step, and the device's own.
    let mut labels: Vec<String> = vec![dev_source.clone()];
    for s in &snaps {
        for u in usage(s, pid, &uuid) {
            for l in std::iter::once(&u.memory_source).chain(u.memory_by_source.keys()) {
                if !labels.contains(l) {
                    labels.push(l.clone());
                }
            }
        }
    }
    if system_ledger(rec, &uuid).is_some() {
        out.extend(judge_system(rec, pid, &uuid, &dev_source));
    } else if snaps.iter().all(|s| dev(s).is_none()) {
        out.push(Verdict {
            source: format!("{dev_source} (per process)"),
            verdict: "cannot see".into(),
            text: format!("cannot see (no source reports the device {uuid})"),
            witness: false,
            checks: Vec::new(),
        });
    } else {
        for l in &labels {
            let series: Vec<Seen> = snaps.iter().map(|s| seen(s, pid, &uuid, l)).collect();
            out.push(judge_process(
                &format!("{l} (per process)"),
                &series,
                n,
                tol,
                false,
            ));
        }
        let used: Vec<Option<u64>> = snaps
            .iter()
            .map(|s| dev(s).and_then(|d| d.memory.used_bytes))
            .collect();
        out.push(judge_device(
            &format!("{dev_source} (device used)"),
            &used,
            n,
            tol,
            false,
        ));
        let un: Vec<Option<u64>> = snaps
            .iter()
            .map(|s| dev(s).and_then(|d| d.ledger.unattributed_bytes))
            .collect();
        out.push(judge_device("unattributed", &un, n, tol, true));
    }
    out.extend(vendor_verdicts(rec, pid));
    // The second witness: nvidia-smi's compute-apps list, on the CUDA path.
    if rec.path == "vulkan" {
        out.push(smi_not_run());
        return out;
    }
    let runs: Vec<Option<&ToolRun>> = rec.steps.iter().map(|s| s.nvidia_smi.as_ref()).collect();
    let smi: Result<Vec<Seen>, String> = runs
        .iter()
        .map(|r| {
            r.ok_or_else(|| "not run".to_string())
                .and_then(|r| smi_seen(r, pid))
        })
        .collect();
    out.push(match smi {
        Ok(series) => judge_process("nvidia-smi", &series, n, tol + (1 << 20), true),
        Err(why) => Verdict {
            source: "nvidia-smi".into(),
            verdict: "cannot see".into(),
            text: format!("cannot see ({why})"),
            witness: true,
            checks: Vec::new(),
        },
    });
    out
}

#[cfg(test)]
mod tests {
    use super::*;

    const N: u64 = 512 << 20;
    const C: u64 = 300 << 20;

    fn b(v: u64) -> Seen {
        Seen::Bytes(v)
    }

    #[test]
    fn the_expected_shape_is_ok_within_the_tolerance() {
        let s = [Seen::Absent, b(C), b(C + N + (2 << 20)), b(C), Seen::Absent];
        let v = judge_process("nvml", &s, N, TOLERANCE, false);
        assert_eq!(v.text, "ok");
        assert!(v.checks.iter().all(|c| c.ok));
        // One byte past the tolerance is off.
        let s = [
            Seen::Absent,
            b(C),
            b(C + N + TOLERANCE + 1),
            b(C),
            Seen::Absent,
        ];
        let v = judge_process("nvml", &s, N, TOLERANCE, false);
        assert_eq!(v.verdict, "off");
        assert!(
            v.text.starts_with("off by 4.00 MiB at allocated"),
            "{}",
            v.text
        );
    }

    #[test]
    fn lag_double_count_and_lingering_are_named() {
        let lag = [Seen::Absent, Seen::Absent, b(C), b(C + N), Seen::Absent];
        assert!(judge_process("x", &lag, N, TOLERANCE, false)
            .text
            .contains("lags a round"));
        let twice = [
            Seen::Absent,
            b(2 * C),
            b(2 * C + 2 * N),
            b(2 * C),
            Seen::Absent,
        ];
        assert!(judge_process("x", &twice, N, TOLERANCE, false)
            .text
            .contains("counted twice"));
        let stays = [Seen::Absent, b(C), b(C + N), b(C), b(C)];
        assert_eq!(
            judge_process("x", &stays, N, TOLERANCE, false).text,
            "off by 300 MiB at exited (still listed after the process ended)"
        );
        let unknown = vec![Seen::Unknown("WDDM".into()); 5];
        assert_eq!(
            judge_process("x", &unknown, N, TOLERANCE, false).text,
            "cannot see (WDDM)"
        );
    }

    #[test]
    fn device_used_and_unattributed() {
        let g = 1 << 30;
        let used = [Some(g), Some(g + C), Some(g + C + N), Some(g + C), Some(g)];
        assert_eq!(judge_device("d", &used, N, TOLERANCE, false).text, "ok");
        let un = [Some(g), Some(g), Some(g), Some(g), Some(g)];
        assert_eq!(judge_device("u", &un, N, TOLERANCE, true).text, "ok");
        let un = [Some(g), Some(g + C), Some(g + C), Some(g), Some(g)];
        assert!(judge_device("u", &un, N, TOLERANCE, true)
            .text
            .starts_with("off by 300 MiB at context"));
        assert!(judge_device("d", &[None; 5], N, TOLERANCE, false)
            .text
            .starts_with("cannot see"));
    }

    #[test]
    fn nvidia_smi_csv() {
        let run = ToolRun {
            exit_code: Some(0),
            stdout: "pid, used_memory [MiB]\n77, 10 MiB\n4242, 812 MiB\n".into(),
            ..ToolRun::default()
        };
        assert_eq!(smi_seen(&run, 4242), Ok(b(812 << 20)));
        assert_eq!(smi_seen(&run, 5), Ok(Seen::Absent));
        let na = ToolRun {
            exit_code: Some(0),
            stdout: "pid, used_memory [MiB]\n4242, [N/A]\n".into(),
            ..ToolRun::default()
        };
        assert!(matches!(smi_seen(&na, 4242), Ok(Seen::Unknown(_))));
        let failed = ToolRun {
            exit_code: Some(9),
            stdout:
                "NVIDIA-SMI has failed because it couldn't communicate with the NVIDIA driver\n"
                    .into(),
            ..ToolRun::default()
        };
        assert!(smi_seen(&failed, 1)
            .unwrap_err()
            .contains("couldn't communicate"));
    }

    /// A Vulkan record on a discrete AMD GPU (not run for real here: no such GPU): the device is
    /// found by its PCI address, and fdinfo is judged as NVML is on the CUDA path.
    fn vulkan_record(pci: &str, process: [Option<u64>; 5]) -> Record {
        use gpuledger_cuda::workload::VulkanDevice;
        use gpuledger_model::{Device, Host, Process, Usage, Vendor};
        let g = 1u64 << 30;
        let used = [g, g + C, g + C + N, g + C, g];
        let steps = STEPS
            .iter()
            .enumerate()
            .map(|(i, name)| {
                let mut snap = Snapshot::new(String::new(), Host::default());
                let mut d = Device::new(0, Vendor::Amd, "amdgpu-0000:03:00.0", "fdinfo");
                d.pci_bus_id = Some("0000:03:00.0".into());
                d.memory.total_bytes = Some(16 * g);
                d.memory.used_bytes = Some(used[i]);
                snap.devices.push(d);
                if let Some(b) = process[i] {
                    let mut p = Process::new(4242);
                    let mut u = Usage::new("amdgpu-0000:03:00.0", "fdinfo");
                    u.memory_bytes = Some(b);
                    p.usage.push(u);
                    snap.processes.push(p);
                }
                gpuledger_model::balance(&mut snap);
                Step {
                    name: name.to_string(),
                    child: None,
                    snapshot: snap,
                    nvidia_smi: None,
                    witnesses: Default::default(),
                    settle_reads: 0,
                }
            })
            .collect();
        Record {
            schema: SCHEMA.into(),
            taken_at: String::new(),
            gpuledger_version: String::new(),
            machine: Machine::default(),
            path: "vulkan".into(),
            paths: Vec::new(),
            size_bytes: N,
            tolerance_bytes: TOLERANCE,
            child_pid: Some(4242),
            device: Some(ChildDevice {
                name: "AMD Radeon RX 7600 (RADV NAVI33)".into(),
                vulkan: Some(VulkanDevice {
                    device_type: "discrete-gpu".into(),
                    pci_bus_id: Some(pci.into()),
                    ..VulkanDevice::default()
                }),
                ..ChildDevice::default()
            }),
            steps,
            verdicts: Vec::new(),
            notes: Vec::new(),
        }
    }

    fn text_of<'a>(v: &'a [Verdict], source: &str) -> &'a str {
        &v.iter()
            .find(|v| v.source == source)
            .unwrap_or_else(|| panic!("no {source}: {v:?}"))
            .text
    }

    #[test]
    fn a_vulkan_gpu_is_found_by_its_pci_address_and_fdinfo_is_judged() {
        let honest = [None, Some(C), Some(C + N), Some(C), None];
        let v = judge(&vulkan_record("0000:03:00.0", honest));
        assert_eq!(text_of(&v, "fdinfo (per process)"), "ok");
        assert_eq!(text_of(&v, "fdinfo (device used)"), "ok");
        assert_eq!(text_of(&v, "unattributed"), "ok");
        assert_eq!(
            text_of(&v, "nvidia-smi"),
            "not run (only the CUDA path asks nvidia-smi as a second witness)"
        );
        // The allocation missing from the process's fdinfo: off, and unattributed moves.
        let blind = [None, Some(C), Some(C), Some(C), None];
        let v = judge(&vulkan_record("0000:03:00.0", blind));
        assert_eq!(
            text_of(&v, "fdinfo (per process)"),
            "off by 512 MiB at allocated (the allocation did not show at all)"
        );
        assert!(text_of(&v, "unattributed").starts_with("off by 512 MiB at allocated"));
        // Another PCI address: no reading can be matched, never a pass.
        let v = judge(&vulkan_record("0000:04:00.0", honest));
        assert_eq!(v.len(), 1);
        assert_eq!(v[0].verdict, "cannot see");
        assert!(
            v[0].text.contains("no source reports the Vulkan device 0 (AMD Radeon RX 7600 (RADV NAVI33); PCI 0000:04:00.0"),
            "{}",
            v[0].text
        );
    }

    /// An Intel integrated GPU (not run for real: no such GPU here): no VRAM, the allocation in
    /// system memory (i915's `system0`, the GTT ledger). Judged there, with the same shape.
    fn integrated(process_sys: [Option<u64>; 5]) -> Record {
        let g = 1u64 << 30;
        let sys_used = [g, g + C, g + C + N, g + C, g];
        let mut rec = vulkan_record("0000:00:02.0", [None; 5]);
        if let Some(v) = rec.device.as_mut().and_then(|d| d.vulkan.as_mut()) {
            v.device_type = "integrated-gpu".into();
            v.heap_bytes = 8 * g;
        }
        for (i, step) in rec.steps.iter_mut().enumerate() {
            let snap = &mut step.snapshot;
            let d = &mut snap.devices[0];
            d.pci_bus_id = Some("0000:00:02.0".into());
            d.memory = Default::default();
            d.system_memory = Some(gpuledger_model::Memory {
                total_bytes: Some(16 * g),
                used_bytes: Some(sys_used[i]),
                ..Default::default()
            });
            if let Some(b) = process_sys[i] {
                let mut p = gpuledger_model::Process::new(4242);
                let mut u = gpuledger_model::Usage::new("amdgpu-0000:03:00.0", "fdinfo");
                u.memory_bytes = Some(0);
                u.system_memory_bytes = Some(b);
                p.usage.push(u);
                snap.processes.push(p);
            }
            gpuledger_model::balance(snap);
        }
        rec
    }

    #[test]
    fn an_integrated_gpu_without_vram_is_judged_on_system_memory() {
        let honest = integrated([None, Some(C), Some(C + N), Some(C), None]);
        let uuid = target_uuid(&honest).unwrap();
        assert!(system_ledger(&honest, &uuid)
            .unwrap()
            .contains("reports no VRAM"));
        let v = judge(&honest);
        assert_eq!(text_of(&v, "fdinfo GTT (per process)"), "ok", "{v:?}");
        assert_eq!(text_of(&v, "fdinfo GTT (device used)"), "ok");
        assert_eq!(text_of(&v, "unattributed GTT"), "ok");
        assert!(!v.iter().any(|v| v.source == "fdinfo (per process)"));
        let blind = integrated([None, Some(C), Some(C), Some(C), None]);
        assert_eq!(
            text_of(&judge(&blind), "fdinfo GTT (per process)"),
            "off by 512 MiB at allocated (the allocation did not show at all)"
        );
        // A discrete GPU whose heap fits its VRAM stays on VRAM.
        let discrete = vulkan_record("0000:03:00.0", [None, Some(C), Some(C + N), Some(C), None]);
        let uuid = target_uuid(&discrete).unwrap();
        assert_eq!(system_ledger(&discrete, &uuid), None);
    }

    #[test]
    fn a_record_without_a_device_uuid_is_not_a_pass() {
        let rec = Record {
            schema: SCHEMA.into(),
            taken_at: String::new(),
            gpuledger_version: String::new(),
            machine: Machine::default(),
            path: "cuda".into(),
            paths: Vec::new(),
            size_bytes: N,
            tolerance_bytes: TOLERANCE,
            child_pid: Some(1),
            device: Some(ChildDevice::default()),
            steps: Vec::new(),
            verdicts: Vec::new(),
            notes: Vec::new(),
        };
        let v = judge(&rec);
        assert_eq!(v.len(), 1);
        assert_eq!(v[0].verdict, "cannot see");
        assert!(!v[0].witness);
    }
}
