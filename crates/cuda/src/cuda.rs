//! A small binding to the CUDA driver API, loaded at run time (no toolkit, no link-time
//! dependency). Only the entry points the probe needs. Signatures, versioned symbol names
//! (`_v2`) and constants follow NVIDIA's `cuda.h`:
//!
//! - `cuMemGetInfo`, `cuMemAlloc`, `cuMemFree`, `cuCtxCreate`, `cuCtxDestroy`,
//!   `cuDeviceTotalMem` and `cuMemHostRegister` are `#define`d to their `_v2` symbols;
//! - `CU_MEMHOSTALLOC_DEVICEMAP` is `0x02`;
//! - `CUdevice` is `int`, `CUdeviceptr` is `unsigned long long` on 64-bit targets, `CUresult`
//!   is an `int`-sized enum, `CUDAAPI` is `__stdcall` on Windows (so `extern "system"`).
//!
//! - `cuMemsetD8` is `#define`d to `cuMemsetD8_v2`;
//!
//! Managed memory (`cuMemAllocManaged`) is deliberately not bound: the probe never touches it.

use std::ffi::{c_char, c_int, c_uint, c_void, CStr, OsString};
use std::path::{Path, PathBuf};

use libloading::Library;

pub type CuResult = c_int;
pub type CuDevice = c_int;
pub type CuContext = *mut c_void;
#[cfg(target_pointer_width = "64")]
pub type CuDevicePtr = u64;
#[cfg(not(target_pointer_width = "64"))]
pub type CuDevicePtr = u32;

pub const CUDA_SUCCESS: CuResult = 0;
pub const CUDA_ERROR_OUT_OF_MEMORY: CuResult = 2;
/// `cuMemHostAlloc` flag: map the allocation into the device's address space.
pub const CU_MEMHOSTALLOC_DEVICEMAP: c_uint = 0x02;

/// The library the driver installs: `libcuda.so.1` (Linux, WSL) or `nvcuda.dll` (Windows).
pub fn default_library() -> &'static str {
    if cfg!(windows) {
        "nvcuda.dll"
    } else {
        "libcuda.so.1"
    }
}

/// Opens the library. On Windows the default name is looked up in System32 only, where the
/// driver installs it, so a stray `nvcuda.dll` in the current or application directory is never
/// loaded instead.
///
/// # Safety
/// Loading a library runs its initialisers.
#[cfg(windows)]
unsafe fn open(target: &std::ffi::OsStr, default: bool) -> Result<Library, libloading::Error> {
    use libloading::os::windows::{Library as WinLibrary, LOAD_LIBRARY_SEARCH_SYSTEM32};
    if default {
        WinLibrary::load_with_flags(target, LOAD_LIBRARY_SEARCH_SYSTEM32).map(Library::from)
    } else {
        Library::new(target)
    }
}

/// Opens the library, found the way the system loader finds libraries (`LD_LIBRARY_PATH`,
/// the loader cache) when given by name.
///
/// # Safety
/// Loading a library runs its initialisers.
#[cfg(not(windows))]
unsafe fn open(target: &std::ffi::OsStr, _default: bool) -> Result<Library, libloading::Error> {
    Library::new(target)
}

/// A failed driver call, with the driver's own name and description of the code.
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
#[error("{call} failed: {name} ({code}): {description}")]
pub struct CudaError {
    pub call: &'static str,
    pub code: CuResult,
    pub name: String,
    pub description: String,
}

impl CudaError {
    pub fn is_out_of_memory(&self) -> bool {
        self.code == CUDA_ERROR_OUT_OF_MEMORY
    }
}

#[derive(Debug, thiserror::Error)]
pub enum LoadError {
    #[error("cannot load the CUDA driver library {path}: {cause} (is the NVIDIA driver installed? --cuda-lib PATH loads it from elsewhere)")]
    Open {
        path: String,
        cause: libloading::Error,
    },
    #[error("the CUDA driver library {path} has no symbol {symbol}: {cause}")]
    Symbol {
        path: String,
        symbol: &'static str,
        cause: libloading::Error,
    },
}

