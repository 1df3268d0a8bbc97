//! The parsers of `/proc` files: bytes or text in, typed facts out. The end of the one-way path
//! (facade [`super::ProcReader`] → round cache → kept or fresh reader → here); nothing here reads
//! a file or calls back up.

use std::collections::{HashMap, HashSet};
use std::io;
use std::path::Path;

/// A process with more mappings than this is read only this far.
const MAX_MAP_LINES: usize = 200_000;

/// Fields of `/proc/<pid>/stat` that gpuledger uses (proc(5) numbering in brackets): the one
/// parser for collection, the kill guard rails and the live view's CPU and RSS columns.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Stat {
    /// (2) without the parentheses, secrets redacted (a process names itself: `--token=X` is a
    /// valid `comm`); may itself contain spaces and `)`.
    pub comm: String,
    /// (3)
    pub state: char,
    /// (4)
    pub ppid: u32,
    /// (9) `PF_*` flags.
    pub flags: u64,
    /// (14) + (15) user and system time, clock ticks.
    pub utime: u64,
    pub stime: u64,
    /// (22) clock ticks after boot.
    pub start_time: u64,
    /// (24) resident set size, pages.
    pub rss_pages: u64,
}

/// `PF_KTHREAD` from include/linux/sched.h.
pub const PF_KTHREAD: u64 = 0x0020_0000;

/// Longest `/proc/PID/stat` accepted (a real one is about 300 bytes; comm is at most 64).
pub const MAX_STAT_BYTES: usize = 4096;

/// The stat file at `path`, already read into `buf`, parsed.
pub(super) fn stat_from(path: &Path, buf: &[u8]) -> io::Result<Stat> {
    // The command name is bytes the process chose: not necessarily UTF-8.
    parse_stat(&String::from_utf8_lossy(buf)).map_err(|what| {
        io::Error::new(
            io::ErrorKind::InvalidData,
            format!("{} is malformed: {what}", path.display()),
        )
    })
}

/// `/proc/<pid>/stat`: the comm field is parenthesised and may itself contain spaces and `)`, so
/// split at the last `)`. The error says what is wrong, in words.
pub fn parse_stat(text: &str) -> Result<Stat, String> {
    if text.trim().is_empty() {
        return Err("the file is empty".into());
    }
    let open = text
        .find('(')
        .ok_or("no '(' opening the command name (field 2)")?;
    let close = text
        .rfind(')')
        .filter(|&c| c > open)
        .ok_or("no ')' closing the command name (field 2)")?;
    // The name a process gave itself enters gpuledger here: redacted once, for every reader.
    let comm = gpuledger_model::redact_text(&text[open + 1..close]);
    let rest: Vec<&str> = text[close + 1..].split_ascii_whitespace().collect();
    // rest[0] is field 3 (state); field N is rest[N - 3].
    let field = |n: usize, name: &str| {
        rest.get(n - 3).copied().ok_or_else(|| {
            format!(
                "it ends after {} fields, before field {n} ({name})",
                rest.len() + 2
            )
        })
    };
    let number = |n: usize, name: &str| -> Result<u64, String> {
        let v = field(n, name)?;
        v.parse()
            .map_err(|_| format!("field {n} ({name}) is {v:?}, not a number"))
    };
    let state_text = field(3, "state")?;
    let mut chars = state_text.chars();
    let state = match (chars.next(), chars.next()) {
        (Some(c), None) => c,
        _ => return Err(format!("field 3 (state) is {state_text:?}, not one letter")),
    };
    let ppid = number(4, "parent pid")?;
    let ppid =
        u32::try_from(ppid).map_err(|_| format!("field 4 (parent pid) {ppid} is out of range"))?;
    // Start time before the others: it is what every reader needs, and the error for a cut-off
    // line names it.
    let start_time = number(22, "start time")?;
    Ok(Stat {
        comm,
        state,
        ppid,
        flags: number(9, "flags")?,
        utime: number(14, "user time")?,
        stime: number(15, "system time")?,
        start_time,
        rss_pages: number(24, "resident pages")?,
    })
}

/// The effective UID from `/proc/PID/status` (`Uid:\treal\teffective\tsaved\tfs`).
pub fn parse_uid(status: &str) -> Option<u32> {
    status
        .lines()
        .find_map(|l| l.strip_prefix("Uid:"))
        .and_then(|r| r.split_ascii_whitespace().nth(1))
        .and_then(|s| s.parse().ok())
}

pub(super) fn parse_passwd(text: &str) -> HashMap<u32, String> {
    text.lines()
        .filter_map(|l| {
            let mut f = l.split(':');
            let name = f.next()?;
            let uid = f.nth(1)?.parse().ok()?;
            Some((uid, name.to_string()))
        })
        .collect()
}

pub(super) fn parse_btime(stat: &str) -> Option<u64> {
    stat.lines()
        .find_map(|l| l.strip_prefix("btime "))?
        .trim()
        .parse()
        .ok()
}

/// NUL-separated arguments; a trailing NUL is not an empty argument.
pub fn split_cmdline(raw: &[u8]) -> Vec<String> {
    // One NUL ends the last argument. A run of them is a process title's padding: Python's
    // setproctitle (vLLM's `VLLM::Worker_TP0`, SGLang's) writes the title over the argument
    // area and fills the rest with NULs, which are not empty arguments. (`prog ''` reads as
    // `prog`: the one shape this gives up.)
    let raw = match raw.iter().rposition(|&b| b != 0) {
        Some(last) if raw.len() - last > 2 => &raw[..=last],
        _ => raw.strip_suffix(&[0]).unwrap_or(raw),
    };
    if raw.is_empty() {
        return Vec::new();
    }
    raw.split(|&b| b == 0)
        .map(|a| String::from_utf8_lossy(a).into_owned())
        .collect()
}

/// Distinct file-backed paths from a maps file, in first-seen order.
pub fn parse_maps(text: &str) -> Vec<String> {
    // Borrowed from `text`: one allocation per distinct path, for the list.
    let mut seen: HashSet<&str> = HashSet::new();
    let mut out = Vec::new();
    for line in text.lines().take(MAX_MAP_LINES) {
        // address perms offset dev inode pathname — the path may contain spaces.
        let mut rest = line;
        for _ in 0..5 {
            rest = rest.trim_start();
            match rest.find(' ') {
                Some(i) => rest = &rest[i..],
                None => {
                    rest = "";
                    break;
                }
            }
        }
        let path = rest.trim();
        let path = path.strip_suffix(" (deleted)").unwrap_or(path);
        if path.starts_with('/') && seen.insert(path) {
            out.push(path.to_string());
        }
    }
    out
}

/// Listening sockets from `/proc/net/tcp{,6}`: inode → local port.
pub fn parse_listening(text: &str) -> HashMap<u64, u16> {
    let mut m = HashMap::new();
    for line in text.lines().skip(1) {
        let f: Vec<&str> = line.split_whitespace().collect();
        // sl local_address rem_address st tx:rx tr:when retrnsmt uid timeout inode
        if f.len() < 10 || f[3] != "0A" {
            continue;
        }
        let Some(port) = f[1]
            .rsplit(':')
            .next()
            .and_then(|p| u16::from_str_radix(p, 16).ok())
        else {
            continue;
        };
        if let Ok(inode) = f[9].parse::<u64>() {
            if inode != 0 {
                m.insert(inode, port);
            }
        }
    }
    m
}
