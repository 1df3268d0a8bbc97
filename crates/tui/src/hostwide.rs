//! The host as a whole for the header: CPU busy % over all cores since the last reading and RAM
//! in use, as nvitop's header shows them. Two small reads a round in the collection thread
//! (`/proc/stat`'s first line, `/proc/meminfo`); unknown stays unknown (a first reading has no
//! CPU % yet, a platform without procfs has neither).

use std::io::Read;
use std::path::PathBuf;

/// Host-wide figures; `None` is unknown, shown as `n/a`.
#[derive(Debug, Clone, Copy, Default, PartialEq)]
pub struct Machine {
    /// Busy share of all cores since the previous reading, 0–100.
    pub cpu_percent: Option<f64>,
    /// `MemTotal − MemAvailable`: what programs hold (the page cache left out, as `free` does).
    pub mem_used_bytes: Option<u64>,
    pub mem_total_bytes: Option<u64>,
}

/// `(busy, total)` jiffies from the aggregate `cpu` line of `/proc/stat`: idle and iowait are
/// idle, guest time is already inside user and nice.
pub fn parse_cpu_line(stat: &str) -> Option<(u64, u64)> {
    let line = stat.lines().next()?.strip_prefix("cpu ")?;
    let v: Vec<u64> = line
        .split_whitespace()
        .take(8)
        .map(|f| f.parse().ok())
        .collect::<Option<_>>()?;
    if v.len() < 4 {
        return None;
    }
    let total: u64 = v.iter().sum();
    let idle = v[3] + v.get(4).copied().unwrap_or(0);
    Some((total - idle, total))
}

/// A `/proc/meminfo` field (`MemAvailable:  8123456 kB`) in bytes.
pub fn meminfo_field(meminfo: &str, name: &str) -> Option<u64> {
    let line = meminfo
        .lines()
        .find(|l| l.split(':').next() == Some(name))?;
    let mut it = line.split(':').nth(1)?.split_whitespace();
    let n: u64 = it.next()?.parse().ok()?;
    match it.next() {
        Some("kB") => n.checked_mul(1024),
        None => Some(n),
        _ => None,
    }
}

/// Reads [`Machine`] below a procfs root; keeps the previous CPU counters for the next %.
pub struct MachineSampler {
    root: PathBuf,
    prev: Option<(u64, u64)>,
}

impl MachineSampler {
    pub fn new(root: impl Into<PathBuf>) -> Self {
        MachineSampler {
            root: root.into(),
            prev: None,
        }
    }

    pub fn sample(&mut self) -> Machine {
        // The aggregate line comes first: 512 bytes hold it on any machine, however many cores
        // follow it.
        let mut head = [0u8; 512];
        let n = std::fs::File::open(self.root.join("stat"))
            .and_then(|mut f| f.read(&mut head))
            .unwrap_or(0);
        let now = parse_cpu_line(&String::from_utf8_lossy(&head[..n]));
        let cpu_percent = match (self.prev, now) {
            (Some((b0, t0)), Some((b1, t1))) if t1 > t0 => {
                Some(b1.saturating_sub(b0) as f64 / (t1 - t0) as f64 * 100.0)
            }
            _ => None,
        };
        self.prev = now;
        let meminfo = std::fs::read_to_string(self.root.join("meminfo")).unwrap_or_default();
        let total = meminfo_field(&meminfo, "MemTotal");
        let avail = meminfo_field(&meminfo, "MemAvailable");
        Machine {
            cpu_percent,
            mem_used_bytes: total.zip(avail).map(|(t, a)| t.saturating_sub(a)),
            mem_total_bytes: total,
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn cpu_percent_is_the_busy_share_between_two_readings() {
        let dir = tempfile::tempdir().unwrap();
        let write = |busy: u64, idle: u64| {
            std::fs::write(
                dir.path().join("stat"),
                format!("cpu  {busy} 0 0 {idle} 0 0 0 0 0 0\ncpu0 1 2 3 4\n"),
            )
            .unwrap();
        };
        std::fs::write(
            dir.path().join("meminfo"),
            "MemTotal:       16000 kB\nMemFree:  1000 kB\nMemAvailable:    4000 kB\n",
        )
        .unwrap();
        let mut s = MachineSampler::new(dir.path());
        write(100, 900);
        let first = s.sample();
        assert_eq!(first.cpu_percent, None, "one reading has no rate");
        assert_eq!(first.mem_total_bytes, Some(16000 * 1024));
        assert_eq!(first.mem_used_bytes, Some(12000 * 1024));
        write(130, 970);
        assert_eq!(s.sample().cpu_percent, Some(30.0));
    }

    #[test]
    fn unreadable_files_are_unknown_not_zero() {
        let mut s = MachineSampler::new("/nonexistent-procfs-root");
        assert_eq!(s.sample(), Machine::default());
        assert_eq!(parse_cpu_line("cpu0 1 2 3 4\n"), None);
        assert_eq!(parse_cpu_line("cpu  1 2 x 4\n"), None);
        assert_eq!(meminfo_field("MemTotal: 12 MB\n", "MemTotal"), None);
        assert_eq!(meminfo_field("MemTotalX: 12 kB\n", "MemTotal"), None);
    }
}
