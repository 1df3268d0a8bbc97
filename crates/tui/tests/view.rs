//! The view on ratatui's TestBackend: layouts at three sizes, sorting, filtering, n/a, the
//! normalised-bar note, selection that follows a process, and key flows.

use gpuledger_model::*;
use gpuledger_tui::app::{Column, Effect, Overlay};
use gpuledger_tui::feed::Update;
use gpuledger_tui::hoststats::HostProc;
use gpuledger_tui::{App, Termination, Terminator, ThemeKind};
use ratatui::backend::TestBackend;
use ratatui::crossterm::event::{
    KeyCode, KeyEvent, KeyModifiers, MouseButton, MouseEvent, MouseEventKind,
};
use ratatui::style::Style;
use ratatui::Terminal;
use std::cell::RefCell;
use std::collections::HashMap;
use std::rc::Rc;
use std::time::{Duration, Instant};

#[path = "../../../testing/secret_corpus.rs"]
mod corpus;

use gpuledger_model::test_support::{self, GIB};
const G0: &str = "GPU-0000";
const G1: &str = "GPU-1111";

fn proc(pid: u32, name: &str, user: &str, ppid: u32, usage: Vec<Usage>) -> Process {
    let mut p = test_support::named_process(pid, name, usage);
    p.user = Some(user.into());
    p.ppid = Some(ppid);
    p.cmdline = Some(vec![format!("/usr/bin/{name}"), "--serve".into()]);
    p
}

fn usage(dev: &str, mem: Option<u64>, sm: Option<u32>, kinds: &[UsageKind]) -> Usage {
    let mut u = test_support::usage(dev, mem);
    if mem.is_none() {
        u.unavailable_reason = Some("NVML returned NOT_AVAILABLE for this process".into());
    }
    u.engines.sm_percent = sm;
    if sm.is_none() {
        u.engines.unavailable_reason = Some("no utilisation samples in the interval".into());
    }
    u.kinds = kinds.to_vec();
    u
}

/// Two GPUs; GPU0 used is `used0`. 5151's memory on GPU0 is `python_mem`.
fn snapshot(used0: u64, python_mem: u64) -> Snapshot {
    let mut s = Snapshot::new(
        "2026-11-29T08:00:00Z".into(),
        Host {
            hostname: Some("gpu-box".into()),
            os: "linux".into(),
            kernel: None,
            wsl: false,
        },
    );
    let mut d0 = test_support::device(0, G0, Some(140 * GIB), Some(used0));
    d0.name = Some("NVIDIA H200".into());
    d0.utilization.gpu_percent = Some(37);
    d0.utilization.memory_percent = Some(12);
    d0.temperature_c = Some(54);
    d0.power.usage_watts = Some(215.0);
    d0.power.limit_watts = Some(700.0);
    let mut d1 = test_support::device(1, G1, Some(24 * GIB), Some(6 * GIB));
    d1.name = Some("NVIDIA GeForce RTX 4090".into());
    d1.mark_unavailable("temperature_c", "not supported");
    s.devices = vec![d0, d1];
    use UsageKind::*;
    s.processes = vec![
        proc(
            4242,
            "llama-server",
            "alice",
            1,
            vec![
                usage(G0, Some(16 * GIB), Some(85), &[Compute]),
                usage(G1, Some(4 * GIB), None, &[Compute]),
            ],
        ),
        proc(
            5151,
            "python3",
            "bob",
            1,
            vec![usage(G0, Some(python_mem), Some(10), &[Compute, Graphics])],
        ),
        proc(
            6001,
            "ollama",
            "root",
            1,
            vec![usage(G0, None, None, &[Compute])],
        ),
        proc(
            6002,
            "ollama_runner",
            "root",
            6001,
            vec![usage(G0, Some(2 * GIB), Some(3), &[Compute])],
        ),
        proc(
            1200,
            "Xorg",
            "root",
            1,
            vec![usage(G1, Some(512 << 20), Some(1), &[Graphics])],
        ),
    ];
    s.processes[0].workload = Some(
        Workload {
            kind: WorkloadKind::LlamaCpp,
            model: Some("/models/qwen3-8b-q4_k_m.gguf".into()),
            model_name: None,
            confidence: Confidence::High,
            evidence: vec![
                Evidence {
                    kind: EvidenceKind::Executable,
                    showed: "llama-server".into(),
                    source: "/proc/4242/exe".into(),
                },
                Evidence {
                    kind: EvidenceKind::Cmdline,
                    showed: "-m /models/qwen3-8b-q4_k_m.gguf".into(),
                    source: "/proc/4242/cmdline".into(),
                },
            ],
            missing: vec!["GGUF header: file not readable".into()],
            member: None,
        }
        .into(),
    );
    s.sources
        .push(SourceStatus::new("nvml", SourceState::Ok, "2 devices"));
    balance(&mut s);
    s
}

fn host() -> HashMap<u32, HostProc> {
    let mut h = HashMap::new();
    h.insert(
        4242,
        HostProc {
            cpu_percent: Some(12.5),
            rss_bytes: Some(3 * GIB),
            mem_percent: Some(4.7),
            reason: None,
        },
    );
    h.insert(
        5151,
        HostProc {
            cpu_percent: None,
            rss_bytes: Some(GIB),
            mem_percent: None,
            reason: Some("CPU % needs two rounds: this process was first seen this round".into()),
        },
    );
    h
}

fn update(s: Snapshot) -> Update {
    Update {
        snapshot: s,
        host: host(),
        took: Duration::from_millis(3),
        dropped: 0,
        machine: None,
    }
}

fn app_with(s: Snapshot, t0: Instant) -> App {
    let mut app = App::new(ThemeKind::Dark, Duration::from_secs(1), t0);
    app.apply(update(s), t0);
    app
}

fn render(app: &mut App, w: u16, h: u16, now: Instant) -> (String, ratatui::buffer::Buffer) {
    let mut term = Terminal::new(TestBackend::new(w, h)).unwrap();
    let mut drawn = None;
    term.draw(|f| drawn = Some(gpuledger_tui::ui::draw(f, app, now)))
        .unwrap();
    app.geometry = drawn.unwrap();
    let buf = term.backend().buffer().clone();
    let mut text = String::new();
    for y in 0..h {
        for x in 0..w {
            text.push_str(buf[(x, y)].symbol());
        }
        text.push('\n');
    }
    (text, buf)
}

fn key(c: char) -> KeyEvent {
    KeyEvent::new(KeyCode::Char(c), KeyModifiers::NONE)
}

fn code(c: KeyCode) -> KeyEvent {
    KeyEvent::new(c, KeyModifiers::NONE)
}

fn pids(app: &App) -> Vec<u32> {
    app.table.rows.iter().map(|r| app.process(r).pid).collect()
}

fn line_with<'a>(screen: &'a str, needle: &str) -> &'a str {
    screen
        .lines()
        .find(|l| l.contains(needle))
        .unwrap_or_else(|| panic!("no line with {needle:?} in\n{screen}"))
}

/// The sample's six processes at 80×24 leave 11 rows under the table: enough for the panes
/// (they were blank below 12).
#[test]
fn six_processes_at_80x24_leave_their_rows_to_the_panes() {
    let t0 = Instant::now();
    let mut s = snapshot(40 * GIB, 9 * GIB);
    while s.processes.len() < 6 {
        let mut p = s.processes[0].clone();
        p.pid += 1000 + s.processes.len() as u32;
        s.processes.push(p);
    }
    s.processes.truncate(6);
    let mut app = app_with(s, t0);
    let (screen, _) = render(&mut app, 80, 24, t0);
    assert!(screen.contains("Measured"), "{screen}");
    let longest_blank = screen
        .lines()
        .fold((0, 0), |(run, best), l| {
            let run = if l.trim().is_empty() { run + 1 } else { 0 };
            (run, best.max(run))
        })
        .1;
    assert!(longest_blank <= 2, "{screen}");
}

#[test]
fn layout_80x24_is_compact_and_complete() {
    let t0 = Instant::now();
    let mut app = app_with(snapshot(40 * GIB, 9 * GIB), t0);
    let (s, _) = render(&mut app, 80, 24, t0);
    // Compact cards: one line per device with memory, utilisation and the books.
    // Memory with its %, then GPU % (never cut to "GPU 3"), then the books, each item whole.
    let g0 = line_with(&s, "GPU0 H200");
    assert!(
        g0.contains("40/140 GiB 29% · GPU% 37 · procs 27 GiB · unattr 13 GiB · 1 n/a"),
        "{g0}"
    );
    let g1 = line_with(&s, "GPU1 RTX 4090");
    assert!(
        g1.contains("6/24 GiB 25% · GPU% n/a · procs 4.50 GiB · unattr 1.50 GiB"),
        "unknown utilisation is n/a: {g1}"
    );
    // Narrow table: the workload stays (it answers "why"); COMMAND is what gives way.
    let header = line_with(&s, "PID");
    assert!(
        header.contains("GPU MEM") && header.contains("WORKLOAD") && !header.contains("COMMAND"),
        "{header}"
    );
    for pid in ["4242", "5151", "6001", "6002", "1200"] {
        assert!(s.contains(pid), "{pid} missing:\n{s}");
    }
    // The rows the whole table leaves go to the bottom panes, not blank; the
    // footer has the keys.
    assert!(s.contains("Measured"), "{s}");
    assert!(
        s.lines().filter(|l| l.trim().is_empty()).count() <= 2,
        "{s}"
    );
    let footer = line_with(&s, "q quit");
    assert!(footer.contains("? help"));
    // Key hints are whole: the line ends with a complete one, not a cut "K ki".
    let last = footer.trim_end().rsplit("  ").next().unwrap();
    assert!(
        [
            "T term",
            "K kill",
            "e env",
            "h/l scroll",
            "x export",
            "c copy",
            "Enter details"
        ]
        .contains(&last),
        "{footer:?}"
    );
}

#[test]
fn layout_120x40_has_cards_table_chart_and_ledgers() {
    let t0 = Instant::now();
    let mut app = app_with(snapshot(40 * GIB, 9 * GIB), t0);
    let (s, _) = render(&mut app, 120, 40, t0);
    assert!(s.contains("GPU0 NVIDIA H200"), "{s}");
    let mem = line_with(&s, "│MEM ");
    assert!(mem.contains("40 GiB / 140 GiB"), "{mem}");
    // The books: 16 + 9 + 2 GiB attributed, 13 GiB unattributed, one process unknown.
    let books = line_with(&s, "processes 27 GiB");
    assert!(
        books.contains("unattributed 13 GiB") && books.contains("1 n/a"),
        "{books}"
    );
    assert!(line_with(&s, "GPU% 37").contains("215/700 W"));
    let header = line_with(&s, "WORKLOAD");
    assert!(
        header.contains("GPU MEM▼ [nvml]"),
        "sorted by memory by default, the one source named once: {header}"
    );
    // Workload uncut, memory, host CPU / RSS.
    let llama = line_with(&s, "llama-server");
    assert!(
        llama.contains("llama.cpp · qwen3-8b-q4_k_m") && llama.contains(" 16 GiB"),
        "{llama}"
    );
    // No identification: unknown (n/a), not a guess.
    assert!(line_with(&s, "python3").contains(" n/a "));
    assert!(
        llama.contains("12.5") && llama.contains(" 3 GiB"),
        "{llama}"
    );
    assert!(s.contains("History GPU0"));
    assert!(s.contains("Measured"));
    assert!(s.contains("ESTIMATE (calculated, not measured)"));
    // Identified as llama.cpp but its model file cannot be read here: the reason, not numbers.
    assert!(s.contains("no estimate: the model or settings"), "{s}");
    // The measured pane shows the selected (first) process.
    assert!(s.contains("PID 4242"), "{s}");
}

/// A process no recipe models (Ollama's Go engine): the pane gives collection's reason and the
/// runtime's own figures, labelled as the runtime's, never as an estimate.
#[test]
fn estimate_pane_without_a_recipe_shows_why_and_what_the_runtime_reported() {
    let t0 = Instant::now();
    let mut snap = snapshot(40 * GIB, 9 * GIB);
    let p = snap.processes.iter_mut().find(|p| p.pid == 4242).unwrap();
    p.no_estimate = Some(
        gpuledger_model::NoEstimate {
            why: "Ollama's own Go engine allocates its weights itself; no recipe models it".into(),
            reported: vec![gpuledger_model::ReportedFigure::new(
                "size_vram",
                Some(7335301120),
                None,
                "GET http://127.0.0.1:11434/api/ps",
            )],
        }
        .into(),
    );
    let mut app = app_with(snap, t0);
    let (s, _) = render(&mut app, 240, 70, t0);
    assert!(
        line_with(&s, "runtime reports size_vram").contains("6.83 GiB"),
        "{s}"
    );
    assert!(s.contains("no estimate: Ollama's own Go engine"), "{s}");
    assert!(!s.contains("could not be read"), "{s}");
}

