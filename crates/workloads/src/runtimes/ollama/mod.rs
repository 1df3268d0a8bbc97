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

use super::{env_get, read_environ, short_time, RuntimeNotes};
use crate::estimate::{FlashAttn, GpuLayers, LlamaSettings, Setting, SettingSource};
use crate::gguf::{GgmlType, GgufModel};
use crate::process_estimate::ProcessInputs;
use gpuledger_model::{Process, ReportedFigure, Vendor, Workload};
use serde_json::Value;
use std::path::{Path, PathBuf};
use std::time::Duration;

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
    let has = |f: &str| {
        argv.iter()
            .any(|a| a == f || a.strip_prefix('-') == Some(f) || a.starts_with(&format!("{f}=")))
    };
    if has("--ollama-engine") {
        Engine::OllamaEngine
    } else if has("--mlx-engine") {
        Engine::Mlx
    } else if has("--ctx-size") || has("--n-gpu-layers") || has("--batch-size") {
        Engine::LlamaFlags
    } else {
        Engine::LlamaLoadRequest
    }
}

/// The value of a Go `flag` option: `--name v`, `-name v`, `--name=v`, `-name=v`.
fn go_flag<'a>(argv: &'a [String], name: &str) -> Option<&'a str> {
    let mut it = argv.iter();
    while let Some(a) = it.next() {
        let bare = a.trim_start_matches('-');
        if !a.starts_with('-') {
            continue;
        }
        if bare == name {
            return it.next().map(String::as_str);
        }
        if let Some(v) = bare.strip_prefix(name).and_then(|r| r.strip_prefix('=')) {
            return Some(v);
        }
    }
    None
}

fn go_bool(argv: &[String], name: &str) -> bool {
    argv.iter().any(|a| {
        let bare = a.trim_start_matches('-');
        a.starts_with('-') && (bare == name || bare == format!("{name}=true"))
    })
}

/// One model in Ollama's `GET /api/ps` answer.
#[derive(Debug, Clone, Default, PartialEq)]
pub struct PsModel {
    pub name: String,
    pub size: Option<u64>,
    pub size_vram: Option<u64>,
    pub context_length: Option<u64>,
    pub expires_at: Option<String>,
}

/// `/api/ps` and where it was read.
#[derive(Debug, Clone, Default, PartialEq)]
pub struct Ps {
    pub models: Vec<PsModel>,
    pub source: String,
    /// `GET /api/version` of the same server (`0.12.7`), when it answered.
    pub version: Option<String>,
}

/// `0.13.4`, `0.13.4-rc1`, `v0.9.5` → (0, 13, 4).
pub fn parse_version(v: &str) -> Option<(u64, u64, u64)> {
    let v = v.trim().trim_start_matches('v');
    let core = v.split(['-', '+', ' ']).next()?;
    let mut it = core.split('.').map(|x| x.parse::<u64>().ok());
    Some((it.next()??, it.next()??, it.next().flatten().unwrap_or(0)))
}

/// Parse `/api/ps` (`{"models":[{"name","size","size_vram","context_length","expires_at"}]}`).
pub fn parse_ps(body: &str) -> Result<Vec<PsModel>, String> {
    let v: Value =
        serde_json::from_str(body).map_err(|e| format!("not the JSON /api/ps answers: {e}"))?;
    let list = v
        .get("models")
        .and_then(Value::as_array)
        .ok_or("no \"models\" list in the /api/ps answer")?;
    Ok(list
        .iter()
        .map(|m| PsModel {
            name: m
                .get("name")
                .or(m.get("model"))
                .and_then(Value::as_str)
                .unwrap_or("?")
                .to_string(),
            size: m.get("size").and_then(Value::as_u64),
            // Old versions leave size_vram out when it is 0 (ollama/ollama#4840).
            size_vram: m
                .get("size_vram")
                .and_then(Value::as_u64)
                .or(m.get("size").map(|_| 0)),
            context_length: m.get("context_length").and_then(Value::as_u64),
            expires_at: m
                .get("expires_at")
                .and_then(Value::as_str)
                .map(str::to_string),
        })
        .collect())
}

