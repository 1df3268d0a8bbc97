//! Guard rails: which processes must never be signalled, and which need a second confirmation.
//! Pure code over a [`ProcInfo`], so every rule is tested on plain values on every platform.

use super::ProcInfo;
use gpuledger_lang::Said;

/// Which operating system's rules apply (the Windows critical-process names only mean something
/// there). Not the collection platform of `gpuledger_sources`: this only picks guard rules.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Os {
    Linux,
    Windows,
    MacOs,
    Other,
}

impl Os {
    pub const fn current() -> Self {
        if cfg!(target_os = "linux") {
            Os::Linux
        } else if cfg!(windows) {
            Os::Windows
        } else if cfg!(target_os = "macos") {
            Os::MacOs
        } else {
            Os::Other
        }
    }
}

/// The verdict of the guard rails for one process. The reason is a [`Said`]: its English where
/// the outcome is written for machines, the reader's language in `gpuledger kill`'s prompt and
/// the live view.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum Verdict {
    Allowed,
    /// Never signalled, whatever the user confirms.
    Refused(Said),
    /// Signalled only with an explicit second confirmation (`--yes-really`).
    NeedsSecondConfirmation(Said),
}

/// Windows processes whose death bugchecks or logs out the machine. Image names, compared without
/// case and without `.exe`. (The list is policy: the critical flag itself is checked separately.)
pub const WINDOWS_CRITICAL: &[&str] = &[
    "system",
    "idle",
    "registry",
    "memcompression",
    "smss",
    "csrss",
    "wininit",
    "winlogon",
    "services",
    "lsass",
];

/// Display servers, compositors, desktop shells and display managers: killing one takes the user's
/// whole session (and every unsaved window) with it, so it needs a second confirmation. The one
/// list, the model's (identification reads it too): `gpuledger kill` and the live view both ask
/// through [`is_display_server`].
pub use gpuledger_model::desktop::{is_display_server, normalise_name, DISPLAY_SERVERS};

/// Shells, login programs and the session multiplexers and daemons a terminal session hangs
/// from: ending one can close the user's terminal (or remote) session and everything running in
/// it. Login shells (`-bash` in `ps`) have the shell's own name as their process name.
pub const SESSION_SHELLS: &[&str] = &[
    "bash",
    "zsh",
    "fish",
    "sh",
    "dash",
    "ksh",
    "tcsh",
    "nu",
    "login",
    "sshd",
    "tmux: server",
    "tmux",
    "screen",
];

/// A rule that asks for a second confirmation: the processes it covers, by name (any of the
/// process's names, normalised by [`normalise_name`]), and what ending one does.
#[derive(Debug)]
pub struct SessionRule {
    /// The rule's name, for tests and messages.
    pub rule: &'static str,
    pub names: &'static [&'static str],
    /// What ending such a process does: the message key of the words that follow the process
    /// name (`Xorg looks like a display server ...`).
    pub ends: &'static str,
}

/// The session-critical rules, in the order they are asked: the one table `gpuledger kill` and
/// the live view both go through ([`session_rule`]).
pub const SESSION_RULES: [SessionRule; 2] = [
    SessionRule {
        rule: "display server",
        names: DISPLAY_SERVERS,
        ends: "report-guard-ends-display",
    },
    SessionRule {
        rule: "session shell",
        names: SESSION_SHELLS,
        ends: "report-guard-ends-shell",
    },
];

/// The first rule of [`SESSION_RULES`] that covers a process with any of these `names`, with
/// the name it matched.
pub fn session_rule<'a>(
    names: impl IntoIterator<Item = &'a str> + Clone,
) -> Option<(&'static SessionRule, String)> {
    SESSION_RULES.iter().find_map(|r| {
        names
            .clone()
            .into_iter()
            .map(normalise_name)
            .find(|n| r.names.contains(&n.as_str()))
            .map(|n| (r, n))
    })
}

fn names_of(info: &ProcInfo) -> impl Iterator<Item = String> + '_ {
    raw_names(info).map(normalise_name)
}

