//! What /proc says about a process beyond its name: mapped files (libraries, model files), open
//! files, listening TCP ports and its parent. This is the raw material of identification; it is
//! read on demand and cached by the collector, never on every round.

use super::parse::{parse_listening, parse_maps};
use super::read::read_table;
use super::ProcReader;
use gpuledger_lang::Said;
use std::collections::{BTreeSet, HashMap};
use std::sync::Arc;

/// Facts read for one process. Paths are as the kernel reports them.
#[derive(Debug, Clone, Default, PartialEq, Eq)]
pub struct ProcessFacts {
    pub pid: u32,
    pub comm: Option<String>,
    pub exe: Option<String>,
    /// Redacted arguments.
    pub cmdline: Vec<String>,
    /// Distinct file paths from `/proc/PID/maps` (shared libraries, mapped model files).
    pub mapped_files: Vec<String>,
    /// Regular files among the open descriptors (a model read without mmap shows up here).
    pub open_files: Vec<String>,
    pub listen_ports: Vec<u16>,
    pub parent: Option<(u32, String)>,
    /// What could not be read, and why (other users' maps need privileges).
    pub unreadable: Vec<Said>,
}

impl ProcReader {
    /// Identification's facts. `stat`, `exe`, `cmdline` and the descriptor table come from the
    /// round's view, so reading facts in a round costs only `maps` (and `net/tcp` for a process
    /// with sockets) beyond what the round read anyway.
    pub fn facts(&self, pid: u32) -> ProcessFacts {
        let dir = self.root().join(pid.to_string());
        let mut f = ProcessFacts {
            pid,
            ..Default::default()
        };
        if let Ok(st) = self.stat(pid) {
            f.comm = Some(st.comm);
            if let Ok(pst) = self.stat(st.ppid) {
                f.parent = Some((st.ppid, pst.comm));
            }
        }
        f.exe = self.exe(pid);
        if let Some(args) = self.args(pid) {
            f.cmdline = args;
        }
        let mut buf = Vec::new();
        // Read on a helper thread by the round's prefetch when this is a new process.
        let maps = self.take_maps(pid).unwrap_or_else(|| {
            read_table(&dir.join("maps"), &mut buf)
                .map(|()| Arc::new(parse_maps(&String::from_utf8_lossy(&buf))))
        });
        match maps {
            // The prefetch's list is taken, so usually held only here: moved, not copied.
            Ok(m) => f.mapped_files = Arc::try_unwrap(m).unwrap_or_else(|m| m.to_vec()),
            Err(e) => f
                .unreadable
                .push(unreadable(format!("/proc/{pid}/maps"), &e)),
        }
        let mut sockets: BTreeSet<u64> = BTreeSet::new();
        match self.fd_links(pid) {
            Ok(links) => {
                let mut files = BTreeSet::new();
                for (_, target) in links.iter() {
                    let t = String::from_utf8_lossy(target);
                    if let Some(inode) =
                        t.strip_prefix("socket:[").and_then(|r| r.strip_suffix(']'))
                    {
                        if let Ok(i) = inode.parse() {
                            sockets.insert(i);
                        }
                    } else if t.starts_with('/')
                        && !t.starts_with("/dev/")
                        && !t.starts_with("/proc/")
                    {
                        files.insert(t.into_owned());
                    }
                }
                f.open_files = files.into_iter().collect();
            }
            Err(kind) => f.unreadable.push(unreadable(
                format!("/proc/{pid}/fd"),
                &std::io::Error::from(kind),
            )),
        }
        if !sockets.is_empty() {
            let mut listening: HashMap<u64, u16> = HashMap::new();
            for table in ["net/tcp", "net/tcp6"] {
                if read_table(&dir.join(table), &mut buf).is_ok() {
                    listening.extend(parse_listening(&String::from_utf8_lossy(&buf)));
                }
            }
            let mut ports: Vec<u16> = sockets
                .iter()
                .filter_map(|i| listening.get(i).copied())
                .collect();
            ports.sort_unstable();
            ports.dedup();
            f.listen_ports = ports;
        }
        f
    }
}

