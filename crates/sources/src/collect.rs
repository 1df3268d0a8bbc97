//! One collection round: every source adds what it can see, then the books are balanced.

use crate::container;
use crate::drm::DrmSource;
use crate::nvml::{LoadError, Nvml};
use crate::procfs::ProcReader;
use crate::sysfs::normalise_bus_id;
use gpuledger_lang::Said;
use gpuledger_model::time::format_secs;
use gpuledger_model::{balance, OwnerKind, Snapshot, SourceState, SourceStatus};
use std::collections::HashSet;
use std::path::PathBuf;
use std::time::{Duration, Instant, SystemTime, UNIX_EPOCH};

/// Where the sources read from. Defaults are the live machine; tests and post-mortems point them at
/// recorded trees and fake libraries.
#[derive(Debug, Clone)]
pub struct SourceConfig {
    pub proc_root: PathBuf,
    pub sys_root: PathBuf,
    /// Explicit NVML library; `None` searches the platform's usual names.
    pub nvml_lib: Option<PathBuf>,
    /// The kubelet's pod-resources socket, and its container log links (pod names; see
    /// `owner::kube`).
    pub kubelet_socket: PathBuf,
    pub container_logs: PathBuf,
}

impl Default for SourceConfig {
    fn default() -> Self {
        SourceConfig {
            proc_root: PathBuf::from("/proc"),
            sys_root: PathBuf::from("/sys"),
            nvml_lib: None,
            kubelet_socket: PathBuf::from(crate::owner::DEFAULT_KUBELET_SOCKET),
            container_logs: PathBuf::from(crate::owner::DEFAULT_CONTAINER_LOGS),
        }
    }
}

/// A step that adds conclusions to a measured snapshot (workload identification), run after the
/// sources and before the books are balanced. It lives above the sources (in the workloads crate)
/// and is handed in, so that the sources never depend on it.
pub trait Annotate: Send {
    fn annotate(&mut self, snap: &mut Snapshot, procs: &ProcReader);
}

/// Holds the sources open between rounds: loading NVML and reading the user table are done once,
/// not per round.
/// How long the host's name and kernel are reused between rounds.
const HOST_REREAD: Duration = Duration::from_secs(30);

pub struct Collector {
    pub config: SourceConfig,
    nvml: Result<Nvml, LoadError>,
    procs: ProcReader,
    annotators: Vec<Box<dyn Annotate>>,
    platform: Platform,
    /// DRM fdinfo + sysfs: keeps its descriptor index and engine counters between rounds.
    drm: DrmSource,
    /// Monotonic origin for engine rates.
    epoch: Instant,
    last_round: crate::procfs::RoundStats,
    /// Looked at on the first round (neither changes while gpuledger runs): is the procfs root
    /// there, and is gpuledger in a PID namespace of its own.
    procfs_present: std::sync::OnceLock<bool>,
    own_pid_namespace: std::sync::OnceLock<Option<String>>,
    /// The host's name and kernel, and when they were read (see [`HOST_REREAD`]).
    host: Option<(Instant, gpuledger_model::Host)>,
    /// Pod names from the kubelet, kept between rounds.
    #[cfg(unix)]
    kube: crate::owner::kube::KubeNames,
    /// Slurm job names from their processes' environment, per job.
    slurm: crate::owner::slurm::SlurmNames,
}

/// The per-process source of this platform, beside NVML: WDDM counters on Windows, IOKit on
/// macOS, `/dev/dxg` inside WSL. Opened on the first round that needs it, kept open after.
#[derive(Default)]
struct Platform {
    #[cfg(windows)]
    wddm: Option<Result<crate::wddm::WddmSource, String>>,
    #[cfg(target_os = "macos")]
    iokit: Option<crate::iokit::IokitSource>,
    #[cfg(target_os = "linux")]
    dxg: Option<Result<crate::dxg::DxgSource, String>>,
}

