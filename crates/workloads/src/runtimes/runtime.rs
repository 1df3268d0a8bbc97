//! What every runtime answers, in one trait: how it is recognised, what its command line says,
//! how its own API is asked, and what it adds to the estimated ledger. Each runtime implements it
//! in its own folder; [`super::RUNTIMES`] lists them in the order identification tries them.

use super::{Asked, Fetch, ProcessContext, Registry, RuntimeEstimate};
use crate::live::LiveState;
use crate::runtimes::llamacpp::ProcessInputs;
use gpuledger_lang::Said;
use gpuledger_model::Member;
use gpuledger_model::{
    Evidence, Process, ReportedFigure, RoleKind, Vendor, Workload, WorkloadKind,
};
use gpuledger_sources::procfs::{ProcReader, ProcessFacts};
use std::path::Path;
use std::time::Duration;

/// What identification saw of a process, for a runtime to recognise itself in.
pub struct Seen<'a> {
    /// The program's file name without `.exe` (`llama-server`, `python3`, `ollama`).
    pub prog: &'a str,
    /// The kernel's process name (a title set with setproctitle: `VLLM::Worker_TP0`).
    pub comm: &'a str,
    pub args: &'a [String],
    /// The command line joined with spaces, as it was, and in lower case.
    pub joined: &'a str,
    pub lower: &'a str,
    pub mapped: &'a [String],
}

impl Seen<'_> {
    /// The value of the first of `names` in the arguments (`-c 4096`, `--ctx-size=4096`).
    pub fn flag(&self, names: &[&str]) -> Option<&str> {
        arg_value(self.args, names)
    }
}

/// A family of libraries whose presence in a process's maps says something (libggml: llama.cpp),
/// by file-name prefix. Declared as a `static` by the runtime (or, for the plain CUDA runtime and
/// graphics drivers, by identification) that owns it: families are told apart by address.
pub struct Library {
    /// What a mapped file of the family shows, in the evidence (`llama.cpp / ggml library`):
    /// a catalogue key.
    pub what: &'static str,
    pub prefixes: &'static [&'static str],
}

impl Library {
    /// Whether `file` (a file name, no folder) is one of this family's.
    pub fn holds(&self, file: &str) -> bool {
        self.prefixes.iter().any(|p| file.starts_with(p))
    }
}

/// A runtime's own recipe for the estimated ledger ([`Runtime::recipe`]).
pub trait Recipe: Sync {
    /// The estimate for process `w`, or why there is none, in words.
    fn estimate(&self, ctx: &ProcessContext, w: &Workload) -> Result<RuntimeEstimate, Said>;
}

/// What a runtime's recipe reads from the runtime's own HTTP API (loopback only).
pub enum Api<'a> {
    /// Asked by the runtime before the estimate, the answer handed to its recipe (Ollama's
    /// `/api/ps` from the runner's parent server, LM Studio's `/api/v0/models`).
    Ask(&'a dyn AskApi),
    /// Read by the recipe itself through the context's `fetch`, on these paths of the process's
    /// own ports (vLLM's `/metrics`, SGLang's `/get_server_info`).
    Fetch(&'static [&'static str]),
}

/// The asking half of [`Api::Ask`].
pub trait AskApi: Sync {
    /// Ask the runtime's API for what its recipe needs.
    fn ask(&self, p: &Process, w: &Workload, proc_root: &Path, timeout: Duration) -> Asked;
}

/// How a runtime lays out the untitled Python multiprocessing children under its root (vLLM
/// before its processes had titles), for [`crate::group`] to name their roles.
pub trait MpLayout: Sync {
    /// Whether the root runs the engine itself (vLLM's `--disable-frontend-multiprocessing`),
    /// so that a fork of it is a rank, not an engine.
    fn root_runs_engine(&self, root_args: &[String]) -> bool;

    /// The role of a child at `place`, given the root's command line; `None` when the place is
    /// not one the runtime makes (no role is guessed).
    fn role(&self, place: MpPlace, root_args: &[String]) -> Option<(RoleKind, String)>;
}

