//! Ollama's runner process: which llama.cpp context parameters it runs with, and where each came
//! from.
//!
//! Ollama has started its llama.cpp engine three ways (read from its source, `llm/server.go`,
//! `llama/llama.go`, `runner/llamarunner/runner.go`, `server/sched.go`, `envconfig/config.go`):
//!
//! - up to v0.11.4: `ollama runner --model BLOB --ctx-size N --batch-size B --n-gpu-layers L
//!   --parallel P [--flash-attn] [--kv-cache-type T] [--no-mmap] --port N`. `--ctx-size` is
//!   already `num_ctx × OLLAMA_NUM_PARALLEL` (the scheduler multiplies before it starts the
//!   runner). The runner builds llama.cpp's context from `llama_context_default_params()` with
//!   `n_ctx = --ctx-size`, `n_batch = B × P`, `n_seq_max = P`, `flash_attn` only with the flag,
//!   `type_k = type_v = T` (q8_0 or q4_0, otherwise f16), `embeddings = true`, and leaves the
//!   rest at llama.cpp's defaults: `n_ubatch = 512`, `kv_unified = false` (one cache stream per
//!   slot), `swa_full = true` (sliding-window layers keep the whole context).
//! - v0.11.5 to v0.29: `ollama runner --model BLOB --port N` (or `--ollama-engine` for its own Go
//!   engine); the load parameters go in an HTTP `POST /load` to the runner, so the command line
//!   does not carry them. `KvSize = num_ctx × parallel`, `BatchSize = min(num_batch, num_ctx)`
//!   (num_batch 512 unless a request sets it), `Parallel = OLLAMA_NUM_PARALLEL` (1 when unset),
//!   flash attention off unless `OLLAMA_FLASH_ATTENTION` is set (`auto` since v0.13.4, PR
//!   #13052), `OLLAMA_KV_CACHE_TYPE` only when flash attention is forced on (a quantised cache is
//!   dropped otherwise), and the layer placement its scheduler fitted. The context is
//!   `n_ctx = KvSize`, `n_batch = BatchSize × P`, `n_ubatch = BatchSize` (since v0.13.3, PR
//!   #13429; llama.cpp's 512 before), `n_seq_max = P`, the rest llama.cpp's defaults as above.
//! - v0.30 and later: upstream `llama-server` (from `lib/ollama/`) with `-c num_ctx×P -np P`,
//!   `--cache-type-k/-v`, `--flash-attn on|off|auto`, `-b/-ub` and `-ngl` only when set: that is a
//!   llama-server command line and the llama-server recipe reads it as such.
//!
//! `num_ctx` itself is the request's option, else `OLLAMA_CONTEXT_LENGTH`, else a default (4096
//! before v0.15.5; since then 4096 / 32768 / 262144 by VRAM under 24 / under 48 / from 48 GiB),
//! capped at the model's training context. `/api/ps` reports it per loaded model
//! (`context_length`, since v0.9.x), with `size`, `size_vram` and `expires_at`.

//!
//! Where each part lives: `settings` turns the runner's flags or `ollama serve`'s
//! environment into llama.cpp's settings, `api` asks `/api/ps` and `/api/version`, `names`
//! finds the model's name from the manifests, `live` shows `/api/ps` as live state, `runtime`
//! is the [`super::Runtime`]; this file tells the engines apart and puts the process's inputs
//! together.

pub(crate) mod api;
mod live;
mod names;
mod runtime;
mod settings;

pub use api::{fetch_ps, parse_ps, parse_version, ps_entry, Ps, PsModel};
pub use live::loaded_models;
pub use names::model_name_for_blob;
pub use runtime::Ollama;
pub use settings::{serve_env, settings, ServeEnv};

use super::RuntimeNotes;
use crate::estimate::SettingSource;
use crate::gguf::GgufModel;
use crate::runtimes::llamacpp::ProcessInputs;
use api::reported;
use gpuledger_lang::Said;
use gpuledger_model::{Process, ReportedFigure, Vendor, Workload};
use names::{cached_model_name, manifests_of};
use settings::no_recipe;
use std::path::{Path, PathBuf};

/// The recipe name an Ollama runner's estimate carries.
pub const RECIPE: &str = "ollama/runner (llama.cpp)";

/// The only environment variables read from `ollama serve` (none can hold a secret).
pub const ENV_NAMES: &[&str] = &[
    "OLLAMA_NUM_PARALLEL",
    "OLLAMA_CONTEXT_LENGTH",
    "OLLAMA_FLASH_ATTENTION",
    "OLLAMA_KV_CACHE_TYPE",
    "OLLAMA_KEEP_ALIVE",
    "OLLAMA_MODELS",
    "OLLAMA_HOST",
    "OLLAMA_NEW_ENGINE",
];

/// Which engine a runner process runs.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Engine {
    /// llama.cpp, parameters on the command line (up to v0.11.4).
    LlamaFlags,
    /// llama.cpp, parameters in the `/load` request (v0.11.5 to v0.29).
    LlamaLoadRequest,
    /// Ollama's own Go engine (`--ollama-engine`).
    OllamaEngine,
    /// The MLX engine (`--mlx-engine`).
    Mlx,
}

