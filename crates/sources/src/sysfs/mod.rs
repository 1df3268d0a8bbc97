//! Device telemetry for DRM devices (amdgpu, i915, xe, others) from sysfs.
//!
//! Devices are found under `<sys>/class/drm/{card*,renderD*}` and, for compute accelerators
//! (`drivers/accel`: the AMD XDNA NPU, ...), `<sys>/class/accel/accel*`, whose nodes work like
//! DRM's (`/dev/accel/accelN`, fdinfo with `drm-*` keys). A PCI device is identified by its slot
//! from `device/uevent` (`PCI_SLOT_NAME`, `DRIVER`, `PCI_ID`): generic PCI files that never wake
//! the device. A platform device (Arm SoC GPUs: panfrost, panthor, msm) has no PCI slot; it is
//! identified by its device name (`fde60000.gpu`), which is not a PCI bus id and never reported
//! as one. The driver's own files (amdgpu `mem_info_*`, `gpu_busy_percent`, hwmon) take a
//! runtime-PM reference, which powers a sleeping dGPU up; so `power/runtime_status` is read first
//! and a suspended device is reported as suspended, with its live values null and that reason.

use crate::drm::fdinfo::is_pci_slot;
use gpuledger_model::{Device, Memory, Vendor};
use std::collections::BTreeMap;
use std::fs;
use std::io;
use std::path::{Path, PathBuf};

/// One DRM device (all its nodes together).
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct DrmCard {
    /// PCI slot, lower-case (`0000:03:00.0`); for a non-PCI device the node's device link name
    /// (`fde60000.gpu`).
    pub slot: String,
    pub driver: Option<String>,
    /// `vendor:device` from `PCI_ID` (`1002:744C`).
    pub pci_id: Option<String>,
    /// First device-tree `compatible` string of a platform device (`rockchip,rk3568-mali`).
    pub compatible: Option<String>,
    pub vendor: Vendor,
    /// Node names (`card0`, `renderD128`), sorted.
    pub nodes: Vec<String>,
    /// `<sys>/class/drm/cardN` (the first node found) and its `device` directory.
    pub node_dir: PathBuf,
    pub device_dir: PathBuf,
}

impl DrmCard {
    /// The device's uuid in snapshots (see [`uuid_for_slot`]).
    pub fn uuid(&self) -> String {
        uuid_for_slot(&self.slot)
    }

    /// On PCI (its slot is a PCI address), as opposed to a platform device.
    pub fn is_pci(&self) -> bool {
        is_pci_slot(&self.slot)
    }
}

/// The one identity rule for DRM and accel devices, used whichever source sees the device
/// (sysfs or fdinfo alone): `pci-<slot>` for a PCI address, `drm-<name>` for anything else (a
/// platform device name such as `fde60000.gpu`, or a bare node name when sysfs could not
/// say which device a node belongs to). Both are stable across reboots on fixed hardware.
pub fn uuid_for_slot(slot: &str) -> String {
    if is_pci_slot(slot) {
        format!("pci-{slot}")
    } else {
        format!("drm-{slot}")
    }
}

/// NVML prints 8-digit domains (`00000000:18:00.0`), fdinfo and sysfs 4 (`0000:18:00.0`).
pub fn normalise_bus_id(id: &str) -> String {
    let id = id.trim().to_ascii_lowercase();
    // Both print the domain with at least four hex digits (`%04x`): re-print it that way.
    match id.split_once(':') {
        Some((dom, rest)) if dom.len() > 4 => match u32::from_str_radix(dom, 16) {
            Ok(d) => format!("{d:04x}:{rest}"),
            Err(_) => id,
        },
        _ => id,
    }
}

