//! `gpuledger kill PID...`: safe termination through gpuledger-actions (graceful, forced after a
//! grace period, verified by observation, guard rails), with a confirmation on the terminal that
//! names each process and its measured GPU memory.

use crate::Global;
use gpuledger_actions::kill::{
    combined_exit_code, exit_code, guard::Verdict, GpuMemory, GpuMemoryReading, KillOptions,
    Killer, Outcome, ProcInfo, Status, Target,
};
use gpuledger_lang::{Lang, Said};
use gpuledger_model::{redact_arg_list, redact_text, Snapshot, SourceState};
use gpuledger_sources::Collector;
use gpuledger_views::kill::{self as kill_view, Declined, KillStep, KillText, Reading};
use gpuledger_workloads::identify::identify_in;
use std::cell::RefCell;
use std::io::{BufRead, IsTerminal, Read, Write};
use std::process::ExitCode;
use std::time::Duration;

pub const EXIT_CODES: &str = "\
Exit status:
  0  every target verified gone (exited; a zombie waiting for its parent counts)
  1  an unexpected error
  2  bad command-line usage
  3  a target is still alive after SIGKILL / TerminateProcess (see the remedies)
  4  refused: a guard rail (PID 1, kernel thread, gpuledger or its parents, critical system
     process), a display server or session shell without --yes-really, declined at the
     prompt, or no terminal to ask on and no --yes
  5  permission denied: another user's (or an elevated) process
  6  no such process, or the PID now names a different process (skipped)
  7  dry run: nothing was signalled
With several targets the most serious code wins (3 > 1 > 5 > 4 > 6 > 7).";

#[derive(clap::Args, Debug)]
pub struct Args {
    /// Process IDs to terminate.
    #[arg(required = true, value_name = "PID")]
    pub pids: Vec<u32>,
    /// Skip the graceful step: SIGKILL / TerminateProcess at once.
    #[arg(long)]
    pub force: bool,
    /// How long to wait after SIGTERM / WM_CLOSE before forcing: `5s`, `500ms`, `1m` or a
    /// number of seconds, at most an hour.
    #[arg(long, value_name = "DURATION", default_value = "3s", value_parser = crate::flags::grace, allow_negative_numbers = true)]
    pub grace: Duration,
    /// Do not ask: the targets are confirmed.
    #[arg(long)]
    pub yes: bool,
    /// The second confirmation needed for display servers, compositors, desktop shells and
    /// session shells (a login shell, sshd, tmux, screen).
    #[arg(long)]
    pub yes_really: bool,
    /// Say what would be done; signal nothing.
    #[arg(long)]
    pub dry_run: bool,
    /// Print each target's outcome as JSON.
    #[arg(long)]
    pub json: bool,
}

/// GPU memory per PID from fresh collection rounds (the measured ledger).
struct Measured {
    collector: RefCell<Collector>,
}

impl GpuMemory for Measured {
    fn gpu_memory_of(&self, pid: u32) -> GpuMemoryReading {
        let snap = self.collector.borrow_mut().collect();
        reading_from_snapshot(&snap, pid)
    }
}

/// What one snapshot says about one PID's GPU memory. Not listed counts as "holds none" only when a
/// per-process source worked; otherwise it stays unknown, with the reason.
pub fn reading_from_snapshot(snap: &Snapshot, pid: u32) -> GpuMemoryReading {
    if let Some(p) = snap.processes.iter().find(|p| p.pid == pid) {
        let known: Vec<u64> = p.usage.iter().filter_map(|u| u.memory_bytes).collect();
        if !known.is_empty() {
            return GpuMemoryReading::Holds {
                bytes: known.iter().sum(),
            };
        }
        let reason = p
            .usage
            .iter()
            .find_map(|u| u.unavailable_reason.clone())
            .unwrap_or_else(|| Said::new("report-kill-reason-not-reported", vec![]));
        return GpuMemoryReading::Unknown { reason };
    }
    if snap.host.wsl {
        return GpuMemoryReading::Unknown {
            reason: Said::new("report-kill-reason-wsl", vec![]),
        };
    }
    if snap.devices.is_empty() {
        let why: Vec<Said> = snap
            .sources
            .iter()
            .filter(|s| s.status != SourceState::Ok)
            .map(|s| {
                let args = vec![
                    ("name", s.name.as_str().into()),
                    ("detail", s.detail.clone().into()),
                ];
                Said::new("report-kill-source-failed", args)
            })
            .collect();
        return GpuMemoryReading::Unknown {
            reason: match Said::joined("report-said-list", why) {
                None => Said::new("report-kill-reason-no-gpu", vec![]),
                Some(why) => Said::new("report-kill-reason-no-gpu-why", vec![("why", why.into())]),
            },
        };
    }
    GpuMemoryReading::NotListed
}

