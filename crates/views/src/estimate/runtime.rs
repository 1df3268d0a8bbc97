//! A runtime recipe's estimate (vLLM, SGLang, PyTorch) as text for `explain`: the why sentence,
//! the parts (unknown ones said so), the runtime's own figures, what is not modelled, and the
//! inputs with their sources.

use super::{input_source_in, measured_vs_estimated_in, reported_value};
use crate::columns::pad_end;
use gpuledger_lang::Lang;
use gpuledger_model::runtime_estimate::{gib, thousands, RuntimeEstimate};
use gpuledger_model::{term_safe, words};
use std::fmt::Write;

/// Text for `explain`: the why sentence, the parts (unknown ones said so), the runtime's own
/// figures, what is not modelled, and the inputs with their sources.
pub fn render_text(r: &RuntimeEstimate) -> String {
    render_text_in(r, Lang::En)
}

/// [`render_text`] in `lang`.
pub fn render_text_in(r: &RuntimeEstimate, lang: Lang) -> String {
    let s = &r.summary;
    let mut out = String::new();
    if let Some(why) = &s.why {
        let _ = writeln!(out, "{}", why.in_lang(lang));
    }
    let args = [
        ("recipe", s.recipe.as_str().into()),
        ("model", s.model.as_str().into()),
    ];
    let _ = writeln!(out, "{}", lang.t_args("report-runtime-recipe-model", &args));
    let part = |b: Option<u64>| match b {
        Some(b) => gib(b),
        None => lang.t("report-runtime-not-modelled"),
    };
    let compute = match &s.compute_label {
        Some(l) => l.in_lang(lang),
        None => lang.t("report-est-compute"),
    };
    let source = s.overhead_source.in_lang(lang);
    let overhead = match s.overhead_gpu_bytes {
        Some(b) => lang.t_args(
            "report-runtime-overhead",
            &[("bytes", gib(b).into()), ("source", source.into())],
        ),
        None => lang.t_args(
            "report-runtime-overhead",
            &[("bytes", words::UNKNOWN.into()), ("source", source.into())],
        ),
    };
    // A total with an unknown part is only the known parts: a floor, said as one.
    let total = if s.is_partial() {
        format!("≥ {}", gib(s.total_gpu_bytes))
    } else {
        gib(s.total_gpu_bytes)
    };
    for (what, value) in [
        (lang.t("report-est-weights"), gib(s.weights_gpu_bytes)),
        (lang.t("report-est-kv-cache"), part(s.kv_cache_gpu_bytes)),
        (compute, part(s.compute_gpu_bytes)),
        (lang.t("report-est-overhead"), overhead),
        (lang.t("report-est-total"), total),
    ] {
        let _ = writeln!(out, "  {} {value}", pad_end(&what, 18));
    }
    if let Some(c) = s.n_ctx {
        let holds = pad_end(&lang.t("report-runtime-kv-holds"), 18);
        let tokens = lang.t_args("report-runtime-tokens", &[("n", thousands(c).into())]);
        let _ = writeln!(out, "  {holds} {tokens}");
    }
    if !s.reported.is_empty() {
        let _ = writeln!(out, "{}", lang.t("report-runtime-reports"));
        for f in &s.reported {
            let _ = writeln!(
                out,
                "  {}: {}  — {}",
                f.what.in_lang(lang),
                reported_value(f, gib, lang),
                f.source
            );
        }
    }
    for n in &s.not_modelled {
        let what = n.in_lang(lang).into();
        let line = lang.t_args("report-explain-not-modelled", &[("what", what)]);
        let _ = writeln!(out, "{line}");
    }
    inputs_lines(&mut out, &r.inputs, lang);
    out
}

