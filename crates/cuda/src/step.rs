//! The step protocol of `gpuledger verify`'s child, one owner for both paths (CUDA here, Vulkan in
//! `gpuledger-vulkan`): idle → a context → N bytes allocated and written → freed → exit, one step
//! per command from the parent.
//!
//! The child talks over its standard streams, one JSON object a line: it reads a command
//! (`context`, `alloc N`, `free`, `exit`) and answers with a [`StepReport`]. [`serve`] runs that
//! loop over any [`Steps`] implementation; the implementation holds what it allocated in a guard,
//! so an error, end of input (the parent went away or was interrupted) or a Ctrl-C releases the
//! memory and the context before the process ends.

use std::io::{BufRead, Write};

use serde::{Deserialize, Serialize};

/// What the child says after each step.
#[derive(Debug, Clone, Default, PartialEq, Serialize, Deserialize)]
pub struct StepReport {
    /// `idle`, `context`, `allocated`, `freed`, `exiting`, or `error`.
    pub step: String,
    pub pid: u32,
    /// Set on the first report (`idle`).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub device: Option<ChildDevice>,
    /// The CUDA driver's free / total memory of the device after this step (needs a context).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub free_bytes: Option<u64>,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub total_bytes: Option<u64>,
    /// Vulkan with VK_EXT_memory_budget: what the driver says this process uses of the heap.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub heap_usage_bytes: Option<u64>,
    /// The child's resident host memory after the step (Vulkan path, Linux: VmRSS). On a CPU
    /// device (lavapipe) the allocation lives there, so it shows the workload really happened.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub rss_bytes: Option<u64>,
    /// Whether the allocation was written (`cuMemsetD8`, `vkCmdFillBuffer`); false when the
    /// CUDA driver lacks cuMemsetD8.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub touched: Option<bool>,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub error: Option<String>,
}

impl StepReport {
    /// Send this report to the parent: one JSON line, flushed. `false` when the parent is gone.
    pub fn send(&self, out: &mut dyn Write) -> bool {
        serde_json::to_string(self)
            .map(|t| writeln!(out, "{t}").and_then(|_| out.flush()).is_ok())
            .unwrap_or(false)
    }

    /// An `error` report: the child stops after sending it.
    pub fn error(pid: u32, e: String) -> Self {
        StepReport {
            step: "error".into(),
            pid,
            error: Some(e),
            ..StepReport::default()
        }
    }
}

/// The device the workload runs on, as its API names it. The same shape for both paths (`cuda`,
/// `vulkan`); a record from before the Vulkan path has no `vulkan` and a non-empty `cuda_lib`.
#[derive(Debug, Clone, Default, PartialEq, Serialize, Deserialize)]
pub struct ChildDevice {
    /// The CUDA ordinal, or the Vulkan physical device's index in the loader's list.
    pub ordinal: i32,
    pub name: String,
    /// NVML's spelling (`GPU-...`), to find the same device in a snapshot.
    pub uuid: Option<String>,
    /// CUDA: the device's memory; Vulkan: the size of the heap the allocation comes from.
    pub total_bytes: u64,
    /// The CUDA driver library loaded (empty on the Vulkan path).
    #[serde(default, skip_serializing_if = "String::is_empty")]
    pub cuda_lib: String,
    /// `12.4`
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub cuda_version: Option<String>,
    /// What the Vulkan path knows of the device (absent on the CUDA path).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub vulkan: Option<VulkanDevice>,
}

/// A Vulkan physical device as the workload saw it: enough to find it in a snapshot (PCI address,
/// device UUID) and to say what it is (a CPU device has no VRAM for any source to see).
#[derive(Debug, Clone, Default, PartialEq, Serialize, Deserialize)]
pub struct VulkanDevice {
    /// `cpu`, `discrete-gpu`, `integrated-gpu`, `virtual-gpu` or `other`.
    pub device_type: String,
    pub vendor_id: u32,
    pub device_id: u32,
    /// `1.3.230`
    pub api_version: String,
    /// `llvmpipe`, `radv`, `NVIDIA` (VK_KHR_driver_properties / Vulkan 1.2), where reported.
    pub driver_name: Option<String>,
    /// `Mesa 22.3.6 (LLVM 15.0.6)`, where reported.
    pub driver_info: Option<String>,
    /// `0000:01:00.0` (VK_EXT_pci_bus_info), where reported.
    pub pci_bus_id: Option<String>,
    /// The device UUID (Vulkan 1.1) as 32 hex digits, where reported.
    pub device_uuid: Option<String>,
    /// The loader library that was loaded.
    pub loader: String,
    /// The memory type and heap the allocation comes from (DEVICE_LOCAL).
    pub memory_type_index: u32,
    pub heap_index: u32,
    pub heap_bytes: u64,
    /// Whether VK_EXT_memory_budget reports this heap's budget and usage.
    pub memory_budget: bool,
    /// The other physical devices the loader listed (index, name, type), for the record.
    #[serde(default)]
    pub others: Vec<String>,
}