fn describe_reading(r: &GpuMemoryReading, lang: Lang) -> String {
    kill_view::reading(
        match r {
            GpuMemoryReading::Holds { bytes } => Reading::Holds(*bytes),
            GpuMemoryReading::NotListed => Reading::NotListed,
            GpuMemoryReading::Unknown { reason } => Reading::Unknown(reason),
        },
        lang,
    )
}

pub fn run(args: &Args, global: &Global) -> anyhow::Result<ExitCode> {
    if global.args.replay.is_some() {
        let said = gpuledger_lang::said::Said::new("cli-err-kill-replay", vec![]);
        return Err(crate::Usage(said).into());
    }
    if global.args.proc_root != std::path::Path::new("/proc") {
        let root = global.args.proc_root.display().to_string();
        let said = vec![("path", root.into())];
        return Err(crate::failed::failed("cli-err-kill-proc-root", said));
    }
    let killer = Killer::new();
    let measured = Measured {
        collector: RefCell::new(global.collector()),
    };

    // What the user is about to confirm: the identity read now is what the kill re-checks.
    let first = measured.collector.borrow_mut().collect();
    let mut targets = plan(args, &killer, &first);

    if !args.yes && !args.dry_run {
        match confirm(&mut targets, &measured, args.force, global.lang) {
            Confirm::Yes => {}
            Confirm::No(why) => {
                eprintln!("gpuledger kill: {}", kill_view::declined(why, global.lang));
                return Ok(ExitCode::from(exit_code::REFUSED));
            }
        }
    }

    let base = KillOptions {
        force: args.force,
        grace: args.grace,
        dry_run: args.dry_run,
        ..KillOptions::default()
    };
    // A dry run reads too: its "now" line and its JSON come from the same reading.
    let gpu: Option<&dyn GpuMemory> = Some(&measured);
    let outcomes: Vec<Outcome> = targets
        .iter()
        .map(|t| {
            let opts = KillOptions {
                confirmed_sensitive: t.confirmed_sensitive,
                ..base.clone()
            };
            killer.kill(&t.target, &opts, gpu)
        })
        .collect();
    let code = combined_exit_code(&outcomes);

    let text = report(args.json, code, &outcomes, &targets, global.lang)?;
    crate::commands::print(&text)?;
    Ok(ExitCode::from(code))
}

/// Each target as the user is about to confirm it: its identity read now (what the kill
/// re-checks), the guard rails' verdict, and its measured GPU memory.
fn plan(args: &Args, killer: &Killer, first: &Snapshot) -> Vec<Planned> {
    args.pids
        .iter()
        .map(|&pid| {
            let info = killer.inspect(pid).ok();
            let target = info
                .as_ref()
                .map(Target::from_info)
                .unwrap_or_else(|| Target::pid(pid));
            let verdict = info.as_ref().map(|i| killer.verdict(i));
            Planned {
                target,
                info,
                verdict,
                memory: reading_from_snapshot(first, pid),
                confirmed_sensitive: args.yes_really,
            }
        })
        .collect()
}

/// The outcomes as JSON (`--json`) or as text, each beside the memory shown at the prompt.
fn report(
    json: bool,
    code: u8,
    outcomes: &[Outcome],
    targets: &[Planned],
    lang: Lang,
) -> anyhow::Result<String> {
    Ok(if json {
        let doc = KillReport {
            schema: "gpuledger.kill/1",
            exit_code: code,
            outcomes,
        };
        format!("{}\n", serde_json::to_string_pretty(&doc)?)
    } else {
        outcomes
            .iter()
            .zip(targets)
            .map(|(o, t)| render(o, &t.memory, lang))
            .collect::<String>()
    })
}

/// The `--json` document (field order kept as declared).
#[derive(serde::Serialize)]
struct KillReport<'a> {
    schema: &'static str,
    exit_code: u8,
    outcomes: &'a [Outcome],
}

