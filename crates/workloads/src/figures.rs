//! The one check of a runtime's own figures, where its answers are parsed (`/metrics`, `/props`,
//! `/api/ps`, `/server_info`, start-up log lines): a figure that cannot be true — not a number,
//! not finite, negative, a fraction outside 0..1, a count or a size beyond any GPU — is unknown,
//! not shown. Each parser keeps what it passed over as a [`Rejected`] (what, and the answer quoted),
//! which the views show as `n/a` with that reason, never as the runtime's report (a server that
//! answers `NaN`, `+Inf` or 18,446,744,073,709,551,615 blocks says nothing about its memory).

use gpuledger_model::ReportedFigure;
use serde_json::Value;

/// What a figure is, and so what it may be.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Kind {
    /// A share from 0 to 1 (`vllm:kv_cache_usage_perc`, `gpu_memory_utilization`).
    Fraction,
    /// A whole count of blocks, tokens, slots or requests.
    Count,
    /// Memory in GiB (vLLM's and SGLang's start-up lines).
    Gib,
    /// Memory in MiB (llama.cpp's buffer lines).
    Mib,
    /// Memory in bytes (Ollama's `size_vram`).
    Bytes,
    /// A rate or a factor (tokens per second, `5.69x` concurrency).
    Rate,
}

/// More than any one server can have: 2⁴⁰ blocks or tokens, 1 PiB of memory, 10⁹ per second.
const MAX_COUNT: f64 = (1u64 << 40) as f64;
const PIB: f64 = (1u64 << 50) as f64;
const MAX_RATE: f64 = 1e9;
/// The most of a runtime's answer quoted in a reason.
const QUOTE_MAX: usize = 32;

impl Kind {
    /// The largest value this kind may take, and how to say it.
    fn max(self) -> (f64, &'static str) {
        match self {
            Kind::Fraction => (1.0, "1 (a share of the whole)"),
            Kind::Count => (MAX_COUNT, "2^40, more than any GPU holds"),
            Kind::Gib => (PIB / (1u64 << 30) as f64, "1 PiB, more than any GPU holds"),
            Kind::Mib => (PIB / (1u64 << 20) as f64, "1 PiB, more than any GPU holds"),
            Kind::Bytes => (PIB, "1 PiB, more than any GPU holds"),
            Kind::Rate => (MAX_RATE, "10^9 per second"),
        }
    }
}

/// A figure the runtime gave that is unknown for it: what it was and why (the answer quoted).
#[derive(Debug, Clone, PartialEq)]
pub struct Rejected {
    pub what: String,
    pub reason: String,
}

impl Rejected {
    /// As the runtime's figure in words: `n/a` with the reason, never a number.
    pub fn figure(&self, source: &str) -> ReportedFigure {
        ReportedFigure::new(
            self.what.as_str(),
            None,
            Some(format!("n/a: {}", self.reason).into()),
            source,
        )
    }

    /// As a live state's `unavailable` line.
    pub fn line(&self) -> String {
        format!("{}: {}", self.what, self.reason)
    }
}

/// `raw` as a figure of this kind, or why it cannot be one (quoting `raw`).
pub fn check(raw: &str, kind: Kind) -> Result<f64, String> {
    let t = raw.trim();
    let why = match t.parse::<f64>() {
        Err(_) => "not a number".to_string(),
        Ok(v) if !v.is_finite() => "not a finite number".to_string(),
        Ok(v) if v < 0.0 => "negative".to_string(),
        Ok(v) if v > kind.max().0 => format!("more than {}", kind.max().1),
        Ok(v) if kind == Kind::Count && v.fract() != 0.0 => "not a whole number".to_string(),
        Ok(v) => return Ok(v),
    };
    Err(format!("the runtime answered \"{}\": {why}", quote(t)))
}

/// [`check`] for a count, as an integer.
pub fn check_count(raw: &str) -> Result<u64, String> {
    check(raw, Kind::Count).map(|v| v as u64)
}

/// `raw` cut to [`QUOTE_MAX`] characters, control characters escaped.
fn quote(raw: &str) -> String {
    let cut: String = raw.chars().take(QUOTE_MAX).collect();
    let more = if cut.len() < raw.len() { "…" } else { "" };
    format!("{}{more}", gpuledger_model::term_safe(&cut))
}

/// Keeps the figures that pass and notes the ones that do not.
#[derive(Debug, Clone, Default, PartialEq)]
pub struct Checked {
    pub rejected: Vec<Rejected>,
}

