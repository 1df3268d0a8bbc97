//! `gpuledger plot`'s chart: device memory and GPU % over time, top processes stacked, as SVG
//! (the data is read and bucketed by `gpuledger_history::plot::gather`).
//!
//! Hand-written SVG rather than plotters: plotters needs a font backend (font-kit with system
//! fontconfig, or ab_glyph plus a bundled font file) to lay out axis labels even for SVG output;
//! the chart here is a few paths, polylines and text elements, with no dependency, output that
//! is the same on every machine, and axis ranges the tests can read back. Its words are in the
//! reader's language; `data-*` attributes, which scripts and tests read, stay English.

use gpuledger_lang::Lang;
use gpuledger_model::time::format_ms;
use gpuledger_model::units::human_bytes;
use std::fmt::Write;
use unicode_width::UnicodeWidthStr;

/// A series label and its value per bucket.
pub type Labelled = (String, Vec<Option<u64>>);

/// One device's chart data, bucketed.
#[derive(Debug, Clone)]
pub struct DevicePlot {
    pub label: String,
    pub uuid: String,
    pub total_bytes: Option<u64>,
    /// Bucket start times (Unix ms) of the representative sample, one per bucket with data.
    pub times: Vec<i64>,
    pub used: Vec<Option<u64>>,
    pub gpu_percent: Vec<Option<f64>>,
    /// Top processes, largest first: label and memory per bucket (`None` = not present or unknown).
    pub processes: Vec<Labelled>,
    /// Sum of the other processes' known memory per bucket.
    pub others: Vec<u64>,
}

impl DevicePlot {
    /// Attributed to the shown processes plus the others, per bucket.
    pub fn attributed(&self, i: usize) -> u64 {
        self.processes.iter().filter_map(|(_, v)| v[i]).sum::<u64>() + self.others[i]
    }
}

const W: f64 = 1000.0;
const PANEL_H: f64 = 380.0;
const LEFT: f64 = 90.0;
const RIGHT: f64 = 60.0;
const TOP: f64 = 50.0;
const BOTTOM: f64 = 60.0;
/// Process colours. No red in it: red is GPU % alone, so a process is never mistaken for it.
const COLORS: [&str; 8] = [
    "#4e79a7", "#f28e2b", "#59a14f", "#76b7b2", "#edc948", "#b07aa1", "#9c755f", "#a0cbe8",
];
/// GPU % (the right axis): red, drawn thicker than the memory lines.
const GPU_COLOR: &str = "#d00000";
/// Estimated text width in px: sans-serif averages about 0.6 em a character; 0.62 leaves room.
/// Every text the chart places is laid out with this, so boxes never overlap.
/// Counted in display columns: a Han character is two, about as wide as it is drawn.
fn text_width(text: &str, font_size: f64) -> f64 {
    text.width() as f64 * font_size * 0.62
}
const LEGEND_FONT: f64 = 10.0;
const LEGEND_ROW: f64 = 16.0;

/// XML-escaped, with control characters (which XML 1.0 cannot hold, even as references) shown
/// as escapes: a process name with ESC would otherwise make the SVG unreadable.
fn esc(s: &str) -> String {
    gpuledger_model::term_safe(s)
        .replace('&', "&amp;")
        .replace('<', "&lt;")
        .replace('>', "&gt;")
        .replace('"', "&quot;")
}

/// A tick step from 1, 2, 5 × 10^k bytes-in-GiB-ish units giving at most `max` ticks.
fn nice_step(range: f64, max: usize) -> f64 {
    let raw = range / max as f64;
    let mag = 10f64.powf(raw.log10().floor());
    for m in [1.0, 2.0, 5.0, 10.0] {
        if m * mag >= raw {
            return m * mag;
        }
    }
    10.0 * mag
}

const TIME_STEPS: [i64; 14] = [
    1_000,
    5_000,
    10_000,
    30_000,
    60_000,
    300_000,
    900_000,
    1_800_000,
    3_600_000,
    10_800_000,
    21_600_000,
    43_200_000,
    86_400_000,
    604_800_000,
];

