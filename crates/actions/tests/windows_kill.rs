//! The Windows kill path on real processes. Runs on Windows and, in this project's CI, under wine
//! (`.ci/test-windows.sh`). The children are copies of this test binary started in a helper mode:
//! a console sleeper (no windows), a window that closes on WM_CLOSE, and a window that ignores it.
#![cfg(windows)]

use gpuledger_actions::kill::{
    combined_exit_code, exit_code, KillOptions, Killer, Signal, Status, Target,
};
use std::io::{BufRead, BufReader};
use std::process::{Child, Command, Stdio};
use std::time::Duration;

const MODE_ENV: &str = "GPULEDGER_TEST_CHILD_MODE";

fn opts() -> KillOptions {
    KillOptions {
        grace: Duration::from_secs(3),
        kill_wait: Duration::from_secs(5),
        ..KillOptions::default()
    }
}

/// A helper child, killed on drop if still running.
struct Helper {
    child: Child,
}

impl Helper {
    /// Starts this test binary in `mode` and waits until it says it is ready.
    fn start(mode: &str) -> Self {
        let mut child = Command::new(std::env::current_exe().unwrap())
            .args([
                "--exact",
                "helper_child",
                "--ignored",
                "--nocapture",
                "--test-threads=1",
            ])
            .env(MODE_ENV, mode)
            .stdout(Stdio::piped())
            .spawn()
            .expect("start helper child");
        let out = child.stdout.take().unwrap();
        let mut lines = BufReader::new(out).lines();
        loop {
            match lines.next() {
                Some(Ok(l)) if l.contains("READY") => break,
                Some(Ok(l)) if l.contains("NOWINDOW") => {
                    panic!("helper could not create a window: {l}")
                }
                Some(Ok(_)) => continue,
                other => panic!("helper ended before it was ready: {other:?}"),
            }
        }
        // Keep draining its stdout so it never blocks on a full pipe.
        std::thread::spawn(move || for _ in lines {});
        Helper { child }
    }

    fn pid(&self) -> u32 {
        self.child.id()
    }

    fn running(&mut self) -> bool {
        self.child.try_wait().unwrap().is_none()
    }

    fn exit_code(&mut self) -> Option<i32> {
        self.child.wait().unwrap().code()
    }
}

impl Drop for Helper {
    fn drop(&mut self) {
        let _ = self.child.kill();
        let _ = self.child.wait();
    }
}

/// The child side. Does nothing unless started by `Helper::start`.
#[test]
#[ignore = "helper: started as a child process by the tests below"]
fn helper_child() {
    let Ok(mode) = std::env::var(MODE_ENV) else {
        return;
    };
    match mode.as_str() {
        "sleep" => {
            println!("READY");
            std::thread::sleep(Duration::from_secs(30));
        }
        "window" => window::run(false),
        "stubborn-window" => window::run(true),
        other => panic!("unknown helper mode {other}"),
    }
    std::process::exit(0);
}

mod window {
    use std::io::Write;
    use std::sync::atomic::{AtomicBool, Ordering};
    use windows_sys::Win32::Foundation::{HWND, LPARAM, LRESULT, WPARAM};
    use windows_sys::Win32::System::LibraryLoader::GetModuleHandleW;
    use windows_sys::Win32::UI::WindowsAndMessaging::{
        CreateWindowExW, DefWindowProcW, DispatchMessageW, GetMessageW, PostQuitMessage,
        RegisterClassW, TranslateMessage, MSG, WM_CLOSE, WM_DESTROY, WNDCLASSW,
        WS_OVERLAPPEDWINDOW,
    };

    static IGNORE_CLOSE: AtomicBool = AtomicBool::new(false);

    unsafe extern "system" fn proc(h: HWND, msg: u32, w: WPARAM, l: LPARAM) -> LRESULT {
        match msg {
            WM_CLOSE if IGNORE_CLOSE.load(Ordering::Relaxed) => {
                println!("IGNORED WM_CLOSE");
                0
            }
            WM_DESTROY => {
                // SAFETY: plain call on the window's thread.
                unsafe { PostQuitMessage(0) };
                0
            }
            // SAFETY: default handling (WM_CLOSE destroys the window).
            _ => unsafe { DefWindowProcW(h, msg, w, l) },
        }
    }

