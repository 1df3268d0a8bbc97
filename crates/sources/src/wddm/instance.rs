//! WDDM performance-counter instance names.
//!
//! Windows names every `GPU Engine`, `GPU Process Memory` and `GPU Adapter Memory` instance after
//! the process, the adapter LUID and the physical adapter (linked adapters share one LUID):
//!
//! - engine: `pid_12220_luid_0x00000000_0x0000C85A_phys_0_eng_5_engtype_Copy`
//! - process memory: `pid_1116_luid_0x00000000_0x0000D3EC_phys_0`
//! - adapter memory: `luid_0x00000000_0x0000C4CF_phys_0` (the local/non-local adapter sets may add
//!   `_part_<n>`)
//!
//! PowerShell's `Get-Counter` prints the same names in lower case
//! (`..._eng_0_engtype_3d`), and PDH appends `#<n>` when two instances share a name, so keywords
//! and hex digits are matched case-insensitively and a trailing `#<n>` is dropped.

use serde::{Deserialize, Serialize};
use std::fmt;

/// An adapter LUID, as the counter instance names print it (`luid_0x<High>_0x<Low>`). `high` keeps
/// the bit pattern of Windows' signed `HighPart`.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, PartialOrd, Ord, Serialize, Deserialize)]
pub struct Luid {
    pub high: u32,
    pub low: u32,
}

impl fmt::Display for Luid {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(f, "0x{:08X}_0x{:08X}", self.high, self.low)
    }
}

/// One engine of an adapter: its node ordinal and the type Windows gives it (`3D`, `Copy`,
/// `Compute_0`, `VideoDecode`, `Cuda`, ...), as printed.
#[derive(Debug, Clone, PartialEq, Eq, Hash, PartialOrd, Ord)]
pub struct EngineId {
    pub ordinal: u32,
    pub engine_type: String,
}

/// A parsed instance name.
#[derive(Debug, Clone, PartialEq, Eq, Hash)]
pub struct Instance {
    /// `None` for adapter-wide instances.
    pub pid: Option<u32>,
    pub luid: Luid,
    pub phys: u32,
    /// Engine instances only.
    pub engine: Option<EngineId>,
    /// `_part_<n>` of the local/non-local adapter memory sets.
    pub part: Option<u32>,
}

/// Why an instance name did not parse; the caller names the counter.
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
#[error("counter instance {name:?}: {what}")]
pub struct InstanceError {
    pub name: String,
    pub what: &'static str,
}

/// Longest name accepted; real names are under 80 characters.
const MAX_NAME: usize = 256;

/// Parse one instance name. Unknown shapes are errors, never guesses.
pub fn parse_instance(name: &str) -> Result<Instance, InstanceError> {
    let err = |what| InstanceError {
        name: name.chars().take(MAX_NAME).collect(),
        what,
    };
    if name.len() > MAX_NAME {
        return Err(err("name too long"));
    }
    let body = strip_duplicate_suffix(name);
    let mut rest = body;

    let pid = if let Some(r) = strip_keyword(rest, "pid_") {
        let (digits, r) = split_field(r);
        let pid = digits
            .parse::<u32>()
            .map_err(|_| err("pid is not a decimal number"))?;
        rest = r.ok_or_else(|| err("nothing after the pid"))?;
        Some(pid)
    } else {
        None
    };

    rest = strip_keyword(rest, "luid_").ok_or_else(|| err("no luid_ field"))?;
    let (high, r) = split_field(rest);
    let high = parse_hex(high).ok_or_else(|| err("LUID high part is not hex"))?;
    let (low, r) = split_field(r.ok_or_else(|| err("LUID has one part"))?);
    let low = parse_hex(low).ok_or_else(|| err("LUID low part is not hex"))?;
    rest = r.ok_or_else(|| err("no phys_ field"))?;
    rest = strip_keyword(rest, "phys_").ok_or_else(|| err("no phys_ field"))?;
    let (phys, r) = split_field(rest);
    let phys = phys
        .parse::<u32>()
        .map_err(|_| err("phys is not a decimal number"))?;

    let mut engine = None;
    let mut part = None;
    if let Some(r) = r {
        if let Some(r) = strip_keyword(r, "eng_") {
            let (ord, r) = split_field(r);
            let ordinal = ord
                .parse::<u32>()
                .map_err(|_| err("eng is not a decimal number"))?;
            let r = r.ok_or_else(|| err("no engtype_ field"))?;
            // The type may itself hold underscores (`Compute_0`, `Graphics_1`).
            let ty = strip_keyword(r, "engtype_").ok_or_else(|| err("no engtype_ field"))?;
            if ty.is_empty() {
                return Err(err("empty engine type"));
            }
            engine = Some(EngineId {
                ordinal,
                engine_type: ty.to_string(),
            });
        } else if let Some(r) = strip_keyword(r, "part_") {
            part = Some(
                r.parse::<u32>()
                    .map_err(|_| err("part is not a decimal number"))?,
            );
        } else {
            return Err(err("unexpected field after phys_"));
        }
    }
    Ok(Instance {
        pid,
        luid: Luid { high, low },
        phys,
        engine,
        part,
    })
}