struct Planned {
    target: Target,
    info: Option<ProcInfo>,
    verdict: Option<Verdict>,
    memory: GpuMemoryReading,
    confirmed_sensitive: bool,
}

enum Confirm {
    Yes,
    No(Declined),
}

/// Asks on the terminal (stdin must be one). Guard-rail refusals are not asked about: they will be
/// refused anyway, and the outcome says why.
fn confirm(targets: &mut [Planned], measured: &Measured, force: bool, lang: Lang) -> Confirm {
    let askable: Vec<usize> = (0..targets.len())
        .filter(|&i| {
            targets[i].info.is_some() && !matches!(targets[i].verdict, Some(Verdict::Refused(_)))
        })
        .collect();
    // Asked first, so a PID that does not exist is reported as such, not as "no terminal".
    if askable.is_empty() {
        return Confirm::Yes; // Nothing to signal: the outcomes will say why.
    }
    let stdin = std::io::stdin();
    if !stdin.is_terminal() {
        return Confirm::No(Declined::NoTerminal);
    }
    let mut err = std::io::stderr().lock();
    let _ = writeln!(err, "{}", kill_view::prompt_head(lang));
    for &i in &askable {
        let t = &targets[i];
        let info = t.info.as_ref().expect("askable targets were read");
        // Names and command lines are the process's own words: shown, never acted on.
        let what = describe_target(info, &t.memory, measured, lang);
        let _ = writeln!(err, "  {}", gpuledger_views::term_safe_text(&what));
    }
    let _ = write!(
        err,
        "{}",
        kill_view::prompt_question(askable.len(), force, lang)
    );
    let _ = err.flush();
    if !read_yes(&mut stdin.lock(), false) {
        return Confirm::No(Declined::NotConfirmed);
    }
    for &i in &askable {
        if let Some(Verdict::NeedsSecondConfirmation(why)) = &targets[i].verdict {
            if targets[i].confirmed_sensitive {
                continue;
            }
            let why = why.in_lang(lang);
            let why = gpuledger_views::term_safe_text(&why);
            let pid = targets[i].target.pid;
            let _ = write!(err, "{}", kill_view::prompt_second(&why, pid, lang));
            let _ = err.flush();
            targets[i].confirmed_sensitive = read_yes(&mut stdin.lock(), true);
        }
    }
    Confirm::Yes
}

fn describe_target(
    info: &ProcInfo,
    memory: &GpuMemoryReading,
    measured: &Measured,
    lang: Lang,
) -> String {
    let mut p = gpuledger_model::Process::new(info.pid);
    measured.collector.borrow().procs().fill(&mut p);
    let user = info.user.clone().or(p.user.clone());
    let cmd = p
        .cmdline
        .as_ref()
        .map(|c| redact_arg_list(c).join(" "))
        .filter(|c| !c.is_empty())
        .map(|c| {
            let short: String = c.chars().take(100).collect();
            let more = if c.chars().count() > 100 { "…" } else { "" };
            format!("{short}{more}")
        });
    // What it is (evidence from /proc only: no network probes before a kill prompt).
    let collector = measured.collector.borrow();
    let procs = collector.procs();
    let w = identify_in(&procs.facts(info.pid), procs);
    // The name a process gave itself: redacted here too (Linux's is, where /proc is read; a
    // platform's own process list may not be).
    let name = redact_text(&info.name);
    kill_view::prompt_target(
        &kill_view::PromptTarget {
            pid: info.pid,
            name: &name,
            user: user.as_deref(),
            memory: describe_reading(memory, lang),
            workload: Some(&w),
            cmdline: cmd.as_deref(),
        },
        lang,
    )
}

/// `y`/`yes` (or exactly `yes` when `strict`); anything else, or end of input, is no.
fn read_yes(input: &mut impl BufRead, strict: bool) -> bool {
    let mut line = String::new();
    if input.by_ref().take(64).read_line(&mut line).is_err() {
        return false;
    }
    let a = line.trim().to_ascii_lowercase();
    if strict {
        a == "yes"
    } else {
        a == "y" || a == "yes"
    }
}

