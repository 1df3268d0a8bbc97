//! What runtimes published about their own processes: a family of its own, neither measured by
//! the driver nor estimated by gpuledger.

use super::family::{bytes, Family};
use super::labels::ProcessLabels;
use gpuledger_model::Process;

/// `gpuledger_process_runtime_reported_bytes{…,what}`: the byte figures a runtime published
/// about a process (Ollama's `size_vram`, SGLang's and vLLM's KV cache), beside its estimate or
/// where no recipe applies.
pub const RUNTIME_REPORTED: &str = "gpuledger_process_runtime_reported_bytes";

pub(super) fn runtime_reported(out: &mut String, chosen: &[&Process], labels: &[ProcessLabels]) {
    let mut f = Family::new(
        out,
        RUNTIME_REPORTED,
        "gauge",
        "GPU memory figures a runtime published about its own process (what: the runtime's name for the figure, e.g. Ollama's size_vram), as the runtime said them: neither measured by the driver nor estimated by gpuledger.",
    );
    for (p, l) in chosen.iter().zip(labels) {
        let figures = match (&p.estimate, &p.no_estimate) {
            (Some(e), _) => &e.reported,
            (None, Some(n)) => &n.reported,
            (None, None) => continue,
        };
        // One series per figure's name: a log and an API can report the same figure.
        let mut seen: Vec<&str> = Vec::new();
        for r in figures.iter().filter(|r| r.bytes.is_some()) {
            if seen.contains(&r.what.as_str()) {
                continue;
            }
            seen.push(&r.what);
            let mut ls = l.of_process();
            ls.push(("what", Some(r.what.as_str())));
            f.sample(&ls, bytes(r.bytes));
        }
    }
}