pub fn vendor_of(pci_id: Option<&str>, driver: Option<&str>) -> Vendor {
    let by_id = pci_id
        .and_then(|id| id.split(':').next())
        .map(|v| v.to_ascii_lowercase());
    match by_id.as_deref() {
        // 1022 is AMD's other PCI vendor id (the XDNA NPU is 1022:1502).
        Some("1002" | "1022") => return Vendor::Amd,
        Some("8086") => return Vendor::Intel,
        Some("10de") => return Vendor::Nvidia,
        _ => {}
    }
    match driver {
        // amdxdna prints `drm-driver: amdxdna_accel_driver` in fdinfo (nokyan/resources#417);
        // its sysfs driver directory is `amdxdna`.
        Some("amdgpu" | "radeon" | "amdxdna" | "amdxdna_accel_driver") => Vendor::Amd,
        Some("i915" | "xe") => Vendor::Intel,
        Some("nvidia" | "nvidia-drm" | "nouveau") => Vendor::Nvidia,
        _ => Vendor::Unknown,
    }
}

fn is_node(name: &str, prefixes: &[&str]) -> bool {
    prefixes.iter().any(|p| {
        name.strip_prefix(p)
            .is_some_and(|n| !n.is_empty() && n.bytes().all(|b| b.is_ascii_digit()))
    })
}

/// Every DRM device under `<sys>/class/drm` and every accelerator under `<sys>/class/accel`,
/// sorted by slot. Connectors (`card0-DP-1`) are skipped. An error (`class/drm`'s) only when
/// neither directory can be listed: a machine may have either without the other.
pub fn discover(sys_root: &Path) -> io::Result<Vec<DrmCard>> {
    let list = |class: &Path, prefixes: &[&str]| -> io::Result<Vec<PathBuf>> {
        Ok(fs::read_dir(class)?
            .filter_map(|e| e.ok()?.file_name().into_string().ok())
            .filter(|n| is_node(n, prefixes))
            .map(|n| class.join(n))
            .collect())
    };
    let mut nodes = match (
        list(&sys_root.join("class/drm"), &["card", "renderD"]),
        list(&sys_root.join("class/accel"), &["accel"]),
    ) {
        (Err(e), Err(_)) => return Err(e),
        (drm, accel) => {
            let mut n = drm.unwrap_or_default();
            n.extend(accel.unwrap_or_default());
            n
        }
    };
    let mut by_slot: BTreeMap<String, DrmCard> = BTreeMap::new();
    let name_of = |p: &PathBuf| {
        p.file_name()
            .and_then(|n| n.to_str())
            .unwrap_or_default()
            .to_string()
    };
    // card* before renderD*, so a card's node_dir is the cardN directory (i915 puts its
    // frequency files there).
    nodes.sort_by_key(|p| {
        let n = name_of(p);
        (!n.starts_with("card"), n.len(), n)
    });
    for node_dir in nodes {
        let name = name_of(&node_dir);
        let device_dir = node_dir.join("device");
        let uevent = fs::read_to_string(device_dir.join("uevent")).unwrap_or_default();
        let field = |k: &str| {
            uevent
                .lines()
                .find_map(|l| l.strip_prefix(k)?.strip_prefix('='))
                .map(|v| v.trim().to_string())
        };
        let slot = field("PCI_SLOT_NAME")
            .map(|s| s.to_ascii_lowercase())
            .or_else(|| {
                fs::read_link(&device_dir)
                    .ok()?
                    .file_name()?
                    .to_str()
                    .map(|s| s.to_ascii_lowercase())
            });
        let Some(slot) = slot else { continue };
        let driver = field("DRIVER").or_else(|| {
            fs::read_link(device_dir.join("driver"))
                .ok()?
                .file_name()?
                .to_str()
                .map(String::from)
        });
        let pci_id = field("PCI_ID");
        let compatible = field("OF_COMPATIBLE_0");
        let card = by_slot.entry(slot.clone()).or_insert_with(|| DrmCard {
            vendor: vendor_of(pci_id.as_deref(), driver.as_deref()),
            slot,
            driver,
            pci_id,
            compatible,
            nodes: Vec::new(),
            node_dir,
            device_dir,
        });
        card.nodes.push(name);
    }
    Ok(by_slot.into_values().collect())
}

/// Node name (`renderD128`) → slot, for clients whose fdinfo has no `drm-pdev`.
pub fn node_map(cards: &[DrmCard]) -> BTreeMap<String, String> {
    cards
        .iter()
        .flat_map(|c| c.nodes.iter().map(move |n| (n.clone(), c.slot.clone())))
        .collect()
}

