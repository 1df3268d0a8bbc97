//! Parsing `/proc/PID/stat` and `/proc/PID/status` (Linux). The stat parser is collection's
//! (`gpuledger_sources::procfs`); what only the kill flow needs is here. Pure functions over
//! text, so they are tested (and property-tested) on any input.

// `/proc/PID/stat` and the effective UID (the user the table shows): the one reader and parser,
// shared with collection.
pub use gpuledger_sources::procfs::{parse_stat, parse_uid as parse_status_uid, Stat, PF_KTHREAD};

/// The thread-group (process) ID from `/proc/PID/status` (`Tgid:`): differs from the ID read
/// when that ID is a thread.
pub fn parse_status_tgid(text: &str) -> Option<u32> {
    text.lines()
        .find_map(|l| l.strip_prefix("Tgid:"))
        .and_then(|v| v.trim().parse().ok())
}

/// What a state letter means (proc(5)).
pub fn describe_state(c: char) -> &'static str {
    match c {
        'R' => "running",
        'S' => "sleeping",
        'D' => "uninterruptible sleep",
        'Z' => "zombie",
        'T' => "stopped",
        't' => "stopped by a debugger (tracing stop)",
        'X' | 'x' => "dead",
        'K' => "wakekill",
        'W' => "waking / paging",
        'P' => "parked",
        'I' => "idle kernel thread",
        _ => "unknown state",
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use proptest::prelude::*;

    // A real line (kernel 6.x, `sleep 30`), fields 23.. shortened.
    const SLEEP: &str = "12345 (sleep) S 12000 12345 12000 34816 12345 4194304 97 0 0 0 0 0 0 0 20 0 1 0 987654 8331264 224 18446744073709551615 1 1 0 0 0 0 0 0 0 0 0 0 17 3 0 0 0 0 0\n";

    #[test]
    fn parses_real_line() {
        let s = parse_stat(SLEEP).unwrap();
        assert_eq!(
            s,
            Stat {
                comm: "sleep".into(),
                state: 'S',
                ppid: 12000,
                flags: 4194304,
                utime: 0,
                stime: 0,
                start_time: 987654,
                rss_pages: 224,
            }
        );
    }

    #[test]
    fn comm_with_parens_and_spaces() {
        let line = SLEEP.replace("(sleep)", "(a) b (c))");
        let s = parse_stat(&line).unwrap();
        assert_eq!(s.comm, "a) b (c)");
        assert_eq!(s.start_time, 987654);
    }

    #[test]
    fn kernel_thread_flag() {
        let line = "2 (kthreadd) S 0 0 0 0 -1 2129984 0 0 0 0 0 0 0 0 20 0 1 0 5 0 0 18446744073709551615 0 0 0 0 0 0 0 2147483647 0 0 0 0 0 1 0 0 0 0 0\n";
        let s = parse_stat(line).unwrap();
        assert!(s.flags & PF_KTHREAD != 0);
        assert_eq!(s.start_time, 5);
    }

    #[test]
    fn errors_name_the_field() {
        assert!(parse_stat("12 sleep S").unwrap_err().contains("'('"));
        assert!(parse_stat("12 (sleep) S 1 2")
            .unwrap_err()
            .contains("before field 22"));
        assert!(parse_stat(&SLEEP.replace(" S ", " SS "))
            .unwrap_err()
            .contains("state"));
        assert!(parse_stat(&SLEEP.replace(" 987654 ", " x "))
            .unwrap_err()
            .contains("field 22"));
        assert!(parse_stat(") (").is_err());
    }

    #[test]
    fn uid() {
        assert_eq!(
            parse_status_uid("Name:\tsleep\nUid:\t65534\t65534\t65534\t65534\nGid:\t0\n"),
            Some(65534)
        );
        assert_eq!(parse_status_uid("Name:\tx\n"), None);
        assert_eq!(
            parse_status_tgid("Name:\tx\nTgid:\t4242\nPid:\t4250\n"),
            Some(4242)
        );
        assert_eq!(parse_status_tgid("Tgid:\tx\n"), None);
    }

    proptest! {
        #[test]
        fn never_panics(s in "\\PC*") {
            let _ = parse_stat(&s);
            let _ = parse_status_uid(&s);
            let _ = parse_status_tgid(&s);
        }

        #[test]
        fn round_trips(comm in "[ -~]{0,15}", state in "[RSDZTtI]", ppid in any::<u32>(), flags in any::<u64>(), st in any::<u64>()) {
            let line = format!("77 ({comm}) {state} {ppid} 1 1 0 -1 {flags} 0 0 0 0 0 0 0 0 20 0 1 0 {st} 0 0 1 2 3\n");
            let s = parse_stat(&line).unwrap();
            prop_assert_eq!(s.comm, comm);
            prop_assert_eq!(s.state, state.chars().next().unwrap());
            prop_assert_eq!((s.ppid, s.flags, s.start_time), (ppid, flags, st));
        }
    }
}
