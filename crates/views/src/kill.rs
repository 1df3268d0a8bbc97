//! `gpuledger kill`'s words: the confirmation it asks for (each target with its measured GPU
//! memory), and its report for one process: what happened in a sentence, the plan of a dry
//! run, each step with its time and result (lined up by the one aligner, [`Columns`]), and for
//! a survivor where it waits and what may help, all in the reader's language (the kill's own
//! sentences are handed over already said in it; `--json` carries their English).

use crate::columns::{Align, Columns};
use crate::labels::{confidence_label, workload_label};
use gpuledger_lang::Lang;
use gpuledger_model::units::human_bytes;
use gpuledger_model::{Workload, WorkloadKind};

/// One thing done, and what happened.
#[derive(Debug, Clone)]
pub struct KillStep<'a> {
    /// Milliseconds after the request started.
    pub at_ms: u64,
    /// `SIGTERM`, `SIGKILL`, `wait`, ...
    pub action: &'a str,
    pub result: String,
}

/// One target's outcome, as the text report shows it (its sentences in the reader's language).
#[derive(Debug, Clone, Default)]
pub struct KillText<'a> {
    /// The outcome in one sentence.
    pub head: String,
    /// A dry run: what would be done.
    pub plan: Vec<String>,
    pub steps: Vec<KillStep<'a>>,
    /// The kernel function a survivor waits in.
    pub waiting_in: Option<&'a str>,
    pub remedies: Vec<String>,
    /// A dry run: the process's GPU memory now ([`reading`]).
    pub now: Option<String>,
    /// After the exit (or a survivor): what became of its GPU memory.
    pub gpu_memory: Option<String>,
    pub lang: Lang,
}

pub fn render_kill(r: &KillText) -> String {
    let lang = r.lang;
    let line = |key: &str, v: &str| format!("  {}\n", lang.t_args(key, &[("text", v.into())]));
    let mut s = format!("{}\n", r.head);
    for p in &r.plan {
        s.push_str(&line("report-kill-would", p));
    }
    let steps: Vec<Vec<String>> = r
        .steps
        .iter()
        .map(|st| {
            vec![
                lang.t_args("report-kill-at-ms", &[("ms", st.at_ms.to_string().into())]),
                st.action.to_string(),
                st.result.clone(),
            ]
        })
        .collect();
    s.push_str(
        &Columns::new(&[Align::Right, Align::Left])
            .indent("  ")
            .render(&steps),
    );
    if let Some(w) = r.waiting_in {
        s.push_str(&line("report-kill-waiting-in", w));
    }
    for remedy in &r.remedies {
        s.push_str(&line("report-kill-remedy", remedy));
    }
    if let Some(now) = &r.now {
        s.push_str(&line("report-kill-now", now));
    }
    if let Some(m) = &r.gpu_memory {
        s.push_str(&line("report-kill-gpu-memory", m));
    }
    s
}

/// A process's measured GPU memory as the confirmation and a dry run name it: held (bytes), not
/// listed by a source that would list it, or unknown with the reason (the source's words).
#[derive(Debug, Clone, Copy)]
pub enum Reading<'a> {
    Holds(u64),
    NotListed,
    Unknown(&'a gpuledger_lang::Said),
}

/// `1.00 GiB GPU memory (measured)`, `no measured GPU memory`, `GPU memory unknown: <reason>`.
pub fn reading(r: Reading, lang: Lang) -> String {
    match r {
        Reading::Holds(b) => lang.t_args("report-kill-holds", &[("bytes", human_bytes(b).into())]),
        Reading::NotListed => lang.t("report-kill-not-listed"),
        Reading::Unknown(why) => {
            let why = why.in_lang(lang);
            lang.t_args("report-kill-unknown", &[("reason", why.into())])
        }
    }
}

/// One target of the confirmation, before it is escaped for the terminal.
#[derive(Debug, Clone, Default)]
pub struct PromptTarget<'a> {
    pub pid: u32,
    /// The process's name (already redacted).
    pub name: &'a str,
    pub user: Option<&'a str>,
    /// [`reading`].
    pub memory: String,
    /// What it is, when identified (from /proc alone: no network probe before a kill).
    pub workload: Option<&'a Workload>,
    /// Its command line (already redacted and shortened).
    pub cmdline: Option<&'a str>,
}

/// `PID 4242 llama-server, user ann: 1.00 GiB GPU memory (measured)`, then the workload and the
/// command line on their own lines.
pub fn prompt_target(t: &PromptTarget, lang: Lang) -> String {
    let (pid, name, memory) = (t.pid.to_string(), t.name, t.memory.as_str());
    let mut s = match t.user {
        Some(user) => lang.t_args(
            "report-kill-target-user",
            &[
                ("pid", pid.into()),
                ("name", name.into()),
                ("user", user.into()),
                ("memory", memory.into()),
            ],
        ),
        None => lang.t_args(
            "report-kill-target",
            &[
                ("pid", pid.into()),
                ("name", name.into()),
                ("memory", memory.into()),
            ],
        ),
    };
    if let Some(w) = t.workload.filter(|w| w.kind != WorkloadKind::Unknown) {
        let args = [
            ("what", workload_label(w, lang).into()),
            ("confidence", confidence_label(w.confidence, lang).into()),
        ];
        s.push_str("\n      ");
        s.push_str(&lang.t_args("report-kill-target-workload", &args));
    }
    if let Some(c) = t.cmdline {
        s.push_str("\n      ");
        s.push_str(c);
    }
    s
}