#[test]
fn estimate_pane_shows_the_recipe_apart_from_the_measurement() {
    let t0 = Instant::now();
    let mut snap = snapshot(40 * GIB, 9 * GIB);
    let p = snap.processes.iter_mut().find(|p| p.pid == 4242).unwrap();
    p.estimate = Some(
        gpuledger_model::EstimatedMemory {
            recipe: "llama.cpp/llama-server".into(),
            model: "/m/qwen3.gguf".into(),
            n_ctx: Some(32768),
            weights_gpu_bytes: 12 * GIB,
            kv_cache_gpu_bytes: Some(3 * GIB),
            compute_gpu_bytes: Some(GIB / 2),
            overhead_gpu_bytes: None,
            overhead_source: "no figure for this backend".into(),
            total_gpu_bytes: 15 * GIB + GIB / 2,
            ..Default::default()
        }
        .into(),
    );
    let mut app = app_with(snap.clone(), t0);
    let (s, _) = render(&mut app, 240, 70, t0);
    assert!(s.contains("llama.cpp/llama-server · context 32768"), "{s}");
    assert!(line_with(&s, "KV cache").contains("3 GiB"), "{s}");
    assert!(line_with(&s, "overhead").contains("n/a"), "{s}");
    // The overhead has no figure: the total is a floor and no difference is stated.
    assert!(line_with(&s, "total GPU").contains("≥ 15.5 GiB"), "{s}");
    let measured = line_with(&s, "measured      20 GiB");
    assert!(
        measured.contains("(driver)") && !measured.contains("more"),
        "{s}"
    );
    // With every part known: measured 16 + 4 GiB (both devices) beside estimated 16 GiB, as
    // two figures.
    let p = snap.processes.iter_mut().find(|p| p.pid == 4242).unwrap();
    let e = std::sync::Arc::make_mut(p.estimate.as_mut().unwrap());
    e.overhead_gpu_bytes = Some(GIB / 2);
    e.total_gpu_bytes = 16 * GIB;
    let mut app = app_with(snap.clone(), t0);
    let (s, _) = render(&mut app, 240, 70, t0);
    assert!(
        line_with(&s, "measured      20 GiB").contains("4 GiB more"),
        "{s}"
    );
    // The compute figure's word comes from the estimate's own flag, the word
    // `explain` uses for the same estimate (it said "approximate" here, "exact" there).
    assert!(line_with(&s, "compute ").contains("(approximate)"), "{s}");
    let p = snap.processes.iter_mut().find(|p| p.pid == 4242).unwrap();
    std::sync::Arc::make_mut(p.estimate.as_mut().unwrap()).compute_exact = true;
    let mut app = app_with(snap, t0);
    let (s, _) = render(&mut app, 240, 70, t0);
    assert!(line_with(&s, "compute ").contains("(exact)"), "{s}");
}

#[test]
fn layout_240x70_shows_three_bottom_panes_and_evidence() {
    let t0 = Instant::now();
    let mut app = app_with(snapshot(40 * GIB, 9 * GIB), t0);
    // A few rounds of history.
    for i in 1..5 {
        app.apply(
            update(snapshot((40 + i) * GIB, 9 * GIB)),
            t0 + Duration::from_secs(i),
        );
    }
    let (s, _) = render(&mut app, 240, 70, t0 + Duration::from_secs(4));
    // Two cards side by side on one row.
    let cards = line_with(&s, "GPU0 NVIDIA H200");
    assert!(cards.contains("GPU1 NVIDIA GeForce RTX 4090"), "{cards}");
    assert!(s.contains("last 10 min"), "{s}");
    assert!(
        s.contains("100%") && s.contains("140 GiB"),
        "both axes labelled:\n{s}"
    );
    // Evidence of the selected process (4242): conclusion, items with their source, what is missing.
    assert!(s.contains("Workload · evidence"), "{s}");
    assert!(
        s.contains("llama.cpp · qwen3-8b-q4_k_m  confidence high"),
        "{s}"
    );
    assert!(
        s.contains("• executable: llama-server [/proc/4242/exe]"),
        "{s}"
    );
    assert!(s.contains("missing: GGUF header: file not readable"), "{s}");
    // The two ledgers are separate panes on the same line.
    let l = line_with(&s, "Measured");
    assert!(l.contains("ESTIMATE (calculated, not measured)"), "{l}");
    for line in s.lines() {
        assert_eq!(line.chars().count(), 240);
    }
}

#[test]
fn sorting_by_columns_keeps_unknown_last() {
    let t0 = Instant::now();
    let mut app = app_with(snapshot(40 * GIB, 9 * GIB), t0);
    // Memory, largest first; 6001's unknown memory last, not as 0 at the bottom by accident.
    assert_eq!(pids(&app), [4242, 5151, 4242, 6002, 1200, 6001]);
    app.set_sort(Column::Memory); // same column: reverse
    assert!(!app.table.descending);
    assert_eq!(pids(&app), [1200, 6002, 4242, 5151, 4242, 6001]);
    app.set_sort(Column::Pid);
    assert_eq!(pids(&app), [1200, 4242, 4242, 5151, 6001, 6002]);
    app.set_sort(Column::Name);
    assert_eq!(
        app.process(&app.table.rows[0]).display_name(),
        "llama-server"
    );
    // Keys: `s` moves to the next column (Name → Workload), `r` reverses.
    app.handle_key(key('s'), t0);
    assert_eq!(app.table.sort, Column::Workload);
    app.set_sort(Column::Cpu);
    assert!(app.table.descending);
    // Only 4242 has a CPU figure: it is first, the unknowns follow.
    assert_eq!(pids(&app)[..2], [4242, 4242]);
    let (s, _) = render(&mut app, 120, 40, t0);
    assert!(line_with(&s, "WORKLOAD").contains("CPU%▼"));
}

#[test]
fn header_click_sorts() {
    let t0 = Instant::now();
    let mut app = app_with(snapshot(40 * GIB, 9 * GIB), t0);
    render(&mut app, 120, 40, t0);
    let (y, x) = {
        let g = &app.geometry;
        let cell = g.header_cells.iter().find(|c| c.2 == Column::Pid).unwrap();
        (g.header_y.unwrap(), cell.0 + 1)
    };
    app.handle_mouse(MouseEvent {
        kind: MouseEventKind::Down(MouseButton::Left),
        column: x,
        row: y,
        modifiers: KeyModifiers::NONE,
    });
    assert_eq!(app.table.sort, Column::Pid);
    assert_eq!(pids(&app)[0], 1200);
}

#[test]
fn filter_by_typing() {
    let t0 = Instant::now();
    let mut app = app_with(snapshot(40 * GIB, 9 * GIB), t0);
    app.handle_key(key('/'), t0);
    for c in "OLLAMA".chars() {
        app.handle_key(key(c), t0);
    }
    assert_eq!(pids(&app), [6002, 6001]);
    let (s, _) = render(&mut app, 120, 40, t0);
    assert!(line_with(&s, "Enter keep").contains("filter: OLLAMA"));
    app.handle_key(code(KeyCode::Enter), t0);
    assert!(!app.table.filter_editing);
    assert_eq!(app.table.filter, "OLLAMA");
    // Filter by user, then by device name.
    app.handle_key(key('/'), t0);
    for _ in 0..6 {
        app.handle_key(code(KeyCode::Backspace), t0);
    }
    for c in "4090".chars() {
        app.handle_key(key(c), t0);
    }
    assert_eq!(pids(&app), [4242, 1200]);
    app.handle_key(code(KeyCode::Esc), t0);
    assert!(app.table.filter.is_empty());
    assert_eq!(app.table.rows.len(), 6);
    // Nothing matches: the table says so.
    app.handle_key(key('/'), t0);
    app.handle_key(key('z'), t0);
    let (s, _) = render(&mut app, 80, 24, t0);
    assert!(s.contains("no process matches the filter \"z\""), "{s}");
}

#[test]
fn unknown_values_are_na_with_reason_never_zero() {
    let t0 = Instant::now();
    let mut app = app_with(snapshot(40 * GIB, 9 * GIB), t0);
    let (s, _) = render(&mut app, 120, 40, t0);
    let ollama = line_with(&s, " ollama ");
    assert!(ollama.contains("n/a"), "{ollama}");
    assert!(
        !ollama.contains(" 0 B") && !ollama.contains("0%"),
        "{ollama}"
    );
    // 5151: CPU % unknown (first round) but RSS known.
    let py = line_with(&s, "python3");
    assert!(py.contains("n/a") && py.contains(" 1 GiB"), "{py}");
    // Select 6001 and open the details: the reasons are there.
    let i = app
        .table
        .rows
        .iter()
        .position(|r| app.process(r).pid == 6001)
        .unwrap();
    for _ in 0..i {
        app.handle_key(key('j'), t0);
    }
    app.handle_key(code(KeyCode::Enter), t0);
    assert_eq!(app.overlay, Overlay::Details(0));
    let (s, _) = render(&mut app, 120, 40, t0);
    assert!(
        s.contains("n/a GPU memory: NVML returned NOT_AVAILABLE"),
        "{s}"
    );
    assert!(s.contains("n/a SM%: no utilisation samples"), "{s}");
    app.handle_key(code(KeyCode::Esc), t0);
    assert_eq!(app.overlay, Overlay::None);
}

#[test]
fn over_attribution_normalises_bars_and_says_labels_are_raw() {
    let t0 = Instant::now();
    // Used 20 GiB but processes claim 16 + 9 + 2 = 27 GiB on GPU0.
    let mut app = app_with(snapshot(20 * GIB, 9 * GIB), t0);
    let (s, _) = render(&mut app, 120, 40, t0);
    let note = line_with(&s, "GPU0: processes sum to 7 GiB over device used");
    assert!(note.contains("normalised"), "{note}");
    let (wide, _) = render(&mut app, 240, 70, t0);
    assert!(wide.contains("bars normalised, labels are raw"), "{wide}");
    assert!(line_with(&s, "processes 27 GiB").contains("over-attributed"));
    // The label stays raw (16 GiB), the bar is 16/27 of 10 cells = 5.93: 5 full cells and 7/8
    // (at a width where the bar has its 10 cells).
    let (s, _) = render(&mut app, 140, 40, t0);
    let llama = line_with(&s, "llama-server");
    assert!(llama.contains(" 16 GiB"));
    assert!(llama.contains("█████▉░░░░"), "{llama}");
    // A balanced snapshot has no such note, and the bar is a share of the total (16/140 of 10).
    let mut ok = app_with(snapshot(40 * GIB, 9 * GIB), t0);
    let (s, _) = render(&mut ok, 140, 40, t0);
    assert!(!s.contains("labels are raw"));
    assert!(line_with(&s, "llama-server").contains("█▏░░░░░░░░"));
}

#[test]
fn selection_follows_the_process_when_the_order_moves() {
    let t0 = Instant::now();
    let mut app = app_with(snapshot(40 * GIB, 9 * GIB), t0);
    app.handle_key(key('j'), t0); // 5151, second row
    assert_eq!(app.process(app.selected_row().unwrap()).pid, 5151);
    assert_eq!(app.table.selected, 1);
    // 5151 grows to 30 GiB: it moves to the top, the selection goes with it.
    app.apply(
        update(snapshot(60 * GIB, 30 * GIB)),
        t0 + Duration::from_secs(1),
    );
    assert_eq!(app.table.selected, 0);
    assert_eq!(app.process(app.selected_row().unwrap()).pid, 5151);
    let (s, _) = render(&mut app, 120, 40, t0 + Duration::from_secs(1));
    assert!(s.contains("PID 5151"));
    // The selected process vanishes: the selection stays in place rather than jumping away.
    let mut gone = snapshot(60 * GIB, 30 * GIB);
    gone.processes.retain(|p| p.pid != 5151);
    balance(&mut gone);
    app.apply(update(gone), t0 + Duration::from_secs(2));
    assert_eq!(app.table.selected, 0);
    assert_eq!(app.table.rows.len(), 5);
}

