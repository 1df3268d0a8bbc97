//! The scenario file and the fake CUDA driver's shared state: what the exported functions serve.

use crate::Ret;
use std::collections::HashMap;
use std::os::raw::c_int;
use std::sync::Mutex;
use std::time::SystemTime;

/// (list, device index, pid, memory; None = NVML_VALUE_NOT_AVAILABLE)
pub(crate) type ProcRow = (String, u32, u32, Option<u64>);

#[derive(Default, Clone)]
pub(crate) struct Scenario {
    pub(crate) driver: Option<String>,
    /// `driver|cuda=…`: what nvmlSystemGetCudaDriverVersion reports, if not derived from `version`.
    pub(crate) cuda: Option<c_int>,
    pub(crate) init_error: Option<Ret>,
    pub(crate) devices: Vec<HashMap<String, String>>,
    pub(crate) procs: Vec<ProcRow>,
    pub(crate) util: Vec<(u32, [u32; 5], u64)>, // (dev, [pid, sm, mem, enc, dec], ts)
    pub(crate) fails: Vec<(String, Option<u32>, Ret)>,
    pub(crate) lie: Lie,
}

/// How the fake misreports the processes it learns from the fake CUDA driver's shared state
/// (`cuda|...` directive), so tests can check that `gpuledger verify` catches each lie.
#[derive(Default, Clone, Copy)]
pub(crate) struct Lie {
    /// `mem=NA`: their memory is NVML_VALUE_NOT_AVAILABLE.
    pub(crate) na: bool,
    /// `lag=N`: the newest N events are not seen yet (a driver a round behind).
    pub(crate) lag: usize,
    /// `count=K`: each process's memory is reported K times over (double counting).
    pub(crate) count: u64,
    /// `release_reads=K`: after a free, the next K device memory reads still show it as used
    /// (a driver that releases asynchronously).
    pub(crate) release_reads: u32,
}

/// (state file length, device memory reads since it last changed), for `release_reads`.
pub(crate) static RELEASE: Mutex<(u64, u32)> = Mutex::new((0, 0));

pub(crate) struct State {
    pub(crate) key: Option<(SystemTime, u64)>,
    pub(crate) scenario: Scenario,
    pub(crate) initialised: bool,
}

pub(crate) static STATE: Mutex<State> = Mutex::new(State {
    key: None,
    scenario: Scenario {
        driver: None,
        cuda: None,
        init_error: None,
        devices: Vec::new(),
        procs: Vec::new(),
        util: Vec::new(),
        fails: Vec::new(),
        lie: Lie {
            na: false,
            lag: 0,
            count: 1,
            release_reads: 0,
        },
    },
    initialised: false,
});

pub(crate) fn parse(text: &str) -> Scenario {
    let mut s = Scenario::default();
    s.lie.count = 1;
    for line in text.lines() {
        let line = line.split('#').next().unwrap_or("").trim();
        if line.is_empty() {
            continue;
        }
        let mut parts = line.split('|');
        let kind = parts.next().unwrap_or("").trim().to_string();
        let kv: HashMap<String, String> = parts
            .filter_map(|p| p.split_once('='))
            .map(|(k, v)| (k.trim().to_string(), v.trim().to_string()))
            .collect();
        let num = |k: &str| kv.get(k).and_then(|v| v.parse::<u64>().ok());
        match kind.as_str() {
            "driver" => {
                s.driver = kv.get("version").cloned();
                s.cuda = num("cuda").map(|c| c as c_int);
            }
            "init_error" => s.init_error = num("code").map(|c| c as Ret),
            "device" => s.devices.push(kv),
            "compute" | "graphics" | "mps" => {
                let mem = match kv.get("mem").map(String::as_str) {
                    Some("NA") => None,
                    _ => num("mem"),
                };
                s.procs.push((
                    kind,
                    num("dev").unwrap_or(0) as u32,
                    num("pid").unwrap_or(0) as u32,
                    mem,
                ));
            }
            "util" => {
                let g = |k: &str| num(k).unwrap_or(0) as u32;
                s.util.push((
                    g("dev"),
                    [g("pid"), g("sm"), g("mem"), g("enc"), g("dec")],
                    num("ts").unwrap_or(1),
                ));
            }
            "cuda" => {
                s.lie = Lie {
                    na: kv.get("mem").is_some_and(|v| v == "NA"),
                    lag: num("lag").unwrap_or(0) as usize,
                    count: num("count").unwrap_or(1).max(1),
                    release_reads: num("release_reads").unwrap_or(0) as u32,
                }
            }
            "fail" => s.fails.push((
                kv.get("fn").cloned().unwrap_or_default(),
                num("dev").map(|d| d as u32),
                num("code").unwrap_or(999) as Ret,
            )),
            _ => {}
        }
    }
    s
}

