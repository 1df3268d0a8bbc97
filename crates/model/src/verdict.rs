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

#[cfg(test)]
mod tests {
    use super::*;

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