/// Render the chart. `title` goes on top; an empty `plots` gives an SVG that says so. Each panel
/// is as tall as its legend needs: the legend has its own rows under the panel title and wraps,
/// so no text is drawn over another.
pub fn render_svg(plots: &[DevicePlot], title: &str, lang: Lang) -> String {
    let mut body = String::new();
    let mut y = TOP;
    for p in plots {
        y += panel(&mut body, p, y, lang);
    }
    let h = if plots.is_empty() { TOP + PANEL_H } else { y };
    let mut s = String::new();
    let _ = writeln!(
        s,
        r#"<svg xmlns="http://www.w3.org/2000/svg" width="{W}" height="{h}" viewBox="0 0 {W} {h}" font-family="sans-serif" font-size="12">"#
    );
    let _ = writeln!(s, r##"<rect width="100%" height="100%" fill="#ffffff"/>"##);
    let _ = writeln!(
        s,
        r#"<text x="{}" y="24" font-size="16" text-anchor="middle">{}</text>"#,
        W / 2.0,
        esc(title)
    );
    if plots.is_empty() {
        let _ = writeln!(
            s,
            r#"<text x="{}" y="{}" text-anchor="middle">{}</text>"#,
            W / 2.0,
            TOP + 40.0,
            esc(&lang.t("report-plot-no-samples"))
        );
    }
    s.push_str(&body);
    s.push_str("</svg>\n");
    s
}

/// Legend items placed left to right from `x0`, wrapping before `x_max`: (row, x, label, colour).
fn legend_layout(
    items: &[(String, &'static str)],
    x0: f64,
    x_max: f64,
) -> Vec<(usize, f64, String)> {
    let mut out = Vec::new();
    let (mut row, mut x) = (0, x0);
    for (label, _) in items {
        let short: String = label.chars().take(40).collect();
        let w = 13.0 + text_width(&short, LEGEND_FONT);
        if x > x0 && x + w > x_max {
            row += 1;
            x = x0;
        }
        out.push((row, x, short));
        x += w + 14.0;
    }
    out
}

/// The memory axis's top: the data's peak with a tenth of headroom, on a round step. The card's
/// total is included when it lies within that range (then its dashed line is on the chart);
/// otherwise it stays off the scale and the panel title says so, so a GPU's processes are not
/// flattened against an axis sized for the whole card. Returns (top, step).
fn memory_scale(data_max: u64, total: Option<u64>) -> (f64, f64) {
    const GIB: f64 = 1024.0 * 1024.0 * 1024.0;
    let want = (data_max as f64 * 1.1).max(1.0);
    let step = nice_step(want / GIB, 6) * GIB;
    let mut top = (want / step).ceil() * step;
    if let Some(t) = total.map(|t| t as f64) {
        if t > top && t <= top + step {
            top = (t / step).ceil() * step;
        }
    }
    (top, step)
}

/// Where one panel's plot area lies and how values map into it.
struct PlotArea {
    x_left: f64,
    x_right: f64,
    y_top: f64,
    y_bottom: f64,
    t0: i64,
    t1: i64,
    /// Memory axis top and grid step, bytes.
    ymax: f64,
    step: f64,
}

impl PlotArea {
    fn x(&self, t: i64) -> f64 {
        let tspan = (self.t1 - self.t0).max(1) as f64;
        self.x_left + (t - self.t0) as f64 / tspan * (self.x_right - self.x_left)
    }
    fn y(&self, bytes: f64) -> f64 {
        self.y_bottom - bytes / self.ymax * (self.y_bottom - self.y_top)
    }
    fn y_pct(&self, pct: f64) -> f64 {
        self.y_bottom - pct.clamp(0.0, 100.0) / 100.0 * (self.y_bottom - self.y_top)
    }
}

/// Draw one device's panel at `y0`; returns its height. The steps: the legend is laid out first
/// (its rows decide where the plot starts), then the title, axes, stacked areas, lines, legend.
fn panel(s: &mut String, p: &DevicePlot, y0: f64, lang: Lang) -> f64 {
    let (x_left, x_right) = (LEFT, W - RIGHT);
    let layers = stack_layers(p, lang);
    let mut items: Vec<(String, &'static str)> = vec![
        (lang.t("report-plot-used"), "#222222"),
        (lang.t("report-plot-gpu-right-axis"), GPU_COLOR),
    ];
    items.extend(layers.iter().map(|l| (l.label.clone(), l.color)));
    let legend = legend_layout(&items, x_left, x_right);
    let legend_rows = legend.last().map_or(0, |l| l.0 + 1) as f64;
    let legend_y = y0 + 40.0;
    let y_top = legend_y + legend_rows * LEGEND_ROW;
    let height = (y_top - y0) + (PANEL_H - 30.0 - BOTTOM) + BOTTOM;
    let data_max = p
        .used
        .iter()
        .flatten()
        .copied()
        .chain((0..p.times.len()).map(|i| p.attributed(i)))
        .max()
        .unwrap_or(0);
    let (ymax, step) = memory_scale(data_max, p.total_bytes);
    let area = PlotArea {
        x_left,
        x_right,
        y_top,
        y_bottom: y0 + height - BOTTOM,
        t0: *p.times.first().unwrap_or(&0),
        t1: *p.times.last().unwrap_or(&0),
        ymax,
        step,
    };
    let _ = writeln!(
        s,
        r#"<g class="panel" data-device="{}" data-x-min="{}" data-x-max="{}" data-y-max="{ymax}" data-plot-left="{x_left}" data-plot-right="{x_right}" data-plot-top="{y_top}" data-plot-bottom="{}">"#,
        esc(&p.uuid),
        area.t0,
        area.t1,
        area.y_bottom
    );
    let total = match p.total_bytes {
        Some(t) if (t as f64) <= ymax => ("report-plot-total-dashed", human_bytes(t)),
        Some(t) => ("report-plot-total-above", human_bytes(t)),
        None => ("report-plot-total-na", String::new()),
    };
    let total = format!(" · {}", lang.t_args(total.0, &[("total", total.1.into())]));
    let _ = writeln!(
        s,
        r#"<text x="{x_left}" y="{}" font-size="14">{}{}</text>"#,
        y0 + 20.0,
        esc(&p.label),
        esc(&total)
    );
    value_axes(s, &area);
    time_axis(s, &area, lang);
    stacked_areas(s, p, &area, &layers);
    lines(s, p, &area);
    // Legend, on its own rows under the panel title.
    for ((row, lx, label), (_, color)) in legend.iter().zip(&items) {
        let ly = legend_y + *row as f64 * LEGEND_ROW;
        let _ = writeln!(
            s,
            r#"<rect class="swatch" x="{lx:.1}" y="{:.1}" width="10" height="10" fill="{color}"/><text class="legend" x="{:.1}" y="{ly:.1}" font-size="{LEGEND_FONT}">{}</text>"#,
            ly - 9.0,
            lx + 13.0,
            esc(label)
        );
    }
    s.push_str("</g>\n");
    height
}

/// The memory axis with its grid on the left, GPU % on the right.
fn value_axes(s: &mut String, a: &PlotArea) {
    let (x_left, x_right) = (a.x_left, a.x_right);
    let mut v = 0.0;
    while v <= a.ymax + 0.5 {
        let yy = a.y(v);
        let _ = writeln!(
            s,
            r##"<line class="grid" x1="{x_left}" y1="{yy:.1}" x2="{x_right}" y2="{yy:.1}" stroke="#e0e0e0"/>"##
        );
        let _ = writeln!(
            s,
            r#"<text class="y-tick" data-value="{v}" x="{}" y="{:.1}" text-anchor="end">{}</text>"#,
            x_left - 6.0,
            yy + 4.0,
            human_bytes(v as u64)
        );
        v += a.step;
    }
    for pct in [0, 25, 50, 75, 100] {
        let _ = writeln!(
            s,
            r#"<text class="y2-tick" data-value="{pct}" x="{}" y="{:.1}">{pct}%</text>"#,
            x_right + 6.0,
            a.y_pct(pct as f64) + 4.0
        );
    }
}

/// Ticks on round times (about ten), the span in words, and the plot's frame.
fn time_axis(s: &mut String, a: &PlotArea, lang: Lang) {
    let (t0, t1, y_bottom) = (a.t0, a.t1, a.y_bottom);
    let tstep = TIME_STEPS
        .iter()
        .copied()
        .find(|st| (t1 - t0) / st <= 10)
        // Beyond the table (years of samples): whole weeks, still about ten ticks.
        .unwrap_or_else(|| ((t1 - t0) / 10).div_euclid(604_800_000).max(1) * 604_800_000);
    let mut t = (t0 + tstep - 1).div_euclid(tstep) * tstep;
    while t <= t1 {
        let xx = a.x(t);
        let label = format_ms(t);
        let short = if tstep >= 86_400_000 {
            &label[..10]
        } else if tstep >= 60_000 {
            &label[11..16]
        } else {
            &label[11..19]
        };
        let _ = writeln!(
            s,
            r##"<line x1="{xx:.1}" y1="{y_bottom}" x2="{xx:.1}" y2="{}" stroke="#444"/>"##,
            y_bottom + 5.0
        );
        let _ = writeln!(
            s,
            r#"<text class="x-tick" data-value="{t}" x="{xx:.1}" y="{}" text-anchor="middle">{short}</text>"#,
            y_bottom + 18.0
        );
        t += tstep;
    }
    let _ = writeln!(
        s,
        r#"<text x="{}" y="{}" text-anchor="middle">{}</text>"#,
        (a.x_left + a.x_right) / 2.0,
        y_bottom + 38.0,
        esc(&lang.t_args(
            "report-plot-time-range",
            &[("from", format_ms(t0).into()), ("to", format_ms(t1).into())]
        ))
    );
    let _ = writeln!(
        s,
        r##"<rect x="{}" y="{}" width="{}" height="{}" fill="none" stroke="#444"/>"##,
        a.x_left,
        a.y_top,
        a.x_right - a.x_left,
        y_bottom - a.y_top
    );
}

/// Stacked areas: top processes, the others, then unattributed up to the device's used.
fn stacked_areas(s: &mut String, p: &DevicePlot, a: &PlotArea, layers: &[Layer]) {
    let n = p.times.len();
    if n == 0 {
        return;
    }
    let mut base = vec![0u64; n];
    for Layer {
        data_label,
        color,
        values: vals,
        ..
    } in layers
    {
        let mut d = String::new();
        for i in 0..n {
            let _ = write!(
                d,
                "{}{:.1},{:.1} ",
                if i == 0 { "M" } else { "L" },
                a.x(p.times[i]),
                a.y((base[i] + vals[i]) as f64)
            );
        }
        for i in (0..n).rev() {
            let _ = write!(d, "L{:.1},{:.1} ", a.x(p.times[i]), a.y(base[i] as f64));
        }
        d.push('Z');
        let _ = writeln!(
            s,
            r#"<path class="stack" data-label="{}" d="{d}" fill="{color}" fill-opacity="0.85" stroke="none"/>"#,
            esc(data_label)
        );
        for i in 0..n {
            base[i] += vals[i];
        }
    }
}

/// The device's used memory and GPU % as lines (unknown values break a line instead of dropping
/// it to 0), and the card's total dashed when it is on the scale.
fn lines(s: &mut String, p: &DevicePlot, a: &PlotArea) {
    let n = p.times.len();
    let polyline = |class: &str, color: &str, pts: Vec<Option<(f64, f64)>>, s: &mut String| {
        for seg in pts.split(|p| p.is_none()).filter(|seg| !seg.is_empty()) {
            let pts: Vec<String> = seg
                .iter()
                .flatten()
                .map(|(a, b)| format!("{a:.1},{b:.1}"))
                .collect();
            let _ = writeln!(
                s,
                r#"<polyline class="{class}" points="{}" fill="none" stroke="{color}" stroke-width="{}"/>"#,
                pts.join(" "),
                if class == "gpu" { 2.0 } else { 1.5 }
            );
        }
    };
    polyline(
        "used",
        "#222222",
        (0..n)
            .map(|i| p.used[i].map(|u| (a.x(p.times[i]), a.y(u as f64))))
            .collect(),
        s,
    );
    polyline(
        "gpu",
        GPU_COLOR,
        (0..n)
            .map(|i| p.gpu_percent[i].map(|g| (a.x(p.times[i]), a.y_pct(g))))
            .collect(),
        s,
    );
    if let Some(tb) = p.total_bytes.filter(|&t| t as f64 <= a.ymax) {
        let _ = writeln!(
            s,
            r##"<line class="total" x1="{}" y1="{:.1}" x2="{}" y2="{:.1}" stroke="#222" stroke-dasharray="6,4"/>"##,
            a.x_left,
            a.y(tb as f64),
            a.x_right,
            a.y(tb as f64)
        );
    }
}

/// One stacked layer: `data_label` names it for scripts (English, a process's own label),
/// `label` in the legend.
struct Layer {
    data_label: String,
    label: String,
    color: &'static str,
    values: Vec<u64>,
}

impl Layer {
    /// A layer of the chart's own (not a process): its English name for scripts, its key's
    /// words in the legend.
    fn own(data_label: &str, key: &str, lang: Lang, color: &'static str, values: Vec<u64>) -> Self {
        Layer {
            data_label: data_label.into(),
            label: lang.t(key),
            color,
            values,
        }
    }
}

/// The stacked layers: top processes, the others, then unattributed up to the device's used.
fn stack_layers(p: &DevicePlot, lang: Lang) -> Vec<Layer> {
    let n = p.times.len();
    let mut layers: Vec<Layer> = Vec::new();
    for (i, (label, vals)) in p.processes.iter().enumerate() {
        layers.push(Layer {
            data_label: label.clone(),
            label: label.clone(),
            color: COLORS[i % COLORS.len()],
            values: vals.iter().map(|v| v.unwrap_or(0)).collect(),
        });
    }
    if p.others.iter().any(|&o| o > 0) {
        let others = p.others.clone();
        let key = "report-plot-other-processes";
        layers.push(Layer::own("other processes", key, lang, "#bab0ac", others));
    }
    let unattributed: Vec<u64> = (0..n)
        .map(|i| {
            p.used[i]
                .map(|u| u.saturating_sub(p.attributed(i)))
                .unwrap_or(0)
        })
        .collect();
    layers.push(Layer::own(
        "unattributed (driver/system/other users)",
        "report-plot-unattributed",
        lang,
        "#d9d9d9",
        unattributed,
    ));
    layers
}

#[cfg(test)]
mod tests {
    use super::*;
    use unicode_width::UnicodeWidthChar;

    #[test]
    fn nice_steps() {
        assert_eq!(nice_step(140.0, 6), 50.0);
        assert_eq!(nice_step(24.0, 6), 5.0);
        assert_eq!(nice_step(0.5, 6), 0.1);
    }

    #[test]
    fn escapes_names() {
        assert_eq!(esc("a<b>&\"c\""), "a&lt;b&gt;&amp;&quot;c&quot;");
        assert_eq!(esc("x\x1b[2J\x07"), "x\\u001b[2J\\u0007");
    }

    const GIB: u64 = 1 << 30;

    /// A panel built by hand: `n` buckets, `used` flat, processes with long names.
    fn plot(name: &str, total: Option<u64>, used: u64, procs: &[(&str, u64)]) -> DevicePlot {
        let n = 50;
        DevicePlot {
            label: format!("GPU0 {name}"),
            uuid: "GPU-1".into(),
            total_bytes: total,
            times: (0..n).map(|i| 1_795_939_200_000 + i * 1000).collect(),
            used: vec![Some(used); n as usize],
            gpu_percent: (0..n).map(|i| Some((i * 2) as f64)).collect(),
            processes: procs
                .iter()
                .map(|(l, m)| (l.to_string(), vec![Some(*m); n as usize]))
                .collect(),
            others: vec![0; n as usize],
        }
    }

    /// The box a text element takes: its font size (inherited from the root when unset), its
    /// anchor, and 0.6 em a character, 1 em a wide one (the layout reserves 0.62 a column).
    fn text_boxes(svg: &str) -> Vec<(String, [f64; 4])> {
        let doc = roxmltree::Document::parse(svg).unwrap();
        let mut v = Vec::new();
        for n in doc.descendants() {
            let num = |a: &str| n.attribute(a).map(|v| v.parse::<f64>().unwrap());
            if n.has_tag_name("text") {
                let text: String = n.text().unwrap_or("").to_string();
                let fs = num("font-size").unwrap_or(12.0);
                let (x, y) = (num("x").unwrap(), num("y").unwrap());
                // A Han character is drawn 1 em wide (Noto CJK's advance), others about 0.6.
                let ems: f64 = text
                    .chars()
                    .map(|c| if c.width() == Some(2) { 1.0 } else { 0.6 })
                    .sum();
                let w = ems * fs;
                let x0 = match n.attribute("text-anchor") {
                    Some("middle") => x - w / 2.0,
                    Some("end") => x - w,
                    _ => x,
                };
                v.push((text, [x0, y - fs * 0.8, x0 + w, y + fs * 0.2]));
            } else if n.attribute("class") == Some("swatch") {
                let (x, y) = (num("x").unwrap(), num("y").unwrap());
                let (w, h) = (num("width").unwrap(), num("height").unwrap());
                v.push(("swatch".into(), [x, y, x + w, y + h]));
            }
        }
        v
    }

    #[test]
    fn no_text_overlaps_another_even_with_long_names_and_many_processes() {
        let procs: Vec<(String, u64)> = (0..8)
            .map(|i| {
                (
                    format!(
                        "python3 -m vllm.entrypoints.openai.api_server ({})",
                        1000 + i
                    ),
                    GIB,
                )
            })
            .collect();
        let procs: Vec<(&str, u64)> = procs.iter().map(|(l, m)| (l.as_str(), *m)).collect();
        let plots = [
            plot(
                "NVIDIA GeForce RTX 4090 Laptop GPU",
                Some(24 * GIB),
                12 * GIB,
                &procs,
            ),
            plot(
                "NVIDIA H100 80GB HBM3",
                Some(80 * GIB),
                70 * GIB,
                &procs[..2],
            ),
        ];
        let svg = render_svg(
            &plots,
            "GPU memory · a long title for the whole chart",
            Lang::En,
        );
        let boxes = text_boxes(&svg);
        assert!(boxes.len() > 30, "{}", boxes.len());
        for (i, (ta, a)) in boxes.iter().enumerate() {
            // Inside the picture.
            assert!(a[0] >= 0.0 && a[2] <= W, "{ta:?} runs off the side: {a:?}");
            for (tb, b) in &boxes[i + 1..] {
                let apart = a[2] <= b[0] || b[2] <= a[0] || a[3] <= b[1] || b[3] <= a[1];
                assert!(apart, "{ta:?} {a:?} overlaps {tb:?} {b:?}");
            }
        }
    }

    #[test]
    fn chinese_words_are_laid_out_by_display_width_and_scripts_keep_english_labels() {
        let procs: Vec<(String, u64)> = (0..8)
            .map(|i| {
                (
                    format!("通义千问-7B-Chat 推理服务 张三 ({})", 1000 + i),
                    GIB,
                )
            })
            .collect();
        let procs: Vec<(&str, u64)> = procs.iter().map(|(l, m)| (l.as_str(), *m)).collect();
        let mut p = plot(
            "NVIDIA GeForce RTX 4090 笔记本 GPU",
            Some(24 * GIB),
            12 * GIB,
            &procs,
        );
        p.others = vec![GIB; p.times.len()];
        let svg = render_svg(&[p], "显存与 GPU %", Lang::ZhCn);
        let boxes = text_boxes(&svg);
        for (i, (ta, a)) in boxes.iter().enumerate() {
            assert!(a[0] >= 0.0 && a[2] <= W, "{ta:?} runs off the side: {a:?}");
            for (tb, b) in &boxes[i + 1..] {
                let apart = a[2] <= b[0] || b[2] <= a[0] || a[3] <= b[1] || b[3] <= a[1];
                assert!(apart, "{ta:?} {a:?} overlaps {tb:?} {b:?}");
            }
        }
        let texts: Vec<&str> = boxes.iter().map(|(t, _)| t.as_str()).collect();
        for words in [
            "已用",
            "GPU %（右轴）",
            "其他进程",
            "未归属（驱动/系统/其他用户）",
        ] {
            assert!(texts.contains(&words), "{words} not in {texts:?}");
        }
        assert!(svg.contains("显卡总量 24 GiB（超出刻度）"), "{svg}");
        assert!(svg.contains("（UTC）"), "{svg}");
        // What scripts read stays the same in every language.
        assert!(svg.contains(r#"data-label="other processes""#), "{svg}");
        assert!(svg.contains(r#"data-label="unattributed (driver/system/other users)""#));
        assert!(
            !svg.contains("no samples") && !svg.contains("right axis"),
            "{svg}"
        );
    }

    #[test]
    fn the_scale_follows_the_data_and_the_total_is_marked() {
        let doc_of = |p: DevicePlot| render_svg(&[p], "t", Lang::En);
        // 10 GiB used on an 80 GiB card: the axis fits the data, the title names the total.
        let svg = doc_of(plot(
            "NVIDIA H100",
            Some(80 * GIB),
            10 * GIB,
            &[("llama (1)", 8 * GIB)],
        ));
        let doc = roxmltree::Document::parse(&svg).unwrap();
        let g = doc
            .descendants()
            .find(|n| n.attribute("class") == Some("panel"))
            .unwrap();
        let ymax: f64 = g.attribute("data-y-max").unwrap().parse().unwrap();
        assert!(
            ymax >= 11.0 * GIB as f64 && ymax <= 20.0 * GIB as f64,
            "{ymax}"
        );
        assert!(svg.contains("card total 80 GiB (above the scale)"), "{svg}");
        assert!(!svg.contains(r#"class="total""#));
        // 70 GiB used: the total is within reach, drawn as the dashed line at the top.
        let svg = doc_of(plot("NVIDIA H100", Some(80 * GIB), 70 * GIB, &[]));
        assert!(svg.contains("card total 80 GiB (dashed line)"), "{svg}");
        assert!(svg.contains(r#"class="total""#));
        assert!(
            svg.contains(&format!(r#"data-y-max="{}""#, 80 * GIB)),
            "{svg}"
        );
    }

    #[test]
    fn gpu_percent_has_a_colour_no_process_has() {
        let procs: Vec<(String, u64)> = (0..8).map(|i| (format!("p{i}"), GIB)).collect();
        let procs: Vec<(&str, u64)> = procs.iter().map(|(l, m)| (l.as_str(), *m)).collect();
        let svg = render_svg(
            &[plot("X", Some(80 * GIB), 20 * GIB, &procs)],
            "t",
            Lang::En,
        );
        let doc = roxmltree::Document::parse(&svg).unwrap();
        let gpu = doc
            .descendants()
            .find(|n| n.attribute("class") == Some("gpu"))
            .unwrap()
            .attribute("stroke")
            .unwrap();
        let rgb = |c: &str| {
            let v = u32::from_str_radix(&c[1..], 16).unwrap();
            [(v >> 16) as f64, ((v >> 8) & 255) as f64, (v & 255) as f64]
        };
        for n in doc
            .descendants()
            .filter(|n| n.attribute("class") == Some("stack"))
        {
            let fill = n.attribute("fill").unwrap();
            let (a, b) = (rgb(gpu), rgb(fill));
            let d = ((a[0] - b[0]).powi(2) + (a[1] - b[1]).powi(2) + (a[2] - b[2]).powi(2)).sqrt();
            assert!(d > 120.0, "{fill} is too close to GPU % {gpu} ({d:.0})");
        }
    }

    #[test]
    fn empty_range_says_so() {
        let svg = render_svg(&[], "t", Lang::En);
        let doc = roxmltree::Document::parse(&svg).unwrap();
        assert!(doc
            .descendants()
            .any(|n| n.text() == Some("no samples in the chosen time range")));
    }
}