/// Ask `ollama serve` (the runner's parent) for `/api/ps` on its listening ports, else on
/// `OLLAMA_HOST`'s port, else on 11434. Loopback only, time-bounded.
pub fn fetch_ps(proc_root: &Path, runner_pid: u32, timeout: Duration) -> Result<Ps, String> {
    let procs = gpuledger_sources::procfs::ProcReader::new(proc_root);
    let ppid = procs
        .stat(runner_pid)
        .map_err(|e| format!("the runner's parent: {e}"))?
        .ppid;
    let mut ports = gpuledger_sources::process_facts(&procs, ppid).listen_ports;
    let env = read_environ(proc_root, ppid, ENV_NAMES).unwrap_or_default();
    if let Some(p) = env_get(&env, "OLLAMA_HOST")
        .and_then(|h| h.rsplit(':').next())
        .and_then(|p| p.trim_end_matches('/').parse().ok())
    {
        ports.push(p);
    }
    ports.push(11434);
    // Each port once, in the order found (a dead one costs a timeout).
    let mut seen = Vec::new();
    ports.retain(|p| {
        !seen.contains(p) && {
            seen.push(*p);
            true
        }
    });
    let mut errors = Vec::new();
    for port in ports {
        match crate::live::get(port, "/api/ps", timeout) {
            Ok(r) if r.status == 200 => {
                let version = crate::live::get(port, "/api/version", timeout)
                    .ok()
                    .filter(|r| r.status == 200)
                    .and_then(|r| serde_json::from_str::<Value>(&r.body).ok())
                    .and_then(|v| v.get("version")?.as_str().map(str::to_string));
                return parse_ps(&r.body)
                    .map(|models| Ps {
                        models,
                        source: format!("GET http://127.0.0.1:{port}/api/ps"),
                        version,
                    })
                    .map_err(|e| format!("GET http://127.0.0.1:{port}/api/ps: {e}"));
            }
            Ok(r) => errors.push(format!("port {port}: HTTP {}", r.status)),
            Err(e) => errors.push(e),
        }
    }
    Err(format!("no /api/ps answer ({})", errors.join("; ")))
}

/// The blob file an Ollama runner loads: `<models>/blobs/sha256-<hex>`; its hex digest.
fn blob_digest(blob: &Path) -> Option<String> {
    let name = blob.file_name()?.to_str()?;
    let hex = name.strip_prefix("sha256-")?;
    (hex.len() == 64 && hex.bytes().all(|b| b.is_ascii_hexdigit())).then(|| hex.to_lowercase())
}

/// Manifests bigger than this are not Ollama manifests (they hold a few layer records).
const MANIFEST_MAX: u64 = 256 << 10;
/// At most this many manifest files are read (a models folder holds tens to hundreds).
const MANIFESTS_MAX: usize = 10_000;

/// The model name (`qwen3:8b`, `hf.co/org/repo:Q4_K_M`) whose manifest lists `blob` as its
/// model layer. The manifests are read from `<models>/manifests/<registry>/<ns>/<model>/<tag>`
/// beside the blob's own folder (`<models>/blobs/`), each bounded. `Ok(None)`: no manifest names
/// it. A manifest that cannot be read is an error naming the file, unless another one names the
/// blob.
pub fn model_name_for_blob(blob: &Path) -> Result<Option<String>, String> {
    let digest = blob_digest(blob).ok_or_else(|| {
        format!(
            "{}: not an Ollama blob (sha256-<64 hex digits>)",
            blob.display()
        )
    })?;
    let models = blob
        .parent()
        .and_then(Path::parent)
        .ok_or_else(|| format!("{}: no models folder above the blob", blob.display()))?;
    let root = models.join("manifests");
    let mut files = Vec::new();
    collect_files(&root, 0, &mut files);
    let mut errors = Vec::new();
    for f in files.iter().take(MANIFESTS_MAX) {
        match manifest_model_digest(f) {
            Ok(Some(d)) if d == digest => {
                let rel = f.strip_prefix(&root).unwrap_or(f);
                return Ok(Some(name_from_manifest_path(rel)));
            }
            Ok(_) => {}
            Err(e) => errors.push(e),
        }
    }
    if errors.is_empty() {
        Ok(None)
    } else {
        Err(format!(
            "no readable manifest under {} names blob sha256-{}…: {}",
            root.display(),
            &digest[..12],
            errors.join("; ")
        ))
    }
}

