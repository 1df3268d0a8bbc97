//! `gpuledger explain PID`: everything known about one process — measured memory per device, what
//! it is and the evidence for it, its live server state, and (for AI runtimes) the estimate beside
//! the measurement, each in its own block.

use crate::Global;
use gpuledger_model::units::human_opt;
use gpuledger_model::{Process, Snapshot, Workload};
use gpuledger_workloads::identify::identify;
use gpuledger_workloads::live::{probe, LiveState};
use serde::Serialize;
use std::fmt::Write;
use std::process::ExitCode;
use std::time::Duration;

#[derive(clap::Args, Debug)]
pub struct Args {
    /// The process to explain (any PID; GPU memory is shown when a source reports some).
    pub pid: u32,
    /// Print the explanation as JSON.
    #[arg(long)]
    pub json: bool,
    /// Do not ask the process's HTTP API (llama-server /props, Ollama /api/ps, ...) on loopback.
    #[arg(long)]
    pub no_probe: bool,
    /// Time limit for each loopback HTTP probe, in milliseconds.
    #[arg(long, default_value_t = 500, value_name = "MS", value_parser = clap::value_parser!(u64).range(1..=10_000))]
    pub probe_timeout_ms: u64,
}

#[derive(Serialize)]
struct Explanation {
    pid: u32,
    /// The process as the snapshot has it (measured usage per device, metadata).
    process: Option<Process>,
    /// Why the process is not in the measured ledger, when it is not.
    #[serde(skip_serializing_if = "Option::is_none")]
    not_measured: Option<String>,
    workload: Option<Workload>,
    live: Option<LiveState>,
    /// Why there is no live state.
    #[serde(skip_serializing_if = "Option::is_none")]
    live_unavailable: Option<String>,
    replay: bool,
}

pub fn run(args: &Args, global: &Global) -> anyhow::Result<ExitCode> {
    let (snap, replay) = global.snapshot()?;
    let in_snap = snap.processes.iter().find(|p| p.pid == args.pid).cloned();
    let mut process = in_snap.clone();
    let mut not_measured = None;
    if process.is_none() {
        if replay.is_some() {
            anyhow::bail!(
                "pid {} is not in the replayed snapshot {}",
                args.pid,
                replay.unwrap_or_default()
            );
        }
        // Not a GPU process by any source: still say what it is.
        let procs = gpuledger_sources::procfs::ProcReader::new(&global.args.proc_root);
        if procs.stat(args.pid).is_err() {
            anyhow::bail!(
                "no process {} in {}",
                args.pid,
                global.args.proc_root.display()
            );
        }
        let mut p = Process::new(args.pid);
        procs.fill(&mut p);
        process = Some(p);
        not_measured = Some("no source reports GPU memory for this process".to_string());
    }
    let mut workload = process.as_ref().and_then(|p| p.workload.clone());
    if workload.is_none() && replay.is_none() {
        let procs = gpuledger_sources::procfs::ProcReader::new(&global.args.proc_root);
        let facts = procs.facts(args.pid);
        if let Some(p) = process.as_mut() {
            p.listen_ports = facts.listen_ports.clone();
        }
        workload = Some(identify(&facts));
    }

    let (mut live, mut live_unavailable) = (None, None);
    match (&workload, &process) {
        _ if replay.is_some() => {
            live_unavailable = Some("replay: the live server is not asked".to_string())
        }
        _ if args.no_probe => live_unavailable = Some("--no-probe given".to_string()),
        (Some(w), Some(p)) if w.kind.is_ai() => {
            if p.listen_ports.is_empty() {
                live_unavailable =
                    Some("the process listens on no TCP port we can see".to_string());
            } else {
                let (state, ev) = probe(
                    w.kind,
                    &p.listen_ports,
                    Duration::from_millis(args.probe_timeout_ms),
                );
                if let Some(w) = workload.as_mut() {
                    w.evidence.extend(ev);
                }
                if state.is_none() {
                    live_unavailable = Some(format!(
                        "no {} API answered on port(s) {}",
                        workload
                            .as_ref()
                            .map(|w| w.kind.label())
                            .unwrap_or("server"),
                        p.listen_ports
                            .iter()
                            .map(u16::to_string)
                            .collect::<Vec<_>>()
                            .join(", ")
                    ));
                }
                live = state;
            }
        }
        _ => live_unavailable = Some("not a model server".to_string()),
    }

    let e = Explanation {
        pid: args.pid,
        process,
        not_measured,
        workload,
        live,
        live_unavailable,
        replay: replay.is_some(),
    };
    if args.json {
        println!("{}", serde_json::to_string_pretty(&e)?);
    } else {
        print!("{}", render(&e, &snap));
    }
    Ok(ExitCode::SUCCESS)
}

