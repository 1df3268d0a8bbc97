//! LM Studio's `/api/v0/models` as the live state: the models it has loaded.

use crate::live::{answer, http_evidence, LiveState, LoadedModel};
use crate::runtimes::Fetch;
use gpuledger_lang::Said;
use gpuledger_model::Evidence;

pub(super) fn query(port: u16, fetch: Fetch, ev: &mut Vec<Evidence>) -> Option<LiveState> {
    let body = answer(fetch, port, "/api/v0/models")?;
    // The one /api/v0/models parser: this runtime's.
    let models: Vec<LoadedModel> = super::parse_models(&body)
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
        Said::new(
            "report-ev-lmstudio-loaded",
            vec![("n", models.len().into())],
        ),
    ));
    Some(LiveState {
        server: "lm-studio".into(),
        port,
        models,
        ..Default::default()
    })
}