/// One runtime. Only [`Runtime::kinds`] and [`Runtime::named`] are required: a runtime that
/// has no API, no recipe or no log figures leaves those methods as they are. Everything the rest
/// of the crate knows of a runtime (that its kinds are AI, which are servers, what libraries
/// support it, how its workers are laid out) comes from here, through [`super::RUNTIMES`].
pub trait Runtime: Sync {
    /// The workload kinds this runtime owns (Ollama: its server and its runner). Every kind a
    /// runtime owns is an AI workload: the estimated ledger may model it.
    fn kinds(&self) -> &'static [WorkloadKind];

    /// The kind, when the program's name, process title or command line names this runtime.
    fn named(&self, seen: &Seen) -> Option<WorkloadKind>;

    /// Whether a process of `kind` serves an API, so that listening on no port is worth saying
    /// (Ollama's server is one, its runner is not).
    fn is_server(&self, _kind: WorkloadKind) -> bool {
        false
    }

    /// The libraries a process of `kind` maps when it is what it seems (libggml for a
    /// llama-server, libtorch for vLLM): a second, independent kind of evidence.
    fn library(&self, _kind: WorkloadKind) -> Option<&'static Library> {
        None
    }

    /// The kind the runtime's libraries alone name, when nothing names the program (a program
    /// embedding libllama is llama.cpp; one mapping libtorch is PyTorch).
    fn named_by_library(&self) -> Option<WorkloadKind> {
        None
    }

    /// The kind an ancestor's command line names as the root of a workload (the server a worker
    /// descends from, a launcher that starts one rank per GPU). A title names a member, never a
    /// root: by default, what [`Runtime::named`] names where [`Runtime::names_argv`] agrees.
    fn names_root(&self, seen: &Seen) -> Option<WorkloadKind> {
        let kind = self.named(seen)?;
        self.names_argv(seen.args).then_some(kind)
    }

    /// Whether a process of `kind` found under another runtime's root is that runtime's (a
    /// process known only by its PyTorch libraries, under vLLM, is vLLM's).
    fn yields_to_root(&self, _kind: WorkloadKind) -> bool {
        false
    }

    /// Whether the process's parent, named `parent`, is evidence for `kind` (an Ollama runner's
    /// `ollama serve`).
    fn parent_is_evidence(&self, _kind: WorkloadKind, _parent: &str) -> bool {
        false
    }

    /// The process's place in a workload it joins otherwise than through its ancestors
    /// (llama.cpp's `rpc-server`, which a llama-server reaches over TCP); `None`: the ancestors
    /// say.
    fn member_apart(&self, _f: &ProcessFacts, _procs: &ProcReader) -> Option<Member> {
        None
    }

    /// How the runtime lays out untitled multiprocessing children, when it starts them.
    fn multiprocessing(&self) -> Option<&'static dyn MpLayout> {
        None
    }

    /// Whether a command line alone names this runtime, so that its flags are the ones a recipe
    /// reads: asked of each ancestor when a worker's title replaced its own command line.
    fn names_argv(&self, argv: &[String]) -> bool {
        !argv.is_empty()
    }

    /// The command line as the runtime reads it, with the options of what it names besides
    /// (vLLM's `--config FILE`) read as process `pid` sees them; the sentence says what could
    /// not be read.
    fn read_args(
        &self,
        argv: &[String],
        _proc_root: &Path,
        _pid: u32,
    ) -> (Vec<String>, Option<Said>) {
        (argv.to_vec(), None)
    }

    /// The model a command line names where the common flags (`--model`, `-m`) do not say it
    /// (`vllm serve MODEL`).
    fn model_in_args(&self, _args: &[String]) -> Option<String> {
        None
    }

    /// The runtime's own name for the model `w` serves, when it names it otherwise than the
    /// file (`qwen3:8b` for an Ollama blob).
    fn model_name(&self, _w: &Workload) -> Option<String> {
        None
    }

    /// The process's role in its workload, from its own title (`VLLM::Worker_TP1` → `worker
    /// TP1/2`), given the command line of the root it descends from: what it is, and its words.
    fn role(&self, _own: &Seen, _root_args: &[String]) -> Option<(RoleKind, String)> {
        None
    }

    /// What in the command line (or process title) supports the conclusion `kind`, in words,
    /// and the `/proc/PID` file it was read from. `named`: the program or title named it.
    fn cmdline_signal(
        &self,
        _kind: WorkloadKind,
        _named: bool,
        _seen: &Seen,
    ) -> Option<(Said, &'static str)> {
        None
    }

    /// The live state from the runtime's own HTTP answers on `port` (loopback), with the
    /// evidence they gave; `None` when what answered is not this runtime.
    fn query(&self, _port: u16, _fetch: Fetch, _ev: &mut Vec<Evidence>) -> Option<LiveState> {
        None
    }

    /// What the runtime's answers (`asked`) report of `p`, for a process no recipe could
    /// estimate (Ollama's `/api/ps` for a Go-engine runner): shown as the runtime's figures.
    fn reported(
        &self,
        _p: &Process,
        _w: &Workload,
        _proc_root: &Path,
        _asked: &Asked,
    ) -> Vec<ReportedFigure> {
        Vec::new()
    }

    /// What this runtime's recipe reads from the runtime's own API, declared once: collection
    /// asks only runtimes that declare one, and asks them through it.
    fn api(&self) -> Option<Api<'_>> {
        None
    }

    /// The llama.cpp recipe's inputs, for a runtime that runs llama.cpp with settings of its own.
    fn llama_inputs(
        &self,
        _p: &Process,
        _w: &Workload,
        _proc_root: &Path,
        _vendor: Option<Vendor>,
        _asked: &Asked,
    ) -> Option<Result<ProcessInputs, Said>> {
        None
    }

    /// The runtime's own recipe (vLLM, SGLang, PyTorch), when it has one: having it is what
    /// makes the runtime's kinds estimated by it rather than by llama.cpp's recipe.
    fn recipe(&self) -> Option<&'static dyn Recipe> {
        None
    }

    /// The runtime's release as its log names it (`explain --log`), when its rules depend on it.
    fn version_in_log(&self, _text: &str) -> Option<String> {
        None
    }

    /// The runtime's own figures in its log (`explain --log`), to go beside the estimate.
    fn reported_from_log(&self, _text: &str, _source: &str) -> Vec<ReportedFigure> {
        Vec::new()
    }
}

