//! `gpuledger serve` end to end: the real binary, the fake NVML, a recorded /proc, HTTP on an
//! ephemeral loopback port.

use crate::serve_support::*;
use crate::support::*;
use std::io::{Read, Write};
use std::net::TcpStream;
use std::time::{Duration, Instant};

const G0: &str = "GPU-11111111-2222-3333-4444-555555555555";
const G1: &str = "GPU-aaaaaaaa-bbbb-cccc-dddd-eeeeeeeeeeee";

#[test]
fn metrics_and_snapshot_from_the_fake_nvml() {
    let (_m, s) = serve_two_gpus(&["--interval", "1s"]);

    let m = get(s.addr, "/metrics");
    assert_eq!(m.status, 200);
    assert!(m.head.contains("text/plain; version=0.0.4"));
    let d0 = format!(r#"{{device="{G0}",index="0",name="NVIDIA H200"}}"#);
    let d1 = format!(r#"{{device="{G1}",index="1",name="NVIDIA GeForce RTX 4090"}}"#);
    for want in [
        format!("gpuledger_device_memory_total_bytes{d0} 150754820096"),
        format!("gpuledger_device_memory_used_bytes{d0} 40000000000"),
        format!("gpuledger_device_memory_reserved_bytes{d0} 600000000"),
        format!("gpuledger_device_utilization_ratio{d0} 0.37"),
        format!("gpuledger_device_temperature_celsius{d0} 54"),
        format!("gpuledger_device_power_watts{d0} 215"),
        format!("gpuledger_device_power_limit_watts{d0} 700"),
        format!("gpuledger_device_memory_total_bytes{d1} 25757220864"),
        format!(
            r#"gpuledger_process_memory_bytes{{device="{G0}",pid="4242",name="llama-server",user="alice",workload="llama-cpp",model="qwen3-8b-q4_k_m",source="nvml"}} 17179869184"#
        ),
        format!(
            r#"gpuledger_process_memory_bytes{{device="{G1}",pid="4242",name="llama-server",user="alice",workload="llama-cpp",model="qwen3-8b-q4_k_m",source="nvml"}} 4294967296"#
        ),
        format!(
            r#"gpuledger_process_gpu_utilization_ratio{{device="{G0}",pid="4242",name="llama-server",user="alice",workload="llama-cpp",model="qwen3-8b-q4_k_m",source="nvml"}} 0.85"#
        ),
        // Workload identification runs in serve's collector too: Xorg is the compositor.
        format!(
            r#"gpuledger_process_memory_bytes{{device="{G1}",pid="1200",name="Xorg",user="root",workload="compositor",source="nvml"}} 536870912"#
        ),
        r#"gpuledger_source_up{source="nvml",state="ok"} 1"#.to_string(),
        "gpuledger_collection_rounds_total 1".to_string(),
    ] {
        assert!(
            m.body.lines().any(|l| l == want),
            "missing {want}\n{}",
            m.body
        );
    }
    // ollama (6001) has NOT_AVAILABLE memory: no memory series, not a 0.
    assert!(
        !m.body.lines().any(|l| l.starts_with("gpuledger_process_memory_bytes") && l.contains(r#"pid="6001""#)),
        "{}",
        m.body
    );
    for secret in ["SECRET1", "SECRET2", "SECRET3", "--api-key", "train.py"] {
        assert!(!m.body.contains(secret), "{secret} leaked into /metrics");
    }

    let j = get(s.addr, "/api/v1/snapshot");
    assert_eq!(j.status, 200);
    let snap = gpuledger_model::parse_snapshot(&j.body).expect("the snapshot contract");
    assert_eq!(snap.devices.len(), 2);
    assert_eq!(snap.devices[0].uuid, G0);
    assert_eq!(snap.host.hostname.as_deref(), Some("gpu-box"));
    // Unattributed is the ledger's figure (the source's rule for C+G processes stays there).
    let un = snap.devices[0].ledger.unattributed_bytes.unwrap();
    assert!(m
        .body
        .lines()
        .any(|l| l == format!("gpuledger_device_memory_unattributed_bytes{d0} {un}")));
    // The JSON carries redacted command lines, never raw secrets.
    assert!(!j.body.contains("SECRET"), "{}", j.body);

    let h = get(s.addr, "/healthz");
    assert_eq!(h.status, 200, "{}", h.body);
    assert!(h.body.starts_with("ok"));
    // The browser view: a static page that draws the JSON (tested in a browser in web_page.rs).
    let i = get(s.addr, "/");
    assert_eq!(i.status, 200);
    assert!(i.head.contains("Content-Type: text/html"), "{}", i.head);
    assert!(i.body.contains("src=\"/app.js\"") && i.body.contains("href=\"/metrics\""));
    assert!(i
        .head
        .contains("\r\nContent-Security-Policy: default-src 'self';"));
    let h = get(s.addr, "/api/v1/history");
    let v: serde_json::Value = serde_json::from_str(&h.body).unwrap();
    assert_eq!(v["interval_ms"], 1000);
    assert_eq!(v["samples"][0]["devices"][0]["used_bytes"], 40000000000u64);
    // The page's words: the views' own, as JSON.
    let w = get(s.addr, "/api/v1/words");
    assert_eq!(w.status, 200);
    assert!(
        w.head.contains("Content-Type: application/json"),
        "{}",
        w.head
    );
    assert_eq!(w.body, gpuledger_views::web::words_json());
}

#[test]
fn read_only_bad_requests_and_a_silent_client() {
    let (_m, s) = serve_two_gpus(&[]);
    let r = raw(
        s.addr,
        b"POST /metrics HTTP/1.1\r\nHost: localhost\r\nContent-Length: 2\r\n\r\n{}",
    );
    assert_eq!(r.status, 405);
    assert!(r.head.contains("Allow: GET, HEAD"));
    assert_eq!(
        raw(s.addr, b"DELETE / HTTP/1.1\r\nHost: localhost\r\n\r\n").status,
        405
    );
    assert_eq!(get(s.addr, "/api/v2/snapshot").status, 404);
    let r = raw(s.addr, b"\x16\x03\x01 hello\r\n\r\n");
    assert_eq!(r.status, 400, "{}", r.body);

    // A client that connects and never sends its request does not hold up the others.
    let mut silent = TcpStream::connect(s.addr).unwrap();
    let t = Instant::now();
    for _ in 0..10 {
        assert_eq!(get(s.addr, "/metrics").status, 200);
    }
    assert!(t.elapsed() < Duration::from_secs(3), "{:?}", t.elapsed());
    // It is cut off after the request deadline (5 s) with a 408.
    silent
        .set_read_timeout(Some(Duration::from_secs(15)))
        .unwrap();
    let mut buf = String::new();
    silent.read_to_string(&mut buf).unwrap();
    assert!(buf.starts_with("HTTP/1.1 408"), "{buf}");
}

#[test]
fn top_n_bounds_the_process_series() {
    let (_m, s) = serve_two_gpus(&["--processes", "top-1"]);
    let m = get(s.addr, "/metrics").body;
    let pids: std::collections::BTreeSet<&str> = m
        .lines()
        .filter(|l| l.starts_with("gpuledger_process_memory_bytes"))
        .filter_map(|l| l.split("pid=\"").nth(1)?.split('"').next())
        .collect();
    // 4242 holds 16 + 4 GiB over both devices; 5151 at most 8 + 9 GiB on GPU0: 4242 is the top 1.
    assert_eq!(pids.into_iter().collect::<Vec<_>>(), vec!["4242"], "{m}");
    assert!(m.contains("gpuledger_processes_exported 1\n"));
}

#[cfg(unix)]
#[test]
fn sigterm_stops_cleanly() {
    let (_m, mut s) = serve_two_gpus(&[]);
    assert_eq!(get(s.addr, "/healthz").status, 200);
    let pid = s.guard.0.id().to_string();
    let t = Instant::now();
    assert!(std::process::Command::new("kill")
        .args(["-TERM", &pid])
        .status()
        .unwrap()
        .success());
    let status = loop {
        if let Some(st) = s.guard.0.try_wait().unwrap() {
            break st;
        }
        assert!(
            t.elapsed() < Duration::from_secs(10),
            "did not stop on SIGTERM"
        );
        std::thread::sleep(Duration::from_millis(50));
    };
    assert_eq!(status.code(), Some(0));
    assert!(TcpStream::connect(s.addr).is_err());
}

#[cfg(unix)]
#[test]
fn a_second_signal_exits_at_once() {
    let (m, mut s) = serve_two_gpus(&["--interval", "100ms"]);
    let sc = &m.scenario;
    // Make the next round hang, as a stuck driver call would: the fake NVML re-reads its
    // scenario file when it changes, and a FIFO that nobody writes blocks that read. A clean
    // stop waits for the round, so only the second signal can end the process.
    std::fs::remove_file(sc).unwrap();
    let c = std::ffi::CString::new(sc.to_str().unwrap()).unwrap();
    // SAFETY: mkfifo on a path we own.
    assert_eq!(unsafe { libc::mkfifo(c.as_ptr(), 0o600) }, 0);
    std::thread::sleep(Duration::from_millis(500));
    let pid = s.guard.0.id().to_string();
    let kill = || {
        assert!(std::process::Command::new("kill")
            .args(["-TERM", &pid])
            .status()
            .unwrap()
            .success())
    };
    kill();
    std::thread::sleep(Duration::from_millis(300));
    assert!(
        s.guard.0.try_wait().unwrap().is_none(),
        "first signal: still finishing"
    );
    let t = Instant::now();
    kill();
    let status = loop {
        if let Some(st) = s.guard.0.try_wait().unwrap() {
            break st;
        }
        assert!(
            t.elapsed() < Duration::from_secs(2),
            "second signal did not exit at once"
        );
        std::thread::sleep(Duration::from_millis(20));
    };
    assert_eq!(status.code(), Some(130));
}

/// 68 (and 200) connections that send one byte and go silent used to
/// take the server offline for as long as 90 s. Probes must be answered while they stay open.
#[test]
fn slowloris_does_not_take_the_server_offline() {
    let (_m, s) = serve_two_gpus(&[]);
    for n in [68, 200] {
        let attack: Vec<TcpStream> = (0..n)
            .map(|_| {
                let mut c = TcpStream::connect(s.addr).unwrap();
                c.write_all(b"G").unwrap();
                c
            })
            .collect();
        for path in ["/healthz", "/metrics", "/healthz", "/metrics"] {
            let t = Instant::now();
            assert_eq!(get(s.addr, path).status, 200);
            // Answered at once by design; 2 s leaves room for two busy CI cores.
            assert!(
                t.elapsed() < Duration::from_secs(2),
                "{path} took {:?} with {n} silent connections",
                t.elapsed()
            );
        }
        // The attack was still in place: every silent connection is open and unanswered.
        let open = attack
            .iter()
            .filter(|c| {
                c.set_nonblocking(true).unwrap();
                matches!((&**c).read(&mut [0u8; 1]), Err(e) if e.kind() == std::io::ErrorKind::WouldBlock)
            })
            .count();
        assert_eq!(open, n);
    }
}

/// Raise the soft descriptor limit of this test process towards `want`; returns what it got.
// rlim_t is not u64 on every Unix.
#[allow(clippy::unnecessary_cast)]
fn raise_nofile(want: u64) -> u64 {
    // SAFETY: plain system calls on a local struct.
    unsafe {
        let mut r: libc::rlimit = std::mem::zeroed();
        if libc::getrlimit(libc::RLIMIT_NOFILE, &mut r) != 0 {
            return 0;
        }
        if (r.rlim_cur as u64) < want {
            r.rlim_cur = r.rlim_max.min(want as libc::rlim_t);
            libc::setrlimit(libc::RLIMIT_NOFILE, &r);
            libc::getrlimit(libc::RLIMIT_NOFILE, &mut r);
        }
        r.rlim_cur as u64
    }
}

/// 2,000 simultaneous connections left 1,867 closed without a word.
/// The design (deploy/README.md): every connection gets an answer — 200, or 503 with
/// `Retry-After: 1` when the server is past its connection bound.
#[cfg(unix)]
#[test]
fn every_one_of_2000_simultaneous_connections_gets_an_answer() {
    let (_m, s) = serve_two_gpus(&[]);
    // Fewer connections, proportionally, where this process cannot have 2,000 descriptors.
    let n = 2000.min(raise_nofile(2200).saturating_sub(150) as usize);
    assert!(n >= 500, "descriptor limit too low for this test: {n}");
    // All connected first, then all requests sent, then all answers read: they are all open
    // at the same time.
    let mut conns: Vec<TcpStream> = (0..n)
        .map(|i| {
            TcpStream::connect_timeout(&s.addr, Duration::from_secs(10))
                .unwrap_or_else(|e| panic!("connection {i}: {e}"))
        })
        .collect();
    for c in &mut conns {
        // A refused connection may be answered and closed already; the answer is still there.
        let _ = c.write_all(b"GET /metrics HTTP/1.1\r\nHost: localhost\r\n\r\n");
    }
    let (mut ok, mut busy) = (0, 0);
    for (i, c) in conns.iter_mut().enumerate() {
        c.set_read_timeout(Some(Duration::from_secs(20))).unwrap();
        let mut buf = Vec::new();
        let _ = c.read_to_end(&mut buf);
        let text = String::from_utf8_lossy(&buf);
        let (head, body) = text
            .split_once("\r\n\r\n")
            .unwrap_or_else(|| panic!("connection {i} of {n}: no answer: {text:?}"));
        let len: usize = head
            .lines()
            .find_map(|l| l.strip_prefix("Content-Length: "))
            .and_then(|v| v.parse().ok())
            .unwrap_or_else(|| panic!("connection {i}: {head}"));
        assert_eq!(body.len(), len, "connection {i}: a cut answer");
        if head.starts_with("HTTP/1.1 200 ") {
            assert!(body.contains("gpuledger_device_memory_used_bytes"));
            ok += 1;
        } else if head.starts_with("HTTP/1.1 503 ") && head.contains("\r\nRetry-After: 1") {
            busy += 1;
        } else {
            panic!("connection {i} of {n}: {head}");
        }
    }
    eprintln!("{n} connections: {ok} answered 200, {busy} answered 503");
    assert_eq!(ok + busy, n);
    assert!(ok > 0);
    drop(conns);
    assert_eq!(get(s.addr, "/healthz").status, 200);
}

#[test]
fn non_loopback_needs_allow_remote() {
    let m = Machine::two_gpus();
    let out = m.run(&["serve", "--listen", "0.0.0.0:9835"]);
    assert_eq!(out.status.code(), Some(1));
    let err = String::from_utf8_lossy(&out.stderr);
    assert!(
        err.contains("not a loopback address") && err.contains("--allow-remote"),
        "{err}"
    );
    let out = m.run(&["serve", "--interval", "10ms"]);
    assert_eq!(out.status.code(), Some(2));
    assert!(String::from_utf8_lossy(&out.stderr).contains("minimum of 100 ms"));
}

/// DNS rebinding (issue 40, item 4): `serve` answers only to its own names. A page at
/// `http://evil.example:PORT/` rebound to 127.0.0.1 gets 421 and nothing from the machine;
/// `localhost:PORT` is answered; `--allow-host` adds a name; a name with a port is refused.
#[test]
fn serve_answers_only_to_its_own_names() {
    let (_m, s) = serve_two_gpus(&["--allow-host", "gpu-box.lan"]);
    let port = s.addr.port();
    let ask = |host: &str, path: &str| {
        raw(
            s.addr,
            format!("GET {path} HTTP/1.1\r\nHost: {host}\r\n\r\n").as_bytes(),
        )
    };
    for path in ["/api/v1/snapshot", "/metrics", "/"] {
        let r = ask(&format!("evil.example:{port}"), path);
        assert_eq!(r.status, 421, "{path}: {}", r.head);
        assert!(r.body.contains("--allow-host"), "{}", r.body);
        assert!(!r.body.contains("llama-server"), "{}", r.body);
    }
    let r = ask(&format!("localhost:{port}"), "/api/v1/snapshot");
    assert_eq!(r.status, 200);
    assert!(r.body.contains("llama-server"));
    assert_eq!(ask("gpu-box.lan", "/metrics").status, 200);
    assert_eq!(ask("other.lan", "/metrics").status, 421);

    let m = Machine::two_gpus();
    let out = m.run(&["serve", "--allow-host", "gpu-box.lan:9835"]);
    assert_eq!(out.status.code(), Some(2));
    let err = String::from_utf8_lossy(&out.stderr);
    assert!(err.contains("without a port"), "{err}");
}
