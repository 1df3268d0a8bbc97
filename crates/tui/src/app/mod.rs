//! The view's state and everything a key does to it. Pure: no terminal, no clock reads (times come
//! in as arguments), so every flow is tested without a screen.

use crate::actions::{NoTerminator, Terminator};
use crate::feed::{Update, MIN_INTERVAL};
use crate::hoststats::HostProc;
use crate::series::History;
use crate::theme::{Theme, ThemeKind};
use gpuledger_lang::Lang;
use gpuledger_model::{Device, Process, Snapshot, Usage};
use kills::{kill_seen, KillSeen};
use std::collections::HashMap;
use std::path::PathBuf;
use std::time::{Duration, Instant};

mod column;
mod command;
mod export;
mod fmt;
mod groups;
mod keys;
mod kills;
mod rows;
mod table;
pub use command::short_command;
pub use fmt::{fmt_interval, fmt_runtime, unix_secs};
pub use groups::root_of;

pub use column::{Align, CellValue, Column, ColumnSpec, Priority, Shown, SortVal, Width, COLUMNS};
pub use table::ProcessTable;

/// One table row: one process on one device (as nvidia-smi, nvtop and nvitop list them).
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct Row {
    pub proc_idx: usize,
    pub usage_idx: usize,
    /// Tree depth (0 outside tree view).
    pub depth: u16,
    /// In tree view, the row standing for a workload group (its root's PID): the cells are the
    /// group's, `proc_idx` / `usage_idx` its first member's.
    pub group: Option<u32>,
}

/// What identifies a row across refreshes: the process (PID + start time) and the device.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct RowKey {
    pub pid: u32,
    pub start_time: Option<u64>,
    pub device: String,
}

#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Confirm {
    pub pid: u32,
    pub start_time: Option<u64>,
    pub name: String,
    /// "16 GiB on GPU0, 4.00 GiB on GPU1" (or that it is unknown).
    pub memory: String,
    /// What tells this process from others of the same name: owner, run time, command line.
    pub detail: String,
    pub force: bool,
    /// Why a second confirmation is needed, when it is.
    pub warning: Option<String>,
    /// 1 = first question, 2 = the second one for session-critical processes.
    pub stage: u8,
    /// Further tagged processes the same signal goes to (Space tags rows), each with the line
    /// that tells it apart.
    pub also: Vec<AlsoTarget>,
    /// The targets are the tagged processes (this one and `also`), and only those: the row
    /// under the cursor is not one of them unless it is tagged.
    pub tagged: bool,
}

/// One more process of a multi-process kill.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct AlsoTarget {
    pub pid: u32,
    pub start_time: Option<u64>,
    pub name: String,
    /// `user alice · 2 GiB on GPU0 · command: ...`
    pub detail: String,
}

#[derive(Debug, Clone, PartialEq, Eq)]
pub enum Overlay {
    None,
    Help,
    /// Every value of the selected row, with the reason for each n/a; the first (wrapped)
    /// line shown, for scrolling.
    Details(u16),
    Confirm(Confirm),
    /// CSV export: the path being edited.
    Export(String),
    /// The selected process's environment (values of safe names only); `scroll` is the first
    /// line shown.
    Env(EnvView),
}

/// What `v` shows: one process's environment as `NAME=value` lines (values of safe names
/// only), or why not.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct EnvView {
    pub pid: u32,
    pub name: String,
    pub lines: Result<Vec<String>, String>,
    pub scroll: usize,
}

#[derive(Debug, Clone)]
pub struct PendingKill {
    pub pid: u32,
    pub start_time: Option<u64>,
    pub name: String,
    pub force: bool,
    pub since: Instant,
}

/// Things the terminal loop must do for the app.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum Effect {
    Quit,
    SetInterval(Duration),
    /// Raw bytes to write to the terminal (OSC 52 clipboard).
    Write(String),
    /// Show this folder in the desktop's file manager.
    OpenFolder(PathBuf),
}

