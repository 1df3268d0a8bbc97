//! The seam to the kill mechanism: the [`Terminator`] trait the view asks through (the
//! `gpuledger` binary passes one backed by `gpuledger_actions`, see its `live_view.rs`), the
//! session-critical rule the view shares with `gpuledger kill`, and the small actions the view
//! does itself (clipboard through OSC 52).

use base64::Engine;
use gpuledger_lang::Said;

/// What a termination request did *as far as the call knows*. The view never reports success from
/// this: it waits until a later snapshot no longer lists the process (docs/DESIGN.md concept 6).
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum Termination {
    /// The signal (or platform equivalent) was sent; whether the process ends is observed later.
    Requested,
    /// Refused before anything was sent (the process changed identity, permission denied, ...).
    Refused(Said),
    /// This build cannot terminate processes.
    NotAvailable(Said),
}

/// What may be done to a process, asked before the confirmation is shown.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum Check {
    Allowed,
    /// Allowed after a second confirmation; says why (a compositor, a shell), in the view's
    /// language where the reason has a key.
    SecondConfirmation(Said),
    /// Never: says why (PID 1, ourselves, a kernel thread...).
    Refused(Said),
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
    fn poll_messages(&self) -> Vec<Said> {
        Vec::new()
    }
}

/// The view's default when no kill mechanism is given (tests, a remote or replayed view): says
/// so, sends nothing.
#[derive(Debug, Default, Clone, Copy)]
pub struct NoTerminator;

impl Terminator for NoTerminator {
    fn terminate(&self, _pid: u32, _start_time: Option<u64>, _force: bool) -> Termination {
        Termination::NotAvailable(Said::new("tui-kill-not-available", vec![]))
    }
}

/// Processes whose end takes the user's session with it: they need a second confirmation. Returns
/// what ending it would do, in words. The rules are the kill guard's own table
/// (`gpuledger_actions::kill::guard::SESSION_RULES`), so the view and `gpuledger kill` agree.
pub fn session_critical(pid: u32, name: &str) -> Option<Said> {
    if pid == 1 {
        return Some(Said::new("tui-guard-init", vec![]));
    }
    gpuledger_actions::kill::guard::session_rule([name])
        .map(|(rule, _)| Said::new("tui-guard-it", vec![("ends", rule.ends().into())]))
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
        let Termination::NotAvailable(why) = NoTerminator.terminate(5, Some(1), true) else {
            panic!("not NotAvailable");
        };
        assert_eq!(why, "kill is not available in this build");
        assert_eq!(
            why.in_lang(gpuledger_lang::Lang::ZhCn),
            "此版本不支持终止进程"
        );
    }

    #[test]
    fn critical_processes() {
        assert!(session_critical(1200, "Xorg")
            .unwrap()
            .contains("graphical session"));
        assert!(session_critical(77, "zsh").unwrap().contains("shell"));
        // The English as it was before the guard's words had keys, and the view's Chinese.
        let xorg = session_critical(1200, "Xorg").unwrap();
        assert_eq!(
            xorg,
            "it looks like a display server, compositor or desktop shell: killing it ends the \
             graphical session and every window in it"
        );
        assert_eq!(
            xorg.in_lang(gpuledger_lang::Lang::ZhCn),
            "它看起来是显示服务器、窗口合成器或桌面外壳：终止它会结束整个图形会话及其中的所有窗口"
        );
        assert_eq!(
            session_critical(1, "systemd").unwrap(),
            "PID 1 is the init system: ending it brings the whole machine down"
        );
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
