//! Host CPU % and resident memory of the GPU processes, read in the collection thread.
//!
//! Kept cheap on purpose (docs/DESIGN.md concept 7): one reading of `/proc/PID/stat` per process
//! the view shows per round (see [`crate::feed::HostNeed`]), nothing else, and in the live view
//! the one the collection round already made where it made one. CPU % needs two samples of the same process (same PID *and* start time), so the first
//! round of a process says so instead of showing 0.

use gpuledger_lang::Said;
use gpuledger_sources::procfs::{read_stat, ProcReader};
use std::collections::HashMap;
use std::path::PathBuf;
use std::time::Instant;

/// One process's host-side figures. `None` values carry `reason`.
#[derive(Debug, Clone, PartialEq)]
pub struct HostProc {
    /// Percent of one core over the last interval (can exceed 100 on several cores).
    pub cpu_percent: Option<f64>,
    pub rss_bytes: Option<u64>,
    /// RSS as a share of the host's RAM (`MemTotal` in `/proc/meminfo`), as nvitop's %MEM.
    pub mem_percent: Option<f64>,
    /// Why a value above is missing, said in the view's language.
    pub reason: Option<Said>,
}

/// Samples `/proc/PID/stat` below a procfs root and turns CPU tick counters into percentages.
pub struct HostSampler {
    root: PathBuf,
    ticks_per_sec: f64,
    page_size: u64,
    /// The host's RAM, read once (it does not change while the view runs).
    mem_total: Option<u64>,
    /// (pid, start time) → (utime + stime ticks, when read).
    prev: HashMap<(u32, u64), (u64, Instant)>,
    buf: Vec<u8>,
}

/// `MemTotal:  16318440 kB` from `/proc/meminfo`, in bytes.
pub fn parse_mem_total(meminfo: &str) -> Option<u64> {
    let line = meminfo.lines().find(|l| l.starts_with("MemTotal:"))?;
    let mut it = line["MemTotal:".len()..].split_whitespace();
    let n: u64 = it.next()?.parse().ok()?;
    match it.next() {
        Some("kB") => n.checked_mul(1024),
        None => Some(n),
        _ => None,
    }
}

impl HostSampler {
    pub fn new(root: impl Into<PathBuf>) -> Self {
        let root = root.into();
        let mem_total = std::fs::read_to_string(root.join("meminfo"))
            .ok()
            .and_then(|t| parse_mem_total(&t));
        HostSampler {
            mem_total,
            root,
            ticks_per_sec: gpuledger_sources::procfs::clock_ticks() as f64,
            page_size: page_size(),
            prev: HashMap::new(),
            buf: Vec::new(),
        }
    }

    /// Figures for `pids` at time `now`. Forgets processes that were not asked about, so the
    /// cache never grows beyond the current GPU process list.
    pub fn sample(&mut self, pids: &[u32], now: Instant) -> HashMap<u32, HostProc> {
        self.sample_after(pids, now, None)
    }

    /// [`HostSampler::sample`] right after a collection round of `procs` (same procfs root): the
    /// `stat` that round read for a process is used, not read a second time.
    pub fn sample_after(
        &mut self,
        pids: &[u32],
        now: Instant,
        procs: Option<&ProcReader>,
    ) -> HashMap<u32, HostProc> {
        if !cfg!(target_os = "linux") {
            let why = Said::new("tui-host-no-proc", vec![]);
            return pids
                .iter()
                .map(|&p| {
                    let hp = HostProc {
                        cpu_percent: None,
                        rss_bytes: None,
                        mem_percent: None,
                        reason: Some(why.clone()),
                    };
                    (p, hp)
                })
                .collect();
        }
        let mut out = HashMap::with_capacity(pids.len());
        let mut next = HashMap::with_capacity(pids.len());
        for &pid in pids {
            // The round's reading where it read one; else a fresh one (one `pread` where the
            // collector keeps the descriptor), through collection's one stat reader.
            let stat = match procs {
                Some(p) => p.last_round_stat(pid).unwrap_or_else(|| p.fresh_stat(pid)),
                None => read_stat(&stat_path(&self.root, pid), &mut self.buf),
            };
            let hp = match stat {
                Err(e) => HostProc {
                    cpu_percent: None,
                    rss_bytes: None,
                    mem_percent: None,
                    reason: Some(unreadable(&stat_path(&self.root, pid), &e)),
                },
                Ok(st) => {
                    let (ticks, start) = (st.utime.saturating_add(st.stime), st.start_time);
                    let key = (pid, start);
                    let cpu = self.prev.get(&key).and_then(|&(t0, at)| {
                        let dt = now.saturating_duration_since(at).as_secs_f64();
                        (dt > 0.0).then(|| {
                            ticks.saturating_sub(t0) as f64 / self.ticks_per_sec / dt * 100.0
                        })
                    });
                    next.insert(key, (ticks, now));
                    let rss = st.rss_pages.saturating_mul(self.page_size);
                    HostProc {
                        cpu_percent: cpu,
                        rss_bytes: Some(rss),
                        mem_percent: self
                            .mem_total
                            .filter(|&t| t > 0)
                            .map(|t| rss as f64 / t as f64 * 100.0),
                        reason: cpu
                            .is_none()
                            .then(|| Said::new("tui-host-two-rounds", vec![])),
                    }
                }
            };
            out.insert(pid, hp);
        }
        self.prev = next;
        out
    }
}

