//! What the AMD and Intel tools say about the child and its device, read from their raw JSON
//! (kept in the record by `witness`). Pure: a saved record re-derives the same readings. The
//! shapes are the tools' own (see `fixtures/verify/witnesses/README.md` for where each comes
//! from); output that is not that shape is a reason, never a panic, and stays raw in the record.

use super::record::ToolRun;
use super::series::Seen;
use gpuledger_lang::said::Said;
use gpuledger_model::units::human_bytes;
use serde_json::Value;

pub const AMD_SMI_PROCESS: &str = "amd-smi process";
pub const AMD_SMI_METRIC: &str = "amd-smi metric --mem-usage";
pub const ROCM_SMI_PIDS: &str = "rocm-smi --showpids";
pub const ROCM_SMI_MEMINFO: &str = "rocm-smi --showmeminfo vram";
pub const XPU_SMI_PS: &str = "xpu-smi ps";
pub const XPU_SMI_STATS: &str = "xpu-smi stats";

/// Each witness: the tool, its per-process query, its device query.
pub const WITNESSES: [(&str, &str, &str); 3] = [
    ("amd-smi", AMD_SMI_PROCESS, AMD_SMI_METRIC),
    ("rocm-smi", ROCM_SMI_PIDS, ROCM_SMI_MEMINFO),
    ("xpu-smi", XPU_SMI_PS, XPU_SMI_STATS),
];

const MIB: f64 = 1048576.0;

/// The output of a run that finished with status 0, or why there is none.
pub fn finished(run: &ToolRun) -> Result<&str, Said> {
    if let Some(e) = &run.error {
        return Err(e.clone());
    }
    let name = run.command.split_whitespace().next().unwrap_or("the tool");
    let name = std::path::Path::new(name)
        .file_name()
        .map(|n| n.to_string_lossy().into_owned())
        .unwrap_or_else(|| name.to_string());
    if run.exit_code != Some(0) {
        let first = run
            .stdout
            .trim()
            .lines()
            .chain(run.stderr.trim().lines())
            .next()
            .unwrap_or("");
        let said = vec![
            ("tool", name.into()),
            ("code", format!("{:?}", run.exit_code).into()),
            ("line", first.chars().take(200).collect::<String>().into()),
        ];
        return Err(Said::new("report-verify-tool-exited", said));
    }
    Ok(&run.stdout)
}

fn json(query: &str, run: &ToolRun) -> Result<Value, Said> {
    let out = finished(run)?;
    serde_json::from_str(out).map_err(|e| {
        let mut said = vec![("query", query.into()), ("error", e.to_string().into())];
        if run.truncated {
            said.push(("size", human_bytes(ToolRun::MAX_OUTPUT as u64).into()));
            Said::new("report-verify-not-json-cut", said)
        } else {
            Said::new("report-verify-not-json", said)
        }
    })
}

/// The query's output is not the shape its documentation shows: `what` says how.
fn shape(query: &str, what: Said) -> Said {
    let said = vec![("query", query.into()), ("what", what.into())];
    Said::new("report-verify-shape", said)
}

/// `what` of a tool's JSON, for [`shape`].
fn not(key: &'static str) -> Said {
    Said::new(key, vec![])
}

/// `TOOL prints VALUE` (a reading it printed that is not a number of bytes).
pub(super) fn prints(tool: &str, value: String) -> Said {
    let said = vec![("tool", tool.into()), ("value", value.into())];
    Said::new("report-verify-tool-prints", said)
}

/// `TOOL prints FIELD VALUE`, or `TOOL prints no FIELD` where it is absent.
fn prints_field(tool: &str, field: &str, v: Option<&Value>) -> Said {
    match v {
        Some(v) => prints(tool, format!("{field} {v}")),
        None => {
            let said = vec![("tool", tool.into()), ("field", field.into())];
            Said::new("report-verify-tool-prints-no", said)
        }
    }
}

/// A number or a numeric string (rocm-smi prints numbers as strings).
fn number(v: &Value) -> Option<f64> {
    match v {
        Value::Number(n) => n.as_f64(),
        Value::String(s) => s.trim().parse().ok(),
        _ => None,
    }
}

