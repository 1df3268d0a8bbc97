//! The estimated ledgers as text, each apart from the measured one: the llama.cpp recipe's
//! ([`llama`]), a runtime recipe's ([`runtime`]: vLLM, SGLang, PyTorch), and the estimate a
//! recorded snapshot carries ([`recorded`]); here, the one sentence that puts an estimate beside
//! the driver's measurement.

pub mod gaps;
pub mod llama;
pub mod recorded;
pub mod runtime;

pub use llama::{render_comparison, render_comparison_in, render_text, render_text_in};

use gpuledger_lang::Lang;
use gpuledger_model::estimate_input::InputSource;
use gpuledger_model::units::human_opt;
use gpuledger_model::{words, ReportedFigure};
use std::sync::OnceLock;

/// How exact an estimate's compute figure is, in the one word every view uses for it (the live
/// view's ESTIMATE pane, `explain`, `estimate`): from the estimate's own flag.
pub fn compute_precision(exact: bool) -> &'static str {
    static EN: [OnceLock<String>; 2] = [OnceLock::new(), OnceLock::new()];
    EN[usize::from(exact)].get_or_init(|| compute_precision_in(exact, Lang::En))
}

/// [`compute_precision`]'s word in `lang`.
pub fn compute_precision_in(exact: bool, lang: Lang) -> String {
    lang.t(if exact {
        "report-precision-exact"
    } else {
        "report-precision-approximate"
    })
}

/// How far the measurement is from the estimate: the distance and `more` or `less` (what the
/// driver reports compared with the estimate).
pub fn difference(measured: u64, estimated: u64) -> (u64, &'static str) {
    let d = measured as i64 - estimated as i64;
    (d.unsigned_abs(), if d >= 0 { "more" } else { "less" })
}

/// `measured M {label}vs estimated E: the driver reports D more|less` (no newline): the two
/// figures side by side and how far apart, never one folded into the other; with the likely
/// cause when the gap is large ([`gap_cause`]). `weights`: the estimate's weights on the GPU.
pub fn measured_vs_estimated(
    measured: u64,
    label: &str,
    estimated: u64,
    weights: Option<u64>,
) -> String {
    measured_vs_estimated_in(Lang::En, measured, label, estimated, weights)
}

/// [`measured_vs_estimated`] in `lang`.
pub fn measured_vs_estimated_in(
    lang: Lang,
    measured: u64,
    label: &str,
    estimated: u64,
    weights: Option<u64>,
) -> String {
    let (d, side) = difference(measured, estimated);
    let args = [
        ("measured", human_opt(Some(measured)).into()),
        ("label", label.into()),
        ("estimated", human_opt(Some(estimated)).into()),
        ("difference", human_opt(Some(d)).into()),
    ];
    let key = if side == "more" {
        "report-vs-more"
    } else {
        "report-vs-less"
    };
    let text = lang.t_args(key, &args);
    match gap_cause_key(measured, estimated, weights) {
        Some(cause) => {
            let args = [("text", text.into()), ("cause", lang.t(cause).into())];
            lang.t_args("report-vs-with-cause", &args)
        }
        None => text,
    }
}

/// The likely cause of a large gap between the measurement and the estimate (10 % of the
/// estimate and 256 MiB at least), from where the measurement falls: below the weights alone,
/// between the weights and the total, or above the total. `None` for a small gap. In English;
/// [`gap_cause_key`] names the sentence for another language.
pub fn gap_cause(measured: u64, estimated: u64, weights: Option<u64>) -> Option<&'static str> {
    static EN: [OnceLock<String>; 3] = [OnceLock::new(), OnceLock::new(), OnceLock::new()];
    let key = gap_cause_key(measured, estimated, weights)?;
    let i = GAP_CAUSES.iter().position(|k| *k == key)?;
    Some(EN[i].get_or_init(|| Lang::En.t(key)))
}

/// The catalogue keys of the likely causes, `report-gap-` then the code that `snapshot --json`
/// writes in `estimate_gaps[].cause` ([`gaps`]).
pub const GAP_CAUSES: [&str; 3] = [
    "report-gap-above-estimate",
    "report-gap-below-weights",
    "report-gap-between",
];

