//! One metric family of the text format: its header written once, before its first sample;
//! samples whose value is unknown left out; label values escaped and cut.

use gpuledger_model::redact_text;
use std::fmt::Write;

use super::MAX_LABEL_CHARS;

/// A numeric sample value: integers stay exact, floats that are not finite are dropped.
#[derive(Clone, Copy)]
pub(super) enum Val {
    U(u64),
    F(f64),
}

/// One metric family: header lines are written only if at least one sample is, so families with
/// nothing known do not appear at all.
pub(super) struct Family<'a> {
    out: &'a mut String,
    name: &'static str,
    help: &'static str,
    kind: &'static str,
    started: bool,
}

impl<'a> Family<'a> {
    pub(super) fn new(
        out: &'a mut String,
        name: &'static str,
        kind: &'static str,
        help: &'static str,
    ) -> Self {
        Family {
            out,
            name,
            help,
            kind,
            started: false,
        }
    }

    /// Write one sample; labels whose value is `None` are left out.
    pub(super) fn sample(&mut self, labels: &[(&str, Option<&str>)], v: Option<Val>) {
        let Some(v) = v else { return };
        if let Val::F(f) = v {
            if !f.is_finite() {
                return;
            }
        }
        if !self.started {
            self.started = true;
            // HELP text escapes backslash and newline; ours are constants without either.
            let _ = writeln!(self.out, "# HELP {} {}", self.name, self.help);
            let _ = writeln!(self.out, "# TYPE {} {}", self.name, self.kind);
        }
        self.out.push_str(self.name);
        let mut first = true;
        for (k, val) in labels {
            let Some(val) = val else { continue };
            self.out.push(if first { '{' } else { ',' });
            first = false;
            self.out.push_str(k);
            self.out.push_str("=\"");
            escape_label_value(self.out, val);
            self.out.push('"');
        }
        if !first {
            self.out.push('}');
        }
        self.out.push(' ');
        let _ = match v {
            Val::U(u) => write!(self.out, "{u}"),
            Val::F(f) => write!(self.out, "{f}"),
        };
        self.out.push('\n');
    }
}

/// Label-value escaping of the text format: `\` → `\\`, `"` → `\"`, newline → `\n`. Values are
/// cut to [`MAX_LABEL_CHARS`] characters first.
pub(super) fn escape_label_value(out: &mut String, v: &str) {
    for c in v.chars().take(MAX_LABEL_CHARS) {
        match c {
            '\\' => out.push_str("\\\\"),
            '"' => out.push_str("\\\""),
            '\n' => out.push_str("\\n"),
            c => out.push(c),
        }
    }
}

pub(super) fn pct(p: Option<u32>) -> Option<Val> {
    p.map(|p| Val::F(f64::from(p) / 100.0))
}

pub(super) fn bytes(b: Option<u64>) -> Option<Val> {
    b.map(Val::U)
}

/// Text safe for a label: secrets redacted by the one detector (a process can set its own name
/// to anything: `--api-key=...`, a bare token).
pub(super) fn safe(s: Option<&str>) -> Option<String> {
    s.map(redact_text)
}

/// A family with one unlabelled sample.
pub(super) fn single(
    out: &mut String,
    name: &'static str,
    kind: &'static str,
    help: &'static str,
    v: Val,
) {
    Family::new(out, name, kind, help).sample(&[], Some(v));
}
