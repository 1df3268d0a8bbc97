//! The NVIDIA driver's own list of its GPUs, `/proc/driver/nvidia/gpus/<PCI address>/information`
//! (one small `Key: value` file per GPU, world-readable): each GPU's UUID, PCI address and
//! device node number, `/dev/nvidia<minor>`. GKE's device plugin names GPUs by that node
//! (`nvidia0/vgpu1`), which NVML's UUIDs and indices do not give.

use super::read::{read_into, Records};
use std::path::Path;

/// GPUs read at most (a node has at most a few dozen).
const MAX_GPUS: usize = 256;
/// The file is about 400 bytes.
const MAX_FILE: usize = 16 << 10;

/// One GPU as the driver lists it.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct DriverGpu {
    /// `GPU-…`, when the file has it.
    pub uuid: Option<String>,
    /// `Bus Location`, `0000:18:00.0`.
    pub bus: Option<String>,
    /// `Device Minor`: the N of `/dev/nvidia<N>`.
    pub minor: u32,
}

/// Every GPU under `<proc_root>/driver/nvidia/gpus`, or why none could be read.
pub fn driver_gpus(proc_root: &Path) -> Result<Vec<DriverGpu>, String> {
    let dir = proc_root.join("driver/nvidia/gpus");
    let entries = std::fs::read_dir(&dir).map_err(|e| format!("{}: {e}", dir.display()))?;
    let mut out = Vec::new();
    let mut buf = Vec::new();
    for e in entries.flatten().take(MAX_GPUS) {
        let path = e.path().join("information");
        if read_into(&path, &mut buf, MAX_FILE, Records::One).is_ok() {
            out.extend(parse_information(&String::from_utf8_lossy(&buf)));
        }
    }
    Ok(out)
}

/// One `information` file; `None` without a `Device Minor` line.
pub fn parse_information(text: &str) -> Option<DriverGpu> {
    let (mut uuid, mut bus, mut minor) = (None, None, None);
    for line in text.lines() {
        let Some((key, value)) = line.split_once(':') else {
            continue;
        };
        let value = value.trim();
        match key.trim() {
            "GPU UUID" if value.starts_with("GPU-") => uuid = Some(value.to_string()),
            "Bus Location" => bus = Some(value.to_string()),
            "Device Minor" => minor = value.parse().ok(),
            _ => {}
        }
    }
    Some(DriverGpu {
        uuid,
        bus,
        minor: minor?,
    })
}

/// The device node number of the GPU with this UUID or PCI address (NVML writes the domain
/// with eight digits, `00000000:18:00.0`, the driver's file with four).
pub fn minor_of(gpus: &[DriverGpu], uuid: &str, pci_bus_id: Option<&str>) -> Option<u32> {
    let by_uuid = gpus.iter().find(|g| {
        g.uuid
            .as_deref()
            .is_some_and(|u| u.eq_ignore_ascii_case(uuid))
    });
    let by_bus = || {
        let want = normal_bus(pci_bus_id?)?;
        gpus.iter()
            .find(|g| g.bus.as_deref().and_then(normal_bus).as_ref() == Some(&want))
    };
    by_uuid.or_else(by_bus).map(|g| g.minor)
}

/// `(domain, "bus:device.function")`, the rest lower-cased.
fn normal_bus(s: &str) -> Option<(u32, String)> {
    let (domain, rest) = s.split_once(':')?;
    Some((
        u32::from_str_radix(domain, 16).ok()?,
        rest.to_ascii_lowercase(),
    ))
}

#[cfg(test)]
mod tests {
    use super::*;

    /// The layout of the driver's file (535-series driver; tabs as it writes them).
    const INFO: &str = "Model: \t\t NVIDIA H100 80GB HBM3\nIRQ:   \t\t 0\n\
        GPU UUID: \t GPU-5c9e2a4b-1f3d-4e6a-9b8c-7d0e1f2a3b4c\nVideo BIOS: \t 96.00.74.00.0d\n\
        Bus Type: \t PCIe\nDMA Size: \t 52 bits\nDMA Mask: \t 0xfffffffffffff\n\
        Bus Location: \t 0000:1B:00.0\nDevice Minor: \t 3\nGPU Excluded:\t No\n";

    #[test]
    fn the_information_file_gives_uuid_bus_and_minor() {
        let g = parse_information(INFO).unwrap();
        assert_eq!(g.minor, 3);
        assert_eq!(
            g.uuid.as_deref(),
            Some("GPU-5c9e2a4b-1f3d-4e6a-9b8c-7d0e1f2a3b4c")
        );
        assert_eq!(g.bus.as_deref(), Some("0000:1B:00.0"));
        assert_eq!(
            parse_information("Model: x\nBus Location: 0000:1b:00.0\n"),
            None
        );
        let gpus = [g];
        let uuid = "gpu-5c9e2a4b-1f3d-4e6a-9b8c-7d0e1f2a3b4c";
        assert_eq!(minor_of(&gpus, uuid, None), Some(3));
        // No UUID match: the PCI address, NVML's eight-digit domain against the driver's four.
        assert_eq!(
            minor_of(&gpus, "GPU-other", Some("00000000:1b:00.0")),
            Some(3)
        );
        assert_eq!(minor_of(&gpus, "GPU-other", Some("00000000:1c:00.0")), None);
        assert_eq!(minor_of(&gpus, "GPU-other", None), None);
    }

    #[test]
    fn a_recorded_tree_is_read_and_a_missing_one_says_where() {
        let dir = tempfile::tempdir().unwrap();
        for (bus, info) in [
            ("0000:1b:00.0", INFO.to_string()),
            (
                "0000:3d:00.0",
                INFO.replace("1B", "3D")
                    .replace("Minor: \t 3", "Minor: \t 0"),
            ),
        ] {
            let d = dir.path().join("driver/nvidia/gpus").join(bus);
            std::fs::create_dir_all(&d).unwrap();
            std::fs::write(d.join("information"), info).unwrap();
        }
        let mut minors: Vec<u32> = driver_gpus(dir.path())
            .unwrap()
            .iter()
            .map(|g| g.minor)
            .collect();
        minors.sort();
        assert_eq!(minors, [0, 3]);
        let e = driver_gpus(&dir.path().join("none")).unwrap_err();
        // The path as this platform writes it (the Windows build joins with `\`).
        let missing = dir.path().join("none").join("driver/nvidia/gpus");
        assert!(e.contains(&missing.display().to_string()), "{e}");
    }
}
