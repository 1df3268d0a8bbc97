//! The processes on a device (compute, graphics and MPS lists merged per PID) and their
//! utilisation samples.

use super::{ffi, missing, DeviceHandle, Engines, Nvml, ProcList, Return, Usage, UsageKind};
use gpuledger_lang::Said;
use std::collections::BTreeMap;
use std::collections::HashMap;
use std::ffi::c_uint;

impl Nvml {
    /// One device's processes into `out`: the lists merged per pid ([`Nvml::merged_lists`]),
    /// then each process's utilisation sample.
    pub(super) fn fill_processes(
        &mut self,
        h: DeviceHandle,
        index: u32,
        uuid: &str,
        wddm_like: bool,
        out: &mut BTreeMap<u32, Vec<Usage>>,
        problems: &mut Vec<String>,
    ) {
        let merged = self.merged_lists(h, index, uuid, problems);
        let util = self.utilization_samples(h, index);
        for (pid, mut u) in merged {
            u.kinds.sort();
            if u.memory_bytes.is_none() {
                u.unavailable_reason = Some(if wddm_like {
                    Said::new("report-why-nvml-wddm", vec![])
                } else {
                    Said::new("report-why-nvml-not-available", vec![])
                });
            }
            u.engines = engines_of(&util, pid);
            out.entry(pid).or_default().push(u);
        }
    }

    /// Merge the compute, graphics and MPS lists per pid (a process can be in several: CUDA/Vulkan
    /// interop). Each list reports all memory of the process, so take the larger, never the sum.
    fn merged_lists(
        &self,
        h: DeviceHandle,
        index: u32,
        uuid: &str,
        problems: &mut Vec<String>,
    ) -> BTreeMap<u32, Usage> {
        let mut merged: BTreeMap<u32, Usage> = BTreeMap::new();
        for (kind, list) in [
            (UsageKind::Compute, self.api.compute),
            (UsageKind::Graphics, self.api.graphics),
            (UsageKind::Mps, self.api.mps),
        ] {
            let entries = match running(list, h) {
                Ok(e) => e,
                Err(ListError::Missing) => continue,
                Err(ListError::Call(name, rc)) => {
                    // MPS lists are "not supported" whenever MPS is off: not worth a line.
                    if !(kind == UsageKind::Mps && rc == ffi::ERROR_NOT_SUPPORTED) {
                        problems.push(format!("GPU{index}: {}", self.call_err(name, rc)));
                    }
                    continue;
                }
                Err(ListError::TooMany(n)) => {
                    problems.push(format!(
                        "GPU{index}: driver reported {n} processes; ignoring the list"
                    ));
                    continue;
                }
            };
            for (pid, mem) in entries {
                let u = merged
                    .entry(pid)
                    .or_insert_with(|| Usage::new(uuid, "nvml"));
                if !u.kinds.contains(&kind) {
                    u.kinds.push(kind);
                }
                u.memory_bytes = match (u.memory_bytes, mem) {
                    (Some(a), Some(b)) => Some(a.max(b)),
                    (a, b) => a.or(b),
                };
            }
        }
        merged
    }

    /// Latest utilisation sample per pid: new samples since the previous round, else one from the
    /// last [`RECENT_US`] (NVML's timestamps are wall-clock microseconds).
    pub(super) fn utilization_samples(
        &mut self,
        h: DeviceHandle,
        index: u32,
    ) -> Result<HashMap<u32, ffi::ProcessUtilizationSample>, String> {
        let mut fresh = self.new_utilization_samples(h, index)?;
        let now_us = std::time::SystemTime::now()
            .duration_since(std::time::UNIX_EPOCH)
            .map(|d| d.as_micros() as u64)
            .unwrap_or(0);
        for (pid, s) in &fresh {
            self.recent.insert((index, *pid), *s);
        }
        self.recent
            .retain(|_, s| now_us.saturating_sub(s.time_stamp) <= RECENT_US);
        for ((dev, pid), s) in &self.recent {
            if *dev == index {
                fresh.entry(*pid).or_insert(*s);
            }
        }
        Ok(fresh)
    }

    /// Samples NVML has taken since the previous round, newest per pid.
    pub(super) fn new_utilization_samples(
        &mut self,
        h: DeviceHandle,
        index: u32,
    ) -> Result<HashMap<u32, ffi::ProcessUtilizationSample>, String> {
        let f = self
            .api
            .process_utilization
            .ok_or_else(|| missing("nvmlDeviceGetProcessUtilization"))?;
        let since = self.last_sample.get(&index).copied().unwrap_or(0);
        let mut count: c_uint = 0;
        // SAFETY: a NULL buffer asks for the sample count.
        let rc = unsafe { f(h, std::ptr::null_mut(), &mut count, since) };
        match rc {
            ffi::SUCCESS | ffi::ERROR_NOT_FOUND => return Ok(HashMap::new()),
            ffi::ERROR_INSUFFICIENT_SIZE => {}
            rc => return Err(self.call_err("nvmlDeviceGetProcessUtilization", rc)),
        }
        if count > MAX_ENTRIES {
            return Err(format!(
                "nvmlDeviceGetProcessUtilization reported {count} samples"
            ));
        }
        let mut buf = vec![ffi::ProcessUtilizationSample::default(); count as usize + 8];
        let mut n = buf.len() as c_uint;
        // SAFETY: buffer of `n` samples.
        match unsafe { f(h, buf.as_mut_ptr(), &mut n, since) } {
            ffi::SUCCESS => {}
            ffi::ERROR_NOT_FOUND => return Ok(HashMap::new()),
            rc => return Err(self.call_err("nvmlDeviceGetProcessUtilization", rc)),
        }
        let mut latest: HashMap<u32, ffi::ProcessUtilizationSample> = HashMap::new();
        for s in buf.iter().take((n as usize).min(buf.len())) {
            let e = latest.entry(s.pid).or_insert(*s);
            if s.time_stamp >= e.time_stamp {
                *e = *s;
            }
            let newest = self.last_sample.entry(index).or_insert(0);
            *newest = (*newest).max(s.time_stamp);
        }
        Ok(latest)
    }
}

