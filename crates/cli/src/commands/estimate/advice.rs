//! When an estimate does not fit the chosen GPU: the smallest changes that would make it fit,
//! each checked by running `--fit`'s replay and the estimate again with the change (never a
//! guess): the experts of the first N layers on the host (`--n-cpu-moe N`, MoE models), a
//! smaller `-c`, fewer `-ngl` (when given), another GPU of the same vendor (`--device K`).
//!
//! The searches share a time budget: past it a check counts as not fitting, so a change shown
//! still fits (it was checked), though a crafted model may get a less than smallest one.

use std::time::{Duration, Instant};

use gpuledger_model::{Device, Snapshot};
use gpuledger_views::fit::Change;
use gpuledger_workloads::estimate::{estimate, read_params, GpuLayers, Setting, SettingSource};
use gpuledger_workloads::gguf::GgufModel;
use gpuledger_workloads::LlamaSettings;

/// What all the checks together may take.
const ADVICE_TIME: Duration = Duration::from_secs(2);

/// The changes to `given` (the settings before fitting) that fit GPU `device` of `snap`.
pub(super) fn changes(
    model: &GgufModel,
    given: &LlamaSettings,
    snap: &Snapshot,
    device: u32,
) -> Vec<Change> {
    let Some(d) = snap.devices.iter().find(|d| d.index == device) else {
        return Vec::new();
    };
    let Some(free) = d.memory.free_bytes else {
        return Vec::new();
    };
    let deadline = Instant::now() + ADVICE_TIME;
    let c = Checker {
        model,
        free,
        deadline,
    };
    let mut out = Vec::new();
    let n_layer = read_params(model).map_or(0, |p| p.n_layer);
    if read_params(model).is_ok_and(|p| p.n_expert > 0) {
        out.extend(c.smallest(1, n_layer, |n| {
            flag(given, &["--n-cpu-moe", &n.to_string()])
        }));
    }
    let n_ctx = c.needed(given).map(|(_, n)| n).unwrap_or(0);
    if n_ctx > 256 {
        // Whole multiples of 256 (llama.cpp pads the context to 256 anyway), largest first.
        let k = (n_ctx - 1) / 256;
        out.extend(c.largest(1, k as u32, |k| {
            flag(given, &["-c", &(u64::from(k) * 256).to_string()])
        }));
    }
    if !matches!(given.n_gpu_layers.value, GpuLayers::Auto) || !given.fit.enabled.value {
        out.extend(c.largest(0, n_layer, |n| flag(given, &["-ngl", &n.to_string()])));
    }
    out.extend(other_gpus(&c, given, snap, d));
    out
}

/// `given` with llama-server flags added, and those flags as the user would add them.
fn flag(given: &LlamaSettings, args: &[&str]) -> Option<(LlamaSettings, String)> {
    let a: Vec<String> = args.iter().map(|s| s.to_string()).collect();
    given.with_flags(&a).ok().map(|s| (s, a.join(" ")))
}

/// Another GPU of the same vendor with room for the settings as given: `--device K`.
fn other_gpus(c: &Checker, given: &LlamaSettings, snap: &Snapshot, d: &Device) -> Vec<Change> {
    snap.devices
        .iter()
        .filter(|x| x.index != d.index && x.vendor == d.vendor)
        .filter_map(|x| {
            let free = x.memory.free_bytes?;
            let mut s = given.clone();
            if !s.devices.free.value.is_empty() {
                s.devices.free = Setting {
                    value: vec![free],
                    source: SettingSource::Runtime(gpuledger_lang::Said::new(
                        "recipe-src-free-memory",
                        vec![("device", x.label().into())],
                    )),
                };
            }
            let other = Checker { free, ..*c };
            let (needed, _) = other.needed(&s)?;
            (needed <= free).then(|| Change {
                flags: format!("--device {}", x.index),
                what: gpuledger_lang::Said::new(
                    "report-fit-other-device",
                    vec![("device", x.label().into())],
                ),
                needed_bytes: needed,
                free_bytes: free,
            })
        })
        .collect()
}

