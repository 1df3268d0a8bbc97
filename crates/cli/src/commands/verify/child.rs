//! The workload's child process: this binary re-run with the hidden `verify-workload`
//! sub-command ([`run_workload`], its entry), and the parent's handle on it ([`Workload`]): start
//! it, send one command a step, read its answer within the time limits, and end it (close its
//! input so it releases everything; kill it if it hangs).

use super::{Api, Args, ChildArgs};
use gpuledger_cuda::signal;
use gpuledger_cuda::workload::StepReport;
use gpuledger_lang::said::Said;
use std::io::{BufRead, BufReader, Write};
use std::process::{Child, ChildStdin, Command, ExitCode, Stdio};
use std::sync::mpsc::{Receiver, RecvTimeoutError};
use std::time::{Duration, Instant};

/// How long one step of the child may take before it is given up (context creation on a cold
/// driver is the slowest, about a second).
const STEP_TIMEOUT: Duration = Duration::from_secs(5);
/// The whole sequence; well under 10 s on a healthy machine. The witnesses' time (nvidia-smi,
/// amd-smi, rocm-smi, xpu-smi) is added to it: it is theirs, not the workload's.
const TOTAL_TIMEOUT: Duration = Duration::from_secs(9);

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
pub(super) struct Workload {
    child: Child,
    stdin: Option<ChildStdin>,
    answers: Receiver<String>,
    pub(super) deadline: Instant,
}

pub(super) enum Stop {
    /// The child reported an error at this step, in words.
    Failed(Said),
    Interrupted,
    TimedOut(&'static str),
    /// A guard rail said no before the allocation.
    Refused(Said),
    /// Known before the allocation: nothing on this device can be verified (a CPU device), and
    /// the allocation would need the user's consent; the sentence says why.
    Unverifiable(Said),
}

impl Workload {
    pub(super) fn start(args: &Args, api: Api) -> anyhow::Result<Workload> {
        let exe = std::env::current_exe().map_err(|e| {
            let said = vec![("error", e.to_string().into())];
            crate::failed::failed("cli-err-own-executable", said)
        })?;
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
            .map_err(|e| {
                let said = vec![("error", e.to_string().into())];
                crate::failed::failed("cli-err-workload-start", said)
            })?;
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

    pub(super) fn pid(&self) -> u32 {
        self.child.id()
    }

    pub(super) fn send(&mut self, cmd: &str) -> Result<(), Stop> {
        let ok = self
            .stdin
            .as_mut()
            .is_some_and(|s| writeln!(s, "{cmd}").and_then(|_| s.flush()).is_ok());
        if ok {
            Ok(())
        } else {
            Err(Stop::Failed(Said::new(
                "report-verify-workload-gone",
                vec![],
            )))
        }
    }

    /// The next report, waiting at most [`STEP_TIMEOUT`] and never past the overall deadline.
    pub(super) fn answer(&mut self, step: &'static str) -> Result<StepReport, Stop> {
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
                        let error = vec![("error", e.to_string().into())];
                        Stop::Failed(Said::new("report-verify-workload-unreadable", error))
                    })?;
                    return match r.error.clone() {
                        // The driver's or the loader's own words, as the workload gave them.
                        Some(e) if r.step == "error" => Err(Stop::Failed(Said::verbatim(e))),
                        _ => Ok(r),
                    };
                }
                Err(RecvTimeoutError::Timeout) => continue,
                Err(RecvTimeoutError::Disconnected) => {
                    let step = vec![("step", super::judge::step_said(step).into())];
                    let said = Said::new("report-verify-workload-ended", step);
                    return Err(Stop::Failed(said));
                }
            }
        }
    }

    /// Close its input (it releases everything and exits), wait a bounded time, else kill it.
    pub(super) fn finish(&mut self) -> Option<std::process::ExitStatus> {
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
