//! The kill flow on real processes (Linux). Every test spawns its own children and checks what the
//! kernel says about them afterwards (`/proc`, wait statuses), not just what the library returned.
#![cfg(target_os = "linux")]

use gpuledger_actions::kill::procfs::parse_stat;
use gpuledger_actions::kill::{
    combined_exit_code, exit_code, GpuMemory, GpuMemoryReading, KillOptions, Killer, Signal,
    Status, Target,
};
use std::os::unix::process::{CommandExt, ExitStatusExt};
use std::process::{Child, Command, ExitStatus};
use std::sync::mpsc;
use std::time::{Duration, Instant};

fn opts() -> KillOptions {
    KillOptions {
        grace: Duration::from_secs(2),
        kill_wait: Duration::from_secs(2),
        reap_wait: Duration::from_millis(100),
        release_wait: Duration::from_millis(500),
        ..KillOptions::default()
    }
}

fn stat(pid: u32) -> Option<gpuledger_actions::kill::procfs::Stat> {
    parse_stat(&std::fs::read_to_string(format!("/proc/{pid}/stat")).ok()?).ok()
}

/// Alive = present with the same start time and not a zombie.
fn alive(pid: u32, start: u64) -> bool {
    stat(pid).is_some_and(|s| s.start_time == start && s.state != 'Z')
}

fn wait_for_state(pid: u32, want: char) {
    let t = Instant::now();
    while stat(pid).map(|s| s.state) != Some(want) {
        assert!(
            t.elapsed() < Duration::from_secs(5),
            "PID {pid} never reached state {want}"
        );
        std::thread::sleep(Duration::from_millis(5));
    }
}

/// A child that a thread of ours reaps as soon as it exits (so it does not linger as a zombie of
/// the test process); its exit status arrives on the channel. Killed on drop if still there.
struct Reaped {
    pid: u32,
    start: u64,
    status: mpsc::Receiver<ExitStatus>,
}

impl Reaped {
    fn spawn(mut cmd: Command) -> Self {
        let mut child = cmd.spawn().expect("spawn test child");
        let pid = child.id();
        let start = stat(pid).expect("child stat").start_time;
        let (tx, rx) = mpsc::channel();
        std::thread::spawn(move || {
            let _ = tx.send(child.wait().expect("wait"));
        });
        Reaped {
            pid,
            start,
            status: rx,
        }
    }

    fn target(&self) -> Target {
        Target {
            pid: self.pid,
            start_time: Some(self.start),
            name: Some("sleep".into()),
        }
    }

    fn exit_status(&self) -> ExitStatus {
        self.status
            .recv_timeout(Duration::from_secs(5))
            .expect("child was not reaped")
    }
}

impl Drop for Reaped {
    fn drop(&mut self) {
        if alive(self.pid, self.start) {
            // SAFETY: plain kill(2) of our own child, identity just re-checked.
            unsafe { libc::kill(self.pid as i32, libc::SIGKILL) };
        }
    }
}

fn sleeper() -> Command {
    let mut c = Command::new("sleep");
    c.arg("30");
    c
}

/// `sleep 30` with SIGTERM ignored (the disposition survives exec).
fn stubborn() -> Command {
    let mut c = sleeper();
    // SAFETY: signal(2) is async-signal-safe, fine between fork and exec.
    unsafe {
        c.pre_exec(|| {
            libc::signal(libc::SIGTERM, libc::SIG_IGN);
            Ok(())
        });
    }
    c
}

fn actions(o: &gpuledger_actions::kill::Outcome) -> Vec<&str> {
    o.steps.iter().map(|s| s.action.as_str()).collect()
}

#[test]
fn exits_on_sigterm_without_sigkill() {
    let c = Reaped::spawn(sleeper());
    let o = Killer::new().kill(&c.target(), &opts(), None);
    assert_eq!(o.status, Status::Gone, "{o:#?}");
    assert_eq!(actions(&o), ["SIGTERM", "wait"]);
    assert_eq!(c.exit_status().signal(), Some(libc::SIGTERM));
    assert!(!alive(c.pid, c.start));
    assert_eq!(combined_exit_code(&[o]), 0);
}

#[test]
fn ignores_sigterm_then_sigkill_verified() {
    let c = Reaped::spawn(stubborn());
    let mut op = opts();
    op.grace = Duration::from_millis(300);
    let o = Killer::new().kill(&c.target(), &op, None);
    assert_eq!(o.status, Status::Gone, "{o:#?}");
    assert_eq!(actions(&o), ["SIGTERM", "wait", "SIGKILL", "wait"]);
    assert!(
        o.steps[1].result.contains("still running"),
        "{:?}",
        o.steps[1]
    );
    assert!(
        o.steps[2].at_ms >= 300,
        "SIGKILL before the grace period: {:?}",
        o.steps
    );
    assert_eq!(c.exit_status().signal(), Some(libc::SIGKILL));
}

