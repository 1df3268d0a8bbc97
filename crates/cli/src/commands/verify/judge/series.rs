//! The verdicts on a series of readings, one a step: a per-process source's view of the child
//! ([`judge_process`]), a device-wide figure ([`judge_device`]), the child's resident memory on a
//! CPU device ([`judge_rss`]). Each expects the workload's shape (present at context, +N, −N,
//! gone) within a tolerance, and names the first step that is off.

use super::record::{step_said, Check, Record, Verdict, STEPS};
use gpuledger_lang::Said;
use gpuledger_model::units::human_bytes;
use gpuledger_model::verdict::VerdictKind;

/// One source's view of the child at one step.
#[derive(Debug, Clone, PartialEq)]
pub enum Seen {
    Absent,
    Unknown(Said),
    Bytes(u64),
}

impl Seen {
    fn bytes(&self) -> Option<u64> {
        match self {
            Seen::Bytes(b) => Some(*b),
            _ => None,
        }
    }
    fn show(&self) -> String {
        match self {
            Seen::Absent => "not listed".into(),
            Seen::Unknown(_) => "listed, memory n/a".into(),
            Seen::Bytes(b) => human_bytes(*b),
        }
    }
}

fn near(a: i64, b: i64, tol: u64) -> bool {
    a.abs_diff(b) <= tol
}

fn signed(b: i64) -> String {
    if b < 0 {
        format!("-{}", human_bytes(b.unsigned_abs()))
    } else {
        format!("+{}", human_bytes(b as u64))
    }
}

/// The checks of one verdict as they are made, and the first that is off: its step and, where
/// known, by how much.
#[derive(Default)]
struct Checks {
    list: Vec<Check>,
    first_off: Option<(String, Option<u64>)>,
}

impl Checks {
    fn push(&mut self, step: &str, expected: String, observed: String, ok: bool, by: Option<u64>) {
        if !ok && self.first_off.is_none() {
            self.first_off = Some((step.to_string(), by));
        }
        self.list.push(Check {
            step: step.into(),
            expected,
            observed,
            ok,
        });
    }

    /// A change from `from` to `to` that should be `want` (within `tol`); `unknown` is what is
    /// observed where the change cannot be worked out.
    fn change(
        &mut self,
        step: &str,
        (from, to): (Option<u64>, Option<u64>),
        want: i64,
        tol: u64,
        unknown: String,
    ) {
        let d = from.zip(to).map(|(a, b)| b as i64 - a as i64);
        self.push(
            step,
            signed(want),
            d.map(signed).unwrap_or(unknown),
            d.is_some_and(|d| near(d, want, tol)),
            d.map(|d| d.abs_diff(want)),
        );
    }

    /// "off by N at STEP", or "off at STEP" where a reading is missing (a made-up "by 0 B"
    /// would read as a measurement); `None` where every check is ok.
    fn off_text(&self) -> Option<Said> {
        let (step, by) = self.first_off.as_ref()?;
        let step = ("step", step_said(step).into());
        Some(match by {
            Some(b) => Said::new(
                "report-verify-off-by",
                vec![("by", human_bytes(*b).into()), step],
            ),
            None => Said::new("report-verify-off-at", vec![step]),
        })
    }

    fn verdict(self, source: &str, (verdict, text): (VerdictKind, Said), witness: bool) -> Verdict {
        Verdict {
            source: source.into(),
            verdict,
            text,
            witness,
            checks: self.list,
        }
    }
}

/// Verdicts for a series of per-step readings of the child's memory (one source).
pub fn judge_process(source: &str, series: &[Seen], n: u64, tol: u64, witness: bool) -> Verdict {
    let present = |s: &Seen| !matches!(s, Seen::Absent);
    let get = |i: usize| series.get(i).cloned().unwrap_or(Seen::Absent);
    let (idle, ctx, alloc, freed, exited) = (get(0), get(1), get(2), get(3), get(4));
    let mut c = Checks::default();
    let gone = !present(&idle) || idle.bytes() == Some(0);
    c.push("idle", "not listed".into(), idle.show(), gone, idle.bytes());
    let listed = "listed (a context holds memory)".into();
    c.push("context", listed, ctx.show(), present(&ctx), None);
    for (step, a, b, want) in [
        ("allocated", &ctx, &alloc, n as i64),
        ("freed", &alloc, &freed, -(n as i64)),
    ] {
        c.change(step, (a.bytes(), b.bytes()), want, tol, b.show());
    }
    let gone = !present(&exited);
    c.push(
        "exited",
        "not listed".into(),
        exited.show(),
        gone,
        exited.bytes(),
    );

    let unknown = series.iter().find_map(|s| match s {
        Seen::Unknown(r) => Some(r.clone()),
        _ => None,
    });
    let outcome = if series.iter().all(|s| !present(s)) {
        cannot_see(Said::new("report-verify-never-listed", vec![]))
    } else if series.iter().all(|s| s.bytes().is_none()) {
        cannot_see(unknown.unwrap_or_default())
    } else if let Some(off) = c.off_text() {
        (VerdictKind::Off, off_because(off, explain(series, n, tol)))
    } else {
        ok()
    };
    c.verdict(source, outcome, witness)
}

