//! Tree view with a workload of several processes: vLLM with tensor parallelism 4 (an API
//! server and an engine core that hold no GPU memory, four workers that do). The group is one
//! row with its members' total, `f` unfolds it, T / K on it act on the root with the group
//! named (issue 37).

use gpuledger_model::test_support::{self, GIB};
use gpuledger_model::{Confidence, Member, RoleKind, Snapshot, Workload, WorkloadKind};
use gpuledger_tui::app::{Column, Overlay};
use gpuledger_tui::{App, Check, Termination, Terminator, ThemeKind};
use ratatui::crossterm::event::{KeyCode, KeyEvent, KeyModifiers};
use std::sync::{Arc, Mutex};
use std::time::{Duration, Instant};

mod support;
use support::{key, screen};

const SERVER: u32 = 100;

fn worker(pid: u32, rank: u32, dev: &str) -> gpuledger_model::Process {
    let mut p = test_support::named_process(
        pid,
        "VLLM::Worker_TP",
        vec![test_support::usage(dev, Some(20 * GIB))],
    );
    p.ppid = Some(101);
    p.user = Some("alice".into());
    p.workload = Some(Arc::new(Workload {
        kind: WorkloadKind::Vllm,
        model: Some("/models/TinyLlama-1.1B-Chat-v1.0".into()),
        model_name: None,
        confidence: Confidence::High,
        evidence: Vec::new(),
        missing: Vec::new(),
        member: Some(Member {
            root_pid: Some(SERVER),
            role: format!("worker TP{rank}/4"),
            role_kind: RoleKind::Worker,
            evidence: "process title VLLM::Worker_TP under the API server".into(),
        }),
    }));
    p
}

/// Four GPUs, four workers (server 100 and engine core 101 are not GPU processes), and a
/// desktop process on GPU0 that belongs to no group.
fn tp4() -> Snapshot {
    let uuids = ["GPU-0", "GPU-1", "GPU-2", "GPU-3"];
    let devices = (0..4)
        .map(|i| test_support::device(i, uuids[i as usize], Some(80 * GIB), Some(40 * GIB)))
        .collect();
    let mut processes: Vec<_> = (0..4)
        .map(|i| worker(200 + i, i, uuids[i as usize]))
        .collect();
    let mut xorg = test_support::named_process(
        900,
        "Xorg",
        vec![test_support::usage("GPU-0", Some(GIB / 2))],
    );
    xorg.ppid = Some(1);
    processes.push(xorg);
    test_support::snapshot("2026-11-29T08:00:00Z", devices, processes)
}

/// What the kill seam was asked about: (pid, name).
#[derive(Default, Clone)]
struct Asked(Arc<Mutex<Vec<(u32, String)>>>);

impl Terminator for Asked {
    fn check(&self, pid: u32, _start_time: Option<u64>, name: &str) -> Check {
        self.0.lock().unwrap().push((pid, name.to_string()));
        Check::Allowed
    }
    fn terminate(&self, _pid: u32, _start_time: Option<u64>, _force: bool) -> Termination {
        Termination::Requested
    }
}

fn tree_app(t0: Instant, asked: Asked) -> App {
    let mut app =
        App::new(ThemeKind::Dark, Duration::from_secs(1), t0).with_terminator(Box::new(asked));
    app.apply(support::round(tp4()), t0);
    app.handle_key(key('t'), t0);
    app
}

