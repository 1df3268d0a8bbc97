//! `gpuledger explain PID`: everything known about one process — measured memory per device, what
//! it is and the evidence for it, its live server state, and (for AI runtimes) the estimate beside
//! the measurement, each in its own block.

mod runtime;

use crate::Global;
use gpuledger_lang::Said;
use gpuledger_model::explain::{group_of, EstimatedLedger, Explanation};
use gpuledger_model::units::human_opt;
use gpuledger_model::{Evidence, EvidenceKind, Snapshot as Snap};
use gpuledger_model::{Process, Snapshot, Workload};
use gpuledger_views::explain::{render_explain, render_explain_json};
use gpuledger_workloads::estimate::{
    compare_with_log, estimate, parse_llama_build, Estimate, LlamaSettings, Setting,
};
use gpuledger_workloads::gguf::GgufModel;
use gpuledger_workloads::identify::identify_in;
use gpuledger_workloads::live::LiveState;
use gpuledger_workloads::llama_log::parse_llama_log;
use gpuledger_workloads::process_estimate::{estimate_inputs, inputs_for};
use gpuledger_workloads::runtimes::query;
use gpuledger_workloads::runtimes::{self, Asked};
use std::process::ExitCode;
use std::time::Duration;

#[derive(clap::Args, Debug)]
pub struct Args {
    /// The process to explain (any PID; GPU memory is shown when a source reports some).
    pub pid: u32,
    /// Print the explanation as JSON.
    #[arg(long)]
    pub json: bool,
    /// Time limit for each loopback HTTP probe, in milliseconds.
    #[arg(long, default_value_t = 500, value_name = "MS", value_parser = clap::value_parser!(u64).range(1..=10_000))]
    pub probe_timeout_ms: u64,
    /// The runtime's log (llama-server started with `-lv 4`): its own buffer sizes are shown
    /// beside the estimate.
    #[arg(long, value_name = "FILE")]
    pub log: Option<std::path::PathBuf>,
}

/// A `--log` that cannot be read is said before anything is collected.
fn log_readable(log: Option<&std::path::Path>) -> anyhow::Result<()> {
    let Some(log) = log else { return Ok(()) };
    std::fs::metadata(log)
        .map_err(|e| crate::failed::with_file("cli-err-cannot-read-log", log, &e))?;
    Ok(())
}

pub fn run(args: &Args, global: &Global) -> anyhow::Result<ExitCode> {
    log_readable(args.log.as_deref())?;
    let (snap, replay) = global.snapshot()?;
    let (mut process, not_measured) = find_process(args, global, &snap, replay.as_deref())?;
    let mut workload = process
        .as_ref()
        .and_then(|p| p.workload.as_deref().cloned());
    if workload.is_none() && replay.is_none() {
        let procs = gpuledger_sources::procfs::ProcReader::new(&global.args.proc_root);
        let facts = gpuledger_sources::process_facts(&procs, args.pid);
        if let Some(p) = process.as_mut() {
            p.listen_ports = facts.listen_ports.clone();
        }
        workload = Some(identify_in(&facts, &procs));
    }

    let refusal = probe_refusal(global, args.pid, replay.is_some());
    let ports = api_ports(
        global,
        workload.as_ref(),
        process.as_ref(),
        replay.is_some(),
    );
    let (live, live_unavailable) = live_state(
        args,
        refusal.as_ref(),
        &mut workload,
        process.as_ref(),
        &ports,
    );

    let estimated = match (&mut workload, &process) {
        (Some(w), Some(p)) if gpuledger_workloads::runtimes::is_ai(w.kind) => {
            let may_probe = refusal.is_none();
            Some(estimated_ledger(
                args,
                global,
                p,
                w,
                live.as_ref(),
                &snap,
                may_probe,
            ))
        }
        _ => None,
    };

    let mut estimated = estimated;
    if let (Some(led), Some(p)) = (estimated.as_mut(), process.as_ref()) {
        if replay.is_some() && led.estimate.is_none() {
            led.recorded = p.estimate.as_deref().cloned();
        }
    }
    let group = group_of(&snap, args.pid, workload.as_ref());
    if let (Some(led), Some(g)) = (estimated.as_mut(), group.as_ref()) {
        defer_to_group(led, g, args.pid);
    }
    let e = Explanation {
        pid: args.pid,
        group,
        process,
        not_measured,
        workload,
        live,
        live_unavailable,
        estimated,
        replay: replay.is_some(),
    };
    if args.json {
        crate::commands::print(&render_explain_json(&e))?;
    } else {
        crate::commands::print(&render_explain(&e, &snap, global.lang))?;
    }
    Ok(ExitCode::SUCCESS)
}

