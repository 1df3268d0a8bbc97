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
//!
//! Here: the arguments, the choice of path and the record's outcome. The child process is
//! `child`'s, the steps and collection rounds `sequence`'s, the guard rails before the
//! allocation `guard`'s, the verdicts `judge`'s (sources and vendor tools), running the vendor
//! tools `witness`'s, the output and the saved record `report`'s.

mod child;
mod guard;
mod judge;
mod report;
mod sequence;
mod witness;

use crate::Global;
pub use child::run_workload;
use child::{Stop, Workload};
use gpuledger_cuda::signal;
use gpuledger_lang::{Lang, Said};
use gpuledger_model::verdict::VerdictKind;
use gpuledger_views::verify::{render_unverifiable, Asked};
use judge::{Machine, PathNote, Record, Verdict, SCHEMA, TOLERANCE};
use report::{emit, replay, save};
use sequence::sequence;
use std::path::PathBuf;
use std::process::ExitCode;
use std::time::SystemTime;

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

#[derive(clap::Args, Debug)]
pub struct Args {
    /// How much device memory the workload allocates and writes.
    #[arg(long, default_value = "512MiB", value_parser = crate::flags::allocation, value_name = "BYTES")]
    pub size: u64,
    /// The device to run the workload on: the CUDA ordinal (default 0), or the index in the
    /// Vulkan loader's list (default: the first device that is not a CPU device). Under `--path
    /// auto` it is a CUDA ordinal: should CUDA not start and the loader list several devices,
    /// verify refuses rather than guess which one is meant.
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

pub fn run(args: &Args, global: &Global) -> anyhow::Result<ExitCode> {
    if let Some(path) = &global.args.replay {
        return replay(args, path, global.lang);
    }
    signal::install().map_err(|e| crate::stop::handler_error(&e))?;
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
        let outcome = sequence(args, api, global.lang, &mut collector, &mut w, &mut rec);
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
                    why: Said::new(
                        "report-verify-path-cannot-start",
                        vec![("api", api.title().into()), ("why", why.clone().into())],
                    ),
                });
                continue;
            }
        }
        rec.paths = std::mem::take(&mut tried);
        rec.paths.push(PathNote {
            path: api.name().into(),
            ran: true,
            why: Said::new(
                match args.path {
                    PathChoice::Auto if i > 0 => "report-verify-path-ran-first",
                    PathChoice::Auto => "report-verify-path-ran-cuda-first",
                    _ => "report-verify-path-ran-asked",
                },
                vec![],
            ),
        });
        for other in [Api::Cuda, Api::Vulkan] {
            if !rec.paths.iter().any(|p| p.path == other.name()) {
                rec.paths.push(PathNote {
                    path: other.name().into(),
                    ran: false,
                    why: if args.path == PathChoice::Auto {
                        Said::new(
                            "report-verify-path-not-tried",
                            vec![("ran", api.name().into()), ("other", other.name().into())],
                        )
                    } else {
                        Said::new(
                            "report-verify-path-not-asked",
                            vec![("ran", api.name().into())],
                        )
                    },
                });
            }
        }
        return finish(args, rec, outcome, status, global.lang);
    }
    nothing_started(args, tried, global.lang)
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
fn nothing_started(args: &Args, tried: Vec<PathNote>, lang: Lang) -> anyhow::Result<ExitCode> {
    let asked = match args.path {
        PathChoice::Auto => Asked::Any,
        PathChoice::Cuda => Asked::Cuda,
        PathChoice::Vulkan => Asked::Vulkan,
    };
    let paths: Vec<(&str, &Said)> = tried.iter().map(|t| (t.path.as_str(), &t.why)).collect();
    let text = |lang| render_unverifiable(&paths, Some(asked), lang);
    let mut rec = new_record(args, "none", None);
    // The record says the same (in English, as all of it), so a saved or --json run is not
    // silent about it.
    rec.notes.push(text(Lang::En).trim_end().into());
    let text = text(lang);
    rec.paths = tried;
    rec.verdicts = not_implemented();
    save(args, &rec, lang)?;
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
    lang: Lang,
) -> anyhow::Result<ExitCode> {
    match outcome {
        Ok(()) => {}
        Err(Stop::Interrupted) => {
            eprintln!("{}", lang.t("cli-verify-interrupted"));
            return Ok(ExitCode::from(130));
        }
        Err(Stop::TimedOut(step)) => {
            let said = vec![
                ("step", judge::step_said(step).into()),
                ("status", format!("{status:?}").into()),
            ];
            return Err(crate::failed::failed("cli-err-verify-timed-out", said));
        }
        Err(Stop::Refused(why)) => {
            let said = vec![("why", why.into())];
            return Err(crate::failed::failed("cli-err-verify-refused", said));
        }
        Err(Stop::Unverifiable(why)) => {
            let text = |lang| render_unverifiable(&[(rec.path.as_str(), &why)], None, lang);
            rec.notes.push(text(Lang::En).trim_end().into());
            let text = text(lang);
            rec.verdicts = not_implemented();
            save(args, &rec, lang)?;
            super::print(&if args.json {
                serde_json::to_string_pretty(&rec)? + "\n"
            } else {
                text
            })?;
            return Ok(ExitCode::from(3));
        }
        Err(Stop::Failed(why)) => {
            // After the last round the workload ran to the end; only its clean-up failed.
            let when = if rec.steps.len() < judge::STEPS.len() {
                "report-verify-stopped-early"
            } else {
                "report-verify-failed"
            };
            let said = vec![("why", why.clone().into())];
            rec.notes.push(Said::new(when, said));
            emit(args, &rec, lang)?;
            let said = vec![("why", why.into())];
            return Err(crate::failed::failed("cli-err-verify-failed", said));
        }
    }
    rec.verdicts = judge::judge(&rec);
    rec.verdicts.extend(not_implemented());
    emit(args, &rec, lang)?;
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
        verdict: VerdictKind::NotImplemented,
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
    } else if rec
        .verdicts
        .iter()
        .any(|v| !v.witness && v.verdict != VerdictKind::Ok)
    {
        ExitCode::from(4)
    } else {
        ExitCode::SUCCESS
    }
}
