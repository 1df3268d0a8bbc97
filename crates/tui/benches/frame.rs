//! Figures for the targets (run: `cargo bench -p gpuledger-tui --bench frame`):
//! - one frame with 500 processes on 3 devices, on ratatui's TestBackend (target ≤ 2 ms);
//! - applying a round (history push, filter, sort, selection) for the same snapshot;
//! - history memory after ten minutes of 1 s rounds with 500 processes: points held, bytes
//!   computed from the point size, and this process's RSS growth (target for the whole view:
//!   ≤ 25 MB).

use gpuledger_model::test_support as ts;
use gpuledger_model::*;
use gpuledger_tui::feed::Update;
use gpuledger_tui::hoststats::HostProc;
use gpuledger_tui::series::{History, Point};
use gpuledger_tui::{App, ThemeKind};
use ratatui::backend::TestBackend;
use ratatui::Terminal;
use std::collections::HashMap;
use std::time::{Duration, Instant};

fn snapshot(nproc: u32, round: u64) -> Snapshot {
    let devices = (0..3)
        .map(|i| {
            let used = (100 << 30) + round * 1000;
            let mut d = ts::device(i, &format!("GPU-{i}"), Some(140 << 30), Some(used));
            d.name = Some("NVIDIA H200".into());
            d.utilization.gpu_percent = Some((round % 100) as u32);
            d.utilization.memory_percent = Some(12);
            d.temperature_c = Some(60);
            d.power.usage_watts = Some(300.0);
            d.power.limit_watts = Some(700.0);
            d
        })
        .collect();
    let processes = (0..nproc)
        .map(|pid| {
            let memory = (pid % 50 != 7).then_some(((pid as u64 * 7919) % 997) << 20);
            let mut u = ts::usage(&format!("GPU-{}", pid % 3), memory);
            u.engines.sm_percent = Some(pid % 100);
            u.kinds = vec![UsageKind::Compute];
            let mut p = ts::named_process(10_000 + pid, &format!("worker-{pid}"), vec![u]);
            p.start_time = Some(pid as u64);
            p.user = Some("alice".into());
            p.ppid = Some(if pid % 10 == 0 {
                1
            } else {
                10_000 + pid - pid % 10
            });
            p.cmdline = Some(vec![
                "python3".into(),
                "train.py".into(),
                format!("--rank={pid}"),
            ]);
            p
        })
        .collect();
    let taken_at = format!("2026-11-29T08:00:{:02}Z", round % 60);
    ts::snapshot(&taken_at, devices, processes)
}

fn host(n: u32) -> HashMap<u32, HostProc> {
    (0..n)
        .map(|p| {
            (
                10_000 + p,
                HostProc {
                    cpu_percent: Some(p as f64 / 7.0),
                    rss_bytes: Some(1 << 30),
                    mem_percent: Some(1.5),
                    reason: None,
                },
            )
        })
        .collect()
}

fn rss_kib() -> u64 {
    std::fs::read_to_string("/proc/self/status")
        .ok()
        .and_then(|s| {
            s.lines()
                .find_map(|l| l.strip_prefix("VmRSS:"))
                .and_then(|v| v.split_whitespace().next()?.parse().ok())
        })
        .unwrap_or(0)
}

/// CPU time of this thread: frame cost without the time other processes on a shared machine
/// take from it.
#[cfg(unix)]
fn thread_cpu() -> Duration {
    let mut ts = libc::timespec {
        tv_sec: 0,
        tv_nsec: 0,
    };
    // SAFETY: valid pointer to a timespec; the clock id is a constant.
    unsafe { libc::clock_gettime(libc::CLOCK_THREAD_CPUTIME_ID, &mut ts) };
    Duration::new(ts.tv_sec as u64, ts.tv_nsec as u32)
}

/// No per-thread CPU clock here: the "thread CPU" figures read zero, only wall time counts.
#[cfg(not(unix))]
fn thread_cpu() -> Duration {
    Duration::ZERO
}

fn stats(name: &str, mut v: Vec<Duration>) {
    v.sort();
    let mean = v.iter().sum::<Duration>() / v.len() as u32;
    println!(
        "{name:<44} mean {:>8.3} ms  p50 {:>8.3} ms  p99 {:>8.3} ms  max {:>8.3} ms  (n={})",
        mean.as_secs_f64() * 1e3,
        v[v.len() / 2].as_secs_f64() * 1e3,
        v[v.len() * 99 / 100].as_secs_f64() * 1e3,
        v[v.len() - 1].as_secs_f64() * 1e3,
        v.len()
    );
}

fn main() {
    // History memory: ten minutes of 1 s rounds, 500 processes on 3 devices.
    let before = rss_kib();
    let mut h = History::new(600.0);
    let s = snapshot(500, 0);
    for r in 0..600 {
        h.push(r as f64, &s, None);
    }
    let after = rss_kib();
    let pts = h.len();
    println!(
        "history after 600 rounds (10 min at 1 s), 500 processes: {} device + {} process series, {} points × {} B = {:.2} MB of points; RSS grew {:.2} MB",
        h.devices.len(),
        h.process_series(),
        pts,
        std::mem::size_of::<Point>(),
        (pts * std::mem::size_of::<Point>()) as f64 / 1e6,
        (after.saturating_sub(before)) as f64 / 1024.0
    );
    drop(h);
    let t0 = Instant::now();
    let mut app = App::new(ThemeKind::Dark, Duration::from_secs(1), t0);
    for r in 0..120 {
        app.apply(
            Update {
                snapshot: snapshot(500, r),
                host: host(500),
                took: Duration::ZERO,
                dropped: 0,
                machine: None,
            },
            t0 + Duration::from_secs(r),
        );
    }
    // Select a row in the middle so the chart draws a process series too.
    for _ in 0..250 {
        app.handle_key(
            ratatui::crossterm::event::KeyEvent::from(ratatui::crossterm::event::KeyCode::Down),
            t0,
        );
    }
    let now = t0 + Duration::from_secs(120);
    for (w, h) in [(80u16, 24u16), (120, 40), (240, 70)] {
        let mut term = Terminal::new(TestBackend::new(w, h)).unwrap();
        for _ in 0..20 {
            term.draw(|f| {
                gpuledger_tui::ui::draw(f, &app, now);
            })
            .unwrap();
        }
        let (mut wall, mut cpu) = (Vec::new(), Vec::new());
        for _ in 0..500 {
            let (s, c) = (Instant::now(), thread_cpu());
            term.draw(|f| {
                gpuledger_tui::ui::draw(f, &app, now);
            })
            .unwrap();
            cpu.push(thread_cpu() - c);
            wall.push(s.elapsed());
        }
        stats(&format!("frame {w}x{h}, 500 procs, 3 devs (wall)"), wall);
        stats(
            &format!("frame {w}x{h}, 500 procs, 3 devs (thread CPU)"),
            cpu,
        );
    }
    let snaps: Vec<Snapshot> = (0..50).map(|r| snapshot(500, 200 + r)).collect();
    let mut v = Vec::new();
    for (i, s) in snaps.into_iter().enumerate() {
        let st = Instant::now();
        app.apply(
            Update {
                snapshot: s,
                host: host(500),
                took: Duration::ZERO,
                dropped: 0,
                machine: None,
            },
            t0 + Duration::from_secs(200 + i as u64),
        );
        v.push(st.elapsed());
    }
    stats("apply a round (history, sort, select), 500 procs", v);

    println!("bench process RSS now: {:.1} MB", rss_kib() as f64 / 1024.0);
}
