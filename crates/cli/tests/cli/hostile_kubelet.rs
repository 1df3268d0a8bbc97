//! A hostile kubelet (issue 40): something on the pod-resources socket answers every call with
//! the largest message the client accepts (16 MiB), packed with the most items it can hold:
//! 8.4 M empty pods, two bytes each. Round 4 found one `snapshot` at 1.2 GB for it. The real
//! binary talks to a real unix socket here; its peak resident memory is read from the kernel
//! (`wait4`'s rusage), and must stay within 64 MB. The wall time is printed, not asserted.

use crate::support::Machine;
use std::io::{Read, Write};
use std::os::unix::net::UnixListener;
use std::time::Instant;

const MAX_MESSAGE: usize = 16 << 20;

fn frame(out: &mut Vec<u8>, kind: u8, flags: u8, stream: u32, payload: &[u8]) {
    out.extend_from_slice(&(payload.len() as u32).to_be_bytes()[1..]);
    out.push(kind);
    out.push(flags);
    out.extend_from_slice(&stream.to_be_bytes());
    out.extend_from_slice(payload);
}

/// An HPACK literal without indexing, new name (both shorter than 127 bytes).
fn literal(block: &mut Vec<u8>, name: &str, value: &str) {
    block.push(0);
    block.push(name.len() as u8);
    block.extend_from_slice(name.as_bytes());
    block.push(value.len() as u8);
    block.extend_from_slice(value.as_bytes());
}

/// One whole answer on `stream`: head, the message in 16 KiB DATA frames, trailers.
fn answer(stream: u32, message: &[u8]) -> Vec<u8> {
    const HEADERS: u8 = 1;
    const DATA: u8 = 0;
    const END_STREAM: u8 = 1;
    const END_HEADERS: u8 = 4;
    let mut out = Vec::with_capacity(message.len() + message.len() / 1000 + 64);
    let mut head = Vec::new();
    literal(&mut head, ":status", "200");
    literal(&mut head, "content-type", "application/grpc");
    frame(&mut out, HEADERS, END_HEADERS, stream, &head);
    let mut body = vec![0u8];
    body.extend_from_slice(&(message.len() as u32).to_be_bytes());
    body.extend_from_slice(message);
    for chunk in body.chunks(16_384) {
        frame(&mut out, DATA, 0, stream, chunk);
    }
    let mut trailers = Vec::new();
    literal(&mut trailers, "grpc-status", "0");
    frame(
        &mut out,
        HEADERS,
        END_HEADERS | END_STREAM,
        stream,
        &trailers,
    );
    out
}

/// Serves every connection: SETTINGS, then the same answer on streams 1 and 3 (the client's
/// List and GetAllocatableResources), draining what the client sends.
fn serve_hostile(listener: UnixListener, message: Vec<u8>) {
    let mut wire = Vec::new();
    frame(&mut wire, 4, 0, 0, &[]); // SETTINGS
    wire.extend(answer(1, &message));
    wire.extend(answer(3, &message));
    std::thread::spawn(move || {
        for conn in listener.incoming() {
            let Ok(mut conn) = conn else { return };
            let mut reader = conn.try_clone().unwrap();
            std::thread::spawn(move || {
                let mut sink = [0u8; 4096];
                while matches!(reader.read(&mut sink), Ok(n) if n > 0) {}
            });
            let _ = conn.write_all(&wire);
        }
    });
}

/// Runs `args` on `m`: its exit status, its peak resident set in bytes, and its stdout. Measured
/// by a small Python parent (RUSAGE_CHILDREN): a child started from this test process would be
/// charged the test's own resident size (Linux keeps the old image's peak across exec); the
/// Python parent's (~14 MB) is the floor instead.
fn peak_rss(m: &Machine, args: &[&str]) -> (i32, u64, String) {
    let direct = m.command(args);
    let mut c = std::process::Command::new("python3");
    c.args([
        "-c",
        "import resource, subprocess, sys\n\
         r = subprocess.run(sys.argv[1:]).returncode\n\
         print(resource.getrusage(resource.RUSAGE_CHILDREN).ru_maxrss, file=sys.stderr)\n\
         sys.exit(r)",
    ])
    .arg(direct.get_program())
    .args(direct.get_args());
    for (k, v) in direct.get_envs() {
        match v {
            Some(v) => c.env(k, v),
            None => c.env_remove(k),
        };
    }
    let out = c.output().unwrap();
    let err = String::from_utf8_lossy(&out.stderr);
    let kib: u64 = err
        .lines()
        .last()
        .and_then(|l| l.trim().parse().ok())
        .unwrap_or_else(|| panic!("no peak RSS in {err}"));
    (
        out.status.code().unwrap_or(-1),
        kib * 1024,
        String::from_utf8_lossy(&out.stdout).into_owned(),
    )
}

#[test]
fn a_kubelet_answer_of_millions_of_empty_pods_costs_little_memory() {
    let m = Machine::shared_node();
    let dir = tempfile::tempdir().unwrap();
    let sock = dir.path().join("kubelet.sock");
    // Field 1 (pod_resources), length 0: an empty pod, two bytes.
    let message: Vec<u8> = [0x0a, 0x00].repeat(MAX_MESSAGE / 2);
    serve_hostile(UnixListener::bind(&sock).unwrap(), message);
    let sock = sock.to_str().unwrap();
    let (_, baseline, _) = peak_rss(&m, &["snapshot", "--json", "--no-probe"]);
    let started = Instant::now();
    let (status, peak, out) = peak_rss(
        &m,
        &["snapshot", "--json", "--no-probe", "--kubelet-socket", sock],
    );
    eprintln!(
        "hostile kubelet: peak RSS {} MiB (without the kubelet {} MiB), {:?}",
        peak >> 20,
        baseline >> 20,
        started.elapsed()
    );
    assert_eq!(status, 0, "{out}");
    // The listing is refused, naming the bound it hit; the pods keep their UIDs.
    assert!(out.contains("10000 pods"), "{out}");
    assert!(peak <= 64 << 20, "peak RSS {} MiB", peak >> 20);
}
