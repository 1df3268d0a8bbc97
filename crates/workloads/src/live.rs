//! Live state from the runtime's own HTTP answers.
//!
//! Queries go to 127.0.0.1 only (the port comes from the process's own listening sockets), with a
//! short timeout and a body limit, and are never made on the collection path: `explain` and the
//! views ask for them on demand. A 401 is evidence (the server wants an API key), not an error;
//! gpuledger never sends a key.

use gpuledger_model::{Evidence, EvidenceKind, WorkloadKind};
use serde::Serialize;
use serde_json::Value;
use std::time::Duration;

/// Largest body read from an answer; model servers answer these endpoints in a few KiB.
const BODY_LIMIT: u64 = 1 << 20;

#[derive(Debug, Clone, Default, PartialEq, Serialize)]
pub struct LiveState {
    /// `llama-server`, `ollama`, `lm-studio`, `vllm`.
    pub server: String,
    pub port: u16,
    /// The server answered 401: it was started with an API key.
    pub auth_required: bool,
    #[serde(skip_serializing_if = "Option::is_none")]
    pub n_ctx: Option<u64>,
    #[serde(skip_serializing_if = "Option::is_none")]
    pub total_slots: Option<u64>,
    #[serde(skip_serializing_if = "Option::is_none")]
    pub slots_busy: Option<u64>,
    #[serde(skip_serializing_if = "Option::is_none")]
    pub model_path: Option<String>,
    #[serde(skip_serializing_if = "Option::is_none")]
    pub build: Option<String>,
    #[serde(skip_serializing_if = "Option::is_none")]
    pub tokens_per_second: Option<f64>,
    #[serde(skip_serializing_if = "Option::is_none")]
    pub kv_cache_usage_ratio: Option<f64>,
    #[serde(skip_serializing_if = "Vec::is_empty")]
    pub models: Vec<LoadedModel>,
    /// What could not be asked, and why.
    #[serde(skip_serializing_if = "Vec::is_empty")]
    pub unavailable: Vec<String>,
}

/// A model a multi-model server reports as loaded (Ollama `/api/ps`, LM Studio `/api/v0/models`).
#[derive(Debug, Clone, Default, PartialEq, Serialize)]
pub struct LoadedModel {
    pub name: String,
    #[serde(skip_serializing_if = "Option::is_none")]
    pub size_bytes: Option<u64>,
    /// The runtime's own figure for its VRAM use: shown beside estimates, never as a measurement.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub vram_bytes: Option<u64>,
    #[serde(skip_serializing_if = "Option::is_none")]
    pub context_length: Option<u64>,
}

/// One HTTP answer.
#[derive(Debug, Clone, PartialEq)]
pub struct Reply {
    pub status: u16,
    pub body: String,
}

/// GET `http://127.0.0.1:port/path`. Loopback is fixed here, not a parameter.
pub fn get(port: u16, path: &str, timeout: Duration) -> Result<Reply, String> {
    let agent: ureq::Agent = ureq::Agent::config_builder()
        .timeout_global(Some(timeout))
        .http_status_as_error(false)
        .max_redirects(0)
        .build()
        .into();
    let url = format!("http://127.0.0.1:{port}{path}");
    let mut resp = agent
        .get(&url)
        .call()
        .map_err(|e| format!("GET {url}: {e}"))?;
    let status = resp.status().as_u16();
    let body = resp
        .body_mut()
        .with_config()
        .limit(BODY_LIMIT)
        .read_to_string()
        .map_err(|e| format!("GET {url}: reading the body: {e}"))?;
    Ok(Reply { status, body })
}

/// Ask the endpoints `kind` is known to serve on each of `ports`; the first port that answers
/// like that server wins. Returns the state and the evidence the answers gave.
pub fn query(
    kind: WorkloadKind,
    ports: &[u16],
    timeout: Duration,
) -> (Option<LiveState>, Vec<Evidence>) {
    query_with(kind, ports, &|port, path| get(port, path, timeout))
}