    pub fn run(ignore_close: bool) {
        IGNORE_CLOSE.store(ignore_close, Ordering::Relaxed);
        let class: Vec<u16> = "gpuledger_test_window\0".encode_utf16().collect();
        // SAFETY: Win32 window creation with valid, NUL-terminated strings that outlive the calls.
        unsafe {
            let inst = GetModuleHandleW(std::ptr::null());
            let wc = WNDCLASSW {
                lpfnWndProc: Some(proc),
                hInstance: inst,
                lpszClassName: class.as_ptr(),
                ..Default::default()
            };
            RegisterClassW(&wc);
            let hwnd = CreateWindowExW(
                0,
                class.as_ptr(),
                class.as_ptr(),
                WS_OVERLAPPEDWINDOW,
                0,
                0,
                200,
                100,
                std::ptr::null_mut(),
                std::ptr::null_mut(),
                inst,
                std::ptr::null(),
            );
            if hwnd.is_null() {
                println!("NOWINDOW");
                std::process::exit(3);
            }
            println!("READY");
            std::io::stdout().flush().unwrap();
            let mut msg: MSG = std::mem::zeroed();
            while GetMessageW(&mut msg, std::ptr::null_mut(), 0, 0) > 0 {
                TranslateMessage(&msg);
                DispatchMessageW(&msg);
            }
        }
    }
}

fn actions(o: &gpuledger_actions::kill::Outcome) -> Vec<&str> {
    o.steps.iter().map(|s| s.action.as_str()).collect()
}

#[test]
fn console_child_has_no_window_so_terminate_process() {
    let mut h = Helper::start("sleep");
    let k = Killer::new();
    let info = k.inspect(h.pid()).expect("inspect child");
    assert!(info.name.to_ascii_lowercase().ends_with(".exe"), "{info:?}");
    let o = k.kill(&Target::from_info(&info), &opts(), None);
    assert_eq!(o.status, Status::Gone, "{o:#?}");
    assert_eq!(actions(&o), ["WM_CLOSE", "TerminateProcess", "wait"]);
    assert!(
        o.steps[0].result.contains("no top-level windows"),
        "{:?}",
        o.steps[0]
    );
    assert!(o.message.contains("exit code 1"), "{}", o.message);
    // What the OS says, independently of the library.
    assert_eq!(h.exit_code(), Some(1));
    assert_eq!(combined_exit_code(&[o]), 0);
}

#[test]
fn windowed_child_closes_on_wm_close() {
    let mut h = Helper::start("window");
    let o = Killer::new().kill(&Target::pid(h.pid()), &opts(), None);
    assert_eq!(o.status, Status::Gone, "{o:#?}");
    assert_eq!(actions(&o), ["WM_CLOSE", "wait"]);
    // Wine (like Windows) may give the thread a second, hidden top-level window (the IME's).
    assert!(
        o.steps[0].result.contains("top-level window(s)"),
        "{:?}",
        o.steps[0]
    );
    // Exit code 0: it ended itself (TerminateProcess would have left 1).
    assert_eq!(h.exit_code(), Some(0));
}

#[test]
fn window_ignoring_wm_close_is_terminated_after_grace() {
    let mut h = Helper::start("stubborn-window");
    let op = KillOptions {
        grace: Duration::from_millis(500),
        ..opts()
    };
    let o = Killer::new().kill(&Target::pid(h.pid()), &op, None);
    assert_eq!(o.status, Status::Gone, "{o:#?}");
    assert_eq!(
        actions(&o),
        ["WM_CLOSE", "wait", "TerminateProcess", "wait"]
    );
    assert!(o.steps[2].at_ms >= 500, "{:?}", o.steps);
    assert_eq!(h.exit_code(), Some(1));
}

#[test]
fn force_goes_straight_to_terminate() {
    let mut h = Helper::start("window");
    let o = Killer::new().kill(
        &Target::pid(h.pid()),
        &KillOptions {
            force: true,
            ..opts()
        },
        None,
    );
    assert_eq!(o.status, Status::Gone, "{o:#?}");
    assert_eq!(actions(&o), ["TerminateProcess", "wait"]);
    assert_eq!(h.exit_code(), Some(1));
}

