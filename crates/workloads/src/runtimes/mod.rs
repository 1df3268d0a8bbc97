//! Runtimes beyond llama-server, and what each adds to the estimated ledger.
//!
//! - Runtimes that run the llama.cpp recipe with settings of their own ([`ollama`]'s runner,
//!   [`lmstudio`]'s engine): where each llama.cpp context parameter comes from for them, their own
//!   figures (`reported`), and the sentence that says why the process holds that much.
//! - Runtimes with recipes of their own: [`vllm`] and [`sglang`] (which reserve a fraction of the
//!   GPU by design, then fill it with weights and a KV pool; what they share is in
//!   [`reservation`]) and [`pytorch`] programs (ComfyUI, transformers scripts), where only the
//!   weight files can be known from outside; [`hf`] finds their model folders (through the
//!   process's own root). Each returns the snapshot's [`EstimatedMemory`] (parts it cannot know
//!   are `None` and named in `not_modelled`; the runtime's own figures go in `reported`, never into
//!   a part) plus the inputs it used, each with where it came from.
//!
//! Each runtime lives in one folder (`llamacpp`, `ollama`, `lmstudio`, `vllm`, `sglang`,
//! `pytorch`, `mlx`) holding how it is recognised, how its API is asked, and its recipe, behind
//! the one [`Runtime`] trait; [`RUNTIMES`] registers them, and every fact about a kind (AI or
//! not, a server or not, its libraries, its workers' roles) is derived from that registration
//! ([`Registry`]). Adding a runtime: a folder with a type that implements [`Runtime`] and one
//! line in [`RUNTIMES`] (see the crate's README, "Adding a runtime"), plus its kind's name in
//! `gpuledger_model::WorkloadKind` when no existing kind fits: the JSON name records carry.
//!
//! This file: the registry and the dispatch to it, what was asked of a runtime's API ([`Asked`];
//! the per-port loop is in `loopback`), the process context the recipes read, and the helpers the
//! runtimes share.

pub mod hf;
pub mod llamacpp;
pub mod lmstudio;
mod loopback;
pub mod mlx;
pub mod ollama;
mod pyargs;
pub mod pytorch;
mod registry;
pub mod reservation;
mod runtime;
pub mod sglang;
pub mod vllm;

pub use registry::{same as same_library, Registry};
pub use runtime::{model_arg, Api, AskApi, Library, MpLayout, MpPlace, Recipe, Runtime, Seen};

/// Every runtime, in the order identification tries them (the first that recognises a process
/// wins). Adding a runtime adds one line here.
pub static RUNTIMES: Registry = Registry(&[
    &llamacpp::LlamaCpp,
    &ollama::Ollama,
    &lmstudio::LmStudio,
    &vllm::Vllm,
    &sglang::Sglang,
    &pytorch::Pytorch,
    &mlx::Mlx,
]);

/// The runtime that owns `kind`.
pub fn for_kind(kind: WorkloadKind) -> Option<&'static dyn Runtime> {
    RUNTIMES.for_kind(kind)
}

/// Whether `kind` is an AI workload: one a registered runtime owns ([`Registry::is_ai`]).
pub fn is_ai(kind: WorkloadKind) -> bool {
    RUNTIMES.is_ai(kind)
}

/// The command line as the runtime of `kind` reads it ([`Runtime::read_args`]).
pub(crate) fn read_args(
    kind: WorkloadKind,
    argv: &[String],
    proc_root: &Path,
    pid: u32,
) -> (Vec<String>, Option<Said>) {
    RUNTIMES.read_args(kind, argv, proc_root, pid)
}

/// Whether a command line alone names the runtime of `kind` ([`Runtime::names_argv`]).
pub(crate) fn names_argv(kind: WorkloadKind, argv: &[String]) -> bool {
    RUNTIMES.names_argv(kind, argv)
}

/// The live state: ask the endpoints `kind` is known to serve on each of `ports`; the first port that answers
/// like that server wins. Returns the state and the evidence the answers gave.
pub fn query(
    kind: WorkloadKind,
    ports: &[u16],
    timeout: Duration,
) -> (Option<LiveState>, Vec<Evidence>) {
    query_with(kind, ports, &|port, path| {
        crate::live::get(port, path, timeout)
    })
}

/// [`query`] over any transport (tests pass canned answers).
pub fn query_with(
    kind: WorkloadKind,
    ports: &[u16],
    fetch: &dyn Fn(u16, &str) -> Result<Reply, String>,
) -> (Option<LiveState>, Vec<Evidence>) {
    let mut evidence = Vec::new();
    let Some(runtime) = for_kind(kind) else {
        return (None, evidence);
    };
    for &port in ports {
        let state = runtime.query(port, fetch, &mut evidence);
        if state.is_some() {
            return (state, evidence);
        }
    }
    (None, evidence)
}