/// The catalogue key of [`gap_cause`]'s sentence.
pub fn gap_cause_key(measured: u64, estimated: u64, weights: Option<u64>) -> Option<&'static str> {
    let (d, _) = difference(measured, estimated);
    if d < (256 << 20) || d.saturating_mul(10) < estimated {
        return None;
    }
    Some(match weights {
        _ if measured > estimated => GAP_CAUSES[0],
        Some(w) if measured < w => GAP_CAUSES[1],
        _ => GAP_CAUSES[2],
    })
}

/// A figure the runtime reported, as text: its bytes (written by `bytes`, so each view keeps its
/// unit style), its own words in brackets, or both; [`words::UNKNOWN`] when it gave neither.
pub fn reported_value(f: &ReportedFigure, bytes: impl Fn(u64) -> String, lang: Lang) -> String {
    match (f.bytes, &f.text) {
        (Some(b), Some(t)) => format!("{} ({})", bytes(b), t.in_lang(lang)),
        (Some(b), None) => bytes(b),
        (None, Some(t)) => t.in_lang(lang),
        (None, None) => words::UNKNOWN.into(),
    }
}

/// Where an input came from, in words (every recipe's inputs).
pub fn input_source(s: &InputSource) -> String {
    input_source_in(s, Lang::En)
}

/// [`input_source`] in `lang`: the kind of source in words; a key, flag or path as it is, a
/// default's, a rule's or an assumption's sentence in `lang`.
pub fn input_source_in(s: &InputSource, lang: Lang) -> String {
    let (key, detail) = match s {
        InputSource::Gguf { key } => ("report-source-gguf", key.clone()),
        InputSource::Tensors { detail } => ("report-source-tensors", detail.in_lang(lang)),
        InputSource::Flag { flag } => ("report-source-flag", flag.in_lang(lang)),
        InputSource::Env { var } => ("report-source-env", var.in_lang(lang)),
        InputSource::Runtime { detail } => ("report-source-server", detail.in_lang(lang)),
        InputSource::Default { detail } => ("report-source-default", detail.in_lang(lang)),
        InputSource::Derived { rule } => ("report-source-derived", rule.in_lang(lang)),
        InputSource::Assumed { why } => ("report-source-assumed", why.in_lang(lang)),
        InputSource::File { detail } => ("report-source-file", detail.in_lang(lang)),
        InputSource::Measured { detail } => ("report-source-measured", detail.in_lang(lang)),
    };
    lang.t_args(key, &[("detail", detail.as_str().into())])
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_reported_figure_in_words() {
        let f = |bytes, text: Option<&str>| {
            let r = ReportedFigure::new("x", bytes, text.map(Into::into), "s");
            reported_value(&r, |b| format!("{b} B"), Lang::En)
        };
        assert_eq!(f(Some(5), Some("kept")), "5 B (kept)");
        assert_eq!(f(Some(5), None), "5 B");
        assert_eq!(f(None, Some("kept")), "kept");
        assert_eq!(f(None, None), "n/a");
        assert_eq!(difference(5, 7), (2, "less"));
        assert_eq!(difference(7, 7), (0, "more"));
    }

    /// The Ollama runner: 8.38 GiB measured, 12.4 GiB estimated of which 10.7 GiB
    /// weights; a small gap says nothing.
    #[test]
    fn a_large_gap_names_its_likely_cause() {
        const GIB: f64 = (1u64 << 30) as f64;
        let g = |x: f64| (x * GIB) as u64;
        let c = gap_cause(g(8.38), g(12.4), Some(g(10.7))).unwrap();
        assert!(c.starts_with("below the estimated weights alone"), "{c}");
        let c = gap_cause(g(11.0), g(12.4), Some(g(10.7))).unwrap();
        assert!(c.contains("smaller context"), "{c}");
        let c = gap_cause(g(15.0), g(12.4), Some(g(10.7))).unwrap();
        assert!(c.contains("does not model"), "{c}");
        assert_eq!(gap_cause(g(12.0), g(12.4), Some(g(10.7))), None);
        assert_eq!(gap_cause(g(0.5), g(0.6), Some(g(0.4))), None);
        let s = measured_vs_estimated(g(8.38), "", g(12.4), Some(g(10.7)));
        assert!(
            s.contains("reports 4.02 GiB less; below the estimated weights"),
            "{s}"
        );
    }
}