impl Platform {
    /// `dxg_holders`: the processes the DRM descriptor index saw holding `/dev/dxg` last round
    /// (WSL), so the dxg source need not walk every `/proc/*/fd` again; `None` makes it walk.
    #[cfg_attr(not(target_os = "linux"), allow(unused_variables))]
    fn collect(
        &mut self,
        snap: &mut Snapshot,
        config: &SourceConfig,
        dxg_holders: Option<Vec<u32>>,
    ) {
        #[cfg(windows)]
        {
            match self
                .wddm
                .get_or_insert_with(|| crate::wddm::WddmSource::new().map_err(|e| e.to_string()))
            {
                Ok(src) => src.collect(snap),
                Err(e) => {
                    snap.sources
                        .push(SourceStatus::new("wddm", SourceState::Error, e.clone()))
                }
            }
        }
        #[cfg(target_os = "macos")]
        {
            self.iokit
                .get_or_insert_with(crate::iokit::IokitSource::new)
                .collect(snap);
        }
        #[cfg(target_os = "linux")]
        if snap.host.wsl {
            let dev = std::path::Path::new("/dev/dxg");
            match self.dxg.get_or_insert_with(|| {
                crate::dxg::DxgSource::open(dev, &config.proc_root).map_err(|e| e.to_string())
            }) {
                Ok(src) => {
                    if let Some(pids) = dxg_holders {
                        src.set_holders(pids);
                    }
                    src.collect(snap)
                }
                Err(e) => snap.sources.push(SourceStatus::new(
                    "dxg",
                    SourceState::Unavailable,
                    e.clone(),
                )),
            }
        }
    }
}

impl Collector {
    pub fn new(config: SourceConfig) -> Self {
        let nvml = Nvml::load(config.nvml_lib.as_deref());
        let procs = ProcReader::new(&config.proc_root);
        let drm = DrmSource::new(&config.proc_root, &config.sys_root);
        #[cfg(unix)]
        let kube = crate::owner::kube::KubeNames::new(
            config.kubelet_socket.clone(),
            config.container_logs.clone(),
        )
        .with_proc_root(config.proc_root.clone());
        Collector {
            config,
            nvml,
            procs,
            annotators: Vec::new(),
            platform: Platform::default(),
            drm,
            epoch: Instant::now(),
            last_round: Default::default(),
            procfs_present: Default::default(),
            host: None,
            own_pid_namespace: Default::default(),
            #[cfg(unix)]
            kube,
            slurm: Default::default(),
        }
    }

    /// Add a step run on every round after the sources (see [`Annotate`]).
    pub fn with_annotator(mut self, a: Box<dyn Annotate>) -> Self {
        self.annotators.push(a);
        self
    }

    /// The NVML handle, or why there is none.
    pub fn nvml(&self) -> Result<&Nvml, &LoadError> {
        self.nvml.as_ref()
    }

    pub fn procs(&self) -> &ProcReader {
        &self.procs
    }

    pub fn drm(&self) -> &DrmSource {
        &self.drm
    }

    pub fn drm_mut(&mut self) -> &mut DrmSource {
        &mut self.drm
    }

    /// DRM fdinfo and sysfs, after NVML so that NVIDIA devices NVML reports are not counted
    /// again from the nvidia-drm driver's descriptors.
    /// `gpu_pids`: the snapshot's processes, the same list the round's prefetch read.
    fn collect_drm(&mut self, snap: &mut Snapshot, gpu_pids: &[u32]) {
        let nvml_bus: HashSet<String> = snap
            .devices
            .iter()
            .filter(|d| d.source == "nvml")
            .filter_map(|d| d.pci_bus_id.as_deref().map(normalise_bus_id))
            .collect();
        let now_ns = self.epoch.elapsed().as_nanos() as u64;
        // NVML names its processes whether or not it reports a PCI address for the device.
        let any_nvml = snap.devices.iter().any(|d| d.source == "nvml");
        let (procs, wsl) = (&self.procs, snap.host.wsl);
        let status = self
            .drm
            .collect_scoped(procs, snap, now_ns, &nvml_bus, |cards| {
                // Every process's descriptors only where DRM clients can be found no other way: a
                // card NVML does not cover, no GPU source at all (a device known only from
                // fdinfo), or WSL (the /dev/dxg holders).
                let uncovered = cards.iter().any(|c| !nvml_bus.contains(&c.slot));
                if uncovered || wsl || (cards.is_empty() && !any_nvml) {
                    crate::drm::Scope::All
                } else {
                    crate::drm::Scope::Only(gpu_pids)
                }
            });
        snap.sources.push(status);
    }

