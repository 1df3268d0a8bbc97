//! The probe sequence. On one device: create a context (its own cost), then for each size
//! allocate device memory (the control), pinned host memory with `cuMemHostAlloc` (default
//! flags and DEVICEMAP) and page-locked ordinary memory with `cuMemHostRegister`, reading the
//! driver's free memory and NVML's used memory before and after each step and re-reading after
//! each free until the memory is back. Everything allocated is held by a `Session` guard that
//! releases it on every path out: success, error, or interruption.

use gpuledger_lang::Said;
use std::alloc::Layout;
use std::ffi::c_void;
use std::path::PathBuf;
use std::sync::atomic::{AtomicBool, Ordering};
use std::time::{Duration, Instant, SystemTime};

use gpuledger_model::units::human_bytes;

use crate::cuda::{
    cuda_version_string, CuContext, CuDevice, CuDevicePtr, Cuda, CudaError, LoadError,
    CU_MEMHOSTALLOC_DEVICEMAP,
};
use crate::report::{ContextCost, DeviceInfo, Method, ProbeReport, Release, Row, SCHEMA};

/// Which device a view is asked about: the CUDA ordinal and, when the driver gives it, the
/// UUID (NVML's index order can differ from CUDA's, so match on the UUID).
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct DeviceRef {
    pub ordinal: i32,
    pub uuid: Option<String>,
}

/// NVML's view of device memory, supplied by the caller so this crate does not depend on a
/// particular NVML binding.
pub trait NvmlView {
    /// Device-wide used memory in bytes, or `None` when NVML cannot say.
    fn used(&self, device: &DeviceRef) -> Option<u64>;
    /// The display driver's version string, when known.
    fn driver_version(&self) -> Option<String> {
        None
    }
}

impl<F: Fn(&DeviceRef) -> Option<u64>> NvmlView for F {
    fn used(&self, device: &DeviceRef) -> Option<u64> {
        self(device)
    }
}

/// The probe never pins more than this fraction of available host memory: pinned pages cannot
/// be swapped out, and the rest of the system still needs room.
pub const HOST_FRACTION: (u64, u64) = (1, 2);
/// ...nor asks for more than this fraction of free VRAM (under WDDM pinned memory is charged to
/// VRAM too).
pub const VRAM_FRACTION: (u64, u64) = (9, 10);

pub struct ProbeOptions<'a> {
    /// Driver library path; `None` = `libcuda.so.1` / `nvcuda.dll`.
    pub cuda_lib: Option<PathBuf>,
    /// CUDA device ordinal.
    pub device: i32,
    /// Allocation sizes in bytes; each method is measured at each size.
    pub sizes: Vec<u64>,
    /// Pause between re-reads after a free.
    pub settle: Duration,
    /// Re-reads after a free before concluding the memory did not come back.
    pub max_release_reads: u32,
    /// `/proc/meminfo` replacement; `None` = the platform's source.
    pub meminfo: Option<PathBuf>,
    pub nvml: Option<&'a dyn NvmlView>,
    /// Set (by a Ctrl-C handler) to stop; the sequence checks it between steps and while
    /// waiting, then unwinds through its guards.
    pub cancel: &'a AtomicBool,
}

impl<'a> ProbeOptions<'a> {
    pub fn new(sizes: Vec<u64>, cancel: &'a AtomicBool) -> Self {
        ProbeOptions {
            cuda_lib: None,
            device: 0,
            sizes,
            settle: Duration::from_millis(200),
            max_release_reads: 10,
            meminfo: None,
            nvml: None,
            cancel,
        }
    }
}

