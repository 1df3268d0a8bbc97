//! `gpuledger verify`: run a known workload in a child process (idle → context → allocate and
//! write N bytes → free → exit) and check, after each step, that every source saw the change it
//! should: the child's memory moves by N within the allocation granularity, the device's used
//! memory with it, the unattributed remainder not at all, and the child is gone after it exits.
//!
//! Two paths run the workload: `cuda` (the CUDA driver, [`gpuledger_cuda::workload`]) and
//! `vulkan` (the Vulkan loader, [`gpuledger_vulkan::workload`]; AMD, Intel, NVIDIA's Vulkan
//! driver, Mesa's lavapipe). `--path auto` tries CUDA first and Vulkan when CUDA cannot start;
//! the record says which ran and why the other did not.
//!
//! The child is this same binary re-run with a hidden sub-command (the PID must differ from
//! ours, so that what the sources charge to it is the workload's and nothing else). It takes one
//! step per command over a pipe and holds its memory in the probe's clean-up guard: on an error,
//! a timeout or Ctrl-C here we close its input and it frees everything before it exits; if it
//! hangs we kill it, and the driver frees what a dead process held.

mod judge;
mod report;
mod vendor;
mod witness;

use crate::Global;
use anyhow::Context;
use gpuledger_cuda::signal;
use gpuledger_cuda::workload::StepReport;
use gpuledger_model::units::{human_bytes, parse_bytes};
use judge::{Machine, PathNote, Record, Step, Verdict, SCHEMA, STEPS, TOLERANCE};
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
  3    nothing could be verified: neither a CUDA nor a Vulkan workload could start (no driver,
       no device: the message says which), or the only device is a CPU device (lavapipe),
       whose memory no GPU source can see
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
/// The whole sequence; well under 10 s on a healthy machine. The witnesses' time (nvidia-smi,
/// amd-smi, rocm-smi, xpu-smi) is added to it: it is theirs, not the workload's.
const TOTAL_TIMEOUT: Duration = Duration::from_secs(9);

#[derive(clap::Args, Debug)]
pub struct Args {
    /// How much device memory the workload allocates and writes.
    #[arg(long, default_value = "512MiB", value_parser = parse_size, value_name = "BYTES")]
    pub size: u64,
    /// The device to run the workload on: the CUDA ordinal (default 0), or the index in the
    /// Vulkan loader's list (default: the first device that is not a CPU device).
    #[arg(long, value_name = "N")]
    pub device: Option<i32>,
    /// Which workload runs: `cuda` (the CUDA driver), `vulkan` (the Vulkan loader: AMD, Intel,
    /// NVIDIA, Mesa's lavapipe), or `auto` (CUDA, and Vulkan when CUDA cannot start).
    #[arg(long, value_enum, default_value_t = PathChoice::Auto, value_name = "PATH")]
    pub path: PathChoice,
    /// Print the whole record (every reading, every verdict) as JSON.
    #[arg(long)]
    pub json: bool,
    /// Also write the whole record to FILE (replay it with `gpuledger --replay FILE verify`).
    #[arg(long, value_name = "FILE")]
    pub save: Option<PathBuf>,
    /// Do not ask before allocating more than 10 % of free memory (on the Vulkan path: of the
    /// heap's budget, or of the heap where the driver reports no budget), and allow a device
    /// whose free memory is unknown.
    #[arg(long)]
    pub yes: bool,
    /// Load the CUDA driver from this file instead of libcuda.so.1 / nvcuda.dll.
    #[arg(long, value_name = "PATH", env = "GPULEDGER_CUDA_LIB")]
    pub cuda_lib: Option<PathBuf>,
    /// Load the Vulkan loader from this file instead of libvulkan.so.1 / vulkan-1.dll /
    /// libvulkan.dylib (which drivers it finds is the loader's business: VK_ICD_FILENAMES).
    #[arg(long, value_name = "PATH", env = "GPULEDGER_VULKAN_LIB")]
    pub vulkan_lib: Option<PathBuf>,
    /// The vendor tool run as a second witness.
    #[arg(long, value_name = "PATH", default_value = "nvidia-smi", hide = true)]
    pub nvidia_smi: PathBuf,
}

