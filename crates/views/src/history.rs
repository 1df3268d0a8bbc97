//! `gpuledger history`'s text table: one line per recorded sample, written as it is read (a
//! long recording is never held whole), so the columns have fixed minimum widths and a value
//! wider than its column moves only its own line. Lined up by the one aligner ([`Columns`]).

use crate::columns::{Align, Columns};
use gpuledger_lang::Lang;
use gpuledger_model::term_safe;
use gpuledger_model::units::human_opt;
use gpuledger_model::words::{or_unknown, or_unknown_with, UNKNOWN};

use Align::{Left, Right};

/// One device sample.
#[derive(Debug, Clone, Default)]
pub struct DeviceLine {
    /// RFC 3339, as the recording's time.
    pub time: String,
    pub index: u32,
    pub used: Option<u64>,
    pub free: Option<u64>,
    pub gpu_percent: Option<u32>,
    pub temperature_c: Option<i32>,
    pub power_mw: Option<u64>,
}

/// One process on one device in a sample.
#[derive(Debug, Clone, Default)]
pub struct ProcessLine<'a> {
    pub time: String,
    pub index: u32,
    pub pid: u32,
    pub name: Option<&'a str>,
    pub memory_bytes: Option<u64>,
    pub sm_percent: Option<u32>,
    pub source: &'a str,
    /// Why the memory is unknown, when it is.
    pub reason: Option<&'a str>,
}

const DEVICE_ALIGN: [Align; 7] = [Left, Right, Right, Right, Right, Right, Right];
const DEVICE_WIDTHS: [usize; 7] = [24, 4, 11, 11, 5, 5, 8];
const PROCESS_ALIGN: [Align; 8] = [Left, Right, Right, Left, Right, Right, Left, Left];
const PROCESS_WIDTHS: [usize; 7] = [24, 4, 8, 16, 11, 5, 6];

fn columns<'a>(align: &'a [Align], widths: &[usize]) -> Columns<'a> {
    widths
        .iter()
        .enumerate()
        .fold(Columns::new(align).gap(1), |c, (i, &w)| c.min_width(i, w))
}

pub fn device_header() -> String {
    device_header_in(Lang::En)
}

/// [`device_header`] in `lang` (the columns keep their widths by display width).
pub fn device_header_in(lang: Lang) -> String {
    let keys = [
        "report-history-col-time",
        "report-col-gpu",
        "report-history-col-used",
        "report-history-col-free",
        "report-col-gpu-pct",
        "report-col-temp",
        "report-history-col-power-w",
    ];
    columns(&DEVICE_ALIGN, &DEVICE_WIDTHS).render(&[keys.map(|k| lang.t(k)).to_vec()])
}

pub fn device_line(d: &DeviceLine) -> String {
    columns(&DEVICE_ALIGN, &DEVICE_WIDTHS).render(&[vec![
        d.time.clone(),
        d.index.to_string(),
        human_opt(d.used),
        human_opt(d.free),
        or_unknown(d.gpu_percent),
        or_unknown(d.temperature_c),
        or_unknown_with(d.power_mw, |mw| format!("{:.1}", mw as f64 / 1000.0)),
    ]])
}

pub fn process_header() -> String {
    process_header_in(Lang::En)
}

/// [`process_header`] in `lang`.
pub fn process_header_in(lang: Lang) -> String {
    let keys = [
        "report-history-col-time",
        "report-col-gpu",
        "report-col-pid",
        "report-col-name",
        "report-col-memory",
        "report-col-sm-pct",
        "report-col-source",
    ];
    columns(&PROCESS_ALIGN, &PROCESS_WIDTHS).render(&[keys.map(|k| lang.t(k)).to_vec()])
}

/// Names, sources and reasons come from the recording: escaped, so a control character in a
/// process name cannot move the terminal's cursor. A reason the recording keeps as English is
/// said in `lang` where it is one of the catalogue's sentences without values.
pub fn process_line(p: &ProcessLine, lang: Lang) -> String {
    let mut row = vec![
        p.time.clone(),
        p.index.to_string(),
        p.pid.to_string(),
        term_safe(p.name.unwrap_or(UNKNOWN)).into_owned(),
        human_opt(p.memory_bytes),
        or_unknown(p.sm_percent),
        term_safe(p.source).into_owned(),
    ];
    if let Some(r) = p.reason {
        // Set apart by two spaces from the source, as before the aligner.
        let r = gpuledger_lang::Said::verbatim(r).in_lang(lang);
        row.push(format!(" ({})", term_safe(&r)));
    }
    columns(&PROCESS_ALIGN, &PROCESS_WIDTHS).render(&[row])
}

#[cfg(test)]
mod tests {
    use super::*;

    /// Chinese headings take two columns a character: the columns still start where the rows'
    /// do (the English header's places), and the header is as wide.
    #[test]
    fn chinese_headers_keep_the_columns() {
        use crate::columns::display_width;
        let at = |h: &str, pat: &str| h.find(pat).map(|i| display_width(&h[..i]));
        for lang in [Lang::ZhCn, Lang::ZhTw] {
            let (en, zh) = (device_header(), device_header_in(lang));
            assert_eq!(display_width(&en), display_width(&zh), "{en}{zh}");
            assert_eq!(at(&en, "GPU%"), at(&zh, "GPU%"), "{en}{zh}");
            let (en, zh) = (process_header(), process_header_in(lang));
            assert_eq!(at(&en, "PID"), at(&zh, "PID"), "{en}{zh}");
            assert_eq!(at(&en, "SM%"), at(&zh, "SM%"), "{en}{zh}");
        }
    }

    #[test]
    fn device_lines_line_up_under_their_header() {
        let d = DeviceLine {
            time: "2026-11-29T08:00:00.000Z".into(),
            index: 1,
            used: Some(6 << 30),
            free: None,
            gpu_percent: Some(37),
            temperature_c: None,
            power_mw: Some(215_000),
        };
        let head = device_header();
        let line = device_line(&d);
        assert_eq!(head.len(), line.len(), "{head}{line}");
        assert!(line.ends_with("  215.0\n"), "{line}");
        assert!(line.contains(" n/a "), "{line}");
    }

    #[test]
    fn a_process_line_escapes_its_name_and_keeps_the_reason_apart() {
        let p = ProcessLine {
            time: "2026-11-29T08:00:00.000Z".into(),
            index: 0,
            pid: 4242,
            name: Some("evil\u{1b}[2J"),
            memory_bytes: None,
            sm_percent: None,
            source: "nvml",
            reason: Some("NOT_AVAILABLE"),
        };
        let line = process_line(&p, Lang::En);
        assert!(!line.contains('\u{1b}'), "{line:?}");
        assert!(
            line.trim_end().ends_with("nvml    (NOT_AVAILABLE)"),
            "{line}"
        );
        let head = process_header();
        assert_eq!(head.find("SOURCE"), line.find("nvml"), "{head}{line}");
    }
}
