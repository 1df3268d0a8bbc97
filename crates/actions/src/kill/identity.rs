//! Step 2's rule: whether the process a PID names now is the one the user chose.

use super::{guard, ProcInfo, Target};
use gpuledger_lang::Said;

/// Why the process read now is not the one the user chose, if it is not.
pub(super) fn identity_mismatch(target: &Target, info: &ProcInfo) -> Option<Said> {
    if let Some(st) = target.start_time {
        if st != info.start_time {
            let args = vec![
                ("now", info.start_time.to_string().into()),
                ("chosen", st.to_string().into()),
            ];
            return Some(Said::new("report-kill-start-time-differs", args));
        }
    }
    if let Some(name) = &target.name {
        if !names_match(name, info) {
            let args = vec![
                ("now", format!("{:?}", info.name).into()),
                ("chosen", format!("{name:?}").into()),
            ];
            return Some(Said::new("report-kill-name-differs", args));
        }
    }
    None
}

/// Names compare without case and `.exe`; Linux `comm` is cut to 15 bytes, so a 15-byte name
/// matches a longer one it begins.
fn names_match(wanted: &str, info: &ProcInfo) -> bool {
    let w = guard::normalise_name(wanted);
    std::iter::once(info.name.as_str())
        .chain(info.exe_name.as_deref())
        .any(|have| {
            let h = guard::normalise_name(have);
            h == w || (h.len() == 15 && w.starts_with(&h)) || (w.len() == 15 && h.starts_with(&w))
        })
}
