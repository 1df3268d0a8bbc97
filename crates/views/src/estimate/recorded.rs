//! The estimate a recorded snapshot carries, as text for `explain` on a replay (the model file
//! is on the machine the snapshot was taken on, not here): its parts as recorded, beside the
//! measurement.

use super::measured_vs_estimated_in;
use crate::columns::pad_end;
use gpuledger_lang::Lang;
use gpuledger_model::units::human_opt;
use gpuledger_model::EstimatedMemory;
use std::fmt::Write;

/// The recorded parts and total (`≥` when a part is unknown), measured − estimated when the
/// driver measured the process and every part is known (a difference with a floor would mean
/// nothing), then what the recipe did not model.
pub fn render_recorded(r: &EstimatedMemory, measured: Option<u64>) -> String {
    render_recorded_in(r, measured, Lang::En)
}

/// [`render_recorded`] in `lang`.
pub fn render_recorded_in(r: &EstimatedMemory, measured: Option<u64>, lang: Lang) -> String {
    let mut out = String::new();
    let mut args = vec![
        ("recipe", r.recipe.as_str().into()),
        ("model", r.model.as_str().into()),
    ];
    let key = match r.n_ctx {
        Some(n) => {
            args.push(("context", n.to_string().into()));
            "report-recorded-context"
        }
        None => "report-recorded",
    };
    let _ = writeln!(out, "{}", lang.t_args(key, &args));
    let compute = match &r.compute_label {
        Some(l) => l.in_lang(lang),
        None => lang.t("report-recorded-compute-buffers"),
    };
    for (what, v) in [
        (lang.t("report-est-weights"), Some(r.weights_gpu_bytes)),
        (lang.t("report-est-kv-cache"), r.kv_cache_gpu_bytes),
        (compute.clone(), r.compute_gpu_bytes),
        (lang.t("report-est-overhead"), r.overhead_gpu_bytes),
    ] {
        let _ = write!(out, "  {} {:>10}", pad_end(&what, 16), human_opt(v));
        // The compute figure's word, as the live view's ESTIMATE pane says it.
        if what == compute && v.is_some() {
            let word = super::compute_precision_in(r.compute_exact, lang);
            let _ = write!(out, "  ({word})");
        }
        out.push('\n');
    }
    let total = pad_end(&lang.t("report-recorded-total-gpu"), 16);
    let _ = writeln!(out, "  {total} {:>10}", r.total_text());
    if let (Some(m), false) = (measured, r.is_partial()) {
        let w = Some(r.weights_gpu_bytes);
        let line = measured_vs_estimated_in(lang, m, "", r.total_gpu_bytes, w);
        let _ = writeln!(out, "{line}");
    }
    for n in &r.not_modelled {
        let what = n.in_lang(lang).into();
        let line = lang.t_args("report-explain-not-modelled", &[("what", what)]);
        let _ = writeln!(out, "  {line}");
    }
    out
}

#[cfg(test)]
mod tests {
    use super::*;

    fn estimate() -> EstimatedMemory {
        EstimatedMemory {
            recipe: "sglang".into(),
            model: "m".into(),
            weights_gpu_bytes: 4 << 30,
            kv_cache_gpu_bytes: Some(2 << 30),
            compute_gpu_bytes: Some(1 << 30),
            overhead_gpu_bytes: Some(1 << 30),
            total_gpu_bytes: 8 << 30,
            ..Default::default()
        }
    }

    #[test]
    fn a_complete_estimate_is_set_beside_the_measurement() {
        let t = render_recorded(&estimate(), Some(9 << 30));
        assert!(t.contains("  total GPU             8 GiB\n"), "{t}");
        assert!(t.contains("measured 9 GiB vs estimated 8 GiB"), "{t}");
    }

    /// `explain` of a saved snapshot says how exact the compute figure is, in the
    /// live view's word, from the estimate's own flag.
    #[test]
    fn the_compute_figure_says_exact_or_approximate() {
        let mut e = estimate();
        let t = render_recorded(&e, None);
        assert!(
            t.contains("  compute buffers       1 GiB  (approximate)\n"),
            "{t}"
        );
        e.compute_exact = true;
        let t = render_recorded(&e, None);
        assert!(
            t.contains("  compute buffers       1 GiB  (exact)\n"),
            "{t}"
        );
        e.compute_gpu_bytes = None;
        assert!(!render_recorded(&e, None).contains("(exact)"));
    }

    /// A part unknown: the total is a floor, said as one, and no difference is printed.
    #[test]
    fn a_partial_estimate_has_a_floor_and_no_difference() {
        let mut e = estimate();
        e.compute_gpu_bytes = None;
        e.total_gpu_bytes = 7 << 30;
        let t = render_recorded(&e, Some(9 << 30));
        assert!(t.contains("  total GPU           ≥ 7 GiB\n"), "{t}");
        assert!(!t.contains("measured"), "{t}");
    }
}
