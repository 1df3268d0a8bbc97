//! LM Studio's engine process: the llama.cpp recipe with the context LM Studio loaded.
//!
//! LM Studio (and its headless `llmster`) runs models in a helper, `~/.lmstudio/.internal/utils/
//! node` running `llmworker.js`, which loads the engine from `~/.lmstudio/extensions/backends/
//! llama.cpp-<os>-<arch>-<gpu>-<version>/` (libggml-*) for GGUF models, or the MLX engine for MLX
//! models (reported on the lmstudio-bug-tracker, issues #940, #1547, #1694, and lms#502: that
//! `node` process is the one `nvidia-smi` charges the memory to). Its load settings (context
//! length, GPU offload, flash attention, KV cache type, concurrent predictions) live in LM Studio's
//! own state, not on a command line: the loaded context length is known only from its API,
//! `GET /api/v0/models` (`loaded_context_length` of the model whose `state` is `loaded`).

mod live;
mod runtime;

pub use runtime::LmStudio;

use super::loopback::{answers, candidate_ports};
use super::RuntimeNotes;
use crate::estimate::{GpuLayers, LlamaSettings, Setting, SettingSource};
use crate::gguf::GgufModel;
use crate::runtimes::llamacpp::ProcessInputs;
use gpuledger_lang::Said;
use gpuledger_model::{EvidenceKind, Process, ReportedFigure, Vendor, Workload};
use serde_json::Value;
use std::path::{Path, PathBuf};
use std::time::Duration;

/// The recipe name an LM Studio estimate carries.
pub const RECIPE: &str = "lm-studio (llama.cpp engine)";

/// One model in `GET /api/v0/models`.
#[derive(Debug, Clone, Default, PartialEq)]
pub struct LmsModel {
    pub id: String,
    pub arch: Option<String>,
    /// `gguf` (llama.cpp engine) or `mlx`.
    pub compatibility_type: Option<String>,
    pub quantization: Option<String>,
    pub state: Option<String>,
    pub loaded_context_length: Option<u64>,
    pub max_context_length: Option<u64>,
}

/// `/api/v0/models` and where it was read.
#[derive(Debug, Clone, Default, PartialEq)]
pub struct Models {
    pub models: Vec<LmsModel>,
    pub source: String,
}

/// Parse `/api/v0/models` (`{"data":[{"id","arch","compatibility_type","state",
/// "loaded_context_length","max_context_length"}]}`).
pub fn parse_models(body: &str) -> Result<Vec<LmsModel>, Said> {
    use crate::runtimes::ollama::api::{no_list, not_json};
    let v: Value = serde_json::from_str(body).map_err(|e| not_json("/api/v0/models", &e))?;
    let list = v
        .get("data")
        .and_then(Value::as_array)
        .ok_or_else(|| no_list("/api/v0/models", "data"))?;
    let s = |m: &Value, k: &str| m.get(k).and_then(Value::as_str).map(str::to_string);
    Ok(list
        .iter()
        .map(|m| LmsModel {
            id: s(m, "id").unwrap_or_else(|| "?".into()),
            arch: s(m, "arch"),
            compatibility_type: s(m, "compatibility_type"),
            quantization: s(m, "quantization"),
            state: s(m, "state"),
            loaded_context_length: m.get("loaded_context_length").and_then(Value::as_u64),
            max_context_length: m.get("max_context_length").and_then(Value::as_u64),
        })
        .collect())
}

/// Ask LM Studio's server for `/api/v0/models`: on the engine's own ports, its parent's, then
/// LM Studio's default 1234. Loopback only, time-bounded.
pub fn fetch_models(proc_root: &Path, p: &Process, timeout: Duration) -> Result<Models, Said> {
    let procs = gpuledger_sources::procfs::ProcReader::new(proc_root);
    let mut ports = p.listen_ports.clone();
    if let Some(ppid) = gpuledger_sources::parent_pid(&procs, p.pid) {
        ports.extend(gpuledger_sources::process_facts(&procs, ppid).listen_ports);
    }
    let mut errors = Vec::new();
    for answer in answers(candidate_ports(ports, 1234), "/api/v0/models", timeout) {
        match answer.map_err(Said::verbatim).and_then(|(port, body)| {
            parse_models(&body)
                .map(|models| Models {
                    models,
                    source: format!("GET http://127.0.0.1:{port}/api/v0/models"),
                })
                .map_err(|e| {
                    let said = vec![("port", port.to_string().into()), ("error", e.into())];
                    Said::new("recipe-err-api-port", said)
                })
        }) {
            Ok(m) => return Ok(m),
            Err(e) => errors.push(e),
        }
    }
    Err(crate::runtimes::ollama::api::no_answer(
        "/api/v0/models",
        errors,
    ))
}

/// Lower-case letters and digits only: `Meta-Llama-3.1-8B-Instruct` → `metallama318binstruct`.
fn squash(s: &str) -> String {
    s.chars()
        .filter(char::is_ascii_alphanumeric)
        .map(|c| c.to_ascii_lowercase())
        .collect()
}

