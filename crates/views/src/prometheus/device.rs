//! The device families: identity, memory with the books balanced, utilisation, power,
//! temperature, clocks.

use super::family::{bytes, pct, Family, Val};
use gpuledger_model::Device;

/// The `device`, `index` and `name` labels every per-device metric carries.
pub(super) fn device_labels<'a>(
    d: &'a Device,
    index: &'a str,
) -> [(&'static str, Option<&'a str>); 3] {
    [
        ("device", Some(d.uuid.as_str())),
        ("index", Some(index)),
        ("name", d.name.as_deref()),
    ]
}

/// A gauge read off a device: name, help, value (`None`: unknown, so no series).
pub(super) type DeviceGauge = (&'static str, &'static str, fn(&Device) -> Option<Val>);

/// The device gauges, in exposition order.
pub(super) const DEVICE_GAUGES: [DeviceGauge; 15] = [
    ("gpuledger_device_memory_total_bytes", "Device-local memory (VRAM) size, measured.", |d| bytes(d.memory.total_bytes)),
    ("gpuledger_device_memory_used_bytes", "Device-local memory in use, measured.", |d| bytes(d.memory.used_bytes)),
    ("gpuledger_device_memory_free_bytes", "Device-local memory free, measured.", |d| bytes(d.memory.free_bytes)),
    ("gpuledger_device_memory_reserved_bytes", "Device-local memory held back by the driver/firmware, measured.", |d| bytes(d.memory.reserved_bytes)),
    ("gpuledger_device_memory_attributed_bytes", "Sum of the known per-process memory on the device.", |d| Some(Val::U(d.ledger.attributed_bytes))),
    ("gpuledger_device_memory_unattributed_bytes", "Used minus attributed: driver, system, processes not visible or with unknown memory. Absent when used is unknown or processes add up to more than used.", |d| bytes(d.ledger.unattributed_bytes)),
    ("gpuledger_device_memory_over_attributed_bytes", "How far per-process memory exceeds device used (shared surfaces charged to several processes). Present only then.", |d| bytes(d.ledger.over_attributed_bytes)),
    ("gpuledger_device_processes_memory_unknown", "Processes on the device whose memory could not be read (their share is in unattributed).", |d| Some(Val::U(u64::from(d.ledger.unknown_processes)))),
    ("gpuledger_device_system_memory_total_bytes", "Device-visible system memory (GTT / WDDM shared) size, where reported.", |d| bytes(d.system_memory.and_then(|m| m.total_bytes))),
    ("gpuledger_device_system_memory_used_bytes", "Device-visible system memory in use, where reported.", |d| bytes(d.system_memory.and_then(|m| m.used_bytes))),
    ("gpuledger_device_utilization_ratio", "GPU busy over the driver's sample period (0..1).", |d| pct(d.utilization.gpu_percent)),
    ("gpuledger_device_memory_bandwidth_utilization_ratio", "Memory controller busy (bandwidth, not occupancy) over the driver's sample period (0..1).", |d| pct(d.utilization.memory_percent)),
    ("gpuledger_device_power_watts", "Power draw.", |d| d.power.usage_watts.map(Val::F)),
    ("gpuledger_device_power_limit_watts", "Enforced power limit.", |d| d.power.limit_watts.map(Val::F)),
    ("gpuledger_device_temperature_celsius", "GPU core temperature.", |d| d.temperature_c.map(|t| Val::F(f64::from(t)))),
];

/// Every device family: identity, the gauges of [`DEVICE_GAUGES`], then clocks by domain.
pub(super) fn devices(out: &mut String, devs: &[Device]) {
    let idx: Vec<String> = devs.iter().map(|d| d.index.to_string()).collect();
    per_device(
        out,
        "gpuledger_device_info",
        "Device identity (value is always 1); other device metrics carry the device, index and name labels.",
        devs,
        &idx,
        |f, d, [device, index, name]| {
            f.sample(
                &[
                    device,
                    index,
                    name,
                    ("vendor", Some(d.vendor.as_str())),
                    ("pci_bus_id", d.pci_bus_id.as_deref()),
                    ("driver_version", d.driver_version.as_deref()),
                    ("source", Some(&d.source)),
                ],
                Some(Val::U(1)),
            )
        },
    );
    for (name, help, get) in DEVICE_GAUGES {
        per_device(out, name, help, devs, &idx, |f, d, labels| {
            f.sample(&labels, get(d))
        });
    }
    per_device(
        out,
        "gpuledger_device_clock_hertz",
        "Current clock frequency by clock domain (graphics, sm, memory).",
        devs,
        &idx,
        |f, d, [a, b, c]| {
            for (clock, mhz) in [
                ("graphics", d.clocks.graphics_mhz),
                ("sm", d.clocks.sm_mhz),
                ("memory", d.clocks.memory_mhz),
            ] {
                f.sample(
                    &[a, b, c, ("clock", Some(clock))],
                    mhz.map(|m| Val::U(u64::from(m) * 1_000_000)),
                );
            }
        },
    );
}

/// One gauge family over the devices: `each` writes a device's samples, given its
/// [`device_labels`]. `idx` holds each device's index as text (labels borrow it).
pub(super) fn per_device<'d>(
    out: &mut String,
    name: &'static str,
    help: &'static str,
    devs: &'d [Device],
    idx: &'d [String],
    mut each: impl FnMut(&mut Family, &'d Device, [(&'static str, Option<&'d str>); 3]),
) {
    let mut f = Family::new(out, name, "gauge", help);
    for (d, i) in devs.iter().zip(idx) {
        each(&mut f, d, device_labels(d, i));
    }
}
