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
use std::sync::mpsc::{self, Receiver, RecvTimeoutError, Sender};
use std::time::{Duration, Instant};

/// What wakes the terminal loop: a terminal event, a round handed over, or the terminal failing.
enum Wake {
    Input(Event),
    Round,
    Failed(io::Error),
}

/// The longest the loop sleeps with nothing arriving: the stale-age display counts seconds and
/// a footer message expires, both on a one-second grain.
const IDLE_WAKE: Duration = Duration::from_secs(1);

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
        let (wake, woken) = mpsc::channel();
        spawn_input(wake.clone());
        let feed = source.map(|s| {
            Feed::spawn_waking(s, app.interval, move || {
                let _ = wake.send(Wake::Round);
            })
        });
        event_loop(&mut terminal, &mut app, feed.as_ref(), &woken)
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

/// Read terminal events on their own thread, which blocks in the read: the loop then sleeps until
/// a key, a round or [`IDLE_WAKE`], instead of waking ten times a second to poll (at 200
/// processes that polling was an eighth of the view's CPU). The thread ends with the process.
fn spawn_input(wake: Sender<Wake>) {
    let read = move || loop {
        let w = match event::read() {
            Ok(e) => Wake::Input(e),
            Err(e) => Wake::Failed(e),
        };
        let failed = matches!(w, Wake::Failed(_));
        if wake.send(w).is_err() || failed {
            return;
        }
    };
    if let Err(e) = std::thread::Builder::new()
        .name("gpuledger-input".into())
        .spawn(read)
    {
        eprintln!("gpuledger: cannot start the input thread: {e}");
    }
}

fn event_loop(
    terminal: &mut Term,
    app: &mut App,
    feed: Option<&Feed>,
    woken: &Receiver<Wake>,
) -> io::Result<()> {
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
        // Sleep until a key, a round or the idle wake; nothing is drawn unless something
        // changed, which keeps an idle view near zero CPU.
        match woken.recv_timeout(IDLE_WAKE) {
            Ok(Wake::Input(e)) => {
                if l.handle_event(terminal, app, e)?.is_break() {
                    return Ok(());
                }
            }
            Ok(Wake::Failed(e)) => return Err(e),
            Ok(Wake::Round) | Err(RecvTimeoutError::Timeout) => {}
            Err(RecvTimeoutError::Disconnected) => {
                return Err(io::Error::other("the terminal's input thread ended"))
            }
        }
    }
}

impl Loop<'_> {
    /// Apply what arrived since the last frame; note whether the screen must change.
    fn take_rounds(&mut self, app: &mut App, now: Instant) {
        if let Some(feed) = self.feed {
            // Only the newest round matters; older ones were already dropped by the feed.
            while let Ok(upd) = feed.rx.try_recv() {
                if let Some(old) = app.apply(upd, now) {
                    feed.recycle(old);
                }
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

    /// Carry out what the app asks for on one terminal event; `Break` to quit.
    fn handle_event(
        &mut self,
        terminal: &mut Term,
        app: &mut App,
        event: Event,
    ) -> io::Result<ControlFlow<()>> {
        let effects = match event {
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