/// [`query`] over any transport (tests pass canned answers).
pub fn query_with(
    kind: WorkloadKind,
    ports: &[u16],
    fetch: &dyn Fn(u16, &str) -> Result<Reply, String>,
) -> (Option<LiveState>, Vec<Evidence>) {
    let mut evidence = Vec::new();
    for &port in ports {
        let state = match kind {
            WorkloadKind::LlamaCpp => llama_server(port, fetch, &mut evidence),
            WorkloadKind::Ollama => ollama(port, fetch, &mut evidence),
            WorkloadKind::LmStudio => lm_studio(port, fetch, &mut evidence),
            WorkloadKind::Vllm => vllm(port, fetch, &mut evidence),
            WorkloadKind::Sglang => sglang(port, fetch, &mut evidence),
            _ => None,
        };
        if state.is_some() {
            return (state, evidence);
        }
    }
    (None, evidence)
}

/// The body of an HTTP 200 answer to `GET path`; `None` for any other answer or none.
fn answer(
    fetch: &dyn Fn(u16, &str) -> Result<Reply, String>,
    port: u16,
    path: &str,
) -> Option<String> {
    fetch(port, path)
        .ok()
        .filter(|r| r.status == 200)
        .map(|r| r.body)
}

fn http_evidence(port: u16, path: &str, showed: String) -> Evidence {
    Evidence {
        kind: EvidenceKind::Http,
        showed,
        source: format!("GET http://127.0.0.1:{port}{path}"),
    }
}

/// llama-server: `/props` (context, slots, model; a 401 means an API key), then `/slots` and
/// `/metrics` for what is busy and how fast.
fn llama_server(
    port: u16,
    fetch: &dyn Fn(u16, &str) -> Result<Reply, String>,
    ev: &mut Vec<Evidence>,
) -> Option<LiveState> {
    let props = fetch(port, "/props").ok()?;
    let mut st = LiveState {
        server: "llama-server".into(),
        port,
        ..Default::default()
    };
    match props.status {
        200 => read_props(port, &props.body, &mut st, ev)?,
        401 => {
            key_required(port, fetch, &mut st, ev);
            return Some(st);
        }
        _ => return None,
    }
    read_slots(port, fetch, &mut st, ev);
    match fetch(port, "/metrics") {
        Ok(r) if r.status == 200 => {
            st.tokens_per_second = metric(&r.body, "llamacpp:predicted_tokens_seconds")
        }
        Ok(r) if r.status == 501 => st
            .unavailable
            .push("tokens per second: metrics are off (start llama-server with --metrics)".into()),
        Ok(r) => st.unavailable.push(format!(
            "tokens per second: /metrics answered HTTP {}",
            r.status
        )),
        Err(e) => st.unavailable.push(format!("tokens per second: {e}")),
    }
    Some(st)
}

/// llama-server's `/props` body into `st`; `None` when it is another server's.
fn read_props(port: u16, body: &str, st: &mut LiveState, ev: &mut Vec<Evidence>) -> Option<()> {
    let v: Value = serde_json::from_str(body).ok()?;
    // Only llama-server's /props has these keys; anything else is another server.
    let n_ctx = v
        .pointer("/default_generation_settings/n_ctx")
        .and_then(Value::as_u64);
    n_ctx.or(v.get("total_slots").and_then(Value::as_u64))?;
    st.n_ctx = n_ctx;
    st.total_slots = v.get("total_slots").and_then(Value::as_u64);
    st.model_path = v
        .get("model_path")
        .and_then(Value::as_str)
        .map(str::to_string);
    st.build = v
        .get("build_info")
        .and_then(Value::as_str)
        .map(str::to_string);
    let mut parts = vec!["llama-server /props".to_string()];
    if let Some(c) = st.n_ctx {
        parts.push(format!("context {c}"));
    }
    if let Some(s) = st.total_slots {
        parts.push(format!("{s} slots"));
    }
    if let Some(m) = &st.model_path {
        parts.push(format!("model {m}"));
    }
    ev.push(http_evidence(port, "/props", parts.join(", ")));
    Some(())
}

