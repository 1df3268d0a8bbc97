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

/// `n` idle `sleep` processes on the real `/proc`, killed and reaped however the bench ends (a
/// failed assert included), so that none is left running.
pub struct Sleepers(Vec<std::process::Child>);

impl Sleepers {
    pub fn start(n: usize) -> Sleepers {
        let spawn = || {
            std::process::Command::new("sleep")
                .arg("100000")
                .stdin(std::process::Stdio::null())
                .stdout(std::process::Stdio::null())
                .stderr(std::process::Stdio::null())
                .spawn()
                .expect("spawn sleep")
        };
        Sleepers((0..n).map(|_| spawn()).collect())
    }

    pub fn pids(&self) -> Vec<u32> {
        self.0.iter().map(|c| c.id()).collect()
    }
}

impl Drop for Sleepers {
    fn drop(&mut self) {
        for c in &mut self.0 {
            let _ = c.kill();
            let _ = c.wait();
        }
    }
}

/// A fake-NVML scenario: 2 H200s and `pids` as compute processes of 256 MiB, alternating.
pub fn scenario_for(pids: &[u32]) -> String {
    let mut s = String::from("driver|version=550.54.15\n");
    for i in 0..2 {
        s.push_str(&format!("device|index={i}|name=NVIDIA H200|uuid=GPU-{i}1111111-2222-3333-4444-555555555555|pci=00000000:{:02x}:00.0|total=150754820096|used=40000000000|free=110754820096|gpu=37|mem=12|temp=54|power_mw=215000|limit_mw=700000\n", 0x18 + i));
    }
    for (i, pid) in pids.iter().enumerate() {
        s.push_str(&format!(
            "compute|dev={}|pid={pid}|mem={}\n",
            i % 2,
            256u64 << 20
        ));
    }
    s
}