/// [`model_name_for_blob`], remembered for a while: the collection path asks every refresh, and a
/// manifests folder can hold thousands of files; a pull that adds a name shows within minutes.
fn cached_model_name(blob: &Path) -> Option<String> {
    use std::collections::HashMap;
    use std::sync::{Mutex, OnceLock};
    use std::time::{Duration, Instant};
    const KEEP: Duration = Duration::from_secs(300);
    type Names = HashMap<PathBuf, (Instant, Option<String>)>;
    static CACHE: OnceLock<Mutex<Names>> = OnceLock::new();
    let cache = CACHE.get_or_init(Default::default);
    if let Some((at, name)) = cache.lock().ok()?.get(blob) {
        if at.elapsed() < KEEP {
            return name.clone();
        }
    }
    let name = model_name_for_blob(blob).ok().flatten();
    if let Ok(mut c) = cache.lock() {
        // Bounded: one entry per model blob seen; a machine does not hold thousands running.
        if c.len() > 1024 {
            c.clear();
        }
        c.insert(blob.to_path_buf(), (Instant::now(), name.clone()));
    }
    name
}

/// Files 4 levels down (registry/namespace/model/tag), never following further.
fn collect_files(dir: &Path, depth: usize, out: &mut Vec<PathBuf>) {
    if out.len() >= MANIFESTS_MAX {
        return;
    }
    let Ok(rd) = std::fs::read_dir(dir) else {
        return;
    };
    let mut entries: Vec<PathBuf> = rd.filter_map(|e| e.ok().map(|e| e.path())).collect();
    entries.sort();
    for p in entries {
        if depth == 3 {
            out.push(p);
        } else if p.is_dir() {
            collect_files(&p, depth + 1, out);
        }
    }
}

/// The model layer's hex digest in one manifest.
fn manifest_model_digest(path: &Path) -> Result<Option<String>, String> {
    let bytes = gpuledger_sources::regular::read_regular(path, MANIFEST_MAX)
        .map_err(|e| format!("{}: {e}", path.display()))?;
    let v: Value = serde_json::from_slice(&bytes)
        .map_err(|e| format!("{}: not a manifest (JSON): {e}", path.display()))?;
    let layers = v
        .get("layers")
        .and_then(Value::as_array)
        .ok_or_else(|| format!("{}: not a manifest: no \"layers\" list", path.display()))?;
    Ok(layers
        .iter()
        .find(|l| {
            l.get("mediaType").and_then(Value::as_str) == Some("application/vnd.ollama.image.model")
        })
        .and_then(|l| l.get("digest").and_then(Value::as_str))
        .and_then(|d| d.strip_prefix("sha256:"))
        .map(str::to_lowercase))
}

/// `registry.ollama.ai/library/qwen3/8b` → `qwen3:8b`; other namespaces and registries kept.
fn name_from_manifest_path(rel: &Path) -> String {
    let parts: Vec<String> = rel
        .components()
        .map(|c| c.as_os_str().to_string_lossy().into_owned())
        .collect();
    match parts.as_slice() {
        [reg, ns, model, tag] if reg == "registry.ollama.ai" && ns == "library" => {
            format!("{model}:{tag}")
        }
        [reg, ns, model, tag] if reg == "registry.ollama.ai" => format!("{ns}/{model}:{tag}"),
        [reg, ns, model, tag] => format!("{reg}/{ns}/{model}:{tag}"),
        _ => parts.join("/"),
    }
}

