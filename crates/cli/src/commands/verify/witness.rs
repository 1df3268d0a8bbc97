//! The vendors' own tools as second witnesses (nvidia-smi, amd-smi, rocm-smi, xpu-smi): each run
//! by one runner, with a time limit and a bound on its output, and kept raw. What they say is read
//! in `judge::vendor` (pure), so a saved record re-derives the same readings.

use super::judge::ToolRun;
use gpuledger_lang::said::Said;
use std::collections::BTreeMap;
use std::io::Read;
use std::path::Path;
use std::process::{Child, Command, ExitStatus, Stdio};
use std::sync::{Arc, Mutex};
use std::time::{Duration, Instant};

/// The tools normally answer in well under a second; a hung driver must not hang verify.
pub const LIMIT: Duration = Duration::from_secs(3);
/// After the tool has ended (or was killed), how long its pipes may stay open: a tool that left
/// a child of its own holding them is not waited for.
const DRAIN: Duration = Duration::from_millis(200);

pub const QUERY: [&str; 2] = ["--query-compute-apps=pid,used_memory", "--format=csv"];

/// nvidia-smi's compute-apps list, under the same "not asked again" rule as the other tools.
pub fn nvidia_smi<'a>(program: &Path, earlier: impl IntoIterator<Item = &'a ToolRun>) -> ToolRun {
    run_unless_gone(program, &QUERY.map(String::from), earlier)
}

/// `program arg arg`, as the record keeps it.
fn command_line(program: &str, args: &[String]) -> String {
    std::iter::once(program.to_string())
        .chain(args.iter().cloned())
        .collect::<Vec<_>>()
        .join(" ")
}

/// Run `program args` with [`LIMIT`], stdin closed, stdout and stderr kept (at most
/// [`ToolRun::MAX_OUTPUT`] bytes each, lossily decoded). Never fails: why it did not run or did not finish
/// is in `error`.
pub fn run(program: &Path, args: &[String]) -> ToolRun {
    let name = program
        .file_name()
        .map(|n| n.to_string_lossy().into_owned())
        .unwrap_or_else(|| program.display().to_string());
    let mut run = ToolRun {
        command: command_line(&program.display().to_string(), args),
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
            run.error = Some(Said::new(
                "report-verify-tool-missing",
                vec![("tool", name.into())],
            ));
            run.missing = true;
            return run;
        }
        Err(e) => {
            let said = vec![
                ("program", program.display().to_string().into()),
                ("error", e.to_string().into()),
            ];
            run.error = Some(Said::new("report-verify-tool-cannot-run", said));
            return run;
        }
    };
    // Read both pipes in threads so a chatty tool cannot block on a full pipe; what they read
    // so far stays readable even if a pipe never closes.
    let out = Capture::start(child.stdout.take());
    let err = Capture::start(child.stderr.take());
    let status = wait(&mut child);
    if status.is_none() {
        run.timed_out = true;
        let said = vec![
            ("tool", name.into()),
            ("seconds", LIMIT.as_secs().to_string().into()),
        ];
        run.error = Some(Said::new("report-verify-tool-timed-out", said));
    }
    let drain = Instant::now() + DRAIN;
    while !(out.done() && err.done()) && Instant::now() < drain {
        std::thread::sleep(Duration::from_millis(5));
    }
    let (stdout, cut_out) = out.take();
    let (stderr, cut_err) = err.take();
    run.exit_code = status.and_then(|s| s.code());
    run.stdout = stdout;
    run.stderr = stderr;
    run.truncated = cut_out || cut_err;
    run
}

/// Waits for the tool at most [`LIMIT`]; kills it past that (`None`).
fn wait(child: &mut Child) -> Option<ExitStatus> {
    let end = Instant::now() + LIMIT;
    loop {
        match child.try_wait() {
            Ok(Some(s)) => return Some(s),
            Ok(None) if Instant::now() < end => std::thread::sleep(Duration::from_millis(10)),
            _ => {
                let _ = child.kill();
                let _ = child.wait();
                return None;
            }
        }
    }
}

/// One pipe read in a thread into a bounded buffer: the bytes so far (at most [`ToolRun::MAX_OUTPUT`])
/// and whether more were cut.
struct Capture {
    buf: Arc<Mutex<(Vec<u8>, bool)>>,
    handle: std::thread::JoinHandle<()>,
}

impl Capture {
    fn start(r: Option<impl Read + Send + 'static>) -> Capture {
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
                let room = ToolRun::MAX_OUTPUT.saturating_sub(g.0.len());
                g.0.extend_from_slice(&chunk[..n.min(room)]);
                g.1 |= n > room;
            }
        });
        Capture { buf, handle }
    }

    fn done(&self) -> bool {
        self.handle.is_finished()
    }

    /// What was read so far, lossily decoded, and whether it was cut.
    fn take(&self) -> (String, bool) {
        let g = self.buf.lock().unwrap_or_else(|p| p.into_inner());
        (String::from_utf8_lossy(&g.0).into_owned(), g.1)
    }
}