    /// Owners from cgroups, with the user names of their uids; the container ids the snapshot
    /// has always carried; and a warning when gpuledger itself is in a PID namespace.
    fn owners(&mut self, snap: &mut Snapshot) {
        for p in &mut snap.processes {
            if p.owner.is_some() {
                continue;
            }
            let Some(owner) = self.procs.owner(p.pid) else {
                continue;
            };
            let mut o = (*owner).clone();
            if o.kind == OwnerKind::SlurmJob && o.uid.is_none() {
                // A cgroup v2 path carries no uid: the task runs as the job's user.
                o.uid = p.uid;
            }
            o.user = o.uid.and_then(|u| self.procs.user_name(u));
            if o.kind == OwnerKind::SlurmJob {
                // Only a process already placed in a job pays for an environment read.
                self.slurm.apply(self.procs.root(), p.pid, &mut o);
            }
            o.relabel();
            if p.container.is_none() {
                p.container = o.container_ref();
            }
            p.owner = Some(o);
        }
        doubted_owners_note(snap);
        #[cfg(unix)]
        self.kube.apply(snap);
        let unnamed: Vec<Said> = snap
            .processes
            .iter()
            .filter_map(|p| p.owner.as_ref().filter(|o| o.kind == OwnerKind::Pod))
            .filter(|o| o.namespace.is_none())
            .map(|o| {
                o.names_unavailable_reason
                    .clone()
                    .unwrap_or_else(gpuledger_model::owner::pod_names_unavailable)
            })
            .collect();
        if let Some(why) = unnamed.first() {
            let args = vec![("count", unnamed.len().into()), ("why", why.clone().into())];
            snap.notes.push(Said::new("report-note-pods-by-uid", args));
        }
        // Asked once: a process does not change its own PID namespace.
        let root = self.procs.root();
        let own = self
            .own_pid_namespace
            .get_or_init(|| container::own_pid_namespace(root));
        if let Some(why) = own {
            let args = vec![("why", why.as_str().into())];
            snap.notes
                .push(Said::new("report-note-pid-namespace", args));
        }
    }

    fn fill_from_procfs(&self, snap: &mut Snapshot) {
        // Fill only what the platform source left empty.
        let mut unseen = 0usize;
        let mut unreadable: Vec<Said> = Vec::new();
        for p in &mut snap.processes {
            if p.name.is_none() && p.metadata_unavailable.is_none() {
                let fill = self.procs.fill(p);
                if fill == crate::procfs::Fill::Unreadable {
                    unreadable.extend(p.metadata_unavailable.clone());
                    continue;
                }
            }
            if p.metadata_unavailable.is_some() {
                unseen += 1;
            }
        }
        let unseen_all = unseen + unreadable.len();
        let detail = gpuledger_lang::Said::new(
            "report-src-procfs",
            vec![
                ("root", self.procs.root().display().to_string().into()),
                (
                    "seen",
                    (snap.processes.len() - unseen_all).to_string().into(),
                ),
                ("count", snap.processes.len().into()),
            ],
        );
        let root = self.procs.root();
        let present = *self
            .procfs_present
            .get_or_init(|| root.join("self").exists() || root.join("stat").exists());
        let state = if present {
            SourceState::Ok
        } else {
            SourceState::Unavailable
        };
        snap.sources
            .push(SourceStatus::new("procfs", state, detail));
        if let Some(first) = unreadable.first() {
            // There, but unreadable or malformed: not "exited".
            let args = vec![
                ("count", unreadable.len().into()),
                ("first", first.clone().into()),
            ];
            snap.notes
                .push(Said::new("report-note-proc-unreadable", args));
        }
        if unseen > 0 {
            let args = vec![
                ("count", unseen.into()),
                ("root", self.procs.root().display().to_string().into()),
            ];
            snap.notes.push(Said::new("report-note-proc-unseen", args));
        }
    }

