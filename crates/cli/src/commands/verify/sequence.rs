//! The sequence the parent drives: the five steps of the workload (idle, context, allocated,
//! freed, exited), and after each a collection round ([`Rounds`]) that reads every source, waits
//! (bounded) for a release to show, and asks the witnesses.

use super::child::{Stop, Workload};
use super::guard::{may_allocate, needs_consent, Room};
use super::judge::{self, Record, Step, STEPS, TOLERANCE};
use super::witness;
use super::{Api, Args, PathChoice};
use gpuledger_cuda::signal;
use gpuledger_cuda::workload::StepReport;
use gpuledger_lang::said::Said;
use gpuledger_lang::Lang;
use std::time::{Duration, Instant};

/// Re-reads after a free or the exit before the round counts (5 × 100 ms at most).
const SETTLE_READS: u32 = 5;
const SETTLE_PAUSE: Duration = Duration::from_millis(100);

/// The five steps, a collection round after each.
pub(super) fn sequence(
    args: &Args,
    api: Api,
    lang: Lang,
    collector: &mut gpuledger_sources::Collector,
    w: &mut Workload,
    rec: &mut Record,
) -> Result<(), Stop> {
    let idle = w.answer("idle")?;
    if let Some(why) = ambiguous_device(args, api, &idle) {
        return Err(Stop::Refused(why));
    }
    rec.device = idle.device.clone();
    let mut rounds = Rounds {
        args,
        api,
        collector,
        pid: w.pid(),
    };
    w.deadline += rounds.round(rec, STEPS[0], Some(idle));
    w.send("context")?;
    let ctx = w.answer("context")?;
    let room = room(api, &ctx, rec);
    w.deadline += rounds.round(rec, STEPS[1], Some(ctx));
    confirm(args, (api, lang), rec, room, w)?;
    w.send(&format!("alloc {}", args.size))?;
    let a = w.answer("allocate")?;
    if a.touched == Some(false) {
        rec.notes
            .push(Said::new("report-verify-not-written", vec![]));
    }
    w.deadline += rounds.round(rec, STEPS[2], Some(a));
    w.send("free")?;
    let f = w.answer("free")?;
    w.deadline += rounds.round(rec, STEPS[3], Some(f));
    w.send("exit")?;
    let last = w.answer("exit")?;
    w.finish();
    rounds.round(rec, STEPS[4], None);
    // A failed clean-up (cuCtxDestroy, vkFreeMemory...) comes as step "exiting" with an error,
    // not as an error step: answer() passes it, and it must not pass as a clean run.
    if let Some(e) = last.error {
        let error = vec![("error", e.into())];
        return Err(Stop::Failed(Said::new(
            "report-verify-cleanup-failed",
            error,
        )));
    }
    Ok(())
}

/// `--device N` with `--path auto` names a CUDA ordinal; when CUDA could not start and the
/// Vulkan path runs, the loader numbers its devices its own way (and may list a CPU device
/// first). Where it lists more than one device, N does not say which: refuse rather than run on
/// a device the user did not mean.
fn ambiguous_device(args: &Args, api: Api, idle: &StepReport) -> Option<Said> {
    let n = args.device?;
    if args.path != PathChoice::Auto || api != Api::Vulkan {
        return None;
    }
    let v = idle.device.as_ref()?.vulkan.as_ref()?;
    if v.others.is_empty() {
        return None;
    }
    let name = idle.device.as_ref().map_or("", |d| d.name.as_str());
    let said = vec![
        ("n", n.to_string().into()),
        ("count", (v.others.len() + 1).into()),
        ("name", name.into()),
        ("type", v.device_type.as_str().into()),
        ("others", v.others.join(", ").into()),
    ];
    Some(Said::new("report-verify-ambiguous-device", said))
}

/// What the guard rails measure the allocation against, after the context step.
fn room(api: Api, ctx: &StepReport, rec: &Record) -> Room {
    match (api, ctx.free_bytes, ctx.total_bytes) {
        (_, Some(f), _) => Room::Free(f),
        (Api::Cuda, None, _) => nvml_free(rec).map_or(Room::Unknown, Room::Free),
        (Api::Vulkan, None, Some(heap)) => Room::Heap(heap),
        (Api::Vulkan, None, None) => Room::Unknown,
    }
}

