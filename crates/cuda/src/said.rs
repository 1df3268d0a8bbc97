//! The probe's and the driver loader's errors as sentences (`report-probe-err-*`), so the
//! command line says them in the reader's language; their `Display` stays the English. The
//! driver's own words (a CUDA error's name and description, the loader's `dlopen` message) are
//! values, as the driver wrote them.

use crate::cuda::LoadError;
use crate::probe::ProbeError;
use gpuledger_lang::said::{Arg, Said};
use gpuledger_model::units::human_bytes;

impl LoadError {
    pub fn said(&self) -> Said {
        match self {
            LoadError::Open { path, cause } => Said::new(
                "report-probe-err-load-open",
                vec![
                    ("path", path.as_str().into()),
                    ("cause", cause.to_string().into()),
                ],
            ),
            LoadError::Symbol {
                path,
                symbol,
                cause,
            } => Said::new(
                "report-probe-err-load-symbol",
                vec![
                    ("path", path.as_str().into()),
                    ("symbol", (*symbol).into()),
                    ("cause", cause.to_string().into()),
                ],
            ),
        }
    }
}

impl ProbeError {
    pub fn said(&self) -> Said {
        let bytes = |b: u64| -> Arg { human_bytes(b).into() };
        let text = |v: &dyn ToString| -> Arg { v.to_string().into() };
        let (key, values): (&'static str, Vec<(&'static str, Arg)>) = match self {
            ProbeError::NoSizes => ("report-probe-err-no-sizes", vec![]),
            ProbeError::ZeroSize => ("report-probe-err-zero-size", vec![]),
            ProbeError::Load(e) => return e.said(),
            ProbeError::HostUnknown(why) => {
                ("report-probe-err-host-unknown", vec![("why", text(why))])
            }
            ProbeError::HostTooSmall {
                size,
                available,
                source_desc,
            } => (
                "report-probe-err-host-too-small",
                vec![
                    ("size", bytes(*size)),
                    ("available", bytes(*available)),
                    ("source", text(source_desc)),
                ],
            ),
            ProbeError::VramTooSmall { size, free, device } => (
                "report-probe-err-vram-too-small",
                vec![
                    ("size", bytes(*size)),
                    ("free", bytes(*free)),
                    ("device", text(device)),
                ],
            ),
            ProbeError::NoDevices => ("report-probe-err-no-devices", vec![]),
            ProbeError::BadDevice { ordinal, count } => (
                "report-probe-err-bad-device",
                vec![
                    ("ordinal", text(ordinal)),
                    ("count", text(count)),
                    ("last", text(&(count - 1))),
                ],
            ),
            ProbeError::ContextCreate {
                device,
                name,
                cause,
            } => (
                "report-probe-err-context",
                vec![
                    ("device", text(device)),
                    ("name", text(name)),
                    ("cause", text(cause)),
                ],
            ),
            ProbeError::OutOfMemory {
                step,
                bytes: b,
                cause,
            } => (
                "report-probe-err-out-of-memory",
                vec![
                    ("step", (*step).into()),
                    ("size", bytes(*b)),
                    ("cause", text(cause)),
                ],
            ),
            // A driver call's failure: the call and the driver's words.
            ProbeError::Cuda { .. } => return Said::verbatim(self.to_string()),
            ProbeError::HostAlloc { bytes: b } => {
                ("report-probe-err-host-alloc", vec![("size", bytes(*b))])
            }
            ProbeError::Interrupted => ("report-probe-err-interrupted", vec![]),
        };
        Said::new(key, values)
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use gpuledger_lang::Lang;

    /// Each sentence's English is the error's `Display`: one text, whichever printer shows it.
    #[test]
    fn the_sentences_english_is_the_errors_display() {
        let errors = [
            ProbeError::NoSizes,
            ProbeError::ZeroSize,
            ProbeError::HostUnknown("no /proc/meminfo".into()),
            ProbeError::HostTooSmall {
                size: 8 << 30,
                available: 4 << 30,
                source_desc: "MemAvailable".into(),
            },
            ProbeError::VramTooSmall {
                size: 8 << 30,
                free: 1 << 30,
                device: 0,
            },
            ProbeError::NoDevices,
            ProbeError::BadDevice {
                ordinal: 3,
                count: 2,
            },
            ProbeError::HostAlloc { bytes: 1 << 20 },
            ProbeError::Interrupted,
        ];
        for e in errors {
            assert_eq!(e.said().as_str(), e.to_string());
            let cn = e.said().in_lang(Lang::ZhCn);
            assert_ne!(cn, e.to_string(), "{cn}");
        }
    }
}