/// `name#3` → `name`: PDH's marker for a repeated instance name.
fn strip_duplicate_suffix(name: &str) -> &str {
    match name.rfind('#') {
        Some(i) if i + 1 < name.len() && name[i + 1..].bytes().all(|b| b.is_ascii_digit()) => {
            &name[..i]
        }
        _ => name,
    }
}

fn strip_keyword<'a>(s: &'a str, kw: &str) -> Option<&'a str> {
    let head = s.get(..kw.len())?;
    head.eq_ignore_ascii_case(kw).then(|| &s[kw.len()..])
}

/// `abc_rest` → (`abc`, Some(`rest`)); `abc` → (`abc`, None).
fn split_field(s: &str) -> (&str, Option<&str>) {
    match s.split_once('_') {
        Some((a, b)) => (a, Some(b)),
        None => (s, None),
    }
}

fn parse_hex(s: &str) -> Option<u32> {
    let digits = strip_keyword(s, "0x").unwrap_or(s);
    if digits.is_empty() || digits.len() > 8 {
        return None;
    }
    u32::from_str_radix(digits, 16).ok()
}

/// Engine families, for the kinds (compute / graphics) and the per-process headline.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum EngineClass {
    /// `3D`, `Graphics_<n>`: the shader array doing graphics work.
    Graphics,
    /// `Compute_<n>`, `Cuda`: the shader array doing compute work.
    Compute,
    VideoDecode,
    VideoEncode,
    Copy,
    /// `Security`, `VR`, `LegacyOverlay`, `VideoProcessing`, and names not seen before.
    Other,
}