/// What the runner needs beyond the model: `ollama serve`'s environment and where it was read.
#[derive(Debug, Clone, Default)]
pub struct ServeEnv {
    pub vars: Vec<(String, String)>,
    /// `/proc/900/environ (ollama serve, the runner's parent)`.
    pub source: String,
}

/// `OLLAMA_*` settings from the `ollama serve` parent's environment (the runner inherits the
/// same environment, so its own is the fallback). Only [`ENV_NAMES`] are read.
pub fn serve_env(proc_root: &Path, runner_pid: u32) -> ServeEnv {
    let procs = gpuledger_sources::procfs::ProcReader::new(proc_root);
    if let Ok(st) = procs.stat(runner_pid) {
        if let Ok(vars) = read_environ(proc_root, st.ppid, ENV_NAMES) {
            return ServeEnv {
                vars,
                source: format!(
                    "/proc/{}/environ (ollama serve, the runner's parent)",
                    st.ppid
                ),
            };
        }
    }
    match read_environ(proc_root, runner_pid, ENV_NAMES) {
        Ok(vars) => ServeEnv {
            vars,
            source: format!("/proc/{runner_pid}/environ (inherited from ollama serve)"),
        },
        Err(_) => ServeEnv::default(),
    }
}

fn env_src(env: &ServeEnv, var: &str) -> SettingSource {
    SettingSource::Env(format!("{var} in {}", env.source))
}

fn default(detail: &str) -> SettingSource {
    SettingSource::Default(detail.to_string())
}

/// Ollama's boolean environment values (`strconv.ParseBool`).
fn env_bool(v: &str) -> Option<bool> {
    match v.trim().to_ascii_lowercase().as_str() {
        "1" | "t" | "true" => Some(true),
        "0" | "f" | "false" => Some(false),
        _ => None,
    }
}

/// The cache type Ollama's runner gives llama.cpp for `OLLAMA_KV_CACHE_TYPE` / `--kv-cache-type`:
/// q8_0 and q4_0, anything else f16.
fn runner_cache_type(v: &str) -> GgmlType {
    let name = match v.trim().to_ascii_lowercase().as_str() {
        "q8_0" => "q8_0",
        "q4_0" => "q4_0",
        _ => "f16",
    };
    GgmlType::from_name(name).expect("in the type table")
}