/// What one API does at each step. [`serve`] checks the order (a context before an allocation,
/// one allocation at a time) and calls these; errors are sentences for the parent.
pub trait Steps {
    fn has_context(&self) -> bool;
    fn has_allocation(&self) -> bool;
    /// The `context` step: CUDA's context, Vulkan's logical device.
    fn create_context(&mut self) -> Result<(), String>;
    /// The `alloc` step: `bytes` (> 0) allocated and written. Whether it was written.
    fn allocate(&mut self, bytes: u64) -> Result<bool, String>;
    /// The `free` step.
    fn free(&mut self) -> Result<(), String>;
    /// The `exit` step: everything released. The first error on the way, if any.
    fn release(&mut self) -> Option<String>;
    /// Adds what the API tells of memory now (free, total, heap usage, resident set) to `r`.
    fn measure(&self, r: &mut StepReport);
}

/// Runs the child: sends the `idle` report of the `opened` workload (or its error), then one
/// report per command on `input` until `exit`, an error, end of input or a Ctrl-C. Returns the
/// process exit status: 0 after a clean exit, 130 after a Ctrl-C, 1 otherwise. Never panics on
/// bad input: an unknown command is an error report.
pub fn serve<S: Steps>(
    opened: Result<(S, ChildDevice), String>,
    input: &mut dyn BufRead,
    output: &mut dyn Write,
) -> i32 {
    let pid = std::process::id();
    let (mut steps, device) = match opened {
        Ok(o) => o,
        Err(e) => {
            StepReport::error(pid, e).send(output);
            return 1;
        }
    };
    let mut idle = StepReport {
        step: "idle".into(),
        pid,
        device: Some(device),
        ..StepReport::default()
    };
    steps.measure(&mut idle);
    if !idle.send(output) {
        return 1;
    }
    let mut line = String::new();
    loop {
        line.clear();
        match input.read_line(&mut line) {
            // End of input: the parent is gone or gave up; dropping `steps` cleans up.
            Ok(0) | Err(_) => return 1,
            Ok(_) => {}
        }
        let mut r = StepReport {
            pid,
            ..StepReport::default()
        };
        let res = match step(&mut steps, line.trim(), &mut r) {
            Step::Exit => {
                let failed = r.error.is_some();
                r.send(output);
                return i32::from(failed);
            }
            Step::Done(res) => res,
        };
        if let Err(e) = res {
            StepReport::error(pid, e).send(output);
            return 1;
        }
        // Ctrl-C during the step: stop here; dropping `steps` releases everything.
        if crate::signal::interrupted() {
            let e = format!(
                "interrupted (Ctrl-C) during the {} step; everything was released",
                r.step
            );
            StepReport::error(pid, e).send(output);
            return 130;
        }
        steps.measure(&mut r);
        if !r.send(output) {
            return 1;
        }
    }
}

enum Step {
    Done(Result<(), String>),
    /// `exit`: everything is released and `r` is the last report.
    Exit,
}

/// Carries out one command if it fits the state, naming the step in `r`.
fn step<S: Steps>(s: &mut S, cmd: &str, r: &mut StepReport) -> Step {
    let res = match cmd.split_once(' ').unwrap_or((cmd, "")) {
        ("context", _) if !s.has_context() => {
            r.step = "context".into();
            s.create_context()
        }
        ("alloc", n) if s.has_context() && !s.has_allocation() => {
            r.step = "allocated".into();
            match n.trim().parse::<u64>() {
                Ok(b) if b > 0 => s.allocate(b).map(|t| r.touched = Some(t)),
                _ => Err(format!("alloc needs a size in bytes, got {n:?}")),
            }
        }
        ("free", _) if s.has_allocation() => {
            r.step = "freed".into();
            s.free()
        }
        ("exit", _) => {
            r.error = s.release();
            r.step = "exiting".into();
            return Step::Exit;
        }
        _ => Err(format!("unexpected command {cmd:?} at this step")),
    };
    Step::Done(res)
}

