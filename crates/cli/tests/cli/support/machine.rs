//! A fake machine for one test: a fake-NVML scenario file and a recorded procfs tree kept alive
//! together, with the binary run against both, so a test names only the arguments it is about.

use super::{
    fake_nvml, gpuledger_command, gpuledger_on, json_of, scenario, two_gpus_procs, ProcTree,
    TWO_GPUS,
};
use std::path::{Path, PathBuf};
use std::process::{Command, Output};

pub struct Machine {
    pub procs: ProcTree,
    /// The scenario file the fake NVML reads each round: rewrite it to change the machine.
    pub scenario: PathBuf,
    _scenario_dir: tempfile::TempDir,
}

impl Machine {
    pub fn new(scenario_text: &str, procs: ProcTree) -> Self {
        let (dir, scenario) = scenario(scenario_text);
        Machine {
            procs,
            scenario,
            _scenario_dir: dir,
        }
    }

    /// [`TWO_GPUS`] with [`two_gpus_procs`].
    pub fn two_gpus() -> Self {
        Machine::new(TWO_GPUS, two_gpus_procs())
    }

    pub fn root(&self) -> PathBuf {
        self.procs.root()
    }

    /// Change what the fake NVML reports from the next round on.
    pub fn set_scenario(&self, text: &str) {
        std::fs::write(&self.scenario, text).unwrap();
    }

    /// Run the binary with the modern fake NVML.
    pub fn run(&self, args: &[&str]) -> Output {
        self.run_with(fake_nvml(), args)
    }

    /// Run the binary with another NVML library (the legacy fake, a missing one).
    pub fn run_with(&self, lib: &Path, args: &[&str]) -> Output {
        self.command_with(lib, args)
            .output()
            .expect("run gpuledger")
    }

    /// The binary on this machine with the modern fake NVML and `args`, not started (to pipe its
    /// output or run it in the background).
    pub fn command(&self, args: &[&str]) -> Command {
        self.command_with(fake_nvml(), args)
    }

    /// [`Machine::command`] with another NVML library.
    pub fn command_with(&self, lib: &Path, args: &[&str]) -> Command {
        let mut c = gpuledger_on(lib, &self.scenario, &self.root());
        c.args(args);
        c
    }

    /// Run the binary, require success and parse its stdout as JSON.
    pub fn json(&self, args: &[&str]) -> serde_json::Value {
        json_of(&self.run(args))
    }
}

/// What a run beside a [`canned_http`](super::canned_http) server gave.
pub struct Answered {
    pub out: Output,
    /// The requests the server answered, in order.
    pub requests: Vec<String>,
    pub port: u16,
}

impl Machine {
    /// Run `args` while `pid` listens on loopback (socket `inode`) and answers `answers`, one
    /// request each; the server has finished when this returns.
    pub fn run_answering<B: AsRef<str> + Send + 'static>(
        &self,
        pid: u32,
        inode: u64,
        answers: Vec<(&'static str, u16, B)>,
        args: &[&str],
    ) -> Answered {
        let n = answers.len();
        let (port, server) = super::canned_http(answers, n);
        self.procs.listen(pid, port, inode);
        let out = self.run(args);
        let requests = server.join().unwrap();
        Answered {
            out,
            requests,
            port,
        }
    }
}

/// The binary on this machine's own /proc (tests of real processes), with the fake NVML serving
/// `scenario`.
pub fn on_live_proc(scenario: &Path) -> Command {
    let mut c = gpuledger_command();
    c.arg("--nvml-lib")
        .arg(fake_nvml())
        .env("FAKE_NVML_SCENARIO", scenario);
    c
}
