//! llama-server's own answers on loopback: `/props`, `/slots`, `/metrics`, `/health`.

use crate::figures::{Checked, Kind, Rejected};
use crate::live::{http_evidence, metric_raw, LiveState};
use crate::runtimes::Fetch;
use gpuledger_lang::Said;
use gpuledger_model::Evidence;
use serde_json::Value;

/// llama-server: `/props` (context, slots, model; a 401 means an API key), then `/slots` and
/// `/metrics` for what is busy and how fast.
pub(super) fn query(port: u16, fetch: Fetch, ev: &mut Vec<Evidence>) -> Option<LiveState> {
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
            let mut bad = Checked::default();
            let raw = metric_raw(&r.body, "llamacpp:predicted_tokens_seconds");
            st.tokens_per_second = bad.take("tokens per second", raw, Kind::Rate);
            st.unavailable
                .extend(bad.rejected.iter().map(Rejected::line));
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
    let n_ctx = v.pointer("/default_generation_settings/n_ctx");
    let slots = v.get("total_slots");
    n_ctx.or(slots)?;
    let mut bad = Checked::default();
    st.n_ctx = bad.json_count("context size", n_ctx);
    st.total_slots = bad.json_count("slots", slots);
    st.unavailable
        .extend(bad.rejected.iter().map(Rejected::line));
    st.model_path = v
        .get("model_path")
        .and_then(Value::as_str)
        .map(str::to_string);
    st.build = v
        .get("build_info")
        .and_then(Value::as_str)
        .map(str::to_string);
    let mut parts = vec![Said::verbatim("llama-server /props")];
    let part = |key, value: String| Said::new(key, vec![("value", value.into())]);
    if let Some(c) = st.n_ctx {
        parts.push(part("report-ev-flag-context", c.to_string()));
    }
    if let Some(s) = st.total_slots {
        parts.push(part("report-ev-flag-slots", s.to_string()));
    }
    if let Some(m) = &st.model_path {
        parts.push(part("report-ev-flag-model", m.clone()));
    }
    let said = Said::joined("report-said-comma", parts).unwrap_or_default();
    ev.push(http_evidence(port, "/props", said));
    Some(())
}

/// `/props` answered 401: say so, and let `/health` (no key needed) confirm what answered.
fn key_required(port: u16, fetch: Fetch, st: &mut LiveState, ev: &mut Vec<Evidence>) {
    st.auth_required = true;
    st.unavailable
        .push("context, slots and model: the server requires an API key (HTTP 401)".into());
    let said = Said::new("report-ev-props-401", vec![]);
    ev.push(http_evidence(port, "/props", said));
    if let Ok(h) = fetch(port, "/health") {
        if h.status == 200 {
            let said = Said::new("report-ev-health-200", vec![]);
            ev.push(http_evidence(port, "/health", said));
        }
    }
}

/// How many of llama-server's slots are busy (`/slots`; off with `--no-slots`).
fn read_slots(port: u16, fetch: Fetch, st: &mut LiveState, ev: &mut Vec<Evidence>) {
    match fetch(port, "/slots") {
        Ok(r) if r.status == 200 => {
            if let Ok(Value::Array(slots)) = serde_json::from_str::<Value>(&r.body) {
                let busy = slots
                    .iter()
                    .filter(|s| s.get("is_processing").and_then(Value::as_bool) == Some(true))
                    .count();
                st.slots_busy = Some(busy as u64);
                let said = Said::new(
                    "report-ev-slots-busy",
                    vec![("busy", busy.into()), ("total", slots.len().into())],
                );
                ev.push(http_evidence(port, "/slots", said));
            }
        }
        Ok(r) => st.unavailable.push(format!(
            "slots: /slots answered HTTP {} (started with --no-slots?)",
            r.status
        )),
        Err(e) => st.unavailable.push(format!("slots: {e}")),
    }
}
