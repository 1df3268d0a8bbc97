//! What more than one bench needs beyond the test support: CPU time from `getrusage`.
#![allow(dead_code)]

use std::time::Duration;

/// (user, kernel) CPU time of `who`: `libc::RUSAGE_SELF` (this process) or
/// `libc::RUSAGE_CHILDREN` (its children that have been waited for).
pub fn cpu_split(who: libc::c_int) -> (Duration, Duration) {
    // SAFETY: getrusage fills the struct we pass.
    let mut ru: libc::rusage = unsafe { std::mem::zeroed() };
    unsafe { libc::getrusage(who, &mut ru) };
    let tv = |t: libc::timeval| Duration::new(t.tv_sec as u64, t.tv_usec as u32 * 1000);
    (tv(ru.ru_utime), tv(ru.ru_stime))
}
