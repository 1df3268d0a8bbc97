//! `gpuledger kill`'s report for one process: what happened in a sentence, the plan of a dry
//! run, each step with its time and result (lined up by the one aligner, [`Columns`]), and for
//! a survivor where it waits and what may help.

use crate::columns::{Align, Columns};

/// One thing done, and what happened.
#[derive(Debug, Clone, Copy)]
pub struct KillStep<'a> {
    /// Milliseconds after the request started.
    pub at_ms: u64,
    /// `SIGTERM`, `SIGKILL`, `wait`, ...
    pub action: &'a str,
    pub result: &'a str,
}

/// One target's outcome, as the text report shows it.
#[derive(Debug, Clone, Default)]
pub struct KillText<'a> {
    /// The outcome in one sentence.
    pub head: &'a str,
    /// A dry run: what would be done.
    pub plan: &'a [String],
    pub steps: Vec<KillStep<'a>>,
    /// The kernel function a survivor waits in.
    pub waiting_in: Option<&'a str>,
    pub remedies: &'a [String],
    /// A dry run: the process's GPU memory now.
    pub now: Option<String>,
    /// After the exit (or a survivor): what became of its GPU memory.
    pub gpu_memory: Option<&'a str>,
}

pub fn render_kill(r: &KillText) -> String {
    let mut s = format!("{}\n", r.head);
    for p in r.plan {
        s.push_str(&format!("  would: {p}\n"));
    }
    let steps: Vec<Vec<String>> = r
        .steps
        .iter()
        .map(|st| {
            vec![
                format!("{} ms", st.at_ms),
                st.action.to_string(),
                st.result.to_string(),
            ]
        })
        .collect();
    s.push_str(
        &Columns::new(&[Align::Right, Align::Left])
            .indent("  ")
            .render(&steps),
    );
    if let Some(w) = r.waiting_in {
        s.push_str(&format!("  waiting in: {w}\n"));
    }
    for remedy in r.remedies {
        s.push_str(&format!("  remedy: {remedy}\n"));
    }
    if let Some(now) = &r.now {
        s.push_str(&format!("  now: {now}\n"));
    }
    if let Some(m) = r.gpu_memory {
        s.push_str(&format!("  GPU memory: {m}\n"));
    }
    s
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn steps_line_up_by_time_and_action() {
        let r = KillText {
            head: "PID 4242 (llama-server) is gone",
            steps: vec![
                KillStep {
                    at_ms: 0,
                    action: "SIGTERM",
                    result: "sent",
                },
                KillStep {
                    at_ms: 1250,
                    action: "wait",
                    result: "gone",
                },
            ],
            gpu_memory: Some("16 GiB freed"),
            ..KillText::default()
        };
        assert_eq!(
            render_kill(&r),
            "PID 4242 (llama-server) is gone\n\
             \x20\x20   0 ms  SIGTERM  sent\n\
             \x20\x201250 ms  wait     gone\n\
             \x20\x20GPU memory: 16 GiB freed\n"
        );
    }
}