    /// The host's name and kernel: two file reads that change once in a machine's life, so a
    /// live view reads them every [`HOST_REREAD`], not every round.
    fn host(&mut self) -> gpuledger_model::Host {
        match &self.host {
            Some((at, h)) if at.elapsed() < HOST_REREAD => h.clone(),
            _ => {
                let h = self.procs.host();
                self.host = Some((Instant::now(), h.clone()));
                h
            }
        }
    }

    /// One round. Never fails: what a source could not see is recorded in the snapshot.
    pub fn collect(&mut self) -> Snapshot {
        let now = SystemTime::now()
            .duration_since(UNIX_EPOCH)
            .map(|d| d.as_secs())
            .unwrap_or(0);
        let mut snap = Snapshot::new(format_secs(now), self.host());
        // One reading of each /proc file per process for the whole round, shared by every step.
        self.procs.begin_round();

        let status = match &mut self.nvml {
            Ok(nvml) => nvml.collect(&mut snap),
            Err(e) => SourceStatus::new("nvml", e.state(), e.said()),
        };
        snap.sources.push(status);
        // The DRM descriptor index (kept up to date incrementally) already knows who holds
        // /dev/dxg: reuse it rather than walking every /proc/*/fd again.
        let dxg_holders = self.drm.index().map(|ix| {
            ix.entries
                .iter()
                .filter(|(_, e)| e.dxg)
                .map(|(pid, _)| *pid)
                .collect()
        });
        self.platform.collect(&mut snap, &self.config, dxg_holders);
        // Names and paths from the platform's own sources (Windows image names, IOKit names):
        // redacted as they enter the snapshot, as /proc's are where they are read.
        for p in &mut snap.processes {
            gpuledger_model::redact_process_names(p);
        }
        let dxg_sees_processes = snap
            .processes
            .iter()
            .flat_map(|p| &p.usage)
            .any(|u| u.memory_source.contains("dxg"));
        if snap.host.wsl && !dxg_sees_processes {
            snap.notes.push(Said::new("report-note-wsl2", vec![]));
        }

        // Windows and macOS have no procfs: their platform source names the processes itself.
        if cfg!(target_os = "linux") || self.procs.root().exists() {
            // New GPU processes (all of them in a one-shot) are read on a few threads at once.
            let pids: Vec<u32> = snap.processes.iter().map(|p| p.pid).collect();
            self.procs.prefetch(&pids, !self.annotators.is_empty());
            self.collect_drm(&mut snap, &pids);
            self.fill_from_procfs(&mut snap);
            self.owners(&mut snap);
        }

        for a in &mut self.annotators {
            a.annotate(&mut snap, &self.procs);
        }

        if snap.devices.is_empty() {
            snap.notes.push(Said::new("report-note-no-gpu", vec![]));
        }
        self.last_round = self.procs.end_round();
        balance(&mut snap);
        snap
    }

    /// How many /proc files the last round read, and how many readings it reused.
    pub fn last_round(&self) -> crate::procfs::RoundStats {
        self.last_round
    }
}

/// One line in the snapshot's notes for the GPU processes whose cgroup looked like a pod's or a
/// Slurm job's where none can be (the owner's `note` says which and why, `explain` shows it).
fn doubted_owners_note(snap: &mut Snapshot) {
    let pids: Vec<String> = snap
        .processes
        .iter()
        .filter(|p| p.owner.as_ref().is_some_and(|o| o.note.is_some()))
        .map(|p| p.pid.to_string())
        .collect();
    if pids.is_empty() {
        return;
    }
    let shown: Vec<&str> = pids.iter().take(8).map(String::as_str).collect();
    let more = if pids.len() > shown.len() {
        ", …"
    } else {
        ""
    };
    let args = vec![
        ("count", pids.len().into()),
        ("pids", format!("{}{more}", shown.join(", ")).into()),
    ];
    snap.notes
        .push(Said::new("report-note-doubted-owners", args));
}
