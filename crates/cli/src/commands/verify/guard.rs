//! The guard rails before the allocation: never more than 90 % of the device's room, and ask
//! (or want --yes) above 10 % or where the room is unknown.

use super::Args;
use gpuledger_cuda::probe::{frac, VRAM_FRACTION};
use gpuledger_lang::said::Said;
use gpuledger_lang::Lang;
use gpuledger_model::units::human_bytes;
use std::io::IsTerminal;

/// The workload may not ask for more than this share of the device's free memory, even with
/// --yes: the probe's limit, one number for both.
const MAX_FRACTION: (u64, u64) = VRAM_FRACTION;
/// Above this share of free memory, ask first.
const ASK_FRACTION: (u64, u64) = (1, 10);

/// What the guard rails measure the allocation against.
#[derive(Clone, Copy)]
pub(super) enum Room {
    /// Free memory (CUDA's cuMemGetInfo or NVML; Vulkan's memory budget less usage).
    Free(u64),
    /// A Vulkan heap's size, where the driver reports no budget.
    Heap(u64),
    Unknown,
}

impl Room {
    fn bytes(self) -> Option<u64> {
        match self {
            Room::Free(b) | Room::Heap(b) => Some(b),
            Room::Unknown => None,
        }
    }
    /// `free memory (140 GiB free)`, `its heap (23 GiB, no memory budget reported)`.
    fn of(self, b: u64) -> (Said, Said) {
        let bytes = vec![("bytes", human_bytes(b).into())];
        match self {
            Room::Heap(_) => (
                Said::new("report-verify-room-heap", vec![]),
                Said::new("report-verify-room-heap-amount", bytes),
            ),
            _ => (
                Said::new("report-verify-room-free", vec![]),
                Said::new("report-verify-room-free-amount", bytes),
            ),
        }
    }
}

/// Whether the allocation needs the user's consent (the question, or --yes): more than 10 % of
/// the room, or a room that is unknown. One that does not fit at all is refused either way.
pub(super) fn needs_consent(args: &Args, room: Room) -> bool {
    if args.yes {
        return false;
    }
    match room.bytes() {
        None => true,
        Some(free) => args.size <= frac(free, MAX_FRACTION) && args.size > frac(free, ASK_FRACTION),
    }
}

/// Guard rails before the allocation: `Ok(None)` to go ahead, `Ok(Some(why))` to stop.
pub(super) fn may_allocate(
    args: &Args,
    room: Room,
    device: &Said,
    lang: Lang,
) -> anyhow::Result<Option<Said>> {
    let n = args.size;
    let Some(free) = room.bytes() else {
        if args.yes {
            return Ok(None);
        }
        let said = vec![
            ("device", device.clone().into()),
            ("size", human_bytes(n).into()),
        ];
        return Ok(Some(Said::new("report-verify-room-unknown", said)));
    };
    let (what, amount) = room.of(free);
    let values = || {
        vec![
            ("size", human_bytes(n).into()),
            ("device", device.clone().into()),
            ("what", what.clone().into()),
            ("amount", amount.clone().into()),
        ]
    };
    if n > frac(free, MAX_FRACTION) {
        return Ok(Some(Said::new("report-verify-does-not-fit", values())));
    }
    if n <= frac(free, ASK_FRACTION) || args.yes {
        return Ok(None);
    }
    if !std::io::stdin().is_terminal() {
        return Ok(Some(Said::new("report-verify-needs-yes", values())));
    }
    eprint!("{}", Said::new("report-verify-ask", values()).in_lang(lang));
    let mut answer = String::new();
    std::io::stdin().read_line(&mut answer)?;
    // Yes in English or in the reader's language (是, 是的).
    Ok(match answer.trim() {
        "y" | "Y" | "yes" | "是" | "是的" => None,
        _ => Some(Said::new("report-verify-not-confirmed", vec![])),
    })
}
