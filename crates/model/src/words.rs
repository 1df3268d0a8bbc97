//! The words every view uses for the same fact, from one place: a table, the live view, `explain`
//! and `kill` say "n/a" for a value that could not be read and "—" where nothing applies, and name
//! evidence and confidence alike. JSON keeps its own stable spellings (the contract).

use crate::{Confidence, EvidenceKind};
use std::fmt::Display;

/// A value that could not be read; the reason is said beside it or in the notes.
pub const UNKNOWN: &str = "n/a";
/// Nothing applies (no workload identified, no container): not a failure to read.
pub const NOTHING: &str = "—";

/// `v` as text, or [`UNKNOWN`].
pub fn or_unknown<T: Display>(v: Option<T>) -> String {
    or_unknown_with(v, |x| x.to_string())
}

/// `f(v)`, or [`UNKNOWN`] when the value could not be read.
pub fn or_unknown_with<T>(v: Option<T>, f: impl FnOnce(T) -> String) -> String {
    v.map_or_else(|| UNKNOWN.to_string(), f)
}

impl EvidenceKind {
    /// How text views name this kind of evidence (`model file`, `GGUF header`).
    pub fn label(self) -> &'static str {
        match self {
            EvidenceKind::Executable => "executable",
            EvidenceKind::Cmdline => "command line",
            EvidenceKind::Library => "library",
            EvidenceKind::ModelFile => "model file",
            EvidenceKind::ListeningPort => "listening port",
            EvidenceKind::Parent => "parent",
            EvidenceKind::Http => "HTTP answer",
            EvidenceKind::Log => "log",
            EvidenceKind::GgufHeader => "GGUF header",
        }
    }
}

impl Confidence {
    /// `high`, `medium`, `low`.
    pub fn word(self) -> &'static str {
        match self {
            Confidence::High => "high",
            Confidence::Medium => "medium",
            Confidence::Low => "low",
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn words_are_lower_case_text_not_enum_names() {
        assert_eq!(or_unknown(None::<u32>), "n/a");
        assert_eq!(or_unknown(Some(7)), "7");
        assert_eq!(or_unknown_with(None::<u8>, |x| x.to_string()), "n/a");
        assert_eq!(or_unknown_with(Some(2), |x| format!("{x}%")), "2%");
        assert_eq!(EvidenceKind::ModelFile.label(), "model file");
        assert_eq!(Confidence::High.word(), "high");
    }
}
