//! The seam to the kill mechanism: the [`Terminator`] trait the view asks through (the
//! `gpuledger` binary passes one backed by `gpuledger_actions`, see its `live_view.rs`), the
//! session-critical rule the view shares with `gpuledger kill`, and the small actions the view
//! does itself (clipboard through OSC 52).

use base64::Engine;

/// What a termination request did *as far as the call knows*. The view never reports success from
/// this: it waits until a later snapshot no longer lists the process (docs/DESIGN.md concept 6).
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum Termination {
    /// The signal (or platform equivalent) was sent; whether the process ends is observed later.
    Requested,
    /// Refused before anything was sent (the process changed identity, permission denied, ...).
    Refused(String),
    /// This build cannot terminate processes.
    NotAvailable(String),
}

/// What may be done to a process, asked before the confirmation is shown.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum Check {
    Allowed,
    /// Allowed after a second confirmation; says why (a compositor, a shell).
    SecondConfirmation(String),
    /// Never: says why (PID 1, ourselves, a kernel thread...).
    Refused(String),
}

/// Ends a process. `start_time` is the start-time token from the snapshot: an implementation must
/// refuse when the PID now names a different process (PID reuse). `force` = kill instead of a
/// graceful terminate. `terminate` must not block the UI: do the waiting elsewhere.
pub trait Terminator {
    /// The guard rails, before asking. The default knows display servers, compositors and shells.
    fn check(&self, pid: u32, _start_time: Option<u64>, name: &str) -> Check {
        match session_critical(pid, name) {
            Some(why) => Check::SecondConfirmation(why),
            None => Check::Allowed,
        }
    }

    fn terminate(&self, pid: u32, start_time: Option<u64>, force: bool) -> Termination;

    /// Messages the mechanism produced since the last call (e.g. a refusal found after the
    /// request was handed over). Polled once per round.
    fn poll_messages(&self) -> Vec<String> {
        Vec::new()
    }
}

/// The view's default when no kill mechanism is given (tests, a remote or replayed view): says
/// so, sends nothing.
#[derive(Debug, Default, Clone, Copy)]
pub struct NoTerminator;

impl Terminator for NoTerminator {
    fn terminate(&self, _pid: u32, _start_time: Option<u64>, _force: bool) -> Termination {
        Termination::NotAvailable("kill is not available in this build".into())
    }
}

/// Processes whose end takes the user's session with it: they need a second confirmation. Returns
/// what ending it would do, in words. The rules are the kill guard's own table
/// (`gpuledger_actions::kill::guard::SESSION_RULES`), so the view and `gpuledger kill` agree.
pub fn session_critical(pid: u32, name: &str) -> Option<String> {
    if pid == 1 {
        return Some("PID 1 is the init system: ending it brings the whole machine down".into());
    }
    gpuledger_actions::kill::guard::session_rule([name])
        .map(|(rule, _)| format!("it {}", rule.ends))
}

/// The OSC 52 sequence that asks the terminal to put `text` on the clipboard.
pub fn osc52(text: &str) -> String {
    format!(
        "\x1b]52;c;{}\x07",
        base64::engine::general_purpose::STANDARD.encode(text)
    )
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn default_terminator_says_not_available() {
        assert_eq!(
            NoTerminator.terminate(5, Some(1), true),
            Termination::NotAvailable("kill is not available in this build".into())
        );
    }

    #[test]
    fn critical_processes() {
        assert!(session_critical(1200, "Xorg")
            .unwrap()
            .contains("graphical session"));
        assert!(session_critical(77, "zsh").unwrap().contains("shell"));
        assert!(session_critical(1, "systemd").is_some());
        assert_eq!(session_critical(4242, "llama-server"), None);
        // The live view and `gpuledger kill` share one list (picom, gamescope and sddm were once
        // asked about twice in the view and once on the command line).
        for n in ["picom", "gamescope", "sddm", "Hyprland", "xorg"] {
            assert!(session_critical(900, n).is_some(), "{n}");
            assert!(gpuledger_actions::kill::guard::is_display_server(n), "{n}");
        }
    }

    #[test]
    fn osc52_encodes() {
        assert_eq!(osc52("4242"), "\x1b]52;c;NDI0Mg==\x07");
    }
}
