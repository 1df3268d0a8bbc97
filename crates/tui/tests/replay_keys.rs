//! A replay (and a remote view) does not offer the keys that act on this machine's live
//! processes, and says why when one is pressed anyway (issue 40: a replay still offered T/K/e).

use gpuledger_tui::app::{Effect, Overlay};
use gpuledger_tui::{App, ThemeKind};
use std::time::{Duration, Instant};

mod support;
use support::{key, sample, screen};

fn replay(t0: Instant) -> App {
    App::new(ThemeKind::Dark, Duration::from_secs(1), t0).replay(sample(), "sample.json".into(), t0)
}

fn live(t0: Instant) -> App {
    let mut app = App::new(ThemeKind::Dark, Duration::from_secs(1), t0);
    app.apply(support::round(sample()), t0);
    app
}

fn footer(s: &str) -> &str {
    s.lines().last().unwrap()
}

#[test]
fn the_live_footer_offers_what_the_replay_footer_does_not() {
    let t0 = Instant::now();
    let s = screen(&mut live(t0), 200, 50, t0);
    for hint in ["T term", "K kill", "e env", "+/- interval"] {
        assert!(footer(&s).contains(hint), "live footer lacks {hint}: {s}");
    }
    let s = screen(&mut replay(t0), 200, 50, t0);
    for hint in ["T term", "K kill", "e env", "+/- interval"] {
        assert!(!footer(&s).contains(hint), "replay offers {hint}: {s}");
    }
    assert!(footer(&s).contains("q quit"), "{s}");
    assert!(footer(&s).contains("x export"), "{s}");
}

#[test]
fn the_replay_help_names_what_acts_on_the_live_machine_only_once() {
    let t0 = Instant::now();
    let mut app = replay(t0);
    app.handle_key(key('?'), t0);
    let s = screen(&mut app, 100, 30, t0);
    assert!(!s.contains("terminate / force kill"), "{s}");
    assert!(!s.contains("the process's environment"), "{s}");
    assert!(!s.contains("refresh interval"), "{s}");
    assert!(
        s.contains("replay of sample.json: T K Space e o, + - act on the live machine, not here"),
        "{s}"
    );
    // The live view's help still lists them.
    let mut app = live(t0);
    app.handle_key(key('?'), t0);
    let s = screen(&mut app, 100, 30, t0);
    assert!(s.contains("terminate / force kill"), "{s}");
    assert!(!s.contains("act on the live machine"), "{s}");
}

#[test]
fn pressed_in_a_replay_each_live_key_says_why_and_does_nothing() {
    let t0 = Instant::now();
    let mut app = replay(t0);
    screen(&mut app, 120, 40, t0);
    for (k, said) in [
        ('T', "nothing to terminate"),
        ('K', "nothing to terminate"),
        (' ', "nothing to tag"),
        ('o', "on the other machine"),
        ('+', "no interval to change"),
    ] {
        app.message = None;
        assert_eq!(app.handle_key(key(k), t0), Vec::<Effect>::new(), "{k:?}");
        let m = app.message.clone().unwrap_or_default();
        assert!(m.contains(said), "{k:?}: {m:?}");
        assert_eq!(app.overlay, Overlay::None, "{k:?}");
        assert!(app.table.tagged.is_empty());
    }
    assert_eq!(app.interval, Duration::from_secs(1));
    app.handle_key(key('e'), t0);
    match &app.overlay {
        Overlay::Env(v) => assert!(
            v.lines
                .as_ref()
                .unwrap_err()
                .contains("does not keep environments"),
            "{v:?}"
        ),
        o => panic!("{o:?}"),
    }
}
