//! `gpuledger verify`'s report: what was allocated where, what each source should have seen,
//! and each source's verdict (lined up by the one aligner, [`Columns`]).

use crate::columns::{Align, Columns};
use gpuledger_model::units::human_bytes;
use gpuledger_model::verdict::VerdictKind;

/// The device the verification workload ran on, as its API names it.
#[derive(Debug, Clone)]
pub enum VerifyDevice<'a> {
    Cuda {
        ordinal: i32,
        name: &'a str,
        uuid: Option<&'a str>,
        cuda_version: Option<&'a str>,
    },
    Vulkan {
        ordinal: i32,
        name: &'a str,
        /// `cpu`, `discrete-gpu`, ...
        device_type: &'a str,
        driver_name: Option<&'a str>,
        driver_info: Option<&'a str>,
        pci_bus_id: Option<&'a str>,
        api_version: &'a str,
    },
}

/// One source's verdict.
#[derive(Debug, Clone)]
pub struct VerdictLine<'a> {
    /// `nvml (per process)`, `nvidia-smi`, ...
    pub source: &'a str,
    /// `ok`, `off`, `cannot see`, `not implemented`, `not run`, `not installed`.
    pub verdict: VerdictKind,
    /// The verdict in words.
    pub text: &'a str,
    /// Another tool's reading beside gpuledger's own (it does not count for the exit status).
    pub witness: bool,
}

/// Everything the text report shows.
#[derive(Debug, Clone, Default)]
pub struct VerifyReport<'a> {
    /// A replayed record: its path and when it was recorded.
    pub replay: Option<(&'a str, &'a str)>,
    pub size_bytes: u64,
    pub tolerance_bytes: u64,
    pub child_pid: Option<u32>,
    pub device: Option<VerifyDevice<'a>>,
    /// Each workload path (`cuda`, `vulkan`) and what became of it.
    pub paths: Vec<(&'a str, &'a str)>,
    /// Why the verdicts are judged on system memory (GTT), when they are.
    pub system_ledger: Option<String>,
    /// The CPU device the workload ran on, when it did (no source can see its memory).
    pub cpu_device: Option<String>,
    pub verdicts: Vec<VerdictLine<'a>>,
    pub notes: &'a [String],
}

pub fn render_verify(r: &VerifyReport) -> String {
    let mut s = String::new();
    if let Some((path, taken_at)) = r.replay {
        s.push_str(&format!("REPLAY of {path} (recorded {taken_at})\n"));
    }
    let dev = r.device.as_ref().map_or_else(|| "?".into(), device_line);
    s.push_str(&format!(
        "gpuledger verify: {} allocated and written by PID {} on {dev}\n",
        human_bytes(r.size_bytes),
        r.child_pid.map_or_else(|| "?".into(), |p| p.to_string())
    ));
    for (path, why) in &r.paths {
        s.push_str(&format!("  path {path}: {why}\n"));
    }
    if let Some(why) = &r.system_ledger {
        s.push_str(&format!("  judged on system memory (GTT): {why}\n"));
    }
    if let Some(driver) = &r.cpu_device {
        s.push_str(&format!(
            "expected: nothing any source can see: {driver} is a CPU device, its memory is the host's (no VRAM, no GPU counter).\n\n"
        ));
    } else {
        s.push_str(&format!(
            "expected: the child absent, then listed with a context, +{0} when it allocates, -{0} when it frees, gone after it exits; device used moving with it; unattributed not moving. Tolerance {1} (2 MiB allocation granularity plus driver bookkeeping).\n\n",
            human_bytes(r.size_bytes),
            human_bytes(r.tolerance_bytes)
        ));
    }
    let rows: Vec<Vec<String>> = r
        .verdicts
        .iter()
        .map(|v| vec![v.source.to_string(), verdict_text(v)])
        .collect();
    s.push_str(
        &Columns::new(&[Align::Left, Align::Left])
            .indent("  ")
            .render(&rows),
    );
    for n in r.notes {
        s.push_str(&format!("note: {n}\n"));
    }
    s
}

/// The verdict in words; a witness that gave a reading is marked as one.
fn verdict_text(v: &VerdictLine) -> String {
    if v.witness && v.verdict.is_reading() {
        format!("{}  [second witness]", v.text)
    } else {
        v.text.to_string()
    }
}

/// `CUDA device 0 NVIDIA H200 (GPU-…), CUDA 12.4`, or the Vulkan device with its type, driver
/// and PCI address.
fn device_line(d: &VerifyDevice) -> String {
    match d {
        VerifyDevice::Cuda {
            ordinal,
            name,
            uuid,
            cuda_version,
        } => format!(
            "CUDA device {ordinal} {name} ({}), CUDA {}",
            uuid.unwrap_or("no UUID"),
            cuda_version.unwrap_or("?")
        ),
        VerifyDevice::Vulkan {
            ordinal,
            name,
            device_type,
            driver_name,
            driver_info,
            pci_bus_id,
            api_version,
        } => format!(
            "Vulkan device {ordinal} {name} ({device_type}{}, PCI {}), Vulkan {api_version}",
            [driver_name, driver_info]
                .iter()
                .filter_map(|x| **x)
                .map(|x| format!(", {x}"))
                .collect::<String>(),
            pci_bus_id.unwrap_or("not reported"),
        ),
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn verdicts_line_up_and_witnesses_with_a_reading_are_marked() {
        let v = |source, verdict, text, witness| VerdictLine {
            source,
            verdict,
            text,
            witness,
        };
        let r = VerifyReport {
            size_bytes: 1 << 30,
            tolerance_bytes: 64 << 20,
            child_pid: Some(77),
            device: Some(VerifyDevice::Vulkan {
                ordinal: 0,
                name: "llvmpipe",
                device_type: "cpu",
                driver_name: Some("llvmpipe"),
                driver_info: None,
                pci_bus_id: None,
                api_version: "1.3.230",
            }),
            cpu_device: Some("llvmpipe".into()),
            verdicts: vec![
                v("nvml (per process)", VerdictKind::Ok, "ok", false),
                v("rocm-smi", VerdictKind::Ok, "ok", true),
                v(
                    "nvidia-smi",
                    VerdictKind::NotInstalled,
                    "not installed",
                    true,
                ),
            ],
            ..VerifyReport::default()
        };
        let s = render_verify(&r);
        assert!(
            s.contains(
                "on Vulkan device 0 llvmpipe (cpu, llvmpipe, PCI not reported), Vulkan 1.3.230\n"
            ),
            "{s}"
        );
        assert!(s.contains("llvmpipe is a CPU device"), "{s}");
        assert!(
            s.ends_with(
                "  nvml (per process)  ok\n  rocm-smi            ok  [second witness]\n  nvidia-smi          not installed\n"
            ),
            "{s}"
        );
    }
}
