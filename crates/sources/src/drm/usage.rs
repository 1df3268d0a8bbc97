//! What one DRM client holds and does: its memory by region class, its engine use as a rate
//! between two rounds, and [`Agg`], the sum of the clients charged to one process on one device,
//! which becomes that process's [`Usage`].

use super::clients::Client;
use super::fdinfo::FdInfo;
use gpuledger_lang::Said;
use gpuledger_model::{Usage, UsageKind};
use std::collections::BTreeMap;

/// Engines that are not 3D/compute: excluded from the per-process "GPU %" summary.
const MEDIA_COPY_ENGINES: [&str; 13] = [
    "dma",
    "copy",
    "bcs",
    "dec",
    "enc",
    "enc_1",
    "jpeg",
    "vcn",
    "vpe",
    "video",
    "video-enhance",
    "vcs",
    "vecs",
];

/// A client's engine counters at one round, kept for the next round's rates.
#[derive(Debug, Clone, Default)]
pub(super) struct EngineSample {
    t_ns: u64,
    engine_ns: BTreeMap<String, u64>,
    cycles: BTreeMap<String, u64>,
    total_cycles: BTreeMap<String, u64>,
}

/// Region classes: device-local memory, GPU-visible system memory, or neither.
#[derive(Debug, PartialEq, Eq)]
pub enum RegionClass {
    Vram,
    System,
    /// Not a memory pool of either ledger: amdgpu `cpu` (not GPU-mapped), `gds`/`gws`/`oa`/
    /// `doorbell` (on-chip resources), xe `stolen`, unknown names.
    Other,
}

pub fn region_class(name: &str) -> RegionClass {
    let digits = |s: &str| s.bytes().all(|b| b.is_ascii_digit());
    if let Some(n) = name
        .strip_prefix("vram")
        .or_else(|| name.strip_prefix("local"))
    {
        if digits(n) {
            return RegionClass::Vram;
        }
    }
    if let Some(n) = name.strip_prefix("stolen-local") {
        if digits(n) {
            return RegionClass::Vram;
        }
    }
    if name == "gtt" || name == "memory" {
        return RegionClass::System;
    }
    if let Some(n) = name
        .strip_prefix("system")
        .or_else(|| name.strip_prefix("stolen-system"))
    {
        if digits(n) {
            return RegionClass::System;
        }
    }
    RegionClass::Other
}

/// VRAM and system memory held by one client; `Err` says why a figure is unknown. System memory
/// is `Ok(None)` when the driver printed no system-memory region.
pub(super) type MemFigures = (Result<u64, Said>, Result<Option<u64>, Said>);

pub(super) fn memory_of(c: &Client) -> MemFigures {
    let info = &c.info;
    if info.regions.is_empty() && info.bad_regions.is_empty() {
        return (
            Err(match info.driver.as_deref() {
                Some(d) => Said::new("report-why-drm-no-memory-keys", vec![("driver", d.into())]),
                None => Said::new("report-why-drm-no-memory-keys-unnamed", vec![]),
            }),
            Ok(None),
        );
    }
    let bad = |class: RegionClass| {
        info.bad_regions
            .iter()
            .find(|r| region_class(r) == class)
            .map(|r| {
                let path = c.fds[0].2.display().to_string();
                let line = info.problems.iter().find(|p| p.text.contains(r.as_str()));
                match line {
                    Some(p) => Said::new(
                        "report-why-drm-line-malformed",
                        vec![
                            ("path", path.into()),
                            ("line", p.line.to_string().into()),
                            ("region", r.as_str().into()),
                        ],
                    ),
                    None => Said::new(
                        "report-why-drm-malformed",
                        vec![("path", path.into()), ("region", r.as_str().into())],
                    ),
                }
            })
    };
    let mut vram = 0u64;
    let mut sys: Option<u64> = None;
    for (name, r) in &info.regions {
        let Some(h) = r.held() else { continue };
        match region_class(name) {
            RegionClass::Vram => vram = vram.saturating_add(h),
            RegionClass::System => sys = Some(sys.unwrap_or(0).saturating_add(h)),
            RegionClass::Other => {}
        }
    }
    (
        bad(RegionClass::Vram).map_or(Ok(vram), Err),
        bad(RegionClass::System).map_or(Ok(sys), Err),
    )
}