/// One answer per workload: a root that holds no GPU memory of its own (vLLM's API server,
/// `ollama serve`) while members of its workload carry the estimate says so, with the group's
/// total, instead of a recipe of its own (which would size nothing, or say there is none).
fn defer_to_group(led: &mut EstimatedLedger, g: &gpuledger_model::explain::Group, pid: u32) {
    let holds_none = led.measured_gpu_bytes.unwrap_or(0) == 0;
    let others: Vec<&gpuledger_model::explain::GroupMember> = g
        .members
        .iter()
        .filter(|m| m.pid != pid && m.estimated_gpu_bytes.is_some())
        .collect();
    let (Some(total), true, false) = (g.estimated_gpu_bytes, holds_none, others.is_empty()) else {
        return;
    };
    if pid != g.root_pid {
        return;
    }
    let holders = others
        .iter()
        .map(|m| format!("pid {} ({})", m.pid, m.role))
        .collect::<Vec<_>>()
        .join(", ");
    led.estimate = None;
    led.runtime = None;
    led.measured_minus_estimated_bytes = None;
    led.recipe = None;
    led.why = None;
    led.not_modelled.clear();
    led.unavailable = Some(Said::new(
        "report-explain-deferred",
        vec![
            ("holders", holders.into()),
            ("total", gpuledger_model::units::human_bytes(total).into()),
        ],
    ));
}

/// The process as the snapshot has it; when no source measured it, read from /proc (a live
/// snapshot only) with the reason it is not in the measured ledger.
fn find_process(
    args: &Args,
    global: &Global,
    snap: &Snapshot,
    replay: Option<&str>,
) -> anyhow::Result<(Option<Process>, Option<Said>)> {
    if let Some(p) = snap.processes.iter().find(|p| p.pid == args.pid) {
        return Ok((Some(p.clone()), None));
    }
    if let Some(replay) = replay {
        let said = vec![
            ("pid", args.pid.to_string().into()),
            ("replay", replay.into()),
        ];
        return Err(crate::failed::failed("cli-err-pid-not-replayed", said));
    }
    // Not a GPU process by any source: still say what it is.
    let procs = gpuledger_sources::procfs::ProcReader::new(&global.args.proc_root);
    match procs.stat(args.pid) {
        Ok(_) => {}
        Err(e) if e.kind() == std::io::ErrorKind::NotFound => {
            let root = crate::failed::path(&global.args.proc_root);
            let said = vec![("pid", args.pid.to_string().into()), ("root", root)];
            return Err(crate::failed::failed("cli-err-no-such-pid", said));
        }
        // Malformed or unreadable: say so, with the file.
        Err(e) => {
            let said = vec![
                ("pid", args.pid.to_string().into()),
                ("error", e.to_string().into()),
            ];
            return Err(crate::failed::failed("cli-err-pid-unreadable", said));
        }
    }
    let mut p = Process::new(args.pid);
    procs.fill(&mut p);
    Ok((
        Some(p),
        Some(Said::new("report-explain-not-measured", vec![])),
    ))
}

/// Why the process's own API is not asked, or `None` when it may be: the same rule as
/// collection's ([`gpuledger_workloads::asking`]).
fn probe_refusal(global: &Global, pid: u32, replay: bool) -> Option<Said> {
    if replay {
        return Some(Said::new("report-live-replay", vec![]));
    }
    if global.args.no_probe {
        return Some(Said::new("report-live-no-probe", vec![]));
    }
    let procs = gpuledger_sources::procfs::ProcReader::new(&global.args.proc_root);
    gpuledger_workloads::asking::other_network(&procs, pid)
}

/// The ports to ask a process's runtime API on: its server's first when a title replaced its
/// command line (a vLLM worker's own ports are internal), then its own; the same ports the
/// estimate asks.
fn api_ports(global: &Global, w: Option<&Workload>, p: Option<&Process>, replay: bool) -> Vec<u16> {
    let (Some(w), Some(p)) = (w, p) else {
        return Vec::new();
    };
    if replay {
        return p.listen_ports.clone();
    }
    let procs = gpuledger_sources::procfs::ProcReader::new(&global.args.proc_root);
    runtimes::ProcessContext::read(p, w.kind, &procs, None).api_ports(&p.listen_ports, &procs)
}

