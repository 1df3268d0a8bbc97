//! Windows: the process handle pins the identity (a PID is reused only after every handle to the
//! process is closed), its creation time proves it is the process the user chose; graceful is
//! WM_CLOSE to its top-level windows (what `taskkill` without `/F` does), forced is
//! TerminateProcess, and exit is verified by waiting on the handle.

use super::{ActError, Exit, InspectError, ProcInfo, Sent, Signal, Survivor};
use gpuledger_lang::Said;
use std::time::{Duration, Instant};
use windows_sys::core::BOOL;
use windows_sys::Win32::Foundation::{
    CloseHandle, GetLastError, ERROR_ACCESS_DENIED, ERROR_INVALID_PARAMETER, FILETIME, HANDLE,
    HWND, INVALID_HANDLE_VALUE, LPARAM, WAIT_OBJECT_0,
};
use windows_sys::Win32::System::Diagnostics::ToolHelp::{
    CreateToolhelp32Snapshot, Process32FirstW, Process32NextW, PROCESSENTRY32W, TH32CS_SNAPPROCESS,
};
use windows_sys::Win32::System::LibraryLoader::{GetModuleHandleW, GetProcAddress};
use windows_sys::Win32::System::Threading::{
    GetExitCodeProcess, GetProcessTimes, OpenProcess, QueryFullProcessImageNameW, TerminateProcess,
    WaitForSingleObject, PROCESS_NAME_WIN32, PROCESS_QUERY_LIMITED_INFORMATION,
    PROCESS_SYNCHRONIZE, PROCESS_TERMINATE,
};
use windows_sys::Win32::UI::WindowsAndMessaging::{
    EnumWindows, GetWindowThreadProcessId, PostMessageW, WM_CLOSE,
};

/// `GetExitCodeProcess` value while the process runs.
const STILL_ACTIVE: u32 = 259;

pub(crate) struct Sys;

/// An owned process handle, closed on drop.
pub(crate) struct Handle(HANDLE);

impl Drop for Handle {
    fn drop(&mut self) {
        // SAFETY: we own the handle and close it once.
        unsafe { CloseHandle(self.0) };
    }
}

fn open(pid: u32, access: u32) -> Result<Handle, u32> {
    // SAFETY: plain call; a null result means failure.
    let h = unsafe { OpenProcess(access, 0, pid) };
    if h.is_null() {
        // SAFETY: reads the thread's last error.
        Err(unsafe { GetLastError() })
    } else {
        Ok(Handle(h))
    }
}

fn creation_time(h: &Handle) -> Option<u64> {
    let mut t = [FILETIME {
        dwLowDateTime: 0,
        dwHighDateTime: 0,
    }; 4];
    let [c, e, k, u] = &mut t;
    // SAFETY: four valid FILETIME out-pointers.
    if unsafe { GetProcessTimes(h.0, c, e, k, u) } == 0 {
        return None;
    }
    Some((u64::from(c.dwHighDateTime) << 32) | u64::from(c.dwLowDateTime))
}

fn image_name(h: &Handle) -> Option<String> {
    let mut buf = vec![0u16; 32768];
    let mut len = buf.len() as u32;
    // SAFETY: `len` is the buffer's size in characters.
    if unsafe { QueryFullProcessImageNameW(h.0, PROCESS_NAME_WIN32, buf.as_mut_ptr(), &mut len) }
        == 0
    {
        return None;
    }
    let path = String::from_utf16_lossy(&buf[..len as usize]);
    path.rsplit(['\\', '/']).next().map(str::to_string)
}

fn exit_code(h: &Handle) -> Option<u32> {
    let mut code = 0u32;
    // SAFETY: valid out-pointer.
    (unsafe { GetExitCodeProcess(h.0, &mut code) } != 0).then_some(code)
}

/// `IsProcessCritical` exists from Windows 8.1 (and not in wine 8): look it up at run time so the
/// binary still loads where it is missing. `None` = cannot tell.
fn is_critical(h: &Handle) -> Option<bool> {
    type IsProcessCriticalFn = unsafe extern "system" fn(HANDLE, *mut BOOL) -> BOOL;
    let module: Vec<u16> = "kernel32.dll\0".encode_utf16().collect();
    // SAFETY: NUL-terminated names; kernel32 is always loaded.
    let f = unsafe {
        let m = GetModuleHandleW(module.as_ptr());
        if m.is_null() {
            return None;
        }
        GetProcAddress(m, c"IsProcessCritical".as_ptr().cast())?
    };
    // SAFETY: the documented signature of IsProcessCritical.
    let f: IsProcessCriticalFn = unsafe { std::mem::transmute(f) };
    let mut critical: BOOL = 0;
    // SAFETY: valid handle and out-pointer.
    (unsafe { f(h.0, &mut critical) } != 0).then_some(critical != 0)
}

