//! Parser for the DRM keys of `/proc/<pid>/fdinfo/<fd>` (kernel `Documentation/gpu/drm-usage-stats.rst`).
//!
//! Pure code over text. One `key: value` pair per line; keys and values are trimmed on both sides
//! because amdgpu prints `drm-memory-gtt: \t` (a space inside the key token before the tab).
//! A line that does not parse is recorded as a [`LineProblem`] and only the value it carried is
//! lost: the rest of the file still counts.

use std::collections::{BTreeMap, BTreeSet};

/// Largest fdinfo text we parse. Real files are well under 4 KiB; this bounds a hostile one.
pub const MAX_FDINFO_BYTES: usize = 64 * 1024;

/// Malformed lines recorded per file; further ones are not kept (their values are still lost).
pub const MAX_PROBLEMS: usize = 100;

/// Memory statistics of one region (`vram`, `gtt`, `system0`, `local0`, `vram0`, ...), in bytes.
#[derive(Debug, Clone, Default, PartialEq, Eq)]
pub struct RegionStats {
    pub total: Option<u64>,
    pub shared: Option<u64>,
    pub resident: Option<u64>,
    pub purgeable: Option<u64>,
    pub active: Option<u64>,
    /// The deprecated `drm-memory-<region>` key (amdgpu only; an alias of resident on current
    /// kernels). Used only when the standard keys are absent, never added to them.
    pub legacy: Option<u64>,
}

impl RegionStats {
    /// What the client holds in this region: resident, else the legacy alias, else the total.
    pub fn held(&self) -> Option<u64> {
        self.resident.or(self.legacy).or(self.total)
    }
}

#[derive(Debug, Clone, PartialEq, Eq)]
pub struct LineProblem {
    /// 1-based line number in the fdinfo file.
    pub line: usize,
    pub text: String,
    pub why: String,
}

/// The DRM part of one fdinfo file.
#[derive(Debug, Clone, Default, PartialEq, Eq)]
pub struct FdInfo {
    pub driver: Option<String>,
    /// PCI slot as printed (`0000:03:00.0`), lower-cased.
    pub pdev: Option<String>,
    pub client_id: Option<u64>,
    pub client_name: Option<String>,
    pub regions: BTreeMap<String, RegionStats>,
    /// `drm-engine-<name>`: busy time in ns.
    pub engine_ns: BTreeMap<String, u64>,
    /// `drm-engine-capacity-<name>`: identical engines in the group (absent = 1).
    pub capacity: BTreeMap<String, u32>,
    /// `drm-cycles-<name>` and `drm-total-cycles-<name>` (xe): utilisation in the GPU clock domain.
    pub cycles: BTreeMap<String, u64>,
    pub total_cycles: BTreeMap<String, u64>,
    /// amdgpu's own memory keys (`amd-evicted-vram`, `amd-requested-gtt`, ...), in bytes.
    pub amd: BTreeMap<String, u64>,
    /// Regions whose value could not be read from a malformed line: their figure is unknown.
    pub bad_regions: BTreeSet<String>,
    pub problems: Vec<LineProblem>,
}

impl FdInfo {
    /// True when the file describes a DRM client (the mandatory `drm-driver` key is present).
    pub fn is_drm(&self) -> bool {
        self.driver.is_some()
    }

    /// Capacity of an engine group; absent means one engine.
    pub fn capacity_of(&self, engine: &str) -> u32 {
        self.capacity.get(engine).copied().unwrap_or(1).max(1)
    }
}

/// Parse fdinfo text. Never fails: problems are collected in [`FdInfo::problems`].
pub fn parse(text: &str) -> FdInfo {
    let mut info = FdInfo::default();
    for (i, raw) in text.lines().enumerate() {
        let line = raw.trim();
        if line.is_empty() {
            continue;
        }
        let Some((k, v)) = line.split_once(':') else {
            if line.starts_with("drm-") || line.starts_with("amd-") {
                info.problem(i, raw, "no ':' between key and value");
            }
            continue;
        };
        let key = k.trim();
        let val = v.trim();
        if let Err(why) = info.apply(key, val) {
            info.problem(i, raw, &why);
        }
    }
    info
}