/// How long a utilisation sample stands for a process that has no newer one (NVML samples every
/// ~1/6 s; a process absent from the samples was idle for the whole window).
pub(super) const RECENT_US: u64 = 2_000_000;

/// No driver reports more; a larger count is a broken library, not a reason to allocate.
pub(super) const MAX_ENTRIES: c_uint = 1 << 16;

pub(super) enum ListError {
    Missing,
    Call(&'static str, Return),
    TooMany(c_uint),
}

/// One process list, with NVML's size-query protocol: ask with an empty buffer, then retry with
/// slack because processes can start between the two calls.
pub(super) fn running(
    list: ProcList,
    h: DeviceHandle,
) -> Result<Vec<(u32, Option<u64>)>, ListError> {
    let mem = |v: u64| (v != ffi::VALUE_NOT_AVAILABLE).then_some(v);
    match list {
        ProcList::Missing => Err(ListError::Missing),
        ProcList::Modern(f, name) => {
            let mut count: c_uint = 0;
            for _ in 0..3 {
                // SAFETY: the first call passes NULL with count 0 (size query); later ones pass a
                // buffer sized for 32-byte entries (see ffi::ProcessInfo) holding `count` slots.
                let mut buf: Vec<u64> = Vec::new();
                let ptr = if count == 0 {
                    std::ptr::null_mut()
                } else {
                    buf = vec![0u64; count as usize * 4];
                    buf.as_mut_ptr().cast::<ffi::ProcessInfo>()
                };
                let cap = count;
                let rc = unsafe { f(h, &mut count, ptr) };
                match rc {
                    ffi::SUCCESS if cap == 0 => return Ok(Vec::new()),
                    ffi::SUCCESS => {
                        let n = count.min(cap) as usize;
                        let base = buf.as_ptr().cast::<ffi::ProcessInfo>();
                        // SAFETY: `n` entries of 24 bytes lie within the 32·cap-byte buffer.
                        return Ok((0..n)
                            .map(|i| unsafe { base.add(i).read_unaligned() })
                            .map(|e| (e.pid, mem(e.used_gpu_memory)))
                            .collect());
                    }
                    ffi::ERROR_INSUFFICIENT_SIZE if count > MAX_ENTRIES => {
                        return Err(ListError::TooMany(count))
                    }
                    ffi::ERROR_INSUFFICIENT_SIZE => count += 8,
                    rc => return Err(ListError::Call(name, rc)),
                }
            }
            Err(ListError::Call(name, ffi::ERROR_INSUFFICIENT_SIZE))
        }
        ProcList::V1(f, name) => {
            let mut count: c_uint = 0;
            for _ in 0..3 {
                let mut buf = vec![ffi::ProcessInfoV1::default(); count as usize];
                let cap = count;
                let ptr = if cap == 0 {
                    std::ptr::null_mut()
                } else {
                    buf.as_mut_ptr()
                };
                // SAFETY: NULL size query, then a buffer of `cap` v1 entries.
                match unsafe { f(h, &mut count, ptr) } {
                    ffi::SUCCESS if cap == 0 => return Ok(Vec::new()),
                    ffi::SUCCESS => {
                        return Ok(buf
                            .iter()
                            .take(count.min(cap) as usize)
                            .map(|e| (e.pid, mem(e.used_gpu_memory)))
                            .collect())
                    }
                    ffi::ERROR_INSUFFICIENT_SIZE if count > MAX_ENTRIES => {
                        return Err(ListError::TooMany(count))
                    }
                    ffi::ERROR_INSUFFICIENT_SIZE => count += 8,
                    rc => return Err(ListError::Call(name, rc)),
                }
            }
            Err(ListError::Call(name, ffi::ERROR_INSUFFICIENT_SIZE))
        }
    }
}

/// A process's engine use from the device's samples; no sample means idle in the window.
fn engines_of(
    util: &Result<HashMap<u32, ffi::ProcessUtilizationSample>, String>,
    pid: u32,
) -> Engines {
    match util {
        Ok(samples) => match samples.get(&pid) {
            Some(s) => Engines {
                sm_percent: Some(s.sm_util),
                memory_percent: Some(s.mem_util),
                encoder_percent: Some(s.enc_util),
                decoder_percent: Some(s.dec_util),
                unavailable_reason: None,
            },
            // NVML returns samples only for processes that were busy in the window.
            None => Engines {
                sm_percent: Some(0),
                memory_percent: Some(0),
                encoder_percent: Some(0),
                decoder_percent: Some(0),
                unavailable_reason: None,
            },
        },
        Err(reason) => Engines {
            // NVML's own error words, as it gave them.
            unavailable_reason: Some(reason.as_str().into()),
            ..Engines::default()
        },
    }
}
