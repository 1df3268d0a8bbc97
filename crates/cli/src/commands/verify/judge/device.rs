//! Which device the workload ran on, in the sources' terms: its identity in the snapshots
//! (UUID, PCI address), whether it is a CPU device no GPU source can see, and whether its
//! allocation is judged on VRAM or on the device's system memory (GTT).

use super::record::Record;
use gpuledger_lang::said::{Arg, Said};
use gpuledger_model::units::human_bytes;
use gpuledger_model::Snapshot;

/// The PCI address (normalised, `0000:03:00.0`) of the workload's device in one round: the Vulkan
/// device's own (VK_EXT_pci_bus_info), else the address the round reports for the device whose
/// UUID the workload gave. The AMD and Intel tools are asked for this device by it.
pub fn target_pci(rec: &Record, snap: &Snapshot) -> Option<String> {
    let norm = gpuledger_sources::sysfs::normalise_bus_id;
    let d = rec.device.as_ref()?;
    if let Some(b) = d.vulkan.as_ref().and_then(|v| v.pci_bus_id.as_deref()) {
        return Some(norm(b));
    }
    let uuid = d.uuid.as_deref()?;
    snap.devices
        .iter()
        .find(|x| x.uuid.eq_ignore_ascii_case(uuid))?
        .pci_bus_id
        .as_deref()
        .map(norm)
}

/// The name of the Vulkan device's driver (or the device) when it is a CPU device (lavapipe,
/// SwiftShader): its "device-local" heap is host memory, which no GPU source reports.
pub fn cpu_device(rec: &Record) -> Option<String> {
    let d = rec.device.as_ref()?;
    let v = d.vulkan.as_ref()?;
    (rec.path == "vulkan" && v.device_type == "cpu")
        .then(|| v.driver_name.clone().unwrap_or_else(|| d.name.clone()))
}

/// The snapshot's identity (`uuid`) of the device the workload ran on. CUDA: the driver's UUID
/// in NVML's spelling. Vulkan: the device whose PCI address matches VK_EXT_pci_bus_info's, else
/// the one whose UUID matches the Vulkan device UUID (NVIDIA reports NVML's), in any round.
pub fn target_uuid(rec: &Record) -> Result<String, Said> {
    let Some(d) = rec.device.as_ref() else {
        return Err(Said::new("report-verify-no-device-reported", vec![]));
    };
    let Some(v) = d.vulkan.as_ref() else {
        return d
            .uuid
            .clone()
            .ok_or_else(|| Said::new("report-verify-no-cuda-uuid", vec![]));
    };
    let devices = rec.steps.iter().flat_map(|s| &s.snapshot.devices);
    let norm = gpuledger_sources::sysfs::normalise_bus_id;
    if let Some(bus) = &v.pci_bus_id {
        let bus = norm(bus);
        if let Some(found) = devices
            .clone()
            .find(|x| x.pci_bus_id.as_deref().map(norm).as_deref() == Some(bus.as_str()))
        {
            return Ok(found.uuid.clone());
        }
    }
    if let Some(u) = &d.uuid {
        if let Some(found) = devices.clone().find(|x| x.uuid.eq_ignore_ascii_case(u)) {
            return Ok(found.uuid.clone());
        }
    }
    let reported = |v: Option<&str>| -> Arg {
        v.map_or_else(
            || Said::new("report-verify-pci-unknown", vec![]).into(),
            Arg::from,
        )
    };
    let said = vec![
        ("ordinal", d.ordinal.to_string().into()),
        ("name", d.name.as_str().into()),
        ("pci", reported(v.pci_bus_id.as_deref())),
        ("uuid", reported(v.device_uuid.as_deref())),
    ];
    Err(Said::new("report-verify-vulkan-unmatched", said))
}

/// Why a Vulkan allocation is judged on the device's system memory (GTT: amdgpu `gtt`, i915/xe
/// `system0`) instead of VRAM, or `None` for VRAM. It is system memory where the rounds report
/// the device's system memory and either no VRAM at all (an Intel integrated GPU) or less VRAM
/// than the device-local heap the workload allocated from (a heap that reaches past the VRAM is
/// not VRAM). Where the rounds report no system memory there is nothing else to judge: VRAM.
pub fn system_ledger(rec: &Record, uuid: &str) -> Option<Said> {
    let heap = rec.device.as_ref()?.vulkan.as_ref()?.heap_bytes;
    let dev = rec
        .steps
        .iter()
        .find_map(|s| s.snapshot.device_by_uuid(uuid))?;
    dev.system_memory.as_ref()?;
    match dev.memory.total_bytes {
        None | Some(0) => Some(Said::new("report-verify-gtt-no-vram", vec![])),
        // 5 % of slack: drivers report a heap a little under the VRAM they manage.
        Some(v) if heap > v + v / 20 => {
            let said = vec![
                ("heap", human_bytes(heap).into()),
                ("vram", human_bytes(v).into()),
            ];
            Some(Said::new("report-verify-gtt-heap", said))
        }
        Some(_) => None,
    }
}