/// llama.cpp's context settings for an Ollama llama.cpp runner, each with its source, and what
/// the recipe cannot know about it. `ps` is the runner's model in `/api/ps`, when asked.
pub fn settings(
    engine: Engine,
    argv: &[String],
    env: &ServeEnv,
    ps: Option<(&PsModel, &str)>,
    version: Option<&str>,
    n_ctx_train: Option<u64>,
) -> Result<(LlamaSettings, RuntimeNotes), String> {
    let mut s = LlamaSettings::default();
    let mut notes = RuntimeNotes {
        recipe: Some(RECIPE.to_string()),
        ..Default::default()
    };
    // What Ollama's runner leaves at llama_context_default_params().
    s.kv_unified = Setting {
        value: Some(false),
        source: default("Ollama's runner keeps llama.cpp's default kv_unified = false: one cache stream per slot"),
    };
    s.swa_full = Setting {
        value: true,
        source: default("Ollama's runner keeps llama.cpp's default swa_full = true: sliding-window layers hold the whole context"),
    };
    let num = |flag: &str, v: &str| -> Result<u64, String> {
        v.trim()
            .parse::<u64>()
            .ok()
            .filter(|&n| n <= i32::MAX as u64)
            .ok_or_else(|| format!("{flag}: {v:?} is not a count llama.cpp accepts"))
    };
    match engine {
        Engine::OllamaEngine | Engine::Mlx => {
            return Err(no_recipe(engine, argv, ps));
        }
        Engine::LlamaFlags => {
            let parallel = match go_flag(argv, "parallel") {
                Some(v) => Setting {
                    value: num("--parallel", v)?.max(1) as i64,
                    source: SettingSource::Flag("--parallel".into()),
                },
                None => Setting {
                    value: 1,
                    source: default("--parallel not given: the runner's default 1"),
                },
            };
            let p = parallel.value as u64;
            s.ctx_size = match go_flag(argv, "ctx-size") {
                Some(v) => Setting {
                    value: num("--ctx-size", v)?,
                    source: SettingSource::Flag(
                        "--ctx-size (num_ctx × OLLAMA_NUM_PARALLEL: Ollama multiplies before it starts the runner)".into(),
                    ),
                },
                None => Setting {
                    value: 2048,
                    source: default("--ctx-size not given: the runner's default 2048"),
                },
            };
            let batch = match go_flag(argv, "batch-size") {
                Some(v) => num("--batch-size", v)?,
                None => 512,
            };
            s.batch = Setting {
                value: batch * p,
                source: SettingSource::Flag(
                    "--batch-size × --parallel (the runner's n_batch)".into(),
                ),
            };
            s.ubatch = Setting {
                value: 512,
                source: default("the runner does not set n_ubatch: llama.cpp's default 512"),
            };
            s.flash_attn = if go_bool(argv, "flash-attn") {
                Setting {
                    value: FlashAttn::On,
                    source: SettingSource::Flag("--flash-attn".into()),
                }
            } else {
                Setting {
                    value: FlashAttn::Off,
                    source: default("--flash-attn not given: Ollama passes it only when OLLAMA_FLASH_ATTENTION is on and the model and GPUs support it"),
                }
            };
            if let Some(t) = go_flag(argv, "kv-cache-type") {
                let ty = runner_cache_type(t);
                s.cache_type_k = Setting {
                    value: ty,
                    source: SettingSource::Flag("--kv-cache-type".into()),
                };
                s.cache_type_v = Setting {
                    value: ty,
                    source: SettingSource::Flag("--kv-cache-type".into()),
                };
            }
            s.n_gpu_layers = match go_flag(argv, "n-gpu-layers") {
                Some(v) => Setting {
                    value: GpuLayers::Count(num("--n-gpu-layers", v)? as u32),
                    source: SettingSource::Flag("--n-gpu-layers".into()),
                },
                None => Setting {
                    value: GpuLayers::Count(0),
                    source: default("--n-gpu-layers not given: the runner's default 0"),
                },
            };
            if go_bool(argv, "no-mmap") {
                s.mmap = Setting {
                    value: false,
                    source: SettingSource::Flag("--no-mmap".into()),
                };
            }
            if let Some(ts) = go_flag(argv, "tensor-split") {
                s.unmodelled.push(format!("--tensor-split {ts}"));
            }
            s.parallel = parallel;
            notes.slots = Some(p);
            notes.ctx_per_slot = Some(s.ctx_size.value / p);
        }
        Engine::LlamaLoadRequest => {
            let parallel = match env_get(&env.vars, "OLLAMA_NUM_PARALLEL") {
                Some(v) => Setting {
                    value: num("OLLAMA_NUM_PARALLEL", v)?.max(1) as i64,
                    source: env_src(env, "OLLAMA_NUM_PARALLEL"),
                },
                None => Setting {
                    value: 1,
                    source: default("OLLAMA_NUM_PARALLEL unset: Ollama's default 1"),
                },
            };
            let p = parallel.value as u64;
            // num_ctx: what /api/ps says it loaded, else the server's default.
            let (mut num_ctx, ctx_from) = match ps.and_then(|(m, src)| Some((m.context_length?, src))) {
                Some((c, src)) => (c, format!("context_length {c} from {src}")),
                None => match env_get(&env.vars, "OLLAMA_CONTEXT_LENGTH")
                    .map(|v| num("OLLAMA_CONTEXT_LENGTH", v))
                    .transpose()?
                    .filter(|&c| c > 0)
                {
                    Some(c) => (
                        c,
                        format!("OLLAMA_CONTEXT_LENGTH={c} in {} (a request's num_ctx would override it: not visible without /api/ps)", env.source),
                    ),
                    None => (
                        4096,
                        "num_ctx not visible without /api/ps: Ollama's default 4096 assumed (since v0.15.5 it is 32768 on 24–48 GiB and 262144 on 48 GiB+ GPUs, and a request's num_ctx overrides it)".to_string(),
                    ),
                },
            };
            if let Some(train) = n_ctx_train.filter(|&t| t > 0 && num_ctx > t) {
                num_ctx = train; // Ollama caps num_ctx at the training context
            }
            let ctx_source = match (
                ps.is_some_and(|(m, _)| m.context_length.is_some()),
                env_get(&env.vars, "OLLAMA_CONTEXT_LENGTH").is_some(),
            ) {
                (true, _) => SettingSource::Runtime(format!("{ctx_from}, × {p} slot(s)")),
                (false, true) => SettingSource::Env(format!("{ctx_from}, × {p} slot(s)")),
                (false, false) => SettingSource::Default(format!("{ctx_from}, × {p} slot(s)")),
            };
            s.ctx_size = Setting {
                value: num_ctx * p,
                source: ctx_source,
            };
            let batch = 512.min(num_ctx);
            s.batch = Setting {
                value: batch * p,
                source: default("num_batch 512 (Ollama's default; a request may set another) × slots: the runner's n_batch"),
            };
            s.ubatch = Setting {
                value: batch,
                source: default(
                    "num_batch 512 (Ollama's default, at most num_ctx): the runner's n_ubatch",
                ),
            };
            let fa_env = env_get(&env.vars, "OLLAMA_FLASH_ATTENTION").and_then(env_bool);
            s.flash_attn = match fa_env {
                Some(true) => Setting {
                    value: FlashAttn::On,
                    source: env_src(env, "OLLAMA_FLASH_ATTENTION"),
                },
                Some(false) => Setting {
                    value: FlashAttn::Off,
                    source: env_src(env, "OLLAMA_FLASH_ATTENTION"),
                },
                // Auto since v0.13.4 (PR #13052); before, off unless the variable was set.
                None => match version.and_then(parse_version) {
                    Some(v) if v < (0, 13, 4) => Setting {
                        value: FlashAttn::Off,
                        source: SettingSource::Runtime(format!(
                            "OLLAMA_FLASH_ATTENTION unset: off before Ollama v0.13.4; this server is {} (GET /api/version)",
                            version.unwrap_or("?")
                        )),
                    },
                    Some(_) => Setting {
                        value: FlashAttn::Auto,
                        source: SettingSource::Runtime(format!(
                            "OLLAMA_FLASH_ATTENTION unset: Ollama v0.13.4+ asks llama.cpp for auto; this server is {} (GET /api/version)",
                            version.unwrap_or("?")
                        )),
                    },
                    None => Setting {
                        value: FlashAttn::Auto,
                        source: default("OLLAMA_FLASH_ATTENTION unset: auto since Ollama v0.13.4 (off before; the version is not known without GET /api/version)"),
                    },
                },
            };
            if let Some(t) = env_get(&env.vars, "OLLAMA_KV_CACHE_TYPE").filter(|t| !t.is_empty()) {
                let ty = runner_cache_type(t);
                if ty.is_quantized() && fa_env != Some(true) {
                    notes.not_modelled.push(format!(
                        "OLLAMA_KV_CACHE_TYPE={t} is ignored by Ollama unless OLLAMA_FLASH_ATTENTION is on: f16 cache assumed"
                    ));
                } else {
                    for slot in [&mut s.cache_type_k, &mut s.cache_type_v] {
                        *slot = Setting {
                            value: ty,
                            source: env_src(env, "OLLAMA_KV_CACHE_TYPE"),
                        };
                    }
                }
            }
            s.n_gpu_layers = Setting {
                value: GpuLayers::All,
                source: default("Ollama sends its layer placement in the /load request, which is not visible: all layers assumed on the GPU"),
            };
            if let Some((m, src)) = ps {
                if let (Some(size), Some(vram)) = (m.size, m.size_vram) {
                    if vram < size {
                        notes.not_modelled.push(format!(
                            "partial offload: {src} says {vram} of {size} bytes are in VRAM; the number of layers Ollama placed on the GPU is not visible, so the estimate's all-layers placement is too high"
                        ));
                    }
                }
            }
            s.parallel = parallel;
            notes.slots = Some(p);
            notes.ctx_per_slot = Some(num_ctx);
        }
    }
    notes.not_modelled.push(
        "Ollama's runner builds its context with embeddings on: an output buffer of n_embd floats per slot beside the logits (host memory)".into(),
    );
    Ok((s, notes))
}