impl FdInfo {
    fn problem(&mut self, i: usize, raw: &str, why: &str) {
        // Keep the evidence short: a hostile file must not bloat memory or the snapshot.
        if self.problems.len() >= MAX_PROBLEMS {
            return;
        }
        let text: String = raw.chars().take(120).collect();
        self.problems.push(LineProblem {
            line: i + 1,
            text,
            why: why.to_string(),
        });
    }

    fn apply(&mut self, key: &str, val: &str) -> Result<(), String> {
        if key.chars().any(char::is_whitespace) {
            return Err(format!("key {key:?} contains whitespace"));
        }
        if let Some(rest) = key.strip_prefix("drm-") {
            return self.apply_drm(rest, val);
        }
        if let Some(rest) = key.strip_prefix("amd-") {
            match parse_memory(val) {
                Ok(b) => {
                    self.amd.insert(rest.to_string(), b);
                }
                Err(e) => return Err(e),
            }
        }
        // pos, flags, mnt_id, ino, pasid and other drivers' keys are not ours.
        Ok(())
    }

    /// A `drm-` key: the client's identity keys here, counters and memory further on.
    fn apply_drm(&mut self, rest: &str, val: &str) -> Result<(), String> {
        match rest {
            "driver" => {
                if val.is_empty() {
                    return Err("empty drm-driver".into());
                }
                self.driver = Some(val.to_string());
            }
            "pdev" => {
                if !is_pci_slot(val) {
                    return Err(format!("{val:?} is not a PCI address (dddd:bb:dd.f)"));
                }
                self.pdev = Some(val.to_ascii_lowercase());
            }
            "client-id" => self.client_id = Some(parse_uint(val)?),
            "client-name" => self.client_name = Some(val.to_string()),
            _ => return self.apply_counter(rest, val),
        }
        Ok(())
    }

    /// Engine counters (`drm-engine-`, `drm-cycles-`, `drm-total-cycles-`, capacities), else a
    /// memory key.
    fn apply_counter(&mut self, rest: &str, val: &str) -> Result<(), String> {
        // Longer prefixes first: `drm-total-cycles-` before `drm-total-`, capacity before engine.
        if let Some(name) = rest.strip_prefix("total-cycles-") {
            let n = parse_uint(val)?;
            self.total_cycles.insert(name.to_string(), n);
        } else if let Some(name) = rest.strip_prefix("cycles-") {
            let n = parse_uint(val)?;
            self.cycles.insert(name.to_string(), n);
        } else if let Some(name) = rest.strip_prefix("engine-capacity-") {
            let n = parse_uint(val)?;
            if n == 0 || n > u32::MAX as u64 {
                return Err(format!("engine capacity {n} is out of range"));
            }
            self.capacity.insert(name.to_string(), n as u32);
        } else if let Some(name) = rest.strip_prefix("engine-") {
            let n = parse_ns(val)?;
            self.engine_ns.insert(name.to_string(), n);
        } else if rest.starts_with("maxfreq-") || rest.starts_with("curfreq-") {
            // Frequency-aware utilisation (panfrost/panthor): not used.
        } else {
            return self.apply_memory(rest, val);
        }
        Ok(())
    }

    /// `drm-<stat>-<region>` memory keys. A malformed value marks its region's figure unknown.
    fn apply_memory(&mut self, rest: &str, val: &str) -> Result<(), String> {
        for (prefix, slot) in [
            ("total-", 0),
            ("shared-", 1),
            ("resident-", 2),
            ("purgeable-", 3),
            ("active-", 4),
            ("memory-", 5),
        ] {
            if let Some(region) = rest.strip_prefix(prefix) {
                if region.is_empty() {
                    return Err("memory key without a region name".into());
                }
                return match parse_memory(val) {
                    Ok(b) => {
                        let r = self.regions.entry(region.to_string()).or_default();
                        let field = match slot {
                            0 => &mut r.total,
                            1 => &mut r.shared,
                            2 => &mut r.resident,
                            3 => &mut r.purgeable,
                            4 => &mut r.active,
                            _ => &mut r.legacy,
                        };
                        *field = Some(b);
                        Ok(())
                    }
                    Err(e) => {
                        self.bad_regions.insert(region.to_string());
                        Err(e)
                    }
                };
            }
        }
        // Unknown standard keys from newer kernels are ignored, not errors.
        Ok(())
    }
}