/// The runner's engine, from its arguments (argv without the program name is fine too).
pub fn engine(argv: &[String]) -> Engine {
    let has = |name: &str| {
        argv.iter()
            .any(|a| go_arg(a).is_some_and(|(n, _)| n == name))
    };
    if go_bool(argv, "ollama-engine") {
        Engine::OllamaEngine
    } else if go_bool(argv, "mlx-engine") {
        Engine::Mlx
    } else if has("ctx-size") || has("n-gpu-layers") || has("batch-size") {
        Engine::LlamaFlags
    } else {
        Engine::LlamaLoadRequest
    }
}

/// A Go `flag` argument's name and inline value: `-name`, `--name`, `-name=v`, `--name=v`
/// (Go's flag package refuses three dashes, and `--` ends the flags).
fn go_arg(a: &str) -> Option<(&str, Option<&str>)> {
    let bare = a.strip_prefix("--").or_else(|| a.strip_prefix('-'))?;
    if bare.is_empty() || bare.starts_with(['-', '=']) {
        return None;
    }
    Some(match bare.split_once('=') {
        Some((n, v)) => (n, Some(v)),
        None => (bare, None),
    })
}

/// The value of a Go `flag` option: `--name v`, `-name v`, `--name=v`, `-name=v`.
fn go_flag<'a>(argv: &'a [String], name: &str) -> Option<&'a str> {
    let mut it = argv.iter();
    while let Some(a) = it.next() {
        match go_arg(a) {
            Some((n, Some(v))) if n == name => return Some(v),
            Some((n, None)) if n == name => return it.next().map(String::as_str),
            _ => {}
        }
    }
    None
}

/// A Go boolean flag: `-name`, `--name`, or `=true` (any value Go's `strconv.ParseBool` reads
/// as true).
fn go_bool(argv: &[String], name: &str) -> bool {
    argv.iter().any(|a| match go_arg(a) {
        Some((n, v)) if n == name => {
            v.is_none_or(|v| matches!(v, "1" | "t" | "T" | "true" | "TRUE" | "True"))
        }
        _ => false,
    })
}

/// Everything the recipe needs for an Ollama runner process, and the runtime's notes. `ps` is
/// `/api/ps` when the caller asked it (explain); the collection path passes `None`.
pub fn inputs_for(
    p: &Process,
    w: &Workload,
    proc_root: &Path,
    vendor: Option<Vendor>,
    ps: Option<&Ps>,
) -> Result<ProcessInputs, Said> {
    let argv = p.cmdline.clone().unwrap_or_default();
    let eng = engine(&argv);
    let model_path = w
        .model
        .clone()
        .or_else(|| go_flag(&argv, "model").map(str::to_string));
    // The name is for display: a model that cannot be named is still estimated.
    let name = model_path
        .as_deref()
        .and_then(|m| cached_model_name(Path::new(m)));
    let entry = ps.and_then(|ps| ps_entry(ps, name.as_deref()).map(|m| (m, ps.source.as_str())));
    if matches!(eng, Engine::OllamaEngine | Engine::Mlx) {
        return Err(no_recipe(eng, &argv, entry));
    }
    let model_path = model_path.ok_or_else(|| Said::new("recipe-err-ollama-no-model", vec![]))?;
    let path = PathBuf::from(&model_path);
    let gguf = GgufModel::open(&path).map_err(crate::runtimes::gguf_unreadable)?;
    let n_ctx_train = gguf
        .architecture()
        .and_then(|a| gguf.get_u64(&format!("{a}.context_length")));
    let env = serve_env(proc_root, p.pid);
    let version = ps.and_then(|p| p.version.as_deref());
    let (mut settings, mut notes) = settings(eng, &argv, &env, entry, version, n_ctx_train)?;
    settings.model = Some(model_path);
    settings.backend = crate::runtimes::llamacpp::backend_of(w, vendor);
    notes.model_name = name.clone();
    notes.model_name_from = Some(manifests_of(&path));
    describe(
        &mut notes,
        entry,
        &env,
        name.as_deref(),
        "recipe-ollama-loader-runner",
    );
    Ok(ProcessInputs {
        model_path: path,
        model: gguf,
        settings,
        notes,
    })
}

/// The runtime's own figures and the why sentence's lead: from the model's `/api/ps` entry when
/// there is one, else that `name` (or "a model") was loaded by `loader` (its key).
fn describe(
    notes: &mut RuntimeNotes,
    entry: Option<(&PsModel, &str)>,
    env: &ServeEnv,
    name: Option<&str>,
    loader: &'static str,
) {
    match entry {
        Some((m, src)) => {
            let (rep, lead) = reported(m, src, env);
            notes.reported = rep;
            notes.why_lead = lead;
        }
        None => {
            let loader = Said::new(loader, vec![]).into();
            notes.why_lead = Some(match name {
                Some(n) => Said::new(
                    "recipe-ollama-lead-loaded-by",
                    vec![("name", n.into()), ("loader", loader)],
                ),
                None => Said::new("recipe-ollama-lead-unnamed", vec![("loader", loader)]),
            });
        }
    }
}