fn render(o: &Outcome, memory_now: &GpuMemoryReading, lang: Lang) -> String {
    let said = |s: &Said| s.in_lang(lang);
    // A dry run's plan is listed line by line below, so its head is the outcome without it.
    let head = if o.status == Status::DryRun {
        let who = format!("PID {} ({})", o.pid, o.name.as_deref().unwrap_or("?"));
        Said::new("report-kill-dry-run-head", vec![("who", who.into())]).in_lang(lang)
    } else {
        said(&o.message)
    };
    let survivor = o.survivor.as_ref();
    kill_view::render_kill(&KillText {
        head,
        plan: o.plan.iter().map(said).collect(),
        steps: o
            .steps
            .iter()
            .map(|st| KillStep {
                at_ms: st.at_ms,
                action: &st.action,
                result: said(&st.result),
            })
            .collect(),
        waiting_in: survivor.and_then(|sv| sv.wchan.as_deref()),
        remedies: survivor.map_or_else(Vec::new, |sv| sv.remedies.iter().map(said).collect()),
        // The reading the outcome carries (its JSON says the same), else the confirmation's.
        now: (o.status == Status::DryRun)
            .then(|| describe_reading(o.gpu_memory.before.as_ref().unwrap_or(memory_now), lang)),
        gpu_memory: (o.status.is_gone() || o.status == Status::StillAlive)
            .then(|| said(&o.gpu_memory.detail)),
        lang,
    })
}

#[cfg(test)]
mod tests {
    use super::*;
    use gpuledger_model::test_support::{device, process, snapshot, usage};
    use gpuledger_model::SourceStatus;

    fn snap() -> Snapshot {
        snapshot("2026-11-29T00:00:00Z", vec![], vec![])
    }

    #[test]
    fn readings() {
        let mut s = snap();
        assert!(
            matches!(reading_from_snapshot(&s, 5), GpuMemoryReading::Unknown { reason } if reason.contains("no GPU"))
        );
        s.sources.push(SourceStatus::new(
            "nvml",
            SourceState::Unavailable,
            "libnvidia-ml.so.1 not found",
        ));
        assert!(
            matches!(reading_from_snapshot(&s, 5), GpuMemoryReading::Unknown { reason } if reason.contains("libnvidia-ml"))
        );
        s.devices.push(device(0, "GPU-1", None, None));
        assert_eq!(reading_from_snapshot(&s, 5), GpuMemoryReading::NotListed);
        let mut p = process(5, "GPU-1", Some(1 << 30));
        p.usage.push(usage("GPU-2", Some(1 << 20)));
        s.processes.push(p);
        assert_eq!(
            reading_from_snapshot(&s, 5),
            GpuMemoryReading::Holds {
                bytes: (1 << 30) + (1 << 20)
            }
        );
        let mut q = process(6, "GPU-1", None);
        q.usage[0].unavailable_reason =
            Some("NVML reports per-process memory as not available under WDDM".into());
        s.processes.push(q);
        assert!(
            matches!(reading_from_snapshot(&s, 6), GpuMemoryReading::Unknown { reason } if reason.contains("WDDM"))
        );
        s.host.wsl = true;
        assert!(
            matches!(reading_from_snapshot(&s, 7), GpuMemoryReading::Unknown { reason } if reason.contains("WSL"))
        );
    }

    #[test]
    fn yes_parsing() {
        let r =
            |t: &str, strict| read_yes(&mut std::io::Cursor::new(t.as_bytes().to_vec()), strict);
        assert!(r("y\n", false));
        assert!(r(" YES \n", false));
        assert!(!r("\n", false));
        assert!(!r("", false));
        assert!(!r("y\n", true));
        assert!(r("yes\n", true));
        assert!(!r("yesyesyes", true));
    }

    #[test]
    fn exit_code_text_matches_constants() {
        for (code, word) in [
            (exit_code::STILL_ALIVE, "still alive"),
            (exit_code::REFUSED, "refused"),
            (exit_code::PERMISSION_DENIED, "permission denied"),
            (exit_code::NOT_FOUND_OR_REUSED, "no such process"),
            (exit_code::DRY_RUN, "dry run"),
        ] {
            let line = EXIT_CODES
                .lines()
                .find(|l| l.starts_with(&format!("  {code}  ")))
                .unwrap_or_else(|| panic!("exit code {code} is not documented"));
            assert!(line.contains(word), "{code}: {line}");
        }
    }
}