#[derive(Debug, thiserror::Error)]
pub enum ProbeError {
    #[error("no sizes to probe")]
    NoSizes,
    #[error("a size of 0 bytes cannot be probed")]
    ZeroSize,
    #[error(transparent)]
    Load(#[from] LoadError),
    #[error("cannot tell how much host memory is free ({0}), so the probe will not pin any")]
    HostUnknown(String),
    #[error("refusing to pin {}: only {} of host memory is available ({source_desc}), and the probe pins at most half of that; choose smaller --sizes", human_bytes(*size), human_bytes(*available))]
    HostTooSmall {
        size: u64,
        available: u64,
        source_desc: String,
    },
    #[error("refusing to allocate {}: device {device} has only {} of VRAM free, and the probe uses at most 90% of that; choose smaller --sizes", human_bytes(*size), human_bytes(*free))]
    VramTooSmall { size: u64, free: u64, device: i32 },
    #[error("the CUDA driver reports no devices")]
    NoDevices,
    #[error("there is no CUDA device {ordinal}: the driver reports {count} (ordinals 0 to {})", count - 1)]
    BadDevice { ordinal: i32, count: i32 },
    #[error("could not create a CUDA context on device {device} ({name}): {cause}. Another process may hold the device in exclusive mode, or the driver may be in a bad state")]
    ContextCreate {
        device: i32,
        name: String,
        cause: CudaError,
    },
    #[error("out of memory: {step} of {} failed: {cause}. Everything the probe had allocated was released; choose smaller --sizes", human_bytes(*bytes))]
    OutOfMemory {
        step: &'static str,
        bytes: u64,
        cause: CudaError,
    },
    #[error("{step}: {cause}")]
    Cuda { step: String, cause: CudaError },
    #[error("could not allocate {} of ordinary host memory to register", human_bytes(*bytes))]
    HostAlloc { bytes: u64 },
    #[error("interrupted; everything the probe had allocated was released")]
    Interrupted,
}

impl ProbeError {
    fn step(step: impl Into<String>) -> impl FnOnce(CudaError) -> ProbeError {
        let step = step.into();
        move |cause| ProbeError::Cuda { step, cause }
    }
}

/// Ordinary host memory for `cuMemHostRegister`, aligned to 64 KiB (a multiple of every page
/// size in use: 4 KiB, 16 KiB, 64 KiB).
struct PageBuf {
    ptr: *mut u8,
    layout: Layout,
}

impl PageBuf {
    fn new(bytes: u64) -> Result<PageBuf, ProbeError> {
        let layout = usize::try_from(bytes)
            .ok()
            .and_then(|b| Layout::from_size_align(b, 64 * 1024).ok())
            .ok_or(ProbeError::HostAlloc { bytes })?;
        // SAFETY: size is non-zero (sizes are checked) and the layout is valid.
        let ptr = unsafe { std::alloc::alloc(layout) };
        if ptr.is_null() {
            return Err(ProbeError::HostAlloc { bytes });
        }
        Ok(PageBuf { ptr, layout })
    }
}

impl Drop for PageBuf {
    fn drop(&mut self) {
        // SAFETY: allocated in new() with this layout.
        unsafe { std::alloc::dealloc(self.ptr, self.layout) }
    }
}

/// Holds everything the probe has allocated. Dropping it releases what is still held, in
/// dependency order (unregister before freeing the buffer, memory before the context), so an
/// error or an interruption anywhere leaves nothing behind.
pub(crate) struct Session<'c> {
    pub(crate) cuda: &'c Cuda,
    pub(crate) ctx: Option<CuContext>,
    second_ctx: Option<CuContext>,
    pub(crate) device_mem: Option<CuDevicePtr>,
    host_mem: Option<*mut c_void>,
    registered: Option<*mut c_void>,
    buffer: Option<PageBuf>,
}

impl<'c> Session<'c> {
    pub(crate) fn new(cuda: &'c Cuda) -> Self {
        Session {
            cuda,
            ctx: None,
            second_ctx: None,
            device_mem: None,
            host_mem: None,
            registered: None,
            buffer: None,
        }
    }

    pub(crate) fn release_all(&mut self) -> Vec<CudaError> {
        let c = self.cuda;
        let mut errs = Vec::new();
        let mut keep = |r: Result<(), CudaError>| {
            if let Err(e) = r {
                errs.push(e);
            }
        };
        // SAFETY (this block's calls): each handle was created by this session, is taken out
        // of it here, and so is released exactly once; the buffer outlives its registration.
        if let Some(p) = self.registered.take() {
            keep(unsafe { c.mem_host_unregister(p) });
        }
        self.buffer = None;
        if let Some(p) = self.host_mem.take() {
            keep(unsafe { c.mem_free_host(p) });
        }
        if let Some(p) = self.device_mem.take() {
            keep(c.mem_free(p));
        }
        if let Some(x) = self.second_ctx.take() {
            keep(unsafe { c.ctx_destroy(x) });
        }
        if let Some(x) = self.ctx.take() {
            keep(unsafe { c.ctx_destroy(x) });
        }
        errs
    }
}

