//! The Vulkan child: the step protocol of the CUDA child ([`gpuledger_cuda::step`]: one command a
//! line in, one [`StepReport`] a line out; `context`, `alloc N`, `free`, `exit`), so the parent's
//! sequence, time limits and clean-up are the same for both paths.
//!
//! - idle: the loader is opened, an instance created and the physical devices listed; the chosen
//!   device is reported (no logical device yet, so no driver memory of the workload's own);
//! - context: a logical device with one queue and a command pool;
//! - allocated: a buffer of N bytes bound to N bytes of a DEVICE_LOCAL memory type, filled with
//!   `vkCmdFillBuffer` on the device and waited for, so the pages are really touched;
//! - freed: the buffer destroyed and the memory freed;
//! - exit: the device and the instance destroyed.
//!
//! Everything lives in the `held` module's guard, so an error, the end of input (the parent gave up
//! or was interrupted) or a Ctrl-C releases the memory before the process ends. Which device and
//! memory type is the `device` module's business.

use std::io::{BufRead, Write};
use std::path::Path;

use gpuledger_cuda::step::{serve, Steps};
use gpuledger_cuda::workload::StepReport;

use crate::device::{budget, choose, Chosen};
use crate::held::{allocate, create_device, open, Held};

/// This process's resident memory (`VmRSS` in /proc/self/status); `None` elsewhere.
fn rss() -> Option<u64> {
    if !cfg!(target_os = "linux") {
        return None;
    }
    let text = std::fs::read_to_string("/proc/self/status").ok()?;
    let line = text.lines().find(|l| l.starts_with("VmRSS:"))?;
    let kb: u64 = line.split_whitespace().nth(1)?.parse().ok()?;
    Some(kb * 1024)
}

/// Runs the workload: `input` carries the parent's commands, `output` gets the reports. Returns
/// the process exit status (see [`serve`]).
pub fn run_child(
    loader: Option<&Path>,
    choice: Option<i32>,
    input: &mut dyn BufRead,
    output: &mut dyn Write,
) -> i32 {
    let opened = open(loader).and_then(|(held, loader_name)| {
        let (chosen, device) = choose(&held.instance, held.api, &loader_name, choice)?;
        let heap_bytes = device.total_bytes;
        let steps = VulkanSteps {
            held,
            chosen,
            heap_bytes,
        };
        Ok((steps, device))
    });
    serve(opened, input, output)
}

/// The steps on a Vulkan device; dropping `held` releases everything.
struct VulkanSteps {
    held: Held,
    chosen: Chosen,
    /// The size of the heap the allocation comes from, reported as `total_bytes`.
    heap_bytes: u64,
}

impl Steps for VulkanSteps {
    fn has_context(&self) -> bool {
        self.held.logical.is_some()
    }

    fn has_allocation(&self) -> bool {
        self.held.allocated()
    }

    fn create_context(&mut self) -> Result<(), String> {
        create_device(&mut self.held, &self.chosen)
    }

    fn allocate(&mut self, bytes: u64) -> Result<bool, String> {
        allocate(&mut self.held, &self.chosen, bytes).map(|_| true)
    }

    fn free(&mut self) -> Result<(), String> {
        self.held.free();
        Ok(())
    }

    fn release(&mut self) -> Option<String> {
        self.held.release_device();
        None
    }

