//! The verdicts `verify` derives from its record, per source: the per-process sources' view of
//! the child, the device's used memory and the unattributed remainder (on VRAM, or on system
//! memory where the allocation lands there), the witnesses', and on a CPU device why no source
//! can see it. Pure: no I/O, so a saved record re-derives the same verdicts anywhere.
//!
//! - `record`: the record and its parts (what is saved and replayed);
//! - `series`: the expectations on a series of per-step readings, and the checks against them;
//! - `device`: which device of the snapshots the workload ran on, and which memory to judge;
//! - `witnesses`: nvidia-smi's and the AMD and Intel tools' verdicts;
//! - `vendor`: what the AMD and Intel tools' raw JSON says (the readings those verdicts judge).

mod device;
mod record;
mod series;
mod vendor;
mod witnesses;

pub use device::{cpu_device, system_ledger, target_pci, target_uuid};
pub use record::{
    step_said, Machine, PathNote, Record, Step, ToolRun, Verdict, SCHEMA, STEPS, TOLERANCE,
};
pub use series::{judge_device, judge_process, judge_rss, Seen};
pub use vendor::{
    AMD_SMI_METRIC, AMD_SMI_PROCESS, ROCM_SMI_MEMINFO, ROCM_SMI_PIDS, XPU_SMI_PS, XPU_SMI_STATS,
};
#[cfg(test)]
use witnesses::smi_seen;
use witnesses::{smi_not_run, smi_verdict};

use gpuledger_lang::Said;
use gpuledger_model::verdict::SourceScope::{DeviceUsed, PerProcess, Unattributed};
use gpuledger_model::verdict::VerdictKind;
use gpuledger_model::{Snapshot, Usage};

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
                        .unwrap_or_else(|| Said::new("report-verify-no-reason", vec![])),
                ),
            };
        }
    }
    Seen::Absent
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
        None => Seen::Unknown(Said::new("report-verify-no-gtt", vec![])),
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
    let used = per_round(&snaps, uuid, |d| d.system_memory.as_ref()?.used_bytes);
    let un = per_round(&snaps, uuid, |d| {
        d.system_ledger.as_ref()?.unattributed_bytes
    });
    vec![
        judge_process(
            &PerProcess.label(&format!("{label} GTT")),
            &series,
            n,
            tol,
            false,
        ),
        judge_device(
            &DeviceUsed.label(&format!("{dev_source} GTT")),
            &used,
            n,
            tol,
            false,
        ),
        judge_device(&Unattributed.label("GTT"), &un, n, tol, true),
    ]
}

/// Every source of the first round, each unable to see a CPU device.
fn cpu_verdicts(rec: &Record, driver: &str) -> Vec<Verdict> {
    let text = Said::new("report-verify-cpu-device", vec![("driver", driver.into())]);
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
            verdict: VerdictKind::CannotSee,
            text: text.clone(),
            witness: false,
            checks: Vec::new(),
        })
        .collect()
}

/// All verdicts of a record, from its raw readings alone.
pub fn judge(rec: &Record) -> Vec<Verdict> {
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
            .unwrap_or_else(|| Said::new("report-verify-pid-unknown", vec![]));
        return vec![Verdict::cannot_see("every source".into(), why, false)];
    };
    let mut out = judge_sources(rec, pid, &uuid);
    out.extend(witnesses::vendor_verdicts(rec, pid));
    // The second witness: nvidia-smi's compute-apps list, on the CUDA path.
    out.push(if rec.path == "vulkan" {
        smi_not_run()
    } else {
        smi_verdict(rec, pid)
    });
    out
}

