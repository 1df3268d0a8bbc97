//! An 80×24 terminal uses its rows, and a machine with nothing to show says so once, with what
//! to try instead (issue 37).

use gpuledger_tui::{App, ThemeKind};
use std::time::{Duration, Instant};

mod support;
use support::{sample, screen};

fn live(snap: gpuledger_model::Snapshot, t0: Instant) -> App {
    let mut app = App::new(ThemeKind::Dark, Duration::from_secs(1), t0);
    app.apply(support::round(snap), t0);
    app
}

fn blank_rows(s: &str) -> usize {
    s.lines().filter(|l| l.trim().is_empty()).count()
}

#[test]
fn rows_too_few_for_the_chart_hold_the_estimate() {
    let t0 = Instant::now();
    let mut snap = sample();
    // Eleven processes: the table leaves fewer rows than the chart needs, more than none.
    let extra: Vec<_> = (0..5)
        .map(|i| {
            let mut p = snap.processes[4].clone();
            p.pid = 7000 + i;
            p
        })
        .collect();
    snap.processes.extend(extra);
    let s = screen(&mut live(snap, t0), 80, 24, t0);
    assert!(s.contains("ESTIMATE"), "{s}");
    assert!(
        !s.contains("no history") && !s.contains("last 10 min"),
        "{s}"
    );
    assert!(blank_rows(&s) <= 1, "{} blank rows:\n{s}", blank_rows(&s));
    // Every process still has its row: the estimate took only rows the table did not need.
    for pid in ["4242", "6001", "7004"] {
        assert!(s.contains(&format!(" {pid} ")), "{pid}:\n{s}");
    }
}

#[test]
fn no_gpu_is_said_once_with_the_sample_to_try() {
    let t0 = Instant::now();
    let mut snap = sample();
    snap.devices.clear();
    snap.processes.clear();
    snap.notes = vec!["no GPU found by any source (see `gpuledger selftest`)".into()];
    for (w, h) in [(80, 24), (120, 40), (200, 50)] {
        let s = screen(&mut live(snap.clone(), t0), w, h, t0);
        assert_eq!(s.matches("no GPU found").count(), 1, "{w}x{h}:\n{s}");
        let flat = s.split_whitespace().collect::<Vec<_>>().join(" ");
        assert!(
            flat.contains("gpuledger --replay examples/sample-snapshot.json"),
            "{w}x{h}:\n{s}"
        );
        // No empty chart or ledger panes.
        assert!(
            !s.contains("History") && !s.contains("Measured"),
            "{w}x{h}:\n{s}"
        );
    }
    // A replay of a file without devices is not offered the sample instead.
    let mut app =
        App::new(ThemeKind::Dark, Duration::from_secs(1), t0).replay(snap, "x.json".into(), t0);
    let s = screen(&mut app, 120, 40, t0);
    assert_eq!(s.matches("no GPU found").count(), 1, "{s}");
    assert!(!s.contains("sample-snapshot"), "{s}");
}
