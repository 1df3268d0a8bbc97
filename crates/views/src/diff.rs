//! `gpuledger diff` as text: what changed first, in the table's units and names (`GPU0`, not a
//! UUID); unchanged processes only with `--all`. Measured and estimated changes in their own
//! sections. The comparison itself is `gpuledger_compare::diff`. The words come from the
//! language's catalogue; the pairing rules' names (`pid+start`) stay as the JSON writes them.

use crate::columns::pad_end;
use gpuledger_compare::diff::{Change, Delta, DeviceDiff, EstimateDiff, ProcessDiff, SnapshotDiff};
use gpuledger_lang::Lang;
use gpuledger_model::units::human_bytes;
use gpuledger_model::words;
use std::fmt::Write;

/// What the text includes.
#[derive(Debug, Clone, Copy, Default)]
pub struct DiffOptions {
    /// List unchanged (and unknown) processes too, not only their count.
    pub all: bool,
    /// The language of the words.
    pub lang: Lang,
}

/// `+83 MiB`, `-1.50 GiB`, `±0 B`, `n/a`.
pub fn signed_bytes(d: Option<i64>) -> String {
    match d {
        None => words::UNKNOWN.into(),
        Some(0) => "±0 B".into(),
        Some(x) if x > 0 => format!("+{}", human_bytes(x as u64)),
        Some(x) => format!("-{}", human_bytes(x.unsigned_abs())),
    }
}

/// A value that was read, or "n/a" when it could not be (a side where the process was not listed
/// is `absent`, which is not the same as unknown).
fn side_value(v: Option<u64>, present: bool, lang: Lang) -> String {
    match (present, v) {
        (false, _) => lang.t("report-diff-absent"),
        (true, Some(b)) => human_bytes(b),
        (true, None) => words::UNKNOWN.into(),
    }
}

/// `before → after (delta)`, saying `absent` for a side where the thing was not there.
fn change_text(d: &Delta, before_present: bool, after_present: bool, lang: Lang) -> String {
    let delta = match (before_present, after_present) {
        (true, true) => signed_bytes(d.delta),
        (false, _) => lang.t("report-diff-appeared"),
        (_, false) => lang.t("report-diff-gone"),
    };
    format!(
        "{} → {} ({delta})",
        side_value(d.before, before_present, lang),
        side_value(d.after, after_present, lang)
    )
}

fn change_word(c: Change, lang: Lang) -> String {
    lang.t(match c {
        Change::Appeared => "report-diff-appeared",
        Change::Disappeared => "report-diff-gone",
        Change::Grew => "report-diff-grew",
        Change::Shrank => "report-diff-shrank",
        Change::Unchanged => "report-diff-unchanged",
        Change::Unknown => "report-diff-unknown",
    })
}

/// `GPU0` for a device UUID the diff knows, else the UUID itself.
fn short_device(devices: &[DeviceDiff], uuid: &str) -> String {
    devices
        .iter()
        .find(|d| d.uuid == uuid)
        .map(|d| d.label.split(' ').next().unwrap_or(&d.label).to_string())
        .unwrap_or_else(|| uuid.to_string())
}

fn process_label(p: &ProcessDiff) -> String {
    let name = p
        .after
        .as_ref()
        .or(p.before.as_ref())
        .and_then(|s| s.name.clone())
        .unwrap_or_else(|| words::UNKNOWN.into());
    let pids = match (&p.before, &p.after) {
        (Some(a), Some(b)) if a.pid != b.pid => format!("pid {} → {}", a.pid, b.pid),
        (Some(a), _) => format!("pid {}", a.pid),
        (None, Some(b)) => format!("pid {}", b.pid),
        (None, None) => String::new(),
    };
    format!("{name} {pids}")
}

/// The diff as text. `names` are the two files as the user gave them.
pub fn render_diff(d: &SnapshotDiff, names: (&str, &str), opts: DiffOptions) -> String {
    let mut out = String::new();
    let args = [
        ("before", names.0.into()),
        ("before_taken", d.before_taken_at.as_str().into()),
        ("after", names.1.into()),
        ("after_taken", d.after_taken_at.as_str().into()),
    ];
    let _ = writeln!(out, "{}", opts.lang.t_args("report-diff-title", &args));
    processes_section(&mut out, d, opts);
    devices_section(&mut out, d, opts.lang);
    estimates_section(&mut out, d, opts);
    out
}