#[test]
fn tree_view_puts_children_under_parents() {
    let t0 = Instant::now();
    let mut app = app_with(snapshot(40 * GIB, 9 * GIB), t0);
    app.handle_key(key('t'), t0);
    // Roots by memory, 6002 (child of 6001) right after 6001, even though it has more memory.
    assert_eq!(pids(&app), [4242, 4242, 5151, 1200, 6001, 6002]);
    assert_eq!(app.table.rows[5].depth, 1);
    let (s, _) = render(&mut app, 120, 40, t0);
    assert!(line_with(&s, "6002").contains("└─ollama_runner"), "{s}");
    assert!(s.contains(" tree "));
}

#[test]
fn help_overlay_and_interval_keys() {
    let t0 = Instant::now();
    let mut app = app_with(snapshot(40 * GIB, 9 * GIB), t0);
    app.handle_key(key('?'), t0);
    let (s, _) = render(&mut app, 80, 24, t0);
    assert!(s.contains("Help"), "{s}");
    // The whole help fits 80×24, unwrapped: every entry and the closing note.
    for (_, what) in gpuledger_tui::ui::HELP {
        let what = gpuledger_lang::Lang::En.t(what);
        assert!(s.contains(&what), "{what:?} missing:\n{s}");
    }
    assert!(s.contains("n/a = unknown, never 0"), "{s}");
    // q closes the help, it does not quit.
    assert_eq!(app.handle_key(key('q'), t0), vec![]);
    assert_eq!(app.overlay, Overlay::None);
    app.handle_key(code(KeyCode::F(1)), t0);
    assert_eq!(app.overlay, Overlay::Help);
    app.handle_key(code(KeyCode::Esc), t0);
    // Interval steps, 100 ms floor.
    assert_eq!(
        app.handle_key(key('+'), t0),
        vec![Effect::SetInterval(Duration::from_secs(2))]
    );
    for _ in 0..3 {
        app.handle_key(key('-'), t0);
    }
    assert_eq!(app.interval, Duration::from_millis(200));
    assert_eq!(
        app.handle_key(key('-'), t0),
        vec![Effect::SetInterval(Duration::from_millis(100))]
    );
    assert_eq!(app.handle_key(key('-'), t0), vec![]);
    assert_eq!(app.interval, Duration::from_millis(100));
    assert!(app
        .message
        .as_deref()
        .unwrap()
        .contains("100 ms is the shortest"));
    // Quit keys.
    assert_eq!(
        app.handle_key(KeyEvent::new(KeyCode::Char('c'), KeyModifiers::CONTROL), t0),
        vec![Effect::Quit]
    );
    app.message = None;
    assert_eq!(app.handle_key(code(KeyCode::Esc), t0), vec![Effect::Quit]);
    assert_eq!(app.handle_key(key('q'), t0), vec![Effect::Quit]);
}

#[test]
fn kill_of_a_compositor_needs_two_confirmations_and_default_build_says_unavailable() {
    let t0 = Instant::now();
    let mut app = app_with(snapshot(40 * GIB, 9 * GIB), t0);
    let i = app
        .table
        .rows
        .iter()
        .position(|r| app.process(r).pid == 1200)
        .unwrap();
    for _ in 0..i {
        app.handle_key(code(KeyCode::Down), t0);
    }
    app.handle_key(key('T'), t0);
    let (s, _) = render(&mut app, 80, 24, t0);
    assert!(s.contains("Terminate PID 1200 (Xorg)?"), "{s}");
    assert!(s.contains("It holds 512 MiB on GPU1."), "{s}");
    app.handle_key(key('y'), t0);
    let (s, _) = render(&mut app, 80, 24, t0);
    assert!(s.contains("SECOND CONFIRMATION"), "{s}");
    assert!(s.contains("graphical session"), "{s}");
    app.handle_key(key('y'), t0);
    assert_eq!(app.overlay, Overlay::None);
    let (s, _) = render(&mut app, 120, 40, t0);
    assert!(
        s.contains("cannot terminate PID 1200: kill is not available in this build"),
        "{s}"
    );
    // Anything but y at the second question cancels.
    app.handle_key(key('K'), t0);
    app.handle_key(key('y'), t0);
    app.handle_key(key('n'), t0);
    assert_eq!(
        app.message.as_deref(),
        Some("cancelled: PID 1200 (Xorg) left running")
    );
}

type Calls = Rc<RefCell<Vec<(u32, Option<u64>, bool)>>>;
struct Recorder(Calls);
impl Terminator for Recorder {
    fn terminate(&self, pid: u32, start_time: Option<u64>, force: bool) -> Termination {
        self.0.borrow_mut().push((pid, start_time, force));
        Termination::Requested
    }
}

#[test]
fn kill_result_is_what_the_next_snapshot_shows() {
    let t0 = Instant::now();
    let calls = Rc::new(RefCell::new(Vec::new()));
    let mut app = App::new(ThemeKind::Dark, Duration::from_secs(1), t0)
        .with_terminator(Box::new(Recorder(calls.clone())));
    app.apply(update(snapshot(40 * GIB, 9 * GIB)), t0);
    // 4242 is not session-critical: one confirmation. Its memory on both GPUs is named.
    app.handle_key(key('K'), t0);
    match &app.overlay {
        Overlay::Confirm(c) => {
            assert_eq!(c.memory, "16 GiB on GPU0, 4 GiB on GPU1");
            // What tells it from other processes of the same name: owner and command line.
            assert!(
                c.detail.starts_with("user alice")
                    && c.detail.contains("command: /usr/bin/llama-server --serve"),
                "{}",
                c.detail
            );
        }
        o => panic!("{o:?}"),
    }
    let (s, _) = render(&mut app, 120, 40, t0);
    assert!(s.contains("command: /usr/bin/llama-server --serve"), "{s}");
    app.handle_key(key('y'), t0);
    assert_eq!(*calls.borrow(), [(4242, Some(42420), true)]);
    assert!(app
        .message
        .as_deref()
        .unwrap()
        .contains("waiting to see it gone"));
    // Still listed in the next round: not reported as killed.
    app.apply(
        update(snapshot(40 * GIB, 9 * GIB)),
        t0 + Duration::from_secs(1),
    );
    assert!(app.message.as_deref().unwrap().contains("waiting"));
    let mut gone = snapshot(24 * GIB, 9 * GIB);
    gone.processes.retain(|p| p.pid != 4242);
    gone.taken_at = "2026-11-29T08:00:02Z".into();
    balance(&mut gone);
    app.apply(update(gone), t0 + Duration::from_secs(2));
    assert_eq!(
        app.message.as_deref(),
        Some("PID 4242 (llama-server) is gone: no longer listed at 2026-11-29T08:00:02Z after the kill request")
    );
    // A process that survives is reported as such after the verification window.
    app.handle_key(key('g'), t0);
    let pid = app.process(app.selected_row().unwrap()).pid;
    app.handle_key(key('T'), t0);
    app.handle_key(key('y'), t0);
    app.apply(
        update(snapshot(40 * GIB, 9 * GIB)),
        t0 + Duration::from_secs(12),
    );
    assert!(
        app.message
            .as_deref()
            .unwrap()
            .contains(&format!("PID {pid} (")),
        "{:?}",
        app.message
    );
    assert!(app
        .message
        .as_deref()
        .unwrap()
        .contains("still running 10 s after the terminate request"));
}

/// A killed process that left /proc while the driver still lists its PID has exited, but is not
/// "gone": its memory is still held. Said so, then given up on after the verification window.
#[test]
fn kill_of_a_process_the_driver_still_lists_is_not_reported_gone() {
    let t0 = Instant::now();
    let calls = Rc::new(RefCell::new(Vec::new()));
    let mut app = App::new(ThemeKind::Dark, Duration::from_secs(1), t0)
        .with_terminator(Box::new(Recorder(calls.clone())));
    app.apply(update(snapshot(40 * GIB, 9 * GIB)), t0);
    app.handle_key(key('K'), t0);
    app.handle_key(key('y'), t0);
    assert_eq!(*calls.borrow(), [(4242, Some(42420), true)]);
    let exited = || {
        let mut s = snapshot(40 * GIB, 9 * GIB);
        for p in s.processes.iter_mut().filter(|p| p.pid == 4242) {
            p.start_time = None;
            p.metadata_unavailable = Some("exited mid-round".into());
        }
        s
    };
    app.apply(update(exited()), t0 + Duration::from_secs(1));
    let m = app.message.clone().unwrap();
    assert!(
        m.contains("PID 4242 (llama-server) has exited (exited mid-round); waiting for the driver")
            && !m.contains("gone"),
        "{m}"
    );
    app.apply(update(exited()), t0 + Duration::from_secs(11));
    let m = app.message.clone().unwrap();
    assert!(
        m.contains(
            "has exited, but the driver still lists it with GPU memory 10 s after the kill request"
        ),
        "{m}"
    );
}

/// A process this machine cannot see into is not called "not an AI runtime": what it runs is
/// unknown, and the pane says why.
#[test]
fn unseen_process_is_unknown_not_declared_non_ai() {
    let t0 = Instant::now();
    let mut snap = snapshot(40 * GIB, 9 * GIB);
    for p in snap.processes.iter_mut().filter(|p| p.pid == 4242) {
        p.workload = None;
        p.estimate = None;
        p.no_estimate = None;
        p.metadata_unavailable = Some("not visible in /proc (another PID namespace)".into());
    }
    let mut app = app_with(snap, t0);
    let (s, _) = render(&mut app, 160, 48, t0);
    assert!(s.contains("PID 4242"), "{s}");
    assert!(
        s.contains("no estimate: what this process runs is unknown (not visible in /proc"),
        "{s}"
    );
    assert!(!s.contains("not an AI runtime"), "{s}");
}

#[test]
fn stale_data_is_marked_with_its_age_not_zeroed() {
    let t0 = Instant::now();
    let mut app = app_with(snapshot(40 * GIB, 9 * GIB), t0);
    let (s, _) = render(&mut app, 120, 40, t0 + Duration::from_secs(1));
    assert!(!s.contains("STALE"));
    let (s, _) = render(&mut app, 120, 40, t0 + Duration::from_secs(12));
    assert!(line_with(&s, "gpuledger").contains("STALE 12 s"), "{s}");
    assert!(s.contains("no new round for 12 s: a source is not answering; the values shown are from 2026-11-29T08:00:00Z"));
    // The last values are still shown.
    assert!(line_with(&s, "llama-server").contains(" 16 GiB"));
}

#[test]
fn replay_is_marked_and_refuses_actions() {
    let t0 = Instant::now();
    let mut app = App::new(ThemeKind::Dark, Duration::from_secs(1), t0).replay(
        snapshot(40 * GIB, 9 * GIB),
        "box.json".into(),
        t0,
    );
    let (s, _) = render(&mut app, 80, 24, t0 + Duration::from_secs(100));
    assert!(
        line_with(&s, "gpuledger").contains("REPLAY box.json"),
        "{s}"
    );
    assert!(!s.contains("STALE"), "a replay is never stale");
    app.handle_key(key('T'), t0);
    assert_eq!(app.overlay, Overlay::None);
    assert!(app
        .message
        .as_deref()
        .unwrap()
        .contains("nothing to terminate"));
}

/// A 30-sample recording replayed in the view drew "one moment, no history".
#[test]
fn a_replayed_recording_draws_its_history() {
    let t0 = Instant::now();
    let at = |k: u64| {
        let mut s = snapshot((40 + k) * GIB, 9 * GIB);
        s.taken_at = format!("2026-11-29T08:00:{k:02}Z");
        s
    };
    let earlier: Vec<Snapshot> = (0..29).map(at).collect();
    let mut app = App::new(ThemeKind::Dark, Duration::from_secs(1), t0).replay_recording(
        earlier,
        at(29),
        "rec.db at 2026-11-29T08:00:29Z".into(),
        t0,
    );
    assert_eq!(app.history.devices[G0].points.len(), 30);
    let (s, _) = render(&mut app, 120, 40, t0 + Duration::from_secs(5));
    assert!(!s.contains("no history"), "{s}");
    assert!(s.contains("History GPU0 as recorded"), "{s}");
    assert!(
        s.contains("08:00:29"),
        "the right end is the moment shown: {s}"
    );
    // A snapshot file is still one moment, and says so.
    let mut one =
        App::new(ThemeKind::Dark, Duration::from_secs(1), t0).replay(at(0), "box.json".into(), t0);
    let (s, _) = render(&mut one, 120, 40, t0);
    assert!(s.contains("GPU0: one snapshot, no history"), "{s}");
}

