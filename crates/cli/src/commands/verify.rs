//! `gpuledger verify`: run a known workload in a child process (idle → context → allocate and
//! write N bytes → free → exit) and check, after each step, that every source saw the change it
//! should: the child's memory moves by N within the allocation granularity, the device's used
//! memory with it, the unattributed remainder not at all, and the child is gone after it exits.
//!
//! The child is this same binary re-run with a hidden sub-command (the PID must differ from
//! ours, so that what the sources charge to it is the workload's and nothing else). It takes one
//! step per command over a pipe and holds its memory in the probe's clean-up guard: on an error,
//! a timeout or Ctrl-C here we close its input and it frees everything before it exits; if it
//! hangs we kill it, and the driver frees what a dead process held.

mod judge;
mod report;
mod witness;

use crate::Global;
use anyhow::Context;
use gpuledger_cuda::signal;
use gpuledger_cuda::workload::{run_child, StepReport};
use gpuledger_model::units::{human_bytes, parse_bytes};
use judge::{Machine, Record, Step, Verdict, SCHEMA, STEPS, TOLERANCE};
use report::{emit, replay, save};
use std::io::{BufRead, BufReader, IsTerminal, Write};
use std::path::PathBuf;
use std::process::{Child, ChildStdin, Command, ExitCode, Stdio};
use std::sync::mpsc::{Receiver, RecvTimeoutError};
use std::time::{Duration, Instant, SystemTime};

pub const EXIT_CODES: &str = "\
Exit status:
  0    every source gpuledger reads saw the workload as expected
  1    an error (the workload could not run to the end); everything it allocated was released
  2    bad command-line usage
  3    nothing could be verified: no CUDA driver, or no device (the message says which)
  4    a source gpuledger reads is off or cannot see the workload (the verdicts say which);
       the vendor tool's verdict is shown but does not change the status
  130  interrupted (Ctrl-C); everything the workload allocated was released";

/// The workload may not ask for more than this share of the device's free memory, even with --yes.
const MAX_FRACTION: (u64, u64) = (9, 10);
/// Above this share of free memory, ask first.
const ASK_FRACTION: (u64, u64) = (1, 10);
/// How long one step of the child may take before it is given up (context creation on a cold
/// driver is the slowest, about a second).
const STEP_TIMEOUT: Duration = Duration::from_secs(5);
/// The whole sequence; well under 10 s on a healthy machine.
const TOTAL_TIMEOUT: Duration = Duration::from_secs(9);

#[derive(clap::Args, Debug)]
pub struct Args {
    /// How much device memory the workload allocates and writes.
    #[arg(long, default_value = "512MiB", value_parser = parse_size, value_name = "BYTES")]
    pub size: u64,
    /// CUDA device ordinal to run the workload on.
    #[arg(long, default_value_t = 0, value_name = "N")]
    pub device: i32,
    /// Print the whole record (every reading, every verdict) as JSON.
    #[arg(long)]
    pub json: bool,
    /// Also write the whole record to FILE (replay it with `gpuledger --replay FILE verify`).
    #[arg(long, value_name = "FILE")]
    pub save: Option<PathBuf>,
    /// Do not ask before allocating more than 10 % of free memory, and allow a device whose free
    /// memory is unknown.
    #[arg(long)]
    pub yes: bool,
    /// Load the CUDA driver from this file instead of libcuda.so.1 / nvcuda.dll.
    #[arg(long, value_name = "PATH", env = "GPULEDGER_CUDA_LIB")]
    pub cuda_lib: Option<PathBuf>,
    /// The vendor tool run as a second witness.
    #[arg(long, value_name = "PATH", default_value = "nvidia-smi", hide = true)]
    pub nvidia_smi: PathBuf,
}

/// The hidden child: `gpuledger verify-workload`.
#[derive(clap::Args, Debug)]
pub struct ChildArgs {
    #[arg(long, default_value_t = 0)]
    pub device: i32,
    #[arg(long)]
    pub cuda_lib: Option<PathBuf>,
}

fn parse_size(s: &str) -> Result<u64, String> {
    match parse_bytes(s)? {
        0 => Err(format!("{s:?}: a size must be more than 0 bytes")),
        n if n > (1 << 50) => Err(format!("{s:?}: larger than any GPU")),
        n => Ok(n),
    }
}

pub fn run_workload(args: &ChildArgs) -> anyhow::Result<ExitCode> {
    // Ctrl-C reaches us too (same process group): note it and carry on; the parent closes our
    // input, and we release everything on the way out.
    let _ = signal::install();
    let stdin = std::io::stdin();
    let mut input = stdin.lock();
    let mut out = std::io::stdout().lock();
    let code = run_child(args.cuda_lib.as_deref(), args.device, &mut input, &mut out);
    Ok(ExitCode::from(code.clamp(0, 255) as u8))
}