/// The guard rails, and the question where one is asked: `Err` to stop before the allocation.
fn confirm(
    args: &Args,
    (api, lang): (Api, Lang),
    rec: &Record,
    room: Room,
    w: &mut Workload,
) -> Result<(), Stop> {
    let label = rec.device.as_ref().map_or_else(
        || Said::new("report-verify-the-device", vec![]),
        |d| {
            let said = vec![
                ("api", api.title().into()),
                ("ordinal", d.ordinal.to_string().into()),
                ("name", d.name.as_str().into()),
            ];
            Said::new("report-verify-device-label", said)
        },
    );
    // On a CPU device nothing can be verified whatever happens next: say so rather than ask to
    // allocate (or, with no terminal, refuse for want of --yes) first.
    if let Some(driver) = judge::cpu_device(rec).filter(|_| needs_consent(args, room)) {
        let said = vec![("device", label.into()), ("driver", driver.into())];
        return Err(Stop::Unverifiable(Said::new(
            "report-verify-cpu-device-unverifiable",
            said,
        )));
    }
    // The user's time answering the question is not the workload's: it does not count against
    // its deadline.
    let asked = Instant::now();
    let answer = may_allocate(args, room, &label, lang);
    w.deadline += asked.elapsed();
    match answer {
        Ok(None) => {}
        Ok(Some(why)) => return Err(Stop::Refused(why)),
        Err(e) => {
            let error = vec![("error", e.to_string().into())];
            return Err(Stop::Failed(Said::new("report-verify-no-answer", error)));
        }
    }
    // A Ctrl-C while the question was open: do not allocate after it.
    if signal::interrupted() {
        return Err(Stop::Interrupted);
    }
    Ok(())
}

/// The collection rounds of one sequence.
struct Rounds<'a> {
    args: &'a Args,
    api: Api,
    collector: &'a mut gpuledger_sources::Collector,
    /// The child's PID.
    pid: u32,
}

impl Rounds<'_> {
    /// One round after the step `name`: read every source, settle, ask the witnesses, and record
    /// it. Returns the witnesses' time, which the caller adds to the workload's deadline (it is
    /// theirs, not the workload's).
    fn round(&mut self, rec: &mut Record, name: &str, child: Option<StepReport>) -> Duration {
        let (snapshot, settle_reads) = self.settle(rec, name);
        let asked = Instant::now();
        // nvidia-smi's compute-apps list is the CUDA path's witness only.
        let smi = (self.api == Api::Cuda).then(|| {
            let earlier = rec.steps.iter().filter_map(|s| s.nvidia_smi.as_ref());
            witness::nvidia_smi(&self.args.nvidia_smi, earlier)
        });
        // The AMD and Intel tools, where installed, on either path (not on a CPU device).
        let witnesses = if judge::cpu_device(rec).is_some() {
            Default::default()
        } else {
            let bdf = judge::target_pci(rec, &snapshot);
            let earlier: Vec<_> = rec.steps.iter().map(|s| &s.witnesses).collect();
            witness::run_vendor(bdf.as_deref(), &earlier)
        };
        rec.steps.push(Step {
            name: name.into(),
            child,
            snapshot,
            nvidia_smi: smi,
            witnesses,
            settle_reads,
        });
        asked.elapsed()
    }

    /// A snapshot of every source. After a free or the exit, the driver may release a moment
    /// later: re-read (bounded) until the release shows, as the probe does, and say in the
    /// record how many reads it took.
    fn settle(&mut self, rec: &mut Record, name: &str) -> (gpuledger_model::Snapshot, u32) {
        let (pid, n) = (self.pid, self.args.size);
        let mut snapshot = self.collector.collect();
        let mut settle_reads = 0;
        while settle_reads < SETTLE_READS && !released(rec, name, &snapshot, pid, n) {
            std::thread::sleep(SETTLE_PAUSE);
            settle_reads += 1;
            snapshot = self.collector.collect();
        }
        if settle_reads > 0 {
            let shown = released(rec, name, &snapshot, pid, n);
            let key = if shown {
                "report-verify-release-late"
            } else {
                "report-verify-release-missing"
            };
            let said = vec![
                ("step", judge::step_said(name).into()),
                ("rounds", settle_reads.into()),
                ("ms", SETTLE_PAUSE.as_millis().to_string().into()),
            ];
            rec.notes.push(Said::new(key, said));
        }
        (snapshot, settle_reads)
    }
}