/// `e` is the environment as in nvitop (export moved to `x`); `h` stays the
/// sideways scroll (h/l beside j/k), and the footer and help say so, with help on `?`.
#[test]
fn e_shows_the_environment_as_in_nvitop_and_h_scrolling_is_said() {
    let t0 = Instant::now();
    let mut app = app_with(snapshot(40 * GIB, 9 * GIB), t0);
    app.handle_key(key('e'), t0);
    assert!(matches!(app.overlay, Overlay::Env(_)), "{:?}", app.overlay);
    app.handle_key(code(KeyCode::Esc), t0);
    app.handle_key(key('x'), t0);
    assert!(
        matches!(app.overlay, Overlay::Export(_)),
        "{:?}",
        app.overlay
    );
    app.handle_key(code(KeyCode::Esc), t0);
    app.handle_key(code(KeyCode::Esc), t0);
    let (s, _) = render(&mut app, 160, 40, t0);
    let footer = line_with(&s, "q quit");
    for k in ["? help", "e env", "h/l scroll", "x export"] {
        assert!(footer.contains(k), "{footer}");
    }
    app.handle_key(key('?'), t0);
    let (help, _) = render(&mut app, 80, 30, t0);
    assert!(help.contains("values), nvitop's e"), "{help}");
    assert!(help.contains("help is ? or F1, not nvitop's h"), "{help}");
}

/// At 100×30 a short table left 14–18 blank rows (the bottom panes are hidden
/// below 32 rows). The rows a short table leaves go to the panes; a long table keeps them all.
#[test]
fn a_short_table_at_100x30_leaves_its_rows_to_the_panes_not_blank() {
    let t0 = Instant::now();
    let mut app = app_with(snapshot(40 * GIB, 9 * GIB), t0);
    let (s, _) = render(&mut app, 100, 30, t0);
    let blank = s.lines().filter(|l| l.trim().is_empty()).count();
    assert!(blank <= 2, "{blank} blank rows:\n{s}");
    assert!(s.contains("History GPU0") && s.contains("Measured"), "{s}");
    for pid in ["4242", "5151", "6001", "6002", "1200"] {
        assert!(line_with(&s, pid).contains(pid), "{pid}:\n{s}");
    }
    // 40 rows: the table takes the screen, nothing is hidden for the panes' sake.
    let mut many = snapshot(40 * GIB, 9 * GIB);
    for i in 0..35 {
        many.processes.push(proc(
            7000 + i,
            "python3",
            "bob",
            1,
            vec![usage(G1, Some(GIB / 10), Some(1), &[UsageKind::Compute])],
        ));
    }
    let mut app = app_with(many, t0);
    let (s, _) = render(&mut app, 100, 30, t0);
    assert!(!s.contains("Measured"), "{s}");
    assert!(s.contains("hidden"), "{s}");
}

/// At 60–70 columns the one-line cards kept the temperature and dropped the
/// unattributed memory. Unattributed is the product's point: kept longer than temperature.
#[test]
fn narrow_cards_keep_unattributed_memory_longer_than_temperature() {
    let t0 = Instant::now();
    let mut app = app_with(snapshot(40 * GIB, 9 * GIB), t0);
    for w in 56..=100u16 {
        let (s, _) = render(&mut app, w, 24, t0);
        let card = line_with(&s, "GPU0 H200");
        if card.contains("54°C") {
            assert!(card.contains("unattr"), "{w} columns: {card}");
        }
        if (60..=70).contains(&w) {
            assert!(card.contains("unattr 13 GiB"), "{w} columns: {card}");
        }
    }
}

/// A process at 0 % SM was drawn as a row of half blocks along the axis, a bar
/// that read as load. SM % is a line like the device's GPU %.
#[test]
fn a_zero_percent_series_is_not_drawn_as_a_bar() {
    let t0 = Instant::now();
    let idle = || {
        let mut s = snapshot(40 * GIB, 9 * GIB);
        s.processes[0].usage[0].engines.sm_percent = Some(0);
        s
    };
    let mut app = app_with(idle(), t0);
    for i in 1..30 {
        app.apply(update(idle()), t0 + Duration::from_secs(i));
    }
    let (s, _) = render(&mut app, 120, 40, t0 + Duration::from_secs(29));
    // The chart's rows: the left half, from its title to its bottom border.
    let chart: Vec<String> = s
        .lines()
        .skip_while(|l| !l.contains("History GPU0"))
        .map(|l| l.chars().take(60).collect::<String>())
        .take_while(|l| !l.starts_with('└'))
        .collect();
    assert!(chart.len() > 8, "{s}");
    // The plot's rows (the legend names the series with its glyph).
    for left in chart.iter().filter(|l| !l.contains("SM%")) {
        assert!(!left.contains('▄') && !left.contains('█'), "{left}\n{s}");
    }
}

/// The table writes a figure as every other view does (issue 37: `8.4 GiB` here, `8.38 GiB` in
/// `snapshot`): the views' one byte formatting, right-aligned so the units line up.
#[test]
fn byte_columns_write_the_figures_as_the_other_views_do() {
    let t0 = Instant::now();
    let python = 8 * GIB + 410 * (1 << 20);
    let mut app = app_with(snapshot(40 * GIB, python), t0);
    let (s, _) = render(&mut app, 120, 40, t0);
    let same = gpuledger_model::units::human_bytes(python);
    assert_eq!(same, "8.40 GiB");
    let mut ends = Vec::new();
    for (pid, label) in [("4242", " 16 GiB"), ("5151", " 8.40 GiB")] {
        let line = line_with(&s, &format!(" {pid} "));
        let at = line
            .find(label)
            .unwrap_or_else(|| panic!("{pid}: no {label:?} in {line}"));
        ends.push(line[..at + label.len()].chars().count());
    }
    ends.dedup();
    assert_eq!(ends.len(), 1, "units aligned: {ends:?}\n{s}");
}

#[test]
fn csv_export_writes_the_rows_as_shown() {
    let t0 = Instant::now();
    let dir = tempfile::tempdir().unwrap();
    let mut app = app_with(snapshot(40 * GIB, 9 * GIB), t0);
    app.export_dir = dir.path().to_path_buf();
    app.handle_key(key('/'), t0);
    for c in "ollama".chars() {
        app.handle_key(key(c), t0);
    }
    app.handle_key(code(KeyCode::Enter), t0);
    app.handle_key(key('x'), t0);
    let Overlay::Export(path) = app.overlay.clone() else {
        panic!()
    };
    assert!(path.ends_with("gpuledger-20261129T080000Z.csv"), "{path}");
    let (s, _) = render(&mut app, 120, 40, t0);
    assert!(s.contains("Export CSV"));
    app.handle_key(code(KeyCode::Enter), t0);
    let msg = app.message.clone().unwrap();
    assert!(
        msg.starts_with("exported 2 rows to /") && msg.ends_with("gpuledger-20261129T080000Z.csv"),
        "{msg}"
    );
    let text = std::fs::read_to_string(&path).unwrap();
    let lines: Vec<&str> = text.lines().collect();
    assert_eq!(lines.len(), 3);
    // The snapshot CSV's columns, its time first, then the view's own.
    let snapshot_header = gpuledger_views::csv::SNAPSHOT_HEADER.join(",");
    assert_eq!(
        lines[0],
        format!(
            "{snapshot_header},workload,type,sm_unavailable_reason,cpu_percent,rss_bytes,host_unavailable_reason"
        )
    );
    assert!(lines[0].starts_with("taken_at,kind,device_index,"));
    assert!(
        lines[1].starts_with(
            // ... command, owner (none), then the view's workload (none) and type.
            "2026-11-29T08:00:00Z,process,0,GPU-0000,NVIDIA H200,150323855360,42949672960,6002,60020,ollama_runner,root,2147483648,nvml,,,3,/usr/bin/ollama_runner --serve,,,C,"
        ),
        "{}",
        lines[1]
    );
    // Unknown memory: an empty cell and the reason, never 0.
    assert!(
        lines[2].contains(",6001,60010,ollama,root,,nvml,NVML returned NOT_AVAILABLE"),
        "{}",
        lines[2]
    );
    // Never overwrites.
    app.handle_key(key('x'), t0);
    app.handle_key(code(KeyCode::Enter), t0);
    assert!(
        app.message
            .as_deref()
            .unwrap()
            .starts_with("cannot export to"),
        "{:?}",
        app.message
    );
}

#[test]
fn copy_pid_emits_osc52() {
    let t0 = Instant::now();
    let mut app = app_with(snapshot(40 * GIB, 9 * GIB), t0);
    assert_eq!(
        app.handle_key(key('c'), t0),
        vec![Effect::Write("\x1b]52;c;NDI0Mg==\x07".into())]
    );
    assert!(app.message.as_deref().unwrap().contains("PID 4242"));
}

#[test]
fn monochrome_uses_no_colour() {
    let t0 = Instant::now();
    let mut app = App::new(ThemeKind::Mono, Duration::from_secs(1), t0);
    app.apply(update(snapshot(20 * GIB, 9 * GIB)), t0);
    let (_, buf) = render(&mut app, 120, 40, t0);
    use ratatui::style::Color;
    assert!(buf
        .content()
        .iter()
        .all(|c| c.fg == Color::Reset && c.bg == Color::Reset));
    // `m` toggles back to the colour theme used before (dark here, since mono was the start).
    app.handle_key(key('m'), t0);
    let (_, buf) = render(&mut app, 120, 40, t0);
    assert!(buf.content().iter().any(|c| c.fg != Color::Reset));
}

#[test]
fn many_devices_and_processes_fit_small_and_large() {
    let t0 = Instant::now();
    let mut s = snapshot(40 * GIB, 9 * GIB);
    for i in 2..8 {
        let mut d = Device::new(i, Vendor::Nvidia, format!("GPU-{i}"), "nvml");
        d.memory.total_bytes = Some(80 * GIB);
        d.memory.used_bytes = Some(GIB);
        s.devices.push(d);
    }
    balance(&mut s);
    let mut app = app_with(s, t0);
    let (small, _) = render(&mut app, 80, 24, t0);
    // 8 devices in 24 rows: 6 lines of cards, the last one summarising the 3 not shown.
    assert!(small.contains("+3 more devices"), "{small}");
    assert!(line_with(&small, "PID").contains("GPU MEM"));
    let (big, _) = render(&mut app, 240, 70, t0);
    assert!(big.contains("GPU7"), "{big}");
}

#[test]
fn a_source_that_hangs_before_the_first_round_shows_as_stale() {
    let t0 = Instant::now();
    let mut app = App::new(ThemeKind::Dark, Duration::from_secs(1), t0);
    let (s, _) = render(&mut app, 120, 40, t0 + Duration::from_secs(1));
    assert!(
        s.contains("collecting the first round") && !s.contains("STALE"),
        "{s}"
    );
    let (s, _) = render(&mut app, 120, 40, t0 + Duration::from_secs(7));
    assert!(s.contains("STALE 7 s"), "{s}");
    assert!(
        s.contains("no new round for 7 s: a source is not answering; nothing collected yet"),
        "{s}"
    );
}

#[test]
fn clicking_a_row_selects_it_and_theme_and_window_keys_cycle() {
    let t0 = Instant::now();
    let mut app = app_with(snapshot(40 * GIB, 9 * GIB), t0);
    render(&mut app, 120, 40, t0);
    let y = app.geometry.body_y + 4;
    app.handle_mouse(MouseEvent {
        kind: MouseEventKind::Down(MouseButton::Left),
        column: 10,
        row: y,
        modifiers: KeyModifiers::NONE,
    });
    assert_eq!(app.table.selected, 4);
    assert_eq!(app.process(app.selected_row().unwrap()).pid, 1200);
    app.handle_mouse(MouseEvent {
        kind: MouseEventKind::ScrollUp,
        column: 10,
        row: y,
        modifiers: KeyModifiers::NONE,
    });
    assert_eq!(app.process(app.selected_row().unwrap()).pid, 6002);
    // Themes: dark → light → mono → dark.
    app.handle_key(key('C'), t0);
    assert_eq!(app.theme.kind, ThemeKind::Light);
    app.handle_key(key('C'), t0);
    assert_eq!(app.theme.kind, ThemeKind::Mono);
    app.handle_key(key('C'), t0);
    assert_eq!(app.theme.kind, ThemeKind::Dark);
    // History window: 10 → 1 → 5 minutes, shown in the chart title once there is history.
    app.handle_key(key('w'), t0);
    assert_eq!(app.chart_minutes, 1);
    app.apply(
        update(snapshot(41 * GIB, 9 * GIB)),
        t0 + Duration::from_secs(1),
    );
    let (s, _) = render(&mut app, 240, 70, t0 + Duration::from_secs(1));
    assert!(s.contains("last 1 min"), "{s}");
}

