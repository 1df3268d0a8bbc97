//! Runtimes that run the llama.cpp recipe with settings of their own (Ollama's runner, LM Studio's
//! engine): where each llama.cpp context parameter comes from for them, their own figures
//! (`reported`), and the one sentence that says why the process holds that much.

pub mod lmstudio;
pub mod ollama;

use crate::estimate::Estimate;
use crate::process_estimate::ProcessInputs;
use gpuledger_model::units::human_opt;
use gpuledger_model::{EstimatedMemory, Process, ReportedFigure, Vendor, Workload, WorkloadKind};
use std::path::Path;
use std::time::Duration;

/// What was asked of a runtime's own API (explain asks; the collection path never does).
#[derive(Debug, Clone, Default)]
pub enum Asked {
    #[default]
    Nothing,
    OllamaPs(Result<ollama::Ps, String>),
    LmStudio(Result<lmstudio::Models, String>),
}

impl Asked {
    /// Why the answer is missing, when it was asked and did not come.
    pub fn error(&self) -> Option<&str> {
        match self {
            Asked::OllamaPs(Err(e)) | Asked::LmStudio(Err(e)) => Some(e),
            _ => None,
        }
    }
}

/// Ask the runtime behind `w` for what its recipe needs (Ollama `/api/ps` from the runner's
/// `ollama serve` parent, LM Studio `/api/v0/models`). Loopback only, `timeout` per request.
pub fn ask(p: &Process, w: &Workload, proc_root: &Path, timeout: Duration) -> Asked {
    match w.kind {
        WorkloadKind::OllamaRunner => Asked::OllamaPs(ollama::fetch_ps(proc_root, p.pid, timeout)),
        WorkloadKind::LlamaCpp if ollama::serve_parent(w).is_some() => {
            Asked::OllamaPs(ollama::fetch_ps(proc_root, p.pid, timeout))
        }
        WorkloadKind::LmStudio => Asked::LmStudio(lmstudio::fetch_models(proc_root, p, timeout)),
        _ => Asked::Nothing,
    }
}

/// The recipe's inputs for the runtimes handled here; `None` for any other kind.
pub fn inputs_for(
    p: &Process,
    w: &Workload,
    proc_root: &Path,
    vendor: Option<Vendor>,
    asked: &Asked,
) -> Option<Result<ProcessInputs, String>> {
    match w.kind {
        WorkloadKind::OllamaRunner => {
            let ps = match asked {
                Asked::OllamaPs(Ok(ps)) => Some(ps),
                _ => None,
            };
            Some(ollama::inputs_for(p, w, proc_root, vendor, ps))
        }
        // Ollama v0.30+ starts upstream llama-server: its command line is llama-server's.
        WorkloadKind::LlamaCpp if ollama::serve_parent(w).is_some() => {
            let ps = match asked {
                Asked::OllamaPs(Ok(ps)) => Some(ps),
                _ => None,
            };
            Some(ollama::llama_server_child(p, w, proc_root, vendor, ps))
        }
        WorkloadKind::LmStudio => {
            let models = match asked {
                Asked::LmStudio(Ok(m)) => Some(m),
                _ => None,
            };
            Some(lmstudio::inputs_for(p, w, vendor, models))
        }
        _ => None,
    }
}

/// What a runtime adds to a recipe's estimate: never a figure of the estimate itself.
#[derive(Debug, Clone, Default, PartialEq)]
pub struct RuntimeNotes {
    /// The recipe name to show (`ollama/runner (llama.cpp)`); `None` = the recipe's own.
    pub recipe: Option<String>,
    /// The model's name in the runtime (`qwen3:8b`), when known.
    pub model_name: Option<String>,
    /// The start of the why sentence (`qwen3:8b kept loaded until 14:32 (OLLAMA_KEEP_ALIVE=5m)`);
    /// the estimate's parts are appended.
    pub why_lead: Option<String>,
    /// Tokens per slot and slots, as the runtime set them (for the why sentence).
    pub ctx_per_slot: Option<u64>,
    pub slots: Option<u64>,
    pub reported: Vec<ReportedFigure>,
    pub not_modelled: Vec<String>,
}

impl RuntimeNotes {
    /// The why sentence for estimate `e`.
    pub fn why(&self, e: &Estimate) -> Option<String> {
        let lead = self.why_lead.as_deref()?;
        let slots = self.slots.unwrap_or(e.context.n_seq_max);
        let per_slot = self.ctx_per_slot.unwrap_or(e.context.n_ctx_seq);
        Some(format!(
            "{lead}: {} weights, {} KV cache for {per_slot} tokens × {slots} slot{}",
            human_opt(Some(e.weights.gpu_bytes)),
            human_opt(Some(e.kv_cache.gpu_bytes)),
            if slots == 1 { "" } else { "s" }
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
    }
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
    let n = name.to_ascii_uppercase();
    [
        "KEY",
        "TOKEN",
        "SECRET",
        "PASS",
        "AUTH",
        "CREDENTIAL",
        "COOKIE",
    ]
    .iter()
    .any(|w| n.contains(w))
}

/// Read `names` (and only those) from `/proc/PID/environ` under `proc_root`, bounded.
pub(crate) fn read_environ(
    proc_root: &std::path::Path,
    pid: u32,
    names: &[&str],
) -> Result<Vec<(String, String)>, String> {
    let path = proc_root.join(pid.to_string()).join("environ");
    let raw = gpuledger_sources::regular::read_regular_prefix(&path, 1 << 20)
        .map_err(|e| format!("{}: {e}", path.display()))?;
    Ok(raw
        .split(|&b| b == 0)
        .filter_map(|kv| std::str::from_utf8(kv).ok()?.split_once('='))
        .filter(|(k, _)| names.contains(k) && !looks_secret(k))
        .map(|(k, v)| (k.to_string(), v.to_string()))
        .collect())
}

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
}
