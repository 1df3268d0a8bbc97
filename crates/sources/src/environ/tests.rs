use super::*;
use proptest::collection::vec;
use proptest::num;

/// A `KERN_PROCARGS2` buffer laid out as xnu's `sysctl_procargsx` returns it: argc (native i32),
/// the executable path, NUL padding to pointer alignment, the arguments, the environment, an
/// empty string, then Apple's `applev` strings.
fn procargs2(argc: i32, path: &str, args: &[&str], env: &[&str], applev: &[&str]) -> Vec<u8> {
    let mut b = argc.to_ne_bytes().to_vec();
    b.extend_from_slice(path.as_bytes());
    b.push(0);
    while !b.len().is_multiple_of(8) {
        b.push(0);
    }
    for s in args.iter().chain(env) {
        b.extend_from_slice(s.as_bytes());
        b.push(0);
    }
    b.push(0);
    for s in applev {
        b.extend_from_slice(s.as_bytes());
        b.push(0);
    }
    b
}

const ENV: &[&str] = &["PATH=/usr/bin", "HF_TOKEN=hf_SECRET", "LANG=C"];

fn macos_python() -> Vec<u8> {
    procargs2(
        3,
        "/usr/bin/python3",
        &["python3", "", "serve.py"],
        ENV,
        &["executable_path=/usr/bin/python3", "ptr_munge="],
    )
}

#[test]
fn procargs2_yields_the_environment_only() {
    let buf = macos_python();
    let env = procargs2_environment(&buf).unwrap();
    assert_eq!(env, ENV);
    assert_eq!(
        redacted_lines(env),
        [
            "HF_TOKEN=<hidden: not on the safe list>",
            "LANG=C",
            "PATH=/usr/bin"
        ]
    );
}

#[test]
fn procargs2_without_arguments_starts_with_the_environment() {
    let buf = procargs2(0, "/bin/sh", &[], ENV, &["ptr_munge="]);
    assert_eq!(procargs2_environment(&buf).unwrap(), ENV);
}

#[test]
fn procargs2_cut_anywhere_keeps_only_whole_entries_in_order() {
    let buf = macos_python();
    for cut in 0..=buf.len() {
        match procargs2_environment(&buf[..cut]) {
            Err(e) => assert!(cut < 4 && e.contains("argument count"), "{cut}: {e}"),
            Ok(env) => {
                assert!(env.len() <= ENV.len(), "{cut}: {env:?}");
                assert_eq!(env, ENV[..env.len()], "{cut}");
            }
        }
    }
}

#[test]
fn procargs2_hostile_buffers_are_refused_or_bounded() {
    // Negative argc: refused in words.
    let buf = procargs2(-1, "/bin/sh", &[], ENV, &[]);
    assert!(procargs2_environment(&buf)
        .unwrap_err()
        .contains("negative"));
    // An argc far larger than the buffer: every string is taken as an argument, none as env.
    let buf = procargs2(i32::MAX, "/bin/sh", &["a"], ENV, &[]);
    assert!(procargs2_environment(&buf).unwrap().is_empty());
    // No NUL at all, only NULs, nothing after argc.
    let mut buf = 1i32.to_ne_bytes().to_vec();
    assert!(procargs2_environment(&buf).unwrap().is_empty());
    buf.extend_from_slice(&[b'x'; 64]);
    assert!(procargs2_environment(&buf).unwrap().is_empty());
    let zeros = [0u8; 64];
    assert!(procargs2_environment(&zeros).unwrap().is_empty());
    // Invalid UTF-8 is replaced, never an error.
    let buf = procargs2(0, "/bin/sh", &[], &["A=\u{fffd}"], &[]);
    let mut raw = buf.clone();
    let at = raw
        .windows(3)
        .position(|w| w == "\u{fffd}".as_bytes())
        .unwrap();
    raw[at..at + 3].copy_from_slice(&[0xff, 0xfe, b'z']);
    assert_eq!(
        procargs2_environment(&raw).unwrap(),
        ["A=\u{fffd}\u{fffd}z"]
    );
}