/// Why an engine has no recipe, in words, with what the command line and `/api/ps` say.
fn no_recipe(engine: Engine, argv: &[String], ps: Option<(&PsModel, &str)>) -> String {
    let what = match engine {
        Engine::OllamaEngine => "Ollama's own Go engine (`ollama runner --ollama-engine`) allocates its weights, KV cache and graph itself; no recipe models it",
        _ => "Ollama's MLX engine (`ollama runner --mlx-engine`): no recipe models it",
    };
    let mut out = format!("{what}. The command line says: {}", argv.join(" "));
    if let Some((m, src)) = ps {
        out.push_str(&format!(
            "; {src} says {}: size {}, size_vram {}, context {}",
            m.name,
            gpuledger_model::units::human_opt(m.size),
            gpuledger_model::units::human_opt(m.size_vram),
            m.context_length
                .map(|c| c.to_string())
                .unwrap_or_else(|| "n/a".into())
        ));
    }
    out
}

/// The runner's model in `/api/ps`: by name (from its manifest), else the only one loaded.
pub fn ps_entry<'a>(ps: &'a Ps, name: Option<&str>) -> Option<&'a PsModel> {
    match name {
        Some(n) => ps.models.iter().find(|m| m.name == n).or_else(|| {
            // `qwen3` in a manifest path is `qwen3:latest` in /api/ps.
            ps.models
                .iter()
                .find(|m| m.name.strip_suffix(":latest") == Some(n))
        }),
        None if ps.models.len() == 1 => ps.models.first(),
        None => None,
    }
}