/// `at(n)` for the smallest `n` in `lo..=hi` where it is `Some`, by bisection: `at` must hold
/// from some `n` on (every `n` above one where it holds holds too); `None` when not even at `hi`.
fn smallest_where<T>(lo: u32, hi: u32, at: impl Fn(u32) -> Option<T>) -> Option<T> {
    let mut best = at(hi)?;
    let (mut lo, mut hi) = (lo, hi);
    while lo < hi {
        let mid = lo + (hi - lo) / 2;
        match at(mid) {
            Some(b) => (best, hi) = (b, mid),
            None => lo = mid + 1,
        }
    }
    Some(best)
}

struct Checker<'a> {
    model: &'a GgufModel,
    free: u64,
    deadline: Instant,
}

impl Checker<'_> {
    /// Bytes the settings need on the GPU after `--fit`'s replay, and the context they get.
    fn needed(&self, s: &LlamaSettings) -> Option<(u64, u64)> {
        if Instant::now() > self.deadline {
            return None;
        }
        let (s, _, _) = super::fitted(self.model, s.clone()).ok()?;
        let mut e = estimate(self.model, &s).ok()?;
        crate::overhead::apply_probe(&mut e, s.backend.value);
        Some((super::needed(&e), e.context.n_ctx))
    }

    fn fits(&self, s: &LlamaSettings) -> Option<u64> {
        self.needed(s).map(|(n, _)| n).filter(|&n| n <= self.free)
    }

    /// The needed bytes and flags of `make(n)` when its settings fit.
    fn at(
        &self,
        n: u32,
        make: &impl Fn(u32) -> Option<(LlamaSettings, String)>,
    ) -> Option<(u64, String)> {
        make(n).and_then(|(s, f)| Some((self.fits(&s)?, f)))
    }

    /// The change with the smallest `n` in `lo..=hi` that fits (fitting grows with `n`).
    fn smallest(
        &self,
        lo: u32,
        hi: u32,
        make: impl Fn(u32) -> Option<(LlamaSettings, String)>,
    ) -> Option<Change> {
        let best = smallest_where(lo, hi, |n| self.at(n, &make))?;
        Some(self.change(best, "report-fit-first-experts-on-host"))
    }

    /// The change with the largest `n` in `lo..=hi` that fits (fitting shrinks with `n`): the
    /// same bisection over `n` mirrored (`lo + hi - n`), along which fitting grows.
    fn largest(
        &self,
        lo: u32,
        hi: u32,
        make: impl Fn(u32) -> Option<(LlamaSettings, String)>,
    ) -> Option<Change> {
        let best = smallest_where(lo, hi, |m| self.at(lo + hi - m, &make))?;
        Some(self.change(best, "report-fit-most-that-fits"))
    }

    fn change(&self, (needed, flags): (u64, String), what: &'static str) -> Change {
        Change {
            flags,
            what: gpuledger_lang::Said::new(what, vec![]),
            needed_bytes: needed,
            free_bytes: self.free,
        }
    }
}

#[cfg(test)]
mod tests {
    use super::smallest_where;

    #[test]
    fn the_bisection_finds_the_edge_both_ways() {
        // Fitting from 7 on: the smallest is 7.
        assert_eq!(smallest_where(1, 20, |n| (n >= 7).then_some(n)), Some(7));
        // Fitting up to 13, searched mirrored (as `largest` does): the largest is 13.
        let (lo, hi) = (1, 20);
        let mirrored = |m: u32| {
            let n = lo + hi - m;
            (n <= 13).then_some(n)
        };
        assert_eq!(smallest_where(lo, hi, mirrored), Some(13));
        // Everything fits, nothing fits, a range of one.
        assert_eq!(smallest_where(0, 9, Some), Some(0));
        assert_eq!(smallest_where(0, 9, |_| None::<u32>), None);
        assert_eq!(smallest_where(5, 5, Some), Some(5));
    }
}