#[test]
fn force_skips_graceful() {
    let c = Reaped::spawn(sleeper());
    let o = Killer::new().kill(
        &c.target(),
        &KillOptions {
            force: true,
            ..opts()
        },
        None,
    );
    assert_eq!(o.status, Status::Gone);
    assert_eq!(actions(&o), ["SIGKILL", "wait"]);
    assert_eq!(c.exit_status().signal(), Some(libc::SIGKILL));
}

#[test]
fn kill2_fallback_without_pidfd() {
    let c = Reaped::spawn(stubborn());
    let mut op = opts();
    op.grace = Duration::from_millis(200);
    let o = Killer::new().without_pidfd().kill(&c.target(), &op, None);
    assert_eq!(o.status, Status::Gone, "{o:#?}");
    assert_eq!(actions(&o), ["SIGTERM", "wait", "SIGKILL", "wait"]);
    assert_eq!(c.exit_status().signal(), Some(libc::SIGKILL));
}

#[test]
fn stopped_process_gets_sigcont_and_handles_sigterm() {
    let c = Reaped::spawn(sleeper());
    // SAFETY: our own child.
    unsafe { libc::kill(c.pid as i32, libc::SIGSTOP) };
    wait_for_state(c.pid, 'T');
    let o = Killer::new().kill(&c.target(), &opts(), None);
    assert_eq!(o.status, Status::Gone, "{o:#?}");
    assert_eq!(actions(&o), ["SIGTERM", "SIGCONT", "wait"]);
    // It died of the SIGTERM, not of an escalation.
    assert_eq!(c.exit_status().signal(), Some(libc::SIGTERM));
}

#[test]
fn stopped_process_dry_run_mentions_sigcont_and_stays_stopped() {
    let c = Reaped::spawn(sleeper());
    // SAFETY: our own child.
    unsafe { libc::kill(c.pid as i32, libc::SIGSTOP) };
    wait_for_state(c.pid, 'T');
    let o = Killer::new().kill(
        &c.target(),
        &KillOptions {
            dry_run: true,
            ..opts()
        },
        None,
    );
    assert_eq!(o.status, Status::DryRun);
    assert!(o.plan.iter().any(|p| p.contains("SIGCONT")), "{:?}", o.plan);
    assert!(o.steps.is_empty());
    assert_eq!(stat(c.pid).unwrap().state, 'T');
}

#[test]
fn dry_run_signals_nothing() {
    let c = Reaped::spawn(sleeper());
    let o = Killer::new().kill(
        &c.target(),
        &KillOptions {
            dry_run: true,
            ..opts()
        },
        None,
    );
    assert_eq!(o.status, Status::DryRun);
    assert!(!o.signalled());
    assert!(
        o.plan[0].contains("SIGTERM") && o.plan.iter().any(|p| p.contains("SIGKILL")),
        "{:?}",
        o.plan
    );
    assert!(o.message.contains("nothing was signalled"));
    std::thread::sleep(Duration::from_millis(50));
    assert!(alive(c.pid, c.start));
    assert_eq!(combined_exit_code(&[o]), exit_code::DRY_RUN);
}

/// A child of the test process that we do not reap: after the kill it stays a zombie, and the
/// report names us as the parent that must reap it.
#[test]
fn killed_child_left_as_zombie_names_parent() {
    let mut child: Child = sleeper().spawn().unwrap();
    let pid = child.id();
    let t = Target {
        pid,
        start_time: Some(stat(pid).unwrap().start_time),
        name: None,
    };
    let o = Killer::new().kill(&t, &opts(), None);
    assert_eq!(o.status, Status::Zombie, "{o:#?}");
    let parent = o.zombie_parent.as_ref().expect("parent named");
    assert_eq!(parent.pid, std::process::id());
    assert_eq!(
        parent.name.as_deref(),
        Some(stat(std::process::id()).unwrap().comm.as_str())
    );
    assert!(o.message.contains("zombie"));
    assert_eq!(combined_exit_code(&[o]), 0, "a zombie counts as gone");
    assert_eq!(child.wait().unwrap().signal(), Some(libc::SIGTERM));
}

