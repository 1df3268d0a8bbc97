//! Ollama's HTTP API as the recipe uses it: `GET /api/ps` (the loaded models, their sizes and
//! context) and `GET /api/version`, asked of the `ollama serve` parent, and the runtime's own
//! figures and why-sentence lead taken from a `/api/ps` entry.

use super::{ServeEnv, ENV_NAMES};
use crate::figures::{Checked, Kind};
use crate::runtimes::loopback::{answers, candidate_ports};
use crate::runtimes::{env_get, read_environ, short_time};
use gpuledger_lang::Said;
use gpuledger_model::ReportedFigure;
use serde_json::Value;
use std::path::Path;
use std::time::Duration;

/// One model in Ollama's `GET /api/ps` answer.
#[derive(Debug, Clone, Default, PartialEq)]
pub struct PsModel {
    pub name: String,
    pub size: Option<u64>,
    pub size_vram: Option<u64>,
    pub context_length: Option<u64>,
    pub expires_at: Option<String>,
    /// Figures the answer gave that cannot be true (left out above).
    pub invalid: Checked,
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

/// The answer of `path` is not JSON.
pub(crate) fn not_json(path: &str, e: &serde_json::Error) -> Said {
    let said = vec![("path", path.into()), ("error", e.to_string().into())];
    Said::new("recipe-err-api-not-json", said)
}

/// The answer of `path` has no `list` array.
pub(crate) fn no_list(path: &str, list: &str) -> Said {
    let said = vec![("path", path.into()), ("list", list.into())];
    Said::new("recipe-err-api-no-list", said)
}

/// No port answered `path`; `errors` says what each did.
pub(crate) fn no_answer(path: &str, errors: Vec<Said>) -> Said {
    let said = vec![
        ("path", path.into()),
        ("errors", gpuledger_lang::said::Arg::List(errors)),
    ];
    Said::new("recipe-err-api-no-answer", said)
}

/// Parse `/api/ps` (`{"models":[{"name","size","size_vram","context_length","expires_at"}]}`).
pub fn parse_ps(body: &str) -> Result<Vec<PsModel>, Said> {
    let v: Value = serde_json::from_str(body).map_err(|e| not_json("/api/ps", &e))?;
    let list = v
        .get("models")
        .and_then(Value::as_array)
        .ok_or_else(|| no_list("/api/ps", "models"))?;
    Ok(list.iter().map(ps_model).collect())
}

/// One `/api/ps` entry, its figures checked: a negative, fractional or impossible size is
/// unknown (noted), never 0 or a wrapped number.
fn ps_model(m: &Value) -> PsModel {
    let mut bad = Checked::default();
    let size = bad
        .json("size", m.get("size"), Kind::Bytes)
        .map(|b| b as u64);
    let vram = m.get("size_vram");
    let mut size_vram = bad.json("size_vram", vram, Kind::Bytes).map(|b| b as u64);
    // Old versions leave size_vram out when it is 0 (ollama/ollama#4840).
    if vram.is_none() && m.get("size").is_some() {
        size_vram = Some(0);
    }
    PsModel {
        name: m
            .get("name")
            .or(m.get("model"))
            .and_then(Value::as_str)
            .unwrap_or("?")
            .to_string(),
        size,
        size_vram,
        context_length: bad.json_count("context_length", m.get("context_length")),
        expires_at: m
            .get("expires_at")
            .and_then(Value::as_str)
            .map(str::to_string),
        invalid: bad,
    }
}

/// Ask `ollama serve` (the runner's parent) for `/api/ps` on its listening ports, else on
/// `OLLAMA_HOST`'s port, else on 11434. Loopback only, time-bounded.
pub fn fetch_ps(proc_root: &Path, runner_pid: u32, timeout: Duration) -> Result<Ps, Said> {
    let procs = gpuledger_sources::procfs::ProcReader::new(proc_root);
    let ppid = gpuledger_sources::parent_pid(&procs, runner_pid).ok_or_else(|| {
        let pid = vec![("pid", runner_pid.to_string().into())];
        Said::new("recipe-err-ollama-parent", pid)
    })?;
    let mut ports = gpuledger_sources::process_facts(&procs, ppid).listen_ports;
    let env = read_environ(proc_root, ppid, ENV_NAMES).unwrap_or_default();
    if let Some(p) = env_get(&env, "OLLAMA_HOST")
        .and_then(|h| h.rsplit(':').next())
        .and_then(|p| p.trim_end_matches('/').parse().ok())
    {
        ports.push(p);
    }
    let mut errors = Vec::new();
    for answer in answers(candidate_ports(ports, 11434), "/api/ps", timeout) {
        let (port, body) = match answer {
            Ok(a) => a,
            Err(e) => {
                errors.push(Said::verbatim(e));
                continue;
            }
        };
        let version = crate::live::get(port, "/api/version", timeout)
            .ok()
            .filter(|r| r.status == 200)
            .and_then(|r| serde_json::from_str::<Value>(&r.body).ok())
            .and_then(|v| v.get("version")?.as_str().map(str::to_string));
        return parse_ps(&body)
            .map(|models| Ps {
                models,
                source: format!("GET http://127.0.0.1:{port}/api/ps"),
                version,
            })
            .map_err(|e| {
                let url = format!("http://127.0.0.1:{port}/api/ps");
                Said::new(
                    "recipe-err-api-get",
                    vec![("url", url.into()), ("error", e.into())],
                )
            });
    }
    Err(no_answer("/api/ps", errors))
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
pub(super) fn reported(
    m: &PsModel,
    source: &str,
    env: &ServeEnv,
) -> (Vec<ReportedFigure>, Option<Said>) {
    let mut out = Vec::new();
    let fig = |what: Said, bytes: Option<u64>, text: Option<Said>| {
        ReportedFigure::new(what, bytes, text, source)
    };
    if m.size.is_some() {
        out.push(fig(Said::new("recipe-ollama-size", vec![]), m.size, None));
    }
    if m.size_vram.is_some() {
        out.push(fig("size_vram".into(), m.size_vram, None));
    }
    if let Some(c) = m.context_length {
        out.push(fig(
            "context_length".into(),
            None,
            Some(Said::new(
                "recipe-ollama-ctx-per-slot",
                vec![("n", c.to_string().into())],
            )),
        ));
    }
    out.extend(m.invalid.figures(source));
    let keep = match env_get(&env.vars, "OLLAMA_KEEP_ALIVE") {
        Some(k) => Said::verbatim(format!("OLLAMA_KEEP_ALIVE={k}")),
        None => Said::new("recipe-ollama-keep-default", vec![]),
    };
    let name = m.name.as_str();
    let lead = match &m.expires_at {
        Some(t) => {
            let until = short_time(t);
            let args = vec![("until", until.into()), ("keep", keep.into())];
            out.push(fig(
                "expires_at".into(),
                None,
                Some(Said::new("recipe-ollama-kept", args.clone())),
            ));
            let mut args = args;
            args.push(("name", name.into()));
            Said::new("recipe-ollama-lead-kept", args)
        }
        None => Said::new("recipe-ollama-lead-loaded", vec![("name", name.into())]),
    };
    (out, Some(lead))
}

#[cfg(test)]
mod tests {
    use super::*;

    /// Issue 40, item 5: a negative or impossible size is unknown with the answer quoted, never
    /// the 0 an absent `size_vram` means.
    #[test]
    fn impossible_sizes_are_unknown_not_zero() {
        let ps = parse_ps(
            r#"{"models":[{"name":"q:8b","size":-1,"size_vram":1e30,"context_length":4096}]}"#,
        )
        .unwrap();
        let m = &ps[0];
        assert_eq!(
            (m.size, m.size_vram, m.context_length),
            (None, None, Some(4096))
        );
        let (r, _) = reported(m, "GET /api/ps", &ServeEnv::default());
        let text: Vec<String> = r
            .iter()
            .map(|f| {
                format!(
                    "{}: {:?} {}",
                    f.what,
                    f.bytes,
                    f.text.clone().unwrap_or_default()
                )
            })
            .collect();
        let all = text.join("\n");
        assert!(
            all.contains("size: None n/a: the runtime answered \"-1\": negative"),
            "{all}"
        );
        assert!(
            all.contains("size_vram: None n/a: the runtime answered \"1e+30\": more than 1 PiB"),
            "{all}"
        );
        // Old servers leave size_vram out when it is 0: still 0.
        let old = parse_ps(r#"{"models":[{"name":"q","size":5}]}"#).unwrap();
        assert_eq!(old[0].size_vram, Some(0));
        assert!(old[0].invalid.rejected.is_empty());
    }
}
