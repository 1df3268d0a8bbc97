//! `gpuledger estimate`'s fit check: whether an estimate fits in what a device has free now
//! (measured), and who holds that memory. Its JSON shape and its text.

use crate::columns::{or_unknown_with, Align, Columns};
use gpuledger_lang::{Lang, Said};
use gpuledger_model::term_safe;
use gpuledger_model::units::human_bytes;
use serde::Serialize;

/// Whether the estimate fits on a device, from a snapshot (measured) beside the estimate.
/// JSON: `{"available": true, "device": ..., "fits": ...}` or `{"available": false, "reason": ...}`.
#[derive(Debug)]
pub enum Fit {
    Checked {
        device: String,
        free_bytes: u64,
        total_bytes: Option<u64>,
        needed_bytes: u64,
        /// The overhead line was unknown and is not in `needed_bytes`.
        overhead_unknown: bool,
        fits: bool,
        /// Processes holding memory on the device, largest first (measured).
        holders: Vec<Holder>,
        unattributed_bytes: Option<u64>,
        replay: Option<String>,
    },
    NotAvailable {
        /// Why, as a sentence (English in JSON, the reader's language in the text).
        reason: Said,
    },
}

impl Serialize for Fit {
    fn serialize<S: serde::Serializer>(&self, s: S) -> Result<S::Ok, S::Error> {
        let v = match self {
            Fit::NotAvailable { reason } => {
                serde_json::json!({ "available": false, "reason": reason })
            }
            Fit::Checked {
                device,
                free_bytes,
                total_bytes,
                needed_bytes,
                overhead_unknown,
                fits,
                holders,
                unattributed_bytes,
                replay,
            } => serde_json::json!({
                "available": true,
                "device": device,
                "free_bytes": free_bytes,
                "total_bytes": total_bytes,
                "needed_bytes": needed_bytes,
                "overhead_unknown": overhead_unknown,
                "fits": fits,
                "holders": holders,
                "unattributed_bytes": unattributed_bytes,
                "replay": replay,
            }),
        };
        v.serialize(s)
    }
}

#[derive(Debug, Serialize)]
pub struct Holder {
    pub pid: u32,
    pub name: String,
    pub memory_bytes: Option<u64>,
    pub source: String,
}

/// A change that makes an estimate fit, checked by estimating again with it.
#[derive(Debug, Serialize)]
pub struct Change {
    /// The flags to add (or change), runnable as written: `--n-cpu-moe 12`, `-c 4096`.
    pub flags: String,
    /// What it does, in words (said in the reader's language; JSON has the English).
    pub what: gpuledger_lang::Said,
    pub needed_bytes: u64,
    pub free_bytes: u64,
}

/// The changes that would make it fit, one per line, with what each needs.
pub fn render_changes(changes: &[Change]) -> String {
    render_changes_in(changes, Lang::En)
}

/// [`render_changes`] in `lang`.
pub fn render_changes_in(changes: &[Change], lang: Lang) -> String {
    if changes.is_empty() {
        return String::new();
    }
    let mut rows = vec![[
        "report-fit-col-change",
        "report-fit-col-needs",
        "report-fit-col-free",
        "report-fit-col-what",
    ]
    .map(|k| lang.t(k))
    .to_vec()];
    for c in changes {
        rows.push(vec![
            term_safe(&c.flags).into_owned(),
            format!("~{}", human_bytes(c.needed_bytes)),
            human_bytes(c.free_bytes),
            term_safe(&c.what.in_lang(lang)).into_owned(),
        ]);
    }
    let mut s = format!("{}\n", lang.t("report-fit-changes"));
    s.push_str(
        &Columns::new(&[Align::Left, Align::Right, Align::Right, Align::Left])
            .indent("  ")
            .render(&rows),
    );
    s
}

/// The fit as text: the verdict, then who holds the device's memory now.
pub fn render_fit(f: &Fit) -> String {
    render_fit_in(f, Lang::En)
}

