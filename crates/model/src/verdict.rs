//! `gpuledger verify`'s verdict on one source, as a key: the rules (exit status, which verdicts
//! are readings, which may change between builds) match on it; the words shown come from it.

use serde::{Deserialize, Serialize};

/// The verdict's kind. Its JSON names are a recorded format (`verify --json`, records replayed
/// later): each is written and read back here.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, Deserialize)]
pub enum VerdictKind {
    #[serde(rename = "ok")]
    Ok,
    #[serde(rename = "off")]
    Off,
    #[serde(rename = "cannot see")]
    CannotSee,
    /// A witness this path does not ask.
    #[serde(rename = "not run")]
    NotRun,
    /// A witness whose tool is not on PATH.
    #[serde(rename = "not installed")]
    NotInstalled,
    /// What this build lacks (it may change between builds).
    #[serde(rename = "not implemented")]
    NotImplemented,
}

impl VerdictKind {
    /// The verdict in a word or two, as the JSON names it.
    pub fn label(self) -> &'static str {
        match self {
            VerdictKind::Ok => "ok",
            VerdictKind::Off => "off",
            VerdictKind::CannotSee => "cannot see",
            VerdictKind::NotRun => "not run",
            VerdictKind::NotInstalled => "not installed",
            VerdictKind::NotImplemented => "not implemented",
        }
    }

    /// Whether the source gave a reading at all (ok, off, or could not see the workload), as
    /// opposed to not being asked.
    pub fn is_reading(self) -> bool {
        matches!(
            self,
            VerdictKind::Ok | VerdictKind::Off | VerdictKind::CannotSee
        )
    }
}

/// What a verified source's figure covers. The record's `source` is an English label
/// (`nvml (per process)`, `fdinfo GTT (device used)`, `unattributed`, `unattributed GTT`) that
/// scripts read; [`SourceScope::label`] writes it and [`SourceScope::split`] reads it back so a
/// view can say the scope in the language.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum SourceScope {
    /// One process's figure, as `name` (a tool or source) reports it.
    PerProcess,
    /// The device's used memory, as `name` reports it.
    DeviceUsed,
    /// What no process accounts for; `name` qualifies the memory (`GTT`) or is empty.
    Unattributed,
}

const UNATTRIBUTED: &str = "unattributed";

impl SourceScope {
    /// What follows the name; `None` for unattributed, which comes before it.
    fn suffix(self) -> Option<&'static str> {
        match self {
            SourceScope::PerProcess => Some(" (per process)"),
            SourceScope::DeviceUsed => Some(" (device used)"),
            SourceScope::Unattributed => None,
        }
    }

    /// The recorded label of `name`'s figure of this scope.
    pub fn label(self, name: &str) -> String {
        match self.suffix() {
            Some(suffix) => format!("{name}{suffix}"),
            None if name.is_empty() => UNATTRIBUTED.to_string(),
            None => format!("{UNATTRIBUTED} {name}"),
        }
    }

    /// The scope and name of a recorded label; `None` for a label without one (`nvidia-smi`
    /// from an older record).
    pub fn split(label: &str) -> Option<(SourceScope, &str)> {
        if let Some(rest) = label.strip_prefix(UNATTRIBUTED) {
            if rest.is_empty() || rest.starts_with(' ') {
                return Some((SourceScope::Unattributed, rest.trim_start()));
            }
        }
        [SourceScope::PerProcess, SourceScope::DeviceUsed]
            .into_iter()
            .find_map(|scope| Some((scope, label.strip_suffix(scope.suffix()?)?)))
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn source_labels_read_back() {
        for (scope, name, label) in [
            (SourceScope::PerProcess, "nvml", "nvml (per process)"),
            (
                SourceScope::PerProcess,
                "fdinfo GTT",
                "fdinfo GTT (per process)",
            ),
            (
                SourceScope::DeviceUsed,
                "nvidia-smi",
                "nvidia-smi (device used)",
            ),
            (SourceScope::Unattributed, "", "unattributed"),
            (SourceScope::Unattributed, "GTT", "unattributed GTT"),
        ] {
            assert_eq!(scope.label(name), label);
            assert_eq!(SourceScope::split(label), Some((scope, name)), "{label}");
        }
        assert_eq!(SourceScope::split("nvidia-smi"), None);
        assert_eq!(SourceScope::split("unattributedness"), None);
    }

    #[test]
    fn json_names_are_the_labels_and_read_back() {
        for k in [
            VerdictKind::Ok,
            VerdictKind::Off,
            VerdictKind::CannotSee,
            VerdictKind::NotRun,
            VerdictKind::NotInstalled,
            VerdictKind::NotImplemented,
        ] {
            let json = serde_json::to_string(&k).unwrap();
            assert_eq!(json, format!("\"{}\"", k.label()));
            assert_eq!(serde_json::from_str::<VerdictKind>(&json).unwrap(), k);
        }
        assert!(!VerdictKind::NotInstalled.is_reading());
        assert!(VerdictKind::CannotSee.is_reading());
    }
}
