//! `explain` for runtimes with their own recipe (vLLM, SGLang, PyTorch/ComfyUI): the estimate
//! from `gpuledger_workloads::runtimes`, with the server's loopback answers and `--log` figures
//! beside it (its text is `gpuledger_views::estimate::runtime`); the llama.cpp-based runtimes go
//! through the recipe in `mod.rs`.

use super::Args;
use crate::Global;
use gpuledger_lang::Said;
use gpuledger_model::{Process, Snapshot, Workload};
use gpuledger_workloads::live::get;
use gpuledger_workloads::runtimes::{self, ProcessContext, RuntimeEstimate};
use std::time::Duration;

/// The runtime's ledger, or `None` when `w.kind` has no recipe here.
pub(super) fn ledger(
    args: &Args,
    global: &Global,
    p: &Process,
    w: &Workload,
    snap: &Snapshot,
    may_probe: bool,
) -> Option<Result<RuntimeEstimate, Said>> {
    if !runtimes::covers(w.kind) {
        return None;
    }
    if global.args.replay.is_some() {
        // A replay shows what was estimated then; the live /proc is another moment.
        return Some(
            p.estimate
                .as_deref()
                .cloned()
                .map(|summary| RuntimeEstimate {
                    summary,
                    inputs: Vec::new(),
                })
                .ok_or_else(|| "replay: the snapshot carries no estimate for this process".into()),
        );
    }
    let device = p.usage.iter().find_map(|u| snap.device_by_uuid(&u.device));
    let device_total = device.and_then(|d| d.memory.total_bytes);
    let procs = gpuledger_sources::procfs::ProcReader::new(&global.args.proc_root);
    let mut ctx = ProcessContext::read(p, w.kind, &procs, device_total);
    ctx.device_capability = device.and_then(|d| d.compute_capability);
    ctx.overhead = crate::overhead::probed_context();
    let timeout = Duration::from_millis(args.probe_timeout_ms);
    let fetch = move |port: u16, path: &str| get(port, path, timeout);
    let ports = ctx.api_ports(&p.listen_ports, &procs);
    if may_probe && !ports.is_empty() {
        ctx.fetch = Some((&ports, &fetch));
    }
    // The log is read once: the release it names picks the runtime's rules (when the server
    // does not say), and its figures go beside the estimate.
    let log = args.log.as_ref().map(|l| {
        let read = crate::commands::read_log(l).map_err(|e| format!("runtime log {e:#}"));
        (l.display().to_string(), read)
    });
    if let Some((name, Ok(text))) = &log {
        ctx.log_version = runtimes::version_in_log(w.kind, text).map(|v| {
            let name = vec![("name", name.as_str().into())];
            (v, Said::new("cli-explain-log-given", name))
        });
        ctx.log_mxfp4_backend = runtimes::vllm::moe_quant::in_log(text, name);
    }
    let mut r = runtimes::estimate_for(&ctx, w)?;
    if let (Ok(est), Some((name, read))) = (&mut r, log) {
        match read {
            Ok(text) => est
                .summary
                .reported
                .extend(runtimes::reported_from_log(w.kind, &text, &name)),
            Err(e) => est.summary.not_modelled.push(e.into()),
        }
    }
    Some(r)
}