/// `cardN` device for the snapshot, with what sysfs tells without waking it.
pub fn device(card: &DrmCard, index: u32) -> Device {
    let mut dev = Device::new(index, card.vendor, card.uuid(), "sysfs");
    // A platform device's name is not a PCI bus id.
    dev.pci_bus_id = card.is_pci().then(|| card.slot.clone());
    let vendor_word = match card.vendor {
        Vendor::Amd => "AMD",
        Vendor::Intel => "Intel",
        Vendor::Nvidia => "NVIDIA",
        Vendor::Apple => "Apple",
        Vendor::Unknown => "GPU",
    };
    dev.name = Some(
        read_trim(&card.device_dir.join("product_name"))
            .ok()
            .filter(|s| !s.is_empty())
            .unwrap_or_else(|| {
                let driver = card.driver.as_deref().unwrap_or("drm");
                if card.is_pci() {
                    format!(
                        "{vendor_word} {driver} [{}]",
                        card.pci_id.as_deref().unwrap_or("?")
                    )
                } else {
                    // No PCI id to show: the device-tree compatible says which part it is.
                    match &card.compatible {
                        Some(c) => format!("{driver} {c} ({})", card.slot),
                        None => format!("{driver} ({})", card.slot),
                    }
                }
            }),
    );
    dev.driver_version = card.driver.clone();
    read_telemetry(card, &mut dev);
    dev
}

const LIVE_FIELDS: [&str; 8] = [
    "memory.used_bytes",
    "memory.total_bytes",
    "utilization.gpu_percent",
    "utilization.memory_percent",
    "temperature_c",
    "power.usage_watts",
    "power.limit_watts",
    "clocks.graphics_mhz",
];

/// Fill the live values of `dev` from sysfs, unless the device is runtime-suspended.
pub fn read_telemetry(card: &DrmCard, dev: &mut Device) {
    let d = &card.device_dir;
    let state = read_trim(&d.join("power/runtime_status")).ok();
    if let Some(s) = state.as_deref() {
        dev.power_state = Some(s.to_string());
        if s == "suspended" || s == "suspending" {
            let why = format!(
                "device is runtime-suspended (power/runtime_status = {s}); not sampled, since reading the driver's counters would wake it"
            );
            for f in LIVE_FIELDS {
                dev.mark_unavailable(f, why.clone());
            }
            return;
        }
    }
    let driver = card.driver.as_deref().unwrap_or("unknown");
    match driver {
        "amdgpu" => amdgpu(d, dev),
        "i915" | "xe" => intel(card, driver, dev),
        _ => {
            for f in ["memory.used_bytes", "memory.total_bytes"] {
                dev.mark_unavailable(
                    f,
                    format!("driver {driver} exposes no memory counters in sysfs"),
                );
            }
            dev.mark_unavailable(
                "utilization.gpu_percent",
                format!("driver {driver} exposes no busy counter in sysfs"),
            );
        }
    }
    hwmon(d, driver, dev);
    pcie(d, dev);
}

fn amdgpu(d: &Path, dev: &mut Device) {
    let total = field_u64(d, "mem_info_vram_total", "memory.total_bytes", dev);
    let used = field_u64(d, "mem_info_vram_used", "memory.used_bytes", dev);
    dev.memory.total_bytes = total;
    dev.memory.used_bytes = used;
    dev.memory.free_bytes = match (total, used) {
        (Some(t), Some(u)) => Some(t.saturating_sub(u)),
        _ => None,
    };
    dev.mark_unavailable(
        "memory.reserved_bytes",
        "amdgpu does not report reserved VRAM separately in sysfs",
    );
    let gtt_total = read_u64(&d.join("mem_info_gtt_total")).ok();
    let gtt_used = read_u64(&d.join("mem_info_gtt_used")).ok();
    if gtt_total.is_some() || gtt_used.is_some() {
        dev.system_memory = Some(Memory {
            total_bytes: gtt_total,
            used_bytes: gtt_used,
            free_bytes: gtt_total.zip(gtt_used).map(|(t, u)| t.saturating_sub(u)),
            reserved_bytes: None,
        });
    }
    dev.utilization.gpu_percent = field_u64(d, "gpu_busy_percent", "utilization.gpu_percent", dev)
        .and_then(|v| u32::try_from(v).ok());
    dev.utilization.memory_percent =
        field_u64(d, "mem_busy_percent", "utilization.memory_percent", dev)
            .and_then(|v| u32::try_from(v).ok());
}

