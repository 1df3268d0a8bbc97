//! Windows: the environment block of another process, found through its PEB:
//! `OpenProcess` → `NtQueryInformationProcess(ProcessBasicInformation)` → PEB →
//! `ProcessParameters` → `Environment` and `EnvironmentSize` → `ReadProcessMemory`, bounded.
//!
//! The offsets are those of the 64-bit layout (x64 and ARM64 share it). Microsoft's `winternl.h`
//! documents `PEB.ProcessParameters` (0x20: 4 bytes of flags, padding, two pointers) and
//! `RTL_USER_PROCESS_PARAMETERS` up to `CommandLine` (0x70, 16 bytes); the fields after it,
//! `Environment` (0x80) and `EnvironmentSize` (0x3F0, after the 32 24-byte `CurrentDirectories`
//! at 0xF0), are not in the SDK but are widely published, e.g. in the phnt headers of Process
//! Hacker / System Informer (`ntrtl.h`) and in wine's `winternl.h`. A 32-bit (WOW64) process has
//! another layout: it is refused, never read at the wrong offsets.

use std::ffi::c_void;

use windows::Wdk::System::Threading::{
    NtQueryInformationProcess, ProcessBasicInformation, ProcessWow64Information, PROCESSINFOCLASS,
};
use windows::Win32::Foundation::{
    CloseHandle, ERROR_PARTIAL_COPY, E_ACCESSDENIED, FILETIME, HANDLE,
};
use windows::Win32::System::Diagnostics::Debug::ReadProcessMemory;
use windows::Win32::System::Threading::{
    GetProcessTimes, OpenProcess, PROCESS_QUERY_LIMITED_INFORMATION, PROCESS_VM_READ,
};

use super::{redacted_lines, reused, utf16_block_entries, with_cut_note, MAX_BYTES};

/// `PEB.ProcessParameters` (64-bit layout).
const PEB_PROCESS_PARAMETERS: u64 = 0x20;
/// `RTL_USER_PROCESS_PARAMETERS.Environment` (64-bit layout).
const PARAMS_ENVIRONMENT: u64 = 0x80;
/// `RTL_USER_PROCESS_PARAMETERS.EnvironmentSize` (64-bit layout), in bytes; 0 where unset.
const PARAMS_ENVIRONMENT_SIZE: u64 = 0x3F0;

/// `PROCESS_BASIC_INFORMATION` as `winternl.h` documents it (its own copy keeps the windows
/// crate's `Win32_System_Kernel` feature out of the build).
#[repr(C)]
#[derive(Default)]
struct BasicInformation {
    exit_status: i32,
    peb_base_address: usize,
    affinity_mask: usize,
    base_priority: i32,
    unique_process_id: usize,
    inherited_from_unique_process_id: usize,
}

/// The check for PID reuse is made once on the open handle: it keeps the process object, so the
/// PID cannot name another process while the block is read.
pub(super) fn read_environ(pid: u32, start_time: Option<u64>) -> Result<Vec<String>, String> {
    if !cfg!(target_pointer_width = "64") {
        return Err("reading another process's environment needs a 64-bit gpuledger".into());
    }
    let process = Process::open(pid)?;
    if let (Some(want), Some(created)) = (start_time, process.created()) {
        if want != created {
            return Err(reused(pid));
        }
    }
    if process.is_wow64()? {
        return Err(format!(
            "PID {pid} is a 32-bit (WOW64) process: reading its environment is not supported"
        ));
    }
    let block = process.environment_block()?;
    // The read stops at the block's terminator or at the limit: at the limit, it was cut.
    let cut = block.len() * 2 >= MAX_BYTES;
    Ok(with_cut_note(
        redacted_lines(utf16_block_entries(&block)),
        cut,
    ))
}

/// An open process handle, closed on drop.
struct Process {
    pid: u32,
    handle: HANDLE,
}

