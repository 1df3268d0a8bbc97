//! The scenario file: devices, what each kind of allocation charges, injected failures.

use crate::CUresult;
use std::collections::HashMap;
use std::ffi::c_int;

#[derive(Debug)]
pub(crate) struct Device {
    pub(crate) name: String,
    pub(crate) total: u64,
    pub(crate) used: u64,
    pub(crate) uuid: [u8; 16],
}

#[derive(Debug)]
pub(crate) struct Fail {
    pub(crate) func: String,
    pub(crate) code: CUresult,
    pub(crate) nth: u32,
}

#[derive(Debug, Default)]
pub(crate) struct Scenario {
    pub(crate) devices: Vec<Device>,
    pub(crate) driver: c_int,
    pub(crate) nvml_driver: String,
    pub(crate) context_cost: u64,
    pub(crate) charge: HashMap<String, f64>,
    pub(crate) granularity: u64,
    pub(crate) release_lag: u32,
    pub(crate) fails: Vec<Fail>,
    pub(crate) sigint: Vec<(String, u32)>,
}

pub(crate) fn parse_scenario(text: &str) -> Result<Scenario, String> {
    let mut sc = Scenario {
        driver: 12040,
        nvml_driver: "555.85".into(),
        granularity: 1,
        ..Scenario::default()
    };
    for (i, raw) in text.lines().enumerate() {
        let line = raw.split('#').next().unwrap_or("").trim();
        if line.is_empty() {
            continue;
        }
        let f: Vec<&str> = line.split('|').map(str::trim).collect();
        let n = |s: &str| -> Result<u64, String> {
            s.parse::<u64>()
                .map_err(|_| format!("line {}: {s:?} is not a number", i + 1))
        };
        match (f[0], f.len()) {
            ("device", 4 | 5) => {
                let mut uuid = [0u8; 16];
                match f.get(4) {
                    Some(h) if h.len() == 32 => {
                        for (k, b) in uuid.iter_mut().enumerate() {
                            *b = u8::from_str_radix(&h[2 * k..2 * k + 2], 16)
                                .map_err(|_| format!("line {}: bad uuid {h:?}", i + 1))?;
                        }
                    }
                    Some(h) => return Err(format!("line {}: bad uuid {h:?}", i + 1)),
                    None => uuid[15] = sc.devices.len() as u8 + 1,
                }
                sc.devices.push(Device {
                    name: f[1].to_string(),
                    total: n(f[2])?,
                    used: n(f[3])?,
                    uuid,
                });
            }
            ("driver", 2) => sc.driver = n(f[1])? as c_int,
            ("nvml_driver", 2) => sc.nvml_driver = f[1].to_string(),
            ("context_cost", 2) => sc.context_cost = n(f[1])?,
            ("granularity", 2) => sc.granularity = n(f[1])?.max(1),
            ("release_lag", 2) => sc.release_lag = n(f[1])? as u32,
            ("charge", 3) => {
                if !matches!(
                    f[1],
                    "device" | "host_alloc" | "host_alloc_devicemap" | "host_register"
                ) {
                    return Err(format!("line {}: unknown method {:?}", i + 1, f[1]));
                }
                let r: f64 = f[2]
                    .parse()
                    .map_err(|_| format!("line {}: {:?} is not a ratio", i + 1, f[2]))?;
                sc.charge.insert(f[1].to_string(), r);
            }
            ("fail", 4) => sc.fails.push(Fail {
                func: f[1].to_string(),
                code: n(f[2])? as CUresult,
                nth: n(f[3])? as u32,
            }),
            ("sigint", 3) => sc.sigint.push((f[1].to_string(), n(f[2])? as u32)),
            _ => return Err(format!("line {}: cannot read {raw:?}", i + 1)),
        }
    }
    Ok(sc)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn scenario_lines() {
        let sc = parse_scenario(
            "# comment\ndevice|GPU A|1000|100\ncharge|host_alloc|1.0\nfail|cuMemAlloc_v2|2|3\nrelease_lag|1\n",
        )
        .unwrap();
        assert_eq!(sc.devices[0].total, 1000);
        assert_eq!(sc.devices[0].uuid[15], 1);
        assert_eq!(sc.charge["host_alloc"], 1.0);
        assert_eq!(sc.fails[0].nth, 3);
        assert_eq!(sc.release_lag, 1);
        assert!(parse_scenario("charge|managed|1")
            .unwrap_err()
            .contains("unknown method"));
        assert!(parse_scenario("device|x|lots|0")
            .unwrap_err()
            .contains("line 1"));
    }
}