type FnInit = unsafe extern "system" fn(c_uint) -> CuResult;
type FnIntOut = unsafe extern "system" fn(*mut c_int) -> CuResult;
type FnDeviceGet = unsafe extern "system" fn(*mut CuDevice, c_int) -> CuResult;
type FnDeviceGetName = unsafe extern "system" fn(*mut c_char, c_int, CuDevice) -> CuResult;
type FnDeviceGetUuid = unsafe extern "system" fn(*mut [u8; 16], CuDevice) -> CuResult;
type FnDeviceTotalMem = unsafe extern "system" fn(*mut usize, CuDevice) -> CuResult;
type FnCtxCreate = unsafe extern "system" fn(*mut CuContext, c_uint, CuDevice) -> CuResult;
type FnCtx = unsafe extern "system" fn(CuContext) -> CuResult;
type FnMemGetInfo = unsafe extern "system" fn(*mut usize, *mut usize) -> CuResult;
type FnMemAlloc = unsafe extern "system" fn(*mut CuDevicePtr, usize) -> CuResult;
type FnMemFree = unsafe extern "system" fn(CuDevicePtr) -> CuResult;
type FnMemHostAlloc = unsafe extern "system" fn(*mut *mut c_void, usize, c_uint) -> CuResult;
type FnHostPtr = unsafe extern "system" fn(*mut c_void) -> CuResult;
type FnMemHostRegister = unsafe extern "system" fn(*mut c_void, usize, c_uint) -> CuResult;
type FnMemsetD8 = unsafe extern "system" fn(CuDevicePtr, u8, usize) -> CuResult;
type FnErrorStr = unsafe extern "system" fn(CuResult, *mut *const c_char) -> CuResult;

/// The loaded driver library and its entry points. The function pointers stay valid while
/// `_lib` is alive, which is as long as this struct.
pub struct Cuda {
    path: String,
    init: FnInit,
    driver_get_version: FnIntOut,
    device_get_count: FnIntOut,
    device_get: FnDeviceGet,
    device_get_name: FnDeviceGetName,
    device_get_uuid: Option<FnDeviceGetUuid>,
    device_total_mem: FnDeviceTotalMem,
    ctx_create: FnCtxCreate,
    ctx_destroy: FnCtx,
    ctx_set_current: FnCtx,
    mem_get_info: FnMemGetInfo,
    mem_alloc: FnMemAlloc,
    mem_free: FnMemFree,
    mem_host_alloc: FnMemHostAlloc,
    mem_free_host: FnHostPtr,
    mem_host_register: FnMemHostRegister,
    mem_host_unregister: FnHostPtr,
    memset_d8: Option<FnMemsetD8>,
    get_error_string: FnErrorStr,
    get_error_name: FnErrorStr,
    _lib: Library,
}

impl std::fmt::Debug for Cuda {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("Cuda").field("path", &self.path).finish()
    }
}