/// The process name and the executable's (comm can be renamed or truncated).
fn raw_names(info: &ProcInfo) -> impl Iterator<Item = &str> + Clone + '_ {
    std::iter::once(info.name.as_str()).chain(info.exe_name.as_deref())
}

/// PIDs that cannot name a single process: 0 (the caller's process group for kill(2), the idle
/// process on Windows) and anything that would turn negative as a `pid_t` (`kill(-1)` signals every
/// process we may signal).
pub fn invalid_pid(pid: u32) -> Option<Said> {
    if pid == 0 {
        Some(Said::new("report-guard-pid-zero", vec![]))
    } else if pid > i32::MAX as u32 {
        let args = vec![("pid", pid.to_string().into())];
        Some(Said::new("report-guard-pid-range", args))
    } else {
        None
    }
}

impl SessionRule {
    /// What ending such a process does, as a sentence to follow its name.
    pub fn ends(&self) -> Said {
        Said::new(self.ends, vec![])
    }
}

/// Refusals that need only the PID: init, ourselves, our ancestors.
pub fn check_pid(pid: u32, self_pid: u32, ancestors: &[u32], platform: Os) -> Verdict {
    if let Some(why) = invalid_pid(pid) {
        return Verdict::Refused(why);
    }
    let refused = |key| Verdict::Refused(Said::new(key, vec![]));
    if pid == 1 && platform != Os::Windows {
        return refused("report-guard-init");
    }
    if pid == 4 && platform == Os::Windows {
        return refused("report-guard-windows-system");
    }
    if pid == self_pid {
        return refused("report-guard-self");
    }
    if ancestors.contains(&pid) {
        return refused("report-guard-ancestor");
    }
    Verdict::Allowed
}