/// Whether `snap` already shows the release the step `name` should cause: the device's used
/// memory down by N after the free, back to the idle level and the child unlisted after the exit.
/// Unknown readings count as shown (nothing to wait for).
fn released(rec: &Record, name: &str, snap: &gpuledger_model::Snapshot, pid: u32, n: u64) -> bool {
    let Ok(uuid) = judge::target_uuid(rec) else {
        return true;
    };
    let uuid = uuid.as_str();
    let used = |s: &gpuledger_model::Snapshot| s.device_by_uuid(uuid)?.memory.used_bytes;
    let at = |i: usize| rec.steps.get(i).and_then(|s| used(&s.snapshot));
    let Some(now) = used(snap) else {
        return true;
    };
    match name {
        "freed" => at(2).is_none_or(|a| now <= a.saturating_sub(n) + TOLERANCE),
        "exited" => {
            let listed = snap.processes.iter().any(|p| p.pid == pid);
            !listed && at(0).is_none_or(|i| now <= i + TOLERANCE)
        }
        _ => true,
    }
}

/// NVML's free memory of the workload's device in the latest round.
fn nvml_free(rec: &Record) -> Option<u64> {
    let uuid = rec.device.as_ref()?.uuid.as_deref()?;
    rec.steps
        .last()?
        .snapshot
        .device_by_uuid(uuid)?
        .memory
        .free_bytes
}

#[cfg(test)]
mod tests {
    use super::*;
    use gpuledger_cuda::workload::{ChildDevice, VulkanDevice};

    fn args(path: PathChoice, device: Option<i32>) -> Args {
        Args {
            size: 1 << 20,
            device,
            path,
            json: false,
            save: None,
            yes: false,
            cuda_lib: None,
            vulkan_lib: None,
            nvidia_smi: "nvidia-smi".into(),
        }
    }

    fn idle(others: &[&str]) -> StepReport {
        StepReport {
            step: "idle".into(),
            device: Some(ChildDevice {
                name: "AMD Radeon RX 7900 XTX (RADV NAVI31)".into(),
                vulkan: Some(VulkanDevice {
                    others: others.iter().map(|s| s.to_string()).collect(),
                    ..VulkanDevice::default()
                }),
                ..ChildDevice::default()
            }),
            ..StepReport::default()
        }
    }

    #[test]
    fn a_cuda_ordinal_is_refused_on_the_vulkan_fallback_when_the_loader_lists_several() {
        let two = idle(&["1: llvmpipe (LLVM 15.0.6, 256 bits) (cpu)"]);
        let why = ambiguous_device(&args(PathChoice::Auto, Some(0)), Api::Vulkan, &two).unwrap();
        assert!(
            why.contains("--device 0 is a CUDA ordinal under --path auto"),
            "{why}"
        );
        assert!(why.contains("1: llvmpipe"), "{why}");
        assert!(why.contains("--path vulkan --device M"), "{why}");
        // Asked for the Vulkan path, or no --device, or the CUDA path: N means what it says.
        assert_eq!(
            ambiguous_device(&args(PathChoice::Vulkan, Some(0)), Api::Vulkan, &two),
            None
        );
        assert_eq!(
            ambiguous_device(&args(PathChoice::Auto, None), Api::Vulkan, &two),
            None
        );
        assert_eq!(
            ambiguous_device(&args(PathChoice::Auto, Some(0)), Api::Cuda, &two),
            None
        );
        // One device only: nothing to confuse it with.
        assert_eq!(
            ambiguous_device(&args(PathChoice::Auto, Some(0)), Api::Vulkan, &idle(&[])),
            None
        );
    }
}
