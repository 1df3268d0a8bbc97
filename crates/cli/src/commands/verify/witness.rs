//! The vendor's own tool as a second witness, run with a time limit and kept raw.

use super::judge::ToolRun;
use std::io::Read;
use std::path::Path;
use std::process::{Command, Stdio};
use std::time::{Duration, Instant};

/// nvidia-smi normally answers in well under a second; a hung driver must not hang verify.
const LIMIT: Duration = Duration::from_secs(3);
/// More than any process list; output past this is cut (a broken tool is not a reason to grow).
const MAX_OUTPUT: u64 = 1 << 20;

pub const QUERY: [&str; 2] = ["--query-compute-apps=pid,used_memory", "--format=csv"];

pub fn nvidia_smi(program: &Path) -> ToolRun {
    let command = format!("{} {}", program.display(), QUERY.join(" "));
    let mut run = ToolRun {
        command,
        ..ToolRun::default()
    };
    let mut child = match Command::new(program)
        .args(QUERY)
        .stdin(Stdio::null())
        .stdout(Stdio::piped())
        .stderr(Stdio::piped())
        .spawn()
    {
        Ok(c) => c,
        Err(e) if e.kind() == std::io::ErrorKind::NotFound => {
            run.error = Some(format!(
                "{} is not installed (not on PATH)",
                program.display()
            ));
            return run;
        }
        Err(e) => {
            run.error = Some(format!("cannot run {}: {e}", program.display()));
            return run;
        }
    };
    // Read both pipes in threads so a chatty tool cannot block on a full pipe.
    let read = |r: Option<Box<dyn Read + Send>>| {
        std::thread::spawn(move || {
            let mut s = String::new();
            if let Some(r) = r {
                let _ = r.take(MAX_OUTPUT).read_to_string(&mut s);
            }
            s
        })
    };
    let out = read(
        child
            .stdout
            .take()
            .map(|r| Box::new(r) as Box<dyn Read + Send>),
    );
    let err = read(
        child
            .stderr
            .take()
            .map(|r| Box::new(r) as Box<dyn Read + Send>),
    );
    let end = Instant::now() + LIMIT;
    let status = loop {
        match child.try_wait() {
            Ok(Some(s)) => break Some(s),
            Ok(None) if Instant::now() < end => std::thread::sleep(Duration::from_millis(10)),
            _ => {
                let _ = child.kill();
                let _ = child.wait();
                run.error = Some(format!(
                    "nvidia-smi did not answer within {} s",
                    LIMIT.as_secs()
                ));
                break None;
            }
        }
    };
    run.exit_code = status.and_then(|s| s.code());
    run.stdout = out.join().unwrap_or_default();
    run.stderr = err.join().unwrap_or_default();
    run
}