impl Drop for Session<'_> {
    fn drop(&mut self) {
        for e in self.release_all() {
            eprintln!("gpuledger probe: clean-up: {e}");
        }
    }
}

#[derive(Debug, Clone, Copy)]
struct Reading {
    free: u64,
    nvml: Option<u64>,
}

struct Runner<'a, 'c> {
    opts: &'a ProbeOptions<'a>,
    dev: DeviceRef,
    s: Session<'c>,
}

impl Runner<'_, '_> {
    fn check_cancel(&self) -> Result<(), ProbeError> {
        if self.opts.cancel.load(Ordering::SeqCst) {
            Err(ProbeError::Interrupted)
        } else {
            Ok(())
        }
    }

    fn nvml(&self) -> Option<u64> {
        self.opts.nvml.and_then(|n| n.used(&self.dev))
    }

    fn read(&self, step: &str) -> Result<Reading, ProbeError> {
        let (free, _) = self
            .s
            .cuda
            .mem_get_info()
            .map_err(ProbeError::step(format!("reading free memory ({step})")))?;
        Ok(Reading {
            free,
            nvml: self.nvml(),
        })
    }

    /// Sleeps for the settle time, waking early on cancellation.
    fn pause(&self) -> Result<(), ProbeError> {
        let end = Instant::now() + self.opts.settle;
        loop {
            self.check_cancel()?;
            let now = Instant::now();
            if now >= end {
                return Ok(());
            }
            std::thread::sleep((end - now).min(Duration::from_millis(20)));
        }
    }

    /// Re-reads free memory after a free until it is back to `before` (release can be
    /// asynchronous), or until the read budget is spent.
    fn settle(&self, before: Reading, step: &str) -> Result<Release, ProbeError> {
        let mut reads = 0;
        loop {
            reads += 1;
            let r = self.read(step)?;
            if r.free >= before.free {
                return Ok(Release {
                    reads,
                    released: true,
                    residual_bytes: 0,
                });
            }
            if reads >= self.opts.max_release_reads.max(1) {
                return Ok(Release {
                    reads,
                    released: false,
                    residual_bytes: before.free as i64 - r.free as i64,
                });
            }
            self.pause()?;
        }
    }

    fn oom_or(step: &'static str, bytes: u64) -> impl FnOnce(CudaError) -> ProbeError {
        move |cause| {
            if cause.is_out_of_memory() {
                ProbeError::OutOfMemory { step, bytes, cause }
            } else {
                ProbeError::Cuda {
                    step: format!("{step} of {}", human_bytes(bytes)),
                    cause,
                }
            }
        }
    }

    fn allocate(&mut self, m: Method, bytes: u64) -> Result<(), ProbeError> {
        let c = self.s.cuda;
        let n = bytes as usize;
        match m {
            Method::DeviceAlloc => {
                self.s.device_mem = Some(c.mem_alloc(n).map_err(Self::oom_or("cuMemAlloc", bytes))?)
            }
            Method::HostAlloc => {
                self.s.host_mem = Some(
                    c.mem_host_alloc(n, 0)
                        .map_err(Self::oom_or("cuMemHostAlloc", bytes))?,
                )
            }
            Method::HostAllocDevicemap => {
                self.s.host_mem = Some(
                    c.mem_host_alloc(n, CU_MEMHOSTALLOC_DEVICEMAP)
                        .map_err(Self::oom_or("cuMemHostAlloc (DEVICEMAP)", bytes))?,
                )
            }
            Method::HostRegister => {
                let buf = self.s.buffer.insert(PageBuf::new(bytes)?);
                let p = buf.ptr as *mut c_void;
                // SAFETY: the buffer is held by the session until after unregistering.
                unsafe { c.mem_host_register(p, n) }
                    .map_err(Self::oom_or("cuMemHostRegister", bytes))?;
                self.s.registered = Some(p);
            }
        }
        Ok(())
    }