/// `/props` answered 401: say so, and let `/health` (no key needed) confirm what answered.
fn key_required(
    port: u16,
    fetch: &dyn Fn(u16, &str) -> Result<Reply, String>,
    st: &mut LiveState,
    ev: &mut Vec<Evidence>,
) {
    st.auth_required = true;
    st.unavailable
        .push("context, slots and model: the server requires an API key (HTTP 401)".into());
    ev.push(http_evidence(
        port,
        "/props",
        "HTTP 401: the server was started with an API key".into(),
    ));
    if let Ok(h) = fetch(port, "/health") {
        if h.status == 200 {
            ev.push(http_evidence(
                port,
                "/health",
                "HTTP 200 (no key needed)".into(),
            ));
        }
    }
}

/// How many of llama-server's slots are busy (`/slots`; off with `--no-slots`).
fn read_slots(
    port: u16,
    fetch: &dyn Fn(u16, &str) -> Result<Reply, String>,
    st: &mut LiveState,
    ev: &mut Vec<Evidence>,
) {
    match fetch(port, "/slots") {
        Ok(r) if r.status == 200 => {
            if let Ok(Value::Array(slots)) = serde_json::from_str::<Value>(&r.body) {
                let busy = slots
                    .iter()
                    .filter(|s| s.get("is_processing").and_then(Value::as_bool) == Some(true))
                    .count();
                st.slots_busy = Some(busy as u64);
                ev.push(http_evidence(
                    port,
                    "/slots",
                    format!("{busy} of {} slots busy", slots.len()),
                ));
            }
        }
        Ok(r) => st.unavailable.push(format!(
            "slots: /slots answered HTTP {} (started with --no-slots?)",
            r.status
        )),
        Err(e) => st.unavailable.push(format!("slots: {e}")),
    }
}

fn ollama(
    port: u16,
    fetch: &dyn Fn(u16, &str) -> Result<Reply, String>,
    ev: &mut Vec<Evidence>,
) -> Option<LiveState> {
    let body = answer(fetch, port, "/api/ps")?;
    let models = parse_ollama_ps(&body)?;
    ev.push(http_evidence(
        port,
        "/api/ps",
        format!(
            "Ollama: {} model{} loaded{}",
            models.len(),
            if models.len() == 1 { "" } else { "s" },
            if models.is_empty() {
                String::new()
            } else {
                format!(
                    " ({})",
                    models
                        .iter()
                        .map(|m| m.name.as_str())
                        .collect::<Vec<_>>()
                        .join(", ")
                )
            }
        ),
    ));
    Some(LiveState {
        server: "ollama".into(),
        port,
        models,
        ..Default::default()
    })
}

fn lm_studio(
    port: u16,
    fetch: &dyn Fn(u16, &str) -> Result<Reply, String>,
    ev: &mut Vec<Evidence>,
) -> Option<LiveState> {
    let body = answer(fetch, port, "/api/v0/models")?;
    // The one /api/v0/models parser: runtimes::lmstudio's.
    let models: Vec<LoadedModel> = crate::runtimes::lmstudio::parse_models(&body)
        .ok()?
        .into_iter()
        .filter(|m| m.state.as_deref() == Some("loaded"))
        .map(|m| LoadedModel {
            name: m.id,
            context_length: m.loaded_context_length.or(m.max_context_length),
            ..Default::default()
        })
        .collect();
    ev.push(http_evidence(
        port,
        "/api/v0/models",
        format!("LM Studio: {} model(s) loaded", models.len()),
    ));
    Some(LiveState {
        server: "lm-studio".into(),
        port,
        models,
        ..Default::default()
    })
}

