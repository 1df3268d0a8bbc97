//! Process facts on Windows: image path, loaded modules (ggml-cuda.dll, torch_cuda.dll, ...),
//! parent and listening TCP ports — the raw material identification reads from /proc on Linux.
//! Read on demand and cached by the caller, never on every round.

use super::apply::image_base_name;
use super::tcp_table::{self, Family};
use crate::procfs::ProcessFacts;
use gpuledger_lang::Said;
use std::mem::size_of;
use windows::core::PWSTR;
use windows::Win32::Foundation::{CloseHandle, HANDLE, HMODULE};
use windows::Win32::NetworkManagement::IpHelper::{
    GetExtendedTcpTable, MIB_TCP6ROW_OWNER_PID, MIB_TCPROW_OWNER_PID, TCP_TABLE_OWNER_PID_LISTENER,
};
use windows::Win32::Networking::WinSock::{AF_INET, AF_INET6};
use windows::Win32::System::Diagnostics::ToolHelp::{
    CreateToolhelp32Snapshot, Process32FirstW, Process32NextW, PROCESSENTRY32W, TH32CS_SNAPPROCESS,
};
use windows::Win32::System::ProcessStatus::{
    K32EnumProcessModulesEx, K32GetModuleFileNameExW, LIST_MODULES_ALL,
};
use windows::Win32::System::Threading::{
    OpenProcess, QueryFullProcessImageNameW, PROCESS_NAME_WIN32, PROCESS_QUERY_INFORMATION,
    PROCESS_QUERY_LIMITED_INFORMATION, PROCESS_VM_READ,
};

/// At most this many modules are read (large applications load a few hundred).
const MAX_MODULES: usize = 4096;

pub fn process_facts(pid: u32) -> ProcessFacts {
    let mut f = ProcessFacts {
        pid,
        ..Default::default()
    };
    image_and_modules(pid, &mut f);
    f.parent = parent_of(pid);
    f.listen_ports = listening_ports(pid);
    f.unreadable
        .push(Said::new("report-facts-windows-cmdline", vec![]));
    f
}

fn wide(buf: &[u16]) -> String {
    let end = buf.iter().position(|&c| c == 0).unwrap_or(buf.len());
    String::from_utf16_lossy(&buf[..end])
}

/// The full image path of the process behind `h` (a handle with at least
/// `PROCESS_QUERY_LIMITED_INFORMATION`), if Windows gives it.
pub(super) fn image_path(h: HANDLE) -> Option<String> {
    let mut buf = [0u16; 1024];
    let mut len = buf.len() as u32;
    // SAFETY: `buf` holds `len` wide chars; `len` is updated to the length written.
    unsafe { QueryFullProcessImageNameW(h, PROCESS_NAME_WIN32, PWSTR(buf.as_mut_ptr()), &mut len) }
        .ok()?;
    Some(String::from_utf16_lossy(
        &buf[..(len as usize).min(buf.len())],
    ))
}

fn image_and_modules(pid: u32, f: &mut ProcessFacts) {
    // SAFETY: query-only handle, closed below.
    let h = unsafe { OpenProcess(PROCESS_QUERY_INFORMATION | PROCESS_VM_READ, false, pid) }
        .or_else(|_| unsafe { OpenProcess(PROCESS_QUERY_LIMITED_INFORMATION, false, pid) });
    let h: HANDLE = match h {
        Ok(h) => h,
        Err(e) => {
            let said = vec![
                ("pid", pid.to_string().into()),
                ("error", e.to_string().into()),
            ];
            f.unreadable
                .push(Said::new("report-facts-windows-open", said));
            return;
        }
    };
    if let Some(exe) = image_path(h) {
        f.comm = Some(image_base_name(&exe).to_string());
        f.exe = Some(exe);
    }
    let mut mods = vec![HMODULE::default(); 512];
    let mut needed = 0u32;
    for _ in 0..3 {
        let cb = (mods.len() * size_of::<HMODULE>()) as u32;
        // SAFETY: `mods` has room for `cb` bytes of handles.
        let ok = unsafe {
            K32EnumProcessModulesEx(h, mods.as_mut_ptr(), cb, &mut needed, LIST_MODULES_ALL.0)
        }
        .as_bool();
        if !ok {
            let said = vec![("pid", pid.to_string().into())];
            f.unreadable
                .push(Said::new("report-facts-windows-modules", said));
            mods.clear();
            break;
        }
        let n = needed as usize / size_of::<HMODULE>();
        if n <= mods.len() {
            mods.truncate(n);
            break;
        }
        mods.resize(n.min(MAX_MODULES), HMODULE::default());
    }
    for m in mods.iter().take(MAX_MODULES) {
        let mut name = [0u16; 1024];
        // SAFETY: `name` is a valid output buffer; `h` and `m` come from the calls above.
        let l = unsafe { K32GetModuleFileNameExW(Some(h), Some(*m), &mut name) };
        if l > 0 {
            f.mapped_files.push(wide(&name));
        }
    }
    // SAFETY: opened above.
    let _ = unsafe { CloseHandle(h) };
}

