//! Collection cost of one WDDM round, our side only: parsing the instance names of a generated
//! raw counter round (500 `GPU Engine` instances, 200 `GPU Process Memory` instances per memory
//! counter, adapter arrays) and merging it with the previous round, the DXGI list and an NVML
//! device into a snapshot. The OS's own counter work (PdhCollectQueryData) is not included.
//!
//! Run: `cargo run --release -p gpuledger-sources --example wddm_round_bench`
//! Prints per-round CPU time (thread CPU clock on Unix, wall clock elsewhere): median, p95, max.

use gpuledger_model::{Device, Host, Snapshot, Vendor};
use gpuledger_sources::wddm::{
    apply, merge_round, CounterArray, DxgiAdapter, Luid, PciAddress, RawSample, Round,
};
use std::time::{Duration, Instant};

const ENGINE_TYPES: [&str; 5] = ["3D", "Compute_0", "Copy", "VideoDecode", "VideoEncode"];
const LUIDS: [u32; 2] = [0xC85A, 0xD3EC];

fn sample(instance: String, first: i64) -> RawSample {
    RawSample {
        instance,
        first,
        second: 0,
        status: 0,
    }
}

/// 100 processes × 5 engines on the first adapter = 500 engine instances; 100 processes × 2
/// adapters = 200 instances per process-memory counter.
fn round(t: u64, step: i64) -> Round {
    let luid = |l: u32| format!("luid_0x00000000_0x{l:08X}");
    let mut eng = Vec::new();
    let mut mem = Vec::new();
    for pid in 0..100u32 {
        let pid = 1000 + pid * 4;
        for (ord, ty) in ENGINE_TYPES.iter().enumerate() {
            let base = (pid as i64) * 1_000_000 + ord as i64 * 10_000;
            eng.push(sample(
                format!("pid_{pid}_{}_phys_0_eng_{ord}_engtype_{ty}", luid(LUIDS[0])),
                base + step * (ord as i64 + 1),
            ));
        }
        for l in LUIDS {
            mem.push(sample(
                format!("pid_{pid}_{}_phys_0", luid(l)),
                (pid as i64) << 20,
            ));
        }
    }
    let arr = |samples: Vec<RawSample>| {
        Some(CounterArray {
            timestamp_100ns: t,
            samples,
        })
    };
    let adapters: Vec<RawSample> = LUIDS
        .iter()
        .map(|l| sample(format!("{}_phys_0", luid(*l)), 8 << 30))
        .collect();
    Round {
        engine_running_time: arr(eng),
        process_local: arr(mem.clone()),
        process_non_local: arr(mem.clone()),
        process_dedicated: arr(mem.clone()),
        process_shared: arr(mem),
        adapter_dedicated: arr(adapters.clone()),
        adapter_shared: arr(adapters.clone()),
        adapter_local: arr(adapters.clone()),
        adapter_non_local: arr(adapters),
        missing: Default::default(),
    }
}

fn adapters() -> Vec<DxgiAdapter> {
    LUIDS
        .iter()
        .enumerate()
        .map(|(i, l)| DxgiAdapter {
            description: format!("GPU {i}"),
            vendor_id: if i == 0 { 0x10DE } else { 0x8086 },
            device_id: 1,
            subsys_id: 0,
            revision: 0,
            dedicated_video_memory: 24 << 30,
            dedicated_system_memory: 0,
            shared_system_memory: 16 << 30,
            luid: Luid { high: 0, low: *l },
            flags: 0,
            pci: Some(PciAddress {
                bus: i as u32 + 1,
                device: 0,
                function: 0,
            }),
        })
        .collect()
}

#[cfg(unix)]
fn cpu_now() -> Duration {
    let mut ts = libc::timespec {
        tv_sec: 0,
        tv_nsec: 0,
    };
    // SAFETY: out-pointer to a local timespec.
    unsafe { libc::clock_gettime(libc::CLOCK_THREAD_CPUTIME_ID, &mut ts) };
    Duration::new(ts.tv_sec as u64, ts.tv_nsec as u32)
}

#[cfg(not(unix))]
fn cpu_now() -> Duration {
    thread_local!(static START: Instant = Instant::now());
    START.with(|s| s.elapsed())
}

fn report(what: &str, mut v: Vec<Duration>) {
    v.sort();
    let at = |q: f64| v[((v.len() - 1) as f64 * q).round() as usize];
    println!(
        "{what}: median {:.3} ms, p95 {:.3} ms, max {:.3} ms over {} rounds",
        at(0.5).as_secs_f64() * 1e3,
        at(0.95).as_secs_f64() * 1e3,
        v.last().unwrap().as_secs_f64() * 1e3,
        v.len()
    );
}

fn main() {
    let prev = round(1_000_000_000, 0);
    let cur = round(1_010_000_000, 20_000);
    let adapters = adapters();
    let mut nvml = Device::new(0, Vendor::Nvidia, "GPU-bench", "nvml");
    nvml.pci_bus_id = Some("00000000:01:00.0".into());
    let engines: usize = cur.engine_running_time.as_ref().unwrap().samples.len();
    let mems: usize = cur.process_local.as_ref().unwrap().samples.len();
    println!("round: {engines} GPU Engine instances, {mems} GPU Process Memory instances per counter (4 counters)");

    let n = 300;
    let (mut merge_t, mut full_t) = (Vec::with_capacity(n), Vec::with_capacity(n));
    let wall = Instant::now();
    let mut procs = 0;
    for _ in 0..n {
        let t0 = cpu_now();
        let view = merge_round(Some(&prev), &cur, &adapters, std::slice::from_ref(&nvml));
        let t1 = cpu_now();
        let mut snap = Snapshot::new("bench".into(), Host::default());
        snap.devices.push(nvml.clone());
        apply(&mut snap, view);
        let t2 = cpu_now();
        procs = snap.processes.len();
        merge_t.push(t1 - t0);
        full_t.push(t2 - t0);
    }
    println!("processes per round: {procs}");
    report("parse + merge_round", merge_t);
    report("parse + merge_round + apply (NVML merge, balance)", full_t);
    println!("total wall {:.1} ms", wall.elapsed().as_secs_f64() * 1e3);
}
