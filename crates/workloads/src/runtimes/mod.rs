//! The estimated ledger for runtimes that are not llama.cpp: vLLM and SGLang (which reserve a
//! fraction of the GPU by design, then fill it with weights and a KV pool), and PyTorch programs
//! (ComfyUI, transformers scripts), where only the weight files can be known from outside.
//!
//! Each recipe returns the snapshot's [`EstimatedMemory`] (parts it cannot know are `None` and
//! named in `not_modelled`; the runtime's own figures go in `reported`, never into a part) plus
//! the inputs it used, each with where it came from.

pub mod hf;
pub mod pytorch;
pub mod sglang;
pub mod vllm;

use crate::live::Reply;
use gpuledger_model::{EstimatedMemory, Process, Workload, WorkloadKind};
use gpuledger_sources::regular::read_regular_prefix;
use serde::Serialize;
use std::path::{Path, PathBuf};

/// One input of a recipe and its source (`--gpu-memory-utilization`, `default (vLLM source)`,
/// `config.json`, `GET /metrics`).
#[derive(Debug, Clone, PartialEq, Eq, Serialize)]
pub struct Input {
    pub name: String,
    pub value: String,
    pub source: String,
}

impl Input {
    pub fn new(name: &str, value: impl ToString, source: impl Into<String>) -> Input {
        Input {
            name: name.into(),
            value: value.to_string(),
            source: source.into(),
        }
    }
}

/// A runtime's estimate: the snapshot's compact form and the inputs behind it.
#[derive(Debug, Clone, PartialEq, Serialize)]
pub struct RuntimeEstimate {
    pub summary: EstimatedMemory,
    pub inputs: Vec<Input>,
}

/// A loopback fetch (`live::get` in `explain`, canned answers in tests).
pub type Fetch<'a> = &'a dyn Fn(u16, &str) -> Result<Reply, String>;

/// What the recipes know about the process.
pub struct ProcessContext<'a> {
    pub pid: u32,
    pub proc_root: &'a Path,
    /// The redacted command line, or the nearest ancestor's when this process's was replaced by a
    /// title (`VLLM::EngineCore`, `VLLM::Worker_TP0`).
    pub argv: Vec<String>,
    /// Which process the command line came from, when it was an ancestor.
    pub argv_from: Option<u32>,
    pub cwd: Option<PathBuf>,
    pub env: Vec<(String, String)>,
    /// Measured total memory of the device the process runs on (the snapshot's device).
    pub device_total: Option<u64>,
    /// This machine's probed CUDA context cost and its label (`gpuledger probe --save`).
    pub overhead: Option<(u64, String)>,
    /// Ports to ask and how; `None` on the collection path (no HTTP there).
    pub fetch: Option<(&'a [u16], Fetch<'a>)>,
}

/// Does a command line name this runtime (so its flags are the ones to read)?
fn names_runtime(kind: WorkloadKind, argv: &[String]) -> bool {
    let j = argv.join(" ").to_ascii_lowercase();
    match kind {
        WorkloadKind::Vllm => {
            j.contains("vllm.entrypoints")
                || argv.iter().any(|a| a.rsplit('/').next() == Some("vllm"))
        }
        WorkloadKind::Sglang => j.contains("sglang.launch_server") || j.contains("sglang serve"),
        _ => !argv.is_empty(),
    }
}

fn parent_of(proc_root: &Path, pid: u32) -> Option<u32> {
    let raw =
        read_regular_prefix(&proc_root.join(pid.to_string()).join("status"), 64 << 10).ok()?;
    String::from_utf8_lossy(&raw)
        .lines()
        .find_map(|l| l.strip_prefix("PPid:"))
        .and_then(|v| v.trim().parse().ok())
        .filter(|&p: &u32| p > 1)
}

fn cmdline_of(proc_root: &Path, pid: u32) -> Vec<String> {
    read_regular_prefix(&proc_root.join(pid.to_string()).join("cmdline"), 256 << 10)
        .map(|raw| {
            gpuledger_model::redact_arg_list(&gpuledger_sources::procfs::split_cmdline(&raw))
        })
        .unwrap_or_default()
}

