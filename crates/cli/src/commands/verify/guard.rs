//! The guard rails before the allocation: never more than 90 % of the device's room, and ask
//! (or want --yes) above 10 % or where the room is unknown.

use super::Args;
use gpuledger_cuda::probe::{frac, VRAM_FRACTION};
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
    fn of(self, b: u64) -> (&'static str, String) {
        match self {
            Room::Heap(_) => (
                "its heap",
                format!("{}, the driver reports no memory budget", human_bytes(b)),
            ),
            _ => ("free memory", format!("{} free", human_bytes(b))),
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
    device: &str,
) -> anyhow::Result<Option<String>> {
    let n = args.size;
    let Some(free) = room.bytes() else {
        if args.yes {
            return Ok(None);
        }
        return Ok(Some(format!(
            "the free memory of {device} is unknown, so verify will not allocate {} there without --yes",
            human_bytes(n)
        )));
    };
    let (what, amount) = room.of(free);
    if n > frac(free, MAX_FRACTION) {
        return Ok(Some(format!(
            "{} does not fit: {device} has {amount} and verify uses at most 90 % of that; choose a smaller --size",
            human_bytes(n),
        )));
    }
    if n <= frac(free, ASK_FRACTION) || args.yes {
        return Ok(None);
    }
    let question = format!(
        "Allocate {} on {device}? That is more than 10 % of {what} ({amount}). [y/N] ",
        human_bytes(n),
    );
    if !std::io::stdin().is_terminal() {
        return Ok(Some(format!(
            "{} on {device} is more than 10 % of {what} ({amount}); pass --yes to allow it (there is no terminal to ask on)",
            human_bytes(n),
        )));
    }
    eprint!("{question}");
    let mut answer = String::new();
    std::io::stdin().read_line(&mut answer)?;
    Ok(match answer.trim() {
        "y" | "Y" | "yes" => None,
        _ => Some("not confirmed; nothing was allocated".into()),
    })
}