#[cfg(test)]
mod tests {
    use super::*;

    /// A workload without a driver: it keeps the state, and can fail one step.
    #[derive(Default)]
    struct Fake {
        context: bool,
        allocated: Option<u64>,
        fail_alloc: bool,
    }

    impl Steps for Fake {
        fn has_context(&self) -> bool {
            self.context
        }
        fn has_allocation(&self) -> bool {
            self.allocated.is_some()
        }
        fn create_context(&mut self) -> Result<(), String> {
            self.context = true;
            Ok(())
        }
        fn allocate(&mut self, bytes: u64) -> Result<bool, String> {
            if self.fail_alloc {
                return Err("out of memory".into());
            }
            self.allocated = Some(bytes);
            Ok(true)
        }
        fn free(&mut self) -> Result<(), String> {
            self.allocated = None;
            Ok(())
        }
        fn release(&mut self) -> Option<String> {
            self.context = false;
            None
        }
        fn measure(&self, r: &mut StepReport) {
            r.total_bytes = Some(1 << 30);
            r.free_bytes = Some((1 << 30) - self.allocated.unwrap_or(0));
        }
    }

    fn run(steps: Fake, input: &str) -> (i32, Vec<StepReport>) {
        let mut out = Vec::new();
        let code = serve(
            Ok((steps, ChildDevice::default())),
            &mut input.as_bytes(),
            &mut out,
        );
        let reports = String::from_utf8(out)
            .unwrap()
            .lines()
            .map(|l| serde_json::from_str(l).unwrap())
            .collect();
        (code, reports)
    }

    #[test]
    fn the_whole_sequence_reports_each_step_with_its_measurement() {
        let (code, r) = run(Fake::default(), "context\nalloc 1024\nfree\nexit\n");
        assert_eq!(code, 0);
        let steps: Vec<&str> = r.iter().map(|r| r.step.as_str()).collect();
        assert_eq!(steps, ["idle", "context", "allocated", "freed", "exiting"]);
        assert!(r[0].device.is_some());
        assert_eq!(r[2].touched, Some(true));
        assert_eq!(r[2].free_bytes, Some((1 << 30) - 1024));
        // The exit report is sent after everything is released: nothing is measured on it.
        assert_eq!(r[4].free_bytes, None);
    }

    #[test]
    fn out_of_order_bad_sizes_failures_and_end_of_input_stop_with_an_error() {
        let last = |input: &str, fake: Fake| {
            let (code, r) = run(fake, input);
            (code, r.last().unwrap().error.clone().unwrap_or_default())
        };
        let (code, e) = last("alloc 1024\n", Fake::default());
        assert_eq!(code, 1);
        assert_eq!(e, "unexpected command \"alloc 1024\" at this step");
        let (_, e) = last("context\nalloc lots\n", Fake::default());
        assert_eq!(e, "alloc needs a size in bytes, got \"lots\"");
        let (_, e) = last("context\nalloc 0\n", Fake::default());
        assert_eq!(e, "alloc needs a size in bytes, got \"0\"");
        let failing = Fake {
            fail_alloc: true,
            ..Fake::default()
        };
        let (_, e) = last("context\nalloc 1\n", failing);
        assert_eq!(e, "out of memory");
        // The parent went away: no report, status 1.
        let (code, r) = run(Fake::default(), "context\n");
        assert_eq!((code, r.len()), (1, 2));
    }

    #[test]
    fn a_workload_that_cannot_open_says_why_and_nothing_else() {
        let mut out = Vec::new();
        let code = serve::<Fake>(Err("no device".into()), &mut "exit\n".as_bytes(), &mut out);
        assert_eq!(code, 1);
        let r: StepReport = serde_json::from_slice(&out).unwrap();
        assert_eq!(
            (r.step.as_str(), r.error.as_deref()),
            ("error", Some("no device"))
        );
    }
}