/// The processes that changed (all with `--all`), then how many were left out.
fn processes_section(out: &mut String, d: &SnapshotDiff, opts: DiffOptions) {
    let lang = opts.lang;
    let changed: Vec<&ProcessDiff> = d
        .processes
        .iter()
        .filter(|p| !matches!(p.change, Change::Unchanged | Change::Unknown))
        .collect();
    let quiet = d.processes.len() - changed.len();
    let _ = writeln!(out, "\n{}", lang.t("report-diff-processes"));
    if d.processes.is_empty() {
        let _ = writeln!(out, "  {}", lang.t("report-diff-no-processes"));
    } else if changed.is_empty() {
        let _ = writeln!(out, "  {}", lang.t("report-diff-none-changed"));
    }
    let shown: Vec<&ProcessDiff> = if opts.all {
        d.processes.iter().collect()
    } else {
        changed
    };
    for p in &shown {
        let rule = p
            .paired_by
            .map(|r| {
                let rule = lang.t_args("report-diff-paired-by", &[("rule", r.as_str().into())]);
                format!(" [{rule}]")
            })
            .unwrap_or_default();
        let _ = writeln!(
            out,
            "  {} {}{rule}  {}",
            pad_end(&change_word(p.change, lang), 9),
            process_label(p),
            change_text(&p.measured, p.before.is_some(), p.after.is_some(), lang)
        );
        process_devices(out, d, p, lang);
    }
    if quiet > 0 && !opts.all {
        let args = [("count", (quiet as u64).into())];
        let _ = writeln!(out, "  {}", lang.t_args("report-diff-quiet", &args));
    }
}

/// A process's change per device, only where it says more than its line (several devices, or
/// a source that changed).
fn process_devices(out: &mut String, d: &SnapshotDiff, p: &ProcessDiff, lang: Lang) {
    let source_changed = p.usage.iter().any(|u| {
        u.source_before.is_some() && u.source_after.is_some() && u.source_before != u.source_after
    });
    if p.usage.len() <= 1 && !source_changed {
        return;
    }
    for u in &p.usage {
        let src = match (&u.source_before, &u.source_after) {
            (Some(a), Some(b)) if a != b => format!("{a} → {b}"),
            (Some(a), _) | (None, Some(a)) => a.clone(),
            (None, None) => words::UNKNOWN.into(),
        };
        let _ = writeln!(
            out,
            "            {}  {}  [{src}]",
            short_device(&d.devices, &u.device),
            change_text(
                &u.memory,
                u.source_before.is_some(),
                u.source_after.is_some(),
                lang
            ),
        );
    }
}

/// Each device's used and unattributed memory, before → after.
fn devices_section(out: &mut String, d: &SnapshotDiff, lang: Lang) {
    let _ = writeln!(out, "\n{}", lang.t("report-diff-devices"));
    for dev in &d.devices {
        let (before, after) = match dev.presence {
            "appeared" => (false, true),
            "disappeared" => (true, false),
            _ => (true, true),
        };
        let args = [
            ("device", dev.label.as_str().into()),
            ("used", change_text(&dev.used, before, after, lang).into()),
            (
                "unattributed",
                change_text(&dev.unattributed, before, after, lang).into(),
            ),
        ];
        let _ = writeln!(out, "  {}", lang.t_args("report-diff-device", &args));
    }
}