fn parse_uint(val: &str) -> Result<u64, String> {
    val.parse::<u64>()
        .map_err(|_| format!("{val:?} is not an unsigned integer"))
}

/// `<uint>` with an optional ` ns`.
fn parse_ns(val: &str) -> Result<u64, String> {
    let num = match val.strip_suffix("ns") {
        Some(n) => n.trim_end(),
        None => val,
    };
    parse_uint(num).map_err(|_| format!("{val:?} is not a busy time in ns"))
}

/// A memory size: bare bytes, `N KiB` or `N MiB` (the only units the spec allows).
pub fn parse_memory(val: &str) -> Result<u64, String> {
    let split = val.find(|c: char| !c.is_ascii_digit()).unwrap_or(val.len());
    let (num, unit) = val.split_at(split);
    let n: u64 = num
        .parse()
        .map_err(|_| format!("{val:?} is not a size (expected bytes, KiB or MiB)"))?;
    let mult: u64 = match unit.trim() {
        "" => 1,
        "KiB" => 1 << 10,
        "MiB" => 1 << 20,
        other => {
            return Err(format!(
                "unknown unit {other:?} in {val:?} (expected KiB or MiB)"
            ))
        }
    };
    n.checked_mul(mult)
        .ok_or_else(|| format!("{val:?} overflows 64 bits"))
}

/// `dddd:bb:dd.f` in hex.
pub fn is_pci_slot(s: &str) -> bool {
    let b = s.as_bytes();
    b.len() == 12
        && b[4] == b':'
        && b[7] == b':'
        && b[10] == b'.'
        && b.iter()
            .enumerate()
            .all(|(i, c)| matches!(i, 4 | 7 | 10) || c.is_ascii_hexdigit())
}

#[cfg(test)]
mod tests {
    use super::*;

    /// amdgpu, Linux ≈6.4 (`seq_printf` era), verbatim capture quoted in platforms.md §1.4 (a).
    const AMD_64: &str = "pos:\t0\nflags:\t02100002\nmnt_id:\t1873\nino:\t19\npasid:\t32771\ndrm-driver:\tamdgpu\ndrm-pdev:\t0000:83:00.0\ndrm-client-id:\t1203108\ndrm-memory-vram:\t76 KiB\ndrm-memory-gtt: \t44 KiB\ndrm-memory-cpu: \t6200 KiB\namd-memory-visible-vram:\t76 KiB\namd-evicted-vram:\t0 KiB\namd-evicted-visible-vram:\t0 KiB\namd-requested-vram:\t76 KiB\namd-requested-visible-vram:\t76 KiB\namd-requested-gtt:\t56 KiB\n";

    #[test]
    fn amdgpu_legacy_keys_with_space_before_tab() {
        let f = parse(AMD_64);
        assert!(f.problems.is_empty(), "{:?}", f.problems);
        assert_eq!(f.driver.as_deref(), Some("amdgpu"));
        assert_eq!(f.pdev.as_deref(), Some("0000:83:00.0"));
        assert_eq!(f.client_id, Some(1203108));
        assert_eq!(f.regions["vram"].held(), Some(76 * 1024));
        assert_eq!(f.regions["gtt"].held(), Some(44 * 1024));
        assert_eq!(f.regions["cpu"].legacy, Some(6200 * 1024));
        assert_eq!(f.amd["requested-gtt"], 56 * 1024);
        assert_eq!(f.amd["evicted-vram"], 0);
    }

    #[test]
    fn standard_keys_win_over_legacy_never_summed() {
        let f = parse("drm-driver:\tamdgpu\ndrm-total-vram:\t3 MiB\ndrm-shared-vram:\t0\ndrm-resident-vram:\t2 MiB\ndrm-memory-vram:\t2048 KiB\n");
        assert_eq!(f.regions["vram"].held(), Some(2 << 20));
        assert_eq!(f.regions["vram"].total, Some(3 << 20));
        // Only a total printed (drivers without RESIDENT support): the total is what it holds.
        let f = parse("drm-driver:\tx\ndrm-total-memory:\t4096\n");
        assert_eq!(f.regions["memory"].held(), Some(4096));
    }