/// The runtime's own figures from `/api/ps`, and the why sentence's lead.
fn reported(m: &PsModel, source: &str, env: &ServeEnv) -> (Vec<ReportedFigure>, Option<String>) {
    let mut out = Vec::new();
    let fig = |what: &str, bytes: Option<u64>, text: Option<String>| {
        ReportedFigure::new(what, bytes, text, source)
    };
    if m.size.is_some() {
        out.push(fig(
            "size (Ollama's own estimate of the model's memory)",
            m.size,
            None,
        ));
    }
    if m.size_vram.is_some() {
        out.push(fig("size_vram", m.size_vram, None));
    }
    if let Some(c) = m.context_length {
        out.push(fig(
            "context_length",
            None,
            Some(format!("{c} tokens per slot")),
        ));
    }
    let keep = env_get(&env.vars, "OLLAMA_KEEP_ALIVE")
        .map(|k| format!("OLLAMA_KEEP_ALIVE={k}"))
        .unwrap_or_else(|| "OLLAMA_KEEP_ALIVE unset: 5m".into());
    let lead = match &m.expires_at {
        Some(t) => {
            let until = short_time(t);
            out.push(fig(
                "expires_at",
                None,
                Some(format!("kept loaded until {until} ({keep})")),
            ));
            format!("{} kept loaded until {until} ({keep})", m.name)
        }
        None => format!("{} loaded by Ollama", m.name),
    };
    (out, Some(lead))
}