/// The model server's live state from its HTTP API on loopback (its answer's evidence added to
/// the workload), or why there is none.
fn live_state(
    args: &Args,
    refusal: Option<&Said>,
    workload: &mut Option<Workload>,
    process: Option<&Process>,
    ports: &[u16],
) -> (Option<LiveState>, Option<Said>) {
    let unavailable = |key| (None, Some(Said::new(key, vec![])));
    let w = match (workload.as_mut(), process, refusal) {
        (_, _, Some(refusal)) => return (None, Some(refusal.clone())),
        (Some(w), Some(_), _) if gpuledger_workloads::runtimes::is_ai(w.kind) => w,
        _ => return unavailable("report-live-not-server"),
    };
    if ports.is_empty() {
        return unavailable("report-live-no-port");
    }
    let (state, ev) = query(w.kind, ports, Duration::from_millis(args.probe_timeout_ms));
    w.evidence.extend(ev);
    if state.is_some() {
        return (state, None);
    }
    let ports: Vec<String> = ports.iter().map(u16::to_string).collect();
    let why = Said::new(
        "report-live-no-answer",
        vec![
            ("kind", w.kind.label().into()),
            ("ports", ports.join(", ").into()),
        ],
    );
    (None, Some(why))
}

/// The estimated ledger: the runtime's own where it keeps one (vLLM, SGLang, PyTorch), else the
/// llama.cpp recipe on the inputs the process (or its runtime's API) gives, corrected by the live
/// server's answer, with the runtime's log beside it.
fn estimated_ledger(
    args: &Args,
    global: &Global,
    p: &Process,
    w: &mut Workload,
    live: Option<&LiveState>,
    snap: &Snap,
    may_probe: bool,
) -> EstimatedLedger {
    let mut led = EstimatedLedger::default();
    let measured: Vec<u64> = p.usage.iter().filter_map(|u| u.memory_bytes).collect();
    led.measured_gpu_bytes = (!measured.is_empty()).then(|| measured.iter().sum());
    let vendor = p
        .usage
        .iter()
        .find_map(|u| snap.device_by_uuid(&u.device))
        .map(|d| d.vendor);
    if let Some(r) = runtime::ledger(args, global, p, w, snap, may_probe) {
        match r {
            Ok(r) => led.set_runtime(r),
            Err(why) => led.unavailable = Some(why),
        }
        return led;
    }
    // Runtimes whose settings live in their own state (Ollama's runner, LM Studio's engine): ask
    // their API on loopback, then build the inputs from what it said.
    let asked = ask_runtime(args, global, p, w, may_probe);
    led.runtime_api_unavailable = asked.error().cloned();
    let inputs = runtimes::inputs_for(p, w, &global.args.proc_root, vendor, &asked)
        .unwrap_or_else(|| inputs_for(p, w, &global.args.proc_root, vendor));
    let mut inputs = match inputs {
        Ok(i) => i,
        Err(why) => {
            led.unavailable = Some(why);
            // No recipe, but the runtime's own figures still go beside the measurement.
            led.reported = runtimes::reported(p, w, &global.args.proc_root, &asked);
            return led;
        }
    };
    let fit_note = fit_at_load(&mut inputs, p, snap);
    if let Some(name) = &inputs.notes.model_name {
        w.evidence
            .push(model_named(name, inputs.notes.model_name_from.as_deref()));
    }
    let (gguf, path, mut settings) = (&inputs.model, &inputs.model_path, inputs.settings.clone());
    let mut est = match estimate_inputs(&inputs) {
        Ok(e) => e,
        Err(why) => {
            led.unavailable = Some(why);
            return led;
        }
    };
    // The server's own answer wins over flags and defaults (it may have fitted -c to memory).
    if let Some(l) = live {
        apply_live(l, gguf, &mut settings, &mut est);
    }
    crate::overhead::apply_probe(&mut est, settings.backend.value);
    est.notes.extend(fit_note);
    w.evidence.push(gguf_evidence(&est, path));
    if let Some(log) = &args.log {
        match super::read_log(log) {
            Ok(text) => led.runtime_reported = compare_with_log(&est, &parse_llama_log(&text)),
            Err(e) => w.missing.push(Said::new(
                "report-missing-log",
                vec![("error", format!("{e:#}").into())],
            )),
        }
    }
    if let Some(m) = led.measured_gpu_bytes {
        led.measured_minus_estimated_bytes = Some(m as i64 - est.total_gpu_bytes as i64);
    }
    led.recipe = inputs.notes.recipe.clone();
    led.why = inputs.notes.why(&est);
    led.reported = inputs.notes.reported.clone();
    led.not_modelled = inputs.notes.not_modelled.clone();
    led.estimate = Some(est);
    led
}