/// Current scenario, re-read when the file changed.
pub(crate) fn with<T>(f: impl FnOnce(&mut State) -> T) -> T {
    let mut st = STATE.lock().unwrap_or_else(|e| e.into_inner());
    if let Ok(path) = std::env::var("FAKE_NVML_SCENARIO") {
        if let Ok(md) = std::fs::metadata(&path) {
            let key = (md.modified().unwrap_or(SystemTime::UNIX_EPOCH), md.len());
            if st.key != Some(key) {
                st.scenario = parse(&std::fs::read_to_string(&path).unwrap_or_default());
                st.key = Some(key);
            }
        }
    }
    f(&mut st)
}

/// The processes the fake CUDA driver has recorded in `FAKE_GPU_STATE` (see fake-cuda): per
/// (device, pid) still alive, the bytes it holds, after the scenario's `cuda|...` lie. A process
/// is listed while it has a context, as a real driver lists it; dead processes are dropped, as the
/// driver frees what a process held when it ends.
pub(crate) fn cuda_state(lie: Lie) -> Vec<(u32, u32, Option<u64>)> {
    let Ok(path) = std::env::var("FAKE_GPU_STATE") else {
        return Vec::new();
    };
    let text = std::fs::read_to_string(path).unwrap_or_default();
    let lines: Vec<&str> = text.lines().collect();
    let seen = lines.len().saturating_sub(lie.lag);
    // (dev, pid) -> (contexts, bytes)
    let mut held: std::collections::BTreeMap<(u32, u32), (i64, i64)> = Default::default();
    for line in &lines[..seen] {
        let f: Vec<&str> = line.split('|').collect();
        let [pid, dev, kind, delta] = f[..] else {
            continue;
        };
        let (Ok(pid), Ok(dev), Ok(delta)) = (pid.parse(), dev.parse(), delta.parse::<i64>()) else {
            continue;
        };
        let e = held.entry((dev, pid)).or_default();
        if kind == "ctx" {
            e.0 += delta.signum();
        }
        e.1 += delta;
    }
    held.into_iter()
        .filter(|((_, pid), (ctx, _))| {
            *ctx > 0 && std::path::Path::new(&format!("/proc/{pid}")).exists()
        })
        .map(|((dev, pid), (_, bytes))| {
            let b = bytes.max(0) as u64 * lie.count;
            (dev, pid, (!lie.na).then_some(b))
        })
        .collect()
}

/// What the live CUDA processes add to device `dev`'s used memory (the truth, whatever the
/// lie, except `release_reads`, which delays a free's newest event for that many reads).
pub(crate) fn cuda_used(dev: u32, release_reads: u32) -> u64 {
    let mut lie = Lie {
        count: 1,
        ..Lie::default()
    };
    if release_reads > 0 {
        let path = std::env::var("FAKE_GPU_STATE").unwrap_or_default();
        let len = std::fs::metadata(&path).map(|m| m.len()).unwrap_or(0);
        let mut r = RELEASE.lock().unwrap_or_else(|e| e.into_inner());
        if r.0 != len {
            *r = (len, 0);
        }
        r.1 += 1;
        let last = std::fs::read_to_string(&path).unwrap_or_default();
        let newest_is_free = last.lines().last().is_some_and(|l| l.contains("|mem|-"));
        if newest_is_free && r.1 <= release_reads {
            lie.lag = 1;
        }
    }
    cuda_state(lie)
        .iter()
        .filter(|(d, _, _)| *d == dev)
        .filter_map(|(_, _, b)| *b)
        .sum()
}