/// The running child and its answers, read in a thread so every wait is bounded.
struct Workload {
    child: Child,
    stdin: Option<ChildStdin>,
    answers: Receiver<String>,
    deadline: Instant,
}

enum Stop {
    /// The child reported an error at this step, in words.
    Failed(String),
    Interrupted,
    TimedOut(&'static str),
    /// A guard rail said no before the allocation.
    Refused(String),
}

impl Workload {
    fn start(args: &Args) -> anyhow::Result<Workload> {
        let exe = std::env::current_exe().context("cannot find gpuledger's own executable")?;
        let mut cmd = Command::new(exe);
        cmd.arg("verify-workload")
            .arg("--device")
            .arg(args.device.to_string());
        if let Some(l) = &args.cuda_lib {
            cmd.arg("--cuda-lib").arg(l);
        }
        let mut child = cmd
            .stdin(Stdio::piped())
            .stdout(Stdio::piped())
            .stderr(Stdio::inherit())
            .spawn()
            .context("cannot start the workload process")?;
        let stdout = child.stdout.take().expect("piped");
        let (tx, rx) = std::sync::mpsc::channel();
        std::thread::spawn(move || {
            for line in BufReader::new(stdout).lines().map_while(Result::ok) {
                if tx.send(line).is_err() {
                    break;
                }
            }
        });
        Ok(Workload {
            stdin: child.stdin.take(),
            child,
            answers: rx,
            deadline: Instant::now() + TOTAL_TIMEOUT,
        })
    }

    fn pid(&self) -> u32 {
        self.child.id()
    }

    fn send(&mut self, cmd: &str) -> Result<(), Stop> {
        let ok = self
            .stdin
            .as_mut()
            .is_some_and(|s| writeln!(s, "{cmd}").and_then(|_| s.flush()).is_ok());
        if ok {
            Ok(())
        } else {
            Err(Stop::Failed("the workload process is gone".into()))
        }
    }

    /// The next report, waiting at most [`STEP_TIMEOUT`] and never past the overall deadline.
    fn answer(&mut self, step: &'static str) -> Result<StepReport, Stop> {
        let end = (Instant::now() + STEP_TIMEOUT).min(self.deadline);
        loop {
            if signal::interrupted() {
                return Err(Stop::Interrupted);
            }
            let left = end.saturating_duration_since(Instant::now());
            if left.is_zero() {
                return Err(Stop::TimedOut(step));
            }
            match self
                .answers
                .recv_timeout(left.min(Duration::from_millis(50)))
            {
                Ok(line) => {
                    let r: StepReport = serde_json::from_str(&line).map_err(|e| {
                        Stop::Failed(format!("the workload said something unreadable: {e}"))
                    })?;
                    return match r.error.clone() {
                        Some(e) if r.step == "error" => Err(Stop::Failed(e)),
                        _ => Ok(r),
                    };
                }
                Err(RecvTimeoutError::Timeout) => continue,
                Err(RecvTimeoutError::Disconnected) => {
                    return Err(Stop::Failed(format!(
                        "the workload process ended before the {step} step"
                    )))
                }
            }
        }
    }

