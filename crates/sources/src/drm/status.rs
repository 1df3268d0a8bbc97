//! The DRM source's status line: what a round saw (devices, clients, descriptors, processes) or,
//! when it saw nothing, why.

use super::DrmSource;
use crate::sysfs::DrmCard;
use gpuledger_lang::said::Arg;
use gpuledger_lang::Said;
use gpuledger_model::{SourceState, SourceStatus};

impl DrmSource {
    /// The round's status. `shown` names the devices it added; `cards` is the sysfs discovery
    /// (its error is said in the detail).
    pub(super) fn round_status(
        &self,
        shown: &[String],
        cards: &Result<Vec<DrmCard>, String>,
    ) -> SourceStatus {
        if shown.is_empty() && self.stats.clients == 0 {
            return self.nothing_seen(cards);
        }
        // The system's own error words, as it gave them.
        let sysfs = match cards {
            Err(e) => Said::new(
                "report-src-drm-no-sysfs",
                vec![("error", e.as_str().into())],
            ),
            Ok(_) => Said::verbatim(""),
        };
        let idx = self.index.as_ref();
        let read = self.stats.fdinfo_read - self.stats.vanished;
        let procs = idx.map_or(0, |i| {
            i.entries.values().filter(|e| !e.drm_fds.is_empty()).count()
        });
        let remarks = self.remarks();
        let remarks = if remarks.is_empty() {
            Said::verbatim("")
        } else {
            Said::new(
                "report-src-drm-remarks",
                vec![("items", Arg::List(remarks))],
            )
        };
        let args = vec![
            ("devices", shown.len().into()),
            ("names", shown.join(", ").into()),
            ("clients", self.stats.clients.into()),
            ("sysfs", sysfs.into()),
            ("read", read.into()),
            ("procs", procs.to_string().into()),
            // The word "process(es)" follows the index's size (as it always has), not `procs`.
            ("entries", idx.map_or(0, |i| i.entries.len()).into()),
            ("remarks", remarks.into()),
        ];
        let detail = Said::new("report-src-drm-round", args);
        SourceStatus::new("drm", SourceState::Ok, detail)
    }

    /// Unavailable: no device and no client, with what explains it.
    fn nothing_seen(&self, cards: &Result<Vec<DrmCard>, String>) -> SourceStatus {
        // The system's own error words, as it gave them.
        let why = match cards {
            Ok(_) => String::new(),
            Err(e) => format!(" ({e})"),
        };
        let dir = self.class_dir().display().to_string();
        let mut detail = Said::new(
            "report-src-drm-none",
            vec![("dir", dir.into()), ("why", why.into())],
        );
        if self.stats.skipped_nvml_clients > 0 {
            let count = self.stats.skipped_nvml_clients;
            detail = Said::new("report-src-drm-only-nvml", vec![("count", count.into())]);
        }
        if let Some(i) = self.index.as_ref().filter(|i| i.unreadable > 0) {
            let args = vec![("first", detail.into()), ("count", i.unreadable.into())];
            detail = Said::new("report-src-drm-unreadable", args);
        }
        SourceStatus::new("drm", SourceState::Unavailable, detail)
    }

    /// What else the round met: vanished descriptors, skipped NVIDIA clients, unreadable
    /// processes, `/dev/dxg` holders.
    fn remarks(&self) -> Vec<Said> {
        let s = &self.stats;
        let mut extra = Vec::new();
        if s.vanished > 0 {
            let args = vec![("count", s.vanished.into())];
            extra.push(Said::new("report-src-drm-vanished", args));
        }
        if s.skipped_nvml_clients > 0 {
            let args = vec![("count", s.skipped_nvml_clients.into())];
            extra.push(Said::new("report-src-drm-skipped-nvml", args));
        }
        if let Some(i) = self.index.as_ref().filter(|i| i.unreadable > 0) {
            let args = vec![("count", i.unreadable.into())];
            extra.push(Said::new("report-src-drm-unreadable-procs", args));
        }
        if s.dxg_processes > 0 {
            let args = vec![("count", s.dxg_processes.into())];
            extra.push(Said::new("report-src-drm-dxg", args));
        }
        extra
    }
}
