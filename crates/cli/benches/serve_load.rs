//! Load figures for `gpuledger serve` (run: `cargo bench -p gpuledger --bench serve_load`).
//!
//! Serves a recorded snapshot with 4 devices and 200 processes from the real binary
//! (`--replay`, so no collection competes with the measurement) on 127.0.0.1, and prints:
//! - scrape latency p50/p99/max over a fixed number of sequential scrapes (one connection each,
//!   as Prometheus does against a server that closes), for `--processes all` and the default;
//! - requests per second over a fixed number of requests from 8 concurrent clients, and a paced
//!   500 req/s phase with its error count and latency;
//! - the server's CPU time per scrape (from /proc/PID/stat) and what that costs at a 15 s scrape
//!   interval, plus the per-round rendering cost that live collection adds.
//!
//! Bounded: every loop has a fixed count.

use gpuledger_model::test_support as ts;
use gpuledger_model::*;
use std::io::{Read, Write};
use std::net::{SocketAddr, TcpStream};
use std::process::{Child, Command, Stdio};
use std::time::{Duration, Instant};

struct Guard(Child);
impl Drop for Guard {
    fn drop(&mut self) {
        let _ = self.0.kill();
        let _ = self.0.wait();
    }
}

fn snapshot() -> Snapshot {
    let uuid = |i: u32| format!("GPU-{i:08x}-0000-0000-0000-000000000000");
    let devices = (0..4u32)
        .map(|i| {
            let mut d = ts::device(i, &uuid(i), None, None);
            d.name = Some("NVIDIA H200".into());
            d.memory = Memory {
                total_bytes: Some(150_754_820_096),
                used_bytes: Some(100_000_000_000),
                free_bytes: Some(50_754_820_096),
                reserved_bytes: Some(600_000_000),
            };
            d.utilization.gpu_percent = Some(50 + i);
            d.utilization.memory_percent = Some(20);
            d.temperature_c = Some(60);
            d.power.usage_watts = Some(400.5);
            d.power.limit_watts = Some(700.0);
            d.clocks.graphics_mhz = Some(1980);
            d.clocks.sm_mhz = Some(1980);
            d.clocks.memory_mhz = Some(3201);
            d
        })
        .collect();
    let processes = (0..200u32)
        .map(|pid| {
            let memory = Some(100_000_000 + u64::from(pid) * 1_000_000);
            let mut p = ts::process(10_000 + pid, &uuid(pid % 4), memory);
            p.name = Some(format!("worker-{pid}"));
            p.user = Some(format!("user{}", pid % 7));
            p.cmdline = Some(vec![
                "python3".into(),
                "train.py".into(),
                "--token".into(),
                "<redacted>".into(),
            ]);
            let u = &mut p.usage[0];
            u.kinds = vec![UsageKind::Compute];
            u.engines.sm_percent = Some(pid % 100);
            u.engines.memory_percent = Some(pid % 50);
            p
        })
        .collect();
    let mut s = ts::snapshot(ts::TAKEN_AT, devices, processes);
    s.host.hostname = Some("bench".into());
    s.sources
        .push(SourceStatus::new("nvml", SourceState::Ok, "4 devices"));
    s
}

fn scrape(addr: SocketAddr, path: &str) -> Result<usize, String> {
    let mut s = TcpStream::connect(addr).map_err(|e| e.to_string())?;
    s.set_read_timeout(Some(Duration::from_secs(5))).ok();
    s.write_all(
        format!("GET {path} HTTP/1.1\r\nHost: localhost\r\nAccept-Encoding: identity\r\n\r\n")
            .as_bytes(),
    )
    .map_err(|e| e.to_string())?;
    let mut buf = Vec::with_capacity(64 * 1024);
    s.read_to_end(&mut buf).map_err(|e| e.to_string())?;
    if !buf.starts_with(b"HTTP/1.1 200 ") {
        return Err(String::from_utf8_lossy(&buf[..buf.len().min(40)]).into_owned());
    }
    Ok(buf.len())
}

