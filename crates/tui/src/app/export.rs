//! `e`: the table as CSV, written to the data directory.

use super::{App, Overlay};
use gpuledger_views::csv::{opt, process_record, Writer, SNAPSHOT_HEADER, VIEW_EXTRA};
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
                self.message = Some(self.lang.t("tui-msg-export-cancelled"));
            }
            KeyCode::Enter if path.trim().is_empty() => {
                self.message = Some(self.lang.t("tui-msg-export-no-name"));
                self.overlay = Overlay::Export(path);
            }
            KeyCode::Enter => {
                self.overlay = Overlay::None;
                self.message = Some(match self.export_csv(Path::new(&path)) {
                    Ok(n) => {
                        let shown = std::fs::canonicalize(&path)
                            .map(|p| p.display().to_string())
                            .unwrap_or(path);
                        let args = [("n", n.into()), ("path", shown.into())];
                        self.lang.t_args("tui-msg-exported", &args)
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

    /// Write the rows as shown (filter, sort, tree) to `path`, in `snapshot --format csv`'s
    /// columns (the snapshot's time first) and then the view's own ([`VIEW_EXTRA`]). Unknown
    /// values are empty cells with their reason beside them, never 0. Refuses to overwrite.
    pub fn export_csv(&self, path: &Path) -> Result<usize, String> {
        let failed = |e: &dyn std::fmt::Display| {
            let args = [
                ("path", path.display().to_string().into()),
                ("error", e.to_string().into()),
            ];
            self.lang.t_args("tui-msg-export-failed", &args)
        };
        // The data directory may not exist yet on a first export.
        if let Some(dir) = path.parent().filter(|d| !d.as_os_str().is_empty()) {
            std::fs::create_dir_all(dir).map_err(|e| failed(&e))?;
        }
        let file = std::fs::OpenOptions::new()
            .write(true)
            .create_new(true)
            .open(path)
            .map_err(|e| failed(&e))?;
        // The one CSV writer: every field's control characters escaped, as in every CSV.
        let mut w = Writer::from_writer(file);
        let err = |e: csv::Error| failed(&e);
        // The snapshot CSV's columns (its time first), then the view's own.
        w.write_record(SNAPSHOT_HEADER.iter().chain(VIEW_EXTRA.iter()))
            .map_err(err)?;
        let Some(snap) = &self.snapshot else {
            return Ok(0);
        };
        for r in &self.table.rows {
            let p = self.process(r);
            let u = self.usage(r);
            let h = self.host.get(&p.pid);
            let mut rec = process_record(snap, p, u);
            rec.extend([
                opt(self.workload(p)),
                u.kinds_label(),
                opt(u.engines.unavailable_reason.as_ref()),
                opt(h.and_then(|h| h.cpu_percent).map(|v| format!("{v:.1}"))),
                opt(h.and_then(|h| h.rss_bytes)),
                match h {
                    Some(h) => opt(h.reason.as_ref()),
                    None => self.host_missing().to_string(),
                },
            ]);
            w.write_record(rec).map_err(err)?;
        }
        w.flush().map_err(|e| failed(&e))?;
        Ok(self.table.rows.len())
    }
}