#[test]
fn wrong_creation_time_is_skipped() {
    let mut h = Helper::start("sleep");
    let k = Killer::new();
    let info = k.inspect(h.pid()).unwrap();
    let t = Target {
        start_time: Some(info.start_time + 1),
        ..Target::from_info(&info)
    };
    let o = k.kill(&t, &opts(), None);
    assert_eq!(o.status, Status::IdentityMismatch, "{o:#?}");
    assert!(o.steps.is_empty());
    std::thread::sleep(Duration::from_millis(100));
    assert!(h.running(), "a skipped process must still be running");
}

#[test]
fn dry_run_signals_nothing() {
    let mut h = Helper::start("window");
    let o = Killer::new().kill(
        &Target::pid(h.pid()),
        &KillOptions {
            dry_run: true,
            ..opts()
        },
        None,
    );
    assert_eq!(o.status, Status::DryRun);
    assert!(
        o.plan[0].contains("WM_CLOSE") && o.plan.iter().any(|p| p.contains("TerminateProcess"))
    );
    assert!(o.steps.is_empty());
    std::thread::sleep(Duration::from_millis(100));
    assert!(h.running());
    assert_eq!(combined_exit_code(&[o]), exit_code::DRY_RUN);
}

/// Under wine (ntdll exports `wine_get_version`)?
fn under_wine() -> bool {
    use windows_sys::Win32::System::LibraryLoader::{GetModuleHandleW, GetProcAddress};
    let ntdll: Vec<u16> = "ntdll.dll\0".encode_utf16().collect();
    // SAFETY: NUL-terminated names; ntdll is always loaded.
    unsafe {
        let m = GetModuleHandleW(ntdll.as_ptr());
        !m.is_null() && GetProcAddress(m, c"wine_get_version".as_ptr().cast()).is_some()
    }
}

/// The survivor path: WM_CLOSE is ignored by the child and TerminateProcess is suppressed by the
/// test's delivery filter (Windows has no way to make a process survive it on demand), so the WMI
/// fallback runs for real. Wine's PowerShell is a stub that answers nothing: the step fails and
/// the process is reported still alive, honestly; on Windows, WMI ends it.
#[test]
fn survivor_gets_wmi_fallback_then_honest_report() {
    let mut h = Helper::start("stubborn-window");
    let k = Killer::new().with_delivery_filter(Box::new(|_, sig| sig != Signal::Forced));
    let op = KillOptions {
        grace: Duration::from_millis(200),
        kill_wait: Duration::from_millis(300),
        ..opts()
    };
    let o = k.kill(&Target::pid(h.pid()), &op, None);
    assert_eq!(
        actions(&o)[..4],
        ["WM_CLOSE", "wait", "TerminateProcess", "wait"],
        "{o:#?}"
    );
    assert_eq!(actions(&o)[4], "WMI Terminate", "{o:#?}");
    if under_wine() {
        assert_eq!(o.status, Status::StillAlive, "{o:#?}");
        // Wine's powershell.exe is a stub that exits 0 without doing anything: the step must not
        // be taken as done.
        assert!(
            o.steps[4].result.starts_with("failed: PowerShell"),
            "{:?}",
            o.steps[4]
        );
        let s = o.survivor.as_ref().unwrap();
        assert!(
            s.remedies.iter().any(|r| r.contains("restart Windows")),
            "{s:?}"
        );
        assert!(h.running(), "the survivor report must be true");
        assert_eq!(combined_exit_code(&[o]), exit_code::STILL_ALIVE);
    } else {
        assert_eq!(o.status, Status::Gone, "{o:#?}");
        assert!(!h.running());
    }
}

#[test]
fn self_and_missing_refused() {
    let k = Killer::new();
    let o = k.kill(&Target::pid(std::process::id()), &opts(), None);
    assert_eq!(o.status, Status::Refused);
    assert!(o.message.contains("itself"));
    // Windows PIDs are multiples of 4: 4_000_001 never names a process.
    let o = k.kill(&Target::pid(4_000_001), &opts(), None);
    assert_eq!(o.status, Status::NotFound, "{o:#?}");
}