/// Where the last frame put things, for mouse hits and paging.
#[derive(Debug, Default, Clone)]
pub struct Geometry {
    pub header_y: Option<u16>,
    pub header_cells: Vec<(u16, u16, Column)>,
    /// First visible row's y and how many rows fit.
    pub body_y: u16,
    pub body_rows: usize,
    pub offset: usize,
    /// How far the rows can scroll sideways: until the longest command line ends on screen.
    pub max_scroll: u16,
    /// How far the details pop-up can scroll (its last line at the bottom), and its page.
    pub details_max: u16,
    pub details_page: u16,
}

pub const INTERVAL_STEPS_MS: [u64; 9] = [100, 200, 500, 1000, 2000, 3000, 5000, 10000, 30000];
/// How long to wait for a terminated process to disappear before saying it did not.
pub const KILL_VERIFY: Duration = Duration::from_secs(10);
/// How long a message stays in the footer (any key also replaces it).
pub const MESSAGE_TTL: Duration = Duration::from_secs(8);
/// History kept for the charts.
pub const HISTORY_SECS: f64 = 600.0;

pub struct App {
    pub snapshot: Option<Snapshot>,
    pub host: HashMap<u32, HostProc>,
    /// The host's CPU % and RAM (live view of this machine only: a snapshot does not hold them).
    pub machine: Option<crate::hostwide::Machine>,
    /// The process table: rows, selection, sort, filter, tree, tags, scroll.
    pub table: ProcessTable,
    pub interval: Duration,
    pub overlay: Overlay,
    pub theme: Theme,
    theme_before_mono: ThemeKind,
    /// Replay source name: no collection, a REPLAY marker on screen, no actions.
    pub replay: Option<String>,
    /// Another machine's `gpuledger serve` being shown (read-only: no actions act from here).
    pub remote: Option<String>,
    pub message: Option<String>,
    /// The message shown and when it was first seen, so it expires after [`MESSAGE_TTL`].
    message_seen: Option<(String, Instant)>,
    pub pending: Vec<PendingKill>,
    pub history: History,
    started: Instant,
    pub last_update: Option<Instant>,
    pub last_round: Option<Duration>,
    pub dropped_rounds: u64,
    terminator: Box<dyn Terminator>,
    /// Threshold alerts (`gpuledger --alert EXPR`): evaluated on each round, active ones listed.
    alerts: Option<AlertHook>,
    pub active_alerts: Vec<String>,
    /// Minutes shown in the history chart.
    pub chart_minutes: u32,
    pub export_dir: PathBuf,
    /// Where process environments are read for `v` on Linux (`/proc`; tests point it elsewhere).
    pub proc_root: PathBuf,
    /// Where the last frame put the table (set by the terminal loop from what `ui::draw` returns).
    pub geometry: Geometry,
    /// The language of the words on screen (figures, names and key names are not translated).
    pub lang: Lang,
}

/// Evaluates alerts on a round and returns those active, one line each.
pub type AlertHook = Box<dyn FnMut(&Snapshot) -> Vec<String>>;

impl App {
    pub fn new(theme: ThemeKind, interval: Duration, now: Instant) -> App {
        App {
            snapshot: None,
            host: HashMap::new(),
            machine: None,
            table: ProcessTable::default(),
            interval: interval.max(MIN_INTERVAL),
            overlay: Overlay::None,
            theme: Theme::new(theme),
            theme_before_mono: if theme == ThemeKind::Mono {
                ThemeKind::Dark
            } else {
                theme
            },
            replay: None,
            remote: None,
            message: None,
            message_seen: None,
            pending: Vec::new(),
            history: History::new(HISTORY_SECS),
            started: now,
            last_update: None,
            last_round: None,
            dropped_rounds: 0,
            terminator: Box::new(NoTerminator),
            alerts: None,
            active_alerts: Vec::new(),
            chart_minutes: 10,
            export_dir: PathBuf::from("."),
            proc_root: PathBuf::from("/proc"),
            geometry: Geometry::default(),
            lang: Lang::En,
        }
    }

    pub fn with_terminator(mut self, t: Box<dyn Terminator>) -> App {
        self.terminator = t;
        self
    }

    /// Evaluate alerts on every round; `f` returns the alerts active after that round.
    pub fn with_alerts(mut self, f: AlertHook) -> App {
        self.alerts = Some(f);
        self
    }

    /// Show another machine's snapshots (`gpuledger serve`), read-only.
    pub fn remote(mut self, url: String) -> App {
        self.remote = Some(url);
        self
    }