/// Engine percentages since the previous sample (None on the first sample of a client).
pub(super) fn rates(
    prev: Option<&EngineSample>,
    info: &FdInfo,
    now_ns: u64,
) -> (EngineSample, Option<BTreeMap<String, f64>>) {
    // Counters may go backwards; the spec says to keep the larger previous value until a
    // monotonic update is seen.
    let keep = |new: &BTreeMap<String, u64>, old: Option<&BTreeMap<String, u64>>| {
        new.iter()
            .map(|(k, &v)| {
                let p = old.and_then(|o| o.get(k)).copied().unwrap_or(0);
                (k.clone(), v.max(p))
            })
            .collect::<BTreeMap<_, _>>()
    };
    let sample = EngineSample {
        t_ns: now_ns,
        engine_ns: keep(&info.engine_ns, prev.map(|p| &p.engine_ns)),
        cycles: keep(&info.cycles, prev.map(|p| &p.cycles)),
        total_cycles: keep(&info.total_cycles, prev.map(|p| &p.total_cycles)),
    };
    let Some(prev) = prev else {
        return (sample, None);
    };
    let dt = now_ns.saturating_sub(prev.t_ns);
    if dt == 0 {
        return (sample, None);
    }
    let mut out = BTreeMap::new();
    for (k, &v) in &sample.engine_ns {
        let d = v - prev.engine_ns.get(k).copied().unwrap_or(0).min(v);
        let pct = d as f64 * 100.0 / dt as f64 / info.capacity_of(k) as f64;
        out.insert(k.clone(), pct.clamp(0.0, 100.0));
    }
    for (k, &c) in &sample.cycles {
        let (Some(&t), Some(&pt)) = (sample.total_cycles.get(k), prev.total_cycles.get(k)) else {
            continue;
        };
        let pc = prev.cycles.get(k).copied().unwrap_or(0).min(c);
        let dtc = t.saturating_sub(pt);
        let pct = if dtc == 0 {
            0.0
        } else {
            (c - pc) as f64 * 100.0 / dtc as f64 / info.capacity_of(k) as f64
        };
        out.insert(k.clone(), pct.clamp(0.0, 100.0));
    }
    (sample, Some(out))
}

/// One process on one device, summed over the clients charged to it.
#[derive(Debug, Default)]
pub(super) struct Agg {
    pub(super) clients: usize,
    pub(super) shared_only_clients: usize,
    vram: Option<u64>,
    vram_unknown: bool,
    sys: Option<u64>,
    sys_unknown: bool,
    why: Option<Said>,
    engines: BTreeMap<String, f64>,
    pub(super) engines_missing: bool,
    pub(super) notes: Vec<Said>,
}

impl Agg {
    pub(super) fn add_memory(&mut self, vram: Result<u64, Said>, sys: Result<Option<u64>, Said>) {
        match vram {
            Ok(v) => self.vram = Some(self.vram.unwrap_or(0).saturating_add(v)),
            Err(why) => {
                self.vram_unknown = true;
                self.why.get_or_insert(why);
            }
        }
        match sys {
            Ok(Some(v)) => self.sys = Some(self.sys.unwrap_or(0).saturating_add(v)),
            Ok(None) => {}
            Err(why) => {
                self.sys_unknown = true;
                self.why.get_or_insert(why);
            }
        }
    }

    pub(super) fn add_rates(&mut self, r: &BTreeMap<String, f64>) {
        for (k, v) in r {
            *self.engines.entry(k.clone()).or_default() += v;
        }
    }