fn render(e: &Explanation, snap: &Snapshot) -> String {
    let mut out = String::new();
    let p = e.process.as_ref();
    let _ = writeln!(
        out,
        "gpuledger explain {} · {} · user {}{}",
        e.pid,
        p.map(|p| p.display_name()).unwrap_or("?"),
        p.and_then(|p| p.user.as_deref()).unwrap_or("?"),
        if e.replay { " · REPLAY" } else { "" }
    );
    if let Some(cmd) = p.and_then(|p| p.cmdline.as_ref()) {
        let _ = writeln!(out, "  command: {}", cmd.join(" "));
    }

    out.push_str("\nMEASURED (reported by the driver)\n");
    match (&e.not_measured, p) {
        (Some(why), _) => {
            let _ = writeln!(out, "  {why}");
        }
        (None, Some(p)) => {
            for u in &p.usage {
                let dev = snap
                    .device_by_uuid(&u.device)
                    .map(|d| d.label())
                    .unwrap_or_else(|| u.device.clone());
                let _ = write!(
                    out,
                    "  {dev}: {} ({}, {})",
                    human_opt(u.memory_bytes),
                    u.memory_source,
                    u.kinds_label()
                );
                if let Some(sm) = u.engines.sm_percent {
                    let _ = write!(out, ", SM {sm}%");
                }
                out.push('\n');
                if let Some(r) = &u.unavailable_reason {
                    let _ = writeln!(out, "    memory n/a: {r}");
                }
            }
        }
        _ => {}
    }

    out.push_str("\nWHAT IT IS (identification, with evidence)\n");
    match &e.workload {
        Some(w) => {
            let _ = writeln!(out, "  {} (confidence {:?})", w.short_label(), w.confidence);
            for ev in &w.evidence {
                let _ = writeln!(out, "    [{:?}] {}  — {}", ev.kind, ev.showed, ev.source);
            }
            for m in &w.missing {
                let _ = writeln!(out, "    missing: {m}");
            }
        }
        None => out.push_str("  not identified\n"),
    }

    out.push_str("\nLIVE STATE (the runtime's own API, loopback only)\n");
    match (&e.live, &e.live_unavailable) {
        (Some(l), _) => {
            let _ = writeln!(out, "  {} on 127.0.0.1:{}", l.server, l.port);
            if l.auth_required {
                out.push_str(
                    "  the server requires an API key (HTTP 401); gpuledger does not send one\n",
                );
            }
            if let Some(c) = l.n_ctx {
                let _ = writeln!(out, "  context size: {c}");
            }
            match (l.slots_busy, l.total_slots) {
                (Some(b), Some(t)) => {
                    let _ = writeln!(out, "  slots: {b} busy of {t}");
                }
                (None, Some(t)) => {
                    let _ = writeln!(out, "  slots: {t}");
                }
                _ => {}
            }
            if let Some(t) = l.tokens_per_second {
                let _ = writeln!(out, "  tokens per second: {t:.1}");
            }
            if let Some(m) = &l.model_path {
                let _ = writeln!(out, "  model: {m}");
            }
            for m in &l.models {
                let _ = writeln!(
                    out,
                    "  loaded: {} (runtime says {} in VRAM, context {})",
                    m.name,
                    human_opt(m.vram_bytes),
                    m.context_length
                        .map(|c| c.to_string())
                        .unwrap_or_else(|| "n/a".into())
                );
            }
            for u in &l.unavailable {
                let _ = writeln!(out, "  n/a: {u}");
            }
        }
        (None, Some(why)) => {
            let _ = writeln!(out, "  n/a: {why}");
        }
        (None, None) => {}
    }
    out
}