impl<'a> ProcessContext<'a> {
    /// Read what the recipes need for `p`: its command line (or, for vLLM/SGLang worker
    /// processes whose title replaced it, the nearest ancestor's, at most 4 levels up), working
    /// directory and the few environment names in [`hf::ENV_NAMES`].
    pub fn read(
        p: &Process,
        kind: WorkloadKind,
        proc_root: &'a Path,
        device_total: Option<u64>,
    ) -> ProcessContext<'a> {
        let mut argv = p.cmdline.clone().unwrap_or_default();
        let mut argv_from = None;
        let mut pid = p.pid;
        let mut env_pid = p.pid;
        for _ in 0..4 {
            if names_runtime(kind, &argv) {
                break;
            }
            let Some(pp) = parent_of(proc_root, pid) else {
                break;
            };
            let a = cmdline_of(proc_root, pp);
            pid = pp;
            if names_runtime(kind, &a) {
                argv = a;
                argv_from = Some(pp);
                env_pid = pp;
                break;
            }
        }
        let cwd = std::fs::read_link(proc_root.join(env_pid.to_string()).join("cwd")).ok();
        ProcessContext {
            pid: p.pid,
            proc_root,
            argv,
            argv_from,
            cwd,
            env: hf::process_env(proc_root, p.pid),
            device_total,
            overhead: None,
            fetch: None,
        }
    }

    /// Where the command line was read, for input sources.
    pub fn argv_source(&self) -> String {
        match self.argv_from {
            Some(pp) => format!(
                "/proc/{pp}/cmdline (the parent server; this process's title replaced its own)"
            ),
            None => format!("/proc/{}/cmdline", self.pid),
        }
    }
}

/// Kinds with a recipe here.
pub fn covers(kind: WorkloadKind) -> bool {
    matches!(
        kind,
        WorkloadKind::Vllm | WorkloadKind::Sglang | WorkloadKind::Pytorch | WorkloadKind::Comfyui
    )
}

/// The recipe for `w.kind`, or `None` when these runtimes do not cover it (llama.cpp has its
/// own recipe in [`crate::estimate`]).
pub fn estimate_for(ctx: &ProcessContext, w: &Workload) -> Option<Result<RuntimeEstimate, String>> {
    Some(match w.kind {
        WorkloadKind::Vllm => vllm::estimate_process(ctx),
        WorkloadKind::Sglang => sglang::estimate_process(ctx),
        WorkloadKind::Pytorch | WorkloadKind::Comfyui => pytorch::estimate_process(ctx, w),
        _ => return None,
    })
}

/// The runtime's own log figures for `kind` (`explain --log`), to go beside the estimate.
pub fn reported_from_log(
    kind: WorkloadKind,
    text: &str,
    source: &str,
) -> Vec<gpuledger_model::ReportedFigure> {
    match kind {
        WorkloadKind::Vllm => vllm::parse_log(text).reported(source),
        WorkloadKind::Sglang => sglang::parse_log(text).reported(source),
        _ => Vec::new(),
    }
}

/// Text for `explain`: the why sentence, the parts (unknown ones said so), the runtime's own
/// figures, what is not modelled, and the inputs with their sources.
pub fn render_text(r: &RuntimeEstimate) -> String {
    use std::fmt::Write;
    let s = &r.summary;
    let mut out = String::new();
    if let Some(why) = &s.why {
        let _ = writeln!(out, "{why}");
    }
    let _ = writeln!(out, "recipe {} · model {}", s.recipe, s.model);
    let part = |b: Option<u64>| {
        b.map(hf::gib)
            .unwrap_or_else(|| "n/a (not modelled)".into())
    };
    let _ = writeln!(out, "  weights            {}", hf::gib(s.weights_gpu_bytes));
    let _ = writeln!(out, "  KV cache           {}", part(s.kv_cache_gpu_bytes));
    let _ = writeln!(
        out,
        "  {:<18} {}",
        s.compute_label.as_deref().unwrap_or("compute"),
        part(s.compute_gpu_bytes)
    );
    let _ = match s.overhead_gpu_bytes {
        Some(b) => writeln!(
            out,
            "  overhead           {} ({})",
            hf::gib(b),
            s.overhead_source
        ),
        None => writeln!(out, "  overhead           n/a ({})", s.overhead_source),
    };
    let _ = writeln!(out, "  total              {}", hf::gib(s.total_gpu_bytes));
    if let Some(c) = s.n_ctx {
        let _ = writeln!(out, "  KV cache holds     {} tokens", hf::thousands(c));
    }
    if !s.reported.is_empty() {
        out.push_str("runtime reports (its own figures, not added to either ledger):\n");
        for f in &s.reported {
            let v = match (&f.bytes, &f.text) {
                (Some(b), Some(t)) => format!("{} ({t})", hf::gib(*b)),
                (Some(b), None) => hf::gib(*b),
                (None, Some(t)) => t.clone(),
                (None, None) => "?".into(),
            };
            let _ = writeln!(out, "  {}: {v}  — {}", f.what, f.source);
        }
    }
    for n in &s.not_modelled {
        let _ = writeln!(out, "not modelled: {n}");
    }
    out.push_str("inputs:\n");
    for i in &r.inputs {
        let _ = writeln!(out, "  {} = {}  ({})", i.name, i.value, i.source);
    }
    out
}