fn stat_path(root: &std::path::Path, pid: u32) -> PathBuf {
    root.join(pid.to_string()).join("stat")
}

/// Why a stat could not be used, naming the file: a malformed one's error already does (the
/// parser says what is wrong), a failed read's does not.
fn unreadable(path: &std::path::Path, e: &std::io::Error) -> Said {
    let (path, e) = (path.display().to_string(), e.to_string());
    if e.contains(&path) {
        e.into()
    } else {
        Said::new(
            "tui-host-cannot-read",
            vec![("path", path.into()), ("error", e.into())],
        )
    }
}

#[cfg(unix)]
fn sysconf(name: libc::c_int, fallback: u64) -> u64 {
    // SAFETY: sysconf has no preconditions.
    let v = unsafe { libc::sysconf(name) };
    if v > 0 {
        v as u64
    } else {
        fallback
    }
}

fn page_size() -> u64 {
    #[cfg(unix)]
    return sysconf(libc::_SC_PAGESIZE, 4096);
    #[cfg(not(unix))]
    return 4096;
}

#[cfg(test)]
mod tests {
    use super::*;
    use std::time::Duration;

    /// `utime + stime`, start time and RSS pages, as the sampler takes them from a stat line.
    fn parse_cpu_rss(stat: &str) -> Option<(u64, u64, u64)> {
        let s = gpuledger_sources::procfs::parse_stat(stat).ok()?;
        Some((s.utime.saturating_add(s.stime), s.start_time, s.rss_pages))
    }

    fn stat_line(pid: u32, comm: &str, utime: u64, stime: u64, start: u64, rss: u64) -> String {
        format!("{pid} ({comm}) S 1 {pid} {pid} 0 -1 4194560 100 0 0 0 {utime} {stime} 0 0 20 0 1 0 {start} 1000000 {rss} 18446744073709551615\n")
    }

    #[test]
    fn host_memory_share_from_meminfo() {
        assert_eq!(
            parse_mem_total("MemTotal:       16318440 kB\nMemFree: 1 kB\n"),
            Some(16318440 * 1024)
        );
        assert_eq!(parse_mem_total("MemFree: 1 kB\n"), None);
        assert_eq!(parse_mem_total("MemTotal: lots kB\n"), None);
        let dir = tempfile::tempdir().unwrap();
        std::fs::create_dir_all(dir.path().join("42")).unwrap();
        let mut s = HostSampler::new(dir.path());
        let pages = 1000;
        std::fs::write(
            dir.path().join("meminfo"),
            format!("MemTotal: {} kB\n", pages * 4 * s.page_size / 1024),
        )
        .unwrap();
        s = HostSampler::new(dir.path());
        std::fs::write(
            dir.path().join("42/stat"),
            stat_line(42, "x", 1, 0, 5, pages),
        )
        .unwrap();
        let got = s.sample(&[42], Instant::now())[&42].mem_percent.unwrap();
        assert!((got - 25.0).abs() < 1e-9, "{got}");
    }

    #[test]
    fn parses_hostile_comm() {
        let s = stat_line(7, "a) b (c", 11, 4, 900, 321);
        assert_eq!(parse_cpu_rss(&s), Some((15, 900, 321)));
        assert_eq!(parse_cpu_rss("7 (x) S 1 2"), None);
        assert_eq!(parse_cpu_rss("garbage"), None);
    }