#[test]
fn already_zombie_is_reported_without_signals() {
    let mut child = Command::new("true").spawn().unwrap();
    let pid = child.id();
    wait_for_state(pid, 'Z');
    let o = Killer::new().kill(&Target::pid(pid), &opts(), None);
    assert_eq!(o.status, Status::Zombie, "{o:#?}");
    assert!(o.steps.is_empty());
    assert_eq!(o.zombie_parent.as_ref().unwrap().pid, std::process::id());
    assert!(child.wait().unwrap().success());
}

#[test]
fn reused_pid_is_skipped_and_not_signalled() {
    let c = Reaped::spawn(sleeper());
    let wrong_start = Target {
        start_time: Some(c.start + 1),
        ..c.target()
    };
    let o = Killer::new().kill(&wrong_start, &opts(), None);
    assert_eq!(o.status, Status::IdentityMismatch, "{o:#?}");
    assert!(o.steps.is_empty());
    assert!(o.message.contains("start time"), "{}", o.message);
    assert_eq!(
        o.start_time,
        Some(c.start + 1),
        "the outcome names what the user chose"
    );
    let wrong_name = Target {
        name: Some("llama-server".into()),
        ..c.target()
    };
    let o2 = Killer::new().kill(&wrong_name, &opts(), None);
    assert_eq!(o2.status, Status::IdentityMismatch);
    assert!(o2.message.contains("llama-server"));
    std::thread::sleep(Duration::from_millis(50));
    assert!(
        alive(c.pid, c.start),
        "a skipped process must still be running"
    );
    assert_eq!(combined_exit_code(&[o, o2]), exit_code::NOT_FOUND_OR_REUSED);
}

#[test]
fn protected_pids_refused() {
    let k = Killer::new();
    let me = std::process::id();
    let parent = stat(me).unwrap().ppid;
    for (pid, why) in [
        (1, "init"),
        (me, "itself"),
        (parent, "parent"),
        (0, "PID 0"),
        (u32::MAX, "range"),
    ] {
        let o = k.kill(&Target::pid(pid), &opts(), None);
        assert_eq!(o.status, Status::Refused, "PID {pid}: {o:#?}");
        assert!(o.message.contains(why), "PID {pid}: {}", o.message);
        assert!(o.steps.is_empty());
        assert_eq!(combined_exit_code(&[o]), exit_code::REFUSED);
    }
    assert!(alive(parent, stat(parent).unwrap().start_time));
}

#[test]
fn no_such_process() {
    // PIDs above pid_max (at most 2^22) never exist.
    let o = Killer::new().kill(&Target::pid(5_000_000), &opts(), None);
    assert_eq!(o.status, Status::NotFound);
    assert_eq!(combined_exit_code(&[o]), exit_code::NOT_FOUND_OR_REUSED);
}

/// A fake `/proc` that describes a real child of ours under another name (or as a kernel thread):
/// the guard rails read the fake, the signals would reach the real child.
fn fake_root(pid: u32, comm: &str, flags: Option<u64>) -> std::path::PathBuf {
    let real = std::fs::read_to_string(format!("/proc/{pid}/stat")).unwrap();
    let close = real.rfind(')').unwrap();
    let mut fields: Vec<String> = real[close + 2..]
        .split_whitespace()
        .map(String::from)
        .collect();
    if let Some(f) = flags {
        fields[6] = f.to_string(); // field 9
    }
    let root =
        std::env::temp_dir().join(format!("gpuledger-fake-proc-{}-{pid}", std::process::id()));
    let dir = root.join(pid.to_string());
    std::fs::create_dir_all(&dir).unwrap();
    std::fs::write(
        dir.join("stat"),
        format!("{pid} ({comm}) {}\n", fields.join(" ")),
    )
    .unwrap();
    std::fs::write(
        dir.join("status"),
        format!("Name:\t{comm}\nUid:\t1000\t1000\t1000\t1000\n"),
    )
    .unwrap();
    root
}

#[test]
fn compositor_needs_second_confirmation() {
    let c = Reaped::spawn(sleeper());
    let root = fake_root(c.pid, "gnome-shell", None);
    let k = Killer::with_proc_root(&root);
    let t = Target {
        name: Some("gnome-shell".into()),
        ..c.target()
    };
    let o = k.kill(&t, &opts(), None);
    assert_eq!(o.status, Status::NeedsConfirmation, "{o:#?}");
    assert!(o.message.contains("--yes-really"));
    assert!(o.steps.is_empty());
    std::thread::sleep(Duration::from_millis(50));
    assert!(alive(c.pid, c.start));
    // With the second confirmation it goes ahead (and reaches the real process).
    let o = k.kill(
        &t,
        &KillOptions {
            confirmed_sensitive: true,
            ..opts()
        },
        None,
    );
    assert_eq!(o.status, Status::Gone, "{o:#?}");
    assert_eq!(c.exit_status().signal(), Some(libc::SIGTERM));
    std::fs::remove_dir_all(root).unwrap();
}