    fn free(&mut self, m: Method) -> Result<(), ProbeError> {
        let c = self.s.cuda;
        match m {
            Method::DeviceAlloc => {
                if let Some(p) = self.s.device_mem.take() {
                    c.mem_free(p).map_err(ProbeError::step("cuMemFree"))?;
                }
            }
            Method::HostAlloc | Method::HostAllocDevicemap => {
                if let Some(p) = self.s.host_mem.take() {
                    // SAFETY: taken out of the session, so freed once.
                    unsafe { c.mem_free_host(p) }.map_err(ProbeError::step("cuMemFreeHost"))?;
                }
            }
            Method::HostRegister => {
                if let Some(p) = self.s.registered.take() {
                    // SAFETY: registered by allocate(), taken out of the session.
                    unsafe { c.mem_host_unregister(p) }
                        .map_err(ProbeError::step("cuMemHostUnregister"))?;
                }
                self.s.buffer = None;
            }
        }
        Ok(())
    }

    fn measure(&mut self, m: Method, bytes: u64) -> Result<Row, ProbeError> {
        self.check_cancel()?;
        let label = m.label();
        let before = self.read(label)?;
        self.allocate(m, bytes)?;
        let after = self.read(label)?;
        self.check_cancel()?;
        self.free(m)?;
        let release = self.settle(before, label)?;
        Ok(Row::new(
            m,
            bytes,
            before.free as i64 - after.free as i64,
            delta(before.nvml, after.nvml),
            release,
        ))
    }

    /// Creates the probe's context and measures what contexts cost. The first: only NVML can
    /// see its cost, as the driver's free memory is unreadable before a context exists.
    fn contexts(&mut self, dev: CuDevice, name: &str) -> Result<ContextCost, ProbeError> {
        let nvml_before_ctx = self.nvml();
        let ctx = self
            .s
            .cuda
            .ctx_create(dev)
            .map_err(|cause| ProbeError::ContextCreate {
                device: self.opts.device,
                name: name.to_string(),
                cause,
            })?;
        self.s.ctx = Some(ctx);
        let with_ctx = self.read("after creating the context")?;
        let (second_by_driver, second_by_nvml) = self.second_context(dev)?;
        Ok(ContextCost {
            first_by_nvml: delta(nvml_before_ctx, with_ctx.nvml),
            second_by_driver,
            second_by_nvml,
        })
    }

    /// The cost of a second context, by the driver's free memory (the only way the driver can
    /// show a context's cost: its free memory cannot be read before the first one exists).
    fn second_context(&mut self, dev: CuDevice) -> Result<(i64, Option<i64>), ProbeError> {
        self.check_cancel()?;
        let c = self.s.cuda;
        let before = self.read("before a second context")?;
        let ctx = c
            .ctx_create(dev)
            .map_err(|cause| ProbeError::ContextCreate {
                device: self.dev.ordinal,
                name: "second context".into(),
                cause,
            })?;
        self.s.second_ctx = Some(ctx);
        let after = self.read("with a second context")?;
        if let Some(x) = self.s.second_ctx.take() {
            // SAFETY: created above, taken out of the session, destroyed once.
            unsafe { c.ctx_destroy(x) }
                .map_err(ProbeError::step("destroying the second context"))?;
        }
        let main = self.s.ctx.expect("created before");
        // SAFETY: the main context is alive (held by the session).
        unsafe { c.ctx_set_current(main) }
            .map_err(ProbeError::step("making the probe's context current again"))?;
        self.settle(before, "after the second context")?;
        Ok((
            before.free as i64 - after.free as i64,
            delta(before.nvml, after.nvml),
        ))
    }
}

/// `v × n / d` for a fraction `(n, d)` such as [`VRAM_FRACTION`], without overflow.
pub fn frac(v: u64, (n, d): (u64, u64)) -> u64 {
    (v as u128 * n as u128 / d as u128) as u64
}

/// What `after - before` says where both readings exist (NVML's, which may be missing).
fn delta(before: Option<u64>, after: Option<u64>) -> Option<i64> {
    Some(after? as i64 - before? as i64)
}