    #[test]
    fn cpu_needs_two_samples_and_follows_start_time() {
        let dir = tempfile::tempdir().unwrap();
        let pdir = dir.path().join("42");
        std::fs::create_dir_all(&pdir).unwrap();
        std::fs::write(pdir.join("stat"), stat_line(42, "x", 100, 0, 5000, 10)).unwrap();
        let mut s = HostSampler::new(dir.path());
        let t0 = Instant::now();
        let first = &s.sample(&[42, 43], t0);
        assert_eq!(first[&42].cpu_percent, None);
        assert_eq!(first[&42].rss_bytes, Some(10 * s.page_size));
        assert_eq!(first[&42].mem_percent, None, "no meminfo in this root");
        assert!(first[&42].reason.as_deref().unwrap().contains("two rounds"));
        assert!(first[&43]
            .reason
            .as_deref()
            .unwrap()
            .contains("cannot read"));
        // Half a core: ticks_per_sec/2 ticks over one second.
        let half = (s.ticks_per_sec / 2.0) as u64;
        std::fs::write(
            pdir.join("stat"),
            stat_line(42, "x", 100 + half, 0, 5000, 10),
        )
        .unwrap();
        let second = s.sample(&[42], t0 + Duration::from_secs(1));
        let cpu = second[&42].cpu_percent.unwrap();
        assert!((cpu - 50.0).abs() < 1.0, "{cpu}");
        // Same PID, new start time (PID reused): no delta against the old process.
        std::fs::write(pdir.join("stat"), stat_line(42, "x", 900, 0, 7000, 10)).unwrap();
        let third = s.sample(&[42], t0 + Duration::from_secs(2));
        assert_eq!(third[&42].cpu_percent, None);
    }

    #[test]
    fn the_rounds_stat_gives_the_same_figures_as_reading_it() {
        let dir = tempfile::tempdir().unwrap();
        for (pid, text) in [
            (42, stat_line(42, "x", 100, 7, 5000, 10)),
            (44, "44 (broken) S\n".to_string()),
        ] {
            std::fs::create_dir_all(dir.path().join(pid.to_string())).unwrap();
            std::fs::write(dir.path().join(format!("{pid}/stat")), text).unwrap();
        }
        let pids = [42, 43, 44];
        let procs = ProcReader::new(dir.path());
        procs.begin_round();
        for &p in &pids {
            let _ = procs.stat(p);
        }
        procs.end_round();
        // The file changes after the round: the round's reading is what counts.
        std::fs::write(
            dir.path().join("42/stat"),
            stat_line(42, "x", 900, 0, 5000, 99),
        )
        .unwrap();
        let t0 = Instant::now();
        let from_round = HostSampler::new(dir.path()).sample_after(&pids, t0, Some(&procs));
        std::fs::write(
            dir.path().join("42/stat"),
            stat_line(42, "x", 100, 7, 5000, 10),
        )
        .unwrap();
        let read = HostSampler::new(dir.path()).sample(&pids, t0);
        assert_eq!(from_round, read);
        assert!(read[&43].reason.as_deref().unwrap().contains("cannot read"));
        // The parser's error names the file and what is wrong, once.
        let malformed = read[&44].reason.as_deref().unwrap();
        let path = dir.path().join("44/stat").display().to_string();
        assert!(
            malformed.starts_with(&format!("{path} is malformed: ")),
            "{malformed}"
        );
        assert_eq!(malformed.matches(&path).count(), 1, "{malformed}");
        // A process the round did not read is read here.
        let more = HostSampler::new(dir.path()).sample_after(&[42, 45], t0, Some(&procs));
        assert!(more[&45].reason.as_deref().unwrap().contains("cannot read"));
    }

    proptest::proptest! {
        #[test]
        fn stat_parser_never_panics(s in ".{0,400}") {
            let _ = parse_cpu_rss(&s);
        }

        #[test]
        fn stat_parser_reads_fields_after_any_comm(comm in "[^\\n]{0,40}", u in 0u64..1<<40, st in 0u64..1<<40, start in 0u64..1<<50, rss in 0u64..1<<30) {
            let line = stat_line(1, &comm, u, st, start, rss);
            proptest::prop_assert_eq!(parse_cpu_rss(&line), Some((u + st, start, rss)));
        }
    }
}