#[derive(clap::ValueEnum, Clone, Copy, Debug, PartialEq, Eq)]
pub enum PathChoice {
    Auto,
    Cuda,
    Vulkan,
}

/// The API one workload runs through.
#[derive(clap::ValueEnum, Clone, Copy, Debug, PartialEq, Eq)]
pub enum Api {
    Cuda,
    Vulkan,
}

impl Api {
    fn name(self) -> &'static str {
        match self {
            Api::Cuda => "cuda",
            Api::Vulkan => "vulkan",
        }
    }
    fn title(self) -> &'static str {
        match self {
            Api::Cuda => "CUDA",
            Api::Vulkan => "Vulkan",
        }
    }
}

/// The hidden child: `gpuledger verify-workload`.
#[derive(clap::Args, Debug)]
pub struct ChildArgs {
    #[arg(long, value_enum, default_value_t = Api::Cuda)]
    pub api: Api,
    #[arg(long)]
    pub device: Option<i32>,
    #[arg(long)]
    pub cuda_lib: Option<PathBuf>,
    #[arg(long)]
    pub vulkan_lib: Option<PathBuf>,
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
    let code = match args.api {
        Api::Cuda => gpuledger_cuda::workload::run_child(
            args.cuda_lib.as_deref(),
            args.device.unwrap_or(0),
            &mut input,
            &mut out,
        ),
        Api::Vulkan => gpuledger_vulkan::workload::run_child(
            args.vulkan_lib.as_deref(),
            args.device,
            &mut input,
            &mut out,
        ),
    };
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
    fn start(args: &Args, api: Api) -> anyhow::Result<Workload> {
        let exe = std::env::current_exe().context("cannot find gpuledger's own executable")?;
        let mut cmd = Command::new(exe);
        cmd.arg("verify-workload").arg("--api").arg(api.name());
        if let Some(d) = args.device {
            cmd.arg("--device").arg(d.to_string());
        }
        match (api, &args.cuda_lib, &args.vulkan_lib) {
            (Api::Cuda, Some(l), _) => {
                cmd.arg("--cuda-lib").arg(l);
            }
            (Api::Vulkan, _, Some(l)) => {
                cmd.arg("--vulkan-lib").arg(l);
            }
            _ => {}
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

/// What the guard rails measure the allocation against.
#[derive(Clone, Copy)]
enum Room {
    /// Free memory (CUDA's cuMemGetInfo or NVML; Vulkan's memory budget less usage).
    Free(u64),
    /// A Vulkan heap's size, where the driver reports no budget.
    Heap(u64),
    Unknown,
}

impl Room {
    fn bytes(self) -> Option<u64> {
        match self {
            Room::Free(b) | Room::Heap(b) => Some(b),
            Room::Unknown => None,
        }
    }
    /// `free memory (140 GiB free)`, `its heap (23 GiB, no memory budget reported)`.
    fn of(self, b: u64) -> (&'static str, String) {
        match self {
            Room::Heap(_) => (
                "its heap",
                format!("{}, the driver reports no memory budget", human_bytes(b)),
            ),
            _ => ("free memory", format!("{} free", human_bytes(b))),
        }
    }
}

/// Guard rails before the allocation: `Ok(None)` to go ahead, `Ok(Some(why))` to stop.
fn may_allocate(args: &Args, room: Room, device: &str) -> anyhow::Result<Option<String>> {
    let n = args.size;
    let Some(free) = room.bytes() else {
        if args.yes {
            return Ok(None);
        }
        return Ok(Some(format!(
            "the free memory of {device} is unknown, so verify will not allocate {} there without --yes",
            human_bytes(n)
        )));
    };
    let (what, amount) = room.of(free);
    if n > frac(free, MAX_FRACTION) {
        return Ok(Some(format!(
            "{} does not fit: {device} has {amount} and verify uses at most 90 % of that; choose a smaller --size",
            human_bytes(n),
        )));
    }
    if n <= frac(free, ASK_FRACTION) || args.yes {
        return Ok(None);
    }
    let question = format!(
        "Allocate {} on {device}? That is more than 10 % of {what} ({amount}). [y/N] ",
        human_bytes(n),
    );
    if !std::io::stdin().is_terminal() {
        return Ok(Some(format!(
            "{} on {device} is more than 10 % of {what} ({amount}); pass --yes to allow it (there is no terminal to ask on)",
            human_bytes(n),
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
    let order: &[Api] = match args.path {
        PathChoice::Auto => &[Api::Cuda, Api::Vulkan],
        PathChoice::Cuda => &[Api::Cuda],
        PathChoice::Vulkan => &[Api::Vulkan],
    };
    // The paths tried before one started, and why each could not.
    let mut tried: Vec<PathNote> = Vec::new();
    for (i, &api) in order.iter().enumerate() {
        let mut w = Workload::start(args, api)?;
        let mut rec = new_record(args, api.name(), Some(w.pid()));
        let outcome = sequence(args, api, &mut collector, &mut w, &mut rec);
        let status = w.finish();
        if let Some(s) = rec.steps.first().map(|s| &s.snapshot) {
            rec.machine.hostname = s.host.hostname.clone();
            rec.machine.kernel = s.host.kernel.clone();
            rec.machine.wsl = s.host.wsl;
            rec.machine.driver_version = s.devices.iter().find_map(|d| d.driver_version.clone());
        }
        if let Err(Stop::Failed(why)) = &outcome {
            if rec.steps.is_empty() {
                tried.push(PathNote {
                    path: api.name().into(),
                    ran: false,
                    why: format!("the {} workload cannot start: {why}", api.title()),
                });
                continue;
            }
        }
        rec.paths = std::mem::take(&mut tried);
        rec.paths.push(PathNote {
            path: api.name().into(),
            ran: true,
            why: match args.path {
                PathChoice::Auto if i > 0 => "ran (--path auto: the first that could start)",
                PathChoice::Auto => "ran (--path auto: CUDA is tried first)",
                _ => "ran (asked for with --path)",
            }
            .into(),
        });
        for other in [Api::Cuda, Api::Vulkan] {
            if !rec.paths.iter().any(|p| p.path == other.name()) {
                rec.paths.push(PathNote {
                    path: other.name().into(),
                    ran: false,
                    why: if args.path == PathChoice::Auto {
                        format!(
                            "not tried: the {} path ran (--path {} runs this one)",
                            api.name(),
                            other.name()
                        )
                    } else {
                        format!("not asked for (--path {})", api.name())
                    },
                });
            }
        }
        return finish(args, rec, outcome, status);
    }
    nothing_started(args, tried)
}

fn new_record(args: &Args, path: &str, child_pid: Option<u32>) -> Record {
    Record {
        schema: SCHEMA.into(),
        taken_at: humantime::format_rfc3339_seconds(SystemTime::now()).to_string(),
        gpuledger_version: crate::VERSION.into(),
        machine: Machine {
            os: std::env::consts::OS.into(),
            arch: std::env::consts::ARCH.into(),
            ..Machine::default()
        },
        path: path.into(),
        paths: Vec::new(),
        size_bytes: args.size,
        tolerance_bytes: TOLERANCE,
        child_pid,
        device: None,
        steps: Vec::new(),
        verdicts: Vec::new(),
        notes: Vec::new(),
    }
}

/// No path could start its workload: say why for each, in the output and in the record.
fn nothing_started(args: &Args, tried: Vec<PathNote>) -> anyhow::Result<ExitCode> {
    let mut text = String::from("nothing can be verified on this machine:\n");
    for t in &tried {
        text.push_str(&format!("  {}: {}\n", t.path, t.why));
    }
    text.push_str(match args.path {
        PathChoice::Auto => "(verify needs a GPU with a CUDA or a Vulkan driver)\n",
        PathChoice::Cuda => "(verify --path cuda needs an NVIDIA GPU and its driver; --path vulkan runs the Vulkan workload)\n",
        PathChoice::Vulkan => "(verify --path vulkan needs the Vulkan loader and a Vulkan driver; --path cuda runs the CUDA workload)\n",
    });
    let mut rec = new_record(args, "none", None);
    // The record says the same, so a saved or --json run is not silent about it.
    rec.notes.push(text.trim_end().to_string());
    rec.paths = tried;
    rec.verdicts = not_implemented();
    save(args, &rec)?;
    if args.json {
        super::print(&(serde_json::to_string_pretty(&rec)? + "\n"))?;
    } else {
        super::print(&text)?;
    }
    Ok(ExitCode::from(3))
}

/// The verdicts and the exit status of a path that started.
fn finish(
    args: &Args,
    mut rec: Record,
    outcome: Result<(), Stop>,
    status: Option<std::process::ExitStatus>,
) -> anyhow::Result<ExitCode> {
    match outcome {
        Ok(()) => {}
        Err(Stop::Interrupted) => {
            eprintln!("gpuledger verify: interrupted; the workload released everything it held");
            return Ok(ExitCode::from(130));
        }
        Err(Stop::TimedOut(step)) => anyhow::bail!(
            "the workload did not finish the {step} step in time; it was stopped (exit {status:?}) and the driver frees what it held"
        ),
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
    Ok(exit_for(&rec))
}

fn not_implemented() -> Vec<Verdict> {
    [(
        "typeperf",
        "not implemented: on Windows only nvidia-smi is asked as a second witness",
    )]
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

/// 3 where the device is one no GPU source can see (a CPU device), 4 where a source is off or
/// cannot see, 0 where every source is ok.
fn exit_for(rec: &Record) -> ExitCode {
    if judge::cpu_device(rec).is_some() {
        ExitCode::from(3)
    } else if rec.verdicts.iter().any(|v| !v.witness && v.verdict != "ok") {
        ExitCode::from(4)
    } else {
        ExitCode::SUCCESS
    }
}

/// The five steps, a collection round after each.
fn sequence(
    args: &Args,
    api: Api,
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
        // The witnesses' time is not the workload's: it does not count against its deadline.
        let asked = Instant::now();
        // nvidia-smi's compute-apps list is the CUDA path's witness only.
        let smi = (api == Api::Cuda).then(|| witness::nvidia_smi(&args.nvidia_smi));
        // The AMD and Intel tools, where installed, on either path (not on a CPU device).
        let witnesses = if judge::cpu_device(rec).is_some() {
            Default::default()
        } else {
            let bdf = judge::target_pci(rec, &snapshot);
            let earlier: Vec<_> = rec.steps.iter().map(|s| &s.witnesses).collect();
            witness::run_vendor(bdf.as_deref(), &earlier)
        };
        rec.steps.push(Step {
            name: name.into(),
            child,
            snapshot,
            nvidia_smi: smi,
            witnesses,
            settle_reads,
        });
        asked.elapsed()
    };
    w.deadline += round(rec, STEPS[0], Some(idle));
    w.send("context")?;
    let ctx = w.answer("context")?;
    let room = match (api, ctx.free_bytes, ctx.total_bytes) {
        (_, Some(f), _) => Room::Free(f),
        (Api::Cuda, None, _) => nvml_free(rec).map_or(Room::Unknown, Room::Free),
        (Api::Vulkan, None, Some(heap)) => Room::Heap(heap),
        (Api::Vulkan, None, None) => Room::Unknown,
    };
    w.deadline += round(rec, STEPS[1], Some(ctx));
    let label = rec
        .device
        .as_ref()
        .map(|d| format!("{} device {} ({})", api.title(), d.ordinal, d.name))
        .unwrap_or_else(|| "the device".into());
    // The user's time answering the question is not the workload's: it does not count against
    // its deadline.
    let asked = Instant::now();
    let answer = may_allocate(args, room, &label);
    w.deadline += asked.elapsed();
    match answer {
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
    w.deadline += round(rec, STEPS[2], Some(a));
    w.send("free")?;
    let f = w.answer("free")?;
    w.deadline += round(rec, STEPS[3], Some(f));
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
    let Ok(uuid) = judge::target_uuid(rec) else {
        return true;
    };
    let uuid = uuid.as_str();
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
