//! What `verify` prints and saves, and the replay of a saved record.

use super::judge::{self, Record, SCHEMA};
use super::{exit_for, not_implemented, Args};
use anyhow::Context;
use gpuledger_cuda::workload::ChildDevice;
use gpuledger_model::units::human_bytes;
use std::process::ExitCode;

pub fn save(args: &Args, rec: &Record) -> anyhow::Result<()> {
    if let Some(path) = &args.save {
        let text = serde_json::to_string_pretty(rec)? + "\n";
        std::fs::write(path, text).with_context(|| format!("{}: cannot write", path.display()))?;
        eprintln!("saved the record to {}", path.display());
    }
    Ok(())
}

pub fn emit(args: &Args, rec: &Record) -> anyhow::Result<()> {
    save(args, rec)?;
    let text = if args.json {
        serde_json::to_string_pretty(rec)? + "\n"
    } else {
        render(rec, None)
    };
    crate::commands::print(&text)?;
    Ok(())
}

/// `gpuledger --replay RECORD.json verify`: re-derive the verdicts from the saved readings.
/// Records saved before `ToolRun` had `missing` and `timed_out` say so only in `error`, in
/// the runner's own words: read those once here, so they replay to the verdicts they were saved
/// with ("not installed" rather than "cannot see").
fn flag_old_tool_runs(rec: &mut Record) {
    for s in &mut rec.steps {
        for r in s.nvidia_smi.iter_mut().chain(s.witnesses.values_mut()) {
            let Some(e) = r.error.as_deref() else {
                continue;
            };
            if !(r.missing || r.timed_out) {
                r.missing = e.ends_with("is not installed (not on PATH)");
                r.timed_out = e.contains(" did not answer within ");
            }
        }
    }
}

pub fn replay(args: &Args, path: &std::path::Path) -> anyhow::Result<ExitCode> {
    let text = crate::global::read_snapshot_text(path)?;
    let mut rec: Record = serde_json::from_str(&text)
        .with_context(|| format!("{}: not a gpuledger verify record", path.display()))?;
    if rec.schema != SCHEMA {
        anyhow::bail!(
            "{}: schema {:?}, this gpuledger reads {SCHEMA:?}",
            path.display(),
            rec.schema
        );
    }
    flag_old_tool_runs(&mut rec);
    let stored = std::mem::take(&mut rec.verdicts);
    rec.verdicts = judge::judge(&rec);
    rec.verdicts.extend(not_implemented());
    let changed: Vec<String> = rec
        .verdicts
        .iter()
        // "not implemented" is what this build lacks, not a reading: it may change between builds.
        .filter(|v| v.verdict != "not implemented")
        .filter(|v| {
            !stored
                .iter()
                .any(|s| s.source == v.source && s.text == v.text)
        })
        .map(|v| v.source.clone())
        .collect();
    if !changed.is_empty() {
        rec.notes.push(format!(
            "re-derived verdicts differ from the saved ones for: {}",
            changed.join(", ")
        ));
    }
    let text = if args.json {
        serde_json::to_string_pretty(&rec)? + "\n"
    } else {
        render(&rec, Some(&path.display().to_string()))
    };
    crate::commands::print(&text)?;
    Ok(exit_for(&rec))
}

fn render(rec: &Record, replay: Option<&str>) -> String {
    let mut s = String::new();
    if let Some(p) = replay {
        s.push_str(&format!("REPLAY of {p} (recorded {})\n", rec.taken_at));
    }
    let dev = rec
        .device
        .as_ref()
        .map(device_line)
        .unwrap_or_else(|| "?".into());
    s.push_str(&format!(
        "gpuledger verify: {} allocated and written by PID {} on {dev}\n",
        human_bytes(rec.size_bytes),
        rec.child_pid.map(|p| p.to_string()).unwrap_or("?".into())
    ));
    for p in &rec.paths {
        s.push_str(&format!("  path {}: {}\n", p.path, p.why));
    }
    if let Some(why) = judge::target_uuid(rec)
        .ok()
        .and_then(|u| judge::system_ledger(rec, &u))
    {
        s.push_str(&format!("  judged on system memory (GTT): {why}\n"));
    }
    if let Some(driver) = judge::cpu_device(rec) {
        s.push_str(&format!(
            "expected: nothing any source can see: {driver} is a CPU device, its memory is the host's (no VRAM, no GPU counter).\n\n"
        ));
    } else {
        s.push_str(&format!(
        "expected: the child absent, then listed with a context, +{0} when it allocates, -{0} when it frees, gone after it exits; device used moving with it; unattributed not moving. Tolerance {1} (2 MiB allocation granularity plus driver bookkeeping).\n\n",
        human_bytes(rec.size_bytes),
        human_bytes(rec.tolerance_bytes)
    ));
    }
    let w = rec
        .verdicts
        .iter()
        .map(|v| v.source.len())
        .max()
        .unwrap_or(10);
    for v in &rec.verdicts {
        s.push_str(&format!(
            "  {:w$}  {}{}\n",
            v.source,
            v.text,
            if v.witness
                && !["not implemented", "not run", "not installed"].contains(&v.verdict.as_str())
            {
                "  [second witness]"
            } else {
                ""
            }
        ));
    }
    for n in &rec.notes {
        s.push_str(&format!("note: {n}\n"));
    }
    s
}

/// `CUDA device 0 NVIDIA H200 (GPU-…), CUDA 12.4`, or the Vulkan device with its type, driver
/// and PCI address.
fn device_line(d: &ChildDevice) -> String {
    match &d.vulkan {
        None => format!(
            "CUDA device {} {} ({}), CUDA {}",
            d.ordinal,
            d.name,
            d.uuid.as_deref().unwrap_or("no UUID"),
            d.cuda_version.as_deref().unwrap_or("?")
        ),
        Some(v) => format!(
            "Vulkan device {} {} ({}{}, PCI {}), Vulkan {}",
            d.ordinal,
            d.name,
            v.device_type,
            [&v.driver_name, &v.driver_info]
                .iter()
                .filter_map(|x| x.as_deref())
                .map(|x| format!(", {x}"))
                .collect::<String>(),
            v.pci_bus_id.as_deref().unwrap_or("not reported"),
            v.api_version
        ),
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn records_from_before_the_flags_get_them_from_their_words() {
        let path = std::path::Path::new(env!("CARGO_MANIFEST_DIR"))
            .join("../../fixtures/verify/fake-nvml-double-count.json");
        let mut rec: Record =
            serde_json::from_str(&std::fs::read_to_string(path).unwrap()).unwrap();
        let smi = |rec: &Record| rec.steps[0].nvidia_smi.clone().unwrap();
        assert!(
            !smi(&rec).missing,
            "the committed record predates the flags"
        );
        flag_old_tool_runs(&mut rec);
        assert!(smi(&rec).missing && !smi(&rec).timed_out);
    }
}