    #[test]
    fn xe_cycles_capacity_and_units() {
        let f = parse("drm-driver:     xe\ndrm-client-id:  3\ndrm-pdev:       0000:03:00.0\ndrm-total-gtt:  192 KiB\ndrm-shared-vram0:       16 MiB\ndrm-resident-vram0:     23992 KiB\ndrm-cycles-rcs: 28257900\ndrm-total-cycles-rcs:   7655183225\ndrm-engine-capacity-vcs:        2\n");
        assert!(f.problems.is_empty(), "{:?}", f.problems);
        assert_eq!(f.regions["vram0"].held(), Some(23992 * 1024));
        assert_eq!(f.regions["vram0"].shared, Some(16 << 20));
        assert_eq!(f.regions["gtt"].held(), Some(192 * 1024));
        assert_eq!(f.cycles["rcs"], 28257900);
        assert_eq!(f.total_cycles["rcs"], 7655183225);
        assert!(!f.cycles.contains_key("total-cycles-rcs"));
        assert_eq!(f.capacity_of("vcs"), 2);
        assert_eq!(f.capacity_of("rcs"), 1);
    }

    #[test]
    fn i915_engines_in_ns() {
        let f = parse("drm-driver: i915\ndrm-pdev:   0000:00:02.0\ndrm-client-id:      7\ndrm-engine-render:  9288864723 ns\ndrm-engine-copy:    2035071108 ns\ndrm-engine-video:   0 ns\ndrm-engine-capacity-video:   2\ndrm-engine-video-enhance:   0 ns\n");
        assert_eq!(f.engine_ns["render"], 9288864723);
        assert_eq!(f.engine_ns["video-enhance"], 0);
        assert_eq!(f.capacity_of("video"), 2);
        assert!(!f.engine_ns.contains_key("capacity-video"));
    }

    #[test]
    fn malformed_lines_lose_only_their_value() {
        let f = parse("drm-driver:\tamdgpu\ndrm-client-id:\tseven\ndrm-resident-vram:\t12 GiB\ndrm-resident-gtt:\t4 KiB\ndrm-engine-gfx\t5 ns\ndrm-engine-capacity-gfx:\t0\n");
        assert_eq!(f.client_id, None);
        assert!(f.bad_regions.contains("vram"));
        assert_eq!(f.regions.get("vram").and_then(|r| r.held()), None);
        assert_eq!(f.regions["gtt"].held(), Some(4096));
        let lines: Vec<usize> = f.problems.iter().map(|p| p.line).collect();
        assert_eq!(lines, [2, 3, 5, 6]);
        assert!(f.problems[1].why.contains("GiB"), "{:?}", f.problems[1]);
    }

    #[test]
    fn problems_are_capped() {
        let text = "drm-engine-gfx: x ns\n".repeat(5000);
        let f = parse(&text);
        assert_eq!(f.problems.len(), MAX_PROBLEMS);
        assert!(f.engine_ns.is_empty());
    }

    #[test]
    fn sizes() {
        assert_eq!(parse_memory("0"), Ok(0));
        assert_eq!(parse_memory("7 KiB"), Ok(7168));
        assert_eq!(parse_memory("1 MiB"), Ok(1 << 20));
        assert!(parse_memory("1 kB").is_err());
        assert!(parse_memory("-1").is_err());
        assert!(parse_memory("18446744073709551615 MiB").is_err());
        assert!(is_pci_slot("0000:c4:00.0"));
        assert!(!is_pci_slot("00000000:c4:00.0"));
    }

    proptest::proptest! {
        #[test]
        fn parser_never_panics(s in "(?s).{0,400}") {
            let _ = parse(&s);
        }

        #[test]
        fn parser_survives_drm_like_lines(lines in proptest::collection::vec(
            ("(drm|amd)-(total|resident|memory|engine|cycles|total-cycles|engine-capacity|client-id|pdev)-?[a-z0-9]{0,6}", "[ \\t]{0,2}", "[0-9]{0,22}( KiB| MiB| ns| GiB)?"),
            0..30)) {
            let text: String = lines.iter().map(|(k, sp, v)| format!("{k}:{sp}{v}\n")).collect();
            let f = parse(&text);
            // At most one problem per line, reported in order with real line numbers.
            proptest::prop_assert!(f.problems.len() <= lines.len());
            for w in f.problems.windows(2) {
                proptest::prop_assert!(w[0].line < w[1].line);
            }
            proptest::prop_assert!(f.problems.iter().all(|p| p.line >= 1 && p.line <= lines.len()));
        }
    }
}
