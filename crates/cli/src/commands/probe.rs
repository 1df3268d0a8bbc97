//! `gpuledger probe`: measure what the CUDA driver charges to VRAM on this machine for a context
//! and for pinned host memory. The measuring is in `gpuledger-cuda`; this wires it to the
//! command line, to NVML (through the NVML source) and to Ctrl-C.

use crate::Global;
use gpuledger_cuda::{signal, store, DeviceRef, NvmlView, ProbeError, ProbeOptions};
use gpuledger_model::{Host, Snapshot, SourceState};
use gpuledger_sources::nvml::Nvml;
use gpuledger_views::cost_report::render_table;
use std::cell::RefCell;
use std::io::Write;
use std::path::PathBuf;
use std::process::ExitCode;
use std::time::Duration;

pub const EXIT_CODES: &str = "\
Exit status:
  0    success
  1    an error (no driver, no device, out of memory, a size that does not fit); everything the
       probe allocated has been released
  2    bad command-line usage
  130  interrupted (Ctrl-C); everything the probe allocated has been released";

#[derive(clap::Args, Debug)]
pub struct Args {
    /// CUDA device ordinal to probe.
    #[arg(long, default_value_t = 0, value_name = "N")]
    pub device: i32,
    /// Sizes to allocate with each method, comma-separated (e.g. 256MiB,512MiB,1GiB).
    #[arg(long, value_delimiter = ',', value_parser = crate::flags::allocation, default_value = "256MiB,512MiB")]
    pub sizes: Vec<u64>,
    /// Print the result as JSON instead of a table.
    #[arg(long)]
    pub json: bool,
    /// Save the result, so `estimate` and `explain` use this machine's measured overhead.
    #[arg(long)]
    pub save: bool,
    /// Where --save writes [default: $XDG_DATA_HOME/gpuledger/probe.json, else
    /// ~/.local/share/gpuledger/probe.json; %LOCALAPPDATA%\gpuledger\probe.json on Windows].
    #[arg(long, value_name = "FILE", env = "GPULEDGER_PROBE_FILE")]
    pub probe_file: Option<PathBuf>,
    /// Load the CUDA driver from this file instead of libcuda.so.1 / nvcuda.dll.
    #[arg(long, value_name = "PATH", env = "GPULEDGER_CUDA_LIB")]
    pub cuda_lib: Option<PathBuf>,
    /// Pause between re-reads of free memory after a free (release can be asynchronous).
    #[arg(long, default_value_t = 200, value_name = "MS")]
    pub settle_ms: u64,
}

/// NVML's device-wide used memory, through the NVML source, matched to the CUDA device by UUID
/// (CUDA's and NVML's device orders can differ).
struct NvmlAdapter {
    nvml: RefCell<Nvml>,
}

impl NvmlView for NvmlAdapter {
    fn used(&self, device: &DeviceRef) -> Option<u64> {
        let mut snap = Snapshot::new(String::new(), Host::default());
        let status = self.nvml.borrow_mut().collect(&mut snap);
        if status.status != SourceState::Ok {
            return None;
        }
        let dev = match &device.uuid {
            Some(u) => snap.devices.iter().find(|d| &d.uuid == u),
            // Without a UUID only an unambiguous single device can be matched.
            None if snap.devices.len() == 1 => snap.devices.first(),
            None => None,
        }?;
        dev.memory.used_bytes
    }

    fn driver_version(&self) -> Option<String> {
        self.nvml.borrow().driver_version().ok()
    }
}

/// Where a probe result is saved: the explicit path, else `$GPULEDGER_PROBE_FILE`, else the
/// user's data directory.
pub fn saved_path(explicit: Option<PathBuf>) -> Option<PathBuf> {
    explicit
        .or_else(|| std::env::var_os("GPULEDGER_PROBE_FILE").map(PathBuf::from))
        .or_else(store::default_path)
}

pub fn run(args: &Args, global: &Global) -> anyhow::Result<ExitCode> {
    if global.args.replay.is_some() {
        let said = gpuledger_lang::said::Said::new("cli-err-probe-replay", vec![]);
        return Err(crate::Usage(said).into());
    }
    signal::install().map_err(|e| crate::stop::handler_error(&e))?;

    let (nvml, nvml_problem) = match Nvml::load(global.args.nvml_lib.as_deref()) {
        Ok(n) => (
            Some(NvmlAdapter {
                nvml: RefCell::new(n),
            }),
            None,
        ),
        Err(e) => (None, Some(e.said())),
    };
    let mut opts = ProbeOptions::new(args.sizes.clone(), signal::flag());
    opts.cuda_lib = args.cuda_lib.clone();
    opts.device = args.device;
    opts.settle = Duration::from_millis(args.settle_ms);
    opts.nvml = nvml.as_ref().map(|n| n as &dyn NvmlView);
    if cfg!(target_os = "linux") {
        opts.meminfo = Some(global.args.proc_root.join("meminfo"));
    }

    let mut report = match gpuledger_cuda::run(&opts) {
        Ok(r) => r,
        Err(ProbeError::Interrupted) => {
            let said = ProbeError::Interrupted.said();
            eprintln!("gpuledger probe: {}", said.in_lang(global.lang));
            return Ok(ExitCode::from(130));
        }
        Err(e) => return Err(e.into()),
    };
    if let Some(p) = nvml_problem {
        let args = vec![("problem", p.into())];
        let note = gpuledger_lang::Said::new("report-probe-note-nvml-not-loaded", args);
        report.notes.push(note);
    }

    let text = if args.json {
        serde_json::to_string_pretty(&report)? + "\n"
    } else {
        render_table(&report, global.lang)
    };
    let mut out = std::io::stdout().lock();
    match out.write_all(text.as_bytes()).and_then(|_| out.flush()) {
        Err(e) if e.kind() != std::io::ErrorKind::BrokenPipe => return Err(e.into()),
        _ => {}
    }

    if args.save {
        let path = saved_path(args.probe_file.clone()).ok_or(store::StoreError::NoDataDir)?;
        store::save(&report, &path)?;
        // On stderr, so that `--json` output stays pure JSON.
        let args = [
            ("path", path.display().to_string().into()),
            (
                "label",
                store::measured_overhead(&report)
                    .said()
                    .in_lang(global.lang)
                    .into(),
            ),
        ];
        eprintln!("{}", global.lang.t_args("report-probe-saved", &args));
    }
    Ok(ExitCode::SUCCESS)
}