#[test]
fn kernel_thread_refused() {
    let c = Reaped::spawn(sleeper());
    let root = fake_root(c.pid, "kworker/0:1", Some(0x0020_0040));
    let o = Killer::with_proc_root(&root).kill(
        &Target::pid(c.pid),
        &KillOptions {
            confirmed_sensitive: true,
            ..opts()
        },
        None,
    );
    assert_eq!(o.status, Status::Refused, "{o:#?}");
    assert!(o.message.contains("kernel thread"));
    std::thread::sleep(Duration::from_millis(50));
    assert!(alive(c.pid, c.start));
    std::fs::remove_dir_all(root).unwrap();
}

/// The "still alive" path. The kernel gives no reliable way to make a process survive SIGKILL on
/// demand (state D needs a driver or filesystem that blocks), so the test suppresses the delivery
/// of SIGKILL with the library's delivery filter: everything else (the pidfd, the wait, the
/// state and wchan read from /proc) runs on a real process that really is still alive.
#[test]
fn survivor_reported_honestly() {
    let c = Reaped::spawn(stubborn());
    let k = Killer::new().with_delivery_filter(Box::new(|_, sig| sig != Signal::Forced));
    let op = KillOptions {
        grace: Duration::from_millis(100),
        kill_wait: Duration::from_millis(300),
        ..opts()
    };
    let o = k.kill(&c.target(), &op, None);
    assert_eq!(o.status, Status::StillAlive, "{o:#?}");
    let s = o.survivor.as_ref().unwrap();
    assert_eq!(s.state.as_deref(), Some("S (sleeping)"));
    assert!(s.remedies.iter().any(|r| r.contains("Reboot")));
    assert!(o.steps[2].result.contains("suppressed"));
    assert!(!o.signalled() || o.steps[0].action == "SIGTERM");
    assert!(o.message.contains("still alive"));
    assert!(alive(c.pid, c.start));
    assert_eq!(combined_exit_code(&[o]), exit_code::STILL_ALIVE);
}

/// Reports GPU memory for the child while it is alive, none once it is gone: stands in for a fresh
/// collection round.
struct WhileAlive {
    pid: u32,
    start: u64,
}

impl GpuMemory for WhileAlive {
    fn gpu_memory_of(&self, pid: u32) -> GpuMemoryReading {
        if pid == self.pid && alive(self.pid, self.start) {
            GpuMemoryReading::Holds {
                bytes: 1_600_000_000,
            }
        } else {
            GpuMemoryReading::NotListed
        }
    }
}

#[test]
fn gpu_memory_release_is_observed() {
    let c = Reaped::spawn(sleeper());
    let g = WhileAlive {
        pid: c.pid,
        start: c.start,
    };
    let o = Killer::new().kill(&c.target(), &opts(), Some(&g));
    assert_eq!(o.status, Status::Gone);
    assert_eq!(
        o.gpu_memory.before,
        Some(GpuMemoryReading::Holds {
            bytes: 1_600_000_000
        })
    );
    assert_eq!(o.gpu_memory.after, Some(GpuMemoryReading::NotListed));
    assert_eq!(o.gpu_memory.released, Some(true));
    let v = serde_json::to_value(&o).unwrap();
    assert_eq!(v["status"], "gone");
    assert_eq!(v["gpu_memory"]["before"]["bytes"], 1_600_000_000u64);
    assert_eq!(v["steps"][0]["action"], "SIGTERM");
}

#[test]
fn several_targets_worst_code_wins() {
    let c = Reaped::spawn(sleeper());
    let outs = Killer::new().kill_all(&[c.target(), Target::pid(1)], &opts(), None);
    assert_eq!(outs[0].status, Status::Gone);
    assert_eq!(outs[1].status, Status::Refused);
    assert_eq!(combined_exit_code(&outs), exit_code::REFUSED);
}

// ---- another user's process -------------------------------------------------------------------

const HELPER_ENV: &str = "GPULEDGER_TEST_KILL_AS_OTHER_USER_PID";

