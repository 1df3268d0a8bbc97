//! The known workload `gpuledger verify` runs in a child process: idle → a context → N bytes of
//! device memory allocated and written → freed → exit, one step per command from the parent.
//!
//! The child talks over its standard streams, one JSON object a line: it reads a command
//! (`context`, `alloc`, `free`, `exit`) and answers with a [`StepReport`]. It holds everything in
//! the probe's clean-up guard, so an error, end of input (the parent went away or was
//! interrupted) or a Ctrl-C releases the memory and the context before the process ends.

use std::io::{BufRead, Write};
use std::path::Path;

use serde::{Deserialize, Serialize};

use crate::cuda::{cuda_version_string, Cuda};
use crate::probe::Session;

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

/// Runs the workload: `input` carries the parent's commands, `output` gets the reports. Returns
/// the process exit status to use. Never panics on bad input: an unknown command is an error
/// report, and everything is released.
pub fn run_child(
    cuda_lib: Option<&Path>,
    ordinal: i32,
    input: &mut dyn BufRead,
    output: &mut dyn Write,
) -> i32 {
    let pid = std::process::id();
    let mut say = |r: StepReport| r.send(output);
    let fail = |e: String| StepReport {
        step: "error".into(),
        pid,
        error: Some(e),
        ..StepReport::default()
    };
    let cuda = match Cuda::load(cuda_lib) {
        Ok(c) => c,
        Err(e) => {
            say(fail(e.to_string()));
            return 1;
        }
    };
    let dev = match open_device(&cuda, ordinal) {
        Ok(d) => d,
        Err(e) => {
            say(fail(e));
            return 1;
        }
    };
    let cu_dev = dev.0;
    if !say(StepReport {
        step: "idle".into(),
        pid,
        device: Some(dev.1),
        ..StepReport::default()
    }) {
        return 1;
    }
    // Dropped on every path out: frees the allocation, then destroys the context.
    let mut s = Session::new(&cuda);
    let mut line = String::new();
    loop {
        line.clear();
        match input.read_line(&mut line) {
            // End of input: the parent is gone or gave up; the guard cleans up.
            Ok(0) | Err(_) => return 1,
            Ok(_) => {}
        }
        let cmd = line.trim();
        let mut r = StepReport {
            pid,
            ..StepReport::default()
        };
        let res: Result<(), String> = match cmd.split_once(' ').unwrap_or((cmd, "")) {
            ("context", _) if s.ctx.is_none() => {
                r.step = "context".into();
                cuda.ctx_create(cu_dev)
                    .map(|c| s.ctx = Some(c))
                    .map_err(|e| e.to_string())
            }
            ("alloc", n) if s.ctx.is_some() && s.device_mem.is_none() => {
                r.step = "allocated".into();
                match n.trim().parse::<usize>() {
                    Ok(b) if b > 0 => cuda
                        .mem_alloc(b)
                        .map_err(|e| e.to_string())
                        .and_then(|p| {
                            s.device_mem = Some(p);
                            cuda.memset_d8(p, 0xA5, b).map_err(|e| e.to_string())
                        })
                        .map(|t| r.touched = Some(t)),
                    _ => Err(format!("alloc needs a size in bytes, got {n:?}")),
                }
            }
            ("free", _) if s.device_mem.is_some() => {
                r.step = "freed".into();
                let p = s.device_mem.take().expect("checked");
                cuda.mem_free(p).map_err(|e| e.to_string())
            }
            ("exit", _) => {
                let errs = s.release_all();
                r.step = "exiting".into();
                r.error = errs.first().map(|e| e.to_string());
                say(r);
                return i32::from(!errs.is_empty());
            }
            _ => Err(format!("unexpected command {cmd:?} at this step")),
        };
        if let Err(e) = res {
            say(fail(e));
            return 1;
        }
        // Ctrl-C during the step: stop here; the guard releases everything.
        if crate::signal::interrupted() {
            say(fail(format!(
                "interrupted (Ctrl-C) during the {} step; everything was released",
                r.step
            )));
            return 130;
        }
        if s.ctx.is_some() {
            if let Ok((free, total)) = cuda.mem_get_info() {
                r.free_bytes = Some(free);
                r.total_bytes = Some(total);
            }
        }
        if !say(r) {
            return 1;
        }
    }
}

fn open_device(cuda: &Cuda, ordinal: i32) -> Result<(i32, ChildDevice), String> {
    let e = |x: crate::cuda::CudaError| x.to_string();
    cuda.init().map_err(e)?;
    let count = cuda.device_count().map_err(e)?;
    if count <= 0 {
        return Err("the CUDA driver reports no devices".into());
    }
    if ordinal < 0 || ordinal >= count {
        return Err(format!(
            "there is no CUDA device {ordinal}: the driver reports {count}"
        ));
    }
    let d = cuda.device(ordinal).map_err(e)?;
    Ok((
        d,
        ChildDevice {
            ordinal,
            name: cuda.device_name(d).map_err(e)?,
            uuid: cuda.device_uuid(d).map_err(e)?,
            total_bytes: cuda.device_total_mem(d).map_err(e)?,
            cuda_lib: cuda.path().to_string(),
            cuda_version: cuda.driver_version().ok().map(cuda_version_string),
            vulkan: None,
        },
    ))
}