impl Cuda {
    /// Loads the driver library: `path` if given, else the platform's default name, found the
    /// way the system loader finds libraries.
    pub fn load(path: Option<&Path>) -> Result<Cuda, LoadError> {
        let target: OsString = match path {
            Some(p) => p.as_os_str().to_owned(),
            None => default_library().into(),
        };
        let shown = PathBuf::from(&target).display().to_string();
        // SAFETY: loading the CUDA driver runs its initialisers, as any CUDA program does.
        let lib = unsafe { open(&target, path.is_none()) }.map_err(|cause| LoadError::Open {
            path: shown.clone(),
            cause,
        })?;
        macro_rules! sym {
            ($name:literal) => {{
                // SAFETY: the type matches the prototype in cuda.h for this symbol.
                let s = unsafe { lib.get(concat!($name, "\0").as_bytes()) }.map_err(|cause| {
                    LoadError::Symbol {
                        path: shown.clone(),
                        symbol: $name,
                        cause,
                    }
                })?;
                *s
            }};
        }
        // SAFETY: as above; cuDeviceGetUuid is optional (older drivers), so a miss is None.
        let device_get_uuid = unsafe { lib.get::<FnDeviceGetUuid>(b"cuDeviceGetUuid\0") }
            .ok()
            .map(|s| *s);
        // SAFETY: as above; optional so that the probe, which never writes, loads without it.
        let memset_d8 = unsafe { lib.get::<FnMemsetD8>(b"cuMemsetD8_v2\0") }
            .ok()
            .map(|s| *s);
        Ok(Cuda {
            memset_d8,
            init: sym!("cuInit"),
            driver_get_version: sym!("cuDriverGetVersion"),
            device_get_count: sym!("cuDeviceGetCount"),
            device_get: sym!("cuDeviceGet"),
            device_get_name: sym!("cuDeviceGetName"),
            device_get_uuid,
            device_total_mem: sym!("cuDeviceTotalMem_v2"),
            ctx_create: sym!("cuCtxCreate_v2"),
            ctx_destroy: sym!("cuCtxDestroy_v2"),
            ctx_set_current: sym!("cuCtxSetCurrent"),
            mem_get_info: sym!("cuMemGetInfo_v2"),
            mem_alloc: sym!("cuMemAlloc_v2"),
            mem_free: sym!("cuMemFree_v2"),
            mem_host_alloc: sym!("cuMemHostAlloc"),
            mem_free_host: sym!("cuMemFreeHost"),
            mem_host_register: sym!("cuMemHostRegister_v2"),
            mem_host_unregister: sym!("cuMemHostUnregister"),
            get_error_string: sym!("cuGetErrorString"),
            get_error_name: sym!("cuGetErrorName"),
            path: shown,
            _lib: lib,
        })
    }

    pub fn path(&self) -> &str {
        &self.path
    }

    fn check(&self, call: &'static str, code: CuResult) -> Result<(), CudaError> {
        if code == CUDA_SUCCESS {
            return Ok(());
        }
        let text = |f: FnErrorStr| {
            let mut p: *const c_char = std::ptr::null();
            // SAFETY: the driver sets p to a static NUL-terminated string or leaves it null.
            let rc = unsafe { f(code, &mut p) };
            if rc == CUDA_SUCCESS && !p.is_null() {
                // SAFETY: non-null, NUL-terminated, static in the driver.
                Some(unsafe { CStr::from_ptr(p) }.to_string_lossy().into_owned())
            } else {
                None
            }
        };
        Err(CudaError {
            call,
            code,
            name: text(self.get_error_name).unwrap_or_else(|| format!("CUresult {code}")),
            description: text(self.get_error_string)
                .unwrap_or_else(|| "the driver has no description for this code".into()),
        })
    }

    pub fn init(&self) -> Result<(), CudaError> {
        // SAFETY: plain value argument.
        self.check("cuInit", unsafe { (self.init)(0) })
    }

    /// The CUDA version the driver supports, as `cuDriverGetVersion` encodes it (12040 = 12.4).
    pub fn driver_version(&self) -> Result<i32, CudaError> {
        let mut v = 0;
        // SAFETY: out-pointer to a live int.
        self.check("cuDriverGetVersion", unsafe {
            (self.driver_get_version)(&mut v)
        })?;
        Ok(v)
    }

    pub fn device_count(&self) -> Result<i32, CudaError> {
        let mut n = 0;
        // SAFETY: out-pointer to a live int.
        self.check("cuDeviceGetCount", unsafe {
            (self.device_get_count)(&mut n)
        })?;
        Ok(n)
    }

    pub fn device(&self, ordinal: i32) -> Result<CuDevice, CudaError> {
        let mut d = 0;
        // SAFETY: out-pointer to a live int.
        self.check("cuDeviceGet", unsafe { (self.device_get)(&mut d, ordinal) })?;
        Ok(d)
    }

