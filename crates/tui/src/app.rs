//! The view's state and everything a key does to it. Pure: no terminal, no clock reads (times come
//! in as arguments), so every flow is tested without a screen.

use crate::actions::{osc52, Check, NoTerminator, Outcome, Terminator};
use crate::feed::{Update, MIN_INTERVAL};
use crate::history::History;
use crate::hoststats::HostProc;
use crate::theme::{Theme, ThemeKind};
use gpuledger_model::units::human_bytes;
use gpuledger_model::{Device, Process, Snapshot, Usage};
use ratatui::crossterm::event::{
    KeyCode, KeyEvent, KeyModifiers, MouseButton, MouseEvent, MouseEventKind,
};
use std::cmp::Ordering;
use std::collections::{HashMap, HashSet};
use std::path::{Path, PathBuf};
use std::time::{Duration, Instant};

/// Table columns, in display order.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
pub enum Column {
    Device,
    Pid,
    User,
    Name,
    Workload,
    Type,
    Memory,
    Gpu,
    Cpu,
    Rss,
    /// RSS as a share of the host's RAM.
    HostMem,
    /// How long the process has run, at the snapshot's time.
    Time,
    Command,
}

impl Column {
    pub const ALL: [Column; 13] = [
        Column::Device,
        Column::Pid,
        Column::User,
        Column::Name,
        Column::Workload,
        Column::Type,
        Column::Memory,
        Column::Gpu,
        Column::Cpu,
        Column::Rss,
        Column::HostMem,
        Column::Time,
        Column::Command,
    ];

    pub fn title(self) -> &'static str {
        match self {
            Column::Device => "DEV",
            Column::Pid => "PID",
            Column::User => "USER",
            Column::Name => "NAME",
            Column::Workload => "WORKLOAD",
            Column::Type => "TYPE",
            Column::Memory => "GPU MEM",
            Column::Gpu => "GPU%",
            Column::Cpu => "CPU%",
            Column::Rss => "RSS",
            Column::HostMem => "RAM%",
            Column::Time => "TIME",
            Column::Command => "COMMAND",
        }
    }

    /// Numbers sort largest first on the first press; text alphabetically.
    fn default_descending(self) -> bool {
        matches!(
            self,
            Column::Memory
                | Column::Gpu
                | Column::Cpu
                | Column::Rss
                | Column::HostMem
                | Column::Time
        )
    }

    fn index(self) -> usize {
        Column::ALL.iter().position(|&c| c == self).unwrap()
    }
}

/// One table row: one process on one device (as nvidia-smi, nvtop and nvitop list them).
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct Row {
    pub proc_idx: usize,
    pub usage_idx: usize,
    /// Tree depth (0 outside tree view).
    pub depth: u16,
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
    pub force: bool,
    /// Why a second confirmation is needed, when it is.
    pub warning: Option<String>,
    /// 1 = first question, 2 = the second one for session-critical processes.
    pub stage: u8,
}

#[derive(Debug, Clone, PartialEq, Eq)]
pub enum Overlay {
    None,
    Help,
    /// Every value of the selected row, with the reason for each n/a.
    Details,
    Confirm(Confirm),
    /// CSV export: the path being edited.
    Export(String),
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
    pub rows: Vec<Row>,
    pub selected: usize,
    selected_key: Option<RowKey>,
    pub sort: Column,
    pub descending: bool,
    pub filter: String,
    pub filter_editing: bool,
    pub tree: bool,
    /// Rows grouped per GPU (as nvitop lists them), the sort applying within each device.
    pub by_device: bool,
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
    /// Where the last frame put the table (set by the terminal loop from what `ui::draw` returns).
    pub geometry: Geometry,
}

/// Evaluates alerts on a round and returns those active, one line each.
pub type AlertHook = Box<dyn FnMut(&Snapshot) -> Vec<String>>;