/// utime + stime of `pid`, in seconds.
fn cpu_seconds(pid: u32) -> f64 {
    let stat = std::fs::read_to_string(format!("/proc/{pid}/stat")).unwrap();
    let after = &stat[stat.rfind(')').unwrap() + 2..];
    let f: Vec<&str> = after.split(' ').collect();
    // Fields 14 and 15 (1-based) are utime and stime; `after` starts at field 3.
    let ticks: u64 = f[11].parse::<u64>().unwrap() + f[12].parse::<u64>().unwrap();
    // SAFETY: sysconf has no preconditions.
    let hz = unsafe { libc::sysconf(libc::_SC_CLK_TCK) };
    ticks as f64 / if hz > 0 { hz as f64 } else { 100.0 }
}

fn pct(sorted: &[Duration], p: f64) -> f64 {
    let i = ((sorted.len() as f64 - 1.0) * p).round() as usize;
    sorted[i].as_secs_f64() * 1000.0
}

fn start(snap_path: &std::path::Path, processes: &str) -> (Guard, SocketAddr) {
    let mut child = Command::new(env!("CARGO_BIN_EXE_gpuledger"))
        .arg("--replay")
        .arg(snap_path)
        .args(["serve", "--listen", "127.0.0.1:0", "--processes", processes])
        .stdin(Stdio::null())
        .stdout(Stdio::null())
        .stderr(Stdio::piped())
        .spawn()
        .expect("start gpuledger serve");
    let mut err = child.stderr.take().unwrap();
    let g = Guard(child);
    let mut line = Vec::new();
    let mut b = [0u8; 1];
    while err.read(&mut b).unwrap_or(0) == 1 && b[0] != b'\n' {
        line.push(b[0]);
    }
    let line = String::from_utf8_lossy(&line).into_owned();
    let addr = line
        .split("http://")
        .nth(1)
        .and_then(|r| r.split_whitespace().next())
        .unwrap_or_else(|| panic!("{line}"))
        .parse()
        .unwrap();
    std::thread::spawn(move || {
        let mut sink = Vec::new();
        let _ = err.read_to_end(&mut sink);
    });
    (g, addr)
}

fn latency_phase(label: &str, addr: SocketAddr, pid: u32, n: usize) {
    for _ in 0..50 {
        scrape(addr, "/metrics").unwrap();
    }
    let cpu0 = cpu_seconds(pid);
    let mut lat = Vec::with_capacity(n);
    let mut bytes = 0;
    let t = Instant::now();
    for _ in 0..n {
        let s = Instant::now();
        bytes = scrape(addr, "/metrics").expect("scrape");
        lat.push(s.elapsed());
    }
    let wall = t.elapsed();
    let cpu = cpu_seconds(pid) - cpu0;
    lat.sort();
    let per_scrape = cpu / n as f64;
    println!(
        "{label}: {n} sequential scrapes of {bytes} bytes: p50 {:.3} ms, p99 {:.3} ms, max {:.3} ms; {:.0} scrapes/s on one connection at a time",
        pct(&lat, 0.5), pct(&lat, 0.99), pct(&lat, 1.0), n as f64 / wall.as_secs_f64()
    );
    println!(
        "{label}: server CPU {:.1} µs per scrape ({:.2} s over {n}); at one scrape per 15 s that is {:.5} % of one core",
        per_scrape * 1e6, cpu, per_scrape / 15.0 * 100.0
    );
}