    pub fn device_name(&self, dev: CuDevice) -> Result<String, CudaError> {
        let mut buf = [0 as c_char; 256];
        // SAFETY: the driver writes at most len bytes including the NUL.
        self.check("cuDeviceGetName", unsafe {
            (self.device_get_name)(buf.as_mut_ptr(), buf.len() as c_int, dev)
        })?;
        buf[buf.len() - 1] = 0;
        // SAFETY: NUL-terminated by the driver, and by us at the end in any case.
        Ok(unsafe { CStr::from_ptr(buf.as_ptr()) }
            .to_string_lossy()
            .into_owned())
    }

    /// The device UUID in NVML's spelling (`GPU-xxxxxxxx-xxxx-xxxx-xxxx-xxxxxxxxxxxx`), which is
    /// how the probe matches a CUDA ordinal to NVML's index (their orders can differ).
    /// `None` when the driver lacks `cuDeviceGetUuid`.
    pub fn device_uuid(&self, dev: CuDevice) -> Result<Option<String>, CudaError> {
        let Some(f) = self.device_get_uuid else {
            return Ok(None);
        };
        let mut u = [0u8; 16];
        // SAFETY: CUuuid is `struct { char bytes[16]; }`.
        self.check("cuDeviceGetUuid", unsafe { f(&mut u, dev) })?;
        Ok(Some(format_uuid(&u)))
    }

    pub fn device_total_mem(&self, dev: CuDevice) -> Result<u64, CudaError> {
        let mut b = 0usize;
        // SAFETY: out-pointer to a live size_t.
        self.check("cuDeviceTotalMem_v2", unsafe {
            (self.device_total_mem)(&mut b, dev)
        })?;
        Ok(b as u64)
    }

    /// Creates a context, which becomes current on this thread. Destroy it with
    /// [`Cuda::ctx_destroy`] on the same thread.
    pub fn ctx_create(&self, dev: CuDevice) -> Result<CuContext, CudaError> {
        let mut c: CuContext = std::ptr::null_mut();
        // SAFETY: out-pointer to a live handle.
        self.check("cuCtxCreate_v2", unsafe {
            (self.ctx_create)(&mut c, 0, dev)
        })?;
        Ok(c)
    }

    ///
    /// # Safety
    /// `ctx` must come from [`Cuda::ctx_create`] and not be destroyed yet.
    pub unsafe fn ctx_destroy(&self, ctx: CuContext) -> Result<(), CudaError> {
        // SAFETY: ctx came from ctx_create and is destroyed once (the guards ensure it).
        self.check("cuCtxDestroy_v2", unsafe { (self.ctx_destroy)(ctx) })
    }

    ///
    /// # Safety
    /// `ctx` must be a live context from [`Cuda::ctx_create`].
    pub unsafe fn ctx_set_current(&self, ctx: CuContext) -> Result<(), CudaError> {
        // SAFETY: ctx is a live context from ctx_create.
        self.check("cuCtxSetCurrent", unsafe { (self.ctx_set_current)(ctx) })
    }

    /// `(free, total)` bytes of the current context's device, as the driver sees them.
    pub fn mem_get_info(&self) -> Result<(u64, u64), CudaError> {
        let (mut f, mut t) = (0usize, 0usize);
        // SAFETY: out-pointers to live size_t values.
        self.check("cuMemGetInfo_v2", unsafe {
            (self.mem_get_info)(&mut f, &mut t)
        })?;
        Ok((f as u64, t as u64))
    }

    pub fn mem_alloc(&self, bytes: usize) -> Result<CuDevicePtr, CudaError> {
        let mut p: CuDevicePtr = 0;
        // SAFETY: out-pointer to a live CUdeviceptr.
        self.check("cuMemAlloc_v2", unsafe { (self.mem_alloc)(&mut p, bytes) })?;
        Ok(p)
    }

    pub fn mem_free(&self, p: CuDevicePtr) -> Result<(), CudaError> {
        // SAFETY: p came from mem_alloc and is freed once.
        self.check("cuMemFree_v2", unsafe { (self.mem_free)(p) })
    }