#[test]
fn active_alerts_are_shown_while_they_hold() {
    let t0 = Instant::now();
    // A stand-in for the CLI's tracker: fires while GPU0 uses more than 30 GiB.
    let hook = Box::new(|s: &Snapshot| {
        s.devices
            .iter()
            .filter(|d| d.memory.used_bytes.unwrap_or(0) > 30 * GIB)
            .map(|d| format!("device.memory.used > 30GiB — GPU{}", d.index))
            .collect::<Vec<String>>()
    });
    let mut app = App::new(ThemeKind::Dark, Duration::from_secs(1), t0).with_alerts(hook);
    app.apply(update(snapshot(40 * GIB, 9 * GIB)), t0);
    let (s, _) = render(&mut app, 120, 40, t0);
    assert!(s.contains("ALERT device.memory.used > 30GiB — GPU0"), "{s}");
    let t1 = t0 + Duration::from_secs(1);
    app.apply(update(snapshot(20 * GIB, 9 * GIB)), t1);
    let (s, _) = render(&mut app, 120, 40, t1);
    assert!(!s.contains("ALERT"), "resolved alerts disappear:\n{s}");
}

#[test]
fn open_folder_names_the_process_or_says_why_not() {
    let t0 = Instant::now();
    let mut snap = snapshot(40 * GIB, 9 * GIB);
    for p in &mut snap.processes {
        p.exe = (p.pid == 4242).then(|| "/opt/llama/bin/llama-server".to_string());
    }
    let mut app = app_with(snap, t0);
    // The first row is llama-server (most memory): its folder goes to the file manager.
    let fx = app.handle_key(key('o'), t0);
    assert_eq!(
        fx,
        vec![gpuledger_tui::app::Effect::OpenFolder(
            "/opt/llama/bin".into()
        )]
    );
    assert!(app
        .message
        .as_deref()
        .unwrap()
        .contains("folder of llama-server pid 4242"));
    // python3's executable is unknown: nothing is opened, and the message says so.
    app.handle_key(code(KeyCode::Down), t0);
    let fx = app.handle_key(key('o'), t0);
    assert!(fx.is_empty());
    assert!(
        app.message.as_deref().unwrap().contains("path is unknown"),
        "{:?}",
        app.message
    );
}

/// Whatever the width, the top process's row says who (NAME), what (WORKLOAD, uncut)
/// and how much (GPU memory, GPU %): those columns are placed before SOURCE, COMMAND and RSS.
#[test]
fn every_width_from_80_to_240_shows_name_workload_memory_and_gpu_percent() {
    let t0 = Instant::now();
    let mut app = app_with(snapshot(40 * GIB, 9 * GIB), t0);
    for w in (80..=240).step_by(10) {
        for h in [24, 40, 60] {
            let (s, _) = render(&mut app, w, h, t0);
            let row = s
                .lines()
                .find(|l| l.contains(" 4242 ") && l.contains(" 16 GiB"))
                .unwrap_or_else(|| panic!("{w}x{h}: no row for 4242 on GPU0:\n{s}"));
            for want in ["llama-server", "llama.cpp · qwen3-8b-q4_k_m", "85%"] {
                assert!(row.contains(want), "{w}x{h}: {want:?} missing in {row:?}");
            }
            let header = line_with(&s, "PID");
            assert!(
                header.contains("NAME") && header.contains("WORKLOAD"),
                "{w}x{h}: {header}"
            );
            // One source for every row: named once in the header, not on each row.
            assert!(!row.contains("nvml"), "{w}x{h}: {row}");
        }
    }
    // The spare width of a wide terminal goes to COMMAND and RSS, after the essentials.
    let (s, _) = render(&mut app, 160, 40, t0);
    let header = line_with(&s, "PID");
    assert!(
        header.contains("RSS") && header.contains("COMMAND") && header.contains("[nvml]"),
        "{header}"
    );
}

#[test]
fn sources_that_differ_are_shown_per_row() {
    let t0 = Instant::now();
    let mut s = snapshot(40 * GIB, 9 * GIB);
    s.processes[4].usage[0].memory_source = "fdinfo".into();
    let mut app = app_with(s, t0);
    let (s, _) = render(&mut app, 120, 40, t0);
    assert!(line_with(&s, " 1200 ").contains("fdinfo"), "{s}");
    assert!(line_with(&s, " 5151 ").contains("nvml"), "{s}");
    assert!(!line_with(&s, "PID").contains("[nvml]"));
}

/// CJK names take two cells a character: columns after them must still line up.
#[test]
fn wide_characters_are_measured_in_cells() {
    let t0 = Instant::now();
    let mut s = snapshot(40 * GIB, 9 * GIB);
    s.processes[1].name = Some("推理服务器推理服务器推理服务器".into());
    s.processes[0].name = Some("llama-server".into());
    let mut app = app_with(s, t0);
    for w in [80, 120, 200] {
        let (_, buf) = render(&mut app, w, 40, t0);
        // The column where SM% ends on the header line equals where it ends on each row.
        let row_text = |y: u16| -> String {
            (0..w)
                .map(|x| buf[(x, y)].symbol().to_string())
                .collect::<Vec<_>>()
                .join("|")
        };
        let header_y = (0..40)
            .find(|&y| row_text(y).contains("P|I|D"))
            .expect("header");
        let cells: Vec<String> = (0..w).map(|x| buf[(x, header_y)].symbol().into()).collect();
        let joined = cells.concat();
        let pct = joined.find("SM%").expect("SM% header");
        // Column index of the header's "%" (cells before it are one symbol each on this line).
        let x_pct = joined[..pct].chars().count() as u16 + 2;
        for y in header_y + 1..header_y + 5 {
            let sym = buf[(x_pct, y)].symbol();
            assert!(
                sym == "%" || sym == "a",
                "{w}: row {y} does not end SM% at x={x_pct}: {:?}",
                row_text(y)
            );
        }
    }
}

/// The chart names its series in every state: with the selection (nearly always), without one,
/// at the narrowest size that has a chart and the widest.
#[test]
fn chart_has_a_legend_in_every_state_and_a_scale_that_fits_the_data() {
    let t0 = Instant::now();
    let mut app = app_with(snapshot(40 * GIB, 9 * GIB), t0);
    app.apply(
        update(snapshot(40 * GIB, 9 * GIB)),
        t0 + Duration::from_secs(1),
    );
    for (w, h) in [(100, 36), (120, 40), (200, 60), (240, 70)] {
        let (s, _) = render(&mut app, w, h, t0 + Duration::from_secs(1));
        for want in [
            "━ GPU0 memory",
            "━ GPU0 % (right)",
            "• 4242 llama-server memory",
        ] {
            assert!(s.contains(want), "{w}x{h}: legend lacks {want:?}:\n{s}");
        }
        assert!(s.contains("━ 4242 SM%"), "{w}x{h}:\n{s}");
        // 40 GiB used of 140 GiB: the axis tops at 50 GiB and the total is named.
        assert!(
            s.contains("│50 GiB"),
            "{w}x{h}: axis not scaled to the data:\n{s}"
        );
        assert!(
            s.contains("card total 140 GiB (off scale)"),
            "{w}x{h}:\n{s}"
        );
    }
    // Nothing selected (a filter that matches nothing): the device series are still named.
    app.handle_key(key('/'), t0);
    for c in "zzz".chars() {
        app.handle_key(key(c), t0);
    }
    app.handle_key(code(KeyCode::Enter), t0);
    assert!(app.selected_row().is_none());
    let (s, _) = render(&mut app, 120, 40, t0);
    assert!(
        s.contains("━ GPU0 memory") && s.contains("━ GPU0 % (right)"),
        "{s}"
    );
    assert!(
        !s.contains("• "),
        "no process series without a selection:\n{s}"
    );
}

#[test]
fn memory_axis_is_the_data_with_headroom_or_the_card_total() {
    use gpuledger_tui::ui::{memory_axis_top, nice_ceiling};
    assert_eq!(nice_ceiling(48 * GIB), 50 * GIB);
    assert_eq!(nice_ceiling(GIB), GIB);
    assert_eq!(nice_ceiling(300 << 20), 300 << 20);
    assert_eq!(nice_ceiling(310 << 20), 400 << 20);
    // A small process on an 80 GiB card: the scale follows the data.
    assert_eq!(
        memory_axis_top(Some(5 * GIB), Some(80 * GIB)),
        (6 * GIB, false)
    );
    // Near full: the card's total is the top, and says so.
    assert_eq!(
        memory_axis_top(Some(70 * GIB), Some(80 * GIB)),
        (80 * GIB, true)
    );
    assert_eq!(memory_axis_top(None, Some(80 * GIB)), (80 * GIB, true));
    assert_eq!(memory_axis_top(None, None), (1, false));
}

/// `e` opens a prompt line that shows what is typed; Esc cancels and writes nothing.
#[test]
fn export_prompt_shows_the_text_typed_and_esc_cancels() {
    let t0 = Instant::now();
    let dir = tempfile::tempdir().unwrap();
    let mut app = app_with(snapshot(40 * GIB, 9 * GIB), t0);
    app.export_dir = dir.path().join("data").join("gpuledger");
    app.handle_key(key('x'), t0);
    for c in "-mine".chars() {
        app.handle_key(key(c), t0);
    }
    for (w, h) in [(80, 24), (120, 40)] {
        let (s, _) = render(&mut app, w, h, t0);
        let prompt = line_with(&s, "Export CSV to:");
        // The path is long: its end (what is being typed) is what shows.
        assert!(prompt.contains(".csv-mine█"), "{w}x{h}: {prompt}");
    }
    app.handle_key(code(KeyCode::Esc), t0);
    assert_eq!(app.overlay, Overlay::None);
    assert_eq!(app.message.as_deref(), Some("export cancelled"));
    assert!(
        !app.export_dir.exists(),
        "a cancelled export writes nothing"
    );
    // The filter prompt likewise.
    app.handle_key(key('/'), t0);
    app.handle_key(key('x'), t0);
    let (s, _) = render(&mut app, 80, 24, t0);
    let footer = s.lines().rev().find(|l| !l.trim().is_empty()).unwrap();
    assert!(footer.contains("filter: x█"), "{s}");
}

/// Exports go to the data directory (created when missing) and the message gives the whole path,
/// on a second footer row when it is longer than the line.
#[test]
fn export_goes_to_the_data_directory_with_the_path_shown() {
    let t0 = Instant::now();
    let dir = tempfile::tempdir().unwrap();
    let mut app = app_with(snapshot(40 * GIB, 9 * GIB), t0);
    app.export_dir = dir.path().join("share").join("gpuledger");
    app.handle_key(key('x'), t0);
    app.handle_key(code(KeyCode::Enter), t0);
    let msg = app.message.clone().unwrap();
    let file = app.export_dir.join("gpuledger-20261129T080000Z.csv");
    assert!(file.exists(), "{msg}");
    assert!(
        msg.ends_with("share/gpuledger/gpuledger-20261129T080000Z.csv"),
        "{msg}"
    );
    let (s, _) = render(&mut app, 80, 24, t0);
    let flat: String = s.lines().map(str::trim_end).collect::<Vec<_>>().join("");
    assert!(flat.contains("gpuledger-20261129T080000Z.csv"), "{s}");

    use gpuledger_tui::app::data_dir_with;
    let env = |pairs: &'static [(&'static str, &'static str)]| {
        move |k: &str| {
            pairs
                .iter()
                .find(|(n, _)| *n == k)
                .map(|(_, v)| std::ffi::OsString::from(v))
        }
    };
    if !cfg!(windows) {
        assert_eq!(
            data_dir_with(env(&[("XDG_DATA_HOME", "/x/data"), ("HOME", "/home/a")])),
            Some("/x/data/gpuledger".into())
        );
        assert_eq!(
            data_dir_with(env(&[("XDG_DATA_HOME", "rel"), ("HOME", "/home/a")])),
            Some("/home/a/.local/share/gpuledger".into())
        );
        assert_eq!(data_dir_with(env(&[])), None);
    }
}