/// llama-server's `--fit` replayed for the memory free when the server loaded (one device).
fn fit_at_load(
    inputs: &mut gpuledger_workloads::process_estimate::ProcessInputs,
    p: &Process,
    snap: &Snapshot,
) -> Option<Said> {
    let [u] = p.usage.as_slice() else {
        return None;
    };
    let free = snap.device_by_uuid(&u.device)?.memory.free_bytes;
    gpuledger_workloads::process_estimate::replay_fit_at_load(inputs, free, u.memory_bytes)
}

/// What the runtime's own API on loopback says of the process, when it may be asked.
fn ask_runtime(args: &Args, global: &Global, p: &Process, w: &Workload, may_probe: bool) -> Asked {
    if !may_probe {
        return Asked::Nothing;
    }
    runtimes::ask(
        p,
        w,
        &global.args.proc_root,
        Duration::from_millis(args.probe_timeout_ms),
    )
}

/// Evidence that the runtime itself named the model, and where its name was read.
fn model_named(name: &str, from: Option<&str>) -> Evidence {
    Evidence {
        kind: EvidenceKind::ModelFile,
        showed: Said::new("report-ev-runtime-names", vec![("name", name.into())]),
        source: from.unwrap_or("the runtime's API").to_string(),
    }
}

/// The live server's build and context, where they differ from what the flags said, re-run
/// the estimate.
fn apply_live(l: &LiveState, gguf: &GgufModel, settings: &mut LlamaSettings, est: &mut Estimate) {
    // Its build picks the compute-buffer rules of that llama.cpp build.
    if let Some(b) = l.build.as_deref().and_then(parse_llama_build) {
        settings.llama_build = Setting::runtime(Some(b), "build_info from GET /props");
        if let Ok(e2) = estimate(gguf, settings) {
            *est = e2;
        }
    }
    if let (Some(n_ctx_slot), Some(slots)) = (l.n_ctx, l.total_slots) {
        if est.context.n_ctx_seq != n_ctx_slot || est.context.n_seq_max != slots {
            let total = if est.context.kv_unified {
                n_ctx_slot
            } else {
                n_ctx_slot * slots
            };
            settings.ctx_size = Setting::runtime(total, "n_ctx per slot × slots, from GET /props");
            settings.parallel = Setting::runtime(slots as i64, "total_slots from GET /props");
            if let Ok(e2) = estimate(gguf, settings) {
                *est = e2;
            }
        }
    }
}

/// What the model file's header showed.
fn gguf_evidence(est: &Estimate, path: &std::path::Path) -> Evidence {
    Evidence {
        kind: EvidenceKind::GgufHeader,
        showed: Said::new(
            "report-ev-gguf",
            vec![
                ("arch", est.model.architecture.as_str().into()),
                ("layers", est.model.n_layer.into()),
                ("size", human_opt(Some(est.model.file_bytes)).into()),
            ],
        ),
        source: path.display().to_string(),
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use gpuledger_model::explain::{Group, GroupMember};

    fn member(pid: u32, role: &str, estimated: Option<u64>) -> GroupMember {
        GroupMember {
            pid,
            role: role.into(),
            usage: Vec::new(),
            estimated_gpu_bytes: estimated,
        }
    }

    /// A vLLM server under a TP 2 group of 2 × 80 GiB: its explain says the members hold the
    /// model and gives the group's total, not a recipe of its own (`total ≥ 0.00 GiB`, or "no
    /// memory recipe" for `ollama serve`).
    #[test]
    fn a_server_that_holds_nothing_defers_to_its_group() {
        let g = Group {
            root_pid: 10,
            members: vec![
                member(10, "server", None),
                member(11, "worker TP0/2", Some(80 << 30)),
                member(12, "worker TP1/2", Some(80 << 30)),
            ],
            measured_gpu_bytes: 150 << 30,
            estimated_gpu_bytes: Some(160 << 30),
        };
        let mut led = EstimatedLedger {
            unavailable: Some("no memory recipe for Ollama yet".into()),
            ..EstimatedLedger::default()
        };
        defer_to_group(&mut led, &g, 10);
        let why = led.unavailable.clone().unwrap();
        assert!(
            why.contains("pid 11 (worker TP0/2), pid 12 (worker TP1/2) hold the model, 160 GiB estimated in all"),
            "{why}"
        );
        // A member, or a root that holds memory of its own, keeps its own answer.
        let mut led = EstimatedLedger::default();
        defer_to_group(&mut led, &g, 11);
        assert_eq!(led.unavailable, None);
        let mut led = EstimatedLedger {
            measured_gpu_bytes: Some(1 << 30),
            ..EstimatedLedger::default()
        };
        defer_to_group(&mut led, &g, 10);
        assert_eq!(led.unavailable, None);
    }
}
