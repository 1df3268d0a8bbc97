//! SGLang's server info as the live state.

use crate::live::{answer, http_evidence, LiveState};
use crate::runtimes::Fetch;
use gpuledger_lang::Said;
use gpuledger_model::Evidence;
use serde_json::Value;

/// SGLang's `/get_server_info` (`/server_info` in newer releases): its arguments and pool size.
pub(super) fn query(port: u16, fetch: Fetch, ev: &mut Vec<Evidence>) -> Option<LiveState> {
    for path in ["/get_server_info", "/server_info"] {
        let Some(body) = answer(fetch, port, path) else {
            continue;
        };
        let Some(info) = super::parse_server_info(&body, path) else {
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
            match info.max_total_num_tokens {
                Some(t) => Said::new("report-ev-sglang-info-tokens", vec![("tokens", t.into())]),
                None => Said::new("report-ev-sglang-info", vec![]),
            },
        ));
        let mut bad = info.invalid;
        let n_ctx = bad.json_count("context length", v.get("context_length"));
        return Some(LiveState {
            server: "sglang".into(),
            port,
            n_ctx,
            model_path,
            unavailable: bad.rejected.iter().map(|r| r.line()).collect(),
            ..Default::default()
        });
    }
    None
}
