//! The books must balance: per device, what processes account for and what nobody does.

use crate::snapshot::{Device, Ledger, Memory, Process, Snapshot};

/// Fill every device's `ledger` (and `system_ledger`) from the per-process usage in `snap`.
/// Idempotent; call it after all sources have merged their figures.
pub fn balance(snap: &mut Snapshot) {
    let Snapshot {
        devices, processes, ..
    } = snap;
    for dev in devices.iter_mut() {
        dev.ledger = ledger_for(dev.memory, &dev.uuid, processes, |u| u.memory_bytes);
        dev.system_ledger = dev
            .system_memory
            .map(|m| ledger_for(m, &dev.uuid, processes, |u| u.system_memory_bytes));
    }
}

fn ledger_for(
    mem: Memory,
    uuid: &str,
    processes: &[Process],
    value: impl Fn(&crate::Usage) -> Option<u64>,
) -> Ledger {
    let mut attributed: u64 = 0;
    let mut unknown = 0u32;
    for u in processes.iter().flat_map(|p| &p.usage) {
        if u.device != uuid {
            continue;
        }
        match value(u) {
            Some(b) => attributed = attributed.saturating_add(b),
            None => unknown += 1,
        }
    }
    let (unattributed, over) = match mem.used_bytes {
        Some(used) if attributed <= used => (Some(used - attributed), None),
        Some(used) => (None, Some(attributed - used)),
        None => (None, None),
    };
    Ledger {
        attributed_bytes: attributed,
        unattributed_bytes: unattributed,
        over_attributed: over.is_some(),
        over_attributed_bytes: over,
        unknown_processes: unknown,
    }
}

/// Length of a bar for `value` on `dev`, in 0.0..=1.0. Normally a share of the device total; when
/// the processes add up to more than the device uses (shared surfaces counted twice), a share of
/// the attributed sum instead, so the bars still fit. Labels always keep the raw value.
pub fn bar_fraction(value: u64, dev: &Device) -> Option<f64> {
    let denom = if dev.ledger.over_attributed {
        dev.ledger.attributed_bytes
    } else {
        dev.memory.total_bytes?
    };
    if denom == 0 {
        return None;
    }
    Some((value as f64 / denom as f64).clamp(0.0, 1.0))
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::snapshot::*;
    use crate::test_support::{device, process, snapshot};

    fn snap(used: Option<u64>, values: &[Option<u64>]) -> Snapshot {
        let a = device(0, "A", Some(1000), used);
        let b = device(1, "B", None, Some(7));
        let procs = (1..)
            .zip(values)
            .map(|(pid, v)| process(pid, "A", *v))
            .collect();
        snapshot("t", vec![a, b], procs)
    }

    #[test]
    fn unattributed_is_used_minus_known_processes() {
        let s = snap(Some(600), &[Some(100), Some(200), None]);
        let l = s.devices[0].ledger;
        assert_eq!(l.attributed_bytes, 300);
        assert_eq!(l.unattributed_bytes, Some(300));
        assert!(!l.over_attributed);
        assert_eq!(l.unknown_processes, 1);
        // A device with no processes: everything it uses is unattributed.
        assert_eq!(s.devices[1].ledger.unattributed_bytes, Some(7));
        assert_eq!(s.devices[1].ledger.attributed_bytes, 0);
    }

    #[test]
    fn over_attribution_is_flagged_not_negative() {
        let s = snap(Some(250), &[Some(200), Some(200)]);
        let l = s.devices[0].ledger;
        assert!(l.over_attributed);
        assert_eq!(l.unattributed_bytes, None);
        assert_eq!(l.over_attributed_bytes, Some(150));
        // Bars normalise to the attributed sum: 200 of 400.
        assert_eq!(bar_fraction(200, &s.devices[0]), Some(0.5));
    }

    #[test]
    fn unknown_used_gives_unknown_unattributed() {
        let s = snap(None, &[Some(5)]);
        assert_eq!(s.devices[0].ledger.unattributed_bytes, None);
        assert!(!s.devices[0].ledger.over_attributed);
    }

    #[test]
    fn bars_share_of_total_normally() {
        let s = snap(Some(600), &[Some(250)]);
        assert_eq!(bar_fraction(250, &s.devices[0]), Some(0.25));
        // No total known: no bar rather than a made-up one.
        assert_eq!(bar_fraction(5, &s.devices[1]), None);
    }

    #[test]
    fn system_memory_balances_separately() {
        let mut s = snap(Some(600), &[Some(100)]);
        s.devices[0].system_memory = Some(Memory {
            total_bytes: Some(4000),
            used_bytes: Some(3000),
            ..Memory::default()
        });
        s.processes[0].usage[0].system_memory_bytes = Some(2500);
        balance(&mut s);
        let sl = s.devices[0].system_ledger.unwrap();
        assert_eq!(sl.attributed_bytes, 2500);
        assert_eq!(sl.unattributed_bytes, Some(500));
        assert_eq!(s.devices[0].ledger.unattributed_bytes, Some(500));
    }

    proptest::proptest! {
        #[test]
        fn books_balance(used in 0u64..1u64<<50, vals in proptest::collection::vec(proptest::option::of(0u64..1u64<<45), 0..20)) {
            let s = snap(Some(used), &vals);
            let l = s.devices[0].ledger;
            let known: u64 = vals.iter().flatten().sum();
            proptest::prop_assert_eq!(l.attributed_bytes, known);
            match l.unattributed_bytes {
                Some(un) => proptest::prop_assert_eq!(un + known, used),
                None => proptest::prop_assert_eq!(l.over_attributed_bytes.unwrap() + used, known),
            }
        }
    }
}