/// `/api/ps`'s figures for the model `p` serves, from its name (`w.model_name`, else the
/// manifest that lists the blob its command line names).
pub fn reported_for(p: &Process, w: &Workload, proc_root: &Path, ps: &Ps) -> Vec<ReportedFigure> {
    let argv = p.cmdline.clone().unwrap_or_default();
    let name = w.model_name.clone().or_else(|| {
        let path = w
            .model
            .clone()
            .or_else(|| go_flag(&argv, "model").map(str::to_string))?;
        cached_model_name(Path::new(&path))
    });
    match ps_entry(ps, name.as_deref()) {
        Some(m) => reported(m, &ps.source, &serve_env(proc_root, p.pid)).0,
        None => Vec::new(),
    }
}

/// The `ollama` parent's pid, when identification saw one (`parent ollama (pid N)`).
pub fn serve_parent(w: &Workload) -> Option<u32> {
    w.evidence.iter().find_map(|e| match e.parent_of()? {
        ("ollama", pid) => Some(pid),
        _ => None,
    })
}

/// Ollama v0.30 and later: upstream `llama-server` started by `ollama serve` with
/// `-c num_ctx×P -np P` and Ollama's other flags; the llama-server recipe reads that command
/// line, and Ollama adds the model's name, `/api/ps` figures and the why sentence.
pub fn llama_server_child(
    p: &Process,
    w: &Workload,
    proc_root: &Path,
    vendor: Option<Vendor>,
    ps: Option<&Ps>,
) -> Result<ProcessInputs, Said> {
    let mut i = crate::runtimes::llamacpp::llama_server_inputs(p, w, proc_root, vendor)?;
    let name = cached_model_name(&i.model_path);
    let env = serve_env(proc_root, p.pid);
    let mut notes = RuntimeNotes {
        recipe: Some("ollama/llama-server (llama.cpp)".into()),
        model_name: name.clone(),
        model_name_from: Some(manifests_of(&i.model_path)),
        ..Default::default()
    };
    let entry = ps.and_then(|ps| ps_entry(ps, name.as_deref()).map(|m| (m, ps.source.as_str())));
    describe(
        &mut notes,
        entry,
        &env,
        name.as_deref(),
        "recipe-ollama-loader-server",
    );
    if !matches!(i.settings.n_gpu_layers.source, SettingSource::Flag(_)) {
        notes
            .not_modelled
            .push(Said::new("recipe-ollama-nm-fit", vec![]));
    }
    i.notes = notes;
    Ok(i)
}

#[cfg(test)]
mod tests {
    use super::*;

    fn args(s: &str) -> Vec<String> {
        s.split_whitespace().map(String::from).collect()
    }

    #[test]
    fn engines_by_command_line() {
        assert_eq!(
            engine(&args("ollama runner --ollama-engine --model /b --port 1")),
            Engine::OllamaEngine
        );
        assert_eq!(
            engine(&args("ollama runner --mlx-engine --model x")),
            Engine::Mlx
        );
        assert_eq!(
            engine(&args(
                "ollama runner --model /b --ctx-size 8192 --batch-size 512 --port 1"
            )),
            Engine::LlamaFlags
        );
        assert_eq!(
            engine(&args("ollama runner --model /b --port 1")),
            Engine::LlamaLoadRequest
        );
    }

    #[test]
    fn go_flags_in_every_spelling() {
        let a = args("ollama runner -ctx-size 4096 --parallel=2 --flash-attn --kv-cache-type q8_0");
        assert_eq!(go_flag(&a, "ctx-size"), Some("4096"));
        assert_eq!(go_flag(&a, "parallel"), Some("2"));
        assert_eq!(go_flag(&a, "kv-cache-type"), Some("q8_0"));
        assert!(go_bool(&a, "flash-attn"));
        assert!(!go_bool(&a, "no-mmap"));
        // Three dashes is not a Go flag; `=false` turns a boolean off.
        let a = args("ollama runner ---ctx-size 4096 --flash-attn=false");
        assert_eq!(go_flag(&a, "ctx-size"), None);
        assert!(!go_bool(&a, "flash-attn"));
    }

    #[test]
    fn engine_reads_go_flag_spellings() {
        for (line, want) in [
            ("ollama runner -ctx-size 2048 --model m", Engine::LlamaFlags),
            ("ollama runner -ctx-size=2048 --model m", Engine::LlamaFlags),
            (
                "ollama runner --ctx-size=2048 --model m",
                Engine::LlamaFlags,
            ),
            (
                "ollama runner ---ctx-size 2048 --model m",
                Engine::LlamaLoadRequest,
            ),
            (
                "ollama runner -ollama-engine --model m",
                Engine::OllamaEngine,
            ),
            (
                "ollama runner --ollama-engine=false --model m",
                Engine::LlamaLoadRequest,
            ),
            ("ollama runner --mlx-engine --model m", Engine::Mlx),
            ("ollama runner --model m --port 1", Engine::LlamaLoadRequest),
        ] {
            assert_eq!(engine(&args(line)), want, "{line}");
        }
    }
}
