//! `gpuledger selftest`: each source, found or not, what it sees, what it cannot see and why.

use crate::Global;
use gpuledger_lang::{Lang, Said};
use gpuledger_model::{Device, Snapshot, SourceState, Usage};
use std::fmt::Write;
use std::process::ExitCode;

#[derive(clap::Args, Debug)]
pub struct Args {
    /// Print the findings as JSON.
    #[arg(long)]
    pub json: bool,
}

#[derive(serde::Serialize)]
struct Finding {
    source: String,
    status: SourceState,
    /// A source's own sentences said in the reader's language in the text; JSON has the English.
    sees: Vec<Said>,
    cannot_see: Vec<Said>,
}

pub fn run(args: &Args, global: &Global) -> anyhow::Result<ExitCode> {
    if global.args.replay.is_some() {
        let said = Said::new("cli-err-selftest-replay", vec![]);
        return Err(crate::Usage(said).into());
    }
    let snap = global.collector().collect();
    let mut findings = findings(&snap);
    findings.push(probe_finding());
    // The build, so a pasted report says what was run (last: the sources keep their places).
    findings.push(Finding {
        source: "gpuledger".into(),
        status: SourceState::Ok,
        sees: vec![Said::new(
            "report-selftest-version",
            vec![("version", crate::VERSION.into())],
        )],
        cannot_see: Vec::new(),
    });
    if args.json {
        crate::commands::print(&format!("{}\n", serde_json::to_string_pretty(&findings)?))?;
    } else {
        crate::commands::print(&render(&snap, &findings, global.lang))?;
    }
    Ok(ExitCode::SUCCESS)
}

fn findings(snap: &Snapshot) -> Vec<Finding> {
    snap.sources
        .iter()
        .map(|s| {
            let mut sees = Vec::new();
            let mut cannot = Vec::new();
            match s.status {
                SourceState::Ok => sees.push(s.detail.clone()),
                _ => cannot.push(s.detail.clone()),
            }
            if s.name == "nvml" && s.status == SourceState::Ok {
                for d in snap.devices.iter().filter(|d| d.source == "nvml") {
                    sees.push(format!("{}: {}", d.label(), d.uuid).into());
                    device_gaps(d, &mut cannot);
                }
                process_gaps(snap, |_| true, &mut cannot);
            }
            if s.name == "drm" {
                for d in snap
                    .devices
                    .iter()
                    .filter(|d| d.source == "sysfs" || d.source == "fdinfo")
                {
                    let state = d
                        .power_state
                        .as_deref()
                        .map(|p| format!(" ({p})"))
                        .unwrap_or_default();
                    sees.push(format!("{}: {}{state}", d.label(), d.uuid).into());
                    device_gaps(d, &mut cannot);
                }
                process_gaps(snap, |u| u.memory_source == "fdinfo", &mut cannot);
            }
            Finding {
                source: s.name.clone(),
                status: s.status,
                sees,
                cannot_see: cannot,
            }
        })
        .collect()
}

/// What a device could not report, and why.
fn device_gaps(d: &Device, cannot: &mut Vec<Said>) {
    for (f, why) in &d.unavailable {
        cannot.push(format!("GPU{} {f}: {why}", d.index).into());
    }
}

/// Why per-process memory was unavailable, once per distinct reason, for the usages `of` keeps.
fn process_gaps(snap: &Snapshot, of: impl Fn(&Usage) -> bool, cannot: &mut Vec<Said>) {
    let mut reasons: Vec<&Said> = snap
        .processes
        .iter()
        .flat_map(|p| &p.usage)
        .filter(|u| of(u))
        .filter_map(|u| u.unavailable_reason.as_ref())
        .collect();
    // Once per distinct English (a reason read back from JSON has no key, but the same words).
    reasons.sort_by(|a, b| a.as_str().cmp(b.as_str()));
    reasons.dedup_by(|a, b| a.as_str() == b.as_str());
    for r in reasons {
        let args = vec![("reason", r.clone().into())];
        cannot.push(Said::new("report-selftest-process-gap", args));
    }
}

/// Whether `gpuledger probe --save` has measured this machine, and how long ago.
fn probe_finding() -> Finding {
    use gpuledger_cuda::store::{status, ProbeStatus};
    let (state, line) = match super::probe::saved_path(None) {
        None => (
            SourceState::Unavailable,
            gpuledger_lang::Said::new("report-probe-no-dir", vec![]),
        ),
        Some(path) => {
            let st = status(&path, std::time::SystemTime::now());
            let state = match st {
                ProbeStatus::Present { .. } => SourceState::Ok,
                ProbeStatus::Missing { .. } => SourceState::Unavailable,
                ProbeStatus::Unreadable { .. } => SourceState::Error,
            };
            (state, st.summary())
        }
    };
    let (sees, cannot_see) = if state == SourceState::Ok {
        (vec![line], Vec::new())
    } else {
        (Vec::new(), vec![line])
    };
    Finding {
        source: "probe".into(),
        status: state,
        sees,
        cannot_see,
    }
}

fn render(snap: &Snapshot, findings: &[Finding], lang: Lang) -> String {
    let mut out = String::new();
    let unknown_host = lang.t("report-unknown-host");
    let host = gpuledger_views::term_safe(snap.host.hostname.as_deref().unwrap_or(&unknown_host));
    let kernel = gpuledger_views::term_safe(snap.host.kernel.as_deref().unwrap_or("unknown"));
    let args = [
        ("version", crate::VERSION.into()),
        ("host", (&*host).into()),
        ("kernel", (&*kernel).into()),
    ];
    let title = if snap.host.wsl {
        "report-selftest-title-wsl"
    } else {
        "report-selftest-title"
    };
    let _ = writeln!(out, "{}", lang.t_args(title, &args));
    for f in findings {
        let mark = lang.t(match f.status {
            SourceState::Ok => "report-selftest-ok",
            SourceState::Unavailable => "report-selftest-not-found",
            SourceState::Error => "report-selftest-error",
        });
        let _ = writeln!(out, "\n[{mark}] {}", f.source);
        for s in &f.sees {
            let line = lang.t_args("report-selftest-sees", &[("what", s.in_lang(lang).into())]);
            let _ = writeln!(out, "  {line}");
        }
        for c in &f.cannot_see {
            let what = c.in_lang(lang);
            let line = lang.t_args("report-selftest-cannot-see", &[("what", what.into())]);
            let _ = writeln!(out, "  {line}");
        }
    }
    if !snap.notes.is_empty() {
        let _ = writeln!(out, "\n{}", lang.t("report-est-notes"));
        for n in &snap.notes {
            let _ = writeln!(out, "  - {}", n.in_lang(lang));
        }
    }
    out
}