    pub(super) fn into_usage(self, uuid: String, kfd: bool) -> Usage {
        let mut u = Usage::new(uuid, "fdinfo");
        if self.clients == 0 {
            // Holds only clients charged to another process.
            u.memory_bytes = Some(0);
        } else {
            // The reason covers whichever figure is unknown (VRAM or system memory).
            u.memory_bytes = if self.vram_unknown { None } else { self.vram };
            u.unavailable_reason = self.why.clone();
        }
        if !self.sys_unknown {
            u.system_memory_bytes = self.sys.or((self.clients == 0).then_some(0));
        }
        if kfd {
            u.kinds.push(UsageKind::Compute);
            u.engines.unavailable_reason = Some(Said::new("report-why-engines-kfd", vec![]));
        } else if self.clients == 0 {
            u.engines.unavailable_reason = Some(Said::new("report-why-engines-shared", vec![]));
        } else if self.engines_missing {
            u.engines.unavailable_reason = Some(Said::new("report-why-engines-first", vec![]));
        } else {
            let sm = self
                .engines
                .iter()
                .filter(|(k, _)| !MEDIA_COPY_ENGINES.contains(&k.as_str()))
                .map(|(_, v)| *v)
                .fold(0.0f64, f64::max);
            // amdgpu prints only engines with non-zero time: a missing engine is idle.
            u.engines.sm_percent = Some(sm.min(100.0).round() as u32);
            u.engines_by_type = self
                .engines
                .iter()
                .map(|(k, v)| (k.clone(), v.min(100.0).round() as u32))
                .collect();
        }
        if !self.notes.is_empty() {
            u.accounting_note = Said::joined("report-said-list", self.notes.clone());
        }
        u
    }
}

#[cfg(test)]
mod tests {
    use super::super::fdinfo;
    use super::*;

    #[test]
    fn region_classes() {
        for v in ["vram", "vram0", "local0", "stolen-local0"] {
            assert_eq!(region_class(v), RegionClass::Vram, "{v}");
        }
        for s in ["gtt", "system", "system0", "stolen-system0", "memory"] {
            assert_eq!(region_class(s), RegionClass::System, "{s}");
        }
        for o in ["cpu", "gds", "gws", "oa", "doorbell", "stolen", "vramx"] {
            assert_eq!(region_class(o), RegionClass::Other, "{o}");
        }
    }

    fn info(text: &str) -> FdInfo {
        fdinfo::parse(text)
    }

    #[test]
    fn ns_rates_capacity_and_backwards_counters() {
        let a = info("drm-driver: i915\ndrm-engine-render: 1000000000 ns\ndrm-engine-video: 0 ns\ndrm-engine-capacity-video: 2\n");
        let (s1, r) = rates(None, &a, 10_000_000_000);
        assert!(r.is_none(), "first sample has no rate");
        // 0.25 s of render in 1 s; 1 s of video on a 2-engine group in 1 s.
        let b = info("drm-driver: i915\ndrm-engine-render: 1250000000 ns\ndrm-engine-video: 1000000000 ns\ndrm-engine-capacity-video: 2\n");
        let (s2, r) = rates(Some(&s1), &b, 11_000_000_000);
        let r = r.unwrap();
        assert!((r["render"] - 25.0).abs() < 1e-9, "{r:?}");
        assert!((r["video"] - 50.0).abs() < 1e-9, "{r:?}");
        // Render went backwards: keep the previous value, 0 % this interval, and do not
        // count the drop again when it comes back.
        let c = info("drm-driver: i915\ndrm-engine-render: 900000000 ns\n");
        let (s3, r) = rates(Some(&s2), &c, 12_000_000_000);
        assert_eq!(r.unwrap()["render"], 0.0);
        assert_eq!(s3.engine_ns["render"], 1_250_000_000);
        let d = info("drm-driver: i915\ndrm-engine-render: 1350000000 ns\n");
        let (_, r) = rates(Some(&s3), &d, 13_000_000_000);
        assert!((r.unwrap()["render"] - 10.0).abs() < 1e-9);
    }

    #[test]
    fn cycle_rates_use_the_gpu_clock() {
        let a = info("drm-driver: xe\ndrm-cycles-rcs: 28257900\ndrm-total-cycles-rcs: 7655183225\ndrm-cycles-ccs: 0\ndrm-total-cycles-ccs: 7655183225\ndrm-engine-capacity-ccs: 4\n");
        let (s1, _) = rates(None, &a, 1);
        let b = info("drm-driver: xe\ndrm-cycles-rcs: 328257900\ndrm-total-cycles-rcs: 8655183225\ndrm-cycles-ccs: 2000000000\ndrm-total-cycles-ccs: 8655183225\ndrm-engine-capacity-ccs: 4\n");
        // The wall clock barely moved: cycles do not depend on it.
        let (_, r) = rates(Some(&s1), &b, 2);
        let r = r.unwrap();
        assert!((r["rcs"] - 30.0).abs() < 1e-9, "{r:?}");
        assert!((r["ccs"] - 50.0).abs() < 1e-9, "{r:?}");
    }
}