fn intel(card: &DrmCard, driver: &str, dev: &mut Device) {
    let why = format!(
        "{driver} reports device memory only through its DRM query ioctl, which gpuledger does not call; integrated parts have no dedicated memory (their buffers are system memory, see per-process GTT)"
    );
    dev.mark_unavailable("memory.total_bytes", why.clone());
    dev.mark_unavailable("memory.used_bytes", why);
    let busy = format!(
        "{driver} has no device busy-percent file; per-process engine use comes from fdinfo"
    );
    dev.mark_unavailable("utilization.gpu_percent", busy.clone());
    dev.mark_unavailable("utilization.memory_percent", busy);
    // i915: card-level gt_act_freq_mhz (actual) or gt_cur_freq_mhz (requested);
    // xe: per-GT freq directory.
    let candidates = [
        card.node_dir.join("gt_act_freq_mhz"),
        card.node_dir.join("gt_cur_freq_mhz"),
        card.device_dir.join("tile0/gt0/freq0/act_freq"),
        card.device_dir.join("tile0/gt0/freq0/cur_freq"),
    ];
    match candidates.iter().find_map(|p| read_u64(p).ok()) {
        Some(mhz) => dev.clocks.graphics_mhz = u32::try_from(mhz).ok(),
        None => dev.mark_unavailable(
            "clocks.graphics_mhz",
            format!("no {driver} frequency file (gt_act_freq_mhz / tile0/gt0/freq0/act_freq)"),
        ),
    }
}

fn hwmon(d: &Path, driver: &str, dev: &mut Device) {
    let dir = fs::read_dir(d.join("hwmon")).ok().and_then(|rd| {
        let mut v: Vec<PathBuf> = rd.flatten().map(|e| e.path()).collect();
        v.sort();
        v.into_iter().next()
    });
    let Some(h) = dir else {
        let why = format!("no hwmon directory for this {driver} device");
        for f in ["temperature_c", "power.usage_watts", "power.limit_watts"] {
            dev.mark_unavailable(f, why.clone());
        }
        return;
    };
    match read_u64(&h.join("temp1_input")) {
        // millidegrees Celsius
        Ok(m) => dev.temperature_c = i32::try_from(m / 1000).ok(),
        Err(e) => dev.mark_unavailable("temperature_c", format!("hwmon temp1_input: {e}")),
    }
    // microwatts; amdgpu has power1_average and/or power1_input depending on the ASIC.
    match read_u64(&h.join("power1_average")).or_else(|_| read_u64(&h.join("power1_input"))) {
        Ok(uw) => dev.power.usage_watts = Some(uw as f64 / 1e6),
        Err(_) if h.join("energy1_input").exists() => dev.mark_unavailable(
            "power.usage_watts",
            "this driver reports a cumulative energy counter (hwmon energy1_input), not power; a rate over two rounds is not implemented",
        ),
        Err(e) => dev.mark_unavailable("power.usage_watts", format!("hwmon power1_average/power1_input: {e}")),
    }
    // amdgpu: power1_cap; i915/xe: power1_max (0 = no limit set).
    match read_u64(&h.join("power1_cap")).or_else(|_| read_u64(&h.join("power1_max"))) {
        Ok(0) => dev.mark_unavailable("power.limit_watts", "power limit disabled (0)"),
        Ok(uw) => dev.power.limit_watts = Some(uw as f64 / 1e6),
        Err(e) => dev.mark_unavailable(
            "power.limit_watts",
            format!("hwmon power1_cap/power1_max: {e}"),
        ),
    }
    // amdgpu: freq1_input (sclk) and freq2_input (mclk) in Hz.
    if let Ok(hz) = read_u64(&h.join("freq1_input")) {
        dev.clocks.graphics_mhz = u32::try_from(hz / 1_000_000).ok();
    }
    if let Ok(hz) = read_u64(&h.join("freq2_input")) {
        dev.clocks.memory_mhz = u32::try_from(hz / 1_000_000).ok();
    }
}