/// The model a command line names (`--model`, `--model-path`; `-m` too unless the program is
/// an interpreter, for which `-m` names a module; else where runtime `kind` puts it, as
/// `vllm serve MODEL` does).
pub fn model_arg(
    runtimes: &Registry,
    kind: WorkloadKind,
    prog: &str,
    args: &[String],
) -> Option<String> {
    let flags: &[&str] = if prog.starts_with("python") {
        &["--model", "--model-path"]
    } else {
        &["-m", "--model"]
    };
    // The runtime's own reader first: it knows its grammar (`vllm serve --port 1 MODEL`).
    runtimes
        .for_kind(kind)
        .and_then(|r| r.model_in_args(args))
        .or_else(|| arg_value(args, flags).map(str::to_string))
}

/// The value after the first of `names` (`--flag value` or `--flag=value`): the first
/// occurrence, as a plain reader sees it.
fn arg_value<'a>(args: &'a [String], names: &[&str]) -> Option<&'a str> {
    for (i, a) in args.iter().enumerate() {
        for n in names {
            if a == n {
                return args.get(i + 1).map(String::as_str);
            }
            if let Some(v) = a.strip_prefix(n).and_then(|r| r.strip_prefix('=')) {
                return Some(v);
            }
        }
    }
    None
}

/// Where an untitled Python multiprocessing child sits under its root: how vLLM V0 (and V1
/// before its processes had titles) lays out its ranks, read from the process tree alone.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum MpPlace {
    /// A child of the root (vLLM V0's `MQLLMEngine`, V1's engine core) that started `workers`
    /// multiprocessing children of its own; `forked`: a fork of the server (its command line),
    /// as V1 starts its engine core by default, where V0 spawns its engine.
    Engine { workers: usize, forked: bool },
    /// The `index`th (from 0, in start order) of `of` multiprocessing children of an engine, or
    /// of the root itself when the root runs the engine (`under_root`: forks of the server).
    Worker {
        index: usize,
        of: usize,
        under_root: bool,
    },
}
