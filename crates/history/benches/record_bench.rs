//! Recording and export figures (a bench binary that prints numbers; run with
//! `cargo bench -p gpuledger-history --bench record_bench`).
//!
//! 1. Recording at 1 s with 200 processes: CPU time per sample (add + the write, and each apart:
//!    `add` interns and encodes the frame, `flush` is the SQLite transaction) and database
//!    bytes per day, extrapolated from one recorded hour. Two commit modes: one commit per sample
//!    (`record`'s default, nothing lost on kill -9) and one per 10 samples (`--flush-every 10s`).
//!    Two workloads: typical (20 busy processes whose SM % changes every sample and memory every
//!    10 s, 180 idle) and worst case (every process changes every sample). CPU includes the
//!    kernel's share (WAL writes), as getrusage reports it.
//! 2. `history --since 24h --format csv` for a day of 86,400 samples × 200 processes, generated
//!    straight into a database through the recorder, exported to /dev/null.
//!
//! Environment: `BENCH_DAY_SAMPLES` (default 86400) scales part 2 down for a quick run (0 skips
//! it); `BENCH_SAMPLES` (default 3600) the samples of part 1;
//! `BENCH_KEEP_DB=PATH` keeps the generated day for timing the real binary.

use gpuledger_history::csv::HistoryCsv;
use gpuledger_history::store::{Query, Reader, Recorder};
use gpuledger_model::test_support::{self as ts, MIB};
use gpuledger_model::{balance, Snapshot};
use std::time::{Duration, Instant};

const T0: i64 = 1_795_939_200_000;

fn cpu_time() -> Duration {
    // SAFETY: getrusage fills the struct we pass.
    let mut ru: libc::rusage = unsafe { std::mem::zeroed() };
    unsafe { libc::getrusage(libc::RUSAGE_SELF, &mut ru) };
    let tv = |t: libc::timeval| Duration::new(t.tv_sec as u64, t.tv_usec as u32 * 1000);
    tv(ru.ru_utime) + tv(ru.ru_stime)
}

fn machine(n: u32) -> Snapshot {
    const GPU: &str = "GPU-11111111-2222-3333-4444-555555555555";
    let mut d = ts::device(0, GPU, Some(150_754_820_096), None);
    d.name = Some("NVIDIA H200".into());
    let processes = (0..n)
        .map(|i| {
            let mut p = ts::process(10_000 + i, GPU, Some(256 * MIB + i as u64 * MIB));
            p.start_time = Some(1_000_000 + i as u64);
            p.name = Some(format!("worker-{i}"));
            p.user = Some("alice".into());
            p.cmdline = Some(vec![
                "/usr/bin/python3".into(),
                "-m".into(),
                "vllm.entrypoints.openai.api_server".into(),
                "--model".into(),
                format!("/models/model-{i}"),
            ]);
            p.usage[0].engines.sm_percent = Some(0);
            p
        })
        .collect();
    ts::snapshot("x", vec![d], processes)
}

/// Advance the machine to sample `k`: `busy` processes change SM % every sample and memory every
/// 10 samples.
fn step(s: &mut Snapshot, k: u64, busy: usize) {
    for (i, p) in s.processes.iter_mut().enumerate().take(busy) {
        let u = &mut p.usage[0];
        u.engines.sm_percent = Some(((k * 7 + i as u64 * 13) % 101) as u32);
        if k.is_multiple_of(10) {
            u.memory_bytes = Some(256 * MIB + ((k / 10 + i as u64) % 64) * MIB);
        }
    }
    let d = &mut s.devices[0];
    d.memory.used_bytes = Some(60_000_000_000 + (k % 100) * MIB);
    d.memory.free_bytes = Some(150_754_820_096 - d.memory.used_bytes.unwrap());
    d.utilization.gpu_percent = Some((k % 101) as u32);
    d.utilization.memory_percent = Some((k % 50) as u32);
    d.temperature_c = Some(50 + (k % 20) as i32);
    d.power.usage_watts = Some(200.0 + (k % 300) as f64);
}

fn recording(label: &str, busy: usize, every: u64) {
    let dir = tempfile::tempdir().unwrap();
    let db = dir.path().join("bench.db");
    let mut rec = Recorder::open(&db).unwrap();
    let mut s = machine(200);
    let samples: u64 = std::env::var("BENCH_SAMPLES")
        .ok()
        .and_then(|v| v.parse().ok())
        .unwrap_or(3600);
    let cpu0 = cpu_time();
    let wall0 = Instant::now();
    let mut worst = Duration::ZERO;
    // CPU of `add` (interning + frame encoding) and of `flush` (the SQLite transaction), apart.
    let (mut encode, mut write) = (Duration::ZERO, Duration::ZERO);
    for k in 0..samples {
        let t = Instant::now();
        step(&mut s, k, busy);
        balance(&mut s);
        let c0 = cpu_time();
        rec.add(&s, T0 + k as i64 * 1000);
        let c1 = cpu_time();
        encode += c1 - c0;
        if k % every == every - 1 {
            rec.flush().unwrap();
            write += cpu_time() - c1;
        }
        worst = worst.max(t.elapsed());
    }
    let c0 = cpu_time();
    rec.flush().unwrap();
    write += cpu_time() - c0;
    let cpu = cpu_time() - cpu0;
    let wall = wall0.elapsed();
    drop(rec);
    // Fold the WAL into the main file before measuring it.
    let c = rusqlite::Connection::open(&db).unwrap();
    c.execute_batch("PRAGMA wal_checkpoint(TRUNCATE)").unwrap();
    drop(c);
    let bytes = std::fs::metadata(&db).unwrap().len();
    println!(
        "record, {label}, commit every {every} sample{}: {:.3} ms CPU per sample (frame encoding {:.3}, SQLite writes {:.3}; {:.3} ms wall, worst sample incl. flush {:.2} ms) = {:.3} % of one core at 1 s; database {:.1} MB per hour -> {:.1} MB per day",
        if every == 1 { "" } else { "s" },
        cpu.as_secs_f64() * 1e3 / samples as f64,
        encode.as_secs_f64() * 1e3 / samples as f64,
        write.as_secs_f64() * 1e3 / samples as f64,
        wall.as_secs_f64() * 1e3 / samples as f64,
        worst.as_secs_f64() * 1e3,
        cpu.as_secs_f64() * 1e3 / samples as f64 / 10.0,
        bytes as f64 / 1e6,
        bytes as f64 / 1e6 * 24.0
    );
}