/// `PATH: why`: another user's process and one that exited in words; other errors as the OS
/// says them.
fn unreadable(path: String, e: &std::io::Error) -> Said {
    let why = match e.kind() {
        std::io::ErrorKind::PermissionDenied => Said::new("report-facts-permission-denied", vec![]),
        std::io::ErrorKind::NotFound => Said::new("report-facts-exited", vec![]),
        _ => Said::verbatim(e.to_string()),
    };
    let said = vec![("path", path.into()), ("why", why.into())];
    Said::new("report-facts-unreadable", said)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn what_could_not_be_read_is_said_in_the_language_and_os_words_kept() {
        use gpuledger_lang::Lang;
        use std::io::{Error, ErrorKind};
        let denied = unreadable(
            "/proc/7/maps".into(),
            &Error::from(ErrorKind::PermissionDenied),
        );
        assert_eq!(
            denied.to_string(),
            "/proc/7/maps: permission denied (another user's process; run as that user or root)"
        );
        assert!(denied
            .in_lang(Lang::ZhCn)
            .starts_with("/proc/7/maps：权限不足"));
        let gone = unreadable("/proc/7/fd".into(), &Error::from(ErrorKind::NotFound));
        assert_eq!(gone.in_lang(Lang::ZhTw), "/proc/7/fd：處理程序已結束");
        let other = unreadable("/proc/7/fd".into(), &Error::other("EIO"));
        assert_eq!(other.in_lang(Lang::ZhCn), "/proc/7/fd：EIO");
    }

    // Lines in the format of proc(5) "/proc/pid/maps".
    const MAPS: &str = "\
55d0c6a00000-55d0c6a2b000 r--p 00000000 fd:01 1835101                    /opt/llama/llama-server
7f2a40000000-7f2a60000000 r--s 00000000 fd:02 4194310                    /models/My Model Q4.gguf
7f2a70000000-7f2a70100000 r-xp 00000000 fd:01 1835200                    /opt/llama/libggml-cuda.so
7f2a70200000-7f2a70300000 r-xp 00000000 fd:01 1835200                    /opt/llama/libggml-cuda.so
7f2a80000000-7f2a80021000 rw-p 00000000 00:00 0 
7ffd1c9d2000-7ffd1c9f3000 rw-p 00000000 00:00 0                          [stack]
7f2a90000000-7f2a90001000 r--p 00000000 fd:01 99                         /tmp/old.so (deleted)
";

    #[test]
    fn maps_paths_with_spaces_deduplicated() {
        assert_eq!(
            parse_maps(MAPS),
            [
                "/opt/llama/llama-server",
                "/models/My Model Q4.gguf",
                "/opt/llama/libggml-cuda.so",
                "/tmp/old.so"
            ]
        );
    }

    // Format of /proc/net/tcp (Documentation/networking/proc_net_tcp.rst).
    const TCP: &str = "  sl  local_address rem_address   st tx_queue rx_queue tr tm->when retrnsmt   uid  timeout inode
   0: 0100007F:1F90 00000000:0000 0A 00000000:00000000 00:00000000 00000000  1000        0 123456 1 0000000000000000 100 0 0 10 0
   1: 0100007F:1F90 0100007F:D4B2 01 00000000:00000000 00:00000000 00000000  1000        0 123999 1 0000000000000000 20 4 30 10 -1
   2: 00000000:2CAB 00000000:0000 0A 00000000:00000000 00:00000000 00000000     0        0 777 1 0000000000000000 100 0 0 10 0
";

    #[test]
    fn only_listening_sockets() {
        let m = parse_listening(TCP);
        assert_eq!(m.len(), 2);
        assert_eq!(m[&123456], 8080);
        assert_eq!(m[&777], 11435);
        assert!(parse_listening("garbage\nmore garbage 1 2").is_empty());
    }

    proptest::proptest! {
        #[test]
        fn parsers_never_panic(s in "(.{0,80}\n){0,8}") {
            let _ = parse_maps(&s);
            let _ = parse_listening(&s);
        }
    }
}