impl Checked {
    /// `raw` (absent: `None`, silently) as a figure of `kind`; `None`, noted, when it cannot be.
    pub fn take(&mut self, what: &str, raw: Option<&str>, kind: Kind) -> Option<f64> {
        match check(raw?, kind) {
            Ok(v) => Some(v),
            Err(reason) => {
                self.note(what, reason);
                None
            }
        }
    }

    /// [`Checked::take`] for a count.
    pub fn count(&mut self, what: &str, raw: Option<&str>) -> Option<u64> {
        self.take(what, raw, Kind::Count).map(|v| v as u64)
    }

    /// A JSON member (absent or `null`: `None`, silently): numbers and numeric strings checked,
    /// anything else noted.
    pub fn json(&mut self, what: &str, v: Option<&Value>, kind: Kind) -> Option<f64> {
        let text = match v? {
            Value::Null => return None,
            Value::String(s) => s.clone(),
            other => other.to_string(),
        };
        self.take(what, Some(&text), kind)
    }

    /// [`Checked::json`] for a count.
    pub fn json_count(&mut self, what: &str, v: Option<&Value>) -> Option<u64> {
        self.json(what, v, Kind::Count).map(|v| v as u64)
    }

    fn note(&mut self, what: &str, reason: String) {
        // One note per figure: a log that repeats a bad line says it once.
        if !self.rejected.iter().any(|r| r.what == what) {
            self.rejected.push(Rejected {
                what: what.to_string(),
                reason,
            });
        }
    }

    /// The notes as the runtime's figures in words.
    pub fn figures(&self, source: &str) -> Vec<ReportedFigure> {
        self.rejected.iter().map(|r| r.figure(source)).collect()
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    /// The four answers of issue 40, item 5, and their neighbours.
    #[test]
    fn figures_that_cannot_be_true_are_unknown_with_the_answer_quoted() {
        let e = check("NaN", Kind::Fraction).unwrap_err();
        assert_eq!(e, "the runtime answered \"NaN\": not a finite number");
        assert!(check("+Inf", Kind::Fraction)
            .unwrap_err()
            .contains("\"+Inf\": not a finite number"));
        let e = check_count("18446744073709551615").unwrap_err();
        assert!(
            e.contains("\"18446744073709551615\": more than 2^40"),
            "{e}"
        );
        let neg = format!("-1{}", "0".repeat(307));
        let e = check(&neg, Kind::Fraction).unwrap_err();
        assert!(e.contains("negative") && e.contains('…'), "{e}");
        assert!(e.len() < 100, "the answer is quoted, not copied: {e}");
        assert!(check("1.5", Kind::Fraction)
            .unwrap_err()
            .contains("more than 1"));
        assert!(check_count("2.5").unwrap_err().contains("whole"));
        assert!(check("abc\u{1b}", Kind::Rate)
            .unwrap_err()
            .contains("abc\\u001b"));
        assert_eq!(check("0.25", Kind::Fraction), Ok(0.25));
        assert_eq!(check_count("27000"), Ok(27000));
        assert_eq!(check("1e3", Kind::Rate), Ok(1000.0));
        assert_eq!(check("14.99", Kind::Gib), Ok(14.99));
    }

    #[test]
    fn a_checker_keeps_good_figures_and_notes_bad_ones_once() {
        let mut c = Checked::default();
        assert_eq!(
            c.take("KV cache in use", Some("0.5"), Kind::Fraction),
            Some(0.5)
        );
        assert_eq!(c.take("KV cache in use", None, Kind::Fraction), None);
        assert_eq!(c.take("KV cache in use", Some("NaN"), Kind::Fraction), None);
        assert_eq!(c.take("KV cache in use", Some("inf"), Kind::Fraction), None);
        assert_eq!(c.rejected.len(), 1);
        let v: Value = serde_json::json!({"a": 5, "b": -1, "c": "7", "d": null, "e": [1]});
        assert_eq!(c.json_count("a", v.get("a")), Some(5));
        assert_eq!(c.json_count("b", v.get("b")), None);
        assert_eq!(c.json_count("c", v.get("c")), Some(7));
        assert_eq!(c.json_count("d", v.get("d")), None);
        assert_eq!(c.json_count("e", v.get("e")), None);
        assert_eq!(c.json_count("z", v.get("z")), None);
        let whats: Vec<&str> = c.rejected.iter().map(|r| r.what.as_str()).collect();
        assert_eq!(whats, ["KV cache in use", "b", "e"]);
        let f = &c.figures("GET /metrics")[0];
        assert_eq!(f.bytes, None);
        assert_eq!(
            f.text.as_deref(),
            Some("n/a: the runtime answered \"NaN\": not a finite number")
        );
    }
}