/// `cannot see (why)`.
fn cannot_see(why: Said) -> (VerdictKind, Said) {
    let text = Said::new("report-verify-cannot-see", vec![("why", why.into())]);
    (VerdictKind::CannotSee, text)
}

fn ok() -> (VerdictKind, Said) {
    (VerdictKind::Ok, Said::new("report-verify-ok", vec![]))
}

/// `off … (why)`, or without the why where the shape says none.
fn off_because(off: Said, why: Option<Said>) -> Said {
    match why {
        Some(w) => Said::new(
            "report-verify-off-why",
            vec![("off", off.into()), ("why", w.into())],
        ),
        None => off,
    }
}

/// Why a per-process series is off, when its shape says so.
fn explain(series: &[Seen], n: u64, tol: u64) -> Option<Said> {
    let said = |key| Some(Said::new(key, vec![]));
    let b = |i: usize| series.get(i).and_then(Seen::bytes);
    let absent = |i: usize| matches!(series.get(i), Some(Seen::Absent) | None);
    // One step late: nothing at context, the context at allocated, the allocation at freed.
    if absent(1) {
        if let (Some(a), Some(f)) = (b(2), b(3)) {
            if near(f as i64 - a as i64, n as i64, tol) {
                return said("report-verify-why-lag");
            }
        }
    }
    if let (Some(c), Some(a)) = (b(1), b(2)) {
        let d = a as i64 - c as i64;
        if near(d, 2 * n as i64, 2 * tol) {
            return said("report-verify-why-twice");
        }
        if d == 0 {
            return said("report-verify-why-no-show");
        }
    }
    if series.len() > 4 && !absent(4) {
        return said("report-verify-why-still-listed");
    }
    None
}

/// Device-wide checks: used memory moves by ±N with the allocation and returns to where it was
/// after the exit; the unattributed remainder does not move at all.
pub fn judge_device(
    source: &str,
    used: &[Option<u64>],
    n: u64,
    tol: u64,
    unattributed: bool,
) -> Verdict {
    let get = |i: usize| used.get(i).copied().flatten();
    let show = |v: Option<u64>| v.map(human_bytes).unwrap_or_else(|| "n/a".into());
    let mut c = Checks::default();
    let mut add = |step: &str, base: Option<u64>, v: Option<u64>, want: i64| {
        c.change(step, (base, v), want, tol, show(v));
    };
    if unattributed {
        for (i, step) in STEPS.iter().enumerate().skip(1) {
            add(step, get(0), get(i), 0);
        }
    } else {
        add("allocated", get(1), get(2), n as i64);
        add("freed", get(2), get(3), -(n as i64));
        add("exited", get(0), get(4), 0);
    }
    let outcome = if used.iter().all(Option::is_none) {
        cannot_see(Said::new(
            if unattributed {
                "report-verify-unattributed-unknown"
            } else {
                "report-verify-used-unknown"
            },
            vec![],
        ))
    } else if let Some(off) = c.off_text() {
        let why = unattributed.then(|| Said::new("report-verify-why-unaccounted", vec![]));
        (VerdictKind::Off, off_because(off, why))
    } else {
        ok()
    };
    c.verdict(source, outcome, false)
}

/// A CPU device's allocation is host memory in the child: its resident memory (reported by the
/// child after each step) should move by +N when it allocates and fills, and by −N when it frees.
/// A witness that the workload really ran, not a reading of gpuledger's.
pub fn judge_rss(rec: &Record) -> Verdict {
    let rss = |step: &str| {
        rec.steps
            .iter()
            .find(|s| s.name == step)
            .and_then(|s| s.child.as_ref()?.rss_bytes)
    };
    let n = rec.size_bytes;
    let mut c = Checks::default();
    for (step, from, to, want) in [
        ("allocated", "context", "allocated", n as i64),
        ("freed", "allocated", "freed", -(n as i64)),
    ] {
        c.change(
            step,
            (rss(from), rss(to)),
            want,
            rec.tolerance_bytes,
            "n/a".into(),
        );
    }
    let outcome = if rss("allocated").is_none() {
        cannot_see(Said::new("report-verify-no-rss", vec![]))
    } else if let Some(off) = c.off_text() {
        (VerdictKind::Off, off)
    } else {
        ok()
    };
    c.verdict("host memory (the child's RSS)", outcome, true)
}