fn vllm(
    port: u16,
    fetch: &dyn Fn(u16, &str) -> Result<Reply, String>,
    ev: &mut Vec<Evidence>,
) -> Option<LiveState> {
    let body = answer(fetch, port, "/metrics")?;
    // The recipe's reader: the same "is it vLLM's" check and V1/V0 usage names.
    let usage = crate::runtimes::vllm::parse_metrics(&body, "")?.kv_usage;
    let running = metric(&body, "vllm:num_requests_running");
    ev.push(http_evidence(port, "/metrics", "vLLM metrics".into()));
    Some(LiveState {
        server: "vllm".into(),
        port,
        kv_cache_usage_ratio: usage,
        slots_busy: running.map(|r| r as u64),
        ..Default::default()
    })
}

/// SGLang's `/get_server_info` (`/server_info` in newer releases): its arguments and pool size.
fn sglang(
    port: u16,
    fetch: &dyn Fn(u16, &str) -> Result<Reply, String>,
    ev: &mut Vec<Evidence>,
) -> Option<LiveState> {
    for path in ["/get_server_info", "/server_info"] {
        let Some(body) = answer(fetch, port, path) else {
            continue;
        };
        let Some(info) = crate::runtimes::sglang::parse_server_info(&body, path) else {
            continue;
        };
        let v: Value = serde_json::from_str(&body).unwrap_or_default();
        let model_path = v
            .get("model_path")
            .and_then(Value::as_str)
            .map(str::to_string);
        ev.push(http_evidence(
            port,
            path,
            format!(
                "SGLang server info{}",
                info.max_total_num_tokens
                    .map(|t| format!(", max_total_num_tokens {t}"))
                    .unwrap_or_default()
            ),
        ));
        return Some(LiveState {
            server: "sglang".into(),
            port,
            n_ctx: v.get("context_length").and_then(Value::as_u64),
            model_path,
            ..Default::default()
        });
    }
    None
}

/// Ollama `/api/ps` as the loaded models the live state lists; the answer is read by the one
/// `/api/ps` parser, [`crate::runtimes::ollama::parse_ps`].
pub fn parse_ollama_ps(body: &str) -> Option<Vec<LoadedModel>> {
    let models = crate::runtimes::ollama::parse_ps(body).ok()?;
    Some(
        models
            .into_iter()
            .map(|m| LoadedModel {
                name: m.name,
                size_bytes: m.size,
                vram_bytes: m.size_vram,
                context_length: m.context_length,
            })
            .collect(),
    )
}

/// Index of the `}` closing a label set, skipping quoted values (which may contain `}`).
fn label_end(s: &str) -> Option<usize> {
    let mut quoted = false;
    let mut escaped = false;
    for (i, c) in s.char_indices() {
        match c {
            _ if escaped => escaped = false,
            '\\' if quoted => escaped = true,
            '"' => quoted = !quoted,
            '}' if !quoted => return Some(i),
            _ => {}
        }
    }
    None
}

/// First sample of `name` in Prometheus text (labels ignored).
pub fn metric(text: &str, name: &str) -> Option<f64> {
    text.lines().filter(|l| !l.starts_with('#')).find_map(|l| {
        let rest = l.strip_prefix(name)?;
        let rest = match rest.chars().next()? {
            '{' => &rest[label_end(rest)? + 1..],
            ' ' => rest,
            _ => return None,
        };
        rest.split_whitespace().next()?.parse().ok()
    })
}

#[cfg(test)]
mod tests {
    use super::*;
    use std::collections::HashMap;