    /// Close its input (it releases everything and exits), wait a bounded time, else kill it.
    fn finish(&mut self) -> Option<std::process::ExitStatus> {
        self.stdin = None;
        let end = Instant::now() + Duration::from_secs(3);
        loop {
            match self.child.try_wait() {
                Ok(Some(s)) => return Some(s),
                Ok(None) if Instant::now() < end => std::thread::sleep(Duration::from_millis(10)),
                _ => {
                    let _ = self.child.kill();
                    return self.child.wait().ok();
                }
            }
        }
    }
}

impl Drop for Workload {
    fn drop(&mut self) {
        if matches!(self.child.try_wait(), Ok(None)) {
            self.finish();
        }
    }
}

fn frac(v: u64, (n, d): (u64, u64)) -> u64 {
    (v as u128 * n as u128 / d as u128) as u64
}

/// Guard rails before the allocation: `Ok(None)` to go ahead, `Ok(Some(why))` to stop.
fn may_allocate(args: &Args, free: Option<u64>, device: &str) -> anyhow::Result<Option<String>> {
    let n = args.size;
    let Some(free) = free else {
        if args.yes {
            return Ok(None);
        }
        return Ok(Some(format!(
            "the free memory of {device} is unknown, so verify will not allocate {} there without --yes",
            human_bytes(n)
        )));
    };
    if n > frac(free, MAX_FRACTION) {
        return Ok(Some(format!(
            "{} does not fit: {device} has {} free and verify uses at most 90 % of that; choose a smaller --size",
            human_bytes(n),
            human_bytes(free)
        )));
    }
    if n <= frac(free, ASK_FRACTION) || args.yes {
        return Ok(None);
    }
    let question = format!(
        "Allocate {} on {device}? That is more than 10 % of its {} free. [y/N] ",
        human_bytes(n),
        human_bytes(free)
    );
    if !std::io::stdin().is_terminal() {
        return Ok(Some(format!(
            "{} on {device} is more than 10 % of free memory ({} free); pass --yes to allow it (there is no terminal to ask on)",
            human_bytes(n),
            human_bytes(free)
        )));
    }
    eprint!("{question}");
    let mut answer = String::new();
    std::io::stdin().read_line(&mut answer)?;
    Ok(match answer.trim() {
        "y" | "Y" | "yes" => None,
        _ => Some("not confirmed; nothing was allocated".into()),
    })
}

pub fn run(args: &Args, global: &Global) -> anyhow::Result<ExitCode> {
    if let Some(path) = &global.args.replay {
        return replay(args, path);
    }
    signal::install().context("cannot install the Ctrl-C handler")?;
    let mut collector = global.collector();
    let mut w = Workload::start(args)?;
    let mut rec = Record {
        schema: SCHEMA.into(),
        taken_at: humantime::format_rfc3339_seconds(SystemTime::now()).to_string(),
        gpuledger_version: crate::VERSION.into(),
        machine: Machine {
            os: std::env::consts::OS.into(),
            arch: std::env::consts::ARCH.into(),
            ..Machine::default()
        },
        path: "cuda".into(),
        size_bytes: args.size,
        tolerance_bytes: TOLERANCE,
        child_pid: Some(w.pid()),
        device: None,
        steps: Vec::new(),
        verdicts: Vec::new(),
        notes: Vec::new(),
    };
    let outcome = sequence(args, &mut collector, &mut w, &mut rec);
    let status = w.finish();
    if let Some(s) = rec.steps.first().map(|s| &s.snapshot) {
        rec.machine.hostname = s.host.hostname.clone();
        rec.machine.kernel = s.host.kernel.clone();
        rec.machine.wsl = s.host.wsl;
        rec.machine.driver_version = s.devices.iter().find_map(|d| d.driver_version.clone());
    }
    match outcome {
        Ok(()) => {}
        Err(Stop::Interrupted) => {
            eprintln!("gpuledger verify: interrupted; the workload released everything it held");
            return Ok(ExitCode::from(130));
        }
        Err(Stop::TimedOut(step)) => anyhow::bail!(
            "the workload did not finish the {step} step in time; it was stopped (exit {status:?}) and the driver frees what it held"
        ),
        Err(Stop::Failed(why)) if rec.steps.is_empty() => {
            let text = format!(
                "nothing can be verified on this machine: the CUDA workload cannot start: {why}\n\
                 (verify needs an NVIDIA GPU and its driver; the Vulkan path for other GPUs is not implemented yet)\n"
            );
            // The record says the same, so a saved or --json run is not silent about it.
            rec.notes.push(text.trim_end().to_string());
            rec.verdicts = not_implemented();
            save(args, &rec)?;
            if args.json {
                super::print(&(serde_json::to_string_pretty(&rec)? + "\n"))?;
            } else {
                super::print(&text)?;
            }
            return Ok(ExitCode::from(3));
        }
        Err(Stop::Refused(why)) => {
            anyhow::bail!("{why}; nothing was allocated, and the workload has ended");
        }
        Err(Stop::Failed(why)) => {
            rec.notes.push(format!("stopped early: {why}"));
            emit(args, &rec)?;
            anyhow::bail!("the workload failed: {why}; everything it held was released");
        }
    }
    rec.verdicts = judge::judge(&rec);
    rec.verdicts.extend(not_implemented());
    emit(args, &rec)?;
    Ok(exit_for(&rec.verdicts))
}

fn not_implemented() -> Vec<Verdict> {
    [
        (
            "vulkan",
            "not implemented: the Vulkan workload (AMD, Intel, lavapipe) is not written yet",
        ),
        (
            "amd-smi / rocm-smi / xpu-smi / typeperf",
            "not implemented: only nvidia-smi is asked as a second witness",
        ),
    ]
    .into_iter()
    .map(|(s, t)| Verdict {
        source: s.into(),
        verdict: "not implemented".into(),
        text: t.into(),
        witness: true,
        checks: Vec::new(),
    })
    .collect()
}

fn exit_for(v: &[Verdict]) -> ExitCode {
    if v.iter().any(|v| !v.witness && v.verdict != "ok") {
        ExitCode::from(4)
    } else {
        ExitCode::SUCCESS
    }
}

/// The five steps, a collection round after each.
fn sequence(
    args: &Args,
    collector: &mut gpuledger_sources::Collector,
    w: &mut Workload,
    rec: &mut Record,
) -> Result<(), Stop> {
    let idle = w.answer("idle")?;
    rec.device = idle.device.clone();
    let pid = w.pid();
    let mut round = |rec: &mut Record, name: &str, child: Option<StepReport>| {
        let mut snapshot = collector.collect();
        // After a free or the exit, the driver may release a moment later: re-read (bounded)
        // until the release shows, as the probe does, and say how many reads it took.
        let mut settle_reads = 0;
        while settle_reads < SETTLE_READS && !released(rec, name, &snapshot, pid, args.size) {
            std::thread::sleep(SETTLE_PAUSE);
            settle_reads += 1;
            snapshot = collector.collect();
        }
        if settle_reads > 0 {
            let shown = released(rec, name, &snapshot, pid, args.size);
            rec.notes.push(if shown {
                format!(
                    "{name}: the release showed only after {settle_reads} more round(s) {} ms apart",
                    SETTLE_PAUSE.as_millis()
                )
            } else {
                format!("{name}: the release had not shown after {settle_reads} more rounds")
            });
        }
        let smi = witness::nvidia_smi(&args.nvidia_smi);
        rec.steps.push(Step {
            name: name.into(),
            child,
            snapshot,
            nvidia_smi: Some(smi),
            settle_reads,
        });
    };
    round(rec, STEPS[0], Some(idle));
    w.send("context")?;
    let ctx = w.answer("context")?;
    let free = ctx.free_bytes.or_else(|| nvml_free(rec));
    round(rec, STEPS[1], Some(ctx));
    let label = rec
        .device
        .as_ref()
        .map(|d| format!("CUDA device {} ({})", d.ordinal, d.name))
        .unwrap_or_else(|| "the device".into());
    match may_allocate(args, free, &label) {
        Ok(None) => {}
        Ok(Some(why)) => return Err(Stop::Refused(why)),
        Err(e) => return Err(Stop::Failed(e.to_string())),
    }
    // A Ctrl-C while the question was open: do not allocate after it.
    if signal::interrupted() {
        return Err(Stop::Interrupted);
    }
    w.send(&format!("alloc {}", args.size))?;
    let a = w.answer("allocate")?;
    if a.touched == Some(false) {
        rec.notes.push(
            "the driver has no cuMemsetD8: the allocation was not written, only reserved".into(),
        );
    }
    round(rec, STEPS[2], Some(a));
    w.send("free")?;
    let f = w.answer("free")?;
    round(rec, STEPS[3], Some(f));
    w.send("exit")?;
    w.answer("exit")?;
    w.finish();
    round(rec, STEPS[4], None);
    Ok(())
}

/// Re-reads after a free or the exit before the round counts (5 × 100 ms at most).
const SETTLE_READS: u32 = 5;
const SETTLE_PAUSE: Duration = Duration::from_millis(100);

/// Whether `snap` already shows the release the step `name` should cause: the device's used
/// memory down by N after the free, back to the idle level and the child unlisted after the exit.
/// Unknown readings count as shown (nothing to wait for).
fn released(rec: &Record, name: &str, snap: &gpuledger_model::Snapshot, pid: u32, n: u64) -> bool {
    let Some(uuid) = rec.device.as_ref().and_then(|d| d.uuid.as_deref()) else {
        return true;
    };
    let used = |s: &gpuledger_model::Snapshot| s.device_by_uuid(uuid)?.memory.used_bytes;
    let at = |i: usize| rec.steps.get(i).and_then(|s| used(&s.snapshot));
    let Some(now) = used(snap) else {
        return true;
    };
    match name {
        "freed" => at(2).is_none_or(|a| now <= a.saturating_sub(n) + TOLERANCE),
        "exited" => {
            let listed = snap.processes.iter().any(|p| p.pid == pid);
            !listed && at(0).is_none_or(|i| now <= i + TOLERANCE)
        }
        _ => true,
    }
}

/// NVML's free memory of the workload's device in the latest round.
fn nvml_free(rec: &Record) -> Option<u64> {
    let uuid = rec.device.as_ref()?.uuid.as_deref()?;
    rec.steps
        .last()?
        .snapshot
        .device_by_uuid(uuid)?
        .memory
        .free_bytes
}
