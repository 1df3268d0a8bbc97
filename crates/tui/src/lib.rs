//! gpuledger's live terminal view (`gpuledger` with no sub-command): device cards with the books
//! balanced, a sortable and filterable process table, history charts, and a details pane that keeps
//! the measured and estimated ledgers apart.
//!
//! - [`app`]: the state (`mod.rs`), its rows (`rows.rs`: sort, filter, tree), keys and mouse
//!   (`keys.rs`) and the CSV export (`export.rs`); pure and tested without a terminal;
//! - [`ui`]: drawing with ratatui, one module per pane (title, cards, table, chart, details,
//!   footer); a pure function of the app that returns the geometry it drew (tested on
//!   `TestBackend`);
//! - [`feed`]: the collection thread (the UI never collects; slow rounds are skipped);
//! - [`hoststats`]: host CPU % and RSS of GPU processes, read in that thread;
//! - [`hostwide`]: the host's CPU % and RAM in use for the header, read there too;
//! - [`series`]: bounded ring buffers for charts and sparklines;
//! - [`actions`]: the [`actions::Terminator`] seam to the kill mechanism, clipboard;
//! - [`term`]: the terminal loop, restored on quit and on panic.

pub mod actions;
pub mod app;
pub mod feed;
pub mod hoststats;
pub mod hostwide;
pub mod series;
pub mod term;
pub mod theme;
pub mod ui;

pub use actions::{Check, NoTerminator, Termination, Terminator};
pub use app::App;
pub use theme::ThemeKind;

use gpuledger_model::Snapshot;
use gpuledger_sources::Collector;
use std::time::{Duration, Instant};

/// What the CLI hands over.
pub struct Options {
    pub interval: Duration,
    pub theme: ThemeKind,
    /// A saved snapshot and its file name: shown with a REPLAY marker, nothing collected.
    pub replay: Option<Replay>,
    pub terminator: Box<dyn Terminator>,
    /// Show another machine instead: its URL and the source of its rounds.
    pub remote: Option<(String, Box<dyn feed::RoundSource>)>,
    /// Alerts evaluated on each round (see [`App::with_alerts`]).
    pub alerts: Option<app::AlertHook>,
    /// Where process environments are read for `v` on Linux (`--proc-root`, `/proc` by default).
    pub proc_root: std::path::PathBuf,
    /// The language of the view's words (`--lang`, `GPULEDGER_LANG`, the locale).
    pub lang: gpuledger_lang::Lang,
}

/// What a replay shows: a snapshot (a file, or a recording's moment), the name it is shown
/// under, and the samples a recording holds before that moment, for the charts.
pub struct Replay {
    pub snapshot: Snapshot,
    pub name: String,
    pub earlier: Vec<Snapshot>,
}

/// Open the view. `collector` is used unless `opts.replay` is set.
pub fn run(opts: Options, collector: impl FnOnce() -> Collector) -> std::io::Result<()> {
    let now = Instant::now();
    let theme = ThemeKind::resolve(opts.theme, std::env::var("NO_COLOR").ok().as_deref());
    let mut app = App::new(theme, opts.interval, now).with_terminator(opts.terminator);
    app.proc_root = opts.proc_root;
    app.lang = opts.lang;
    // Exports go to the data directory (shown in the prompt and in the message), not wherever
    // the view happened to be started.
    if let Some(dir) = app::data_dir_with(|k| std::env::var_os(k)) {
        app.export_dir = dir;
    }
    if let Some(f) = opts.alerts {
        app = app.with_alerts(f);
    }
    match (opts.replay, opts.remote) {
        (Some(r), _) => {
            app = app.replay_recording(r.earlier, r.snapshot, r.name, now);
            term::run(app, None)
        }
        (None, Some((url, source))) => term::run(app.remote(url), Some(source)),
        (None, None) => term::run(app, Some(Box::new(feed::LiveSource::new(collector())))),
    }
}