/// The AMD and Intel tools' queries for one round, keyed by the name the record keeps them
/// under. `bdf` is the workload's device's PCI address: the device-wide queries need it to pick
/// the device (without it they are not asked); the process lists are read for the child's PID.
pub fn vendor_queries(bdf: Option<&str>) -> Vec<(&'static str, &'static str, Vec<String>)> {
    let s = |v: &[&str]| v.iter().map(|x| x.to_string()).collect::<Vec<_>>();
    // A process listing: `cmd`, narrowed to the device where its address is known, then the
    // flag asking for JSON.
    let listing = |cmd: &str, device_flag: &str, json: &str| {
        let mut p = s(&[cmd]);
        if let Some(b) = bdf {
            p.extend(s(&[device_flag, b]));
        }
        p.push(json.into());
        p
    };
    let mut q = Vec::new();
    // amd-smi (ROCm 6+): `-g` takes a GPU's index, BDF or UUID.
    q.push((
        super::judge::AMD_SMI_PROCESS,
        "amd-smi",
        listing("process", "--gpu", "--json"),
    ));
    if let Some(b) = bdf {
        q.push((
            super::judge::AMD_SMI_METRIC,
            "amd-smi",
            s(&["metric", "--mem-usage", "--gpu", b, "--json"]),
        ));
    }
    // rocm-smi (before ROCm 6): every KFD process; every card's VRAM with its PCI address.
    q.push((
        super::judge::ROCM_SMI_PIDS,
        "rocm-smi",
        s(&["--showpids", "--json"]),
    ));
    if bdf.is_some() {
        q.push((
            super::judge::ROCM_SMI_MEMINFO,
            "rocm-smi",
            s(&["--showmeminfo", "vram", "--showbus", "--json"]),
        ));
    }
    // xpu-smi: `-d` takes a device ID or a PCI BDF address.
    q.push((
        super::judge::XPU_SMI_PS,
        "xpu-smi",
        listing("ps", "-d", "-j"),
    ));
    if let Some(b) = bdf {
        q.push((
            super::judge::XPU_SMI_STATS,
            "xpu-smi",
            s(&["stats", "-d", b, "-j"]),
        ));
    }
    q
}

/// Run the vendor queries of one round side by side (a round waits for the slowest, at most
/// [`LIMIT`]). A query whose tool was not installed or did not answer in an earlier round is
/// not asked again (`earlier`): see [`run_unless_gone`].
pub fn run_vendor(
    bdf: Option<&str>,
    earlier: &[&BTreeMap<String, ToolRun>],
) -> BTreeMap<String, ToolRun> {
    let queries = vendor_queries(bdf);
    std::thread::scope(|scope| {
        let handles: Vec<_> = queries
            .iter()
            .map(|(key, program, args)| {
                let before = earlier.iter().filter_map(|m| m.get(*key));
                scope.spawn(move || {
                    (
                        key.to_string(),
                        run_unless_gone(Path::new(program), args, before),
                    )
                })
            })
            .collect();
        handles.into_iter().filter_map(|h| h.join().ok()).collect()
    })
}

/// Run `program args`, unless an earlier round found the tool not installed or hung: then a run
/// that says so without asking, so a hung tool costs [`LIMIT`] once, not once a round.
fn run_unless_gone<'a>(
    program: &Path,
    args: &[String],
    earlier: impl IntoIterator<Item = &'a ToolRun>,
) -> ToolRun {
    let Some(gone) = earlier.into_iter().find(|r| r.missing || r.timed_out) else {
        return run(program, args);
    };
    let why = gone.error.clone().unwrap_or_default();
    ToolRun {
        command: command_line(&program.display().to_string(), args),
        error: Some(if why.starts_with("not asked again") {
            why
        } else {
            Said::new("report-verify-not-asked-again", vec![("why", why.into())])
        }),
        missing: gone.missing,
        timed_out: gone.timed_out,
        ..ToolRun::default()
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_missing_tool_is_marked_so_and_not_asked_again() {
        let args = ["--version".to_string()];
        let first = run(Path::new("/nonexistent/gpuledger-no-such-tool"), &args);
        assert!(first.missing && !first.timed_out, "{first:?}");
        let again = run_unless_gone(Path::new("gpuledger-no-such-tool"), &args, [&first]);
        assert!(again.missing, "{again:?}");
        let why = again.error.clone().unwrap();
        assert!(why.starts_with("not asked again: "), "{why}");
        // A third round keeps one "not asked again", not two.
        let third = run_unless_gone(Path::new("gpuledger-no-such-tool"), &args, [&first, &again]);
        assert_eq!(third.error, again.error);
    }

    #[test]
    fn the_flags_decide_not_the_words_of_the_error() {
        let hung = ToolRun {
            timed_out: true,
            error: Some("stopped".into()),
            ..ToolRun::default()
        };
        let r = run_unless_gone(Path::new("/nonexistent/tool"), &[], [&hung]);
        assert!(r.timed_out && !r.missing, "{r:?}");
        assert_eq!(r.error.as_deref(), Some("not asked again: stopped"));
        // An error that only reads like "not installed" (the tool ran and said so) is asked again.
        let said = ToolRun {
            error: Some("exited with Some(1): driver is not installed".into()),
            ..ToolRun::default()
        };
        let r = run_unless_gone(Path::new("/nonexistent/tool"), &[], [&said]);
        assert!(r.missing, "ran again, and found missing this time: {r:?}");
        assert!(!r.error.unwrap().starts_with("not asked again"));
    }
}