/// Everything the recipe needs for an Ollama runner process, and the runtime's notes. `ps` is
/// `/api/ps` when the caller asked it (explain); the collection path passes `None`.
pub fn inputs_for(
    p: &Process,
    w: &Workload,
    proc_root: &Path,
    vendor: Option<Vendor>,
    ps: Option<&Ps>,
) -> Result<ProcessInputs, String> {
    let argv = p.cmdline.clone().unwrap_or_default();
    if argv
        .first()
        .map(|a| a.rsplit(['/', '\\']).next().unwrap_or(a))
        == Some("ollama_llama_server")
    {
        return Err(
            "Ollama's old `ollama_llama_server` (before v0.4): no recipe for its settings".into(),
        );
    }
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
    let model_path = model_path.ok_or(
        "the model file is not known: the runner maps none and its command line names none (it receives the model in /load)",
    )?;
    let path = PathBuf::from(&model_path);
    let gguf =
        GgufModel::open(&path).map_err(|e| format!("cannot read the model's GGUF header: {e}"))?;
    let n_ctx_train = gguf
        .architecture()
        .and_then(|a| gguf.get_u64(&format!("{a}.context_length")));
    let env = serve_env(proc_root, p.pid);
    let version = ps.and_then(|p| p.version.as_deref());
    let (mut settings, mut notes) = settings(eng, &argv, &env, entry, version, n_ctx_train)?;
    settings.model = Some(model_path);
    settings.backend = crate::process_estimate::backend_of(w, vendor);
    notes.model_name = name.clone();
    match entry {
        Some((m, src)) => {
            let (rep, lead) = reported(m, src, &env);
            notes.reported = rep;
            notes.why_lead = lead;
        }
        None => {
            notes.why_lead = Some(format!(
                "{} loaded by Ollama's runner",
                name.as_deref().unwrap_or("a model")
            ));
        }
    }
    Ok(ProcessInputs {
        model_path: path,
        model: gguf,
        settings,
        notes,
    })
}

/// The `ollama` parent's pid, when identification saw one (`parent ollama (pid N)`).
pub fn serve_parent(w: &Workload) -> Option<u32> {
    w.evidence.iter().find_map(|e| {
        if e.kind != gpuledger_model::EvidenceKind::Parent {
            return None;
        }
        let rest = e.showed.strip_prefix("parent ollama (pid ")?;
        rest.strip_suffix(')')?.parse().ok()
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
) -> Result<ProcessInputs, String> {
    let mut i = crate::process_estimate::llama_server_inputs(p, w, proc_root, vendor)?;
    let name = cached_model_name(&i.model_path);
    let env = serve_env(proc_root, p.pid);
    let mut notes = RuntimeNotes {
        recipe: Some("ollama/llama-server (llama.cpp)".into()),
        model_name: name.clone(),
        ..Default::default()
    };
    match ps.and_then(|ps| ps_entry(ps, name.as_deref()).map(|m| (m, ps.source.as_str()))) {
        Some((m, src)) => {
            let (rep, lead) = reported(m, src, &env);
            notes.reported = rep;
            notes.why_lead = lead;
        }
        None => {
            notes.why_lead = Some(format!(
                "{} loaded by Ollama's llama-server",
                name.as_deref().unwrap_or("a model")
            ));
        }
    }
    if !matches!(i.settings.n_gpu_layers.source, SettingSource::Flag(_)) {
        notes.not_modelled.push(
            "Ollama passes no -ngl by default: llama-server fits the layers to free memory (-fit), which the estimate does not model (all layers assumed)".into(),
        );
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
    }

    #[test]
    fn manifest_paths_become_ollama_names() {
        let n = |p: &str| name_from_manifest_path(Path::new(p));
        assert_eq!(n("registry.ollama.ai/library/qwen3/8b"), "qwen3:8b");
        assert_eq!(n("registry.ollama.ai/user/m/latest"), "user/m:latest");
        assert_eq!(
            n("hf.co/unsloth/Qwen3-GGUF/Q4_K_M"),
            "hf.co/unsloth/Qwen3-GGUF:Q4_K_M"
        );
    }
}