/// Refusals and second confirmations that need what we read about the process.
pub fn check_info(info: &ProcInfo, platform: Os) -> Verdict {
    let name = || ("name", info.name.as_str().into());
    if info.kernel_thread {
        return Verdict::Refused(Said::new("report-guard-kernel-thread", vec![name()]));
    }
    if let Some(tgid) = info.thread_of {
        let args = vec![
            ("pid", info.pid.to_string().into()),
            ("tgid", tgid.to_string().into()),
        ];
        return Verdict::Refused(Said::new("report-guard-thread", args));
    }
    if info.critical {
        return Verdict::Refused(Said::new("report-guard-critical-flag", vec![name()]));
    }
    if platform == Os::Windows {
        if let Some(n) = names_of(info).find(|n| WINDOWS_CRITICAL.contains(&n.as_str())) {
            let args = vec![("name", n.into())];
            return Verdict::Refused(Said::new("report-guard-windows-critical", args));
        }
    }
    match session_rule(raw_names(info)) {
        // The matched name is added only when it says something the process name does not
        // (a renamed comm whose executable is Xorg), never "Xorg (xorg)".
        Some((rule, n)) if normalise_name(&info.name) == n => {
            let args = vec![name(), ("ends", rule.ends().into())];
            Verdict::NeedsSecondConfirmation(Said::new("report-guard-session", args))
        }
        Some((rule, n)) => {
            let args = vec![name(), ("program", n.into()), ("ends", rule.ends().into())];
            Verdict::NeedsSecondConfirmation(Said::new("report-guard-session-program", args))
        }
        None => Verdict::Allowed,
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn info(name: &str) -> ProcInfo {
        ProcInfo {
            pid: 4242,
            name: name.into(),
            exe_name: None,
            start_time: 1,
            state: Some('S'),
            ppid: Some(1),
            uid: Some(1000),
            user: None,
            kernel_thread: false,
            critical: false,
            thread_of: None,
        }
    }

    #[test]
    fn pid_rules() {
        let p = Os::Linux;
        assert!(matches!(check_pid(0, 10, &[], p), Verdict::Refused(_)));
        assert!(matches!(check_pid(1, 10, &[], p), Verdict::Refused(_)));
        assert!(matches!(
            check_pid(u32::MAX, 10, &[], p),
            Verdict::Refused(_)
        ));
        assert!(matches!(
            check_pid(1 << 31, 10, &[], p),
            Verdict::Refused(_)
        ));
        assert!(matches!(check_pid(10, 10, &[], p), Verdict::Refused(r) if r.contains("itself")));
        assert!(
            matches!(check_pid(7, 10, &[9, 7], p), Verdict::Refused(r) if r.contains("parent"))
        );
        assert_eq!(check_pid(8, 10, &[9, 7], p), Verdict::Allowed);
        // PID 1 on Windows is an ordinary process number; 4 is System there.
        assert_eq!(check_pid(1, 10, &[], Os::Windows), Verdict::Allowed);
        assert!(matches!(
            check_pid(4, 10, &[], Os::Windows),
            Verdict::Refused(_)
        ));
    }

    #[test]
    fn windows_critical_names_only_on_windows() {
        for n in [
            "lsass.exe",
            "CSRSS.EXE",
            "System",
            "smss",
            "wininit.exe",
            "winlogon.exe",
            "services.exe",
        ] {
            assert!(
                matches!(check_info(&info(n), Os::Windows), Verdict::Refused(_)),
                "{n}"
            );
        }
        assert_eq!(check_info(&info("services"), Os::Linux), Verdict::Allowed);
        assert_eq!(
            check_info(&info("llama-server.exe"), Os::Windows),
            Verdict::Allowed
        );
    }

    #[test]
    fn display_servers_need_second_confirmation() {
        for n in [
            "Xorg",
            "Xwayland",
            "gnome-shell",
            "kwin_wayland",
            "kwin_x11",
            "Hyprland",
            "sway",
            "dwm.exe",
            "explorer.exe",
            "WindowServer",
        ] {
            assert!(
                matches!(
                    check_info(&info(n), Os::current()),
                    Verdict::NeedsSecondConfirmation(_)
                ),
                "{n}"
            );
        }
        // The executable's name counts too (comm can be renamed or truncated).
        let mut i = info("renamed");
        i.exe_name = Some("/usr/bin/Xwayland".into());
        assert!(matches!(
            check_info(&i, Os::Linux),
            Verdict::NeedsSecondConfirmation(_)
        ));
        assert_eq!(check_info(&info("python3"), Os::Linux), Verdict::Allowed);
        assert_eq!(
            check_info(&info("gnome-shell-calendar"), Os::Linux),
            Verdict::Allowed
        );
    }

    /// One case per rule of [`SESSION_RULES`]: each asks twice, and says what it is.
    #[test]
    fn each_session_rule_asks_twice_and_says_why() {
        let cases = [
            ("display server", "Xorg", "graphical session"),
            ("session shell", "zsh", "terminal session"),
        ];
        assert_eq!(cases.len(), SESSION_RULES.len(), "a case per rule");
        for (rule, name, says) in cases {
            let (r, _) = session_rule([name]).unwrap();
            assert_eq!(r.rule, rule);
            match check_info(&info(name), Os::Linux) {
                Verdict::NeedsSecondConfirmation(why) => assert!(why.contains(says), "{why}"),
                v => panic!("{name}: {v:?}"),
            }
        }
    }

    #[test]
    fn session_shells_by_process_or_executable_name() {
        for n in [
            "bash",
            "-bash",
            "sshd",
            "tmux: server",
            "screen",
            "login",
            "fish",
        ] {
            let n = n.trim_start_matches('-');
            assert!(
                matches!(
                    check_info(&info(n), Os::Linux),
                    Verdict::NeedsSecondConfirmation(w) if w.contains("shell or session")
                ),
                "{n}"
            );
        }
        let mut i = info("renamed");
        i.exe_name = Some("/usr/bin/zsh".into());
        assert!(matches!(
            check_info(&i, Os::Linux),
            Verdict::NeedsSecondConfirmation(w) if w.starts_with("renamed (its program is zsh) is a shell")
        ));
        // The process's own name is said once, not "Xorg (xorg)".
        assert!(matches!(
            check_info(&info("Xorg"), Os::Linux),
            Verdict::NeedsSecondConfirmation(w) if w.starts_with("Xorg looks like a display server")
        ));
        // A name that merely contains a shell's is not one.
        assert_eq!(check_info(&info("bashtop"), Os::Linux), Verdict::Allowed);
        assert_eq!(check_info(&info("sleep"), Os::Linux), Verdict::Allowed);
    }

    #[test]
    fn kernel_threads_and_critical_flag_refused() {
        let mut i = info("kworker/0:1");
        i.kernel_thread = true;
        assert!(matches!(check_info(&i, Os::Linux), Verdict::Refused(_)));
        let mut i = info("worker");
        i.thread_of = Some(4000);
        assert!(matches!(check_info(&i, Os::Linux), Verdict::Refused(r) if r.contains("PID 4000")));
        let mut i = info("mystery.exe");
        i.critical = true;
        assert!(matches!(check_info(&i, Os::Windows), Verdict::Refused(_)));
    }

    /// Each reason's English as it was before the reasons had message keys (the outcome's JSON
    /// carries it), and one said in Chinese.
    #[test]
    fn reasons_english_unchanged_and_said_in_chinese() {
        let why = |v: Verdict| match v {
            Verdict::Refused(w) | Verdict::NeedsSecondConfirmation(w) => w,
            Verdict::Allowed => panic!("allowed"),
        };
        let l = Os::Linux;
        let w = Os::Windows;
        let mut kt = info("kworker/0:1");
        kt.kernel_thread = true;
        let mut th = info("worker");
        th.thread_of = Some(4000);
        let mut cr = info("mystery.exe");
        cr.critical = true;
        let mut renamed = info("renamed");
        renamed.exe_name = Some("/usr/bin/zsh".into());
        let cases = [
            (why(check_pid(0, 10, &[], l)), "PID 0 is not a single process (kill(2) would signal our own process group)"),
            (why(check_pid(u32::MAX, 10, &[], l)), "PID 4294967295 is out of range (it would be a negative pid_t, which signals a group)"),
            (why(check_pid(1, 10, &[], l)), "PID 1 is init: killing it brings down the whole system (or container)"),
            (why(check_pid(4, 10, &[], w)), "PID 4 is the Windows System process"),
            (why(check_pid(10, 10, &[], l)), "this is gpuledger itself"),
            (why(check_pid(7, 10, &[7], l)), "this is a parent of gpuledger (the shell or program that started it)"),
            (why(check_info(&kt, l)), "kworker/0:1 is a kernel thread: signals cannot end it and it holds no user memory"),
            (why(check_info(&th, l)), "4242 is a thread of process 4000, not a process: kill PID 4000 to end it"),
            (why(check_info(&cr, w)), "mystery.exe is marked critical by Windows: terminating it crashes the machine"),
            (why(check_info(&info("lsass.exe"), w)), "lsass is a critical Windows system process: terminating it crashes or logs out the machine"),
            (why(check_info(&info("Xorg"), l)), "Xorg looks like a display server, compositor or desktop shell: killing it ends the graphical session and every window in it"),
            (why(check_info(&renamed, l)), "renamed (its program is zsh) is a shell or session process (a login shell, sshd, tmux, screen): ending it can close your terminal session and what runs in it"),
        ];
        for (said, english) in cases {
            assert_eq!(said.as_str(), english);
            assert_ne!(
                said.in_lang(gpuledger_lang::Lang::ZhCn),
                english,
                "{english}"
            );
        }
        assert_eq!(
            why(check_info(&renamed, l)).in_lang(gpuledger_lang::Lang::ZhCn),
            "renamed（其程序为 zsh）是 shell 或会话进程（登录 shell、sshd、tmux、screen）：结束它可能会关闭你的终端会话及其中运行的一切"
        );
        assert_eq!(
            why(check_pid(10, 10, &[], l)).in_lang(gpuledger_lang::Lang::ZhTw),
            "這是 gpuledger 本身"
        );
    }

    #[test]
    fn normalise() {
        assert_eq!(normalise_name("C:\\Windows\\explorer.EXE"), "explorer");
        assert_eq!(normalise_name("/usr/lib/xorg/Xorg"), "xorg");
        assert_eq!(normalise_name("sway"), "sway");
    }
}
