//! The WSL seam: ioctls on `/dev/dxg`. Nothing here interprets a value beyond the adapter and
//! segment counts it needs to know what to ask; [`super::merge_round`] does the rest.
//!
//! Never run against a real `/dev/dxg` (no WSL machine was available): on a machine without it,
//! [`DxgSource::open`] fails with the path and the OS error, which is the normal Linux case.

use super::abi::{
    parse_adapter_infos, QueryBuf, QueryType, ADAPTERINFO_SIZE, ADAPTERS_MAX, LX_DXENUMADAPTERS2,
    LX_DXQUERYSTATISTICS,
};
use super::{merge_round, pids_with_dxg, AdapterRecord, DxgRound, ProcessRecord};
use crate::wddm::{apply, Luid};
use gpuledger_model::Snapshot;
use std::fs::File;
use std::os::fd::AsRawFd;
use std::path::{Path, PathBuf};
use std::time::Instant;

#[derive(Debug, thiserror::Error)]
pub enum DxgError {
    #[error("{path}: {source}")]
    Open {
        path: String,
        source: std::io::Error,
    },
}

/// `_IOWR(0x47, 0x15, struct d3dkmt_closeadapter)`.
const LX_DXCLOSEADAPTER: u64 = (3 << 30) | (4 << 16) | (0x47 << 8) | 0x15;
/// Real adapters have a handful of segments and nodes; more is refused rather than looped over.
const MAX_SEGMENTS: u32 = 32;
const MAX_NODES: u32 = 64;

const NO_PID_SUPPORT: &str = "this WSL kernel answers D3DKMTQueryStatistics only for the calling \
     process (it lacks dxgkrnl's \"Handle process ID in D3DKMTQueryStatistics\" change)";

#[repr(C)]
struct EnumAdapters2 {
    num_adapters: u32,
    reserved: u32,
    adapters: u64,
}

/// The `/dev/dxg` source, held open between rounds.
pub struct DxgSource {
    file: File,
    proc_root: PathBuf,
    epoch: Instant,
    prev: Option<DxgRound>,
    /// Probed once: can other processes be queried on this kernel?
    pid_support: Option<Result<(), String>>,
    /// Holders of `/dev/dxg` from the collector's descriptor index, when it has one; without it
    /// every round walks `/proc/*/fd` itself.
    holders: Option<Vec<u32>>,
}

impl DxgSource {
    /// Open the device (`/dev/dxg` live). `proc_root` is where the holders of the device are found.
    pub fn open(dev: &Path, proc_root: &Path) -> Result<DxgSource, DxgError> {
        let file = std::fs::OpenOptions::new()
            .read(true)
            .write(true)
            .open(dev)
            .map_err(|source| DxgError::Open {
                path: dev.display().to_string(),
                source,
            })?;
        Ok(DxgSource {
            file,
            proc_root: proc_root.to_path_buf(),
            epoch: Instant::now(),
            prev: None,
            pid_support: None,
            holders: None,
        })
    }

    fn ioctl(&self, request: u64, arg: *mut core::ffi::c_void) -> std::io::Result<()> {
        // SAFETY: `arg` points at a live buffer of the size encoded in `request`.
        let rc = unsafe { libc::ioctl(self.file.as_raw_fd(), request as _, arg) };
        if rc < 0 {
            Err(std::io::Error::last_os_error())
        } else {
            Ok(())
        }
    }

    fn query(&self, ty: QueryType, luid: Luid, pid: u64, id: u32) -> Result<QueryBuf, String> {
        let mut q = QueryBuf::request(ty, luid, pid, id);
        self.ioctl(LX_DXQUERYSTATISTICS, q.0.as_mut_ptr().cast())
            .map_err(|e| format!("{ty:?} query (pid {pid}, id {id}): {e}"))?;
        Ok(q)
    }

    fn adapters(&self) -> Result<Vec<Luid>, String> {
        let mut buf = vec![0u8; ADAPTERS_MAX * ADAPTERINFO_SIZE];
        let mut args = EnumAdapters2 {
            num_adapters: ADAPTERS_MAX as u32,
            reserved: 0,
            adapters: buf.as_mut_ptr() as u64,
        };
        self.ioctl(LX_DXENUMADAPTERS2, (&mut args as *mut EnumAdapters2).cast())
            .map_err(|e| format!("LX_DXENUMADAPTERS2: {e}"))?;
        let list = parse_adapter_infos(&buf, args.num_adapters as usize)?;
        // Enumeration opens each adapter for this process; close them again.
        for (handle, _) in &list {
            let mut h = *handle;
            let _ = self.ioctl(LX_DXCLOSEADAPTER, (&mut h as *mut u32).cast());
        }
        Ok(list.into_iter().map(|(_, l)| l).collect())
    }

