//! Builders the workspace's tests share (feature `test-support`, which crates enable in their
//! dev-dependencies; always on for this crate's own tests): a device, a process on a device, a
//! snapshot with the books balanced, and a two-GPU machine. Each builder fills what a test
//! rarely cares about; a test sets the fields it is about on what comes back.

use crate::{balance, Device, Host, Process, Snapshot, Usage, Vendor};

pub const MIB: u64 = 1 << 20;
pub const GIB: u64 = 1 << 30;

/// The time every built snapshot is taken at unless a test says otherwise.
pub const TAKEN_AT: &str = "2026-11-29T08:00:00Z";

/// An NVIDIA device as NVML reports it: `total` and `used` device memory (`None`: unknown).
pub fn device(index: u32, uuid: &str, total: Option<u64>, used: Option<u64>) -> Device {
    let mut d = Device::new(index, Vendor::Nvidia, uuid, "nvml");
    d.memory.total_bytes = total;
    d.memory.used_bytes = used;
    d
}

/// One process's use of device `uuid`, measured by NVML: `memory` bytes (`None`: unknown).
pub fn usage(uuid: &str, memory: Option<u64>) -> Usage {
    let mut u = Usage::new(uuid, "nvml");
    u.memory_bytes = memory;
    u
}

/// Process `pid` holding `memory` on device `uuid` (one usage).
pub fn process(pid: u32, uuid: &str, memory: Option<u64>) -> Process {
    let mut p = Process::new(pid);
    p.usage.push(usage(uuid, memory));
    p
}

/// Process `pid` named `name`, started at `pid × 10` (a start time to pair by), with `usage`.
pub fn named_process(pid: u32, name: &str, usage: Vec<Usage>) -> Process {
    let mut p = Process::new(pid);
    p.start_time = Some(u64::from(pid) * 10);
    p.name = Some(name.into());
    p.usage = usage;
    p
}

/// A snapshot taken at `taken_at` of these devices and processes, the books balanced.
pub fn snapshot(taken_at: &str, devices: Vec<Device>, processes: Vec<Process>) -> Snapshot {
    let mut s = Snapshot::new(taken_at.into(), Host::default());
    s.devices = devices;
    s.processes = processes;
    balance(&mut s);
    s
}

/// Two GPUs, the books balanced: GPU0 an H200 (`GPU-0000`, 140 GiB, 40 GiB used) holding a
/// llama-server (16 GiB, PID 4242) and a python3 (9 GiB, PID 5151); GPU1 an RTX 4090
/// (`GPU-1111`, 24 GiB, 6 GiB used) holding llama-server's second share (4 GiB) and Xorg
/// (512 MiB, PID 1200).
pub fn two_gpus() -> Snapshot {
    let mut d0 = device(0, "GPU-0000", Some(140 * GIB), Some(40 * GIB));
    d0.name = Some("NVIDIA H200".into());
    let mut d1 = device(1, "GPU-1111", Some(24 * GIB), Some(6 * GIB));
    d1.name = Some("NVIDIA GeForce RTX 4090".into());
    let llama = named_process(
        4242,
        "llama-server",
        vec![
            usage("GPU-0000", Some(16 * GIB)),
            usage("GPU-1111", Some(4 * GIB)),
        ],
    );
    let python = named_process(5151, "python3", vec![usage("GPU-0000", Some(9 * GIB))]);
    let xorg = named_process(1200, "Xorg", vec![usage("GPU-1111", Some(512 * MIB))]);
    let mut s = snapshot(TAKEN_AT, vec![d0, d1], vec![llama, python, xorg]);
    s.host.hostname = Some("gpu-box".into());
    s
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn two_gpus_balance_their_books() {
        let s = two_gpus();
        assert_eq!(s.devices[0].ledger.attributed_bytes, 25 * GIB);
        assert_eq!(s.devices[0].ledger.unattributed_bytes, Some(15 * GIB));
        assert_eq!(s.devices[1].ledger.unattributed_bytes, Some(1536 * MIB));
        assert_eq!(s.processes[0].usage.len(), 2);
    }
}