    fn canned(
        map: HashMap<&'static str, (u16, &'static str)>,
    ) -> impl Fn(u16, &str) -> Result<Reply, String> {
        move |_, path| {
            map.get(path)
                .map(|(s, b)| Reply {
                    status: *s,
                    body: b.to_string(),
                })
                .ok_or_else(|| "connection refused".to_string())
        }
    }

    #[test]
    fn llama_server_props_slots_metrics() {
        let f = canned(HashMap::from([
            ("/props", (200, r#"{"default_generation_settings":{"n_ctx":4096},"total_slots":4,"model_path":"/m/tiny.gguf","build_info":"b1-7e4c0a9"}"#)),
            ("/slots", (200, r#"[{"id":0,"is_processing":true},{"id":1,"is_processing":false},{"id":2,"is_processing":false},{"id":3,"is_processing":true}]"#)),
            ("/metrics", (200, "# HELP x\nllamacpp:prompt_tokens_seconds 10.5\nllamacpp:predicted_tokens_seconds 42.25\n")),
        ]));
        let (st, ev) = query_with(WorkloadKind::LlamaCpp, &[8080], &f);
        let st = st.unwrap();
        assert_eq!(st.n_ctx, Some(4096));
        assert_eq!(st.total_slots, Some(4));
        assert_eq!(st.slots_busy, Some(2));
        assert_eq!(st.tokens_per_second, Some(42.25));
        assert_eq!(st.model_path.as_deref(), Some("/m/tiny.gguf"));
        assert!(!st.auth_required);
        assert_eq!(
            ev[0].showed,
            "llama-server /props, context 4096, 4 slots, model /m/tiny.gguf"
        );
        assert_eq!(ev[0].source, "GET http://127.0.0.1:8080/props");
        assert_eq!(ev[1].showed, "2 of 4 slots busy");
    }

    #[test]
    fn api_key_401_is_evidence() {
        let f = canned(HashMap::from([
            (
                "/props",
                (401, r#"{"error":{"code":401,"message":"Invalid API Key"}}"#),
            ),
            ("/health", (200, r#"{"status":"ok"}"#)),
        ]));
        let (st, ev) = query_with(WorkloadKind::LlamaCpp, &[8080], &f);
        let st = st.unwrap();
        assert!(st.auth_required);
        assert_eq!(st.n_ctx, None);
        assert!(ev[0].showed.contains("401"));
        assert!(ev.iter().any(|e| e.source.ends_with("/health")));
    }

    #[test]
    fn metrics_off_is_explained() {
        let f = canned(HashMap::from([
            (
                "/props",
                (
                    200,
                    r#"{"default_generation_settings":{"n_ctx":256},"total_slots":1}"#,
                ),
            ),
            ("/slots", (200, "[]")),
            ("/metrics", (501, "{}")),
        ]));
        let st = query_with(WorkloadKind::LlamaCpp, &[1], &f).0.unwrap();
        assert_eq!(st.tokens_per_second, None);
        assert!(st.unavailable.iter().any(|u| u.contains("--metrics")));
    }

    #[test]
    fn other_servers_on_the_port_are_not_llama() {
        let f = canned(HashMap::from([("/props", (200, r#"{"hello":"world"}"#))]));
        assert!(query_with(WorkloadKind::LlamaCpp, &[1], &f).0.is_none());
        let f = canned(HashMap::from([("/props", (404, "not found"))]));
        assert!(query_with(WorkloadKind::LlamaCpp, &[1], &f).0.is_none());
    }

    #[test]
    fn second_port_answers() {
        let f = |port: u16, path: &str| -> Result<Reply, String> {
            match (port, path) {
                (2, "/props") => Ok(Reply {
                    status: 200,
                    body: r#"{"default_generation_settings":{"n_ctx":8},"total_slots":1}"#.into(),
                }),
                _ => Err("refused".into()),
            }
        };
        assert_eq!(
            query_with(WorkloadKind::LlamaCpp, &[1, 2], &f)
                .0
                .unwrap()
                .port,
            2
        );
    }

    #[test]
    fn ollama_ps() {
        let body = r#"{"models":[{"name":"qwen3:8b","model":"qwen3:8b","size":6654289920,"size_vram":6654289920,"context_length":4096,"expires_at":"2026-11-29T09:00:00Z"}]}"#;
        let f = canned(HashMap::from([("/api/ps", (200, body))]));
        let (st, ev) = query_with(WorkloadKind::Ollama, &[11434], &f);
        let m = &st.unwrap().models[0];
        assert_eq!(m.name, "qwen3:8b");
        assert_eq!(m.vram_bytes, Some(6654289920));
        assert_eq!(m.context_length, Some(4096));
        assert_eq!(ev[0].showed, "Ollama: 1 model loaded (qwen3:8b)");
    }

    #[test]
    fn lm_studio_and_vllm() {
        let f = canned(HashMap::from([(
            "/api/v0/models",
            (
                200,
                r#"{"data":[{"id":"qwen3-8b","state":"loaded","max_context_length":32768},{"id":"other","state":"not-loaded"}]}"#,
            ),
        )]));
        let st = query_with(WorkloadKind::LmStudio, &[1234], &f).0.unwrap();
        assert_eq!(st.models.len(), 1);
        assert_eq!(st.models[0].context_length, Some(32768));
        let f = canned(HashMap::from([("/metrics", (200, "vllm:num_requests_running{model_name=\"m\"} 3.0\nvllm:kv_cache_usage_perc{model_name=\"m\"} 0.25\n"))]));
        let st = query_with(WorkloadKind::Vllm, &[8000], &f).0.unwrap();
        assert_eq!(st.kv_cache_usage_ratio, Some(0.25));
        assert_eq!(st.slots_busy, Some(3));
    }

    #[test]
    fn sglang_server_info_old_and_new_paths() {
        let body = r#"{"model_path":"/m/Qwen3-8B","tp_size":1,"mem_fraction_static":0.88,"context_length":40960,"max_total_num_tokens":431000}"#;
        let f = canned(HashMap::from([("/get_server_info", (200, body))]));
        let (st, ev) = query_with(WorkloadKind::Sglang, &[30000], &f);
        let st = st.unwrap();
        assert_eq!(st.server, "sglang");
        assert_eq!(st.model_path.as_deref(), Some("/m/Qwen3-8B"));
        assert_eq!(st.n_ctx, Some(40960));
        assert!(ev[0].showed.contains("431000"), "{}", ev[0].showed);
        let f = canned(HashMap::from([
            ("/get_server_info", (404, "")),
            ("/server_info", (200, body)),
        ]));
        assert!(query_with(WorkloadKind::Sglang, &[1], &f).0.is_some());
        let f = canned(HashMap::from([("/get_server_info", (200, "{}"))]));
        assert!(query_with(WorkloadKind::Sglang, &[1], &f).0.is_none());
    }

    #[test]
    fn metric_parser() {
        assert_eq!(metric("a_b 1\na 2\n", "a"), Some(2.0));
        assert_eq!(metric("a{x=\"y\"} 3", "a"), Some(3.0));
        assert_eq!(metric("a{x=\"}\"} 4", "a"), Some(4.0));
        assert_eq!(metric("# a 5\n", "a"), None);
    }

    #[test]
    fn real_http_on_loopback_with_chunked_body() {
        use std::io::{Read, Write};
        let l = std::net::TcpListener::bind("127.0.0.1:0").unwrap();
        let port = l.local_addr().unwrap().port();
        let t = std::thread::spawn(move || {
            let (mut s, _) = l.accept().unwrap();
            let mut buf = [0u8; 1024];
            let n = s.read(&mut buf).unwrap();
            let req = String::from_utf8_lossy(&buf[..n]).to_string();
            s.write_all(b"HTTP/1.1 200 OK\r\nContent-Type: application/json\r\nTransfer-Encoding: chunked\r\n\r\n7\r\n{\"a\":1}\r\n0\r\n\r\n").unwrap();
            req
        });
        let r = get(port, "/api/ps", Duration::from_secs(2)).unwrap();
        assert_eq!(r.status, 200);
        assert_eq!(r.body, "{\"a\":1}");
        let req = t.join().unwrap();
        assert!(req.starts_with("GET /api/ps HTTP/1.1"), "{req}");
        assert!(!req.to_ascii_lowercase().contains("authorization"));
    }

    #[test]
    fn silent_server_times_out() {
        let l = std::net::TcpListener::bind("127.0.0.1:0").unwrap();
        let port = l.local_addr().unwrap().port();
        let start = std::time::Instant::now();
        let r = get(port, "/props", Duration::from_millis(200));
        assert!(r.is_err());
        assert!(start.elapsed() < Duration::from_secs(3));
        drop(l);
    }
}
