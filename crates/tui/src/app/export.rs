//! `e`: the table as CSV, written to the data directory.

use super::*;
use gpuledger_views::csv::{col, opt};
use ratatui::crossterm::event::{KeyCode, KeyEvent};
use std::path::Path;

impl App {
    pub fn default_export_path(&self) -> String {
        let stamp: String = self
            .snapshot
            .as_ref()
            .map(|s| s.taken_at.clone())
            .unwrap_or_default()
            .chars()
            .filter(|c| c.is_ascii_alphanumeric())
            .collect();
        self.export_dir
            .join(format!("gpuledger-{stamp}.csv"))
            .display()
            .to_string()
    }

    pub(super) fn export_key(&mut self, mut path: String, key: KeyEvent) {
        match key.code {
            KeyCode::Esc => {
                self.overlay = Overlay::None;
                self.message = Some("export cancelled".into());
            }
            KeyCode::Enter if path.trim().is_empty() => {
                self.message = Some("export: type a file name first (Esc cancels)".into());
                self.overlay = Overlay::Export(path);
            }
            KeyCode::Enter => {
                self.overlay = Overlay::None;
                self.message = Some(match self.export_csv(Path::new(&path)) {
                    Ok(n) => {
                        let shown = std::fs::canonicalize(&path)
                            .map(|p| p.display().to_string())
                            .unwrap_or(path);
                        format!("exported {n} rows to {shown}")
                    }
                    Err(e) => e,
                });
            }
            KeyCode::Backspace => {
                path.pop();
                self.overlay = Overlay::Export(path);
            }
            KeyCode::Char(ch) => {
                path.push(ch);
                self.overlay = Overlay::Export(path);
            }
            _ => {}
        }
    }

    /// Write the rows as shown (filter, sort, tree) to `path`. Unknown values are empty cells with
    /// their reason in the next column, never 0. Refuses to overwrite.
    pub fn export_csv(&self, path: &Path) -> Result<usize, String> {
        // The data directory may not exist yet on a first export.
        if let Some(dir) = path.parent().filter(|d| !d.as_os_str().is_empty()) {
            std::fs::create_dir_all(dir)
                .map_err(|e| format!("cannot export to {}: {e}", path.display()))?;
        }
        let file = std::fs::OpenOptions::new()
            .write(true)
            .create_new(true)
            .open(path)
            .map_err(|e| format!("cannot export to {}: {e}", path.display()))?;
        let mut w = csv::Writer::from_writer(file);
        let err = |e: csv::Error| format!("cannot export to {}: {e}", path.display());
        w.write_record([
            col::DEVICE_INDEX,
            col::DEVICE_NAME,
            col::PID,
            col::START_TIME,
            col::USER,
            col::NAME,
            col::WORKLOAD,
            col::TYPE,
            col::MEMORY_BYTES,
            col::MEMORY_SOURCE,
            col::MEMORY_UNAVAILABLE_REASON,
            col::SM_PERCENT,
            col::SM_UNAVAILABLE_REASON,
            col::CPU_PERCENT,
            col::RSS_BYTES,
            col::HOST_UNAVAILABLE_REASON,
            col::COMMAND,
        ])
        .map_err(err)?;
        for r in &self.rows {
            let p = self.process(r);
            let u = self.usage(r);
            let h = self.host.get(&p.pid);
            let dev = self.device_of(r);
            w.write_record([
                opt(dev.map(|d| d.index)),
                dev.and_then(|d| d.name.clone())
                    .unwrap_or_else(|| u.device.clone()),
                p.pid.to_string(),
                opt(p.start_time),
                opt(p.user.as_ref()),
                opt(p.name.as_ref()),
                opt(self.workload(p)),
                u.kinds_label(),
                opt(u.memory_bytes),
                u.memory_source.clone(),
                opt(u.unavailable_reason.as_ref()),
                opt(u.engines.sm_percent),
                opt(u.engines.unavailable_reason.as_ref()),
                opt(h.and_then(|h| h.cpu_percent).map(|v| format!("{v:.1}"))),
                opt(h.and_then(|h| h.rss_bytes)),
                match h {
                    Some(h) => opt(h.reason.as_ref()),
                    None => self.host_missing().to_string(),
                },
                // Names and command lines are redacted as they enter a snapshot (collection, and
                // `redact_snapshot` for every snapshot read from outside).
                opt(p.cmdline.as_ref().map(|c| c.join(" "))),
            ])
            .map_err(err)?;
        }
        w.flush()
            .map_err(|e| format!("cannot export to {}: {e}", path.display()))?;
        Ok(self.rows.len())
    }
}