/// A message answers one key: the next key (w, C, m, ...) takes it away, and so does time.
#[test]
fn messages_expire_on_the_next_key_and_after_a_while() {
    use gpuledger_tui::app::MESSAGE_TTL;
    let t0 = Instant::now();
    let mut app = app_with(snapshot(40 * GIB, 9 * GIB), t0);
    for k in ['w', 'C', 'm', 's', 'j'] {
        app.handle_key(key('+'), t0);
        assert!(app.message.is_some());
        app.handle_key(key(k), t0);
        assert_eq!(app.message, None, "a stale message survived {k:?}");
    }
    // Esc with a message only clears the message (it does not quit).
    app.handle_key(key('+'), t0);
    assert!(app.handle_key(code(KeyCode::Esc), t0).is_empty());
    assert_eq!(app.message, None);
    // Time: first seen at t0, kept before the TTL, gone at it.
    app.handle_key(key('+'), t0);
    assert!(!app.expire_message(t0));
    assert!(!app.expire_message(t0 + MESSAGE_TTL / 2));
    assert!(app.message.is_some());
    assert!(app.expire_message(t0 + MESSAGE_TTL));
    assert_eq!(app.message, None);
    // A new message restarts the clock even if the old one was never cleared.
    app.message = Some("one".into());
    app.expire_message(t0);
    app.message = Some("two".into());
    assert!(!app.expire_message(t0 + MESSAGE_TTL));
    assert!(app.message.is_some());
}

/// Notes are cut at a word, never mid-word; cards give memory %.
/// a source that simply found nothing (no DRM devices on an NVIDIA machine) is not on every
/// screen (it was, cut at 80 and 120 columns): `selftest` lists it.
#[test]
fn notes_are_cut_at_words_and_cards_give_memory_percent() {
    use gpuledger_tui::ui::fit_words;
    assert_eq!(fit_words("short", 10), "short");
    assert_eq!(
        fit_words(
            "drm: no DRM devices under /recorded/sys/class/drm (os error 2)",
            30
        ),
        "drm: no DRM devices under…"
    );
    assert_eq!(fit_words("abcdefghijkl", 5), "abcd…");

    let t0 = Instant::now();
    let mut snap = snapshot(40 * GIB, 9 * GIB);
    snap.sources.push(SourceStatus::new(
        "drm",
        SourceState::Unavailable,
        "no DRM devices under /sys/class/drm and no process with a DRM node open (os error 2)",
    ));
    snap.notes.push("a note from the collector".into());
    let mut app = app_with(snap.clone(), t0);
    let notes = gpuledger_tui::ui::notes(&app, t0);
    assert!(notes.iter().all(|n| !n.0.starts_with("drm:")), "{notes:?}");
    for (w, h) in [(80, 24), (100, 30), (120, 40)] {
        let (s, _) = render(&mut app, w, h, t0);
        assert!(!s.contains("drm:"), "{w}x{h}:\n{s}");
        assert!(s.contains("a note from the collector"), "{w}x{h}:\n{s}");
    }
    // With no device found at all, the same line is a warning, first.
    let mut none = snap.clone();
    none.devices.clear();
    none.processes.clear();
    let app_none = app_with(none, t0);
    let notes = gpuledger_tui::ui::notes(&app_none, t0);
    assert!(notes[0].0.starts_with("drm:") && notes[0].1, "{notes:?}");
    let (s, _) = render(&mut app, 120, 40, t0);
    assert!(
        line_with(&s, "│MEM ").contains("40 GiB / 140 GiB 29%"),
        "{s}"
    );
}

/// nvitop's TIME: how long the process had run when the snapshot was taken; n/a when unknown.
#[test]
fn run_time_column_from_the_start_time() {
    use gpuledger_tui::app::{fmt_runtime, unix_secs};
    assert_eq!(unix_secs("1970-01-01T00:00:00Z"), Some(0));
    assert_eq!(unix_secs("2026-11-29T08:00:00Z"), Some(1_795_939_200));
    assert_eq!(unix_secs("2024-02-29T12:00:00.250Z"), Some(1_709_208_000));
    // The same instant with an offset: the model's parser reads it (the view had its own that
    // took only `Z`).
    assert_eq!(unix_secs("2026-11-29T09:00:00+01:00"), Some(1_795_939_200));
    assert_eq!(unix_secs("2026-13-01T00:00:00Z"), None);
    assert_eq!(unix_secs("yesterday"), None);
    assert_eq!(fmt_runtime(59 * 60 + 7), "59:07");
    assert_eq!(fmt_runtime(10 * 3600 + 29 * 60 + 59), "10:29:59");
    assert_eq!(fmt_runtime(3 * 86_400 + 4 * 3600 + 5), "3d 04h");

    let t0 = Instant::now();
    let mut s = snapshot(40 * GIB, 9 * GIB);
    s.processes[0].started_at = Some("2026-11-29T05:30:00Z".into());
    let mut app = app_with(s, t0);
    let (screen, _) = render(&mut app, 200, 40, t0);
    assert!(line_with(&screen, " NAME ").contains("TIME"), "{screen}");
    assert!(line_with(&screen, " 4242 ").contains("2:30:00"), "{screen}");
    assert!(line_with(&screen, " 5151 ").contains("n/a"), "{screen}");
    app.set_sort(Column::Time);
    assert_eq!(pids(&app)[0], 4242, "longest running first, unknown last");
}

/// nvitop lists processes per GPU: `D` groups the rows by device, the sort holding within each.
#[test]
fn rows_group_per_gpu_on_d() {
    let t0 = Instant::now();
    let mut app = app_with(snapshot(40 * GIB, 9 * GIB), t0);
    assert_eq!(pids(&app), [4242, 5151, 4242, 6002, 1200, 6001]);
    app.handle_key(key('D'), t0);
    assert_eq!(pids(&app), [4242, 5151, 6002, 6001, 4242, 1200]);
    let (s, _) = render(&mut app, 120, 40, t0);
    assert!(s.lines().next().unwrap().contains(" per GPU "), "{s}");
    app.handle_key(key('D'), t0);
    assert_eq!(pids(&app), [4242, 5151, 4242, 6002, 1200, 6001]);
}

/// nvitop's %MEM: RSS as a share of the host's RAM, as RAM% where there is room, n/a unknown.
#[test]
fn host_memory_share_is_a_column_when_there_is_room() {
    let t0 = Instant::now();
    let mut app = app_with(snapshot(40 * GIB, 9 * GIB), t0);
    let (s, _) = render(&mut app, 200, 40, t0);
    assert!(line_with(&s, " NAME ").contains("RAM%"), "{s}");
    let row = line_with(&s, " 4242 ");
    assert!(row.contains(" 3 GiB   4.7"), "{row}");
    assert!(
        line_with(&s, "host CPU 12.5%").contains("(4.7% of RAM)"),
        "{s}"
    );
    app.set_sort(Column::HostMem);
    assert_eq!(pids(&app)[0], 4242);
}

/// No terminal size makes a frame panic, whatever is open: a sweep from 1×1 up, with the chart,
/// a long message, the export prompt and the help.
#[test]
fn no_size_panics_with_prompts_messages_and_overlays() {
    let t0 = Instant::now();
    let mut app = app_with(snapshot(40 * GIB, 9 * GIB), t0);
    app.apply(
        update(snapshot(41 * GIB, 9 * GIB)),
        t0 + Duration::from_secs(1),
    );
    let states: [&dyn Fn(&mut App); 4] = [
        &|_| {},
        &|a| a.message = Some("x".repeat(300)),
        &|a| {
            a.handle_key(key('x'), t0);
        },
        &|a| {
            a.overlay = Overlay::Help;
        },
    ];
    for set in states {
        let mut a = app_with(snapshot(40 * GIB, 9 * GIB), t0);
        set(&mut a);
        // The edges of every layout rule (compact below 100×32, bottom panes from 36 rows).
        for w in [
            1, 2, 5, 10, 20, 40, 60, 79, 80, 99, 100, 119, 120, 150, 199, 200, 240,
        ] {
            for h in [1, 2, 5, 10, 24, 31, 32, 36, 60] {
                render(&mut a, w, h, t0);
            }
        }
    }
    app.handle_key(key('D'), t0);
    app.handle_key(key('t'), t0);
    for w in [1, 20, 80, 120, 240] {
        render(&mut app, w, 40, t0 + Duration::from_secs(1));
    }
}

/// A short table leaves no block of blank rows; the panes below take them.
#[test]
fn a_short_table_gives_its_spare_rows_to_the_panes_below() {
    let t0 = Instant::now();
    let mut app = app_with(snapshot(40 * GIB, 9 * GIB), t0);
    for (w, h) in [(160, 45), (200, 60), (240, 70)] {
        let (s, _) = render(&mut app, w, h, t0);
        let lines: Vec<&str> = s.lines().collect();
        let last_row = lines.iter().rposition(|l| l.contains(" 6001 ")).unwrap();
        let pane_top = lines.iter().position(|l| l.contains("┌ History")).unwrap();
        assert!(
            pane_top <= last_row + 2,
            "{w}x{h}: {} blank rows under the table:\n{s}",
            pane_top - last_row - 1
        );
    }
}

/// What nvitop users expect: Space tags processes and one confirmation signals them
/// all, each named with what tells it apart; a tag follows its process, not the PID.
#[test]
fn tagged_processes_are_signalled_together_after_one_confirmation() {
    let t0 = Instant::now();
    let calls = Rc::new(RefCell::new(Vec::new()));
    let mut app = App::new(ThemeKind::Dark, Duration::from_secs(1), t0)
        .with_terminator(Box::new(Recorder(calls.clone())));
    app.apply(update(snapshot(40 * GIB, 9 * GIB)), t0);
    let first = app.process(app.selected_row().unwrap()).pid;
    // Space tags and moves down.
    app.handle_key(key(' '), t0);
    let second = app.process(app.selected_row().unwrap()).pid;
    app.handle_key(key(' '), t0);
    assert_eq!(app.table.tagged.len(), 2);
    let (s, _) = render(&mut app, 120, 40, t0);
    assert!(
        s.contains(&format!("*{first}")) && s.contains(&format!("*{second}")),
        "{s}"
    );
    app.handle_key(key('T'), t0);
    match &app.overlay {
        Overlay::Confirm(c) => {
            assert_eq!(c.pid, first);
            assert_eq!(c.also.len(), 1);
            assert_eq!(c.also[0].pid, second);
            assert!(c.also[0].detail.starts_with("user "), "{:?}", c.also[0]);
        }
        o => panic!("{o:?}"),
    }
    let (s, _) = render(&mut app, 120, 40, t0);
    assert!(s.contains("Terminate the 2 tagged processes?"), "{s}");
    app.handle_key(key('y'), t0);
    let pids: Vec<u32> = calls.borrow().iter().map(|c| c.0).collect();
    assert_eq!(pids, [first, second]);
    assert!(app.table.tagged.is_empty());
    assert!(
        app.message
            .as_deref()
            .unwrap()
            .contains("of the 2 tagged processes"),
        "{:?}",
        app.message
    );
}