/// A process title set with setproctitle: the name the kernel has, or a command line of one
/// word (`VLLM::Worker_TP1`, `sglang::scheduler_TP0`).
pub(crate) fn title_of<'a>(own: &Seen<'a>) -> Option<&'a str> {
    match own.args {
        [one] if one.contains("::") => Some(one.trim()),
        _ => own.comm.contains("::").then_some(own.comm),
    }
}

/// A title's `_`-separated parts as words, a tensor-parallel rank with the size the root's
/// flags give (`scheduler_TP0` with `--tp-size 2` → `scheduler TP0/2`).
pub(crate) fn title_role(parts: &str, tp: Option<&str>) -> String {
    let words: Vec<String> = parts
        .split('_')
        .filter(|p| !p.is_empty())
        .map(|p| match (p.starts_with("TP"), tp) {
            (true, Some(n)) => format!("{p}/{n}"),
            _ => p.to_string(),
        })
        .collect();
    words.join(" ")
}

/// The runtime whose settings a process runs with: its own kind's, except the upstream
/// llama-server that `ollama serve` starts (v0.30+), which runs with Ollama's.
fn engine_of(w: &Workload) -> Option<&'static dyn Runtime> {
    if w.kind == WorkloadKind::LlamaCpp && ollama::serve_parent(w).is_some() {
        return Some(&ollama::Ollama);
    }
    for_kind(w.kind)
}

use crate::estimate::Estimate;
use crate::live::{LiveState, Reply};
use crate::runtimes::llamacpp::ProcessInputs;
use gpuledger_lang::Said;
use gpuledger_model::units::human_opt;
use gpuledger_model::{
    EstimatedMemory, Evidence, Process, ReportedFigure, Vendor, Workload, WorkloadKind,
};
use gpuledger_sources::procfs::ProcReader;
use std::path::{Path, PathBuf};
use std::time::Duration;

/// What was asked of a runtime's own API (explain, and collection through [`crate::asking`]).
#[derive(Debug, Clone, Default)]
pub enum Asked {
    #[default]
    Nothing,
    OllamaPs(Result<ollama::Ps, Said>),
    LmStudio(Result<lmstudio::Models, Said>),
}

impl Asked {
    /// Why the answer is missing, when it was asked and did not come.
    pub fn error(&self) -> Option<&Said> {
        match self {
            Asked::OllamaPs(Err(e)) | Asked::LmStudio(Err(e)) => Some(e),
            _ => None,
        }
    }
}

/// The runtime's own name for the model `w` serves (`qwen3:8b`), for views.
pub fn model_name(w: &Workload) -> Option<String> {
    engine_of(w)?.model_name(w)
}

/// What the runtime's answers report of a process no recipe could estimate.
pub fn reported(p: &Process, w: &Workload, proc_root: &Path, asked: &Asked) -> Vec<ReportedFigure> {
    engine_of(w).map_or_else(Vec::new, |r| r.reported(p, w, proc_root, asked))
}

/// Whether the recipe for `w` reads its runtime's own API (vLLM, SGLang, Ollama, LM Studio).
pub fn reads_api(w: &Workload) -> bool {
    engine_of(w).is_some_and(|r| r.api().is_some())
}

/// Ask the runtime behind `w` for what its recipe needs (Ollama `/api/ps` from the runner's
/// `ollama serve` parent, LM Studio `/api/v0/models`). Loopback only, `timeout` per request.
pub fn ask(p: &Process, w: &Workload, proc_root: &Path, timeout: Duration) -> Asked {
    match engine_of(w).and_then(|r| r.api()) {
        Some(Api::Ask(a)) => a.ask(p, w, proc_root, timeout),
        Some(Api::Fetch(_)) | None => Asked::Nothing,
    }
}

/// The llama.cpp recipe's inputs for a process of a runtime that runs llama.cpp (llama-server,
/// Ollama, LM Studio); `None` for any other kind.
pub fn inputs_for(
    p: &Process,
    w: &Workload,
    proc_root: &Path,
    vendor: Option<Vendor>,
    asked: &Asked,
) -> Option<Result<ProcessInputs, Said>> {
    engine_of(w)?.llama_inputs(p, w, proc_root, vendor, asked)
}