/// Runs the whole probe. On error or interruption, everything allocated has been released and
/// the context destroyed by the time this returns.
pub fn run(opts: &ProbeOptions<'_>) -> Result<ProbeReport, ProbeError> {
    let largest = check_host(opts)?;
    let measured_at = humantime::format_rfc3339_seconds(SystemTime::now()).to_string();

    let cuda = Cuda::load(opts.cuda_lib.as_deref())?;
    cuda.init()
        .map_err(ProbeError::step("initialising the CUDA driver"))?;
    let cuda_version = cuda.driver_version().ok().map(cuda_version_string);
    let (dev, device) = open_device(&cuda, opts.device)?;
    let mut r = Runner {
        opts,
        dev: DeviceRef {
            ordinal: opts.device,
            uuid: device.uuid.clone(),
        },
        s: Session::new(&cuda),
    };
    let context = r.contexts(dev, &device.name)?;

    let now = r.read("before the allocations")?;
    if largest > frac(now.free, VRAM_FRACTION) {
        return Err(ProbeError::VramTooSmall {
            size: largest,
            free: now.free,
            device: opts.device,
        });
    }

    let mut rows = Vec::new();
    for &size in &opts.sizes {
        for m in Method::ALL {
            rows.push(r.measure(m, size)?);
        }
    }

    r.check_cancel()?;
    let mut errs = r.s.release_all();
    if let Some(cause) = errs.drain(..).next() {
        return Err(ProbeError::Cuda {
            step: "destroying the context".into(),
            cause,
        });
    }

    Ok(ProbeReport {
        schema: SCHEMA,
        measured_at,
        os: std::env::consts::OS.to_string(),
        cuda_lib: cuda.path().to_string(),
        device,
        cuda_driver_version: cuda_version,
        driver_version: opts.nvml.and_then(|n| n.driver_version()),
        settle_ms: opts.settle.as_millis() as u64,
        notes: notes(opts, &context, &rows),
        context,
        rows,
    })
}

/// The checks before the driver is touched at all: sizes given, none zero, the largest fits in
/// host memory, not cancelled. Returns the largest size.
fn check_host(opts: &ProbeOptions<'_>) -> Result<u64, ProbeError> {
    if opts.sizes.is_empty() {
        return Err(ProbeError::NoSizes);
    }
    if opts.sizes.contains(&0) {
        return Err(ProbeError::ZeroSize);
    }
    let largest = *opts.sizes.iter().max().expect("not empty");
    let (available, source) =
        crate::hostmem::available(opts.meminfo.as_deref()).map_err(ProbeError::HostUnknown)?;
    if largest > frac(available, HOST_FRACTION) {
        return Err(ProbeError::HostTooSmall {
            size: largest,
            available,
            source_desc: source.to_string(),
        });
    }
    if opts.cancel.load(Ordering::SeqCst) {
        return Err(ProbeError::Interrupted);
    }
    Ok(largest)
}

/// The device `ordinal`, checked against the driver's count, and what the report says of it.
pub(crate) fn open_device(cuda: &Cuda, ordinal: i32) -> Result<(CuDevice, DeviceInfo), ProbeError> {
    let count = cuda
        .device_count()
        .map_err(ProbeError::step("counting devices"))?;
    if count <= 0 {
        return Err(ProbeError::NoDevices);
    }
    if ordinal < 0 || ordinal >= count {
        return Err(ProbeError::BadDevice { ordinal, count });
    }
    let dev = cuda
        .device(ordinal)
        .map_err(ProbeError::step("opening the device"))?;
    let info = DeviceInfo {
        ordinal,
        name: cuda
            .device_name(dev)
            .map_err(ProbeError::step("reading the device name"))?,
        uuid: cuda
            .device_uuid(dev)
            .map_err(ProbeError::step("reading the device UUID"))?,
        total_bytes: cuda
            .device_total_mem(dev)
            .map_err(ProbeError::step("reading the device's total memory"))?,
    };
    Ok((dev, info))
}

/// The report's notes: what the NVML columns can be trusted for, and any release not seen.
fn notes(opts: &ProbeOptions<'_>, context: &ContextCost, rows: &[Row]) -> Vec<Said> {
    let mut notes = Vec::new();
    if opts.nvml.is_none() || context.first_by_nvml.is_none() {
        notes.push(Said::new("report-probe-note-no-nvml", vec![]));
    } else {
        notes.push(Said::new("report-probe-note-device-wide", vec![]));
    }
    if rows.iter().any(|row| !row.release.released) {
        let args = vec![
            ("reads", opts.max_release_reads.to_string().into()),
            ("ms", opts.settle.as_millis().to_string().into()),
        ];
        notes.push(Said::new("report-probe-note-not-released", args));
    }
    notes
}