#[test]
fn a_tp4_group_is_one_row_with_its_total_and_unfolds_to_its_workers() {
    let t0 = Instant::now();
    let mut app = tree_app(t0, Asked::default());
    // Folded: the group's row and Xorg.
    assert_eq!(app.table.rows.len(), 2);
    let g = app.table.rows[0];
    assert_eq!(g.group, Some(SERVER));
    assert_eq!(app.cell_text(&g, Column::Pid), "100");
    assert_eq!(app.cell_text(&g, Column::Memory), "80 GiB");
    assert_eq!(app.cell_text(&g, Column::Device), "0-3");
    let s = screen(&mut app, 120, 40, t0);
    let row = s
        .lines()
        .find(|l| l.contains(" 100 "))
        .unwrap_or_else(|| panic!("{s}"));
    assert!(
        row.contains("▸ 4 processes") && row.contains("80 GiB"),
        "{row}"
    );
    assert!(row.contains("vLLM · TinyLlama-1.1B-Chat-v1.0"), "{row}");
    assert!(!s.lines().any(|l| l.contains(" 201 ")), "folded:\n{s}");
    // f unfolds: the workers one level down, the selection still on the group.
    app.handle_key(key('f'), t0);
    assert_eq!(app.table.rows.len(), 6);
    assert_eq!(app.selected_row().unwrap().group, Some(SERVER));
    let s = screen(&mut app, 120, 40, t0);
    for rank in 0..4 {
        assert!(s.contains(&format!("worker TP{rank}/4")), "{s}");
    }
    assert!(s.contains("▾ 4 processes"), "{s}");
    app.handle_key(key('f'), t0);
    assert_eq!(app.table.rows.len(), 2);
    // Out of the tree view the workers are rows of their own again.
    app.handle_key(key('t'), t0);
    assert_eq!(app.table.rows.len(), 5);
    assert!(app.table.rows.iter().all(|r| r.group.is_none()));
}

#[test]
fn terminate_and_details_on_the_group_act_on_its_root_with_the_group_named() {
    let t0 = Instant::now();
    let asked = Asked::default();
    let mut app = tree_app(t0, asked.clone());
    app.handle_key(key('T'), t0);
    let (pid, name) = asked.0.lock().unwrap()[0].clone();
    assert_eq!(pid, SERVER);
    assert!(name.contains("vLLM · TinyLlama"), "{name}");
    match &app.overlay {
        Overlay::Confirm(c) => {
            assert_eq!(c.pid, SERVER);
            assert!(
                c.memory.contains("80 GiB") && c.memory.contains("4 processes"),
                "{c:?}"
            );
            assert!(c.detail.contains("200 worker TP0/4"), "{c:?}");
        }
        o => panic!("{o:?}"),
    }
    let s = screen(&mut app, 120, 40, t0);
    assert!(s.contains("vLLM · TinyLlama"), "{s}");
    // n cancels; Enter opens the details of the group's row.
    app.handle_key(key('n'), t0);
    app.handle_key(KeyEvent::new(KeyCode::Enter, KeyModifiers::NONE), t0);
    let s = screen(&mut app, 120, 40, t0);
    assert!(s.contains("Workload group vLLM · TinyLlama"), "{s}");
    assert!(s.contains("root PID 100 · 4 processes"), "{s}");
    assert!(s.contains("measured 80 GiB"), "{s}");
}

#[test]
fn a_kill_of_the_root_is_done_when_its_workers_are_gone_not_before() {
    let t0 = Instant::now();
    let mut app = tree_app(t0, Asked::default());
    app.handle_key(key('T'), t0);
    app.handle_key(key('y'), t0);
    assert_eq!(app.pending.len(), 1, "{:?}", app.message);
    let next = |procs: Vec<gpuledger_model::Process>| {
        let mut s = tp4();
        s.processes = procs;
        support::round(s)
    };
    // The server (100) is never listed; its workers still are.
    app.apply(next(tp4().processes), t0 + Duration::from_secs(1));
    assert_eq!(
        app.pending.len(),
        1,
        "not gone while the workers are listed"
    );
    let xorg_only = tp4()
        .processes
        .into_iter()
        .filter(|p| p.pid == 900)
        .collect();
    app.apply(next(xorg_only), t0 + Duration::from_secs(2));
    assert!(app.pending.is_empty());
    assert!(app.message.unwrap_or_default().contains("PID 100"));
}
