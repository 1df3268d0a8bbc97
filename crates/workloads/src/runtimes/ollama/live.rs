//! Ollama's `/api/ps` as the live state: the models it has loaded.

use crate::live::{answer, http_evidence, LiveState, LoadedModel};
use crate::runtimes::Fetch;
use gpuledger_lang::Said;
use gpuledger_model::Evidence;

pub(super) fn query(port: u16, fetch: Fetch, ev: &mut Vec<Evidence>) -> Option<LiveState> {
    let body = answer(fetch, port, "/api/ps")?;
    let models = loaded_models(&body)?;
    ev.push(http_evidence(
        port,
        "/api/ps",
        match models.len() {
            0 => Said::new("report-ev-ollama-none", vec![]),
            n => {
                let names: Vec<Said> = models.iter().map(|m| m.name.as_str().into()).collect();
                let names = Said::joined("report-said-comma", names).unwrap_or_default();
                Said::new(
                    "report-ev-ollama-loaded",
                    vec![("n", n.into()), ("names", names.into())],
                )
            }
        },
    ));
    Some(LiveState {
        server: "ollama".into(),
        port,
        models,
        ..Default::default()
    })
}

/// Ollama `/api/ps` as the loaded models the live state lists; the answer is read by the one
/// `/api/ps` parser, [`super::parse_ps`].
pub fn loaded_models(body: &str) -> Option<Vec<LoadedModel>> {
    let models = super::parse_ps(body).ok()?;
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
