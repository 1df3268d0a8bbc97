//! Another process's environment, for the live view's `v`: `NAME=value` lines, sorted, values
//! shown only for known-safe names ([`gpuledger_model::redact_env_var`]), read now and bounded to
//! [`MAX_BYTES`] (a last line says when the environment was cut there). One function,
//! [`read_environ`], with one OS seam per platform:
//!
//! - Linux (`linux.rs`): `/proc/PID/environ` under the injectable proc root;
//! - macOS (`macos.rs`): `sysctl {CTL_KERN, KERN_PROCARGS2, pid}`, parsed by
//!   [`procargs2_environment`];
//! - Windows (`windows.rs`): the environment block that the PEB's process parameters point to,
//!   read with `ReadProcessMemory` and split by [`utf16_block_entries`].
//!
//! The parsing is pure and platform-independent, so it is tested everywhere on buffers laid out
//! like the kernels' (including truncated and hostile ones). Errors are words naming what failed.

#[cfg(target_os = "linux")]
mod linux;
#[cfg(target_os = "macos")]
mod macos;
#[cfg(windows)]
mod windows;

#[cfg(test)]
mod tests;

use std::borrow::Cow;
use std::path::Path;

use crate::procfs::read::Records;

/// The first read's size: most environments fit, so one `read` is the usual cost.
const ENVIRON_FIRST_READ: usize = 16 * 1024;

/// The most bytes of an environment read: a larger one is cut (the lines that fit are shown,
/// then [`CUT_NOTE`]).
pub const MAX_BYTES: usize = 1 << 20;

/// The last line of an environment cut at [`MAX_BYTES`]: what is not shown is said, not dropped
/// silently.
pub const CUT_NOTE: &str =
    "… cut: the environment is larger than 1 MiB, and the variables past the first 1 MiB are not shown";

/// The environment of process `pid` as `NAME=value` lines, sorted, values shown for safe names
/// only; [`CUT_NOTE`] last when it was larger than [`MAX_BYTES`].
///
/// `start_time` is the process's start time as the snapshot recorded it (`Process::start_time`):
/// when the PID now names another process (the one selected exited and the number was reused),
/// the read is refused rather than showing a stranger's environment. Linux checks before and after
/// the read; Windows checks on the open handle (which keeps the PID from being reused meanwhile);
/// macOS snapshots keep no start time, so there is nothing to compare. `proc_root` is where
/// `/proc` is (Linux only; tests point it at a recorded tree).
pub fn read_environ(
    proc_root: &Path,
    pid: u32,
    start_time: Option<u64>,
) -> Result<Vec<String>, String> {
    #[cfg(target_os = "linux")]
    return linux::read_environ(proc_root, pid, start_time);
    #[cfg(target_os = "macos")]
    return {
        let _ = (proc_root, start_time);
        macos::read_environ(pid)
    };
    #[cfg(windows)]
    return {
        let _ = proc_root;
        windows::read_environ(pid, start_time)
    };
    #[cfg(not(any(target_os = "linux", target_os = "macos", windows)))]
    {
        let _ = (proc_root, pid, start_time);
        Err("reading another process's environment is not implemented on this platform".into())
    }
}

/// Only the variables named in `names` from `<proc_root>/<pid>/environ` (a recipe's settings:
/// `LLAMA_ARG_*`, `OLLAMA_*`, `HF_HOME`, …), read as [`read_environ`] reads it: bounded to
/// [`MAX_BYTES`], an entry cut at that bound dropped. A name that looks like a secret's is never
/// returned whatever `names` says, so no token leaves the process through a recipe. Any platform
/// can read a recorded tree; the error names the file.
pub fn named(proc_root: &Path, pid: u32, names: &[&str]) -> Result<Vec<(String, String)>, String> {
    let path = proc_root.join(pid.to_string()).join("environ");
    // The `/proc` reader: open + read + close, where a regular-file read costs two `statx` and a
    // read per 8 KiB (12 system calls for a shell's environment). `environ`'s read loops until
    // the buffer is full, so a short read is the end; a longer one is cut at MAX_BYTES.
    let mut raw = Vec::with_capacity(ENVIRON_FIRST_READ);
    match crate::procfs::read::read_into(&path, &mut raw, MAX_BYTES, Records::One) {
        Ok(()) => {}
        Err(e) if e.kind() == std::io::ErrorKind::InvalidData => raw.truncate(MAX_BYTES),
        Err(e) => return Err(format!("{}: {e}", path.display())),
    }
    Ok(whole_entries(&raw)
        .split(|&b| b == 0)
        .filter_map(|kv| std::str::from_utf8(kv).ok()?.split_once('='))
        .filter(|(k, _)| names.contains(k) && !gpuledger_model::redact::is_secret_name(k))
        .map(|(k, v)| (k.to_string(), v.to_string()))
        .collect())
}