/// The inputs, a line each (`name = value (source)`).
fn inputs_lines(out: &mut String, inputs: &[gpuledger_model::estimate_input::Input], lang: Lang) {
    let _ = writeln!(out, "{}", lang.t("report-est-inputs"));
    // Values and sources quote command lines, file paths and log lines: escaped for the terminal.
    for i in inputs {
        let value = term_safe(&i.value.in_lang(lang)).into_owned();
        let source = term_safe(&input_source_in(&i.source, lang)).into_owned();
        let args = [
            ("name", term_safe(&i.name.in_lang(lang)).into_owned().into()),
            ("value", value.into()),
            ("source", source.into()),
        ];
        let _ = writeln!(out, "  {}", lang.t_args("report-runtime-input", &args));
    }
}

/// [`render_text`], then measured − estimated where the driver measured the process and every
/// part of the estimate is known (a difference with a floor would mean nothing).
pub fn render_beside_measured(r: &RuntimeEstimate, measured: Option<u64>) -> String {
    render_beside_measured_in(r, measured, Lang::En)
}

/// [`render_beside_measured`] in `lang`.
pub fn render_beside_measured_in(r: &RuntimeEstimate, measured: Option<u64>, lang: Lang) -> String {
    let mut out = render_text_in(r, lang);
    if let (Some(m), false) = (measured, r.summary.is_partial()) {
        let driver = format!("{} ", lang.t("report-runtime-driver"));
        out.push_str(&measured_vs_estimated_in(
            lang,
            m,
            &driver,
            r.summary.total_gpu_bytes,
            Some(r.summary.weights_gpu_bytes),
        ));
        out.push('\n');
    }
    out
}

#[cfg(test)]
mod tests {
    use super::*;
    use gpuledger_model::EstimatedMemory;

    /// SGLang-shaped: the total is the static pool, compute unknown.
    fn sglang(compute: Option<u64>) -> RuntimeEstimate {
        RuntimeEstimate {
            summary: EstimatedMemory {
                recipe: "sglang".into(),
                model: "m".into(),
                weights_gpu_bytes: 4 << 30,
                kv_cache_gpu_bytes: Some(2 << 30),
                compute_gpu_bytes: compute,
                overhead_gpu_bytes: Some(1 << 30),
                total_gpu_bytes: 8 << 30,
                ..Default::default()
            },
            inputs: vec![],
        }
    }

    #[test]
    fn inputs_say_where_they_came_from_in_the_words_of_every_recipe() {
        use gpuledger_model::estimate_input::{Input, InputSource};
        let mut r = sglang(None);
        r.inputs = vec![
            Input::new(
                "mem_fraction_static",
                0.8,
                InputSource::Flag {
                    flag: "--mem-fraction-static 0.8 (/proc/7/cmdline)".into(),
                },
            ),
            Input::new(
                "device memory total",
                80u64 << 30,
                InputSource::Measured {
                    detail: "the driver".into(),
                },
            ),
        ];
        let t = render_text(&r);
        assert!(
            t.ends_with("inputs:\n  mem_fraction_static = 0.8  (flag --mem-fraction-static 0.8 (/proc/7/cmdline))\n  device memory total = 85899345920  (measured: the driver)\n"),
            "{t}"
        );
    }

    #[test]
    fn a_log_line_in_an_input_cannot_drive_the_terminal() {
        use gpuledger_model::estimate_input::{Input, InputSource};
        let mut r = sglang(None);
        r.inputs = vec![Input::new(
            "MXFP4 experts as vLLM pads them",
            "x\x1b[2J",
            InputSource::Runtime {
                detail: "vllm.log: \x1b]0;owned\x07Using Marlin backend".into(),
            },
        )];
        let t = render_text(&r);
        assert!(!t.contains('\x1b') && !t.contains('\x07'), "{t:?}");
    }

    #[test]
    fn a_total_with_an_unknown_part_is_a_floor() {
        let t = render_beside_measured(&sglang(None), Some(9 << 30));
        assert!(t.contains("  total              ≥ 8.00 GiB\n"), "{t}");
        assert!(!t.contains("measured"), "{t}");
        let t = render_beside_measured(&sglang(Some(1 << 30)), Some(9 << 30));
        assert!(t.contains("  total              8.00 GiB\n"), "{t}");
        assert!(
            t.contains("measured 9 GiB (driver) vs estimated 8 GiB"),
            "{t}"
        );
    }
}