/// The loaded model that is this engine's file: its id (publisher prefix dropped) within the
/// file's name, else the only loaded GGUF model.
pub fn loaded_entry<'a>(models: &'a [LmsModel], file: &Path) -> Option<&'a LmsModel> {
    let loaded: Vec<&LmsModel> = models
        .iter()
        .filter(|m| m.state.as_deref() == Some("loaded"))
        .collect();
    let stem = squash(&file.file_name()?.to_string_lossy());
    let by_name = loaded.iter().copied().find(|m| {
        let id = m.id.rsplit('/').next().unwrap_or(&m.id);
        let id = squash(id);
        !id.is_empty() && stem.contains(&id)
    });
    by_name.or_else(|| {
        let gguf: Vec<&LmsModel> = loaded
            .iter()
            .copied()
            .filter(|m| m.compatibility_type.as_deref() != Some("mlx"))
            .collect();
        (gguf.len() == 1).then(|| gguf[0])
    })
}

/// Whether the process runs LM Studio's MLX engine (an MLX library, or a loaded model that is
/// not a GGUF file).
fn is_mlx(w: &Workload) -> bool {
    w.evidence
        .iter()
        .any(|e| e.kind == EvidenceKind::Library && e.showed.to_ascii_lowercase().contains("mlx"))
        || w.model
            .as_deref()
            .is_some_and(|m| !m.to_ascii_lowercase().ends_with(".gguf"))
}

/// The llama.cpp settings for an LM Studio engine with `entry` loaded, and the notes.
pub fn settings(entry: &LmsModel, source: &str) -> Result<(LlamaSettings, RuntimeNotes), String> {
    let ctx = entry.loaded_context_length.ok_or_else(|| {
        format!(
            "{source} lists {} as loaded without loaded_context_length (LM Studio before 0.3.x): the loaded context is not known",
            entry.id
        )
    })?;
    let mut s = LlamaSettings::default();
    // LM Studio keeps its load settings to itself: what the recipe assumes, said as such.
    let assumed = |key: &'static str| {
        SettingSource::Default(Said::new(
            "recipe-lmstudio-assumed",
            vec![("what", Said::new(key, vec![]).into())],
        ))
    };
    s.ctx_size = Setting {
        value: ctx,
        source: SettingSource::Runtime(Said::new(
            "recipe-lmstudio-ctx-from",
            vec![("id", entry.id.as_str().into()), ("source", source.into())],
        )),
    };
    s.parallel = Setting {
        value: 1,
        source: assumed("recipe-lmstudio-one-sequence"),
    };
    s.kv_unified = Setting {
        value: Some(true),
        source: assumed("recipe-lmstudio-unified"),
    };
    s.n_gpu_layers = Setting {
        value: GpuLayers::All,
        source: assumed("recipe-lmstudio-all-layers"),
    };
    let notes = RuntimeNotes {
        recipe: Some(RECIPE.to_string()),
        model_name: Some(entry.id.clone()),
        model_name_from: Some("LM Studio's /api/v0/models".into()),
        why_lead: Some(Said::new(
            "recipe-lmstudio-lead",
            vec![
                ("name", entry.id.as_str().into()),
                ("ctx", ctx.to_string().into()),
            ],
        )),
        ctx_per_slot: Some(ctx),
        slots: Some(1),
        reported: vec![ReportedFigure {
            what: "loaded_context_length".into(),
            bytes: None,
            text: Some(Said::new(
                "recipe-lmstudio-ctx",
                vec![
                    ("ctx", ctx.to_string().into()),
                    (
                        "max",
                        entry
                            .max_context_length
                            .map(|m| m.to_string())
                            .unwrap_or_else(|| "n/a".into())
                            .into(),
                    ),
                ],
            )),
            source: source.to_string(),
        }],
        not_modelled: vec![Said::new("recipe-lmstudio-nm-settings", vec![])],
        placement: None,
    };
    Ok((s, notes))
}

/// Everything the recipe needs for an LM Studio engine process. Without `/api/v0/models` (the
/// collection path does not ask HTTP) the loaded context is unknown, so there is no estimate.
pub fn inputs_for(
    w: &Workload,
    vendor: Option<Vendor>,
    models: Option<&Models>,
) -> Result<ProcessInputs, Said> {
    if is_mlx(w) {
        return Err(match w.model.as_deref() {
            Some(m) => Said::new("recipe-err-lms-mlx-model", vec![("model", m.into())]),
            None => Said::new("recipe-err-lms-mlx", vec![]),
        });
    }
    let model = w
        .model
        .clone()
        .ok_or_else(|| Said::new("recipe-err-lms-no-model", vec![]))?;
    let path = PathBuf::from(&model);
    let Some(models) = models else {
        return Err(Said::new("recipe-err-lms-not-asked", vec![]));
    };
    let entry = loaded_entry(&models.models, &path).ok_or_else(|| {
        let args = vec![
            ("source", models.source.as_str().into()),
            ("path", path.display().to_string().into()),
        ];
        Said::new("recipe-err-lms-no-match", args)
    })?;
    if entry.compatibility_type.as_deref() == Some("mlx") {
        let model = entry.id.as_str().into();
        return Err(Said::new(
            "recipe-err-lms-mlx-model",
            vec![("model", model)],
        ));
    }
    let gguf = GgufModel::open(&path).map_err(crate::runtimes::gguf_unreadable)?;
    let (mut settings, notes) = settings(entry, &models.source)?;
    settings.model = Some(model);
    settings.backend = crate::runtimes::llamacpp::backend_of(w, vendor);
    Ok(ProcessInputs {
        model_path: path,
        model: gguf,
        settings,
        notes,
    })
}