/// The estimated parts that moved (all with `--all`), apart from the measured sections.
fn estimates_section(out: &mut String, d: &SnapshotDiff, opts: DiffOptions) {
    let shown = |e: &&EstimateDiff| opts.all || e.values.delta != Some(0);
    let est: Vec<&ProcessDiff> = d
        .processes
        .iter()
        .filter(|p| p.estimated.iter().any(|e| shown(&e)))
        .collect();
    if est.is_empty() {
        return;
    }
    let _ = writeln!(out, "\n{}", opts.lang.t("report-diff-estimates"));
    for p in est {
        let _ = writeln!(out, "  {}", process_label(p));
        for e in p.estimated.iter().filter(shown) {
            let _ = writeln!(
                out,
                "      {:<9} {}",
                e.label,
                change_text(&e.values, true, true, opts.lang)
            );
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use gpuledger_compare::diff;
    use gpuledger_model::test_support::{device, process, snapshot, MIB};
    use gpuledger_model::{EstimatedMemory, Process, Snapshot};

    fn proc(pid: u32, start: u64, name: &str, mem: Option<u64>, args: &[&str]) -> Process {
        let mut p = process(pid, "GPU-0", mem);
        p.start_time = Some(start);
        p.name = Some(name.into());
        p.cmdline = Some(args.iter().map(|s| s.to_string()).collect());
        p
    }

    fn snap(taken: &str, procs: Vec<Process>) -> Snapshot {
        let mut d = device(0, "GPU-0", Some(10_000 * MIB), Some(5_000 * MIB));
        d.name = Some("NVIDIA H200".into());
        snapshot(taken, vec![d], procs)
    }

    #[test]
    fn signed_bytes_words() {
        assert_eq!(signed_bytes(Some(83 * MIB as i64)), "+83 MiB");
        assert_eq!(signed_bytes(Some(0)), "±0 B");
        assert_eq!(signed_bytes(None), "n/a");
    }

    /// Changes lead, unchanged rows are counted (listed with --all), a new process is
    /// `absent →` (not `n/a →`), devices are named as in the table.
    #[test]
    fn changes_first_absent_is_not_unknown_and_all_lists_the_rest() {
        let a = snap(
            "t0",
            vec![
                proc(10, 1, "llama-server", Some(1000 * MIB), &["llama-server"]),
                proc(11, 1, "steady", Some(5 * MIB), &["steady"]),
            ],
        );
        let b = snap(
            "t1",
            vec![
                proc(10, 1, "llama-server", Some(1083 * MIB), &["llama-server"]),
                proc(11, 1, "steady", Some(5 * MIB), &["steady"]),
                proc(12, 9, "python3", Some(47 * MIB), &["python3"]),
            ],
        );
        let d = diff::diff(&a, &b);
        let t = render_diff(&d, ("a", "b"), DiffOptions::default());
        let changed = t.find(
            "grew      llama-server pid 10 [paired by pid+start_time]  1000 MiB → 1.06 GiB (+83 MiB)",
        );
        let new = t.find("appeared  python3 pid 12  absent → 47 MiB (appeared)");
        assert!(changed.is_some() && new.is_some(), "{t}");
        assert!(!t.contains("steady"), "{t}");
        assert!(
            t.contains("(1 process unchanged or unknown; --all lists them)"),
            "{t}"
        );
        assert!(
            t.contains("GPU0 NVIDIA H200  used 4.88 GiB → 4.88 GiB (±0 B)"),
            "{t}"
        );
        assert!(!t.contains("GPU-0"), "{t}");
        // The devices come after the processes: the answer first.
        assert!(t.find("devices (measured)").unwrap() > new.unwrap(), "{t}");
        let all = render_diff(
            &d,
            ("a", "b"),
            DiffOptions {
                all: true,
                ..DiffOptions::default()
            },
        );
        assert!(
            all.contains(
                "unchanged steady pid 11 [paired by pid+start_time]  5 MiB → 5 MiB (±0 B)"
            ),
            "{all}"
        );
    }

    #[test]
    fn estimates_show_only_the_parts_that_moved() {
        let est = |kv: u64| EstimatedMemory {
            recipe: "llama.cpp/llama-server".into(),
            weights_gpu_bytes: 800 * MIB,
            kv_cache_gpu_bytes: Some(kv),
            compute_gpu_bytes: Some(0),
            total_gpu_bytes: 800 * MIB + kv,
            ..Default::default()
        };
        let mut a = snap(
            "t0",
            vec![proc(10, 1, "llama-server", Some(1000 * MIB), &[])],
        );
        let mut b = snap(
            "t1",
            vec![proc(10, 1, "llama-server", Some(1083 * MIB), &[])],
        );
        a.processes[0].estimate = Some(est(100 * MIB).into());
        b.processes[0].estimate = Some(est(184 * MIB).into());
        let d = diff::diff(&a, &b);
        let t = render_diff(&d, ("a", "b"), DiffOptions::default());
        assert!(t.contains("KV cache  100 MiB → 184 MiB (+84 MiB)"), "{t}");
        assert!(
            !t.contains("weights"),
            "unchanged parts only with --all: {t}"
        );
        let all = render_diff(
            &d,
            ("a", "b"),
            DiffOptions {
                all: true,
                ..DiffOptions::default()
            },
        );
        assert!(all.contains("weights   800 MiB → 800 MiB (±0 B)"), "{all}");
    }
}
