//! The bookkeeping behind the fake: what is charged to each device, the freed charges still
//! reported as used, the contexts and allocations, the call counts, the log.

use crate::scenario::Scenario;
use crate::{raise_sigint, CUresult, INVALID_CONTEXT, NOT_INITIALIZED, OUT_OF_MEMORY};
use std::collections::HashMap;
use std::fs::File;
use std::io::Write;
use std::sync::Mutex;

pub(crate) struct Pending {
    pub(crate) device: usize,
    pub(crate) bytes: u64,
    pub(crate) reads_left: u32,
}

#[derive(Default)]
pub(crate) struct State {
    pub(crate) scenario_path: Option<String>,
    pub(crate) log_path: Option<String>,
    pub(crate) sc: Option<Scenario>,
    pub(crate) log: Option<File>,
    /// Bytes currently charged per device (what NVML would see).
    pub(crate) charged: Vec<u64>,
    /// Freed charges that `cuMemGetInfo` still reports as used.
    pub(crate) pending: Vec<Pending>,
    pub(crate) contexts: HashMap<usize, (usize, u64)>,
    pub(crate) stack: Vec<usize>,
    pub(crate) device_allocs: HashMap<u64, (usize, u64)>,
    pub(crate) host_allocs: HashMap<usize, (usize, u64)>,
    pub(crate) registered: HashMap<usize, (usize, u64)>,
    pub(crate) calls: HashMap<&'static str, u32>,
    pub(crate) next: u64,
}

pub(crate) static STATE: Mutex<Option<State>> = Mutex::new(None);

pub(crate) fn with<R>(f: impl FnOnce(&mut State) -> R) -> R {
    let mut g = STATE.lock().unwrap_or_else(|e| e.into_inner());
    f(g.get_or_insert_with(State::default))
}

impl State {
    pub(crate) fn log(&mut self, line: String) {
        if let Some(f) = self.log.as_mut() {
            let _ = writeln!(f, "{line}");
            let _ = f.flush();
        }
    }

    /// Counts the call and applies the scenario's injected failure or signal, if any.
    pub(crate) fn enter(&mut self, func: &'static str) -> Result<(), CUresult> {
        let nth = {
            let c = self.calls.entry(func).or_insert(0);
            *c += 1;
            *c
        };
        let Some(sc) = self.sc.as_ref() else {
            return if func == "cuInit" {
                Ok(())
            } else {
                Err(NOT_INITIALIZED)
            };
        };
        if let Some(f) = sc
            .fails
            .iter()
            .find(|f| f.func == func && (f.nth == 0 || f.nth == nth))
        {
            let code = f.code;
            self.log(format!("fail|{func}|{code}"));
            return Err(code);
        }
        if sc.sigint.iter().any(|(f, n)| f == func && *n == nth) {
            self.log(format!("sigint|{func}"));
            raise_sigint();
        }
        Ok(())
    }

    pub(crate) fn sc(&self) -> &Scenario {
        self.sc.as_ref().expect("checked by enter")
    }

    pub(crate) fn charge_for(&self, method: &str, bytes: u64) -> u64 {
        let r = self.sc().charge.get(method).copied().unwrap_or(0.0);
        if r <= 0.0 {
            return 0;
        }
        let raw = (bytes as f64 * r).ceil() as u64;
        let g = self.sc().granularity;
        raw.div_ceil(g) * g
    }

    pub(crate) fn visible_used(&self, dev: usize) -> u64 {
        let pending: u64 = self
            .pending
            .iter()
            .filter(|p| p.device == dev)
            .map(|p| p.bytes)
            .sum();
        self.sc().devices[dev].used + self.charged[dev] + pending
    }

    pub(crate) fn current_device(&self) -> Result<usize, CUresult> {
        self.stack
            .last()
            .and_then(|h| self.contexts.get(h))
            .map(|(d, _)| *d)
            .ok_or(INVALID_CONTEXT)
    }

    /// Charges `bytes` to `dev`, failing like the driver does when it does not fit.
    pub(crate) fn take(&mut self, dev: usize, bytes: u64, kind: &str) -> Result<(), CUresult> {
        let d = &self.sc().devices[dev];
        if self.visible_used(dev) + bytes > d.total {
            return Err(OUT_OF_MEMORY);
        }
        self.charged[dev] += bytes;
        shared_state(dev, kind, bytes as i64);
        Ok(())
    }

    pub(crate) fn give_back(&mut self, dev: usize, bytes: u64, kind: &str) {
        self.charged[dev] -= bytes;
        shared_state(dev, kind, -(bytes as i64));
        let lag = self.sc().release_lag;
        if lag > 0 && bytes > 0 {
            self.pending.push(Pending {
                device: dev,
                bytes,
                reads_left: lag,
            });
        }
    }

    pub(crate) fn handle(&mut self) -> u64 {
        self.next += 1;
        0x7f00_0000_0000 + self.next * 0x1000_0000
    }
}

/// Appends `PID|DEVICE|KIND|DELTA` to the file named by `FAKE_GPU_STATE`, if set: the fake
/// NVML reads it to list this process with what it holds, as a real driver's NVML would see
/// another process's allocations. KIND is `ctx` (a context) or `mem` (an allocation's charge).
/// One `write` per line on an append-mode file, so lines from several processes do not mix.
pub(crate) fn shared_state(dev: usize, kind: &str, delta: i64) {
    let Ok(path) = std::env::var("FAKE_GPU_STATE") else {
        return;
    };
    if let Ok(mut f) = std::fs::OpenOptions::new()
        .create(true)
        .append(true)
        .open(path)
    {
        let _ = f.write_all(format!("{}|{dev}|{kind}|{delta}\n", std::process::id()).as_bytes());
    }
}
