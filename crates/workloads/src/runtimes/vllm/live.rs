//! vLLM's `/metrics` as the live state: KV cache usage and running requests.

use crate::live::{answer, http_evidence, metric_raw, LiveState};
use crate::runtimes::Fetch;
use gpuledger_lang::Said;
use gpuledger_model::Evidence;

pub(super) fn query(port: u16, fetch: Fetch, ev: &mut Vec<Evidence>) -> Option<LiveState> {
    let body = answer(fetch, port, "/metrics")?;
    // The recipe's reader: the same "is it vLLM's" check and V1/V0 usage names, and the same
    // check of what cannot be true.
    let m = super::parse_metrics(&body, "")?;
    let mut invalid = m.invalid;
    let running = invalid.count(
        "requests running",
        metric_raw(&body, "vllm:num_requests_running"),
    );
    let said = Said::new("report-ev-vllm-metrics", vec![]);
    ev.push(http_evidence(port, "/metrics", said));
    Some(LiveState {
        server: "vllm".into(),
        port,
        kv_cache_usage_ratio: m.kv_usage,
        slots_busy: running,
        unavailable: invalid.rejected.iter().map(|r| r.line()).collect(),
        ..Default::default()
    })
}
