//! Linux: `/proc/PID/environ` (the environment the process started with), under an injectable
//! proc root, read as a regular file and bounded.

use std::path::Path;

use super::{
    nul_separated_entries, redacted_lines, reused, whole_entries, with_cut_note, MAX_BYTES,
};
use crate::procfs::read_stat;

/// The PID-reuse check runs before and after the read: `/proc/PID/stat`'s start time must still
/// be the one the snapshot recorded.
pub(super) fn read_environ(
    proc_root: &Path,
    pid: u32,
    start_time: Option<u64>,
) -> Result<Vec<String>, String> {
    // The stat file alone, read by path: a whole process view (user table, boot time) per `v`
    // would be read only for this.
    let stat = proc_root.join(pid.to_string()).join("stat");
    let mut buf = Vec::new();
    let mut same = || match (start_time, read_stat(&stat, &mut buf)) {
        (Some(want), Ok(st)) => st.start_time == want,
        // Nothing to compare with: the read below says whether the process is there.
        _ => true,
    };
    if !same() {
        return Err(reused(pid));
    }
    let lines = read_lines(proc_root, pid)?;
    if !same() {
        return Err(reused(pid));
    }
    Ok(lines)
}

fn read_lines(proc_root: &Path, pid: u32) -> Result<Vec<String>, String> {
    let path = proc_root.join(pid.to_string()).join("environ");
    let raw = crate::regular::read_regular_prefix(&path, MAX_BYTES as u64).map_err(|e| {
        if e.kind() == std::io::ErrorKind::PermissionDenied {
            format!(
                "{}: permission denied (another user's process)",
                path.display()
            )
        } else {
            format!("{}: {e}", path.display())
        }
    })?;
    let lines = redacted_lines(nul_separated_entries(whole_entries(&raw)));
    Ok(with_cut_note(lines, raw.len() >= MAX_BYTES))
}