/// What a runtime adds to a recipe's estimate: never a figure of the estimate itself.
#[derive(Debug, Clone, Default, PartialEq)]
pub struct RuntimeNotes {
    /// The recipe name to show (`ollama/runner (llama.cpp)`); `None` = the recipe's own.
    pub recipe: Option<String>,
    /// The model's name in the runtime (`qwen3:8b`), when known.
    pub model_name: Option<String>,
    /// Where that name was read (Ollama's manifests folder, LM Studio's API), for its evidence.
    pub model_name_from: Option<String>,
    /// The start of the why sentence (`qwen3:8b kept loaded until 14:32 (OLLAMA_KEEP_ALIVE=5m)`);
    /// the estimate's parts are appended.
    pub why_lead: Option<Said>,
    /// Tokens per slot and slots, as the runtime set them (for the why sentence).
    pub ctx_per_slot: Option<u64>,
    pub slots: Option<u64>,
    pub reported: Vec<ReportedFigure>,
    pub not_modelled: Vec<Said>,
    /// How the placement was decided when the runtime chose it itself (llama-server's `--fit`
    /// replayed at load), appended to the why sentence.
    pub placement: Option<Said>,
}

impl RuntimeNotes {
    /// The why sentence for estimate `e`.
    pub fn why(&self, e: &Estimate) -> Option<Said> {
        let lead = self.why_lead.clone()?;
        let slots = self.slots.unwrap_or(e.context.n_seq_max);
        let per_slot = self.ctx_per_slot.unwrap_or(e.context.n_ctx_seq);
        Some(Said::new(
            "recipe-why-runtime",
            vec![
                ("lead", lead.into()),
                ("weights", human_opt(Some(e.weights.gpu_bytes)).into()),
                ("kv", human_opt(Some(e.kv_cache.gpu_bytes)).into()),
                ("tokens", per_slot.to_string().into()),
                ("slots", slots.into()),
            ],
        ))
    }

    /// Put the notes into a snapshot's estimate (recipe name, why, reported, not modelled).
    pub fn apply(&self, e: &Estimate, m: &mut EstimatedMemory) {
        if let Some(r) = &self.recipe {
            m.recipe = r.clone();
        }
        if let Some(why) = self.why(e) {
            m.why = Some(why);
        }
        m.reported = self.reported.clone();
        m.not_modelled = self.not_modelled.clone();
        if let Some(p) = &self.placement {
            m.why = Some(match m.why.take() {
                Some(w) => Said::new(
                    "recipe-why-and-placement",
                    vec![("why", w.into()), ("placement", p.clone().into())],
                ),
                None => p.clone(),
            });
        }
    }
}

/// A runtime's `X GiB` (binary gigabytes, as vLLM and SGLang print them) in bytes.
/// Why a recipe could not read its GGUF file: the one sentence every recipe that reads one says.
pub(crate) fn gguf_unreadable(e: impl Into<Said>) -> Said {
    Said::new("recipe-err-gguf-header", vec![("error", e.into().into())])
}

pub(crate) fn gib_bytes(g: f64) -> u64 {
    (g * (1u64 << 30) as f64) as u64
}

/// Store `v` in `slot` and note in `changed` whether that changed it: the log parsers keep a
/// line when it changed a figure, without cloning what they have gathered per line.
pub(crate) fn set_noting<T: PartialEq>(slot: &mut T, v: T, changed: &mut bool) {
    if *slot != v {
        *slot = v;
        *changed = true;
    }
}

/// The number after `key` in a log line (`GPU blocks: 27,000`, `#tokens: 367404`, `mem usage=14.99`):
/// separators and an opening parenthesis skipped, thousands commas dropped. As written, for
/// [`crate::figures`] to check: a log line can print more digits than any figure can have.
pub(crate) fn number_text_after(line: &str, key: &str) -> Option<String> {
    let i = line.find(key)? + key.len();
    let rest = line[i..].trim_start_matches([' ', '(', '=', ':']);
    let end = rest
        .find(|c: char| !(c.is_ascii_digit() || c == '.' || c == ','))
        .unwrap_or(rest.len());
    let t = rest[..end].replace(',', "");
    (!t.is_empty()).then_some(t)
}

/// The value of `name` in a `/proc/PID/environ`-style list, never for a name that could hold a
/// secret (the lists read here are allowlists; this guards against one growing).
pub(crate) fn env_get<'a>(env: &'a [(String, String)], name: &str) -> Option<&'a str> {
    if looks_secret(name) {
        return None;
    }
    env.iter().find(|(k, _)| k == name).map(|(_, v)| v.as_str())
}