/// The sources' verdicts on the device `uuid`: each per-process source's view of the child, the
/// device's used memory and the unattributed remainder (on its system memory where the
/// allocation lands there).
fn judge_sources(rec: &Record, pid: u32, uuid: &str) -> Vec<Verdict> {
    let (n, tol) = (rec.size_bytes, rec.tolerance_bytes);
    let snaps: Vec<&Snapshot> = rec.steps.iter().map(|s| &s.snapshot).collect();
    let dev = |s: &Snapshot| s.device_by_uuid(uuid).cloned();
    let dev_source = snaps
        .iter()
        .find_map(|s| dev(s).map(|d| d.source))
        .unwrap_or_else(|| "nvml".into());
    if system_ledger(rec, uuid).is_some() {
        return judge_system(rec, pid, uuid, &dev_source);
    }
    if snaps.iter().all(|s| dev(s).is_none()) {
        let why = Said::new("report-verify-no-device", vec![("uuid", uuid.into())]);
        let source = PerProcess.label(&dev_source);
        return vec![Verdict::cannot_see(source, why, false)];
    }
    let mut out: Vec<Verdict> = labels(&snaps, pid, uuid, &dev_source)
        .iter()
        .map(|l| {
            let series: Vec<Seen> = snaps.iter().map(|s| seen(s, pid, uuid, l)).collect();
            judge_process(&PerProcess.label(l), &series, n, tol, false)
        })
        .collect();
    let used = per_round(&snaps, uuid, |d| d.memory.used_bytes);
    let source = DeviceUsed.label(&dev_source);
    out.push(judge_device(&source, &used, n, tol, false));
    let un = per_round(&snaps, uuid, |d| d.ledger.unattributed_bytes);
    out.push(judge_device(&Unattributed.label(""), &un, n, tol, true));
    out
}

/// One device-wide figure of the device `uuid`, a round.
fn per_round(
    snaps: &[&Snapshot],
    uuid: &str,
    f: impl Fn(&gpuledger_model::Device) -> Option<u64>,
) -> Vec<Option<u64>> {
    snaps
        .iter()
        .map(|s| s.device_by_uuid(uuid).and_then(&f))
        .collect()
}

/// Every per-process source that reported the child at some step, after the device's own.
fn labels(snaps: &[&Snapshot], pid: u32, uuid: &str, dev_source: &str) -> Vec<String> {
    let mut labels: Vec<String> = vec![dev_source.to_string()];
    for s in snaps {
        for u in usage(s, pid, uuid) {
            for l in std::iter::once(&u.memory_source).chain(u.memory_by_source.keys()) {
                if !labels.contains(l) {
                    labels.push(l.clone());
                }
            }
        }
    }
    labels
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn step_names_are_said_in_the_language_and_unknown_ones_as_written() {
        use gpuledger_lang::Lang;
        for (step, zh) in [
            ("allocated", "分配后"),
            ("allocate", "分配"),
            ("exit", "退出"),
        ] {
            assert_eq!(step_said(step).in_lang(Lang::ZhCn), zh);
            assert_eq!(step_said(step).in_lang(Lang::En), step);
        }
        assert_eq!(step_said("warmup").in_lang(Lang::ZhTw), "warmup");
    }
    use gpuledger_cuda::workload::ChildDevice;

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
        assert_eq!(v.verdict, VerdictKind::Off);
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
        // A reading missing at one step: off there, by an amount nobody knows (not "by 0 B").
        let gap = [Some(g), Some(g + C), None, Some(g + C), Some(g)];
        assert_eq!(
            judge_device("d", &gap, N, TOLERANCE, false).text,
            "off at allocated"
        );
        let un = [Some(g), Some(g), None, Some(g), Some(g)];
        assert!(judge_device("u", &un, N, TOLERANCE, true)
            .text
            .starts_with("off at allocated ("));
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

    #[test]
    fn resident_memory_missing_at_a_step_is_off_there_by_no_made_up_amount() {
        let mut rec = vulkan_record("0000:03:00.0", [None; 5]);
        let m = 100u64 << 20;
        for (s, rss) in rec.steps.iter_mut().zip([m, m, m + N, m, m]) {
            s.child = Some(gpuledger_cuda::workload::StepReport {
                rss_bytes: Some(rss),
                ..Default::default()
            });
        }
        assert_eq!(judge_rss(&rec).text, "ok");
        rec.steps[3].child.as_mut().unwrap().rss_bytes = None;
        assert_eq!(judge_rss(&rec).text, "off at freed");
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
        assert_eq!(v[0].verdict, VerdictKind::CannotSee);
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
        assert_eq!(v[0].verdict, VerdictKind::CannotSee);
        assert!(!v[0].witness);
    }
}