impl App {
    pub fn new(theme: ThemeKind, interval: Duration, now: Instant) -> App {
        App {
            snapshot: None,
            host: HashMap::new(),
            rows: Vec::new(),
            selected: 0,
            selected_key: None,
            sort: Column::Memory,
            descending: true,
            filter: String::new(),
            filter_editing: false,
            tree: false,
            by_device: false,
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
            geometry: Geometry::default(),
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
    pub fn replay(mut self, snap: Snapshot, name: String, now: Instant) -> App {
        self.replay = Some(name);
        self.apply(
            Update {
                snapshot: snap,
                host: HashMap::new(),
                took: Duration::ZERO,
                dropped: 0,
            },
            now,
        );
        self
    }

    /// A new round arrived.
    pub fn apply(&mut self, upd: Update, now: Instant) {
        let t = now.saturating_duration_since(self.started).as_secs_f64();
        let keep = self
            .selected_key
            .as_ref()
            .map(|k| (k.pid, k.start_time, k.device.clone()));
        self.history.push(t, &upd.snapshot, keep.as_ref());
        self.last_update = Some(now);
        self.last_round = Some(upd.took);
        self.dropped_rounds += upd.dropped;
        self.host = upd.host;
        if let Some(f) = self.alerts.as_mut() {
            self.active_alerts = f(&upd.snapshot);
        }
        self.snapshot = Some(upd.snapshot);
        // What the kill mechanism found out on its own (refusals, permission): shown as it said.
        if let Some(m) = self.terminator.poll_messages().pop() {
            self.message = Some(m);
        }
        self.verify_kills(now);
        self.rebuild();
    }

    /// Trust facts, not return values: a kill is reported done only when a snapshot no longer
    /// lists the process.
    fn verify_kills(&mut self, now: Instant) {
        let Some(snap) = &self.snapshot else { return };
        let mut msgs = Vec::new();
        self.pending.retain(|k| {
            let listed = snap.processes.iter().any(|p| {
                p.pid == k.pid && (k.start_time.is_none() || p.start_time == k.start_time)
            });
            if !listed {
                msgs.push(format!(
                    "PID {} ({}) is gone: no longer listed at {} after the {} request",
                    k.pid,
                    k.name,
                    snap.taken_at,
                    if k.force { "kill" } else { "terminate" }
                ));
                false
            } else if now.saturating_duration_since(k.since) >= KILL_VERIFY {
                msgs.push(format!(
                    "PID {} ({}) is still running {} s after the {} request",
                    k.pid,
                    k.name,
                    KILL_VERIFY.as_secs(),
                    if k.force { "kill" } else { "terminate" }
                ));
                false
            } else {
                true
            }
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

    pub fn selected_row(&self) -> Option<&Row> {
        self.rows.get(self.selected)
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
        let p = self.process(row);
        RowKey {
            pid: p.pid,
            start_time: p.start_time,
            device: self.usage(row).device.clone(),
        }
    }

    /// The text of a cell, as shown (and exported). Unknown values are `n/a`, never 0.
    pub fn cell_text(&self, row: &Row, col: Column) -> String {
        let p = self.process(row);
        let u = self.usage(row);
        let host = self.host.get(&p.pid);
        match col {
            Column::Device => self
                .device_of(row)
                .map(|d| d.index.to_string())
                .unwrap_or_else(|| "?".into()),
            Column::Pid => p.pid.to_string(),
            Column::User => p.user.clone().unwrap_or_else(|| "n/a".into()),
            Column::Name => p.name.clone().unwrap_or_else(|| "n/a".into()),
            Column::Workload => self.workload(p).unwrap_or_else(|| "—".into()),
            Column::Type => u.kinds_label(),
            Column::Memory => u
                .memory_bytes
                .map(human_bytes)
                .unwrap_or_else(|| "n/a".into()),
            Column::Gpu => u
                .engines
                .sm_percent
                .map(|v| format!("{v}%"))
                .unwrap_or_else(|| "n/a".into()),
            Column::Cpu => host
                .and_then(|h| h.cpu_percent)
                .map(|v| format!("{v:.1}"))
                .unwrap_or_else(|| "n/a".into()),
            Column::Rss => host
                .and_then(|h| h.rss_bytes)
                .map(human_bytes)
                .unwrap_or_else(|| "n/a".into()),
            Column::HostMem => host
                .and_then(|h| h.mem_percent)
                .map(|v| format!("{v:.1}"))
                .unwrap_or_else(|| "n/a".into()),
            Column::Time => self
                .run_secs(p)
                .map(fmt_runtime)
                .unwrap_or_else(|| "n/a".into()),
            Column::Command => p
                .cmdline
                .as_ref()
                .map(|c| c.join(" "))
                .or_else(|| p.exe.clone())
                .unwrap_or_else(|| "n/a".into()),
        }
    }

    fn sort_value(&self, row: &Row, col: Column) -> SortVal {
        let p = self.process(row);
        let u = self.usage(row);
        let host = self.host.get(&p.pid);
        match col {
            Column::Device => SortVal::Num(self.device_of(row).map(|d| d.index as f64)),
            Column::Pid => SortVal::Num(Some(p.pid as f64)),
            Column::Memory => SortVal::Num(u.memory_bytes.map(|v| v as f64)),
            Column::Gpu => SortVal::Num(u.engines.sm_percent.map(f64::from)),
            Column::Cpu => SortVal::Num(host.and_then(|h| h.cpu_percent)),
            Column::Rss => SortVal::Num(host.and_then(|h| h.rss_bytes).map(|v| v as f64)),
            Column::HostMem => SortVal::Num(host.and_then(|h| h.mem_percent)),
            Column::Time => SortVal::Num(self.run_secs(p).map(|v| v as f64)),
            Column::User => SortVal::Text(p.user.as_ref().map(|s| s.to_lowercase())),
            Column::Name => SortVal::Text(p.name.as_ref().map(|s| s.to_lowercase())),
            Column::Workload => SortVal::Text(self.workload(p).map(|w| w.to_lowercase())),
            Column::Type => SortVal::Text(Some(u.kinds_label())),
            Column::Command => SortVal::Text(p.cmdline.as_ref().map(|c| c.join(" "))),
        }
    }

    /// Sort order: unknown values always last (whatever the direction), then PID and device.
    fn compare(&self, a: &Row, b: &Row) -> Ordering {
        let (va, vb) = (self.sort_value(a, self.sort), self.sort_value(b, self.sort));
        let primary = match (va.is_known(), vb.is_known()) {
            (true, false) => Ordering::Less,
            (false, true) => Ordering::Greater,
            (false, false) => Ordering::Equal,
            (true, true) => {
                let o = va.cmp(&vb);
                if self.descending {
                    o.reverse()
                } else {
                    o
                }
            }
        };
        primary
            .then_with(|| self.process(a).pid.cmp(&self.process(b).pid))
            .then_with(|| a.usage_idx.cmp(&b.usage_idx))
    }

    fn matches(&self, row: &Row, needle: &str) -> bool {
        if needle.is_empty() {
            return true;
        }
        let hay = [
            Column::Pid,
            Column::User,
            Column::Name,
            Column::Workload,
            Column::Command,
        ]
        .iter()
        .map(|&c| self.cell_text(row, c))
        .chain(self.device_of(row).map(|d| d.label()))
        .collect::<Vec<_>>()
        .join(" ")
        .to_lowercase();
        hay.contains(needle)
    }

    /// Rebuild the row list from the snapshot: filter, sort, tree; then find the selection again.
    pub fn rebuild(&mut self) {
        let Some(snap) = &self.snapshot else {
            self.rows.clear();
            return;
        };
        let mut rows: Vec<Row> = snap
            .processes
            .iter()
            .enumerate()
            .flat_map(|(pi, p)| {
                (0..p.usage.len()).map(move |ui| Row {
                    proc_idx: pi,
                    usage_idx: ui,
                    depth: 0,
                })
            })
            .collect();
        let needle = self.filter.to_lowercase();
        rows.retain(|r| self.matches(r, &needle));
        rows.sort_by(|a, b| self.compare(a, b));
        if self.by_device {
            // Stable: the chosen order holds within each device.
            rows.sort_by_key(|r| self.device_of(r).map_or(u32::MAX, |d| d.index));
        }
        if self.tree {
            rows = self.treeify(rows);
        }
        self.rows = rows;
        self.reselect();
    }

    /// Children (by `ppid`) directly under their parent, each level in the current sort order.
    fn treeify(&self, sorted: Vec<Row>) -> Vec<Row> {
        let snap = self.snapshot.as_ref().unwrap();
        // Groups of rows per PID, in sorted order of their first row.
        let mut order: Vec<u32> = Vec::new();
        let mut groups: HashMap<u32, Vec<Row>> = HashMap::new();
        for r in sorted {
            let pid = snap.processes[r.proc_idx].pid;
            groups
                .entry(pid)
                .or_insert_with(|| {
                    order.push(pid);
                    Vec::new()
                })
                .push(r);
        }
        let present: HashSet<u32> = order.iter().copied().collect();
        let ppids: HashMap<u32, Option<u32>> =
            snap.processes.iter().map(|p| (p.pid, p.ppid)).collect();
        let parent_of = |pid: u32| -> Option<u32> {
            ppids
                .get(&pid)
                .copied()
                .flatten()
                .filter(|pp| *pp != pid && present.contains(pp))
        };
        let mut children: HashMap<u32, Vec<u32>> = HashMap::new();
        let mut roots = Vec::new();
        for &pid in &order {
            match parent_of(pid) {
                Some(pp) => children.entry(pp).or_default().push(pid),
                None => roots.push(pid),
            }
        }
        let mut out = Vec::new();
        let mut seen = HashSet::new();
        fn walk(
            pid: u32,
            depth: u16,
            groups: &HashMap<u32, Vec<Row>>,
            children: &HashMap<u32, Vec<u32>>,
            seen: &mut HashSet<u32>,
            out: &mut Vec<Row>,
        ) {
            if !seen.insert(pid) {
                return;
            }
            for r in &groups[&pid] {
                out.push(Row { depth, ..*r });
            }
            for &c in children.get(&pid).map(Vec::as_slice).unwrap_or(&[]) {
                walk(c, depth + 1, groups, children, seen, out);
            }
        }
        for &r in &roots {
            walk(r, 0, &groups, &children, &mut seen, &mut out);
        }
        // A ppid cycle has no root: show what is left flat rather than hide it.
        for &pid in &order {
            walk(pid, 0, &groups, &children, &mut seen, &mut out);
        }
        out
    }

    fn reselect(&mut self) {
        if self.rows.is_empty() {
            self.selected = 0;
            return;
        }
        if let Some(key) = self.selected_key.clone() {
            let exact = self.rows.iter().position(|r| self.key_of(r) == key);
            let same_proc = || {
                self.rows.iter().position(|r| {
                    let p = self.process(r);
                    p.pid == key.pid && p.start_time == key.start_time
                })
            };
            if let Some(i) = exact.or_else(same_proc) {
                self.selected = i;
            }
        }
        self.selected = self.selected.min(self.rows.len() - 1);
        self.selected_key = Some(self.key_of(&self.rows[self.selected]));
    }

    fn select(&mut self, i: usize) {
        if self.rows.is_empty() {
            return;
        }
        self.selected = i.min(self.rows.len() - 1);
        self.selected_key = Some(self.key_of(&self.rows[self.selected]));
    }

    pub fn set_sort(&mut self, col: Column) {
        if self.sort == col {
            self.descending = !self.descending;
        } else {
            self.sort = col;
            self.descending = col.default_descending();
        }
        self.rebuild();
    }

    fn cycle_sort(&mut self, forward: bool) {
        let n = Column::ALL.len();
        let i = self.sort.index();
        let j = if forward {
            (i + 1) % n
        } else {
            (i + n - 1) % n
        };
        self.sort = Column::ALL[j];
        self.descending = self.sort.default_descending();
        self.rebuild();
    }

    // ---- keys --------------------------------------------------------------------------------

    pub fn handle_key(&mut self, key: KeyEvent, now: Instant) -> Vec<Effect> {
        if key.modifiers.contains(KeyModifiers::CONTROL) && key.code == KeyCode::Char('c') {
            return vec![Effect::Quit];
        }
        match self.overlay.clone() {
            Overlay::Help => {
                if matches!(
                    key.code,
                    KeyCode::Esc
                        | KeyCode::Char('?')
                        | KeyCode::F(1)
                        | KeyCode::Char('q')
                        | KeyCode::Enter
                ) {
                    self.overlay = Overlay::None;
                }
                return vec![];
            }
            Overlay::Details => {
                if matches!(
                    key.code,
                    KeyCode::Esc | KeyCode::Enter | KeyCode::Char('i') | KeyCode::Char('q')
                ) {
                    self.overlay = Overlay::None;
                }
                return vec![];
            }
            Overlay::Confirm(c) => {
                self.confirm_key(c, key, now);
                return vec![];
            }
            Overlay::Export(path) => {
                self.export_key(path, key);
                return vec![];
            }
            Overlay::None => {}
        }
        if self.filter_editing {
            match key.code {
                KeyCode::Enter => self.filter_editing = false,
                KeyCode::Esc => {
                    self.filter.clear();
                    self.filter_editing = false;
                    self.rebuild();
                }
                KeyCode::Backspace => {
                    self.filter.pop();
                    self.rebuild();
                }
                KeyCode::Char(ch) => {
                    self.filter.push(ch);
                    self.rebuild();
                }
                _ => {}
            }
            return vec![];
        }
        let page = self.geometry.body_rows.max(1);
        // A message answers the key before; the next key makes it stale (a key that has something
        // to say sets a new one below).
        let had_message = self.message.take().is_some();
        match key.code {
            KeyCode::Char('q') => return vec![Effect::Quit],
            KeyCode::Esc => {
                if had_message {
                } else if !self.filter.is_empty() {
                    self.filter.clear();
                    self.rebuild();
                } else {
                    return vec![Effect::Quit];
                }
            }
            KeyCode::Char('?') | KeyCode::F(1) => self.overlay = Overlay::Help,
            KeyCode::Char('/') => {
                self.filter_editing = true;
            }
            KeyCode::Down | KeyCode::Char('j') => self.select(self.selected + 1),
            KeyCode::Up | KeyCode::Char('k') => self.select(self.selected.saturating_sub(1)),
            KeyCode::PageDown => self.select(self.selected + page),
            KeyCode::PageUp => self.select(self.selected.saturating_sub(page)),
            KeyCode::Home | KeyCode::Char('g') => self.select(0),
            KeyCode::End | KeyCode::Char('G') => self.select(usize::MAX),
            KeyCode::Char('s') | KeyCode::Char('>') | KeyCode::Right => self.cycle_sort(true),
            KeyCode::Char('<') | KeyCode::Left => self.cycle_sort(false),
            KeyCode::Char('r') | KeyCode::Char('I') => {
                self.descending = !self.descending;
                self.rebuild();
            }
            KeyCode::Char('D') => {
                self.by_device = !self.by_device;
                self.rebuild();
            }
            KeyCode::Char('t') => {
                self.tree = !self.tree;
                self.rebuild();
            }
            KeyCode::Char('+') | KeyCode::Char('=') => return self.step_interval(true),
            KeyCode::Char('-') | KeyCode::Char('_') => return self.step_interval(false),
            KeyCode::Enter | KeyCode::Char('i') if self.selected_row().is_some() => {
                self.overlay = Overlay::Details;
            }
            KeyCode::Char('T') | KeyCode::F(9) => self.ask_terminate(false),
            KeyCode::Char('K') => self.ask_terminate(true),
            KeyCode::Char('c') => return self.copy_pid(),
            KeyCode::Char('o') => return self.open_folder(),
            KeyCode::Char('e') => {
                self.overlay = Overlay::Export(self.default_export_path());
            }
            KeyCode::Char('C') => {
                let next = self.theme.kind.next();
                self.theme = Theme::new(next);
            }
            KeyCode::Char('m') => {
                if self.theme.kind == ThemeKind::Mono {
                    self.theme = Theme::new(self.theme_before_mono);
                } else {
                    self.theme_before_mono = self.theme.kind;
                    self.theme = Theme::new(ThemeKind::Mono);
                }
            }
            KeyCode::Char('w') => {
                self.chart_minutes = match self.chart_minutes {
                    1 => 5,
                    5 => 10,
                    _ => 1,
                }
            }
            _ => {}
        }
        vec![]
    }

    pub fn handle_mouse(&mut self, m: MouseEvent) {
        if self.overlay != Overlay::None {
            return;
        }
        match m.kind {
            MouseEventKind::Down(MouseButton::Left) => {
                let g = &self.geometry;
                if g.header_y == Some(m.row) {
                    if let Some(&(_, _, col)) = g
                        .header_cells
                        .iter()
                        .find(|(x0, x1, _)| m.column >= *x0 && m.column < *x1)
                    {
                        self.set_sort(col);
                    }
                } else if m.row >= g.body_y && ((m.row - g.body_y) as usize) < g.body_rows {
                    let i = g.offset + (m.row - g.body_y) as usize;
                    if i < self.rows.len() {
                        self.select(i);
                    }
                }
            }
            MouseEventKind::ScrollDown => self.select(self.selected + 1),
            MouseEventKind::ScrollUp => self.select(self.selected.saturating_sub(1)),
            _ => {}
        }
    }

    fn step_interval(&mut self, longer: bool) -> Vec<Effect> {
        let cur = self.interval.as_millis() as u64;
        let next = if longer {
            INTERVAL_STEPS_MS.iter().copied().find(|&s| s > cur)
        } else {
            INTERVAL_STEPS_MS.iter().rev().copied().find(|&s| s < cur)
        };
        match next {
            Some(ms) => {
                self.interval = Duration::from_millis(ms);
                self.message = Some(format!("refresh every {}", fmt_interval(self.interval)));
                vec![Effect::SetInterval(self.interval)]
            }
            None => {
                self.message = Some(if longer {
                    format!("{} is the longest interval", fmt_interval(self.interval))
                } else {
                    "100 ms is the shortest interval".into()
                });
                vec![]
            }
        }
    }

    fn copy_pid(&mut self) -> Vec<Effect> {
        let Some(r) = self.selected_row().copied() else {
            return vec![];
        };
        let pid = self.process(&r).pid;
        self.message = Some(format!(
            "PID {pid} sent to the clipboard (OSC 52: works where the terminal allows it)"
        ));
        vec![Effect::Write(osc52(&pid.to_string()))]
    }

    /// The selected process's executable folder, for the file manager.
    fn open_folder(&mut self) -> Vec<Effect> {
        let Some(r) = self.selected_row().copied() else {
            return vec![];
        };
        if self.replay.is_some() || self.remote.is_some() {
            self.message = Some("the executable's folder is on the other machine".into());
            return vec![];
        }
        let p = self.process(&r);
        let dir = p
            .exe
            .as_deref()
            .and_then(|e| Path::new(e).parent())
            .map(Path::to_path_buf);
        match dir {
            Some(dir) => {
                self.message = Some(format!(
                    "opening {} (folder of {} pid {}) in the file manager",
                    dir.display(),
                    p.display_name(),
                    p.pid
                ));
                vec![Effect::OpenFolder(dir)]
            }
            None => {
                self.message = Some(format!(
                    "pid {}: the executable's path is unknown ({})",
                    p.pid,
                    p.metadata_unavailable
                        .as_deref()
                        .unwrap_or("not readable: another user's process?")
                ));
                vec![]
            }
        }
    }

    /// Memory of a process on every device, for the confirmation text.
    pub fn memory_summary(&self, p: &Process) -> String {
        let snap = self.snapshot.as_ref().unwrap();
        let parts: Vec<String> = p
            .usage
            .iter()
            .map(|u| {
                let dev = snap
                    .device_by_uuid(&u.device)
                    .map(|d| format!("GPU{}", d.index))
                    .unwrap_or_else(|| u.device.clone());
                match u.memory_bytes {
                    Some(b) => format!("{} on {dev}", human_bytes(b)),
                    None => format!("unknown memory on {dev}"),
                }
            })
            .collect();
        if parts.is_empty() {
            "no GPU memory listed".into()
        } else {
            parts.join(", ")
        }
    }

    fn ask_terminate(&mut self, force: bool) {
        if let Some(url) = &self.remote {
            self.message = Some(format!(
                "remote view of {url}: read-only, nothing is terminated from here"
            ));
            return;
        }
        if let Some(src) = &self.replay {
            self.message = Some(format!(
                "replay of {src}: nothing to terminate (this is a recording)"
            ));
            return;
        }
        let Some(r) = self.selected_row().copied() else {
            return;
        };
        let p = self.process(&r);
        let name = p.display_name().to_string();
        let warning = match self.terminator.check(p.pid, p.start_time, &name) {
            Check::Allowed => None,
            Check::SecondConfirmation(why) => Some(why),
            Check::Refused(why) => {
                self.message = Some(format!("will not end PID {} ({name}): {why}", p.pid));
                return;
            }
        };
        self.overlay = Overlay::Confirm(Confirm {
            pid: p.pid,
            start_time: p.start_time,
            warning,
            memory: self.memory_summary(p),
            name,
            force,
            stage: 1,
        });
    }

    fn confirm_key(&mut self, mut c: Confirm, key: KeyEvent, now: Instant) {
        if !matches!(key.code, KeyCode::Char('y') | KeyCode::Char('Y')) {
            self.overlay = Overlay::None;
            self.message = Some(format!(
                "cancelled: PID {} ({}) left running",
                c.pid, c.name
            ));
            return;
        }
        if c.stage == 1 && c.warning.is_some() {
            c.stage = 2;
            self.overlay = Overlay::Confirm(c);
            return;
        }
        self.overlay = Overlay::None;
        let verb = if c.force { "kill" } else { "terminate" };
        self.message = Some(
            match self.terminator.terminate(c.pid, c.start_time, c.force) {
                Outcome::Requested => {
                    self.pending.push(PendingKill {
                        pid: c.pid,
                        start_time: c.start_time,
                        name: c.name.clone(),
                        force: c.force,
                        since: now,
                    });
                    format!(
                        "{verb} requested for PID {} ({}): waiting to see it gone",
                        c.pid, c.name
                    )
                }
                Outcome::Refused(why) => {
                    format!("{verb} PID {} ({}) refused: {why}", c.pid, c.name)
                }
                Outcome::NotAvailable(why) => format!("cannot {verb} PID {}: {why}", c.pid),
            },
        );
    }

    // ---- export ------------------------------------------------------------------------------

    pub fn default_export_path(&self) -> String {
        let stamp: String = self
            .snapshot
            .as_ref()
            .map(|s| s.taken_at.clone())
            .unwrap_or_default()
            .chars()
            .filter(|c| c.is_ascii_alphanumeric())
            .collect();
        self.export_dir
            .join(format!("gpuledger-{stamp}.csv"))
            .display()
            .to_string()
    }

    fn export_key(&mut self, mut path: String, key: KeyEvent) {
        match key.code {
            KeyCode::Esc => {
                self.overlay = Overlay::None;
                self.message = Some("export cancelled".into());
            }
            KeyCode::Enter if path.trim().is_empty() => {
                self.message = Some("export: type a file name first (Esc cancels)".into());
                self.overlay = Overlay::Export(path);
            }
            KeyCode::Enter => {
                self.overlay = Overlay::None;
                self.message = Some(match self.export_csv(Path::new(&path)) {
                    Ok(n) => {
                        let shown = std::fs::canonicalize(&path)
                            .map(|p| p.display().to_string())
                            .unwrap_or(path);
                        format!("exported {n} rows to {shown}")
                    }
                    Err(e) => e,
                });
            }
            KeyCode::Backspace => {
                path.pop();
                self.overlay = Overlay::Export(path);
            }
            KeyCode::Char(ch) => {
                path.push(ch);
                self.overlay = Overlay::Export(path);
            }
            _ => {}
        }
    }

    /// Write the rows as shown (filter, sort, tree) to `path`. Unknown values are empty cells with
    /// their reason in the next column, never 0. Refuses to overwrite.
    pub fn export_csv(&self, path: &Path) -> Result<usize, String> {
        // The data directory may not exist yet on a first export.
        if let Some(dir) = path.parent().filter(|d| !d.as_os_str().is_empty()) {
            std::fs::create_dir_all(dir)
                .map_err(|e| format!("cannot export to {}: {e}", path.display()))?;
        }
        let file = std::fs::OpenOptions::new()
            .write(true)
            .create_new(true)
            .open(path)
            .map_err(|e| format!("cannot export to {}: {e}", path.display()))?;
        let mut w = csv::Writer::from_writer(file);
        let err = |e: csv::Error| format!("cannot export to {}: {e}", path.display());
        w.write_record([
            "device",
            "pid",
            "start_time",
            "user",
            "name",
            "workload",
            "type",
            "memory_bytes",
            "memory_source",
            "memory_unavailable_reason",
            "gpu_percent",
            "gpu_unavailable_reason",
            "cpu_percent",
            "rss_bytes",
            "host_unavailable_reason",
            "command",
        ])
        .map_err(err)?;
        let opt = |v: Option<String>| v.unwrap_or_default();
        for r in &self.rows {
            let p = self.process(r);
            let u = self.usage(r);
            let h = self.host.get(&p.pid);
            w.write_record([
                self.device_of(r)
                    .map(|d| d.label())
                    .unwrap_or_else(|| u.device.clone()),
                p.pid.to_string(),
                opt(p.start_time.map(|v| v.to_string())),
                opt(p.user.clone()),
                opt(p.name.clone()),
                opt(self.workload(p)),
                u.kinds_label(),
                opt(u.memory_bytes.map(|v| v.to_string())),
                u.memory_source.clone(),
                opt(u.unavailable_reason.clone()),
                opt(u.engines.sm_percent.map(|v| v.to_string())),
                opt(u.engines.unavailable_reason.clone()),
                opt(h.and_then(|h| h.cpu_percent).map(|v| format!("{v:.1}"))),
                opt(h.and_then(|h| h.rss_bytes).map(|v| v.to_string())),
                opt(h.and_then(|h| h.reason.clone())),
                // Command lines are stored redacted by the sources (model::redact_arg_list).
                opt(p.cmdline.as_ref().map(|c| c.join(" "))),
            ])
            .map_err(err)?;
        }
        w.flush()
            .map_err(|e| format!("cannot export to {}: {e}", path.display()))?;
        Ok(self.rows.len())
    }

    /// Every value of the selected row that is unknown, with why.
    pub fn unknown_reasons(&self) -> Vec<(String, String)> {
        let Some(r) = self.selected_row() else {
            return vec![];
        };
        let p = self.process(r);
        let u = self.usage(r);
        let mut v = Vec::new();
        if let Some(m) = &p.metadata_unavailable {
            v.push(("name, user, command".into(), m.clone()));
        }
        if u.memory_bytes.is_none() {
            v.push((
                "GPU memory".into(),
                u.unavailable_reason
                    .clone()
                    .unwrap_or_else(|| format!("{} gave no value and no reason", u.memory_source)),
            ));
        }
        if u.engines.sm_percent.is_none() {
            v.push((
                "GPU %".into(),
                u.engines
                    .unavailable_reason
                    .clone()
                    .unwrap_or_else(|| "no per-process utilisation samples".into()),
            ));
        }
        if self.workload(p).is_none() {
            v.push((
                "workload".into(),
                "not identified: no evidence pointed to a known runtime (see the evidence pane)"
                    .into(),
            ));
        }
        match self.host.get(&p.pid) {
            None => v.push((
                "CPU %, RSS".into(),
                if self.replay.is_some() {
                    "a saved snapshot has no host CPU/RSS figures".into()
                } else if self.remote.is_some() {
                    "the remote server does not send host CPU/RSS figures".into()
                } else {
                    "not sampled yet".into()
                },
            )),
            Some(h) if h.cpu_percent.is_none() || h.rss_bytes.is_none() => v.push((
                "CPU %, RSS".into(),
                h.reason.clone().unwrap_or_else(|| "not read".into()),
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

/// `2026-11-29T09:00:00Z` (or with fractional seconds) as Unix seconds; `None` for anything else.
pub fn unix_secs(s: &str) -> Option<i64> {
    let b = s.as_bytes();
    if b.len() < 20 || b[4] != b'-' || b[7] != b'-' || b[10] != b'T' || !s.ends_with('Z') {
        return None;
    }
    let n = |r: std::ops::Range<usize>| s.get(r)?.parse::<i64>().ok();
    let (y, m, d) = (n(0..4)?, n(5..7)?, n(8..10)?);
    let (hh, mm, ss) = (n(11..13)?, n(14..16)?, n(17..19)?);
    if !(1..=12).contains(&m) || !(1..=31).contains(&d) || hh > 23 || mm > 59 || ss > 60 {
        return None;
    }
    // Days from the civil date (Howard Hinnant's algorithm).
    let y = if m <= 2 { y - 1 } else { y };
    let era = y.div_euclid(400);
    let yoe = y - era * 400;
    let doy = (153 * ((m + 9) % 12) + 2) / 5 + d - 1;
    let doe = yoe * 365 + yoe / 4 - yoe / 100 + doy;
    let days = era * 146_097 + doe - 719_468;
    Some(days * 86_400 + hh * 3600 + mm * 60 + ss)
}

/// Run time as nvitop and ps show it: `59:07`, `10:29:59`, `3d 04h`.
pub fn fmt_runtime(secs: u64) -> String {
    let (d, h, m, s) = (secs / 86_400, secs / 3600 % 24, secs / 60 % 60, secs % 60);
    if d > 0 {
        format!("{d}d {h:02}h")
    } else if h > 0 {
        format!("{h}:{m:02}:{s:02}")
    } else {
        format!("{m}:{s:02}")
    }
}

pub fn fmt_interval(d: Duration) -> String {
    let ms = d.as_millis();
    if ms < 1000 {
        format!("{ms} ms")
    } else if ms.is_multiple_of(1000) {
        format!("{} s", ms / 1000)
    } else {
        format!("{:.1} s", d.as_secs_f64())
    }
}

#[derive(Debug, Clone, PartialEq, PartialOrd)]
enum SortVal {
    Num(Option<f64>),
    Text(Option<String>),
}

impl SortVal {
    fn is_known(&self) -> bool {
        match self {
            SortVal::Num(v) => v.is_some(),
            SortVal::Text(v) => v.is_some(),
        }
    }

    fn cmp(&self, other: &SortVal) -> Ordering {
        self.partial_cmp(other).unwrap_or(Ordering::Equal)
    }
}
