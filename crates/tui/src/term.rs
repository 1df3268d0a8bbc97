//! The terminal loop: raw mode, alternate screen, mouse; restored on every exit path, panics
//! included.

use crate::app::{App, Effect};
use crate::feed::{Feed, RoundSource};
use crate::ui;
use ratatui::crossterm::event::{
    self, DisableMouseCapture, EnableMouseCapture, Event, KeyEventKind,
};
use ratatui::crossterm::execute;
use ratatui::crossterm::terminal::{
    disable_raw_mode, enable_raw_mode, EnterAlternateScreen, LeaveAlternateScreen,
};
use ratatui::prelude::CrosstermBackend;
use ratatui::Terminal;
use std::io::{self, IsTerminal, Write};
use std::ops::ControlFlow;
use std::time::{Duration, Instant};

fn restore() {
    let _ = disable_raw_mode();
    let _ = execute!(
        io::stdout(),
        DisableMouseCapture,
        LeaveAlternateScreen,
        ratatui::crossterm::cursor::Show
    );
}

/// Leave the terminal usable even when the program panics: restore first, then let the previous
/// hook print the message on the normal screen.
fn install_panic_hook() {
    let prev = std::panic::take_hook();
    std::panic::set_hook(Box::new(move |info| {
        restore();
        prev(info);
    }));
}

/// Run the view until the user quits. `source` is `None` for a replay (the app already holds
/// the snapshot).
pub fn run(mut app: App, source: Option<Box<dyn RoundSource>>) -> io::Result<()> {
    if !io::stdout().is_terminal() {
        return Err(io::Error::other(
            "the live view needs a terminal on stdout; use `gpuledger snapshot` for text or JSON",
        ));
    }
    install_panic_hook();
    enable_raw_mode()?;
    let mut out = io::stdout();
    if let Err(e) = execute!(out, EnterAlternateScreen, EnableMouseCapture) {
        restore();
        return Err(e);
    }
    let result = (|| {
        let mut terminal = Terminal::new(CrosstermBackend::new(io::stdout()))?;
        terminal.clear()?;
        let feed = source.map(|s| Feed::spawn(s, app.interval));
        event_loop(&mut terminal, &mut app, feed.as_ref())
    })();
    restore();
    result
}

type Term = Terminal<CrosstermBackend<io::Stdout>>;

/// The loop's own state between frames: draw when something changed, then handle one event.
struct Loop<'a> {
    feed: Option<&'a Feed>,
    dirty: bool,
    /// What the title showed last time for the stale age, to redraw once a second while stale.
    shown_stale: Option<u64>,
    /// What the feed was last told to read host figures for.
    sent_need: crate::feed::HostNeed,
}

fn event_loop(terminal: &mut Term, app: &mut App, feed: Option<&Feed>) -> io::Result<()> {
    let mut l = Loop {
        feed,
        dirty: true,
        shown_stale: None,
        sent_need: crate::feed::HostNeed::All,
    };
    loop {
        let now = Instant::now();
        l.take_rounds(app, now);
        if l.dirty {
            l.draw(terminal, app, now)?;
        }
        // Wake a few times a second to pick up rounds; nothing is drawn unless something changed,
        // which keeps an idle view near zero CPU.
        if event::poll(Duration::from_millis(100))? && l.handle_event(terminal, app)?.is_break() {
            return Ok(());
        }
    }
}

impl Loop<'_> {
    /// Apply what arrived since the last frame; note whether the screen must change.
    fn take_rounds(&mut self, app: &mut App, now: Instant) {
        if let Some(feed) = self.feed {
            // Only the newest round matters; older ones were already dropped by the feed.
            while let Ok(upd) = feed.rx.try_recv() {
                app.apply(upd, now);
                self.dirty = true;
            }
        }
        if app.expire_message(now) {
            self.dirty = true;
        }
        let stale = app.stale_age(now).map(|d| d.as_secs());
        if stale != self.shown_stale {
            self.shown_stale = stale;
            self.dirty = true;
        }
    }

    /// Draw one frame, then tell the feed which rows need host figures.
    fn draw(&mut self, terminal: &mut Term, app: &mut App, now: Instant) -> io::Result<()> {
        let mut drawn = None;
        terminal.draw(|f| drawn = Some(ui::draw(f, app, now)))?;
        if let Some(g) = drawn {
            app.geometry = g;
        }
        if let Some(feed) = self.feed {
            let need = app.host_need();
            if need != self.sent_need {
                feed.set_host_need(need.clone());
                self.sent_need = need;
            }
        }
        self.dirty = false;
        // Test seam (debug builds only): prove the panic hook restores the terminal.
        #[cfg(debug_assertions)]
        if app.snapshot.is_some() && std::env::var_os("GPULEDGER_TEST_PANIC").is_some() {
            panic!("GPULEDGER_TEST_PANIC: deliberate panic after drawing");
        }
        Ok(())
    }

    /// Read one terminal event and carry out what the app asks for; `Break` to quit.
    fn handle_event(&mut self, terminal: &mut Term, app: &mut App) -> io::Result<ControlFlow<()>> {
        let effects = match event::read()? {
            Event::Key(k) if k.kind != KeyEventKind::Release => app.handle_key(k, Instant::now()),
            Event::Mouse(m) => {
                app.handle_mouse(m);
                Vec::new()
            }
            Event::Resize(_, _) => {
                terminal.autoresize()?;
                Vec::new()
            }
            _ => Vec::new(),
        };
        self.dirty = true;
        for e in effects {
            match e {
                Effect::Quit => return Ok(ControlFlow::Break(())),
                Effect::SetInterval(d) => {
                    if let Some(feed) = self.feed {
                        feed.set_interval(d);
                    }
                }
                Effect::Write(s) => {
                    let mut out = io::stdout();
                    out.write_all(s.as_bytes())?;
                    out.flush()?;
                }
                Effect::OpenFolder(dir) => {
                    if let Err(e) = open_folder(&dir) {
                        app.message = Some(e);
                    }
                }
            }
        }
        Ok(ControlFlow::Continue(()))
    }
}

/// Hand a folder to the desktop's file manager, detached: its output must not reach our screen.
fn open_folder(dir: &std::path::Path) -> Result<(), String> {
    let opener = if cfg!(windows) {
        "explorer"
    } else if cfg!(target_os = "macos") {
        "open"
    } else {
        "xdg-open"
    };
    std::process::Command::new(opener)
        .arg(dir)
        .stdin(std::process::Stdio::null())
        .stdout(std::process::Stdio::null())
        .stderr(std::process::Stdio::null())
        .spawn()
        .map(|mut child| {
            // Reap it when it exits, so it does not linger as a zombie while the view runs.
            std::thread::spawn(move || child.wait());
        })
        .map_err(|e| format!("cannot open {} with {opener}: {e}", dir.display()))
}
