//! The CUDA known workload `gpuledger verify` runs in a child process, in the step protocol of
//! [`crate::step`]: a context, N bytes of device memory allocated and written with `cuMemsetD8`,
//! freed, exit. Everything is held in the probe's clean-up guard (`probe::Session`), so an error, end
//! of input or a Ctrl-C releases the memory and the context before the process ends.

use std::io::{BufRead, Write};
use std::path::Path;

use crate::cuda::{cuda_version_string, Cuda};
use crate::probe::Session;
pub use crate::step::{ChildDevice, StepReport, VulkanDevice};

/// Runs the workload: `input` carries the parent's commands, `output` gets the reports. Returns
/// the process exit status to use (see [`crate::step::serve`]).
pub fn run_child(
    cuda_lib: Option<&Path>,
    ordinal: i32,
    input: &mut dyn BufRead,
    output: &mut dyn Write,
) -> i32 {
    let cuda = match Cuda::load(cuda_lib) {
        Ok(c) => c,
        Err(e) => return crate::step::serve::<CudaSteps<'_>>(Err(e.to_string()), input, output),
    };
    let opened = open_device(&cuda, ordinal).map(|(dev, device)| {
        let steps = CudaSteps {
            cuda: &cuda,
            dev,
            // Dropped on every path out: frees the allocation, then destroys the context.
            s: Session::new(&cuda),
        };
        (steps, device)
    });
    crate::step::serve(opened, input, output)
}

/// The steps on the CUDA driver API.
struct CudaSteps<'a> {
    cuda: &'a Cuda,
    dev: i32,
    s: Session<'a>,
}

impl crate::step::Steps for CudaSteps<'_> {
    fn has_context(&self) -> bool {
        self.s.ctx.is_some()
    }

    fn has_allocation(&self) -> bool {
        self.s.device_mem.is_some()
    }

    fn create_context(&mut self) -> Result<(), String> {
        let c = self.cuda.ctx_create(self.dev).map_err(|e| e.to_string())?;
        self.s.ctx = Some(c);
        Ok(())
    }

    fn allocate(&mut self, bytes: u64) -> Result<bool, String> {
        let b = usize::try_from(bytes)
            .map_err(|_| format!("alloc needs a size in bytes, got \"{bytes}\""))?;
        let p = self.cuda.mem_alloc(b).map_err(|e| e.to_string())?;
        self.s.device_mem = Some(p);
        self.cuda.memset_d8(p, 0xA5, b).map_err(|e| e.to_string())
    }

    fn free(&mut self) -> Result<(), String> {
        let p = self.s.device_mem.take().ok_or("nothing is allocated")?;
        self.cuda.mem_free(p).map_err(|e| e.to_string())
    }

    fn release(&mut self) -> Option<String> {
        self.s.release_all().first().map(|e| e.to_string())
    }

    fn measure(&self, r: &mut crate::step::StepReport) {
        if self.s.ctx.is_some() {
            if let Ok((free, total)) = self.cuda.mem_get_info() {
                r.free_bytes = Some(free);
                r.total_bytes = Some(total);
            }
        }
    }
}

/// The probe's device opening (count, ordinal check, name, UUID, total), after `cuInit`, as the
/// child reports it.
fn open_device(cuda: &Cuda, ordinal: i32) -> Result<(i32, ChildDevice), String> {
    cuda.init().map_err(|e| e.to_string())?;
    let (d, info) = crate::probe::open_device(cuda, ordinal).map_err(|e| e.to_string())?;
    Ok((
        d,
        ChildDevice {
            ordinal: info.ordinal,
            name: info.name,
            uuid: info.uuid,
            total_bytes: info.total_bytes,
            cuda_lib: cuda.path().to_string(),
            cuda_version: cuda.driver_version().ok().map(cuda_version_string),
            vulkan: None,
        },
    ))
}