    /// Show a saved snapshot instead of the live machine.
    pub fn replay(self, snap: Snapshot, name: String, now: Instant) -> App {
        self.replay_recording(Vec::new(), snap, name, now)
    }

    /// Show a moment of a recording: `earlier` are the samples it holds before that moment
    /// (oldest first), drawn in the charts at their own times before it.
    pub fn replay_recording(
        mut self,
        earlier: Vec<Snapshot>,
        snap: Snapshot,
        name: String,
        now: Instant,
    ) -> App {
        self.replay = Some(name);
        let t = now.saturating_duration_since(self.started).as_secs_f64();
        let ms = |s: &Snapshot| gpuledger_model::time::parse_rfc3339_ms(&s.taken_at).ok();
        if let Some(at) = ms(&snap) {
            for e in &earlier {
                if let Some(before) = ms(e).filter(|&b| b < at) {
                    self.history
                        .push(t - (at - before) as f64 / 1000.0, e, None);
                }
            }
        }
        self.apply(
            Update {
                snapshot: snap,
                host: HashMap::new(),
                took: Duration::ZERO,
                dropped: 0,
                machine: None,
            },
            now,
        );
        self
    }

    /// A new round arrived. Returns the round it replaces, for the caller to hand back to the
    /// thread that built it ([`crate::feed::Feed::recycle`]).
    pub fn apply(&mut self, upd: Update, now: Instant) -> Option<Snapshot> {
        let t = now.saturating_duration_since(self.started).as_secs_f64();
        let keep = self
            .table
            .selected_key
            .as_ref()
            .map(|k| (k.pid, k.start_time, k.device.clone()));
        self.history.push(t, &upd.snapshot, keep.as_ref());
        self.last_update = Some(now);
        self.last_round = Some(upd.took);
        self.dropped_rounds += upd.dropped;
        self.host = upd.host;
        self.machine = upd.machine;
        if let Some(f) = self.alerts.as_mut() {
            self.active_alerts = f(&upd.snapshot);
        }
        // A tag names a process, not a PID: one that is gone is untagged.
        self.table.tagged.retain(|(pid, st)| {
            upd.snapshot
                .processes
                .iter()
                .any(|p| p.pid == *pid && p.start_time == *st)
        });
        let old = self.snapshot.replace(upd.snapshot);
        // What the kill mechanism found out on its own (refusals, permission): shown as it said.
        if let Some(m) = self.terminator.poll_messages().pop() {
            self.message = Some(m.in_lang(self.lang));
        }
        self.verify_kills(now);
        self.rebuild();
        old
    }

    /// Trust facts, not return values: a kill is reported done only when a snapshot no longer
    /// lists the process.
    fn verify_kills(&mut self, now: Instant) {
        let Some(snap) = &self.snapshot else { return };
        let mut msgs = Vec::new();
        self.pending.retain(|k| {
            let l = self.lang;
            // The request's name comes in the sentence (`kill` / `terminate`), not spliced in.
            let (gone, held, running) = if k.force {
                (
                    "tui-msg-kill-gone",
                    "tui-msg-kill-held",
                    "tui-msg-kill-running",
                )
            } else {
                (
                    "tui-msg-term-gone",
                    "tui-msg-term-held",
                    "tui-msg-term-running",
                )
            };
            let args = |more: (&'static str, String)| {
                [
                    ("pid", k.pid.to_string().into()),
                    ("name", k.name.as_str().into()),
                    ("secs", KILL_VERIFY.as_secs().to_string().into()),
                    (more.0, more.1.into()),
                ]
            };
            let late = now.saturating_duration_since(k.since) >= KILL_VERIFY;
            let (msg, keep) = match kill_seen(snap, k) {
                KillSeen::Gone => (
                    l.t_args(gone, &args(("time", snap.taken_at.clone()))),
                    false,
                ),
                KillSeen::ExitedHeld(_) if late => (
                    l.t_args(held, &args(("time", snap.taken_at.clone()))),
                    false,
                ),
                KillSeen::ExitedHeld(why) => (
                    l.t_args("tui-msg-exited-waiting", &args(("why", why.in_lang(l)))),
                    true,
                ),
                KillSeen::Running if late => (
                    l.t_args(running, &args(("time", snap.taken_at.clone()))),
                    false,
                ),
                KillSeen::Running => return true,
            };
            msgs.push(msg);
            keep
        });
        if let Some(m) = msgs.pop() {
            self.message = Some(m);
        }
    }

