//! The dcgm-exporter-compatible device family (`serve --dcgm-compat`, off by default), so that
//! dashboards and alerts written for NVIDIA's dcgm-exporter (the stock "NVIDIA DCGM Exporter
//! Dashboard" among them) read gpuledger's device figures unchanged.
//!
//! Names, units, help texts and labels are dcgm-exporter's own, from NVIDIA/dcgm-exporter
//! `etc/default-counters.csv` (the default counters: `DCGM_FI_DEV_FB_USED` and `_FB_FREE` in
//! MiB, `DCGM_FI_DEV_GPU_UTIL` and `_MEM_COPY_UTIL` in %, `DCGM_FI_DEV_GPU_TEMP` in °C,
//! `DCGM_FI_DEV_POWER_USAGE` in W, `DCGM_FI_DEV_SM_CLOCK` and `_MEM_CLOCK` in MHz, and
//! `DCGM_FI_DRIVER_VERSION` as a label) and `internal/pkg/rendermetrics/render_metrics.go` (the
//! label set: `gpu`, `UUID`, `pci_bus_id`, `device` = `nvidia<gpu>`, `modelName`, `Hostname`),
//! as released up to 4.5.3-4.8.2; its main branch renamed `Hostname` to `hostname` after that
//! release (commit d5e5f51, #655), which no release carries yet.
//!
//! Kubernetes: like dcgm-exporter's default mapping, a GPU the kubelet assigned to one container
//! (the snapshot's `device_assignments`, from its pod-resources API) gets that container's
//! `pod`, `namespace` and `container` labels. A GPU shared by several containers (time-slicing
//! replicas `<UUID>::<n>`) gets none: dcgm-exporter's default mode would name whichever it
//! listed last, and its `KubernetesVirtualGPUs` mode repeats the device's figures once per pod,
//! which a sum would count several times. Per-pod memory on a shared GPU is
//! `gpuledger_owner_memory_bytes` and the per-process `namespace`/`pod` labels instead.
//! Profiling fields (`DCGM_FI_PROF_*`) have no source in gpuledger and are absent. Only NVIDIA
//! devices are exported (DCGM covers nothing else); unknown values are absent, never 0.

use super::family::{Family, Val};
use gpuledger_model::{Device, Snapshot, Vendor};

const MIB: u64 = 1 << 20;

/// A DCGM field: name, dcgm-exporter's help text, value.
type Field = (&'static str, &'static str, fn(&Device) -> Option<Val>);

/// The fields, in dcgm-exporter's `default-counters.csv` order.
const FIELDS: [Field; 9] = [
    (
        "DCGM_FI_DEV_SM_CLOCK",
        "SM clock frequency (in MHz).",
        |d| d.clocks.sm_mhz.map(|v| Val::U(v.into())),
    ),
    (
        "DCGM_FI_DEV_MEM_CLOCK",
        "Memory clock frequency (in MHz).",
        |d| d.clocks.memory_mhz.map(|v| Val::U(v.into())),
    ),
    ("DCGM_FI_DEV_GPU_TEMP", "GPU temperature (in C).", |d| {
        d.temperature_c.map(|v| Val::F(f64::from(v)))
    }),
    ("DCGM_FI_DEV_POWER_USAGE", "Power draw (in W).", |d| {
        d.power.usage_watts.map(Val::F)
    }),
    ("DCGM_FI_DEV_GPU_UTIL", "GPU utilization (in %).", |d| {
        d.utilization.gpu_percent.map(|v| Val::U(v.into()))
    }),
    (
        "DCGM_FI_DEV_MEM_COPY_UTIL",
        "Memory utilization (in %).",
        |d| d.utilization.memory_percent.map(|v| Val::U(v.into())),
    ),
    // DCGM reports whole MiB; bytes are cut down to them the same way.
    (
        "DCGM_FI_DEV_FB_FREE",
        "Framebuffer memory free (in MiB).",
        |d| d.memory.free_bytes.map(|b| Val::U(b / MIB)),
    ),
    (
        "DCGM_FI_DEV_FB_USED",
        "Framebuffer memory used (in MiB).",
        |d| d.memory.used_bytes.map(|b| Val::U(b / MIB)),
    ),
    (
        "DCGM_FI_DEV_FB_RESERVED",
        "Framebuffer memory reserved (in MiB).",
        |d| d.memory.reserved_bytes.map(|b| Val::U(b / MIB)),
    ),
];

/// The names of the fields `--dcgm-compat` writes, in exposition order.
pub fn dcgm_metric_names() -> impl Iterator<Item = &'static str> {
    FIELDS.iter().map(|f| f.0)
}

/// The one container the kubelet assigned GPU `uuid` to: `[pod, namespace, container]`, or
/// `None` when none or several were.
fn sole_container(snap: &Snapshot, uuid: &str) -> Option<[String; 3]> {
    let mut found: Option<[&str; 3]> = None;
    for a in snap.device_assignments.iter().filter(|a| a.names_gpu(uuid)) {
        let this = [a.pod.as_str(), a.namespace.as_str(), a.container.as_str()];
        match found {
            Some(f) if f != this => return None,
            _ => found = Some(this),
        }
    }
    found.map(|f| f.map(str::to_string))
}

/// Every DCGM field for every NVIDIA device.
pub(super) fn dcgm(out: &mut String, snap: &Snapshot) {
    type Names = Option<[String; 3]>;
    let devs: Vec<(&Device, [String; 2], Names)> = snap
        .devices
        .iter()
        .filter(|d| d.vendor == Vendor::Nvidia)
        .map(|d| {
            let ids = [d.index.to_string(), format!("nvidia{}", d.index)];
            (d, ids, sole_container(snap, &d.uuid))
        })
        .collect();
    let host = snap.host.hostname.as_deref();
    for (name, help, get) in FIELDS {
        let mut f = Family::new(out, name, "gauge", help);
        for (d, [gpu, device], names) in &devs {
            let name = |i: usize| names.as_ref().map(|n| n[i].as_str());
            f.sample(
                &[
                    ("gpu", Some(gpu.as_str())),
                    ("UUID", Some(d.uuid.as_str())),
                    ("pci_bus_id", d.pci_bus_id.as_deref()),
                    ("device", Some(device.as_str())),
                    ("modelName", d.name.as_deref()),
                    ("Hostname", host),
                    ("DCGM_FI_DRIVER_VERSION", d.driver_version.as_deref()),
                    ("pod", name(0)),
                    ("namespace", name(1)),
                    ("container", name(2)),
                ],
                get(d),
            );
        }
    }
}