/// `v`: the environment, read now: values only for known-safe names (through the detector),
/// `<hidden: not on the safe list>` for every other, whatever the name (the secret corpus).
#[test]
#[cfg(target_os = "linux")]
fn environment_view_shows_values_of_safe_names_only() {
    let t0 = Instant::now();
    let dir = tempfile::tempdir().unwrap();
    let mut app = app_with(snapshot(40 * GIB, 9 * GIB), t0);
    let pid = app.process(app.selected_row().unwrap()).pid;
    std::fs::create_dir_all(dir.path().join(pid.to_string())).unwrap();
    let env = corpus::environment();
    let mut raw = Vec::new();
    for (n, v, _) in &env {
        raw.extend_from_slice(format!("{n}={v}\0").as_bytes());
    }
    std::fs::write(dir.path().join(pid.to_string()).join("environ"), raw).unwrap();
    app.proc_root = dir.path().to_path_buf();
    app.handle_key(key('v'), t0);
    let (s, _) = render(&mut app, 160, 60, t0);
    assert!(s.contains("safe names only"), "{s}");
    assert!(s.contains("HF_TOKEN=<hidden: not on the safe list>"), "{s}");
    for (n, v, secret) in &env {
        match secret {
            Some(x) => assert!(!s.contains(x.as_str()), "{n}: {x} shown\n{s}"),
            None => assert!(s.contains(&format!("{n}={v}")), "{n} not shown\n{s}"),
        }
    }
    app.handle_key(key('x'), t0);
    assert_eq!(app.overlay, Overlay::None);
    // The PID now names another process (a different start time): refused, not shown.
    std::fs::write(
        dir.path().join(pid.to_string()).join("stat"),
        format!("{pid} (other) S 1 1 1 0 -1 0 0 0 0 0 0 0 0 0 20 0 1 0 999999999 1000 10 0"),
    )
    .unwrap();
    app.handle_key(key('v'), t0);
    let (s, _) = render(&mut app, 120, 40, t0);
    assert!(
        s.contains("now names another process") && !s.contains("PATH=/usr/bin"),
        "{s}"
    );
    app.handle_key(key('x'), t0);
    // No such process here: the reason, not an empty list.
    app.proc_root = dir.path().join("none");
    app.handle_key(key('v'), t0);
    let (s, _) = render(&mut app, 120, 40, t0);
    assert!(s.contains("n/a: ") && s.contains("environ"), "{s}");
}

/// At 120 columns COMMAND gets the width left and shows the program and script by
/// name first, so two `python3` jobs with WORKLOAD unknown are told apart; h / l scroll the
/// whole row (as nvitop's arrows do), up to the end of the longest command and no further.
#[test]
fn command_gets_the_width_left_and_h_l_scroll_the_whole_row() {
    let t0 = Instant::now();
    let mut s = snapshot(40 * GIB, 9 * GIB);
    let argv = |a: &[&str]| Some(a.iter().map(|x| x.to_string()).collect::<Vec<_>>());
    s.processes[0].cmdline = argv(&[
        "/opt/llama/llama-server",
        "-m",
        "/models/qwen3-8b-q4_k_m.gguf",
        "-c",
        "32768",
        "--parallel",
        "4",
        "--host",
        "127.0.0.1",
        "--port",
        "8080",
    ]);
    s.processes[1].cmdline = argv(&[
        "/usr/local/bin/python3",
        "/home/bob/experiments/train.py",
        "--config",
        "lora.yaml",
    ]);
    let mut eval = proc(
        5152,
        "python3",
        "bob",
        1,
        vec![usage(G1, Some(3 * GIB), Some(5), &[UsageKind::Compute])],
    );
    eval.cmdline = argv(&[
        "/usr/local/bin/python3",
        "/home/bob/experiments/eval.py",
        "--checkpoint",
        "runs/7/last.pt",
    ]);
    s.processes.push(eval);
    balance(&mut s);
    let mut app = app_with(s, t0);
    let (before, _) = render(&mut app, 120, 40, t0);
    let row = |screen: &str, pid: &str| line_with(screen, &format!(" {pid} ")).to_string();
    assert!(
        row(&before, "5151").contains("python3 train.py --c"),
        "{before}"
    );
    assert!(
        row(&before, "5152").contains("python3 eval.py --ch"),
        "{before}"
    );
    let header = line_with(&before, "COMMAND");
    let x = header[..header.find("COMMAND").unwrap()].chars().count();
    // 22 cells at least.
    assert!(
        120 - x >= 22,
        "COMMAND is {} cells at 120 columns:\n{before}",
        120 - x
    );
    // l: the whole row moves left by 8 cells, the command's end comes into view.
    let llama = row(&before, "4242");
    app.handle_key(key('l'), t0);
    let (after, _) = render(&mut app, 120, 40, t0);
    let moved = after
        .lines()
        .find(|l| l.contains("alice") && l.contains("llama-server"))
        .unwrap_or_else(|| panic!("{after}"));
    // Every column up to COMMAND moved 8 cells left; COMMAND shows 8 more cells of its line.
    let shifted: String = llama.chars().skip(8).take(x - 8).collect();
    let shown: String = moved.chars().take(x - 8).collect();
    assert_eq!(shown, shifted, "\n{before}\n{after}");
    assert!(
        !llama.contains("/models/qwen3") && moved.contains("llama-server -m /models/qwen3"),
        "{llama}\n{moved}"
    );
    assert!(!moved.contains("4242"), "the PID scrolled off too: {moved}");
    app.handle_key(key('h'), t0);
    let (back, _) = render(&mut app, 120, 40, t0);
    assert_eq!(back, before);
    // No scrolling past the end of the longest command: one h after many l moves back at once.
    for _ in 0..50 {
        app.handle_key(key('l'), t0);
        render(&mut app, 120, 40, t0);
    }
    let (far, _) = render(&mut app, 120, 40, t0);
    assert!(
        far.contains("--port 8080") || far.contains("last.pt"),
        "{far}"
    );
    app.handle_key(key('h'), t0);
    let (less, _) = render(&mut app, 120, 40, t0);
    assert_ne!(less, far, "h after scrolling to the end must move");
}

/// A round reads host figures for what the view shows: the rows drawn, a page either side and
/// the selection, unless the sort needs every row's figure.
#[test]
fn host_figures_are_asked_for_the_rows_on_screen_unless_sorting_by_them() {
    use gpuledger_tui::feed::HostNeed;
    let t0 = Instant::now();
    let mut s = snapshot(40 * GIB, 9 * GIB);
    let first = s.processes.len() as u32;
    for i in 0..200u32 {
        let u = usage(
            "GPU-0",
            Some(u64::from(1000 - i) << 20),
            None,
            &[UsageKind::Compute],
        );
        s.processes
            .push(proc(50_000 + i, &format!("w{i}"), "u", 1, vec![u]));
    }
    balance(&mut s);
    let mut app = app_with(s, t0);
    render(&mut app, 120, 40, t0);
    let HostNeed::Pids(want) = app.host_need() else {
        panic!("sorted by memory, yet every row was asked for");
    };
    let drawn = app.geometry.body_rows;
    assert!(drawn > 5, "{drawn}");
    // The rows drawn (the selected one among them), no more: far fewer than 200 + first.
    let shown = pids(&app);
    let mut on_screen = shown[..drawn.min(shown.len())].to_vec();
    on_screen.sort_unstable();
    on_screen.dedup();
    assert_eq!(want, on_screen, "{} pids for {drawn} rows", want.len());
    assert!(want.len() < (200 + first) as usize);
    for p in &shown[..drawn.min(shown.len())] {
        assert!(want.binary_search(p).is_ok(), "drawn pid {p} not asked for");
    }
    // The last row is not drawn: not asked for; the view says why it has no CPU %.
    let last = *shown.last().unwrap();
    assert!(want.binary_search(&last).is_err());
    assert!(app.host_missing().contains("rows on screen"));
    // Sorting by CPU % needs every row's figure.
    app.table.sort = Column::Cpu;
    assert_eq!(app.host_need(), HostNeed::All);
}

/// The live view on the secret corpus: a snapshot as it reaches the view (collection redacts,
/// every snapshot read from outside goes through `redact_snapshot`), drawn as the table, the
/// details pop-up and the kill confirmation of each process: no secret shows.
#[test]
fn the_live_view_shows_no_secret_of_the_corpus() {
    let t0 = Instant::now();
    let mut s = snapshot(40 * GIB, 9 * GIB);
    let cases = corpus::cases();
    for (i, c) in cases.iter().enumerate() {
        let pid = 20_000 + i as u32;
        let mut p = proc(
            pid,
            c.name.as_deref().unwrap_or(&c.args[0]),
            "alice",
            1,
            vec![usage(G0, Some(GIB), Some(5), &[UsageKind::Compute])],
        );
        p.cmdline = Some(c.args.clone());
        s.processes.push(p);
    }
    redact_snapshot(&mut s);
    let mut app = app_with(s, t0);
    let check = |what: &str, text: &str| {
        for c in &cases {
            for x in &c.secrets {
                assert!(
                    !text.contains(x.as_str()),
                    "{what}, {}: {x} shown\n{text}",
                    c.what
                );
            }
        }
    };
    let (table, _) = render(&mut app, 200, 60, t0);
    check("table", &table);
    assert!(table.contains("<redacted>"), "{table}");
    for _ in 0..app.table.rows.len() {
        app.handle_key(code(KeyCode::Enter), t0);
        let (details, _) = render(&mut app, 200, 60, t0);
        check("details", &details);
        app.handle_key(code(KeyCode::Esc), t0);
        app.handle_key(key('T'), t0);
        let (confirm, _) = render(&mut app, 200, 60, t0);
        check("kill confirmation", &confirm);
        app.handle_key(key('n'), t0);
        app.overlay = Overlay::None;
        app.handle_key(code(KeyCode::Down), t0);
    }
}

/// With tags, T / K signal the tagged rows only (as nvitop does), never the row
/// under the cursor as well, not even one just untagged; the dialog lists exactly those.
#[test]
fn with_tags_only_the_tagged_rows_are_signalled_and_listed() {
    let t0 = Instant::now();
    let calls = Rc::new(RefCell::new(Vec::new()));
    let mut app = App::new(ThemeKind::Dark, Duration::from_secs(1), t0)
        .with_terminator(Box::new(Recorder(calls.clone())));
    app.apply(update(snapshot(40 * GIB, 9 * GIB)), t0);
    let goto = |app: &mut App, pid: u32| {
        app.handle_key(key('g'), t0);
        while app.process(app.selected_row().unwrap()).pid != pid {
            app.handle_key(code(KeyCode::Down), t0);
        }
    };
    for pid in [5151, 6002, 1200] {
        goto(&mut app, pid);
        app.handle_key(key(' '), t0);
    }
    // Untag Xorg, the cursor stays on it.
    goto(&mut app, 1200);
    app.handle_key(key(' '), t0);
    goto(&mut app, 1200);
    assert_eq!(app.table.tagged.len(), 2);
    app.handle_key(key('T'), t0);
    let (s, _) = render(&mut app, 120, 40, t0);
    match &app.overlay {
        Overlay::Confirm(c) => {
            assert!(c.warning.is_none(), "{c:?}");
            let mut all: Vec<u32> = std::iter::once(c.pid)
                .chain(c.also.iter().map(|a| a.pid))
                .collect();
            all.sort_unstable();
            assert_eq!(all, [5151, 6002]);
        }
        o => panic!("{o:?}"),
    }
    assert!(s.contains("Terminate the 2 tagged processes?"), "{s}");
    assert!(
        s.contains("PID 5151 (python3)") && s.contains("PID 6002 (ollama_runner)"),
        "{s}"
    );
    assert!(!s.contains("PID 1200"), "{s}");
    app.handle_key(key('y'), t0);
    let mut signalled: Vec<u32> = calls.borrow().iter().map(|c| c.0).collect();
    signalled.sort_unstable();
    assert_eq!(signalled, [5151, 6002]);
    assert!(app.table.tagged.is_empty());
    // Cancelling says what was left running.
    goto(&mut app, 5151);
    app.handle_key(key(' '), t0);
    app.handle_key(key('K'), t0);
    app.handle_key(key('n'), t0);
    assert_eq!(
        app.message.as_deref(),
        Some("cancelled: the 1 tagged process left running (still tagged)")
    );
}