pub(crate) fn looks_secret(name: &str) -> bool {
    // The one rule for secret names, the redaction's.
    gpuledger_model::redact::is_secret_name(name)
}

/// Read `names` (and only those, never a secret-looking one) from `/proc/PID/environ` under
/// `proc_root`: the one reader, [`gpuledger_sources::environ::named`].
pub(crate) use gpuledger_sources::environ::named as read_environ;

/// `2025-08-08T00:07:26.817827822+02:00` → `2025-08-08 00:07 (+02:00)`; anything else as given.
pub(crate) fn short_time(rfc3339: &str) -> String {
    let b = rfc3339.as_bytes();
    if b.len() >= 16 && b[10] == b'T' && rfc3339.is_char_boundary(16) {
        let zone = rfc3339
            .get(19..)
            .unwrap_or("")
            .trim_start_matches(|c: char| c == '.' || c.is_ascii_digit())
            .to_string();
        let zone = if zone.is_empty() || zone == "Z" {
            "UTC".to_string()
        } else {
            zone
        };
        return format!("{} {} ({zone})", &rfc3339[..10], &rfc3339[11..16]);
    }
    rfc3339.to_string()
}

pub use gpuledger_model::estimate_input::{Input, InputSource};
pub use gpuledger_model::runtime_estimate::RuntimeEstimate;

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
    /// The CUDA compute capability of that device (NVML), when known.
    pub device_capability: Option<gpuledger_model::snapshot::ComputeCapability>,
    /// This machine's probed CUDA context cost and its label (`gpuledger probe --save`).
    pub overhead: Option<(u64, Said)>,
    /// Ports to ask and how; `None` on the collection path (no HTTP there).
    pub fetch: Option<(&'a [u16], Fetch<'a>)>,
    /// The collection round's budget for reading model headers, shared by every process of
    /// the round (it also records the models skipped); `None`: a budget of the recipe's own.
    pub round: Option<&'a crate::safetensors::Round>,
    /// The runtime's release as the log given to `explain --log` names it, and where.
    pub log_version: Option<(String, Said)>,
    /// The MXFP4 MoE kernel the log given to `explain --log` names (vLLM).
    pub log_mxfp4_backend: Option<vllm::moe_quant::BackendSeen>,
    /// What of the command line could not be read (vLLM's `--config FILE`), in words.
    pub argv_note: Option<Said>,
    /// The process's own title when one replaced its command line (`sglang::scheduler_PP1_TP0`,
    /// `VLLM::Worker_PP1_TP0`): its rank in the workload.
    pub title: Option<String>,
}

impl<'a> ProcessContext<'a> {
    /// Read what the recipes need for `p`: its command line (or, for vLLM/SGLang worker
    /// processes whose title replaced it, the nearest ancestor's, at most 4 levels up), working
    /// directory and the few environment names in [`hf::ENV_NAMES`]. The ancestors' `stat` and
    /// command lines come through `procs`, so a collection round reads each once for every
    /// consumer.
    pub fn read(
        p: &Process,
        kind: WorkloadKind,
        procs: &'a ProcReader,
        device_total: Option<u64>,
    ) -> ProcessContext<'a> {
        let proc_root = procs.root();
        let mut argv = p.cmdline.clone().unwrap_or_default();
        let mut argv_from = None;
        let mut pid = p.pid;
        let mut env_pid = p.pid;
        for _ in 0..4 {
            if names_argv(kind, &argv) {
                break;
            }
            let Some(pp) = procs.stat(pid).ok().map(|s| s.ppid).filter(|&pp| pp > 1) else {
                break;
            };
            // Redacted by the reader, as `p.cmdline` is.
            let a = procs.args(pp).unwrap_or_default();
            pid = pp;
            if names_argv(kind, &a) {
                argv = a;
                argv_from = Some(pp);
                env_pid = pp;
                break;
            }
        }
        let cwd = std::fs::read_link(proc_root.join(env_pid.to_string()).join("cwd")).ok();
        let title = match p.cmdline.as_deref() {
            Some([one]) if one.contains("::") => Some(one.trim().to_string()),
            _ => None,
        };
        let (argv, argv_note) = read_args(kind, &argv, proc_root, env_pid);
        ProcessContext {
            title,
            pid: p.pid,
            proc_root,
            argv,
            argv_note,
            argv_from,
            cwd,
            env: hf::process_env(proc_root, p.pid),
            device_total,
            overhead: None,
            fetch: None,
            round: None,
            log_version: None,
            device_capability: None,
            log_mxfp4_backend: None,
        }
    }

    /// The ports to ask the runtime's API on: those of the server a titled process (engine
    /// core, worker, scheduler) descends from first, then its own. A vLLM worker listens on a
    /// dozen internal ports of its own (NCCL, ZMQ) where no API answers; its server's port does.
    pub fn api_ports(&self, own: &[u16], procs: &ProcReader) -> Vec<u16> {
        let mut ports = self
            .argv_from
            .map(|server| gpuledger_sources::process_facts(procs, server).listen_ports)
            .unwrap_or_default();
        for p in own {
            if !ports.contains(p) {
                ports.push(*p);
            }
        }
        ports
    }

    /// Where the command line was read, for input sources.
    pub fn argv_source(&self) -> Said {
        match self.argv_from {
            Some(pp) => Said::new(
                "recipe-src-parent-cmdline",
                vec![("pid", pp.to_string().into())],
            ),
            None => format!("/proc/{}/cmdline", self.pid).into(),
        }
    }
}