impl Process {
    fn open(pid: u32) -> Result<Self, String> {
        let access = PROCESS_QUERY_LIMITED_INFORMATION | PROCESS_VM_READ;
        // SAFETY: a plain handle request; closed in `drop`.
        match unsafe { OpenProcess(access, false, pid) } {
            Ok(handle) => Ok(Process { pid, handle }),
            Err(e) if e.code() == E_ACCESSDENIED => Err(format!(
                "OpenProcess(PID {pid}): permission denied (another user's or a protected process)"
            )),
            Err(e) => Err(format!("OpenProcess(PID {pid}): {}", e.message())),
        }
    }

    /// Creation time as a FILETIME count, as the WDDM source records `start_time`.
    fn created(&self) -> Option<u64> {
        let mut t = [FILETIME::default(); 4];
        let [created, exited, kernel, user] = &mut t;
        // SAFETY: out-pointers to locals.
        unsafe { GetProcessTimes(self.handle, created, exited, kernel, user) }.ok()?;
        Some((u64::from(t[0].dwHighDateTime) << 32) | u64::from(t[0].dwLowDateTime))
    }

    /// Whether the process runs under WOW64 (its PEB32's address, non-zero, says so).
    fn is_wow64(&self) -> Result<bool, String> {
        let mut peb32: usize = 0;
        self.query(
            ProcessWow64Information,
            &mut peb32,
            "ProcessWow64Information",
        )?;
        Ok(peb32 != 0)
    }

    /// The UTF-16 environment block: `EnvironmentSize` bytes when set, else up to the limit; read
    /// page by page so that the end of a readable region ends the block instead of failing it,
    /// and stopped at the block's empty terminator.
    fn environment_block(&self) -> Result<Vec<u16>, String> {
        let mut basic = BasicInformation::default();
        self.query(
            ProcessBasicInformation,
            &mut basic,
            "ProcessBasicInformation",
        )?;
        let peb = basic.peb_base_address as u64;
        if peb == 0 {
            return Err(format!("PID {}: no PEB (a system process?)", self.pid));
        }
        let params = self.read_u64(peb + PEB_PROCESS_PARAMETERS, "PEB.ProcessParameters")?;
        let env = self.read_u64(params + PARAMS_ENVIRONMENT, "Environment")?;
        let size = self.read_u64(params + PARAMS_ENVIRONMENT_SIZE, "EnvironmentSize")?;
        if env == 0 {
            return Err(format!("PID {}: no environment block", self.pid));
        }
        let want = match size {
            0 => MAX_BYTES,
            n => (n as usize).min(MAX_BYTES),
        };
        self.read_block(env, want)
    }

    /// Up to `want` bytes from `start`, page by page, as UTF-16 units; stops at the first failed
    /// read (an error only when nothing was read) or at the block's terminator (two NUL units).
    fn read_block(&self, start: u64, want: usize) -> Result<Vec<u16>, String> {
        let mut bytes: Vec<u8> = Vec::new();
        // Where the search for the terminator goes on: an even offset, each unit looked at once.
        let mut checked = 0;
        let mut at = start;
        while bytes.len() < want {
            let page_end = (at | 0xFFF) + 1;
            // At least one byte per step, so the loop ends within `want` steps.
            let n = ((page_end - at) as usize).min(want - bytes.len());
            let from = bytes.len();
            bytes.resize(from + n, 0);
            if let Err(e) = self.read(at, &mut bytes[from..]) {
                bytes.truncate(from);
                if from == 0 {
                    return Err(format!(
                        "reading PID {}'s environment block: {}",
                        self.pid,
                        e.message()
                    ));
                }
                break;
            }
            at = page_end;
            while checked + 4 <= bytes.len() && bytes[checked..checked + 4] != [0; 4] {
                checked += 2;
            }
            if checked + 4 <= bytes.len() {
                break;
            }
        }
        Ok(bytes
            .chunks_exact(2)
            .map(|b| u16::from_le_bytes([b[0], b[1]]))
            .collect())
    }

    fn query<T>(&self, class: PROCESSINFOCLASS, out: &mut T, what: &str) -> Result<(), String> {
        let mut len = 0u32;
        // SAFETY: `out` is a `T` of the size given; the kernel writes at most that.
        let status = unsafe {
            NtQueryInformationProcess(
                self.handle,
                class,
                (out as *mut T).cast::<c_void>(),
                std::mem::size_of::<T>() as u32,
                &mut len,
            )
        };
        if status.0 < 0 {
            return Err(format!(
                "NtQueryInformationProcess(PID {}, {what}): NTSTATUS 0x{:08X}",
                self.pid, status.0 as u32
            ));
        }
        Ok(())
    }