/// Runs inside a copy of this test binary started as user `daemon` by the test below: tries the
/// kill and prints the outcome. Does nothing when run any other way.
#[test]
#[ignore = "helper: run by other_users_process_gets_permission_message as another user"]
fn helper_kill_as_other_user() {
    let Ok(pid) = std::env::var(HELPER_ENV) else {
        return;
    };
    let o = Killer::new().kill(&Target::pid(pid.parse().unwrap()), &opts(), None);
    println!("OUTCOME:{}", serde_json::to_string(&o).unwrap());
}

#[test]
fn other_users_process_gets_permission_message() {
    let skip = |why: &str| {
        if std::env::var("CI").as_deref() == Ok("true") {
            panic!("cannot run the other-user kill test in CI: {why}");
        }
        eprintln!("SKIPPED other_users_process_gets_permission_message: {why}");
    };
    // SAFETY: geteuid cannot fail.
    if unsafe { libc::geteuid() } != 0 {
        return skip("needs root to start processes as other users");
    }
    if Command::new("setpriv").arg("--version").output().is_err() {
        return skip("setpriv (util-linux) is not installed");
    }
    // The target runs as nobody.
    let mut target = Command::new("setpriv");
    target.args([
        "--reuid=nobody",
        "--regid=nogroup",
        "--clear-groups",
        "sleep",
        "30",
    ]);
    let c = Reaped::spawn(target);
    // setpriv execs sleep in place: wait until the PID shows the sleep (so the uid is nobody's).
    let t = Instant::now();
    while stat(c.pid).map(|s| s.comm) != Some("sleep".into()) {
        assert!(t.elapsed() < Duration::from_secs(5));
        std::thread::sleep(Duration::from_millis(5));
    }
    let start = stat(c.pid).unwrap().start_time;
    // The killer runs as daemon: a copy of this test binary that daemon can execute.
    let dir = std::env::temp_dir().join(format!("gpuledger-kill-helper-{}", std::process::id()));
    std::fs::create_dir_all(&dir).unwrap();
    let exe = dir.join("helper");
    std::fs::copy(std::env::current_exe().unwrap(), &exe).unwrap();
    use std::os::unix::fs::PermissionsExt;
    std::fs::set_permissions(&dir, std::fs::Permissions::from_mode(0o755)).unwrap();
    std::fs::set_permissions(&exe, std::fs::Permissions::from_mode(0o755)).unwrap();
    let out = Command::new("setpriv")
        .args(["--reuid=daemon", "--regid=daemon", "--clear-groups"])
        .arg(&exe)
        .args([
            "--exact",
            "helper_kill_as_other_user",
            "--ignored",
            "--nocapture",
            "--test-threads=1",
        ])
        .env(HELPER_ENV, c.pid.to_string())
        .output()
        .unwrap();
    std::fs::remove_dir_all(&dir).unwrap();
    let stdout = String::from_utf8_lossy(&out.stdout);
    let line = stdout
        .lines()
        .find_map(|l| l.find("OUTCOME:").map(|i| &l[i + "OUTCOME:".len()..]))
        .unwrap_or_else(|| {
            panic!(
                "helper printed no outcome: {stdout}\n{}",
                String::from_utf8_lossy(&out.stderr)
            )
        });
    let v: serde_json::Value = serde_json::from_str(line).unwrap();
    assert_eq!(v["status"], "permission_denied", "{v:#}");
    let msg = v["message"].as_str().unwrap();
    assert!(msg.contains("user nobody (uid 65534)"), "{msg}");
    assert!(msg.contains("runs as daemon (uid 1)"), "{msg}");
    assert!(!msg.contains("os error"), "raw OS error leaked: {msg}");
    assert!(
        alive(c.pid, start),
        "another user's process must be untouched"
    );
}

/// A thread ID names a thread, not a process: refused with the process to kill instead (here a
/// thread of the test process itself, so a mistake would be visible at once).
#[test]
fn thread_id_refused_with_its_process() {
    let (tx, rx) = mpsc::channel();
    let (stop_tx, stop_rx) = mpsc::channel::<()>();
    let t = std::thread::spawn(move || {
        // SAFETY: gettid cannot fail.
        tx.send(unsafe { libc::gettid() } as u32).unwrap();
        let _ = stop_rx.recv();
    });
    let tid = rx.recv().unwrap();
    let o = Killer::new().kill(&Target::pid(tid), &opts(), None);
    stop_tx.send(()).unwrap();
    t.join().unwrap();
    assert_eq!(o.status, Status::Refused, "{o:#?}");
    assert!(
        o.message
            .contains(&format!("thread of process {}", std::process::id())),
        "{}",
        o.message
    );
    assert!(o.steps.is_empty());
}