pub fn engine_class(engine_type: &str) -> EngineClass {
    let t = engine_type.to_ascii_lowercase();
    let t = t.as_str();
    if t == "3d" || t.starts_with("graphics") {
        EngineClass::Graphics
    } else if t.starts_with("compute") || t == "cuda" {
        EngineClass::Compute
    } else if t.starts_with("videodecode") || t == "video decode" {
        EngineClass::VideoDecode
    } else if t.starts_with("videoencode") || t == "video encode" {
        EngineClass::VideoEncode
    } else if t.starts_with("copy") {
        EngineClass::Copy
    } else {
        EngineClass::Other
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn engine_instance_as_system_informer_documents_it() {
        let i = parse_instance("pid_12220_luid_0x00000000_0x0000C85A_phys_0_eng_5_engtype_Copy")
            .unwrap();
        assert_eq!(i.pid, Some(12220));
        assert_eq!(
            i.luid,
            Luid {
                high: 0,
                low: 0xC85A
            }
        );
        assert_eq!(i.phys, 0);
        assert_eq!(
            i.engine,
            Some(EngineId {
                ordinal: 5,
                engine_type: "Copy".into()
            })
        );
        assert_eq!(i.part, None);
    }

    #[test]
    fn engine_type_with_underscore_and_lower_case_forms() {
        let i =
            parse_instance("pid_856_luid_0x00000000_0x000098FE_phys_0_eng_10_engtype_Compute_1")
                .unwrap();
        assert_eq!(i.engine.unwrap().engine_type, "Compute_1");
        // Get-Counter's lower-case spelling (oshi/oshi#2114).
        let i =
            parse_instance("pid_10472_luid_0x00000000_0x0000f814_phys_0_eng_0_engtype_3d").unwrap();
        assert_eq!(i.luid.low, 0xF814);
        assert_eq!(i.engine.unwrap().engine_type, "3d");
        let i = parse_instance("PID_7_LUID_0X00000001_0X89ABCDEF_PHYS_1_ENG_2_ENGTYPE_VideoDecode")
            .unwrap();
        assert_eq!(
            i.luid,
            Luid {
                high: 1,
                low: 0x89AB_CDEF
            }
        );
        assert_eq!(i.phys, 1);
    }

    #[test]
    fn memory_and_adapter_instances() {
        let p = parse_instance("pid_1116_luid_0x00000000_0x0000D3EC_phys_0").unwrap();
        assert_eq!(p.pid, Some(1116));
        assert_eq!(p.engine, None);
        let a = parse_instance("luid_0x00000000_0x0000C4CF_phys_0").unwrap();
        assert_eq!(a.pid, None);
        assert_eq!(a.luid.low, 0xC4CF);
        let a = parse_instance("luid_0x00000000_0x0000C4CF_phys_0_part_1").unwrap();
        assert_eq!(a.part, Some(1));
    }

    #[test]
    fn duplicate_suffix_is_dropped() {
        let i = parse_instance("pid_3270_luid_0x00000000_0x0000ABCD_phys_0_eng_2_engtype_3D#1")
            .unwrap();
        assert_eq!(i.engine.unwrap().engine_type, "3D");
    }

    #[test]
    fn malformed_names_say_what_is_wrong() {
        let cases = [
            ("_Total", "no luid_ field"),
            ("pid_x_luid_0x0_0x1_phys_0", "pid is not a decimal number"),
            ("pid_1_luid_0xZZ_0x1_phys_0", "LUID high part is not hex"),
            ("pid_1_luid_0x0", "LUID has one part"),
            ("pid_1_luid_0x0_0x1", "no phys_ field"),
            ("pid_1_luid_0x0_0x1_phys_0_eng_1", "no engtype_ field"),
            (
                "pid_1_luid_0x0_0x1_phys_0_eng_1_engtype_",
                "empty engine type",
            ),
            (
                "pid_1_luid_0x0_0x1_phys_0_zzz_1",
                "unexpected field after phys_",
            ),
            ("luid_0x0_0x123456789_phys_0", "LUID low part is not hex"),
            (
                "pid_99999999999_luid_0x0_0x1_phys_0",
                "pid is not a decimal number",
            ),
        ];
        for (name, what) in cases {
            let e = parse_instance(name).unwrap_err();
            assert_eq!(e.what, what, "{name}");
            assert!(e.to_string().contains(name), "{e}");
        }
        let long = "pid_1_".repeat(100);
        assert_eq!(parse_instance(&long).unwrap_err().what, "name too long");
    }

    #[test]
    fn engine_classes() {
        assert_eq!(engine_class("3D"), EngineClass::Graphics);
        assert_eq!(engine_class("3d"), EngineClass::Graphics);
        assert_eq!(engine_class("Graphics_1"), EngineClass::Graphics);
        assert_eq!(engine_class("Compute_0"), EngineClass::Compute);
        assert_eq!(engine_class("Cuda"), EngineClass::Compute);
        assert_eq!(engine_class("VideoDecode"), EngineClass::VideoDecode);
        assert_eq!(engine_class("VideoEncode"), EngineClass::VideoEncode);
        assert_eq!(engine_class("Copy"), EngineClass::Copy);
        assert_eq!(engine_class("Security"), EngineClass::Other);
    }

    proptest::proptest! {
        #[test]
        fn round_trips_what_windows_prints(pid in proptest::option::of(0u32..), high: u32, low: u32,
            phys in 0u32..8, eng in proptest::option::of((0u32..64, "[A-Za-z][A-Za-z0-9_]{0,15}"))) {
            let mut name = String::new();
            if let Some(p) = pid { name.push_str(&format!("pid_{p}_")); }
            name.push_str(&format!("luid_0x{high:08X}_0x{low:08x}_phys_{phys}"));
            if let Some((o, t)) = &eng { name.push_str(&format!("_eng_{o}_engtype_{t}")); }
            let i = parse_instance(&name).unwrap();
            proptest::prop_assert_eq!(i.pid, pid);
            proptest::prop_assert_eq!(i.luid, Luid { high, low });
            proptest::prop_assert_eq!(i.phys, phys);
            proptest::prop_assert_eq!(i.engine.map(|e| (e.ordinal, e.engine_type)), eng);
        }

        #[test]
        fn never_panics(s in "\\PC{0,300}") {
            let _ = parse_instance(&s);
        }
    }
}