/// amd-smi's `{"value": N, "unit": "B"|"KB"|"MB"|"GB"}` in bytes.
fn amd_bytes(v: &Value) -> Option<u64> {
    let n = number(v.get("value")?)?;
    let scale = match v.get("unit").and_then(Value::as_str).unwrap_or("B") {
        "B" => 1.0,
        "KB" => 1024.0,
        "MB" => MIB,
        "GB" => MIB * 1024.0,
        _ => return None,
    };
    bytes_of(n, scale)
}

fn bytes_of(n: f64, scale: f64) -> Option<u64> {
    (n.is_finite() && n >= 0.0).then(|| (n * scale).round() as u64)
}

/// The child's memory as the process query `key` reports it (summed over the GPUs it lists
/// the child on; the workload uses one).
pub fn process_seen(key: &str, run: &ToolRun, pid: u32) -> Result<Seen, Said> {
    let v = json(key, run)?;
    let mut found: Option<Seen> = None;
    let mut add = |s: Seen| {
        found = Some(match (found.take(), s) {
            (Some(Seen::Bytes(a)), Seen::Bytes(b)) => Seen::Bytes(a + b),
            (Some(Seen::Unknown(r)), _) | (None | Some(Seen::Absent), Seen::Unknown(r)) => {
                Seen::Unknown(r)
            }
            (_, s) => s,
        })
    };
    match key {
        AMD_SMI_PROCESS => amd_smi_process(key, &v, pid, &mut add)?,
        ROCM_SMI_PIDS => rocm_smi_pids(key, &v, pid, &mut add)?,
        XPU_SMI_PS => xpu_smi_ps(key, &v, pid, &mut add)?,
        _ => return Err(shape(key, not("report-verify-not-process-query"))),
    }
    Ok(found.unwrap_or(Seen::Absent))
}

// [{"gpu": 0, "process_list": [{"process_info": {"pid", "memory_usage": {"vram_mem":
// {"value", "unit"}}, "mem_usage": {...}}} | {"process_info": "No running processes
// detected"}]}]; the ROCm 6.2.0 changelog's sample has only `mem_usage` (all its memory).
/// amd-smi's process list: each of the child's rows to `add`.
fn amd_smi_process(key: &str, v: &Value, pid: u32, add: &mut dyn FnMut(Seen)) -> Result<(), Said> {
    let gpus = v
        .as_array()
        .ok_or_else(|| shape(key, not("report-verify-shape-not-gpus")))?;
    for g in gpus {
        let list = g
            .get("process_list")
            .and_then(Value::as_array)
            .ok_or_else(|| shape(key, not("report-verify-shape-no-process-list")))?;
        for p in list {
            let Some(info) = p.get("process_info").filter(|i| i.is_object()) else {
                continue; // "No running processes detected"
            };
            if info.get("pid").and_then(number) != Some(pid as f64) {
                continue;
            }
            let vram = info.get("memory_usage").and_then(|m| m.get("vram_mem"));
            let mem = vram.or_else(|| info.get("mem_usage"));
            add(match mem.and_then(amd_bytes) {
                Some(b) => Seen::Bytes(b),
                None => Seen::Unknown(prints_field("amd-smi", "memory", mem)),
            });
        }
    }

    Ok(())
}

// {"system": {"PID<pid>": "<name>, <gpus>, <vram bytes>, <sdma>, <cu occupancy>"}};
// the name may hold commas, so the numbers are read from the end.
/// rocm-smi's KFD process list: the child's row to `add`.
fn rocm_smi_pids(key: &str, v: &Value, pid: u32, add: &mut dyn FnMut(Seen)) -> Result<(), Said> {
    let obj = v
        .as_object()
        .ok_or_else(|| shape(key, not("report-verify-shape-not-object")))?;
    // No KFD process at all: rocm-smi prints no "system" section.
    if let Some(sys) = obj.get("system") {
        let sys = sys
            .as_object()
            .ok_or_else(|| shape(key, not("report-verify-shape-system")))?;
        if let Some(row) = sys.get(&format!("PID{pid}")) {
            let row = row.as_str().unwrap_or("");
            let fields: Vec<&str> = row.split(',').map(str::trim).collect();
            let vram = fields.len().checked_sub(3).map(|i| fields[i]);
            add(match vram.and_then(|f| f.parse::<u64>().ok()) {
                Some(b) => Seen::Bytes(b),
                None => Seen::Unknown(prints("rocm-smi", format!("{row:?}"))),
            });
        }
    }

    Ok(())
}

