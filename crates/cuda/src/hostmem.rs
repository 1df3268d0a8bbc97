//! How much host memory is available, so the probe never pins more than the machine can spare.
//! Linux reads `MemAvailable` from `/proc/meminfo` (path injectable for tests); Windows asks
//! `GlobalMemoryStatusEx`.

use std::path::{Path, PathBuf};

/// `MemAvailable` in bytes from the text of `/proc/meminfo` (the kernel prints it in kB,
/// meaning KiB: `MemAvailable:   12345678 kB`). `None` when the line is missing or malformed.
pub fn parse_mem_available(text: &str) -> Option<u64> {
    let line = text.lines().find(|l| l.starts_with("MemAvailable:"))?;
    let mut it = line["MemAvailable:".len()..].split_whitespace();
    let n: u64 = it.next()?.parse().ok()?;
    match it.next() {
        Some("kB") => n.checked_mul(1024),
        None => Some(n),
        Some(_) => None,
    }
}

/// Where the figure came from, for messages.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum HostSource {
    Meminfo(PathBuf),
    Windows,
}

impl std::fmt::Display for HostSource {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        match self {
            HostSource::Meminfo(p) => write!(f, "MemAvailable in {}", p.display()),
            HostSource::Windows => write!(f, "GlobalMemoryStatusEx"),
        }
    }
}

/// Available host memory in bytes. `meminfo` overrides the platform's source (tests, or a
/// Linux host whose procfs is mounted elsewhere).
pub fn available(meminfo: Option<&Path>) -> Result<(u64, HostSource), String> {
    if let Some(p) = meminfo {
        return from_meminfo(p);
    }
    platform_available()
}

fn from_meminfo(p: &Path) -> Result<(u64, HostSource), String> {
    // /proc/meminfo is a few KiB; anything larger is not a meminfo file.
    let meta = std::fs::metadata(p).map_err(|e| format!("{}: {e}", p.display()))?;
    if meta.len() > 1 << 20 {
        return Err(format!("{}: too large to be a meminfo file", p.display()));
    }
    let text = std::fs::read_to_string(p).map_err(|e| format!("{}: {e}", p.display()))?;
    parse_mem_available(&text)
        .map(|b| (b, HostSource::Meminfo(p.to_path_buf())))
        .ok_or_else(|| format!("{}: no readable MemAvailable line", p.display()))
}

#[cfg(target_os = "linux")]
fn platform_available() -> Result<(u64, HostSource), String> {
    from_meminfo(Path::new("/proc/meminfo"))
}

#[cfg(windows)]
fn platform_available() -> Result<(u64, HostSource), String> {
    use windows_sys::Win32::System::SystemInformation::{GlobalMemoryStatusEx, MEMORYSTATUSEX};
    // SAFETY: MEMORYSTATUSEX is plain data; dwLength must be set before the call.
    let mut m: MEMORYSTATUSEX = unsafe { std::mem::zeroed() };
    m.dwLength = std::mem::size_of::<MEMORYSTATUSEX>() as u32;
    // SAFETY: m is a live, correctly sized MEMORYSTATUSEX.
    if unsafe { GlobalMemoryStatusEx(&mut m) } == 0 {
        return Err(format!(
            "GlobalMemoryStatusEx failed: {}",
            std::io::Error::last_os_error()
        ));
    }
    Ok((m.ullAvailPhys, HostSource::Windows))
}

#[cfg(not(any(target_os = "linux", windows)))]
fn platform_available() -> Result<(u64, HostSource), String> {
    Err("this platform has no supported source for available host memory".into())
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn reads_mem_available() {
        let t = "MemTotal:       65843380 kB\nMemFree:         1023456 kB\nMemAvailable:   40123456 kB\nBuffers: 1 kB\n";
        assert_eq!(parse_mem_available(t), Some(40_123_456 * 1024));
        assert_eq!(parse_mem_available("MemTotal: 1 kB\n"), None);
        assert_eq!(parse_mem_available("MemAvailable: lots kB\n"), None);
        assert_eq!(parse_mem_available("MemAvailable: 5 MB\n"), None);
    }

    #[test]
    fn file_errors_name_the_file() {
        let d = tempfile::tempdir().unwrap();
        let p = d.path().join("meminfo");
        std::fs::write(&p, "MemTotal: 1 kB\n").unwrap();
        let e = available(Some(&p)).unwrap_err();
        assert!(e.contains("meminfo") && e.contains("MemAvailable"), "{e}");
        let e = available(Some(&d.path().join("absent"))).unwrap_err();
        assert!(e.contains("absent"), "{e}");
    }

    proptest::proptest! {
        #[test]
        fn never_panics(s in ".{0,200}") {
            let _ = parse_mem_available(&s);
        }

        #[test]
        fn roundtrip(kb in 0u64..(1u64 << 50)) {
            let t = format!("MemTotal: 1 kB\nMemAvailable: {kb} kB\n");
            proptest::prop_assert_eq!(parse_mem_available(&t), Some(kb * 1024));
        }
    }
}