/// [`render_fit`] in `lang`.
pub fn render_fit_in(f: &Fit, lang: Lang) -> String {
    match f {
        Fit::NotAvailable { reason } => {
            let reason = reason.in_lang(lang).into();
            format!("{}\n", lang.t_args("report-fit-na", &[("reason", reason)]))
        }
        Fit::Checked {
            device,
            free_bytes,
            total_bytes,
            needed_bytes,
            overhead_unknown,
            fits,
            holders,
            unattributed_bytes,
            replay,
        } => {
            let mut s = String::new();
            if let Some(r) = replay {
                let replay = lang.t_args("report-fit-replay", &[("file", r.as_str().into())]);
                s.push_str(&format!("{replay}\n"));
            }
            let verdict = if *fits {
                let spare = human_bytes(free_bytes - needed_bytes);
                lang.t_args("report-fit-fits", &[("size", spare.into())])
            } else {
                let short = human_bytes(needed_bytes - free_bytes);
                lang.t_args("report-fit-short", &[("size", short.into())])
            };
            let key = if *overhead_unknown {
                "report-fit-on-overhead-unknown"
            } else {
                "report-fit-on"
            };
            let args = [
                ("device", device.as_str().into()),
                ("needed", human_bytes(*needed_bytes).into()),
                ("free", human_bytes(*free_bytes).into()),
                ("total", or_unknown_with(*total_bytes, human_bytes).into()),
                ("verdict", verdict.into()),
            ];
            s.push_str(&format!("{}\n", lang.t_args(key, &args)));
            if !holders.is_empty() || unattributed_bytes.is_some() {
                s.push_str(&format!("{}\n", lang.t("report-fit-held-by")));
                let mut rows: Vec<[String; 3]> = holders
                    .iter()
                    .map(|h| {
                        [
                            h.pid.to_string(),
                            term_safe(&h.name).into_owned(),
                            or_unknown_with(h.memory_bytes, human_bytes),
                        ]
                    })
                    .collect();
                if let Some(u) = unattributed_bytes {
                    rows.push([
                        "-".into(),
                        lang.t("report-fit-unattributed"),
                        human_bytes(*u),
                    ]);
                }
                let rows: Vec<Vec<String>> = rows.into_iter().map(Vec::from).collect();
                s.push_str(
                    &Columns::new(&[Align::Right, Align::Left, Align::Right])
                        .indent("  ")
                        .render(&rows),
                );
            }
            s
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    const GIB: u64 = 1 << 30;

    #[test]
    fn holders_line_up_with_the_unattributed_row() {
        let f = Fit::Checked {
            device: "GPU0 NVIDIA H200".into(),
            free_bytes: 100 * GIB,
            total_bytes: Some(140 * GIB),
            needed_bytes: 20 * GIB,
            overhead_unknown: false,
            fits: true,
            holders: vec![
                Holder {
                    pid: 4242,
                    name: "llama-server".into(),
                    memory_bytes: Some(16 * GIB),
                    source: "nvml".into(),
                },
                Holder {
                    pid: 77,
                    name: "x".into(),
                    memory_bytes: None,
                    source: "nvml".into(),
                },
            ],
            unattributed_bytes: Some(GIB / 2),
            replay: None,
        };
        let s = render_fit(&f);
        assert!(s.contains("-> fits, 80 GiB to spare"), "{s}");
        let lines: Vec<&str> = s
            .lines()
            .skip_while(|l| *l != "held now by:")
            .skip(1)
            .collect();
        assert_eq!(
            lines,
            [
                "  4242  llama-server   16 GiB",
                "    77  x                 n/a",
                "     -  unattributed  512 MiB",
            ],
            "{s}"
        );
    }

    #[test]
    fn json_says_whether_a_fit_was_checked() {
        let f = Fit::NotAvailable {
            reason: "no device".into(),
        };
        let v = serde_json::to_value(&f).unwrap();
        assert_eq!(v["available"], false);
        assert_eq!(render_fit(&f), "fit: no device\n");
    }
}
