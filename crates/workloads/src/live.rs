//! Live state from the runtime's own HTTP answers.
//!
//! Queries go to 127.0.0.1 only (the port comes from the process's own listening sockets), with a
//! short timeout and a body limit. `explain` asks on demand; a collection round asks only through
//! [`crate::asking`] (inline for a one-round command, else in the background). A 401 is evidence (the server wants an API key), not an error;
//! gpuledger never sends a key.

use gpuledger_lang::Said;
pub use gpuledger_model::live::{LiveState, LoadedModel};
use gpuledger_model::{Evidence, EvidenceKind};
use std::collections::HashMap;
use std::sync::Mutex;
use std::time::Duration;

/// Largest body read from an answer; model servers answer these endpoints in a few KiB.
const BODY_LIMIT: u64 = 1 << 20;

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

/// Loopback requests of one round (or one background job), each asked once: the eight workers
/// of one vLLM server ask its `/metrics` once, and a server that does not answer costs one
/// timeout per path, not one per worker.
pub struct Asker {
    pub timeout: Duration,
    answers: Mutex<HashMap<(u16, String), Result<Reply, String>>>,
}

impl Asker {
    pub fn new(timeout: Duration) -> Asker {
        Asker {
            timeout,
            answers: Mutex::default(),
        }
    }

    /// `GET http://127.0.0.1:port/path`, or what the same request answered earlier.
    pub fn get(&self, port: u16, path: &str) -> Result<Reply, String> {
        let key = (port, path.to_string());
        if let Some(a) = self.lock().get(&key) {
            return a.clone();
        }
        // Not held across the request: another thread may ask another port meanwhile.
        let a = get(port, path, self.timeout);
        self.lock().insert(key, a.clone());
        a
    }

    fn lock(&self) -> std::sync::MutexGuard<'_, HashMap<(u16, String), Result<Reply, String>>> {
        self.answers.lock().unwrap_or_else(|e| e.into_inner())
    }
}

/// The body of an HTTP 200 answer to `GET path`; `None` for any other answer or none.
pub(crate) fn answer(
    fetch: &dyn Fn(u16, &str) -> Result<Reply, String>,
    port: u16,
    path: &str,
) -> Option<String> {
    fetch(port, path)
        .ok()
        .filter(|r| r.status == 200)
        .map(|r| r.body)
}

pub(crate) fn http_evidence(port: u16, path: &str, showed: impl Into<Said>) -> Evidence {
    Evidence {
        kind: EvidenceKind::Http,
        showed: showed.into(),
        source: format!("GET http://127.0.0.1:{port}{path}"),
    }
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
    metric_raw(text, name)?.parse().ok()
}

/// The value of the first sample of `name` as written (`0.25`, `NaN`, `+Inf`), for
/// [`crate::figures`] to check.
pub fn metric_raw<'a>(text: &'a str, name: &str) -> Option<&'a str> {
    text.lines().filter(|l| !l.starts_with('#')).find_map(|l| {
        let rest = l.strip_prefix(name)?;
        let rest = match rest.chars().next()? {
            '{' => &rest[label_end(rest)? + 1..],
            ' ' => rest,
            _ => return None,
        };
        rest.split_whitespace().next()
    })
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::runtimes::query_with;
    use gpuledger_model::WorkloadKind;
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
    fn impossible_live_figures_are_unavailable_with_the_answer_quoted() {
        // Issue 40, item 5: llama-server, vLLM and SGLang answering what cannot be true.
        let f = canned(HashMap::from([
            (
                "/props",
                (
                    200,
                    r#"{"default_generation_settings":{"n_ctx":-4096},"total_slots":18446744073709551615}"#,
                ),
            ),
            ("/slots", (200, "[]")),
            ("/metrics", (200, "llamacpp:predicted_tokens_seconds NaN\n")),
        ]));
        let st = query_with(WorkloadKind::LlamaCpp, &[8080], &f).0.unwrap();
        assert_eq!(
            (st.n_ctx, st.total_slots, st.tokens_per_second),
            (None, None, None)
        );
        let u = st.unavailable.join("\n");
        for want in [
            "context size: the runtime answered \"-4096\": negative",
            "slots: the runtime answered \"18446744073709551615\": more than 2^40",
            "tokens per second: the runtime answered \"NaN\": not a finite number",
        ] {
            assert!(u.contains(want), "{u}");
        }
        let f = canned(HashMap::from([(
            "/metrics",
            (
                200,
                "vllm:kv_cache_usage_perc{engine=\"0\"} +Inf\nvllm:num_requests_running -3\n",
            ),
        )]));
        let st = query_with(WorkloadKind::Vllm, &[8000], &f).0.unwrap();
        assert_eq!((st.kv_cache_usage_ratio, st.slots_busy), (None, None));
        let u = st.unavailable.join("\n");
        assert!(
            u.contains("KV cache in use: the runtime answered \"+Inf\""),
            "{u}"
        );
        assert!(
            u.contains("requests running: the runtime answered \"-3\": negative"),
            "{u}"
        );
        let f = canned(HashMap::from([(
            "/get_server_info",
            (
                200,
                r#"{"max_total_num_tokens":1e300,"mem_fraction_static":1.5,"context_length":-1}"#,
            ),
        )]));
        let st = query_with(WorkloadKind::Sglang, &[30000], &f).0.unwrap();
        assert_eq!(st.n_ctx, None);
        let u = st.unavailable.join("\n");
        for want in [
            "max_total_num_tokens: the runtime answered \"1e+300\"",
            "mem_fraction_static: the runtime answered \"1.5\"",
            "context length: the runtime answered \"-1\"",
        ] {
            assert!(u.contains(want), "{u}");
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

    /// The workers of one server ask it once per round: a silent server costs one timeout per
    /// path, not one per worker.
    #[test]
    fn a_rounds_asker_asks_each_path_once() {
        let l = std::net::TcpListener::bind("127.0.0.1:0").unwrap();
        let port = l.local_addr().unwrap().port();
        let asker = Asker::new(Duration::from_millis(200));
        let start = std::time::Instant::now();
        for _ in 0..8 {
            assert!(asker.get(port, "/metrics").is_err());
        }
        assert!(asker.get(port, "/version").is_err());
        // Two timeouts (two paths), not nine.
        assert!(
            start.elapsed() < Duration::from_millis(1500),
            "{:?}",
            start.elapsed()
        );
        l.set_nonblocking(true).unwrap();
        let accepted = std::iter::from_fn(|| l.accept().ok()).count();
        assert_eq!(accepted, 2, "one connection per path");
    }
}
