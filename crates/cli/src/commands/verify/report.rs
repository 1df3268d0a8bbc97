//! What `verify` prints and saves, and the replay of a saved record.

use super::judge::{self, Record, SCHEMA};
use super::{exit_for, not_implemented, Args};
use crate::failed;
use gpuledger_cuda::workload::ChildDevice;
use gpuledger_lang::{Lang, Said};
use gpuledger_model::verdict::VerdictKind;
use gpuledger_views::verify::{render_verify, VerdictLine, VerifyDevice, VerifyReport};
use std::process::ExitCode;

pub fn save(args: &Args, rec: &Record, lang: Lang) -> anyhow::Result<()> {
    if let Some(path) = &args.save {
        let text = serde_json::to_string_pretty(rec)? + "\n";
        std::fs::write(path, text).map_err(|e| failed::cannot_write(path, &e))?;
        let said = [("path", path.display().to_string().into())];
        eprintln!("{}", lang.t_args("cli-verify-saved", &said));
    }
    Ok(())
}

pub fn emit(args: &Args, rec: &Record, lang: Lang) -> anyhow::Result<()> {
    save(args, rec, lang)?;
    let text = if args.json {
        serde_json::to_string_pretty(rec)? + "\n"
    } else {
        render(rec, None, lang)
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

pub fn replay(args: &Args, path: &std::path::Path, lang: Lang) -> anyhow::Result<ExitCode> {
    let text = crate::global::read_snapshot_text(path)?;
    let mut rec: Record = serde_json::from_str(&text)
        .map_err(|e| failed::with_file("cli-err-not-verify-record", path, &e))?;
    if rec.schema != SCHEMA {
        let said = vec![
            ("path", failed::path(path)),
            ("schema", format!("{:?}", rec.schema).into()),
            ("reads", format!("{SCHEMA:?}").into()),
        ];
        return Err(failed::failed("cli-err-verify-schema", said));
    }
    flag_old_tool_runs(&mut rec);
    let stored = std::mem::take(&mut rec.verdicts);
    rec.verdicts = judge::judge(&rec);
    rec.verdicts.extend(not_implemented());
    let changed: Vec<String> = rec
        .verdicts
        .iter()
        // What this build lacks is not a reading: it may change between builds.
        .filter(|v| v.verdict != VerdictKind::NotImplemented)
        .filter(|v| {
            !stored
                .iter()
                .any(|s| s.source == v.source && s.text == v.text)
        })
        .map(|v| v.source.clone())
        .collect();
    if !changed.is_empty() {
        let sources = vec![("sources", changed.join(", ").into())];
        rec.notes
            .push(Said::new("report-verify-rederived-differ", sources));
    }
    let text = if args.json {
        serde_json::to_string_pretty(&rec)? + "\n"
    } else {
        render(&rec, Some(&path.display().to_string()), lang)
    };
    crate::commands::print(&text)?;
    Ok(exit_for(&rec))
}

fn render(rec: &Record, replay: Option<&str>, lang: Lang) -> String {
    render_verify(&VerifyReport {
        replay: replay.map(|p| (p, rec.taken_at.as_str())),
        size_bytes: rec.size_bytes,
        tolerance_bytes: rec.tolerance_bytes,
        child_pid: rec.child_pid,
        device: rec.device.as_ref().map(verify_device),
        paths: rec
            .paths
            .iter()
            .map(|p| (p.path.as_str(), &p.why))
            .collect(),
        system_ledger: judge::target_uuid(rec)
            .ok()
            .and_then(|u| judge::system_ledger(rec, &u)),
        cpu_device: judge::cpu_device(rec),
        verdicts: rec
            .verdicts
            .iter()
            .map(|v| VerdictLine {
                source: &v.source,
                verdict: v.verdict,
                text: &v.text,
                witness: v.witness,
            })
            .collect(),
        notes: &rec.notes,
        lang,
    })
}

/// The workload's device as the report names it.
fn verify_device(d: &ChildDevice) -> VerifyDevice<'_> {
    match &d.vulkan {
        None => VerifyDevice::Cuda {
            ordinal: d.ordinal,
            name: &d.name,
            uuid: d.uuid.as_deref(),
            cuda_version: d.cuda_version.as_deref(),
        },
        Some(v) => VerifyDevice::Vulkan {
            ordinal: d.ordinal,
            name: &d.name,
            device_type: &v.device_type,
            driver_name: v.driver_name.as_deref(),
            driver_info: v.driver_info.as_deref(),
            pci_bus_id: v.pci_bus_id.as_deref(),
            api_version: &v.api_version,
        },
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