fn export_day() {
    let day: u64 = std::env::var("BENCH_DAY_SAMPLES")
        .ok()
        .and_then(|v| v.parse().ok())
        .unwrap_or(86_400);
    let dir = tempfile::tempdir().unwrap();
    let db = dir.path().join("day.db");
    let gen = Instant::now();
    {
        let mut rec = Recorder::open(&db).unwrap();
        let mut s = machine(200);
        for k in 0..day {
            step(&mut s, k, 20);
            rec.add(&s, T0 + k as i64 * 1000);
            if k % 600 == 599 {
                rec.flush().unwrap();
            }
        }
        rec.flush().unwrap();
    }
    let c = rusqlite::Connection::open(&db).unwrap();
    c.execute_batch("PRAGMA wal_checkpoint(TRUNCATE)").unwrap();
    drop(c);
    if let Some(keep) = std::env::var_os("BENCH_KEEP_DB") {
        // For timing the real `gpuledger history` binary on the same day.
        std::fs::copy(&db, keep).unwrap();
    }
    println!(
        "generated {day} samples x 200 processes in {:.1} s; database {:.1} MB",
        gen.elapsed().as_secs_f64(),
        std::fs::metadata(&db).unwrap().len() as f64 / 1e6
    );

    for _ in 0..2 {
        let t = Instant::now();
        let cpu0 = cpu_time();
        let reader = Reader::open(&db).unwrap();
        let out = std::io::BufWriter::with_capacity(
            1 << 16,
            Counting(std::fs::File::create("/dev/null").unwrap(), 0),
        );
        let mut w = HistoryCsv::processes(out).unwrap();
        let mut rows = 0u64;
        reader
            .for_each_process_row(
                &Query {
                    since_ms: Some(T0),
                    ..Query::default()
                },
                |r| {
                    rows += 1;
                    w.process_row(r).unwrap();
                },
            )
            .unwrap();
        let bytes = w.finish().unwrap().into_inner().ok().unwrap().1;
        println!(
            "history --since 24h --format csv: {rows} rows, {:.2} GB of CSV, in {:.3} s wall, {:.3} s CPU ({:.1} M rows/s wall)",
            bytes as f64 / 1e9,
            t.elapsed().as_secs_f64(),
            (cpu_time() - cpu0).as_secs_f64(),
            rows as f64 / t.elapsed().as_secs_f64() / 1e6
        );
    }
    // Where the time goes: reading and decoding alone, no CSV.
    let t = Instant::now();
    let cpu0 = cpu_time();
    let reader = Reader::open(&db).unwrap();
    let mut n = 0u64;
    reader
        .for_each_process_row(&Query::default(), |r| {
            n += r.vals.memory_bytes.unwrap_or(0) & 1
        })
        .unwrap();
    println!(
        "  of which reading + decoding the frames: {:.3} s wall, {:.3} s CPU ({n})",
        t.elapsed().as_secs_f64(),
        (cpu_time() - cpu0).as_secs_f64()
    );
    // The same day, device rows (what the plot reads).
    let t = Instant::now();
    let reader = Reader::open(&db).unwrap();
    let mut n = 0u64;
    reader
        .for_each_device_row(&Query::default(), |_| n += 1)
        .unwrap();
    println!(
        "device rows for the day: {n} in {:.3} s",
        t.elapsed().as_secs_f64()
    );
}

/// Counts what passes through to /dev/null.
struct Counting(std::fs::File, u64);

impl std::io::Write for Counting {
    fn write(&mut self, b: &[u8]) -> std::io::Result<usize> {
        self.1 += b.len() as u64;
        self.0.write(b)
    }
    fn flush(&mut self) -> std::io::Result<()> {
        self.0.flush()
    }
}

fn main() {
    // `cargo bench` passes --bench; nothing else to parse.
    for every in [1, 10] {
        recording("typical (20 busy / 200)", 20, every);
        recording("worst case (200 busy / 200)", 200, every);
    }
    if std::env::var("BENCH_DAY_SAMPLES").as_deref() != Ok("0") {
        export_day();
    }
}