/// The confirmation's first line.
pub fn prompt_head(lang: Lang) -> String {
    lang.t("report-kill-about-to")
}

/// `Terminate 2 processes (graceful first, forced after the grace period)? [y/N] `: the answer
/// stays `y` in every language (what [`crate`]'s callers read).
pub fn prompt_question(count: usize, force: bool, lang: Lang) -> String {
    let key = if force {
        "report-kill-ask-forced"
    } else {
        "report-kill-ask-graceful"
    };
    format!("{} ", lang.t_args(key, &[("count", count.into())]))
}

/// The second confirmation of a display server or session shell: why (the guard's words), then
/// the question, answered with `yes` in every language.
pub fn prompt_second(why: &str, pid: u32, lang: Lang) -> String {
    format!(
        "{}\n{} ",
        lang.t_args("report-kill-sensitive", &[("why", why.into())]),
        lang.t_args("report-kill-ask-yes", &[("pid", pid.to_string().into())])
    )
}

/// Why nothing was signalled when the confirmation did not happen.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Declined {
    /// Standard input is not a terminal, and `--yes` was not given.
    NoTerminal,
    /// The answer was not yes.
    NotConfirmed,
}

/// `gpuledger kill: not confirmed; nothing was signalled`.
pub fn declined(d: Declined, lang: Lang) -> String {
    lang.t(match d {
        Declined::NoTerminal => "report-kill-no-terminal",
        Declined::NotConfirmed => "report-kill-not-confirmed",
    })
}

#[cfg(test)]
mod tests {
    use super::*;

    fn gone(lang: Lang) -> KillText<'static> {
        KillText {
            head: "PID 4242 (llama-server) is gone".into(),
            steps: vec![
                KillStep {
                    at_ms: 0,
                    action: "SIGTERM",
                    result: "sent".into(),
                },
                KillStep {
                    at_ms: 1250,
                    action: "wait",
                    result: "gone".into(),
                },
            ],
            gpu_memory: Some("16 GiB freed".into()),
            lang,
            ..KillText::default()
        }
    }

    #[test]
    fn steps_line_up_by_time_and_action() {
        assert_eq!(
            render_kill(&gone(Lang::En)),
            "PID 4242 (llama-server) is gone\n\
             \x20\x20   0 ms  SIGTERM  sent\n\
             \x20\x201250 ms  wait     gone\n\
             \x20\x20GPU memory: 16 GiB freed\n"
        );
    }

    /// The frame in the reader's language, the kill's own sentences as written.
    #[test]
    fn the_frame_speaks_the_language() {
        let zh = render_kill(&KillText {
            plan: vec!["send SIGTERM to PID 4242 (llama-server)".to_string()],
            now: Some(reading(Reading::Holds(1 << 30), Lang::ZhCn)),
            ..gone(Lang::ZhCn)
        });
        assert!(zh.contains("\n  将会：send SIGTERM to PID 4242"), "{zh}");
        assert!(zh.contains("\n  当前：1 GiB 显存（实测）\n"), "{zh}");
        assert!(zh.ends_with("\n  显存：16 GiB freed\n"), "{zh}");
        let tw = render_kill(&gone(Lang::ZhTw));
        assert!(tw.ends_with("\n  顯示記憶體：16 GiB freed\n"), "{tw}");
        let q = prompt_question(2, false, Lang::ZhTw);
        assert!(q.ends_with("[y/N] ") && q.contains("2 個處理程序"), "{q}");
        assert!(prompt_question(1, true, Lang::En).starts_with("Terminate 1 process (forced"));
        let w = crate::test_support::llama_workload("/m/Qwen3-8B.gguf");
        let t = PromptTarget {
            pid: 7,
            name: "通义千问服务",
            user: Some("张三"),
            memory: reading(
                Reading::Unknown(&"WSL2 does not expose it".into()),
                Lang::ZhCn,
            ),
            workload: Some(&w),
            cmdline: Some("llama-server -m q.gguf"),
        };
        assert_eq!(
            prompt_target(&t, Lang::ZhCn),
            format!(
                "PID 7 通义千问服务，用户 张三：显存未知：WSL2 does not expose it\n      \
                 工作负载：{}（可信度：高）\n      llama-server -m q.gguf",
                w.short_label()
            )
        );
        let second = prompt_second("Xorg looks like a display server", 9, Lang::ZhCn);
        assert_eq!(
            second,
            "Xorg looks like a display server。\n仍要终止 PID 9，请输入 'yes'： "
        );
    }
}