/// Kinds whose runtime has a recipe of its own (not llama.cpp's).
pub fn covers(kind: WorkloadKind) -> bool {
    for_kind(kind).is_some_and(|r| r.recipe().is_some())
}

/// The recipe for `w.kind`, or `None` when no runtime has one of its own for it (llama.cpp has
/// its recipe in [`crate::estimate()`]).
pub fn estimate_for(ctx: &ProcessContext, w: &Workload) -> Option<Result<RuntimeEstimate, Said>> {
    Some(for_kind(w.kind)?.recipe()?.estimate(ctx, w))
}

/// The runtime's own log figures for `kind` (`explain --log`), to go beside the estimate.
pub fn reported_from_log(kind: WorkloadKind, text: &str, source: &str) -> Vec<ReportedFigure> {
    for_kind(kind).map_or_else(Vec::new, |r| r.reported_from_log(text, source))
}

/// The runtime's release as its log names it, for rules that depend on it (vLLM's KV rules).
pub fn version_in_log(kind: WorkloadKind, text: &str) -> Option<String> {
    for_kind(kind)?.version_in_log(text)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn times_are_shortened_and_secrets_never_read() {
        assert_eq!(
            short_time("2025-08-08T00:07:26.817827822+02:00"),
            "2025-08-08 00:07 (+02:00)"
        );
        assert_eq!(short_time("2026-11-29T09:00:00Z"), "2026-11-29 09:00 (UTC)");
        assert_eq!(short_time("soon"), "soon");
        let env = vec![("OLLAMA_API_KEY".to_string(), "sk-123".to_string())];
        assert_eq!(env_get(&env, "OLLAMA_API_KEY"), None);
    }

    #[test]
    fn an_sglang_scheduler_title_reads_its_servers_command_line() {
        // The scheduler's setproctitle title replaced its command line: the flags are the
        // launching server's, one level up.
        let root = std::env::temp_dir().join(format!("gpuledger-sgl-walk-{}", std::process::id()));
        for (pid, ppid, cmd) in [
            (
                500u32,
                1u32,
                "python3\0-m\0sglang.launch_server\0--model-path\0/m\0--tp=2\0",
            ),
            (501, 500, "sglang::scheduler_TP0\0"),
        ] {
            let d = root.join(pid.to_string());
            std::fs::create_dir_all(&d).unwrap();
            std::fs::write(
                d.join("stat"),
                format!("{pid} (x) S {ppid} 1 1 0 -1 0 0 0 0 0 0 0 0 0 20 0 1 0 {pid} 1 2\n"),
            )
            .unwrap();
            std::fs::write(d.join("cmdline"), cmd).unwrap();
        }
        let mut p = Process::new(501);
        p.cmdline = Some(vec!["sglang::scheduler_TP0".into()]);
        let procs = ProcReader::new(&root);
        let ctx = ProcessContext::read(&p, WorkloadKind::Sglang, &procs, None);
        assert_eq!(ctx.argv_from, Some(500));
        assert!(ctx.argv.iter().any(|a| a == "sglang.launch_server"));
        let s = sglang::SglangSettings::from_args(&ctx.argv, ctx.argv_source()).unwrap();
        assert_eq!(s.tp_size.value, 2);
        // Its own title is kept: the recipe reads its rank (a pipeline stage) from it.
        assert_eq!(ctx.title.as_deref(), Some("sglang::scheduler_TP0"));
        // The server's ports (none recorded here) come before its own.
        assert_eq!(ctx.api_ports(&[7], &procs), vec![7]);
        std::fs::remove_dir_all(&root).unwrap();
    }
}
