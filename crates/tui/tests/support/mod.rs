//! What the live view's integration tests share: the sample snapshot, one frame drawn as text,
//! and a key press. Include with `mod support;` (each test file uses part of it).
#![allow(dead_code)]

use gpuledger_tui::App;
use ratatui::backend::TestBackend;
use ratatui::crossterm::event::{KeyCode, KeyEvent, KeyModifiers};
use ratatui::Terminal;
use std::time::Instant;

/// `examples/sample-snapshot.json`, the README's sample machine.
pub fn sample() -> gpuledger_model::Snapshot {
    let text = std::fs::read_to_string(concat!(
        env!("CARGO_MANIFEST_DIR"),
        "/../../examples/sample-snapshot.json"
    ))
    .unwrap();
    gpuledger_model::parse_snapshot(&text).unwrap()
}

/// One frame of `app` at `w`×`h`, a line per row (the app keeps the frame's geometry, as the
/// terminal loop does).
pub fn screen(app: &mut App, w: u16, h: u16, now: Instant) -> String {
    let mut term = Terminal::new(TestBackend::new(w, h)).unwrap();
    let mut drawn = None;
    term.draw(|f| drawn = Some(gpuledger_tui::ui::draw(f, app, now)))
        .unwrap();
    app.geometry = drawn.unwrap();
    let buf = term.backend().buffer().clone();
    (0..h)
        .map(|y| (0..w).map(|x| buf[(x, y)].symbol()).collect::<String>() + "\n")
        .collect()
}

/// `snapshot` as the collection thread hands a round over (no host figures, taken at once).
pub fn round(snapshot: gpuledger_model::Snapshot) -> gpuledger_tui::feed::Update {
    gpuledger_tui::feed::Update {
        snapshot,
        host: Default::default(),
        took: std::time::Duration::ZERO,
        dropped: 0,
        machine: None,
    }
}

pub fn key(c: char) -> KeyEvent {
    KeyEvent::new(KeyCode::Char(c), KeyModifiers::NONE)
}