fn main() {
    // `cargo bench` passes --bench; under `cargo test --all-targets` this runs as a quick smoke
    // run with small counts (the figures then mean little).
    let full = std::env::args().any(|a| a == "--bench");
    let scale = |n: usize| if full { n } else { (n / 20).max(10) };
    if !full {
        println!("smoke run with reduced counts (figures not meaningful): use `cargo bench -p gpuledger --bench serve_load`");
    }
    let dir = tempfile::tempdir().unwrap();
    let path = dir.path().join("snap.json");
    let snap = snapshot();
    std::fs::write(&path, serde_json::to_string(&snap).unwrap()).unwrap();

    // Per-round rendering (done once per collection round in live mode, not per scrape).
    let opts = gpuledger_views::MetricsOptions {
        processes: gpuledger_views::ProcessSeries::All,
        ..Default::default()
    };
    let rounds = scale(200);
    let t = Instant::now();
    for _ in 0..rounds {
        std::hint::black_box(gpuledger_views::render_metrics(&snap, &opts));
        std::hint::black_box(serde_json::to_string(&snap).unwrap());
    }
    let render = t.elapsed().as_secs_f64() / rounds as f64;
    println!(
        "render per round (metrics, all 200 processes, + JSON): {:.3} ms; at the default 5 s interval {:.4} % of one core",
        render * 1000.0,
        render / 5.0 * 100.0
    );

    for processes in ["all", "top-50"] {
        let (g, addr) = start(&path, processes);
        latency_phase(
            &format!("--processes {processes}"),
            addr,
            g.0.id(),
            scale(2000),
        );
        if processes == "all" {
            // Throughput: 8 clients, 1250 requests each, no pacing.
            let clients = 8;
            let each = scale(1250);
            let t = Instant::now();
            let handles: Vec<_> = (0..clients)
                .map(|_| {
                    std::thread::spawn(move || {
                        let mut errors = 0;
                        for _ in 0..each {
                            if scrape(addr, "/metrics").is_err() {
                                errors += 1;
                            }
                        }
                        errors
                    })
                })
                .collect();
            let errors: usize = handles.into_iter().map(|h| h.join().unwrap()).sum();
            let wall = t.elapsed().as_secs_f64();
            println!(
                "--processes all: {} requests from {clients} concurrent clients in {:.2} s: {:.0} req/s, {errors} errors",
                clients * each,
                wall,
                (clients * each) as f64 / wall
            );

            // Paced: 500 req/s for 10 s from 4 clients (125/s each), latency under load.
            let per_client = scale(1250);
            let gap = Duration::from_millis(8);
            let t = Instant::now();
            let handles: Vec<_> = (0..4)
                .map(|c| {
                    std::thread::spawn(move || {
                        let start = Instant::now() + Duration::from_millis(2 * c);
                        let mut lat = Vec::with_capacity(per_client);
                        let mut errors = 0;
                        for i in 0..per_client {
                            let due = start + gap * i as u32;
                            if let Some(w) = due.checked_duration_since(Instant::now()) {
                                std::thread::sleep(w);
                            }
                            let s = Instant::now();
                            if scrape(addr, "/metrics").is_err() {
                                errors += 1;
                            }
                            lat.push(s.elapsed());
                        }
                        (lat, errors)
                    })
                })
                .collect();
            let mut lat = Vec::new();
            let mut errors = 0;
            for h in handles {
                let (l, e) = h.join().unwrap();
                lat.extend(l);
                errors += e;
            }
            let wall = t.elapsed().as_secs_f64();
            lat.sort();
            println!(
                "--processes all: paced 500 req/s: {} requests in {:.2} s ({:.0} req/s held), {errors} errors, p50 {:.3} ms, p99 {:.3} ms",
                lat.len(),
                wall,
                lat.len() as f64 / wall,
                pct(&lat, 0.5),
                pct(&lat, 0.99)
            );
        }
        if processes == "all" && full {
            // Idle: no scrapes, no collection (replay). What the server costs between scrapes.
            let idle = Duration::from_secs(10);
            let cpu0 = cpu_seconds(g.0.id());
            std::thread::sleep(idle);
            let cpu = cpu_seconds(g.0.id()) - cpu0;
            println!(
                "--processes all: idle for {} s: server CPU {:.3} s ({:.3} % of one core; clock-tick resolution 10 ms)",
                idle.as_secs(),
                cpu,
                cpu / idle.as_secs_f64() * 100.0
            );
        }
        drop(g);
    }
}