proptest::proptest! {
    #[test]
    fn procargs2_never_panics(bytes in vec(num::u8::ANY, 0..512)) {
        let _ = procargs2_environment(&bytes);
    }

    #[test]
    fn utf16_block_never_panics(units in vec(num::u16::ANY, 0..512)) {
        let _ = utf16_block_entries(&units);
    }
}

fn utf16(s: &str) -> Vec<u16> {
    s.encode_utf16().collect()
}

#[test]
fn utf16_block_splits_at_nuls_and_stops_at_the_empty_entry() {
    // Windows keeps per-drive current directories as `=C:=...` entries; they are shown as is.
    let block = utf16("=C:=C:\\work\0PATH=C:\\Windows\0HF_TOKEN=abc\0\0STALE=1\0");
    let entries = utf16_block_entries(&block);
    assert_eq!(
        entries,
        ["=C:=C:\\work", "PATH=C:\\Windows", "HF_TOKEN=abc"]
    );
    assert_eq!(
        redacted_lines(entries),
        [
            "=C:=C:\\work",
            "HF_TOKEN=<hidden: not on the safe list>",
            "PATH=C:\\Windows"
        ]
    );
}

#[test]
fn utf16_block_cut_short_keeps_whole_entries() {
    let block = utf16("A=1\0B=22\0");
    for cut in 0..=block.len() {
        let entries = utf16_block_entries(&block[..cut]);
        let want: &[&str] = match cut {
            0..4 => &[],
            4..9 => &["A=1"],
            _ => &["A=1", "B=22"],
        };
        assert_eq!(entries, want, "{cut}");
    }
    // An unpaired surrogate is replaced, never an error.
    assert_eq!(utf16_block_entries(&[0x41, 0xD800, 0]), ["A\u{fffd}"]);
}

#[test]
fn redacted_lines_sort_and_hide_entries_without_a_name_too() {
    let lines = redacted_lines(nul_separated_entries(
        b"LANG=C\0\0DATABASE_URL=postgres://u:hunter2@db/x\0A=2\0no name here\0",
    ));
    assert_eq!(
        lines,
        [
            "<hidden: not on the safe list>",
            "A=<hidden: not on the safe list>",
            "DATABASE_URL=<hidden: not on the safe list>",
            "LANG=C"
        ]
    );
}

/// Linux: a recorded proc tree (`/proc/PID/environ` and `stat`) under an injected root.
#[cfg(target_os = "linux")]
mod recorded_proc {
    use super::*;

    fn stat_line(pid: u32, start_time: u64) -> String {
        format!("{pid} (python3) S 1 1 1 0 -1 0 0 0 0 0 0 0 0 0 20 0 1 0 {start_time} 1000 10 0")
    }

    #[test]
    fn reads_sorted_redacted_and_refuses_a_reused_pid() {
        let dir = tempfile::tempdir().unwrap();
        let pid = 4242;
        let p = dir.path().join(pid.to_string());
        std::fs::create_dir_all(&p).unwrap();
        std::fs::write(
            p.join("environ"),
            b"PATH=/usr/bin\0HF_TOKEN=hf_SECRET\0CUDA_VISIBLE_DEVICES=0\0",
        )
        .unwrap();
        std::fs::write(p.join("stat"), stat_line(pid, 777)).unwrap();
        let lines = read_environ(dir.path(), pid, Some(777)).unwrap();
        assert_eq!(
            lines,
            [
                "CUDA_VISIBLE_DEVICES=0",
                "HF_TOKEN=<hidden: not on the safe list>",
                "PATH=/usr/bin"
            ]
        );
        // No start time to compare with: read as is.
        assert_eq!(read_environ(dir.path(), pid, None).unwrap(), lines);
        // Another start time: the PID names another process now.
        let e = read_environ(dir.path(), pid, Some(778)).unwrap_err();
        assert!(e.contains("now names another process"), "{e}");
        // Absent: the error names the file.
        let e = read_environ(dir.path(), pid + 1, None).unwrap_err();
        assert!(e.contains("4243/environ"), "{e}");
    }

