//! Running `gpuledger serve` (and other daemons) from tests: children are killed on drop, so a
//! failing assertion never leaves a server behind.
#![allow(dead_code)]

use std::io::{BufRead, BufReader, Read, Write};
use std::net::{SocketAddr, TcpStream};
use std::path::Path;
use std::process::{Child, Command, Stdio};

use crate::support::{fake_nvml, gpuledger_on, Machine};
use std::time::Duration;

/// Kills and reaps the child when dropped.
pub struct Guard(pub Child);

impl Drop for Guard {
    fn drop(&mut self) {
        let _ = self.0.kill();
        let _ = self.0.wait();
    }
}

pub struct Served {
    pub guard: Guard,
    pub addr: SocketAddr,
}

/// Start `gpuledger serve --listen 127.0.0.1:0 ARGS` on the fake NVML and wait for its
/// "listening on" line.
pub fn serve(lib: &Path, scenario: &Path, proc_root: &Path, args: &[&str]) -> Served {
    let mut cmd = gpuledger_on(lib, scenario, proc_root);
    cmd.args(["serve", "--listen", "127.0.0.1:0"]).args(args);
    start_serving(&mut cmd)
}

/// `serve` on `m` with the modern fake NVML.
pub fn serve_on(m: &Machine, args: &[&str]) -> Served {
    serve(fake_nvml(), &m.scenario, &m.root(), args)
}

/// `serve` on [`Machine::two_gpus`]; keep the machine while the server runs.
pub fn serve_two_gpus(args: &[&str]) -> (Machine, Served) {
    let m = Machine::two_gpus();
    let s = serve_on(&m, args);
    (m, s)
}

/// Start `cmd`, a `gpuledger … serve --listen 127.0.0.1:0`, and wait for its "listening on"
/// line.
pub fn start_serving(cmd: &mut Command) -> Served {
    let mut child = cmd
        .stdin(Stdio::null())
        .stdout(Stdio::null())
        .stderr(Stdio::piped())
        .spawn()
        .expect("start gpuledger serve");
    let stderr = child.stderr.take().unwrap();
    let guard = Guard(child);
    let mut lines = BufReader::new(stderr);
    // The listening line, after the warning a non-loopback listen prints first.
    let mut line = String::new();
    let mut seen = String::new();
    while lines.read_line(&mut line).unwrap() > 0 && !line.contains("http://") {
        seen.push_str(&line);
        line.clear();
    }
    let addr = line
        .split("http://")
        .nth(1)
        .and_then(|r| r.split_whitespace().next())
        .unwrap_or_else(|| panic!("no listening line from gpuledger serve: {seen:?}{line:?}"))
        .parse()
        .unwrap();
    // Keep draining stderr so the child never blocks on a full pipe.
    std::thread::spawn(move || {
        let mut sink = String::new();
        let _ = lines.read_to_string(&mut sink);
    });
    Served { guard, addr }
}

pub struct Reply {
    pub status: u16,
    pub head: String,
    pub body: String,
}

pub fn raw(addr: SocketAddr, req: &[u8]) -> Reply {
    let mut s = TcpStream::connect(addr).unwrap();
    s.set_read_timeout(Some(Duration::from_secs(10))).unwrap();
    s.write_all(req).unwrap();
    let mut buf = Vec::new();
    s.read_to_end(&mut buf).unwrap();
    let text = String::from_utf8(buf).unwrap();
    let (head, body) = text.split_once("\r\n\r\n").expect("a response head");
    Reply {
        status: head[9..12].parse().unwrap(),
        head: head.to_string(),
        body: body.to_string(),
    }
}

pub fn get(addr: SocketAddr, path: &str) -> Reply {
    raw(
        addr,
        format!("GET {path} HTTP/1.1\r\nHost: localhost\r\n\r\n").as_bytes(),
    )
}

pub use crate::support::free_port;
