//! The header gives the device and host context nvitop's does (issue 37): driver, clocks and
//! PCIe link per card, the host's CPU and RAM in the title; fitted to the width, `n/a` for what
//! was not read.

use gpuledger_tui::hostwide::Machine;
use gpuledger_tui::{App, ThemeKind};
use std::time::{Duration, Instant};

mod support;
use support::{sample, screen};

fn live(snap: gpuledger_model::Snapshot, machine: Option<Machine>, t0: Instant) -> App {
    let mut app = App::new(ThemeKind::Dark, Duration::from_secs(1), t0);
    app.apply(
        gpuledger_tui::feed::Update {
            snapshot: snap,
            host: Default::default(),
            took: Duration::ZERO,
            dropped: 0,
            machine,
        },
        t0,
    );
    app
}

#[test]
fn cards_and_title_carry_the_device_and_host_context() {
    let t0 = Instant::now();
    let machine = Machine {
        cpu_percent: Some(12.4),
        mem_used_bytes: Some(31 << 30),
        mem_total_bytes: Some(125 << 30),
    };
    let s = screen(&mut live(sample(), Some(machine), t0), 200, 50, t0);
    let title = s.lines().next().unwrap();
    assert!(title.contains("CPU 12% RAM 31 GiB/125 GiB"), "{title}");
    assert!(title.contains("driver 550.54.15"), "{title}");
    let gpu0 = s
        .lines()
        .find(|l| l.contains("SM 2520 MHz"))
        .unwrap_or_else(|| panic!("{s}"));
    assert!(gpu0.contains("mem 10501 MHz · PCIe 4.0 x16"), "{gpu0}");
    assert!(s.contains("SM 1560 MHz · mem 7001 MHz"), "{s}");
}

#[test]
fn unread_context_is_na_and_a_narrow_card_keeps_whole_items() {
    let t0 = Instant::now();
    let mut snap = sample();
    snap.devices[0].clocks = Default::default();
    snap.devices[0].driver_version = None;
    snap.devices[1].driver_version = None;
    let s = screen(&mut live(snap, Some(Machine::default()), t0), 120, 40, t0);
    let title = s.lines().next().unwrap();
    assert!(title.contains("CPU n/a RAM n/a"), "{title}");
    assert!(title.contains("driver n/a"), "{title}");
    assert!(s.contains("SM n/a · mem n/a · PCIe 4.0 x16"), "{s}");
    // No item is cut: every line that names a clock names it whole.
    for l in s.lines().filter(|l| l.contains("MHz")) {
        assert!(!l.contains("MH ") && !l.contains("M│"), "{l}");
    }
}

#[test]
fn a_replay_shows_no_host_figures_it_did_not_record() {
    let t0 = Instant::now();
    let mut app =
        App::new(ThemeKind::Dark, Duration::from_secs(1), t0).replay(sample(), "s.json".into(), t0);
    let s = screen(&mut app, 200, 50, t0);
    assert!(!s.lines().next().unwrap().contains("CPU "), "{s}");
    assert!(
        s.lines().next().unwrap().contains("driver 550.54.15"),
        "{s}"
    );
}