/// A Linux read that filled the limit may end inside an entry: keep what ends with a NUL, as macOS
/// and Windows do, so that a cut entry (`PATH=/usr/b`) is not taken as whole.
fn whole_entries(raw: &[u8]) -> &[u8] {
    if raw.len() < MAX_BYTES {
        return raw;
    }
    match raw.iter().rposition(|&b| b == 0) {
        Some(last) => &raw[..last],
        None => &[],
    }
}

/// The refusal when the PID names another process than the one selected.
#[cfg_attr(not(any(target_os = "linux", windows)), allow(dead_code))]
fn reused(pid: u32) -> String {
    format!("PID {pid} now names another process (the one selected has exited)")
}

/// Entries (`NAME=value`, or anything else a process put there) as shown, sorted: values only
/// for known-safe names, through the detector; an entry without a name is hidden whole.
pub fn redacted_lines<'a>(entries: impl IntoIterator<Item = Cow<'a, str>>) -> Vec<String> {
    let mut lines: Vec<String> = entries
        .into_iter()
        .filter(|kv| !kv.is_empty())
        // Windows' per-drive working directories are named `=C:`: the name's `=` is its own.
        .map(
            |kv| match kv.char_indices().skip(1).find(|(_, c)| *c == '=') {
                Some((i, _)) => gpuledger_model::redact_env_var(&kv[..i], &kv[i + 1..]),
                None => gpuledger_model::redact::HIDDEN_ENV.to_string(),
            },
        )
        .collect();
    lines.sort();
    lines
}

/// `lines`, with [`CUT_NOTE`] last when the read stopped at [`MAX_BYTES`].
fn with_cut_note(mut lines: Vec<String>, cut: bool) -> Vec<String> {
    if cut {
        lines.push(CUT_NOTE.to_string());
    }
    lines
}

/// The NUL-separated entries of a Linux `environ` file (empty ones skipped), lossily decoded.
pub fn nul_separated_entries(raw: &[u8]) -> impl Iterator<Item = Cow<'_, str>> {
    raw.split(|&b| b == 0)
        .filter(|kv| !kv.is_empty())
        .map(String::from_utf8_lossy)
}

/// The environment strings of a macOS `KERN_PROCARGS2` buffer.
///
/// The layout is xnu's (`bsd/kern/kern_sysctl.c`, `sysctl_procargsx`, which copies the top of the
/// process's stack as `exec_copyout_strings` in `kern_exec.c` laid it out): `argc` as a native
/// `i32`, the executable path, NUL padding, `argc` NUL-terminated arguments, then the environment
/// strings, NUL-terminated, until an empty string (after which come Apple's own `applev` strings,
/// not part of the environment). A buffer cut short (the kernel copies only what fits) yields the
/// complete strings before the cut; an entry cut mid-way is dropped. Never panics; the work is
/// bounded by the buffer's length whatever `argc` says.
pub fn procargs2_environment(buf: &[u8]) -> Result<Vec<Cow<'_, str>>, String> {
    let Some((argc, rest)) = buf.split_first_chunk::<4>() else {
        return Err(format!(
            "KERN_PROCARGS2 buffer of {} bytes has no argument count",
            buf.len()
        ));
    };
    let argc = i32::from_ne_bytes(*argc);
    if argc < 0 {
        return Err(format!(
            "KERN_PROCARGS2 argument count is negative ({argc})"
        ));
    }
    let mut strings = NulTerminated(rest);
    // The executable path; then its NUL padding (empty strings) up to argv[0], the arguments,
    // and the environment up to its empty terminator.
    if strings.next().is_none() {
        return Ok(Vec::new());
    }
    Ok(strings
        .skip_while(|s| s.is_empty())
        .skip(argc as usize)
        .take_while(|s| !s.is_empty())
        .map(String::from_utf8_lossy)
        .collect())
}

/// NUL-terminated strings of a buffer, in order; a last string without its NUL (cut short) is not
/// returned. Each step consumes at least one byte, so iteration ends within the buffer's length.
struct NulTerminated<'a>(&'a [u8]);

impl<'a> Iterator for NulTerminated<'a> {
    type Item = &'a [u8];

    fn next(&mut self) -> Option<&'a [u8]> {
        let end = self.0.iter().position(|&b| b == 0)?;
        let (s, rest) = self.0.split_at(end);
        self.0 = &rest[1..];
        Some(s)
    }
}

/// The entries of a Windows environment block: UTF-16 `NAME=value` strings, each ended by a NUL,
/// the block ended by an empty string. A block cut short (bounded read) yields the complete
/// entries before the cut. Unpaired surrogates are replaced, never an error.
pub fn utf16_block_entries(block: &[u16]) -> Vec<Cow<'static, str>> {
    let mut out = Vec::new();
    let mut rest = block;
    while let Some(end) = rest.iter().position(|&c| c == 0) {
        if end == 0 {
            break;
        }
        out.push(Cow::Owned(String::from_utf16_lossy(&rest[..end])));
        rest = &rest[end + 1..];
    }
    out
}