    /// How old the shown data is, when it is older than a healthy refresh would leave it.
    pub fn stale_age(&self, now: Instant) -> Option<Duration> {
        if self.replay.is_some() {
            return None;
        }
        // Before the first round, count from the start: a source that hangs at once shows too.
        let age = now.saturating_duration_since(self.last_update.unwrap_or(self.started));
        let limit = (self.interval * 3).max(Duration::from_secs(2));
        (age > limit).then_some(age)
    }

    /// Drop the footer message once it has been shown for [`MESSAGE_TTL`]. The clock starts when
    /// a message is first seen here, so code that sets one needs no time. `true` when the
    /// message went away (the screen must be redrawn).
    pub fn expire_message(&mut self, now: Instant) -> bool {
        let Some(m) = &self.message else {
            self.message_seen = None;
            return false;
        };
        match &self.message_seen {
            Some((seen, since)) if seen == m => {
                if now.saturating_duration_since(*since) >= MESSAGE_TTL {
                    self.message = None;
                    self.message_seen = None;
                    return true;
                }
            }
            _ => self.message_seen = Some((m.clone(), now)),
        }
        false
    }

    // ---- rows --------------------------------------------------------------------------------

    /// Why a process has no host figures at all, in English (the CSV export's words).
    pub fn host_missing(&self) -> String {
        Lang::En.t(self.host_missing_key())
    }