    /// Writes `value` into `bytes` of device memory at `p` (`cuMemsetD8_v2`), so the pages are
    /// really backed, not only reserved. `Ok(false)` when the driver does not export it.
    pub fn memset_d8(&self, p: CuDevicePtr, value: u8, bytes: usize) -> Result<bool, CudaError> {
        let Some(f) = self.memset_d8 else {
            return Ok(false);
        };
        // SAFETY: p..p+bytes lies in an allocation from mem_alloc (the caller's contract).
        self.check("cuMemsetD8_v2", unsafe { f(p, value, bytes) })?;
        Ok(true)
    }

    pub fn mem_host_alloc(&self, bytes: usize, flags: c_uint) -> Result<*mut c_void, CudaError> {
        let mut p: *mut c_void = std::ptr::null_mut();
        // SAFETY: out-pointer to a live pointer; the probe never dereferences the result.
        self.check("cuMemHostAlloc", unsafe {
            (self.mem_host_alloc)(&mut p, bytes, flags)
        })?;
        Ok(p)
    }

    ///
    /// # Safety
    /// `p` must come from [`Cuda::mem_host_alloc`] and not be freed yet.
    pub unsafe fn mem_free_host(&self, p: *mut c_void) -> Result<(), CudaError> {
        // SAFETY: p came from mem_host_alloc and is freed once.
        self.check("cuMemFreeHost", unsafe { (self.mem_free_host)(p) })
    }

    /// Page-locks `bytes` of ordinary memory at `p`, which must stay allocated until
    /// [`Cuda::mem_host_unregister`].
    ///
    /// # Safety
    /// `p..p+bytes` must be allocated and stay so until [`Cuda::mem_host_unregister`].
    pub unsafe fn mem_host_register(&self, p: *mut c_void, bytes: usize) -> Result<(), CudaError> {
        // SAFETY: the caller keeps p..p+bytes allocated while registered.
        self.check("cuMemHostRegister_v2", unsafe {
            (self.mem_host_register)(p, bytes, 0)
        })
    }

    ///
    /// # Safety
    /// `p` must have been registered with [`Cuda::mem_host_register`].
    pub unsafe fn mem_host_unregister(&self, p: *mut c_void) -> Result<(), CudaError> {
        // SAFETY: p was registered with mem_host_register.
        self.check("cuMemHostUnregister", unsafe {
            (self.mem_host_unregister)(p)
        })
    }
}

/// NVML's UUID spelling of the 16 bytes of a `CUuuid`.
pub fn format_uuid(u: &[u8; 16]) -> String {
    let h: String = u.iter().map(|b| format!("{b:02x}")).collect();
    format!(
        "GPU-{}-{}-{}-{}-{}",
        &h[0..8],
        &h[8..12],
        &h[12..16],
        &h[16..20],
        &h[20..32]
    )
}

/// `12040` → `12.4`, as the driver encodes the CUDA version (1000 × major + 10 × minor).
pub fn cuda_version_string(v: i32) -> String {
    format!("{}.{}", v / 1000, (v % 1000) / 10)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn uuid_spelling() {
        let mut u = [0u8; 16];
        for (i, b) in u.iter_mut().enumerate() {
            *b = i as u8 * 17;
        }
        assert_eq!(format_uuid(&u), "GPU-00112233-4455-6677-8899-aabbccddeeff");
    }

    #[test]
    fn version_spelling() {
        assert_eq!(cuda_version_string(12040), "12.4");
        assert_eq!(cuda_version_string(13000), "13.0");
        assert_eq!(cuda_version_string(11080), "11.8");
    }

    #[test]
    fn missing_library_says_where_and_what() {
        let e = Cuda::load(Some(Path::new("/nonexistent/libcuda.so.1"))).unwrap_err();
        let m = e.to_string();
        assert!(m.contains("/nonexistent/libcuda.so.1"), "{m}");
        assert!(m.contains("--cuda-lib"), "{m}");
    }
}