/// The parent's pid and image name, from a process snapshot.
pub(crate) fn parent_of(pid: u32) -> Option<(u32, String)> {
    // SAFETY: a snapshot handle, closed below; entries are plain structs with dwSize set.
    let snap = unsafe { CreateToolhelp32Snapshot(TH32CS_SNAPPROCESS, 0) }.ok()?;
    let mut entries: Vec<(u32, u32, String)> = Vec::new();
    let mut e = PROCESSENTRY32W {
        dwSize: size_of::<PROCESSENTRY32W>() as u32,
        ..Default::default()
    };
    if unsafe { Process32FirstW(snap, &mut e) }.is_ok() {
        loop {
            entries.push((e.th32ProcessID, e.th32ParentProcessID, wide(&e.szExeFile)));
            if unsafe { Process32NextW(snap, &mut e) }.is_err() {
                break;
            }
        }
    }
    let _ = unsafe { CloseHandle(snap) };
    let ppid = entries.iter().find(|(p, _, _)| *p == pid)?.1;
    let name = entries.iter().find(|(p, _, _)| *p == ppid)?.2.clone();
    Some((ppid, name))
}

/// TCP ports `pid` listens on (IPv4 and IPv6), from the owner-PID listener tables.
fn listening_ports(pid: u32) -> Vec<u16> {
    tcp_table::ports_of(&listeners(), pid)
}

/// Every listening TCP socket: (port, owning pid), read by [`tcp_table::listeners`].
pub(crate) fn listeners() -> Vec<(u16, u32)> {
    let mut out = Vec::new();
    for (family, f) in [(AF_INET.0, Family::V4), (AF_INET6.0, Family::V6)] {
        if let Some(table) = tcp_table(family as u32) {
            out.extend(tcp_table::listeners(&table, f));
        }
    }
    out
}

// The parser's row sizes are the SDK's structures' (checked wherever this compiles).
const _: () = assert!(size_of::<MIB_TCPROW_OWNER_PID>() == tcp_table::row_size(Family::V4));
const _: () = assert!(size_of::<MIB_TCP6ROW_OWNER_PID>() == tcp_table::row_size(Family::V6));

/// The most bytes one table is read into, as `/proc/net/tcp` is on Linux: past it, no ports.
const MAX_TABLE_BYTES: u32 = 32 << 20;

fn tcp_table(family: u32) -> Option<Vec<u8>> {
    let mut size = 0u32;
    // SAFETY: a NULL table asks for the size.
    unsafe {
        GetExtendedTcpTable(
            None,
            &mut size,
            false,
            family,
            TCP_TABLE_OWNER_PID_LISTENER,
            0,
        )
    };
    for _ in 0..3 {
        if size > MAX_TABLE_BYTES {
            return None;
        }
        let mut buf = vec![0u8; size as usize + 1024];
        let mut len = buf.len() as u32;
        // SAFETY: `buf` has `len` bytes.
        let rc = unsafe {
            GetExtendedTcpTable(
                Some(buf.as_mut_ptr().cast()),
                &mut len,
                false,
                family,
                TCP_TABLE_OWNER_PID_LISTENER,
                0,
            )
        };
        if rc == 0 {
            buf.truncate(len as usize);
            return (buf.len() >= 4).then_some(buf);
        }
        size = len;
    }
    None
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn own_process_modules_image_and_listening_port() {
        let l = std::net::TcpListener::bind("127.0.0.1:0").unwrap();
        let port = l.local_addr().unwrap().port();
        let me = std::process::id();
        let f = process_facts(me);
        let exe = f.exe.clone().expect("own image path");
        assert!(exe.to_ascii_lowercase().ends_with(".exe"), "{exe}");
        assert!(
            f.mapped_files
                .iter()
                .any(|m| m.to_ascii_lowercase().ends_with("ntdll.dll")),
            "{:?}",
            f.mapped_files
        );
        // The listener table has our socket. Windows names its owner; wine 8 reports owner 0,
        // so the per-process port list can only be checked where the owner is filled in.
        let ours: Vec<u32> = listeners()
            .into_iter()
            .filter(|(p, _)| *p == port)
            .map(|(_, owner)| owner)
            .collect();
        assert!(!ours.is_empty(), "port {port} not in the listener table");
        if ours.iter().all(|o| *o != 0) {
            assert!(
                ours.contains(&me) && f.listen_ports.contains(&port),
                "{ours:?}"
            );
        }
        // The runtimes' APIs are asked on Windows: the facts are this machine's, whatever the
        // procfs root, and a runner's parent (Ollama's server) is read from the process
        // snapshot without /proc. Under wine a program started from a Linux shell has no
        // Windows parent (the snapshot names none), so only Windows can show one.
        let procs = crate::procfs::ProcReader::new(std::path::Path::new("/proc"));
        assert!(procs.is_live());
        if let Some(pp) = crate::parent_pid(&procs, me) {
            assert_ne!(pp, me, "a process is not its own parent");
        }
    }
}
