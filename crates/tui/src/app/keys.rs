//! Keys and mouse: what each does to the state, and the effects it asks the loop to run.

use super::{
    fmt_interval, fmt_runtime, AlsoTarget, App, Confirm, Effect, EnvView, Overlay,
    INTERVAL_STEPS_MS,
};
use crate::actions::{osc52, Check};
use crate::theme::{Theme, ThemeKind};
use gpuledger_model::units::human_bytes;
use gpuledger_model::words;
use gpuledger_model::Process;
use ratatui::crossterm::event::{
    KeyCode, KeyEvent, KeyModifiers, MouseButton, MouseEvent, MouseEventKind,
};
use std::path::Path;
use std::time::{Duration, Instant};

impl App {
    pub fn handle_key(&mut self, key: KeyEvent, now: Instant) -> Vec<Effect> {
        if key.modifiers.contains(KeyModifiers::CONTROL) && key.code == KeyCode::Char('c') {
            return vec![Effect::Quit];
        }
        if self.overlay != Overlay::None {
            self.overlay_key(key, now);
            return vec![];
        }
        if self.table.filter_editing {
            self.filter_key(key);
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
                } else if !self.table.filter.is_empty() {
                    self.table.filter.clear();
                    self.rebuild();
                } else {
                    return vec![Effect::Quit];
                }
            }
            KeyCode::Char('?') | KeyCode::F(1) => self.overlay = Overlay::Help,
            KeyCode::Char('/') => {
                self.table.filter_editing = true;
            }
            KeyCode::Down | KeyCode::Char('j') => self.select(self.table.selected + 1),
            KeyCode::Up | KeyCode::Char('k') => self.select(self.table.selected.saturating_sub(1)),
            KeyCode::PageDown => self.select(self.table.selected + page),
            KeyCode::PageUp => self.select(self.table.selected.saturating_sub(page)),
            KeyCode::Home | KeyCode::Char('g') => self.select(0),
            KeyCode::End | KeyCode::Char('G') => self.select(usize::MAX),
            KeyCode::Char('s') | KeyCode::Char('>') | KeyCode::Right => self.cycle_sort(true),
            KeyCode::Char('<') | KeyCode::Left => self.cycle_sort(false),
            KeyCode::Char('r') | KeyCode::Char('I') => {
                self.table.descending = !self.table.descending;
                self.rebuild();
            }
            KeyCode::Char('D') => {
                self.table.by_device = !self.table.by_device;
                self.rebuild();
            }
            KeyCode::Char('t') => {
                self.table.tree = !self.table.tree;
                self.rebuild();
            }
            KeyCode::Char('+') | KeyCode::Char('=') => return self.step_interval(true),
            KeyCode::Char('-') | KeyCode::Char('_') => return self.step_interval(false),
            KeyCode::Enter | KeyCode::Char('i') if self.selected_row().is_some() => {
                self.overlay = Overlay::Details(0);
            }
            KeyCode::Char(' ') => self.toggle_tag(),
            KeyCode::Char('f') => self.toggle_group_fold(),
            // `e` as in nvitop (the environment is read-only, so a nvitop user's habit does what
            // they expect); `v` as before.
            KeyCode::Char('e') | KeyCode::Char('v') => self.show_env(),
            KeyCode::Char('l') => {
                self.table.row_scroll = (self.table.row_scroll + 8).min(self.geometry.max_scroll)
            }
            KeyCode::Char('h') => self.table.row_scroll = self.table.row_scroll.saturating_sub(8),
            KeyCode::Char('T') | KeyCode::F(9) => self.ask_terminate(false),
            KeyCode::Char('K') => self.ask_terminate(true),
            KeyCode::Char('c') => return self.copy_pid(),
            KeyCode::Char('o') => return self.open_folder(),
            KeyCode::Char('x') => {
                self.overlay = Overlay::Export(self.default_export_path());
            }
            KeyCode::Char('C') => self.theme = Theme::new(self.theme.kind.next()),
            KeyCode::Char('m') => self.toggle_mono(),
            KeyCode::Char('w') => self.cycle_chart_window(),
            _ => {}
        }
        vec![]
    }

    /// Monochrome on, or back to the theme it replaced.
    fn toggle_mono(&mut self) {
        if self.theme.kind == ThemeKind::Mono {
            self.theme = Theme::new(self.theme_before_mono);
        } else {
            self.theme_before_mono = self.theme.kind;
            self.theme = Theme::new(ThemeKind::Mono);
        }
    }

    /// The history chart's window: 1, 5, then 10 minutes, and round again.
    fn cycle_chart_window(&mut self) {
        self.chart_minutes = match self.chart_minutes {
            1 => 5,
            5 => 10,
            _ => 1,
        }
    }

    /// A key while an overlay is open: it belongs to the overlay (scroll, answer, close).
    fn overlay_key(&mut self, key: KeyEvent, now: Instant) {
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
            }
            Overlay::Env(mut v) => {
                match key.code {
                    KeyCode::Down | KeyCode::Char('j') => v.scroll += 1,
                    KeyCode::Up | KeyCode::Char('k') => v.scroll = v.scroll.saturating_sub(1),
                    KeyCode::PageDown => v.scroll += 10,
                    KeyCode::PageUp => v.scroll = v.scroll.saturating_sub(10),
                    _ => {
                        self.overlay = Overlay::None;
                        return;
                    }
                }
                let n = v.lines.as_ref().map_or(0, Vec::len);
                v.scroll = v.scroll.min(n.saturating_sub(1));
                self.overlay = Overlay::Env(v);
            }
            Overlay::Details(at) => self.details_key(at, key),
            Overlay::Confirm(c) => self.confirm_key(c, key, now),
            Overlay::Export(path) => self.export_key(path, key),
            Overlay::None => {}
        }
    }

    /// A key in the details pop-up: scroll it (as far as the last frame says there is), or
    /// close it.
    fn details_key(&mut self, at: u16, key: KeyEvent) {
        let (max, page) = (self.geometry.details_max, self.geometry.details_page.max(1));
        let at = match key.code {
            KeyCode::Esc | KeyCode::Enter | KeyCode::Char('i') | KeyCode::Char('q') => {
                self.overlay = Overlay::None;
                return;
            }
            KeyCode::Down | KeyCode::Char('j') => at.saturating_add(1),
            KeyCode::Up | KeyCode::Char('k') => at.saturating_sub(1),
            KeyCode::PageDown | KeyCode::Char(' ') => at.saturating_add(page),
            KeyCode::PageUp => at.saturating_sub(page),
            KeyCode::Home | KeyCode::Char('g') => 0,
            KeyCode::End | KeyCode::Char('G') => max,
            _ => at,
        };
        self.overlay = Overlay::Details(at.min(max));
    }

    /// A key while the filter is being typed: it edits the filter.
    fn filter_key(&mut self, key: KeyEvent) {
        match key.code {
            KeyCode::Enter => self.table.filter_editing = false,
            KeyCode::Esc => {
                self.table.filter.clear();
                self.table.filter_editing = false;
                self.rebuild();
            }
            KeyCode::Backspace => {
                self.table.filter.pop();
                self.rebuild();
            }
            KeyCode::Char(ch) => {
                self.table.filter.push(ch);
                self.rebuild();
            }
            _ => {}
        }
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
                    if i < self.table.rows.len() {
                        self.select(i);
                    }
                }
            }
            MouseEventKind::ScrollDown => self.select(self.table.selected + 1),
            MouseEventKind::ScrollUp => self.select(self.table.selected.saturating_sub(1)),
            _ => {}
        }
    }

    pub(super) fn step_interval(&mut self, longer: bool) -> Vec<Effect> {
        if let Some(src) = &self.replay {
            let src = [("src", src.as_str().into())];
            self.message = Some(self.lang.t_args("tui-msg-replay-no-interval", &src));
            return vec![];
        }
        let cur = self.interval.as_millis() as u64;
        let next = if longer {
            INTERVAL_STEPS_MS.iter().copied().find(|&s| s > cur)
        } else {
            INTERVAL_STEPS_MS.iter().rev().copied().find(|&s| s < cur)
        };
        match next {
            Some(ms) => {
                self.interval = Duration::from_millis(ms);
                let every = [("interval", fmt_interval(self.interval).into())];
                self.message = Some(self.lang.t_args("tui-msg-refresh-every", &every));
                vec![Effect::SetInterval(self.interval)]
            }
            None => {
                self.message = Some(if longer {
                    let longest = [("interval", fmt_interval(self.interval).into())];
                    self.lang.t_args("tui-msg-longest-interval", &longest)
                } else {
                    self.lang.t("tui-msg-shortest-interval")
                });
                vec![]
            }
        }
    }

    pub(super) fn copy_pid(&mut self) -> Vec<Effect> {
        let Some(r) = self.selected_row().copied() else {
            return vec![];
        };
        let pid = self.process(&r).pid;
        let args = [("pid", pid.to_string().into())];
        self.message = Some(self.lang.t_args("tui-msg-copied", &args));
        vec![Effect::Write(osc52(&pid.to_string()))]
    }

    /// The selected process's executable folder, for the file manager.
    pub(super) fn open_folder(&mut self) -> Vec<Effect> {
        let Some(r) = self.selected_row().copied() else {
            return vec![];
        };
        if self.replay.is_some() || self.remote.is_some() {
            self.message = Some(self.lang.t("tui-msg-folder-elsewhere"));
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
                let args = [
                    ("dir", dir.display().to_string().into()),
                    ("name", p.display_name().to_string().into()),
                    ("pid", p.pid.to_string().into()),
                ];
                self.message = Some(self.lang.t_args("tui-msg-opening-folder", &args));
                vec![Effect::OpenFolder(dir)]
            }
            None => {
                let why = match &p.metadata_unavailable {
                    Some(why) => why.in_lang(self.lang),
                    None => self.lang.t("tui-msg-exe-not-readable"),
                };
                let args = [("pid", p.pid.to_string().into()), ("why", why.into())];
                self.message = Some(self.lang.t_args("tui-msg-exe-unknown", &args));
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
                    Some(b) => self.lang.t_args(
                        "tui-confirm-memory-on",
                        &[("bytes", human_bytes(b).into()), ("dev", dev.into())],
                    ),
                    None => self
                        .lang
                        .t_args("tui-confirm-memory-unknown", &[("dev", dev.into())]),
                }
            })
            .collect();
        if parts.is_empty() {
            self.lang.t("tui-confirm-no-memory")
        } else {
            parts.join(self.lang.t("tui-list-separator").as_str())
        }
    }

    pub(super) fn ask_terminate(&mut self, force: bool) {
        if let Some(url) = &self.remote {
            let url = [("url", url.as_str().into())];
            self.message = Some(self.lang.t_args("tui-msg-remote-no-kill", &url));
            return;
        }
        if let Some(src) = &self.replay {
            let src = [("src", src.as_str().into())];
            self.message = Some(self.lang.t_args("tui-msg-replay-no-kill", &src));
            return;
        }
        if !self.table.tagged.is_empty() {
            return self.ask_terminate_tagged(force);
        }
        let Some(r) = self.selected_row().copied() else {
            return;
        };
        if let Some(root) = r.group {
            return self.ask_terminate_group(root, force);
        }
        let p = self.process(&r);
        let name = p.display_name().to_string();
        let warning = match self.terminator.check(p.pid, p.start_time, &name) {
            Check::Allowed => None,
            Check::SecondConfirmation(why) => Some(why.in_lang(self.lang)),
            Check::Refused(why) => {
                let args = [
                    ("pid", p.pid.to_string().into()),
                    ("name", name.as_str().into()),
                    ("why", why.in_lang(self.lang).into()),
                ];
                self.message = Some(self.lang.t_args("tui-msg-will-not-end", &args));
                return;
            }
        };
        let l = self.lang;
        let user = words::or_unknown(p.user.as_deref()).to_string();
        let mut detail = vec![l.t_args("tui-confirm-user", &[("user", user.into())])];
        if let Some(secs) = self.run_secs(p) {
            let time = [("time", fmt_runtime(secs).into())];
            detail.push(l.t_args("tui-confirm-running", &time));
        }
        if let Some(cmd) = &p.cmdline {
            // Command lines are stored redacted by the sources.
            let cmd = [("cmd", cmd.join(" ").into())];
            detail.push(l.t_args("tui-confirm-command", &cmd));
        }
        self.overlay = Overlay::Confirm(Confirm {
            pid: p.pid,
            start_time: p.start_time,
            warning,
            memory: self.memory_summary(p),
            detail: detail.join(" · "),
            name,
            force,
            stage: 1,
            also: Vec::new(),
            tagged: false,
        });
    }

    /// With tags, T / K ask about the tagged processes only, as nvitop does: the row under the
    /// cursor is not added. The first is the confirmation's own, the rest `also`.
    fn ask_terminate_tagged(&mut self, force: bool) {
        let mut targets = match self.tagged_targets() {
            Ok(t) => t,
            Err(why) => {
                self.message = Some(why);
                return;
            }
        };
        if targets.is_empty() {
            return;
        }
        let first = targets.remove(0);
        self.overlay = Overlay::Confirm(Confirm {
            pid: first.pid,
            start_time: first.start_time,
            name: first.name,
            memory: String::new(),
            detail: first.detail,
            force,
            warning: None,
            stage: 1,
            also: targets,
            tagged: true,
        });
    }

    /// The tagged processes, in table order (then any the filter hides, by PID), each with the
    /// line that tells it apart; or why one of them may not be signalled (then nothing is).
    fn tagged_targets(&self) -> Result<Vec<AlsoTarget>, String> {
        let Some(snap) = self.snapshot.as_ref() else {
            return Ok(Vec::new());
        };
        let mut order: Vec<(u32, Option<u64>)> = Vec::new();
        let shown = self.table.rows.iter().map(|r| self.process(r));
        for key in shown
            .map(|p| (p.pid, p.start_time))
            .chain(self.table.tagged.iter().copied())
        {
            if self.table.tagged.contains(&key) && !order.contains(&key) {
                order.push(key);
            }
        }
        let mut targets = Vec::new();
        for (pid, st) in order {
            let Some(p) = snap
                .processes
                .iter()
                .find(|p| p.pid == pid && p.start_time == st)
            else {
                continue;
            };
            let name = p.display_name().to_string();
            if let Check::Refused(why) | Check::SecondConfirmation(why) =
                self.terminator.check(pid, st, &name)
            {
                let args = [
                    ("pid", pid.to_string().into()),
                    ("name", name.into()),
                    ("why", why.in_lang(self.lang).into()),
                ];
                return Err(self.lang.t_args("tui-msg-tagged-refused", &args));
            }
            let cmd = p.cmdline.as_ref().map(|c| c.join(" ")).unwrap_or_default();
            targets.push(AlsoTarget {
                pid,
                start_time: st,
                detail: self.lang.t_args(
                    "tui-confirm-tagged-detail",
                    &[
                        (
                            "user",
                            words::or_unknown(p.user.as_deref()).to_string().into(),
                        ),
                        ("memory", self.memory_summary(p).into()),
                        ("cmd", cmd.into()),
                    ],
                ),
                name,
            });
        }
        Ok(targets)
    }

    fn toggle_tag(&mut self) {
        // Tags only choose what T / K signal, which act on this machine's live processes.
        if let Some(why) = self.not_live() {
            self.message = Some(
                self.lang
                    .t_args("tui-msg-nothing-to-tag", &[("why", why.into())]),
            );
            return;
        }
        let Some(r) = self.selected_row().copied() else {
            return;
        };
        let p = self.process(&r);
        let key = (p.pid, p.start_time);
        if !self.table.tagged.remove(&key) {
            self.table.tagged.insert(key);
        }
        let n = [("n", self.table.tagged.len().to_string().into())];
        self.message = Some(self.lang.t_args("tui-msg-tagged", &n));
        // As nvitop's Space: on to the next row, so a run of rows is one key each.
        self.select(self.table.selected + 1);
    }

    /// `v`: the selected process's environment, read now (bounded) by the sources crate: values
    /// of known-safe names only, through the detector (`gpuledger_model::redact::env`).
    fn show_env(&mut self) {
        let Some(r) = self.selected_row().copied() else {
            return;
        };
        let p = self.process(&r);
        let (pid, name) = (p.pid, p.display_name().to_string());
        let lines = if let Some(src) = &self.replay {
            let src = [("src", src.as_str().into())];
            Err(self.lang.t_args("tui-msg-replay-no-env", &src))
        } else if let Some(url) = &self.remote {
            let url = [("url", url.as_str().into())];
            Err(self.lang.t_args("tui-msg-remote-no-env", &url))
        } else {
            gpuledger_sources::environ::read_environ(&self.proc_root, pid, p.start_time)
        };
        self.overlay = Overlay::Env(EnvView {
            pid,
            name,
            lines,
            scroll: 0,
        });
    }
}