fn pcie(d: &Path, dev: &mut Device) {
    let gen = |f: &str| read_trim(&d.join(f)).ok().and_then(|s| link_gen(&s));
    let width = |f: &str| {
        read_u64(&d.join(f))
            .ok()
            .and_then(|v| u32::try_from(v).ok())
    };
    if !d.join("current_link_speed").exists() {
        let why = "no PCIe link attributes (current_link_speed) for this device: integrated or not on PCIe";
        for f in ["pcie.link_gen", "pcie.link_width"] {
            dev.mark_unavailable(f, why);
        }
    }
    dev.pcie.link_gen = gen("current_link_speed");
    dev.pcie.max_link_gen = gen("max_link_speed");
    dev.pcie.link_width = width("current_link_width");
    dev.pcie.max_link_width = width("max_link_width");
}

/// `16.0 GT/s PCIe` → 4.
pub fn link_gen(speed: &str) -> Option<u32> {
    let gts: f64 = speed.split_whitespace().next()?.parse().ok()?;
    [
        (2.5, 1),
        (5.0, 2),
        (8.0, 3),
        (16.0, 4),
        (32.0, 5),
        (64.0, 6),
        (128.0, 7),
    ]
    .iter()
    .find(|(s, _)| (gts - s).abs() < 0.01)
    .map(|&(_, g)| g)
}

fn field_u64(d: &Path, file: &str, field: &str, dev: &mut Device) -> Option<u64> {
    match read_u64(&d.join(file)) {
        Ok(v) => Some(v),
        Err(e) => {
            dev.mark_unavailable(field, format!("{file}: {e}"));
            None
        }
    }
}

fn read_trim(p: &Path) -> io::Result<String> {
    // sysfs attributes are at most a page; bound what a stray regular file can cost.
    use std::io::Read;
    let mut s = String::new();
    fs::File::open(p)?.take(4096).read_to_string(&mut s)?;
    Ok(s.trim().to_string())
}

/// A sysfs number, with an error in words (`not present`, `not a number: "x"`).
pub fn read_u64(p: &Path) -> Result<u64, String> {
    match read_trim(p) {
        Ok(s) => s.parse().map_err(|_| format!("not a number: {s:?}")),
        Err(e) if e.kind() == io::ErrorKind::NotFound => Err("not present".into()),
        Err(e) => Err(e.to_string()),
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn bus_ids_normalise() {
        assert_eq!(normalise_bus_id("00000000:18:00.0"), "0000:18:00.0");
        assert_eq!(normalise_bus_id("0000:C4:00.0"), "0000:c4:00.0");
        assert_eq!(normalise_bus_id("00010000:01:00.0"), "10000:01:00.0");
    }

    #[test]
    fn link_generations() {
        assert_eq!(link_gen("16.0 GT/s PCIe"), Some(4));
        assert_eq!(link_gen("2.5 GT/s PCIe"), Some(1));
        assert_eq!(link_gen("Unknown"), None);
    }

    #[test]
    fn one_identity_rule_for_pci_and_platform_devices() {
        assert_eq!(uuid_for_slot("0000:03:00.0"), "pci-0000:03:00.0");
        assert_eq!(uuid_for_slot("fde60000.gpu"), "drm-fde60000.gpu");
        assert_eq!(uuid_for_slot("renderD128"), "drm-renderD128");
    }

    #[test]
    fn vendors() {
        assert_eq!(vendor_of(Some("1002:744C"), None), Vendor::Amd);
        assert_eq!(vendor_of(None, Some("xe")), Vendor::Intel);
        assert_eq!(vendor_of(Some("1022:1502"), None), Vendor::Amd);
        assert_eq!(vendor_of(None, Some("amdxdna_accel_driver")), Vendor::Amd);
        assert_eq!(
            vendor_of(Some("1234:5678"), Some("virtio_gpu")),
            Vendor::Unknown
        );
    }
}
