//! The second witnesses' verdicts: nvidia-smi's compute-apps list on the CUDA path, and the AMD
//! and Intel tools (amd-smi, rocm-smi, xpu-smi) on either, each judged with the sources'
//! expectations from the raw output the record keeps.

use super::device::target_pci;
use super::record::{Record, ToolRun, Verdict};
use super::series::{judge_device, judge_process, Seen};
use gpuledger_lang::Said;
use gpuledger_model::verdict::{SourceScope, VerdictKind};

impl Verdict {
    /// `cannot see (why)`.
    pub(super) fn cannot_see(source: String, why: impl Into<Said>, witness: bool) -> Verdict {
        Verdict {
            source,
            verdict: VerdictKind::CannotSee,
            text: Said::new("report-verify-cannot-see", vec![("why", why.into().into())]),
            witness,
            checks: Vec::new(),
        }
    }
}

/// `nvidia-smi --query-compute-apps=pid,used_memory --format=csv`: the child's row, in bytes
/// (nvidia-smi prints MiB).
pub(super) fn smi_seen(run: &ToolRun, pid: u32) -> Result<Seen, Said> {
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
            Err(_) => Seen::Unknown(super::vendor::prints("nvidia-smi", format!("{mem:?}"))),
        });
    }
    Ok(Seen::Absent)
}

/// A step where the tool was not run.
fn not_run() -> Said {
    Said::new("report-verify-tool-not-run", vec![])
}

pub(super) fn smi_not_run() -> Verdict {
    Verdict {
        source: "nvidia-smi".into(),
        verdict: VerdictKind::NotRun,
        text: Said::new("report-verify-smi-not-run", vec![]),
        witness: true,
        checks: Vec::new(),
    }
}

/// nvidia-smi's verdict on the CUDA path: the child's row in its compute-apps list, each round.
pub(super) fn smi_verdict(rec: &Record, pid: u32) -> Verdict {
    let (n, tol) = (rec.size_bytes, rec.tolerance_bytes);
    let runs: Vec<Option<&ToolRun>> = rec.steps.iter().map(|s| s.nvidia_smi.as_ref()).collect();
    let smi: Result<Vec<Seen>, Said> = runs
        .iter()
        .map(|r| r.ok_or_else(not_run).and_then(|r| smi_seen(r, pid)))
        .collect();
    match smi {
        Ok(series) => judge_process("nvidia-smi", &series, n, tol + (1 << 20), true),
        Err(why) => Verdict::cannot_see("nvidia-smi".into(), why, true),
    }
}

/// The AMD and Intel tools' verdicts, each beside the sources' as nvidia-smi's is: the child's
/// memory per step (`TOOL (per process)`) and the device's used VRAM (`TOOL (device used)`),
/// judged with the same expectations. A tool that is not installed gets one line saying so;
/// records from before these tools were asked get none.
pub(super) fn vendor_verdicts(rec: &Record, pid: u32) -> Vec<Verdict> {
    use super::vendor::{device_used, process_seen, WITNESSES};
    let (n, tol) = (rec.size_bytes, rec.tolerance_bytes);
    let mut out = Vec::new();
    let cannot = |source: String, why: Said| Verdict::cannot_see(source, why, true);
    for (tool, pq, dq) in WITNESSES {
        let runs = |q: &str| -> Vec<Option<&ToolRun>> {
            rec.steps.iter().map(|s| s.witnesses.get(q)).collect()
        };
        let (pr, dr) = (runs(pq), runs(dq));
        if pr.iter().all(Option::is_none) {
            continue;
        }
        let missing = |r: &Option<&ToolRun>| r.is_some_and(|r| r.missing);
        if pr.iter().all(missing) {
            out.push(Verdict {
                source: tool.into(),
                verdict: VerdictKind::NotInstalled,
                text: Said::new("report-verify-not-installed", vec![("tool", tool.into())]),
                witness: true,
                checks: Vec::new(),
            });
            continue;
        }
        let series: Result<Vec<Seen>, Said> = pr
            .iter()
            .map(|r| r.ok_or_else(not_run).and_then(|r| process_seen(pq, r, pid)))
            .collect();
        let source = SourceScope::PerProcess.label(tool);
        out.push(match series {
            // xpu-smi prints kB, amd-smi and rocm-smi bytes: a little more room, as for nvidia-smi.
            Ok(series) => judge_process(&source, &series, n, tol + (1 << 20), true),
            Err(why) => cannot(source, why),
        });
        let source = SourceScope::DeviceUsed.label(tool);
        if dr.iter().all(Option::is_none) {
            let why = Said::new("report-verify-pci-unknown-not-asked", vec![]);
            out.push(cannot(source, why));
            continue;
        }
        let used: Result<Vec<Option<u64>>, Said> = rec
            .steps
            .iter()
            .zip(&dr)
            .map(|(s, r)| {
                let r = r.ok_or_else(not_run)?;
                let bdf = target_pci(rec, &s.snapshot)
                    .ok_or_else(|| Said::new("report-verify-pci-address-unknown", vec![]))?;
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
