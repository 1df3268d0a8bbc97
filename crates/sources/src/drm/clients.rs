//! Descriptors into clients: read the fdinfo of every indexed DRM descriptor and group the
//! descriptors by `(drm-pdev, drm-client-id)`, so that a client open on several descriptors, or
//! held by several processes, is one client.

use super::fdinfo::{self, FdInfo};
use super::{DrmSource, RoundStats};
use gpuledger_lang::Said;
use std::collections::btree_map::Entry;
use std::collections::{BTreeMap, HashSet};
use std::io;
use std::path::{Path, PathBuf};

#[derive(Debug, Clone, PartialEq, Eq, Hash, PartialOrd, Ord)]
pub(super) enum ClientIdent {
    Id(u64),
    /// No `drm-client-id` (very old kernels): one client per descriptor, cannot de-duplicate.
    Fd(u32, u32),
}

/// A client's identity across rounds: its device slot and [`ClientIdent`].
pub(super) type ClientKey = (String, ClientIdent);

pub(super) struct Client {
    pub(super) slot: String,
    pub(super) node: String,
    pub(super) info: FdInfo,
    /// (pid, fd, fdinfo path) for every descriptor of the client.
    pub(super) fds: Vec<(u32, u32, PathBuf)>,
}

impl Client {
    pub(super) fn ident(&self) -> ClientIdent {
        match self.info.client_id {
            Some(id) => ClientIdent::Id(id),
            None => ClientIdent::Fd(self.fds[0].0, self.fds[0].1),
        }
    }

    /// The client as a note names it.
    pub(super) fn label(&self) -> Said {
        let slot = ("slot", self.slot.to_string().into());
        match self.info.client_id {
            Some(id) => Said::new(
                "report-drm-client",
                vec![("id", id.to_string().into()), slot],
            ),
            None => Said::new(
                "report-drm-client-fd",
                vec![
                    slot,
                    ("fd", self.fds[0].1.to_string().into()),
                    ("pid", self.fds[0].0.to_string().into()),
                ],
            ),
        }
    }
}

impl DrmSource {
    /// Read the fdinfo of every indexed DRM descriptor and group descriptors into clients.
    /// Descriptors found gone are dropped from the index; clients on devices NVML reports are
    /// skipped (counted only).
    pub(super) fn read_clients(
        &mut self,
        nodes: &BTreeMap<String, String>,
        nvml_bus_ids: &HashSet<String>,
    ) -> Vec<Client> {
        let Some(idx) = self.index.as_mut() else {
            return Vec::new();
        };
        let mut clients: BTreeMap<ClientKey, Client> = BTreeMap::new();
        let mut gone: Vec<(u32, u32)> = Vec::new();
        let mut path = self.proc_root.clone();
        for (&pid, entry) in &idx.entries {
            if entry.kfd {
                self.stats.kfd_processes += 1;
            }
            if entry.dxg {
                self.stats.dxg_processes += 1;
            }
            for (fd, node) in &entry.drm_fds {
                let Some((info, file)) =
                    read_fdinfo(&mut path, pid, *fd, &mut self.buf, &mut self.stats)
                else {
                    gone.push((pid, *fd));
                    continue;
                };
                let slot = info
                    .pdev
                    .clone()
                    .or_else(|| nodes.get(node).cloned())
                    .unwrap_or_else(|| node.clone());
                if nvml_bus_ids.contains(&slot) {
                    self.stats.skipped_nvml_clients += 1;
                    continue;
                }
                add_descriptor(&mut clients, slot, node, info, (pid, *fd, file));
            }
        }
        for (pid, fd) in gone {
            idx.drop_fd(pid, fd);
        }
        // Skipped NVIDIA clients are not clients of this source.
        let out: Vec<Client> = clients.into_values().collect();
        count_sharing(&out, &mut self.stats);
        out
    }
}

/// Read and parse `<proc>/<pid>/fdinfo/<fd>` (`path` is the proc root, and is again when this
/// returns). `None` when the descriptor vanished: closed since the index scan, its process
/// exited, or its number reused for something that is not a DRM client.
fn read_fdinfo(
    path: &mut PathBuf,
    pid: u32,
    fd: u32,
    buf: &mut Vec<u8>,
    stats: &mut RoundStats,
) -> Option<(FdInfo, PathBuf)> {
    path.push(pid.to_string());
    path.push("fdinfo");
    path.push(fd.to_string());
    stats.fdinfo_read += 1;
    let read = read_bounded(path, buf);
    let file = path.clone();
    path.pop();
    path.pop();
    path.pop();
    if read.is_err() {
        stats.vanished += 1;
        return None;
    }
    let info = fdinfo::parse(&String::from_utf8_lossy(buf));
    if !info.is_drm() {
        stats.vanished += 1;
        return None;
    }
    stats.malformed_lines += info.problems.len();
    Some((info, file))
}

/// Add one descriptor to its client, starting the client if it is the first one seen.
fn add_descriptor(
    clients: &mut BTreeMap<ClientKey, Client>,
    slot: String,
    node: &str,
    info: FdInfo,
    fd: (u32, u32, PathBuf),
) {
    let ident = match info.client_id {
        Some(id) => ClientIdent::Id(id),
        None => ClientIdent::Fd(fd.0, fd.1),
    };
    match clients.entry((slot, ident)) {
        Entry::Occupied(mut o) => o.get_mut().fds.push(fd),
        Entry::Vacant(v) => {
            let slot = v.key().0.clone();
            v.insert(Client {
                slot,
                node: node.to_string(),
                info,
                fds: vec![fd],
            });
        }
    }
}

/// Count the clients, those on several descriptors of one process and those shared between
/// processes.
fn count_sharing(clients: &[Client], stats: &mut RoundStats) {
    stats.clients = clients.len();
    for c in clients {
        let mut pids: Vec<u32> = c.fds.iter().map(|f| f.0).collect();
        let nfds = pids.len();
        pids.dedup();
        if pids.len() > 1 {
            stats.shared_clients += 1;
        }
        if nfds > pids.len() {
            stats.dup_fd_clients += 1;
        }
    }
}

/// An fdinfo file into `buf`, cut at [`fdinfo::MAX_FDINFO_BYTES`]: open + read + close (no size
/// query first, as `read_to_end` on a `File` makes).
fn read_bounded(path: &Path, buf: &mut Vec<u8>) -> io::Result<()> {
    use crate::procfs::read::{read_into, Records};
    match read_into(path, buf, fdinfo::MAX_FDINFO_BYTES, Records::One) {
        Err(e) if e.kind() == io::ErrorKind::InvalidData => {
            buf.truncate(fdinfo::MAX_FDINFO_BYTES);
            Ok(())
        }
        r => r,
    }
}