struct Entry {
    pid: u32,
    ppid: u32,
    name: String,
}

/// The process table from a Toolhelp snapshot.
fn processes() -> Vec<Entry> {
    let mut out = Vec::new();
    // SAFETY: plain call; checked for INVALID_HANDLE_VALUE.
    let snap = unsafe { CreateToolhelp32Snapshot(TH32CS_SNAPPROCESS, 0) };
    if snap == INVALID_HANDLE_VALUE {
        return out;
    }
    let snap = Handle(snap);
    let mut e = PROCESSENTRY32W {
        dwSize: std::mem::size_of::<PROCESSENTRY32W>() as u32,
        ..Default::default()
    };
    // SAFETY: `e.dwSize` is set as the API requires.
    let mut ok = unsafe { Process32FirstW(snap.0, &mut e) };
    while ok != 0 {
        let len = e
            .szExeFile
            .iter()
            .position(|&c| c == 0)
            .unwrap_or(e.szExeFile.len());
        out.push(Entry {
            pid: e.th32ProcessID,
            ppid: e.th32ParentProcessID,
            name: String::from_utf16_lossy(&e.szExeFile[..len]),
        });
        // SAFETY: as above.
        ok = unsafe { Process32NextW(snap.0, &mut e) };
    }
    out
}

fn access_denied_text() -> String {
    "Windows denied access: the process belongs to another user or runs elevated; run gpuledger \
     from an elevated (Administrator) prompt"
        .into()
}

impl Sys {
    pub(crate) fn new() -> Self {
        Sys
    }

    pub(crate) fn inspect(&self, pid: u32) -> Result<ProcInfo, InspectError> {
        let h = match open(pid, PROCESS_QUERY_LIMITED_INFORMATION) {
            Ok(h) => h,
            Err(ERROR_INVALID_PARAMETER) => return Err(InspectError::NotFound),
            Err(ERROR_ACCESS_DENIED) => {
                return Err(InspectError::PermissionDenied(access_denied_text()))
            }
            Err(e) => {
                return Err(InspectError::Other(format!(
                    "OpenProcess failed (error {e})"
                )))
            }
        };
        self.describe(&h, pid)
    }

    fn describe(&self, h: &Handle, pid: u32) -> Result<ProcInfo, InspectError> {
        // A process object outlives its exit while someone holds a handle: exited means gone.
        if exit_code(h) != Some(STILL_ACTIVE) {
            return Err(InspectError::NotFound);
        }
        let start_time =
            creation_time(h).ok_or_else(|| InspectError::Other("GetProcessTimes failed".into()))?;
        let entry = processes().into_iter().find(|e| e.pid == pid);
        let name = image_name(h)
            .or_else(|| entry.as_ref().map(|e| e.name.clone()))
            .unwrap_or_else(|| format!("PID {pid}"));
        Ok(ProcInfo {
            pid,
            exe_name: None,
            name,
            start_time,
            state: None,
            ppid: entry.map(|e| e.ppid),
            uid: None,
            user: None,
            kernel_thread: false,
            critical: is_critical(h).unwrap_or(false),
            thread_of: None,
        })
    }

    pub(crate) fn open(&self, pid: u32, _info: &ProcInfo) -> Result<Handle, ActError> {
        match open(
            pid,
            PROCESS_SYNCHRONIZE | PROCESS_TERMINATE | PROCESS_QUERY_LIMITED_INFORMATION,
        ) {
            Ok(h) => Ok(h),
            Err(ERROR_INVALID_PARAMETER) => Err(ActError::Gone),
            Err(ERROR_ACCESS_DENIED) => Err(ActError::PermissionDenied),
            Err(e) => Err(ActError::Os(format!("OpenProcess failed (error {e})"))),
        }
    }