    #[test]
    fn a_larger_environment_is_cut_at_the_limit_and_says_so() {
        let dir = tempfile::tempdir().unwrap();
        let p = dir.path().join("7");
        std::fs::create_dir_all(&p).unwrap();
        let mut raw = Vec::new();
        while raw.len() <= MAX_BYTES {
            raw.extend_from_slice(format!("CUDA_V{}=x\0", raw.len()).as_bytes());
        }
        // The limit falls inside an entry (cut after its number).
        assert!(raw[MAX_BYTES - 1] != 0 && raw[MAX_BYTES] != 0);
        std::fs::write(p.join("environ"), &raw).unwrap();
        let mut lines = read_environ(dir.path(), 7, None).unwrap();
        // What was cut is said, last.
        assert_eq!(lines.pop().as_deref(), Some(CUT_NOTE));
        // Only whole entries: the one the limit cuts is dropped, not shown cut short.
        let end = raw[..MAX_BYTES].iter().rposition(|&b| b == 0).unwrap();
        let whole = raw[..end].split(|&b| b == 0).count();
        assert_eq!(lines.len(), whole);
        for l in &lines {
            let (k, v) = l.split_once('=').unwrap();
            assert!(
                k.starts_with("CUDA_V") && k[6..].parse::<usize>().is_ok(),
                "{l}"
            );
            assert_eq!(v, "x", "{l}");
        }
        // A smaller one is not said to be cut.
        std::fs::write(p.join("environ"), b"PATH=/bin\0").unwrap();
        assert_eq!(read_environ(dir.path(), 7, None).unwrap(), ["PATH=/bin"]);
    }

    #[test]
    fn this_process_environment_is_readable() {
        let me = std::process::id();
        let lines = read_environ(Path::new("/proc"), me, None).unwrap();
        assert!(lines.iter().any(|l| l.starts_with("PATH=")), "{lines:?}");
    }
}

/// What recipes read: only the names asked for, never a secret-looking one, never a cut entry.
#[test]
fn named_gives_the_asked_variables_only() {
    let dir = tempfile::tempdir().unwrap();
    let p = dir.path().join("4242");
    std::fs::create_dir_all(&p).unwrap();
    std::fs::write(
        p.join("environ"),
        b"HF_HOME=/data/hf\0HF_TOKEN=hf_SECRET\0PATH=/usr/bin\0OLLAMA_NUM_PARALLEL=4\0",
    )
    .unwrap();
    let got = named(
        dir.path(),
        4242,
        &["HF_HOME", "HF_TOKEN", "OLLAMA_NUM_PARALLEL"],
    )
    .unwrap();
    assert_eq!(
        got,
        [
            ("HF_HOME".to_string(), "/data/hf".to_string()),
            ("OLLAMA_NUM_PARALLEL".to_string(), "4".to_string())
        ]
    );
    // An environment past the limit: the entry cut at the limit is not taken as whole.
    let mut big = b"OLLAMA_NUM_PARALLEL=2\0".to_vec();
    big.resize(MAX_BYTES - 4, b'x');
    big.extend_from_slice(b"\0HF_HOME=/data/hf-and-more\0");
    std::fs::write(p.join("environ"), &big).unwrap();
    let got = named(dir.path(), 4242, &["HF_HOME", "OLLAMA_NUM_PARALLEL"]).unwrap();
    assert_eq!(got, [("OLLAMA_NUM_PARALLEL".to_string(), "2".to_string())]);
    let e = named(dir.path(), 4243, &["HF_HOME"]).unwrap_err();
    let want = dir.path().join("4243").join("environ");
    assert!(e.contains(&want.display().to_string()), "{e}");
}
