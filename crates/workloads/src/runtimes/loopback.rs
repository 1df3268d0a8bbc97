//! Asking a runtime's own HTTP API the way Ollama and LM Studio are asked: each candidate port
//! once, in the order found (a dead one costs a timeout), loopback only, time-bounded.

use std::time::Duration;

/// `ports` then `fallback` (the runtime's default port), each once, in that order.
pub(crate) fn candidate_ports(mut ports: Vec<u16>, fallback: u16) -> Vec<u16> {
    ports.push(fallback);
    let mut seen = Vec::new();
    ports.retain(|p| {
        !seen.contains(p) && {
            seen.push(*p);
            true
        }
    });
    ports
}

/// `GET path` on each port in turn, lazily: `(port, body)` for an HTTP 200 answer, else why the
/// port did not answer so.
pub(crate) fn answers(
    ports: Vec<u16>,
    path: &str,
    timeout: Duration,
) -> impl Iterator<Item = Result<(u16, String), String>> + '_ {
    ports
        .into_iter()
        .map(move |port| match crate::live::get(port, path, timeout) {
            Ok(r) if r.status == 200 => Ok((port, r.body)),
            Ok(r) => Err(format!("port {port}: HTTP {}", r.status)),
            Err(e) => Err(e),
        })
}