    /// With the handle held the PID cannot be reused, so its creation time names the process.
    pub(crate) fn inspect_pinned(&self, h: &Handle, pid: u32) -> Result<ProcInfo, InspectError> {
        self.describe(h, pid)
    }

    pub(crate) fn send(&self, h: &Handle, pid: u32, sig: Signal) -> Result<Sent, ActError> {
        if signalled(h, 0) {
            return Err(ActError::Gone);
        }
        match sig {
            Signal::Graceful => {
                let windows = top_level_windows(pid);
                if windows.is_empty() {
                    return Ok(Sent::NotApplicable(
                        "it has no top-level windows (a console or background program), so it \
                         cannot be asked to close"
                            .into(),
                    ));
                }
                let mut posted = 0;
                for w in &windows {
                    // SAFETY: posting a message to a window handle; a stale handle just fails.
                    if unsafe { PostMessageW(*w, WM_CLOSE, 0, 0) } != 0 {
                        posted += 1;
                    }
                }
                if posted == 0 {
                    // SAFETY: reads the thread's last error.
                    let e = unsafe { GetLastError() };
                    return Err(if e == ERROR_ACCESS_DENIED {
                        ActError::PermissionDenied
                    } else {
                        ActError::Os(format!("PostMessageW(WM_CLOSE) failed (error {e})"))
                    });
                }
                Ok(Sent::Delivered(format!("to {posted} top-level window(s)")))
            }
            Signal::Continue => Ok(Sent::NotApplicable(
                "Windows has no stopped state to continue".into(),
            )),
            // With our handle held the PID cannot be reused, so WMI's by-PID call hits our process.
            Signal::Fallback => wmi_terminate(pid),
            Signal::Forced => {
                // SAFETY: our handle has PROCESS_TERMINATE.
                if unsafe { TerminateProcess(h.0, 1) } != 0 {
                    return Ok(Sent::Delivered(String::new()));
                }
                // SAFETY: reads the thread's last error.
                let e = unsafe { GetLastError() };
                // TerminateProcess on a process that is already exiting fails with access denied.
                if signalled(h, 0) {
                    Err(ActError::Gone)
                } else if e == ERROR_ACCESS_DENIED {
                    Err(ActError::PermissionDenied)
                } else {
                    Err(ActError::Os(format!("TerminateProcess failed (error {e})")))
                }
            }
        }
    }

    pub(crate) fn wait_exit(
        &self,
        h: &Handle,
        _pid: u32,
        timeout: Duration,
    ) -> Result<bool, String> {
        let deadline = Instant::now() + timeout;
        loop {
            let left = deadline.saturating_duration_since(Instant::now());
            let ms = left
                .as_nanos()
                .div_ceil(1_000_000)
                .min(u128::from(u32::MAX - 1)) as u32;
            if signalled(h, ms) {
                return Ok(true);
            }
            if Instant::now() >= deadline {
                return Ok(false);
            }
        }
    }

    pub(crate) fn observe_exit(&self, h: &Handle, _pid: u32, _start: u64, _reap: Duration) -> Exit {
        Exit::Gone(
            exit_code(h)
                .map(|c| format!(" (exit code {c})"))
                .unwrap_or_default(),
        )
    }

    pub(crate) fn survivor(&self, pid: u32, forced: &str) -> Survivor {
        Survivor {
            state: Some("running (its process handle is not signalled)".into()),
            wchan: None,
            remedies: vec![
                Said::new(
                    "report-kill-remedy-win-pending",
                    vec![("signal", forced.into())],
                ),
                Said::new(
                    "report-kill-remedy-win-wmi",
                    vec![("pid", pid.to_string().into())],
                ),
                Said::new("report-kill-remedy-win-reset", vec![]),
            ],
        }
    }
}

