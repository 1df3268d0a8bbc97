//! Ending processes: the confirmed signal sent (one process or the tagged ones) and what the
//! footer says of it; whether a process the user asked to end is gone: trust facts, not return
//! values (the next snapshot says it, with the cases a PID list hides).

use super::groups::root_of;
use super::{AlsoTarget, App, Confirm, Overlay, PendingKill};
use crate::actions::Termination;
use gpuledger_model::Snapshot;
use ratatui::crossterm::event::{KeyCode, KeyEvent};
use std::time::Instant;

impl App {
    /// Asks the terminator to end one process; a request is then watched until it is gone.
    fn terminate(
        &mut self,
        pid: u32,
        start_time: Option<u64>,
        name: &str,
        force: bool,
        now: Instant,
    ) -> Termination {
        let t = self.terminator.terminate(pid, start_time, force);
        if t == Termination::Requested {
            self.pending.push(PendingKill {
                pid,
                start_time,
                name: name.to_string(),
                force,
                since: now,
            });
        }
        t
    }

    pub(super) fn confirm_key(&mut self, mut c: Confirm, key: KeyEvent, now: Instant) {
        if !matches!(key.code, KeyCode::Char('y') | KeyCode::Char('Y')) {
            self.overlay = Overlay::None;
            self.message = Some(if c.tagged {
                let n = [("n", (c.also.len() + 1).into())];
                self.lang.t_args("tui-msg-cancelled-tagged", &n)
            } else {
                let args = [
                    ("pid", c.pid.to_string().into()),
                    ("name", c.name.as_str().into()),
                ];
                self.lang.t_args("tui-msg-cancelled", &args)
            });
            return;
        }
        if c.stage == 1 && c.warning.is_some() {
            c.stage = 2;
            self.overlay = Overlay::Confirm(c);
            return;
        }
        self.overlay = Overlay::None;
        if c.tagged {
            return self.signal_tagged(&c, now);
        }
        // Whole sentences per signal: the verb's place and form differ by language.
        let (requested, refused, cannot) = if c.force {
            (
                "tui-msg-kill-requested",
                "tui-msg-kill-refused",
                "tui-msg-kill-cannot",
            )
        } else {
            (
                "tui-msg-term-requested",
                "tui-msg-term-refused",
                "tui-msg-term-cannot",
            )
        };
        let (pid, name) = (c.pid.to_string(), c.name.clone());
        let (key, why) = match self.terminate(c.pid, c.start_time, &c.name, c.force, now) {
            Termination::Requested => (requested, String::new()),
            Termination::Refused(why) => (refused, why.in_lang(self.lang)),
            Termination::NotAvailable(why) => (cannot, why.in_lang(self.lang)),
        };
        let args = [
            ("pid", pid.into()),
            ("name", name.into()),
            ("why", why.into()),
        ];
        self.message = Some(self.lang.t_args(key, &args));
    }

    /// Sends the confirmed signal to every tagged process (and to nothing else), then untags.
    fn signal_tagged(&mut self, c: &Confirm, now: Instant) {
        let l = self.lang;
        let first = AlsoTarget {
            pid: c.pid,
            start_time: c.start_time,
            name: c.name.clone(),
            detail: String::new(),
        };
        let mut outcomes = Vec::new();
        for a in std::iter::once(&first).chain(&c.also) {
            outcomes.push(
                match self.terminate(a.pid, a.start_time, &a.name, c.force, now) {
                    Termination::Requested => l.t_args(
                        "tui-msg-outcome-requested",
                        &[
                            ("pid", a.pid.to_string().into()),
                            ("name", a.name.as_str().into()),
                        ],
                    ),
                    Termination::Refused(why) | Termination::NotAvailable(why) => l.t_args(
                        "tui-msg-outcome-not-signalled",
                        &[
                            ("pid", a.pid.to_string().into()),
                            ("name", a.name.as_str().into()),
                            ("why", why.in_lang(l).into()),
                        ],
                    ),
                },
            );
        }
        self.table.tagged.clear();
        let key = if c.force {
            "tui-msg-tagged-kill-sent"
        } else {
            "tui-msg-tagged-term-sent"
        };
        let args = [
            ("n", outcomes.len().into()),
            (
                "outcomes",
                outcomes.join(l.t("tui-list-separator").as_str()).into(),
            ),
        ];
        self.message = Some(l.t_args(key, &args));
    }

    // ---- export ------------------------------------------------------------------------------
}

/// What a snapshot says of a process the user asked to end.
pub(super) enum KillSeen {
    /// Not listed at all.
    Gone,
    /// Listed with the same start time (or none to compare).
    Running,
    /// Its PID is still listed by the driver but it left /proc (the reason): it exited and its
    /// GPU memory is not released yet, so it is neither running nor gone.
    ExitedHeld(gpuledger_lang::Said),
}

pub(super) fn kill_seen(snap: &Snapshot, k: &PendingKill) -> KillSeen {
    // A workload's root is running while its members are (the API server of a vLLM group
    // holds no GPU memory and is not listed; its workers are).
    if snap
        .processes
        .iter()
        .any(|p| p.pid != k.pid && root_of(p) == k.pid)
    {
        return KillSeen::Running;
    }
    let mut seen = KillSeen::Gone;
    for p in snap.processes.iter().filter(|p| p.pid == k.pid) {
        if k.start_time.is_none() || p.start_time == k.start_time {
            return KillSeen::Running;
        }
        if let (None, Some(why)) = (p.start_time, &p.metadata_unavailable) {
            seen = KillSeen::ExitedHeld(why.clone());
        }
    }
    seen
}