// {"device_util_by_proc_list": [{"process_id", "mem_size" (kB), "shared_mem_size"}]}
/// xpu-smi's process list: each of the child's rows to `add`.
fn xpu_smi_ps(key: &str, v: &Value, pid: u32, add: &mut dyn FnMut(Seen)) -> Result<(), Said> {
    let list = v
        .get("device_util_by_proc_list")
        .and_then(Value::as_array)
        .ok_or_else(|| shape(key, not("report-verify-shape-no-proc-list")))?;
    for p in list {
        if p.get("process_id").and_then(number) != Some(pid as f64) {
            continue;
        }
        let mem = p.get("mem_size");
        add(
            match mem.and_then(number).and_then(|k| bytes_of(k, 1024.0)) {
                Some(b) => Seen::Bytes(b),
                None => Seen::Unknown(prints_field("xpu-smi", "mem_size", mem)),
            },
        );
    }

    Ok(())
}

/// The device's used VRAM as the device query `key` reports it. `bdf` is the device's PCI
/// address (normalised); amd-smi and xpu-smi were asked for that device only.
pub fn device_used(key: &str, run: &ToolRun, bdf: &str) -> Result<u64, Said> {
    let v = json(key, run)?;
    match key {
        // [{"gpu": 0, "mem_usage": {"used_vram": {"value", "unit": "MB"}, ...}}]
        AMD_SMI_METRIC => {
            let gpus = v
                .as_array()
                .ok_or_else(|| shape(key, not("report-verify-shape-not-gpus")))?;
            let [g] = gpus.as_slice() else {
                let said = vec![("count", gpus.len().into()), ("bdf", bdf.into())];
                return Err(shape(key, Said::new("report-verify-shape-gpus", said)));
            };
            let used = g.get("mem_usage").and_then(|m| m.get("used_vram"));
            used.and_then(amd_bytes)
                .ok_or_else(|| prints_field("amd-smi", "used_vram", used))
        }
        // {"card0": {"PCI Bus": "0000:03:00.0", "VRAM Total Used Memory (B)": "2024849408"}}
        ROCM_SMI_MEMINFO => {
            let cards = v
                .as_object()
                .ok_or_else(|| shape(key, not("report-verify-shape-not-object")))?;
            let norm = gpuledger_sources::sysfs::normalise_bus_id;
            let card = cards.iter().find(|(_, c)| {
                c.get("PCI Bus")
                    .and_then(Value::as_str)
                    .map(norm)
                    .as_deref()
                    == Some(bdf)
            });
            let Some((name, card)) = card else {
                return Err(Said::new(
                    "report-verify-no-card",
                    vec![("bdf", bdf.into())],
                ));
            };
            let used = card.get("VRAM Total Used Memory (B)");
            used.and_then(number)
                .and_then(|b| bytes_of(b, 1.0))
                .ok_or_else(|| {
                    let field = format!("{name} VRAM Total Used Memory (B)");
                    prints_field("rocm-smi", &field, used)
                })
        }
        // {"device_level": [{"metrics_type": "XPUM_STATS_MEMORY_USED", "value": MiB}],
        //  "tile_level": [{"data_list": [...]}]}: the device's, else the tiles' sum.
        XPU_SMI_STATS => {
            let used = |list: Option<&Value>| {
                list.and_then(Value::as_array)?
                    .iter()
                    .find(|m| {
                        m.get("metrics_type").and_then(Value::as_str)
                            == Some("XPUM_STATS_MEMORY_USED")
                    })
                    .and_then(|m| m.get("value"))
                    .and_then(number)
            };
            let tiles = || {
                let t = v.get("tile_level")?.as_array()?;
                t.iter()
                    .map(|t| used(t.get("data_list")))
                    .sum::<Option<f64>>()
                    .filter(|_| !t.is_empty())
            };
            used(v.get("device_level"))
                .or_else(tiles)
                .and_then(|m| bytes_of(m, MIB))
                .ok_or_else(|| not("report-verify-no-xpum"))
        }
        _ => Err(shape(key, not("report-verify-not-device-query"))),
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn amd_bytes_refuses_what_is_not_a_finite_size() {
        let v = |value: &str| serde_json::json!({"value": value, "unit": "MB"});
        assert_eq!(amd_bytes(&v("2")), Some(2 << 20));
        for bad in ["inf", "NaN", "-1"] {
            assert_eq!(amd_bytes(&v(bad)), None, "{bad}");
        }
    }

    fn fixture(name: &str) -> ToolRun {
        let path = std::path::Path::new(env!("CARGO_MANIFEST_DIR"))
            .join("../../fixtures/verify/witnesses")
            .join(name);
        ToolRun {
            command: "tool".into(),
            exit_code: Some(0),
            stdout: std::fs::read_to_string(path).unwrap(),
            ..ToolRun::default()
        }
    }

    const PID: u32 = 420157;
    const VRAM: u64 = 1061158912;

    #[test]
    fn the_recorded_process_lists_give_the_processes_vram() {
        for (key, file) in [
            (AMD_SMI_PROCESS, "amd-smi-process.json"),
            (ROCM_SMI_PIDS, "rocm-smi-showpids.json"),
            (XPU_SMI_PS, "xpu-smi-ps.json"),
        ] {
            let run = fixture(file);
            assert_eq!(
                process_seen(key, &run, PID),
                Ok(Seen::Bytes(VRAM)),
                "{file}"
            );
            assert_eq!(process_seen(key, &run, 7), Ok(Seen::Absent), "{file}");
        }
        let none = fixture("amd-smi-process-none.json");
        assert_eq!(process_seen(AMD_SMI_PROCESS, &none, PID), Ok(Seen::Absent));
    }

    #[test]
    fn the_recorded_device_readings_give_used_vram() {
        let bdf = "0000:03:00.0";
        let amd = fixture("amd-smi-metric-mem-usage.json");
        assert_eq!(device_used(AMD_SMI_METRIC, &amd, bdf), Ok(1931 << 20));
        let rocm = fixture("rocm-smi-showmeminfo-vram.json");
        assert_eq!(device_used(ROCM_SMI_MEMINFO, &rocm, bdf), Ok(2024849408));
        assert!(device_used(ROCM_SMI_MEMINFO, &rocm, "0000:04:00.0")
            .unwrap_err()
            .contains("no card at PCI 0000:04:00.0"));
        let xpu = fixture("xpu-smi-stats.json");
        assert_eq!(
            device_used(XPU_SMI_STATS, &xpu, bdf),
            Ok((1931.5 * MIB) as u64)
        );
    }

    #[test]
    fn other_output_is_a_reason_never_a_panic() {
        let garbage = ToolRun {
            exit_code: Some(0),
            stdout: "\u{fffd}\u{fffd}Segmentation fault\n".into(),
            ..ToolRun::default()
        };
        for key in [AMD_SMI_PROCESS, ROCM_SMI_PIDS, XPU_SMI_PS] {
            let e = process_seen(key, &garbage, 1).unwrap_err();
            assert!(e.contains("not the JSON its documentation shows"), "{e}");
        }
        // Valid JSON of another shape, numbers where strings are expected, and the reverse.
        for (key, out) in [
            (AMD_SMI_PROCESS, "{}"),
            (AMD_SMI_PROCESS, "[{\"gpu\": 0}]"),
            (ROCM_SMI_PIDS, "{\"system\": 5}"),
            (XPU_SMI_PS, "[]"),
        ] {
            let run = ToolRun {
                exit_code: Some(0),
                stdout: out.into(),
                ..ToolRun::default()
            };
            assert!(
                process_seen(key, &run, 1)
                    .unwrap_err()
                    .contains("kept raw in the record"),
                "{out}"
            );
        }
        let odd = ToolRun {
            exit_code: Some(0),
            stdout: "{\"system\": {\"PID1\": \"x, 1, UNKNOWN, 0, 0\"}}".into(),
            ..ToolRun::default()
        };
        assert!(matches!(
            process_seen(ROCM_SMI_PIDS, &odd, 1),
            Ok(Seen::Unknown(_))
        ));
        let two = ToolRun {
            exit_code: Some(0),
            stdout: "[{}, {}]".into(),
            ..ToolRun::default()
        };
        assert!(device_used(AMD_SMI_METRIC, &two, "x")
            .unwrap_err()
            .contains("2 GPUs listed"));
        let failed = ToolRun {
            command: "/opt/rocm/bin/amd-smi process --json".into(),
            exit_code: Some(2),
            stderr: "AMDSMI_STATUS_INIT_ERROR\n".into(),
            ..ToolRun::default()
        };
        assert_eq!(
            process_seen(AMD_SMI_PROCESS, &failed, 1).unwrap_err(),
            "amd-smi exited with Some(2): AMDSMI_STATUS_INIT_ERROR"
        );
    }
}