/// Asks WMI to terminate the process (`Win32_Process.Terminate` through PowerShell's CIM cmdlets),
/// the documented fallback when TerminateProcess did not end it. Bounded to 20 s.
fn wmi_terminate(pid: u32) -> Result<Sent, ActError> {
    use std::io::Read;
    let root = std::env::var("SystemRoot").unwrap_or_else(|_| r"C:\Windows".into());
    // The full path: never whatever `powershell` the PATH finds first.
    let ps = format!(r"{root}\System32\WindowsPowerShell\v1.0\powershell.exe");
    // The answer is printed with a marker: an exit status alone is not trusted (wine ships a
    // powershell.exe stub that does nothing and exits 0).
    let script = format!(
        "$p = Get-CimInstance Win32_Process -Filter 'ProcessId={pid}'; \
         if (-not $p) {{ Write-Output 'GPULEDGER-WMI:gone'; exit 0 }}; \
         $r = Invoke-CimMethod -InputObject $p -MethodName Terminate; \
         Write-Output ('GPULEDGER-WMI:' + $r.ReturnValue)"
    );
    let mut child = match std::process::Command::new(&ps)
        .args(["-NoProfile", "-NonInteractive", "-Command", &script])
        .stdin(std::process::Stdio::null())
        .stdout(std::process::Stdio::piped())
        .stderr(std::process::Stdio::null())
        .spawn()
    {
        Ok(c) => c,
        Err(e) => {
            return Err(ActError::Os(format!(
                "PowerShell is not available ({ps}: {e})"
            )))
        }
    };
    let mut stdout = child.stdout.take().expect("piped");
    let reader = std::thread::spawn(move || {
        let mut text = String::new();
        // Bounded: the answer is one short line.
        let _ = (&mut stdout).take(64 * 1024).read_to_string(&mut text);
        text
    });
    let deadline = Instant::now() + Duration::from_secs(20);
    loop {
        match child.try_wait() {
            Ok(Some(_)) => break,
            Ok(None) if Instant::now() < deadline => std::thread::sleep(Duration::from_millis(50)),
            Ok(None) => {
                let _ = child.kill();
                let _ = child.wait();
                return Err(ActError::Os("WMI did not answer within 20 s".into()));
            }
            Err(e) => return Err(ActError::Os(format!("waiting for PowerShell: {e}"))),
        }
    }
    let text = reader.join().unwrap_or_default();
    let answer = text
        .lines()
        .find_map(|l| l.trim().strip_prefix("GPULEDGER-WMI:"));
    match answer {
        Some("0") => Ok(Sent::Delivered("through WMI".into())),
        Some("gone") => Err(ActError::Gone),
        // Win32_Process.Terminate: 2 = access denied.
        Some("2") => Err(ActError::PermissionDenied),
        Some(code) => Err(ActError::Os(format!("WMI Terminate returned {code}"))),
        None => Err(ActError::Os(
            "PowerShell gave no answer to the WMI request (not a working PowerShell?)".into(),
        )),
    }
}

fn signalled(h: &Handle, ms: u32) -> bool {
    // SAFETY: our handle has SYNCHRONIZE.
    unsafe { WaitForSingleObject(h.0, ms) == WAIT_OBJECT_0 }
}

/// Top-level windows owned by `pid` (EnumWindows + GetWindowThreadProcessId).
fn top_level_windows(pid: u32) -> Vec<HWND> {
    struct Search {
        pid: u32,
        found: Vec<HWND>,
    }
    unsafe extern "system" fn visit(hwnd: HWND, lparam: LPARAM) -> BOOL {
        // SAFETY: lparam is the &mut Search passed below, alive for the EnumWindows call.
        let s = unsafe { &mut *(lparam as *mut Search) };
        let mut owner = 0u32;
        // SAFETY: valid out-pointer.
        unsafe { GetWindowThreadProcessId(hwnd, &mut owner) };
        if owner == s.pid {
            s.found.push(hwnd);
        }
        1
    }
    let mut s = Search {
        pid,
        found: Vec::new(),
    };
    // SAFETY: the callback only touches `s`, which outlives the call.
    unsafe { EnumWindows(Some(visit), &mut s as *mut Search as LPARAM) };
    s.found
}

pub(crate) fn ancestors(self_pid: u32) -> Vec<u32> {
    let table = processes();
    let mut out = Vec::new();
    let mut pid = self_pid;
    for _ in 0..64 {
        let Some(e) = table.iter().find(|e| e.pid == pid) else {
            break;
        };
        // Windows keeps a dead parent's PID in the child's entry; it may have been reused since,
        // but protecting an unrelated process is the safe side of that error.
        if e.ppid == 0 || e.ppid == pid || out.contains(&e.ppid) {
            break;
        }
        out.push(e.ppid);
        pid = e.ppid;
    }
    out
}

pub(crate) fn current_uid() -> Option<u32> {
    None
}

pub(crate) fn current_user() -> String {
    std::env::var("USERNAME").unwrap_or_else(|_| "the current user".into())
}
