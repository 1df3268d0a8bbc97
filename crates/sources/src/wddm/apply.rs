//! A WDDM view merged into a snapshot that may already hold NVML's devices and processes: the
//! NVML merge rule (both readings kept, the larger shown as `cuda+wddm`), then the books and the
//! shared-surface notes.

use super::merge::{WddmView, LABEL_BOTH};

use gpuledger_lang::Said;
use gpuledger_model::units::human_bytes;
use gpuledger_model::{balance, Process, Snapshot, Usage};

/// Merge a WDDM view into a snapshot that may already hold NVML's devices and processes, then
/// balance the books and say where shared surfaces make the processes add up to more than the
/// adapter uses.
///
/// Devices: NVML's values stay; WDDM fills what NVML left unknown (memory, system memory, GPU %).
/// Processes: where NVML and WDDM both measured a process on a device, `memory_bytes` is the
/// larger, `memory_source` is `cuda+wddm`, and `memory_by_source` keeps both readings.
pub fn apply(snap: &mut Snapshot, view: WddmView) {
    for wd in view.devices {
        match snap.devices.iter_mut().find(|d| d.uuid == wd.uuid) {
            Some(d) => {
                let m = &mut d.memory;
                m.total_bytes = m.total_bytes.or(wd.memory.total_bytes);
                m.used_bytes = m.used_bytes.or(wd.memory.used_bytes);
                m.free_bytes = m.free_bytes.or(wd.memory.free_bytes);
                if d.system_memory.is_none() {
                    d.system_memory = wd.system_memory;
                }
                if d.utilization.gpu_percent.is_none() && wd.utilization.gpu_percent.is_some() {
                    d.utilization.gpu_percent = wd.utilization.gpu_percent;
                    d.busiest_engine = wd.busiest_engine;
                }
                d.name = d.name.take().or(wd.name);
                d.pci_bus_id = d.pci_bus_id.take().or(wd.pci_bus_id);
            }
            None => snap.devices.push(wd),
        }
    }
    for wp in view.processes {
        let p = match snap.processes.iter_mut().position(|p| p.pid == wp.pid) {
            Some(i) => &mut snap.processes[i],
            None => {
                snap.processes.push(Process::new(wp.pid));
                snap.processes.last_mut().expect("just pushed")
            }
        };
        // Identity the OS seam read fills gaps only; other sources' metadata wins.
        if p.name.is_none() {
            p.name = wp.name;
            p.exe = p.exe.take().or(wp.exe);
            p.start_time = p.start_time.or(wp.start_time);
        }
        if p.name.is_none() && p.metadata_unavailable.is_none() {
            p.metadata_unavailable = wp.metadata_unavailable;
        }
        for wu in wp.usage {
            match p.usage.iter_mut().find(|u| u.device == wu.device) {
                Some(u) => merge_usage(u, wu),
                None => p.usage.push(wu),
            }
        }
    }
    snap.notes.extend(view.notes);
    snap.sources.push(view.status);
    balance(snap);
    shared_surface_notes(snap);
}

/// NVML's usage `u` meets WDDM's `w` for the same process and device.
pub(super) fn merge_usage(u: &mut Usage, w: Usage) {
    match (u.memory_bytes, w.memory_bytes) {
        (Some(a), Some(b)) => {
            u.memory_by_source.insert(u.memory_source.clone(), a);
            u.memory_by_source.insert(w.memory_source.clone(), b);
            u.memory_bytes = Some(a.max(b));
            u.memory_source = LABEL_BOTH.to_string();
            u.unavailable_reason = None;
        }
        (None, Some(b)) => {
            // NVML reports N/A under WDDM: the counters have the figure.
            u.memory_bytes = Some(b);
            u.memory_source = w.memory_source;
            u.unavailable_reason = None;
        }
        _ => {}
    }
    u.system_memory_bytes = u.system_memory_bytes.or(w.system_memory_bytes);
    for k in w.kinds {
        if !u.kinds.contains(&k) {
            u.kinds.push(k);
        }
    }
    if u.engines_by_type.is_empty() {
        u.engines_by_type = w.engines_by_type;
    }
    let e = &mut u.engines;
    let nvml_has_rates = e.sm_percent.is_some() || e.encoder_percent.is_some();
    if !nvml_has_rates {
        e.sm_percent = w.engines.sm_percent;
        e.encoder_percent = w.engines.encoder_percent;
        e.decoder_percent = w.engines.decoder_percent;
        e.unavailable_reason = w.engines.unavailable_reason;
    }
}

/// `C:\\Windows\\System32\\dwm.exe` → `dwm.exe`.
pub fn image_base_name(path: &str) -> &str {
    path.rsplit(['\\', '/']).next().unwrap_or(path)
}

/// Processes known to carry shared surfaces (the desktop's swap chains) on Windows.
pub(super) const SURFACE_CARRIERS: [&str; 2] = ["dwm.exe", "csrss.exe"];

pub(super) fn shared_surface_notes(snap: &mut Snapshot) {
    let mut notes = Vec::new();
    for d in &snap.devices {
        let Some(over) = d.ledger.over_attributed_bytes else {
            continue;
        };
        let wddm_here = snap.processes.iter().any(|p| {
            p.usage
                .iter()
                .any(|u| u.device == d.uuid && u.memory_source.contains("wddm"))
        });
        if !wddm_here {
            continue;
        }
        let carriers: Vec<String> = snap
            .processes
            .iter()
            .filter(|p| {
                p.name
                    .as_deref()
                    .is_some_and(|n| SURFACE_CARRIERS.iter().any(|c| n.eq_ignore_ascii_case(c)))
                    && p.usage.iter().any(|u| u.device == d.uuid)
            })
            .map(|p| format!("{} (pid {})", p.display_name(), p.pid))
            .collect();
        let who = if carriers.is_empty() {
            Said::new("report-wddm-carriers-usual", vec![])
        } else {
            Said::new(
                "report-wddm-carriers-here",
                vec![("list", carriers.join(", ").into())],
            )
        };
        notes.push(Said::new(
            "report-wddm-over-attributed",
            vec![
                ("device", d.label().into()),
                ("over", human_bytes(over).into()),
                ("who", who.into()),
            ],
        ));
    }
    for n in notes {
        if !snap.notes.contains(&n) {
            snap.notes.push(n);
        }
    }
}

#[cfg(test)]
#[test]
fn image_names() {
    assert_eq!(image_base_name(r"C:\Windows\System32\dwm.exe"), "dwm.exe");
    assert_eq!(image_base_name("llama-server.exe"), "llama-server.exe");
    assert_eq!(image_base_name(r"\\?\D:\ai\ollama.exe"), "ollama.exe");
}