/// The details pop-up (Enter) scrolls, so at 80×24 the evidence can be read to its
/// last line: ↓ / PgDn / End move down, ↑ / PgUp / Home back, and the frame says where it is.
#[test]
fn details_scroll_so_the_evidence_can_be_read_at_80x24() {
    let t0 = Instant::now();
    let mut s = snapshot(40 * GIB, 9 * GIB);
    if let Some(w) = s.processes[0]
        .workload
        .as_mut()
        .map(std::sync::Arc::make_mut)
    {
        for i in 0..12 {
            w.missing.push(format!("evidence gap {i}").into());
        }
        w.missing.push("THE-LAST-LINE".into());
    }
    let mut app = app_with(s, t0);
    assert_eq!(app.process(app.selected_row().unwrap()).pid, 4242);
    app.handle_key(code(KeyCode::Enter), t0);
    let (top, _) = render(&mut app, 80, 24, t0);
    assert!(
        top.contains("PID 4242") && !top.contains("THE-LAST-LINE"),
        "{top}"
    );
    assert!(top.contains("PgDn"), "the frame says it scrolls:\n{top}");
    app.handle_key(code(KeyCode::PageDown), t0);
    let (paged, _) = render(&mut app, 80, 24, t0);
    assert_ne!(paged, top);
    app.handle_key(code(KeyCode::End), t0);
    let (end, _) = render(&mut app, 80, 24, t0);
    assert!(end.contains("THE-LAST-LINE"), "{end}");
    // Past the end is the end: one ↑ moves at once.
    for _ in 0..30 {
        app.handle_key(code(KeyCode::Down), t0);
    }
    render(&mut app, 80, 24, t0);
    app.handle_key(code(KeyCode::Up), t0);
    let (up, _) = render(&mut app, 80, 24, t0);
    assert_ne!(up, end);
    app.handle_key(code(KeyCode::Home), t0);
    let (home, _) = render(&mut app, 80, 24, t0);
    assert_eq!(home, top);
    app.handle_key(code(KeyCode::Esc), t0);
    assert_eq!(app.overlay, Overlay::None);
    // Opened again, it starts at the top.
    app.handle_key(code(KeyCode::Enter), t0);
    assert_eq!(render(&mut app, 80, 24, t0).0, top);
}

/// One spelling for unknown, `n/a` (never `?` or `—` for a value not read), and
/// it is not drawn as an alarm (not red).
#[test]
fn unknowns_have_one_spelling_and_are_not_drawn_red() {
    let t0 = Instant::now();
    let mut s = snapshot(40 * GIB, 9 * GIB);
    let mut hidden = Process::new(9999);
    hidden.metadata_unavailable = Some("not visible in /proc (another PID namespace)".into());
    hidden.usage = vec![usage(G1, Some(GIB), None, &[UsageKind::Compute])];
    s.processes.push(hidden);
    s.devices[1].memory.total_bytes = None;
    balance(&mut s);
    let mut app = app_with(s, t0);
    let (screen, buf) = render(&mut app, 120, 40, t0);
    let row = line_with(&screen, " 9999 ");
    assert!(!row.contains('?') && !row.contains('—'), "{row}");
    assert!(
        row.matches("n/a").count() >= 4,
        "user, name, workload, command: {row}"
    );
    assert!(
        !screen.contains('?') || screen.contains("? help"),
        "{screen}"
    );
    assert!(!screen.replace("? help", "").contains('?'), "{screen}");
    // No n/a cell is red.
    for y in 0..40 {
        for x in 0..118 {
            let cells: String = (x..x + 3).map(|x| buf[(x, y)].symbol()).collect();
            if cells == "n/a" {
                let fg = buf[(x, y)].fg;
                assert!(
                    !matches!(
                        fg,
                        ratatui::style::Color::Red | ratatui::style::Color::LightRed
                    ),
                    "n/a at {x},{y} drawn {fg:?}:\n{screen}"
                );
            }
        }
    }
}

/// One name per metric, the snapshot table's: the memory controller's busy share
/// is `MEM%` (it was `MBW` on the cards and `mem` in the details), a process's use is `SM%`
/// (it was `GPU%` in the table); help says what each is; the CSV export says `sm_percent`.
#[test]
fn metrics_have_the_snapshot_table_s_names() {
    let t0 = Instant::now();
    let mut app = app_with(snapshot(40 * GIB, 9 * GIB), t0);
    for (w, h) in [(120, 40), (80, 24), (100, 24)] {
        let (s, _) = render(&mut app, w, h, t0);
        assert!(!s.contains("MBW"), "{w}x{h}:\n{s}");
        assert!(w == 80 || s.contains("MEM% 12"), "{w}x{h}:\n{s}");
        let header = line_with(&s, "WORKLOAD");
        assert!(
            header.contains("SM%") && !header.contains("GPU%"),
            "{header}"
        );
    }
    let (s, _) = render(&mut app, 120, 40, t0);
    assert!(s.contains("SM% 85  MEM% n/a"), "{s}");
    assert!(s.contains("4242 SM%"), "chart legend:\n{s}");
    app.handle_key(key('?'), t0);
    let (help, _) = render(&mut app, 80, 24, t0);
    assert!(help.contains("SM%") && help.contains("MEM%"), "{help}");
}

/// An evidence line says its kind once (`• executable: executable /opt/…` and
/// `• model file: model file /m/…` said it twice).
#[test]
fn evidence_lines_name_their_kind_once() {
    let t0 = Instant::now();
    let mut s = snapshot(40 * GIB, 9 * GIB);
    if let Some(w) = s.processes[0]
        .workload
        .as_mut()
        .map(std::sync::Arc::make_mut)
    {
        w.evidence = vec![
            Evidence {
                kind: EvidenceKind::Executable,
                showed: "executable /opt/llama/llama-server".into(),
                source: "/proc/4242/exe".into(),
            },
            Evidence::model_file("/models/q.gguf", "/proc/4242/maps".into()),
        ];
    }
    let mut app = app_with(s, t0);
    let (screen, _) = render(&mut app, 160, 60, t0);
    assert!(
        screen.contains("• executable: /opt/llama/llama-server"),
        "{screen}"
    );
    assert!(screen.contains("• model file: /models/q.gguf"), "{screen}");
    assert!(
        !screen.contains("executable: executable") && !screen.contains("model file: model file")
    );
}

/// Space tags the row and moves down (as nvitop's does), so tagging a run of rows
/// is one key per row.
#[test]
fn space_tags_and_moves_down() {
    let t0 = Instant::now();
    let mut app = app_with(snapshot(40 * GIB, 9 * GIB), t0);
    let order = pids(&app);
    app.handle_key(key(' '), t0);
    app.handle_key(key(' '), t0);
    assert_eq!(app.table.selected, 2);
    let tagged: Vec<u32> = app.table.tagged.iter().map(|t| t.0).collect();
    let mut want = vec![order[0], order[1]];
    want.sort_unstable();
    assert_eq!(tagged, want);
    // At the last row it stays there.
    app.handle_key(key('G'), t0);
    app.handle_key(key(' '), t0);
    assert_eq!(app.table.selected, app.table.rows.len() - 1);
}

/// Grouped per GPU (`D`), the last row of each GPU's group is underlined: a line
/// between the GPUs that costs no row.
#[test]
fn grouping_per_gpu_draws_a_line_between_gpus() {
    let t0 = Instant::now();
    let mut app = app_with(snapshot(40 * GIB, 9 * GIB), t0);
    app.handle_key(key('D'), t0);
    assert_eq!(pids(&app), [4242, 5151, 6002, 6001, 4242, 1200]);
    let (s, buf) = render(&mut app, 120, 40, t0);
    let y_of = |needle: &str| s.lines().position(|l| l.contains(needle)).unwrap() as u16;
    let underlined = |y: u16| {
        (20..60).all(|x| {
            buf[(x, y)]
                .modifier
                .contains(ratatui::style::Modifier::UNDERLINED)
        })
    };
    // 6001 ends GPU0's group; 5151 is inside it; 1200 is the last row of all.
    assert!(underlined(y_of(" 6001 ")), "{s}");
    assert!(!underlined(y_of(" 5151 ")), "{s}");
    assert!(!underlined(y_of(" 1200 ")), "{s}");
    // Not grouped: no line.
    app.handle_key(key('D'), t0);
    let (s, buf) = render(&mut app, 120, 40, t0);
    let y = s.lines().position(|l| l.contains(" 6001 ")).unwrap() as u16;
    assert!(!(20..60).any(|x| buf[(x, y)]
        .modifier
        .contains(ratatui::style::Modifier::UNDERLINED)));
}

/// When the table is cut, a line says how many rows are hidden and how to see
/// them (nothing said that 22 of 40 rows were hidden at 80×24).
#[test]
fn a_cut_table_says_how_many_rows_are_hidden() {
    let t0 = Instant::now();
    let mut s = snapshot(40 * GIB, 9 * GIB);
    for i in 0..34 {
        s.processes.push(proc(
            7000 + i,
            "worker",
            "carol",
            1,
            vec![usage(G0, Some(GIB / 4), Some(1), &[UsageKind::Compute])],
        ));
    }
    balance(&mut s);
    let mut app = app_with(s, t0);
    assert_eq!(app.table.rows.len(), 40);
    let (small, _) = render(&mut app, 80, 24, t0);
    let shown = app.geometry.body_rows;
    let line = line_with(&small, "hidden");
    assert!(
        line.contains(&format!("rows 1–{shown} of 40 · {} hidden", 40 - shown)),
        "{small}"
    );
    // Paging moves the window; the line follows.
    app.handle_key(code(KeyCode::End), t0);
    let (end, _) = render(&mut app, 80, 24, t0);
    assert!(
        line_with(&end, "hidden").contains(&format!("rows {}–40 of 40", 41 - shown)),
        "{end}"
    );
    // Every row on screen: no such line.
    let (big, _) = render(&mut app, 200, 100, t0);
    assert!(!big.contains("hidden ("), "{big}");
}

/// The live view's OWNER column: the pod and the Slurm job sharing the H200, found by the
/// filter too; absent when no process has an owner beyond its user.
#[test]
fn owner_column_names_pods_and_jobs_and_filters_by_them() {
    let t0 = Instant::now();
    let plain = snapshot(40 * GIB, 9 * GIB);
    let (s, _) = render(&mut app_with(plain.clone(), t0), 160, 40, t0);
    assert!(!line_with(&s, "PID").contains("OWNER"), "{s}");

    let mut shared = plain;
    let mut pod = Owner::new(OwnerKind::Pod, "/kubepods.slice/x");
    pod.pod_uid = Some("3f2a1b9c-5d6e-4f70-8a9b-0c1d2e3f4a5b".into());
    pod.container_id = Some("9b1c0d2e".repeat(8));
    pod.runtime = Some("containerd".into());
    pod.relabel();
    let mut job = Owner::new(
        OwnerKind::SlurmJob,
        "/system.slice/slurmstepd.scope/job_4711",
    );
    job.slurm_job = Some(4711);
    job.user = Some("bob".into());
    job.relabel();
    shared.processes[0].owner = Some(pod);
    shared.processes[1].owner = Some(job);
    let mut app = app_with(shared, t0);
    let (s, _) = render(&mut app, 160, 40, t0);
    assert!(line_with(&s, "PID").contains("OWNER"), "{s}");
    assert!(
        line_with(&s, "llama-server").contains("pod 3f2a1b9c…/ctr 9b1c0d2e…"),
        "{s}"
    );
    assert!(line_with(&s, "python3").contains("job 4711 (bob)"), "{s}");
    // The column gives way before the essentials at 80 columns.
    let (narrow, _) = render(&mut app, 80, 24, t0);
    assert!(line_with(&narrow, "PID").contains("WORKLOAD"), "{narrow}");
    app.handle_key(key('/'), t0);
    for c in "job 4711".chars() {
        app.handle_key(key(c), t0);
    }
    assert_eq!(pids(&app), [5151]);
}

/// The style of a cell comes from whether its value is known, not from its text: a process
/// really named `n/a` is drawn plain, an unknown name dim.
#[test]
fn unknown_cells_are_dim_by_data_not_by_their_text() {
    let t0 = Instant::now();
    let mut s = snapshot(40 * GIB, 9 * GIB);
    s.processes[1].name = Some("n/a".into());
    s.processes[2].name = None;
    let mut app = app_with(s, t0);
    let (screen, buf) = render(&mut app, 120, 40, t0);
    let dim = app.theme.dim;
    assert_ne!(dim.fg, Style::default().fg, "the theme's dim has a colour");
    let header_y = screen.lines().position(|l| l.contains("WORKLOAD")).unwrap();
    let x = screen.lines().nth(header_y).unwrap().find("NAME").unwrap() as u16;
    let style_of = |pid: &str| {
        let y = screen.lines().position(|l| l.contains(pid)).unwrap() as u16;
        assert_eq!(
            &screen.lines().nth(y as usize).unwrap()[x as usize..x as usize + 3],
            "n/a"
        );
        buf[(x, y)].style()
    };
    assert_eq!(style_of(" 6001 ").fg, dim.fg, "{screen}");
    assert_ne!(style_of(" 5151 ").fg, dim.fg, "{screen}");
}