    /// Ask about ourselves by pid and by 0: a kernel that translates pids answers the same.
    fn probe_pid_support(&self, luid: Luid) -> Result<(), String> {
        let own = u64::from(std::process::id());
        let by_zero = self.query(QueryType::ProcessSegment, luid, 0, 0)?;
        match self.query(QueryType::ProcessSegment, luid, own, 0) {
            Ok(by_pid) if by_pid.0[0x18..0x320] == by_zero.0[0x18..0x320] => Ok(()),
            _ => Err(NO_PID_SUPPORT.to_string()),
        }
    }

    /// One round of raw answers (what a recorder writes as a fixture).
    pub fn read_round(&mut self) -> DxgRound {
        let mut round = DxgRound {
            taken_100ns: (self.epoch.elapsed().as_nanos() / 100) as u64,
            ..DxgRound::default()
        };
        let luids = match self.adapters() {
            Ok(l) => l,
            Err(e) => {
                round.process_query_unavailable = Some(e);
                return round;
            }
        };
        let mut shape = Vec::new();
        for luid in luids {
            let Ok(a) = self.query(QueryType::Adapter, luid, 0, 0) else {
                continue;
            };
            let Ok((segs, nodes)) = a.adapter_info() else {
                continue;
            };
            let (segs, nodes) = (segs.min(MAX_SEGMENTS), nodes.min(MAX_NODES));
            let segments = (0..segs)
                .filter_map(|i| self.query(QueryType::Segment, luid, 0, i).ok())
                .map(|b| b.to_hex())
                .collect();
            round.adapters.push(AdapterRecord {
                luid,
                adapter: a.to_hex(),
                segments,
            });
            shape.push((luid, segs, nodes));
        }
        if self.pid_support.is_none() {
            if let Some((luid, _, _)) = shape.first() {
                self.pid_support = Some(self.probe_pid_support(*luid));
            }
        }
        if let Some(Err(why)) = &self.pid_support {
            round.process_query_unavailable = Some(why.clone());
            return round;
        }
        let own = std::process::id();
        let pids = match self.holders.take() {
            Some(p) => p,
            None => pids_with_dxg(&self.proc_root).0,
        };
        for pid in pids.into_iter().filter(|p| *p != own) {
            for (luid, segs, nodes) in &shape {
                // A process that exited or never used this adapter answers EINVAL: skip it.
                let segments: Result<Vec<String>, String> = (0..*segs)
                    .map(|i| {
                        self.query(QueryType::ProcessSegment, *luid, pid.into(), i)
                            .map(|b| b.to_hex())
                    })
                    .collect();
                let nodes: Result<Vec<String>, String> = (0..*nodes)
                    .map(|i| {
                        self.query(QueryType::ProcessNode, *luid, pid.into(), i)
                            .map(|b| b.to_hex())
                    })
                    .collect();
                if let (Ok(segments), Ok(nodes)) = (segments, nodes) {
                    round.processes.push(ProcessRecord {
                        pid,
                        luid: *luid,
                        segments,
                        nodes,
                    });
                }
            }
        }
        round
    }

    /// Use these processes as this round's `/dev/dxg` holders instead of walking `/proc`.
    pub fn set_holders(&mut self, pids: Vec<u32>) {
        self.holders = Some(pids);
    }

    /// One round into `snap`, merged with the NVML devices and processes already there. Order:
    /// read (adapters and their segments, then each `/dev/dxg` holder's statistics), pair with
    /// NVML's devices and merge ([`merge_round`]), then add to `snap`. Runs after NVML and before
    /// DRM (see the crate docs).
    pub fn collect(&mut self, snap: &mut Snapshot) {
        let cur = self.read_round();
        let nvml = crate::wddm::merge::nvml_devices(snap);
        apply(snap, merge_round(self.prev.as_ref(), &cur, &nvml));
        self.prev = Some(cur);
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn opening_a_missing_device_names_it() {
        let e = DxgSource::open(Path::new("/nonexistent/dxg"), Path::new("/proc"))
            .err()
            .unwrap()
            .to_string();
        assert!(e.starts_with("/nonexistent/dxg: "), "{e}");
    }

    #[test]
    fn close_adapter_ioctl_number() {
        assert_eq!(LX_DXCLOSEADAPTER, 0xC004_4715);
    }
}
