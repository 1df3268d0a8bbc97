//! The DRM source's status line: what a round saw (devices, clients, descriptors, processes) or,
//! when it saw nothing, why.

use super::{plural, DrmSource};
use crate::sysfs::DrmCard;
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
        let mut detail = format!(
            "{} DRM device{} ({}), {} client{}",
            shown.len(),
            plural(shown.len()),
            shown.join(", "),
            self.stats.clients,
            plural(self.stats.clients)
        );
        if let Err(e) = cards {
            detail.push_str(&format!("; no sysfs device data: {e}"));
        }
        let idx = self.index.as_ref();
        let read = self.stats.fdinfo_read - self.stats.vanished;
        detail.push_str(&format!(
            " on {} descriptor{} in {} process{}; {}",
            read,
            plural(read),
            idx.map_or(0, |i| i
                .entries
                .values()
                .filter(|e| !e.drm_fds.is_empty())
                .count()),
            if idx.map_or(0, |i| i.entries.len()) == 1 {
                ""
            } else {
                "es"
            },
            "de-duplicated by (drm-pdev, drm-client-id)"
        ));
        let remarks = self.remarks();
        if !remarks.is_empty() {
            detail.push_str("; ");
            detail.push_str(&remarks.join("; "));
        }
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
    fn remarks(&self) -> Vec<String> {
        let s = &self.stats;
        let mut extra = Vec::new();
        if s.vanished > 0 {
            extra.push(format!(
                "{} descriptor{} closed during the round",
                s.vanished,
                plural(s.vanished)
            ));
        }
        if s.skipped_nvml_clients > 0 {
            extra.push(format!(
                "{} client{} on NVIDIA devices skipped (NVML reports them)",
                s.skipped_nvml_clients,
                plural(s.skipped_nvml_clients)
            ));
        }
        if let Some(i) = self.index.as_ref().filter(|i| i.unreadable > 0) {
            extra.push(format!(
                "descriptors of {} process{} not readable (permission denied; other users' GPU use needs root)",
                i.unreadable,
                if i.unreadable == 1 { "" } else { "es" }
            ));
        }
        if s.dxg_processes > 0 {
            extra.push(format!(
                "{} process{} with /dev/dxg open (WSL2 GPU paravirtualisation: measured by the dxg source, not by fdinfo)",
                s.dxg_processes,
                if s.dxg_processes == 1 { "" } else { "es" }
            ));
        }
        extra
    }
}