    fn measure(&self, r: &mut StepReport) {
        r.total_bytes = Some(self.heap_bytes);
        r.rss_bytes = rss();
        if let Some((b, u)) = budget(&self.held.instance, &self.chosen) {
            r.free_bytes = Some(b.saturating_sub(u));
            r.heap_usage_bytes = Some(u);
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use gpuledger_cuda::signal;

    /// Lavapipe's ICD where it is installed; `None` (skipped with a reason) where it or the
    /// loader is not, a failure under CI=true.
    fn lavapipe() -> Option<std::path::PathBuf> {
        let icd = std::path::PathBuf::from(format!(
            "/usr/share/vulkan/icd.d/lvp_icd.{}.json",
            std::env::consts::ARCH
        ));
        // SAFETY: probing the loader; dropped at once.
        let loader = unsafe { ash::Entry::load() }.is_ok();
        if loader && icd.exists() {
            return Some(icd);
        }
        let why = if loader {
            "lavapipe is not installed"
        } else {
            "the Vulkan loader is not installed"
        };
        if std::env::var("CI").as_deref() == Ok("true") {
            panic!("{why} (run .ci/setup-vulkan.sh)");
        }
        eprintln!("SKIPPED: {why} (run .ci/setup-vulkan.sh)");
        None
    }

    /// Sets the Ctrl-C flag when the parent's `alloc` command is read, as a Ctrl-C during the
    /// allocation would.
    struct CtrlCAtAlloc(std::io::Cursor<&'static [u8]>);

    impl std::io::Read for CtrlCAtAlloc {
        fn read(&mut self, buf: &mut [u8]) -> std::io::Result<usize> {
            self.0.read(buf)
        }
    }

    impl BufRead for CtrlCAtAlloc {
        fn fill_buf(&mut self) -> std::io::Result<&[u8]> {
            self.0.fill_buf()
        }
        fn consume(&mut self, n: usize) {
            if self.0.fill_buf().is_ok_and(|b| b.starts_with(b"alloc")) {
                signal::flag().store(true, std::sync::atomic::Ordering::SeqCst);
            }
            self.0.consume(n)
        }
    }

    /// On lavapipe for real: a Ctrl-C during the allocation stops the workload with 130 after
    /// the step, and the allocation (host memory on a CPU device) is released on the way out.
    #[cfg(target_os = "linux")]
    #[test]
    fn ctrl_c_during_the_allocation_releases_it_on_lavapipe() {
        let Some(icd) = lavapipe() else { return };
        // Process-wide, but only this test in this crate starts a Vulkan instance.
        std::env::set_var("VK_ICD_FILENAMES", icd);
        // Well above what loading lavapipe itself adds to the resident set (about 60 MiB), so a
        // leak of the allocation cannot hide in it.
        const N: u64 = 256 << 20;
        let before = rss().unwrap();
        let mut input = CtrlCAtAlloc(std::io::Cursor::new(
            b"context\nalloc 268435456\nfree\nexit\n",
        ));
        let mut out = Vec::new();
        let code = run_child(None, None, &mut input, &mut out);
        signal::flag().store(false, std::sync::atomic::Ordering::SeqCst);
        let after = rss().unwrap();
        let text = String::from_utf8_lossy(&out);
        assert_eq!(code, 130, "{text}");
        let last: StepReport = serde_json::from_str(text.lines().last().unwrap()).unwrap();
        assert_eq!(
            last.error.as_deref(),
            Some("interrupted (Ctrl-C) during the allocated step; everything was released")
        );
        // The allocation was made (the context step before it reported) and is gone again.
        let ctx: StepReport = serde_json::from_str(text.lines().nth(1).unwrap()).unwrap();
        assert_eq!(ctx.step, "context");
        assert!(
            after < before + N / 2,
            "resident memory {before} before, {after} after: the {N}-byte allocation was not released"
        );
    }

    #[test]
    fn a_missing_loader_is_a_sentence() {
        let mut out = Vec::new();
        let code = run_child(
            Some(Path::new("/nonexistent/libvulkan.so.1")),
            None,
            &mut std::io::empty(),
            &mut out,
        );
        assert_eq!(code, 1);
        let r: StepReport = serde_json::from_slice(&out).unwrap();
        assert_eq!(r.step, "error");
        let e = r.error.unwrap();
        assert!(
            e.contains("cannot load the Vulkan loader /nonexistent/libvulkan.so.1"),
            "{e}"
        );
        assert!(e.contains("libvulkan1"), "{e}");
    }
}
