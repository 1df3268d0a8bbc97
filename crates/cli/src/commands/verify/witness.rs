//! The vendors' own tools as second witnesses (nvidia-smi, amd-smi, rocm-smi, xpu-smi): each run
//! by one runner, with a time limit and a bound on its output, and kept raw. What they say is read
//! in `vendor` (pure), so a saved record re-derives the same readings.

use super::judge::ToolRun;
use std::collections::BTreeMap;
use std::io::Read;
use std::path::Path;
use std::process::{Command, Stdio};
use std::sync::{Arc, Mutex};
use std::time::{Duration, Instant};

/// The tools normally answer in well under a second; a hung driver must not hang verify.
pub const LIMIT: Duration = Duration::from_secs(3);
/// More than any process list; output past this is cut (a broken tool is not a reason to grow).
const MAX_OUTPUT: usize = 1 << 20;
/// After the tool has ended (or was killed), how long its pipes may stay open: a tool that left
/// a child of its own holding them is not waited for.
const DRAIN: Duration = Duration::from_millis(200);

pub const QUERY: [&str; 2] = ["--query-compute-apps=pid,used_memory", "--format=csv"];

pub fn nvidia_smi(program: &Path) -> ToolRun {
    run(program, &QUERY.map(String::from))
}

/// Run `program args` with [`LIMIT`], stdin closed, stdout and stderr kept (at most
/// [`MAX_OUTPUT`] bytes each, lossily decoded). Never fails: why it did not run or did not finish
/// is in `error`.
pub fn run(program: &Path, args: &[String]) -> ToolRun {
    let name = program
        .file_name()
        .map(|n| n.to_string_lossy().into_owned())
        .unwrap_or_else(|| program.display().to_string());
    let mut run = ToolRun {
        command: std::iter::once(program.display().to_string())
            .chain(args.iter().cloned())
            .collect::<Vec<_>>()
            .join(" "),
        ..ToolRun::default()
    };
    let mut child = match Command::new(program)
        .args(args)
        .stdin(Stdio::null())
        .stdout(Stdio::piped())
        .stderr(Stdio::piped())
        .spawn()
    {
        Ok(c) => c,
        Err(e) if e.kind() == std::io::ErrorKind::NotFound => {
            run.error = Some(format!("{name} is not installed (not on PATH)"));
            return run;
        }
        Err(e) => {
            run.error = Some(format!("cannot run {}: {e}", program.display()));
            return run;
        }
    };
    // Read both pipes in threads so a chatty tool cannot block on a full pipe; what they read
    // so far stays readable even if a pipe never closes.
    let read = |r: Option<Box<dyn Read + Send>>| {
        let buf = Arc::new(Mutex::new((Vec::new(), false)));
        let b = buf.clone();
        let handle = std::thread::spawn(move || {
            let Some(mut r) = r else { return };
            let mut chunk = [0u8; 8192];
            while let Ok(n) = r.read(&mut chunk) {
                if n == 0 {
                    break;
                }
                let mut g = b.lock().unwrap_or_else(|p| p.into_inner());
                let room = MAX_OUTPUT.saturating_sub(g.0.len());
                g.0.extend_from_slice(&chunk[..n.min(room)]);
                g.1 |= n > room;
            }
        });
        (buf, handle)
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
                    "{name} did not answer within {} s (stopped; what it printed is kept)",
                    LIMIT.as_secs()
                ));
                break None;
            }
        }
    };
    let drain = Instant::now() + DRAIN;
    while !(out.1.is_finished() && err.1.is_finished()) && Instant::now() < drain {
        std::thread::sleep(Duration::from_millis(5));
    }
    let take = |b: &Arc<Mutex<(Vec<u8>, bool)>>| {
        let g = b.lock().unwrap_or_else(|p| p.into_inner());
        (String::from_utf8_lossy(&g.0).into_owned(), g.1)
    };
    let (stdout, cut_out) = take(&out.0);
    let (stderr, cut_err) = take(&err.0);
    run.exit_code = status.and_then(|s| s.code());
    run.stdout = stdout;
    run.stderr = stderr;
    run.truncated = cut_out || cut_err;
    run
}

/// The AMD and Intel tools' queries for one round, keyed by the name the record keeps them
/// under. `bdf` is the workload's device's PCI address: the device-wide queries need it to pick
/// the device (without it they are not asked); the process lists are read for the child's PID.
pub fn vendor_queries(bdf: Option<&str>) -> Vec<(&'static str, &'static str, Vec<String>)> {
    let s = |v: &[&str]| v.iter().map(|x| x.to_string()).collect::<Vec<_>>();
    let mut q = Vec::new();
    // amd-smi (ROCm 6+): `-g` takes a GPU's index, BDF or UUID.
    let mut p = s(&["process"]);
    if let Some(b) = bdf {
        p.extend(s(&["--gpu", b]));
    }
    p.push("--json".into());
    q.push((super::vendor::AMD_SMI_PROCESS, "amd-smi", p));
    if let Some(b) = bdf {
        q.push((
            super::vendor::AMD_SMI_METRIC,
            "amd-smi",
            s(&["metric", "--mem-usage", "--gpu", b, "--json"]),
        ));
    }
    // rocm-smi (before ROCm 6): every KFD process; every card's VRAM with its PCI address.
    q.push((
        super::vendor::ROCM_SMI_PIDS,
        "rocm-smi",
        s(&["--showpids", "--json"]),
    ));
    if bdf.is_some() {
        q.push((
            super::vendor::ROCM_SMI_MEMINFO,
            "rocm-smi",
            s(&["--showmeminfo", "vram", "--showbus", "--json"]),
        ));
    }
    // xpu-smi: `-d` takes a device ID or a PCI BDF address.
    let mut p = s(&["ps"]);
    if let Some(b) = bdf {
        p.extend(s(&["-d", b]));
    }
    p.push("-j".into());
    q.push((super::vendor::XPU_SMI_PS, "xpu-smi", p));
    if let Some(b) = bdf {
        q.push((
            super::vendor::XPU_SMI_STATS,
            "xpu-smi",
            s(&["stats", "-d", b, "-j"]),
        ));
    }
    q
}

/// Run the vendor queries of one round side by side (a round waits for the slowest, at most
/// [`LIMIT`]). A query whose tool was not installed or did not answer in an earlier round is
/// not asked again (`earlier`): it is recorded as such, so a hung tool costs [`LIMIT`] once.
pub fn run_vendor(
    bdf: Option<&str>,
    earlier: &[&BTreeMap<String, ToolRun>],
) -> BTreeMap<String, ToolRun> {
    let queries = vendor_queries(bdf);
    std::thread::scope(|scope| {
        let handles: Vec<_> = queries
            .iter()
            .map(|(key, program, args)| {
                let skip = earlier.iter().find_map(|m| {
                    let e = m.get(*key)?.error.as_ref()?;
                    (e.contains("not installed") || e.contains("did not answer")).then(|| e.clone())
                });
                scope.spawn(move || {
                    let r = match skip {
                        Some(e) => ToolRun {
                            command: std::iter::once(program.to_string())
                                .chain(args.iter().cloned())
                                .collect::<Vec<_>>()
                                .join(" "),
                            error: Some(if e.starts_with("not asked again") {
                                e
                            } else {
                                format!("not asked again: {e}")
                            }),
                            ..ToolRun::default()
                        },
                        None => run(Path::new(program), args),
                    };
                    (key.to_string(), r)
                })
            })
            .collect();
        handles.into_iter().filter_map(|h| h.join().ok()).collect()
    })
}