    fn read(&self, addr: u64, buf: &mut [u8]) -> windows::core::Result<()> {
        let mut done = 0usize;
        // SAFETY: `buf` is writable for its length; the address is the other process's.
        unsafe {
            ReadProcessMemory(
                self.handle,
                addr as usize as *const c_void,
                buf.as_mut_ptr().cast(),
                buf.len(),
                Some(&mut done),
            )
        }?;
        if done != buf.len() {
            return Err(windows::core::Error::from_hresult(
                windows::core::HRESULT::from_win32(ERROR_PARTIAL_COPY.0),
            ));
        }
        Ok(())
    }

    fn read_u64(&self, addr: u64, what: &str) -> Result<u64, String> {
        let mut b = [0u8; 8];
        self.read(addr, &mut b)
            .map_err(|e| format!("reading PID {}'s {what}: {}", self.pid, e.message()))?;
        Ok(u64::from_le_bytes(b))
    }
}

impl Drop for Process {
    fn drop(&mut self) {
        // SAFETY: opened in `open`, closed once.
        let _ = unsafe { CloseHandle(self.handle) };
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use std::process::{Command, Stdio};
    use std::time::{Duration, Instant};

    /// The child that the test below spawns: this test binary, running only this test, which
    /// sleeps when `GPULEDGER_ENV_TEST_CHILD` is set (and passes at once otherwise).
    #[test]
    fn sleeping_child() {
        if std::env::var_os("GPULEDGER_ENV_TEST_CHILD").is_some() {
            std::thread::sleep(Duration::from_secs(60));
        }
    }

    #[test]
    fn reads_a_child_environment_with_secrets_redacted() {
        let mut child = Command::new(std::env::current_exe().unwrap())
            .args([
                "environ::windows::tests::sleeping_child",
                "--exact",
                "--test-threads=1",
            ])
            .env("GPULEDGER_ENV_TEST_CHILD", "1")
            .env("CUDA_GPULEDGER_ENV_TEST", "42")
            .env("HF_TOKEN", "abc")
            .stdout(Stdio::null())
            .stderr(Stdio::null())
            .spawn()
            .unwrap();
        let pid = child.id();
        // The child may still be starting: read until its environment is there.
        let deadline = Instant::now() + Duration::from_secs(20);
        let read = loop {
            match read_environ(pid, None) {
                Ok(l) if l.iter().any(|l| l == "CUDA_GPULEDGER_ENV_TEST=42") => break Ok(l),
                r if Instant::now() > deadline => break r,
                _ => std::thread::sleep(Duration::from_millis(50)),
            }
        };
        let created = Process::open(pid).ok().and_then(|p| p.created());
        let reused_pid = created.map(|c| read_environ(pid, Some(c + 1)));
        let _ = child.kill();
        let _ = child.wait();
        let lines = read.unwrap();
        assert!(
            lines.iter().any(|l| l == "CUDA_GPULEDGER_ENV_TEST=42"),
            "{lines:?}"
        );
        assert!(
            lines
                .iter()
                .any(|l| l == "HF_TOKEN=<hidden: not on the safe list>"),
            "{lines:?}"
        );
        assert!(!lines.iter().any(|l| l.contains("=abc")), "{lines:?}");
        assert!(lines.is_sorted(), "{lines:?}");
        // Another creation time than the one recorded: the PID names another process.
        let e = reused_pid.expect("GetProcessTimes").unwrap_err();
        assert!(e.contains("now names another process"), "{e}");
    }

    #[test]
    fn a_missing_process_is_said_in_words() {
        // PIDs are multiples of 4; this one is never handed out.
        let e = read_environ(0xFFFF_FFF1, None).unwrap_err();
        assert!(e.starts_with("OpenProcess(PID 4294967281): "), "{e}");
    }
}