    /// The catalogue key of [`App::host_missing`]'s sentence.
    fn host_missing_key(&self) -> &'static str {
        if self.replay.is_some() {
            "tui-na-host-replay"
        } else if self.remote.is_some() {
            "tui-na-host-remote"
        } else if self.host.is_empty() {
            "tui-na-host-not-sampled"
        } else {
            "tui-na-host-off-screen"
        }
    }

    /// Whose host figures the next rounds should read: every process when sorting by a host
    /// column, else the rows drawn in the last frame and the selected one. (A page either side
    /// too tripled the `stat` reads of a round at 200 processes; a row scrolled into view has
    /// its figures from the next round on.)
    pub fn host_need(&self) -> crate::feed::HostNeed {
        if self.table.sort.spec().shown == Shown::HostFigures {
            return crate::feed::HostNeed::All;
        }
        let g = &self.geometry;
        let rows = &self.table.rows;
        let shown = match g.body_rows {
            0 => rows.as_slice(),
            n => &rows[g.offset.min(rows.len())..g.offset.saturating_add(n).min(rows.len())],
        };
        let mut pids: Vec<u32> = shown
            .iter()
            .chain(self.selected_row())
            .map(|r| self.process(r).pid)
            .collect();
        pids.sort_unstable();
        pids.dedup();
        crate::feed::HostNeed::Pids(pids)
    }

    /// Why keys that act on this machine's live processes (T, K, Space, e, o) do nothing here:
    /// a replay shows a recording, a remote view another machine. `None` on the live machine.
    pub fn not_live(&self) -> Option<String> {
        match (&self.replay, &self.remote) {
            (Some(src), _) => Some(
                self.lang
                    .t_args("tui-not-live-replay", &[("src", src.as_str().into())]),
            ),
            (None, Some(url)) => Some(
                self.lang
                    .t_args("tui-not-live-remote", &[("url", url.as_str().into())]),
            ),
            (None, None) => None,
        }
    }

    /// The rows within a page of those on screen (the page before, the page shown, the page
    /// after): what a frame measures column widths over, so that a frame costs what is on
    /// screen, not how many processes there are, and paging keeps the widths. Every row before
    /// the first frame has placed the table.
    pub fn near_rows(&self) -> &[Row] {
        let g = &self.geometry;
        let rows = &self.table.rows;
        if g.body_rows == 0 {
            return rows;
        }
        let from = g.offset.saturating_sub(g.body_rows).min(rows.len());
        let to = g.offset.saturating_add(2 * g.body_rows).min(rows.len());
        &rows[from..to]
    }

    pub fn process(&self, row: &Row) -> &Process {
        &self.snapshot.as_ref().unwrap().processes[row.proc_idx]
    }

    pub fn usage(&self, row: &Row) -> &Usage {
        &self.process(row).usage[row.usage_idx]
    }

    pub fn device_of(&self, row: &Row) -> Option<&Device> {
        self.snapshot
            .as_ref()?
            .device_by_uuid(&self.usage(row).device)
    }

    /// The host figures (CPU, RSS) of a row's process, where they were read.
    pub fn host_of(&self, row: &Row) -> Option<&HostProc> {
        self.host.get(&self.process(row).pid)
    }

    /// The whole command line (or the executable's path), as the details and the filter see it.
    pub fn command_line(&self, row: &Row) -> Option<String> {
        let p = self.process(row);
        p.cmdline
            .as_ref()
            .map(|c| c.join(" "))
            .or_else(|| p.exe.clone())
    }

    pub fn selected_row(&self) -> Option<&Row> {
        self.table.rows.get(self.table.selected)
    }

    /// The workload label (`llama.cpp · Qwen3-8B-Q4_K_M`) when identification named one.
    pub fn workload(&self, p: &Process) -> Option<String> {
        p.workload.as_ref().map(|w| w.short_label())
    }

    /// Seconds the process had run when the snapshot was taken (both times as RFC 3339 UTC).
    pub fn run_secs(&self, p: &Process) -> Option<u64> {
        let taken = unix_secs(&self.snapshot.as_ref()?.taken_at)?;
        let started = unix_secs(p.started_at.as_deref()?)?;
        u64::try_from(taken - started).ok()
    }

    fn key_of(&self, row: &Row) -> RowKey {
        if let Some(root) = row.group {
            return RowKey {
                pid: root,
                start_time: None,
                device: "group".into(),
            };
        }
        let p = self.process(row);
        RowKey {
            pid: p.pid,
            start_time: p.start_time,
            device: self.usage(row).device.clone(),
        }
    }

    /// Every value of the selected row that is unknown, with why.
    pub fn unknown_reasons(&self) -> Vec<(String, String)> {
        let Some(r) = self.selected_row() else {
            return vec![];
        };
        let p = self.process(r);
        let u = self.usage(r);
        let l = self.lang;
        let mut v = Vec::new();
        // The sources' reasons in the view's language where they have a key (`Said`); the
        // system's own words (an OS or NVML error) as they came.
        if let Some(m) = &p.metadata_unavailable {
            v.push((l.t("tui-na-what-metadata"), m.in_lang(l)));
        }
        if u.memory_bytes.is_none() {
            let source = [("source", u.memory_source.as_str().into())];
            v.push((
                l.t("tui-na-what-memory"),
                u.unavailable_reason
                    .as_ref()
                    .map_or_else(|| l.t_args("tui-na-no-value", &source), |r| r.in_lang(l)),
            ));
        }
        if u.engines.sm_percent.is_none() {
            v.push((
                "SM%".into(),
                u.engines
                    .unavailable_reason
                    .as_ref()
                    .map_or_else(|| l.t("tui-na-no-samples"), |r| r.in_lang(l)),
            ));
        }
        if self.workload(p).is_none() {
            v.push((l.t("tui-na-what-workload"), l.t("tui-na-not-identified")));
        }
        match self.host.get(&p.pid) {
            None => v.push((l.t("tui-na-what-host"), l.t(self.host_missing_key()))),
            Some(h) if h.cpu_percent.is_none() || h.rss_bytes.is_none() => v.push((
                l.t("tui-na-what-host"),
                h.reason
                    .as_ref()
                    .map_or_else(|| l.t("tui-na-not-read"), |r| r.in_lang(l)),
            )),
            _ => {}
        }
        v
    }
}

/// Where exports go: `$XDG_DATA_HOME/gpuledger`, else `$HOME/.local/share/gpuledger`
/// (`%LOCALAPPDATA%\gpuledger` on Windows), reading the environment through `env`. A relative
/// XDG_DATA_HOME is invalid by the XDG rules and ignored. `None` when nothing is set.
pub fn data_dir_with(env: impl Fn(&str) -> Option<std::ffi::OsString>) -> Option<PathBuf> {
    gpuledger_model::files::data_dir_with(env)
}
