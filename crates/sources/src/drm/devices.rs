//! The devices of a DRM round: every sysfs card NVML does not already report, then any slot a
//! client names that sysfs did not show (named by the same rule, [`sysfs::uuid_for_slot`]).

use super::clients::Client;
use super::fdinfo;
use crate::sysfs::{self, DrmCard};
use gpuledger_model::{Device, Snapshot};
use std::collections::{BTreeMap, HashSet};
use std::path::Path;

/// The devices this round added to the snapshot.
#[derive(Default)]
pub(super) struct RoundDevices {
    /// Device slot → uuid in the snapshot, for charging clients.
    pub(super) by_slot: BTreeMap<String, String>,
    /// One phrase per device for the source detail (`amdgpu 0000:03:00.0 suspended`).
    pub(super) shown: Vec<String>,
}

impl RoundDevices {
    /// Add the round's devices to `snap`: sysfs cards first, then slots only fdinfo names.
    /// `class_dir` is `<sys>/class/drm`, named in the reason an fdinfo-only device lacks data.
    pub(super) fn add(
        snap: &mut Snapshot,
        cards: &[DrmCard],
        clients: &[Client],
        nvml_bus_ids: &HashSet<String>,
        class_dir: &Path,
    ) -> RoundDevices {
        let mut d = RoundDevices::default();
        for card in cards.iter().filter(|c| !nvml_bus_ids.contains(&c.slot)) {
            d.add_card(snap, card);
        }
        for c in clients {
            if !d.by_slot.contains_key(&c.slot) {
                d.add_fdinfo_only(snap, c, class_dir);
            }
        }
        d
    }

    fn add_card(&mut self, snap: &mut Snapshot, card: &DrmCard) {
        let dev = sysfs::device(card, snap.devices.len() as u32);
        self.by_slot.insert(card.slot.clone(), dev.uuid.clone());
        self.shown.push(format!(
            "{} {}{}",
            card.driver.as_deref().unwrap_or("?"),
            card.slot,
            if dev.power_state.as_deref() == Some("suspended") {
                " suspended"
            } else {
                ""
            }
        ));
        snap.devices.push(dev);
    }

    fn add_fdinfo_only(&mut self, snap: &mut Snapshot, c: &Client, class_dir: &Path) {
        let vendor = sysfs::vendor_of(None, c.info.driver.as_deref());
        // The same rule as for sysfs devices, so a device has one identity either way.
        let uuid = sysfs::uuid_for_slot(&c.slot);
        let mut dev = Device::new(snap.devices.len() as u32, vendor, uuid.clone(), "fdinfo");
        dev.pci_bus_id = fdinfo::is_pci_slot(&c.slot).then(|| c.slot.clone());
        dev.name = c.info.driver.clone();
        let why = format!(
            "device seen only in DRM fdinfo (node {}), not under {}",
            c.node,
            class_dir.display()
        );
        for f in [
            "memory.total_bytes",
            "memory.used_bytes",
            "utilization.gpu_percent",
        ] {
            dev.mark_unavailable(f, why.clone());
        }
        self.shown.push(format!(
            "{} {} (fdinfo only)",
            c.info.driver.as_deref().unwrap_or("?"),
            c.slot
        ));
        self.by_slot.insert(c.slot.clone(), uuid);
        snap.devices.push(dev);
    }
}
