//! Saving a probe result and reading it back: `--save` writes it under the user's data
//! directory; `estimate`/`explain` use it as this machine's measured runtime overhead, labelled
//! "measured by probe on DATE"; `selftest` reports whether one exists and how old it is.

use gpuledger_lang::Said;
use std::ffi::OsString;
use std::path::{Path, PathBuf};
use std::time::{Duration, SystemTime};

use crate::report::{Method, ProbeReport, SCHEMA};

/// A saved result is a few KiB; refuse to read anything much larger.
const MAX_FILE: u64 = 4 << 20;

#[derive(Debug, thiserror::Error)]
pub enum StoreError {
    #[error("no place to save the probe result: neither XDG_DATA_HOME nor HOME (LOCALAPPDATA on Windows) is set; pass a path")]
    NoDataDir,
    #[error("{path}: {what}")]
    Io { path: PathBuf, what: String },
    #[error("{path}: not a gpuledger probe result: {what}")]
    Format { path: PathBuf, what: String },
}

fn io(path: &Path, e: impl std::fmt::Display) -> StoreError {
    StoreError::Io {
        path: path.to_path_buf(),
        what: e.to_string(),
    }
}

/// `$XDG_DATA_HOME/gpuledger/probe.json`, else `$HOME/.local/share/gpuledger/probe.json`
/// (on Windows `%LOCALAPPDATA%\gpuledger\probe.json`), reading the environment through `env`.
/// XDG says a relative XDG_DATA_HOME is invalid and must be ignored.
pub fn default_path_with(env: impl Fn(&str) -> Option<OsString>) -> Option<PathBuf> {
    Some(gpuledger_model::files::data_dir_with(env)?.join("probe.json"))
}

pub fn default_path() -> Option<PathBuf> {
    default_path_with(|k| std::env::var_os(k))
}

/// Writes the result as pretty JSON, creating the directory; replaces any earlier result
/// atomically (write then rename), so a reader never sees half a file.
pub fn save(report: &ProbeReport, path: &Path) -> Result<(), StoreError> {
    if let Some(dir) = path.parent().filter(|d| !d.as_os_str().is_empty()) {
        std::fs::create_dir_all(dir).map_err(|e| io(dir, e))?;
    }
    let json = serde_json::to_string_pretty(report).map_err(|e| io(path, e))?;
    let mut tmp = path.as_os_str().to_owned();
    tmp.push(".tmp");
    let tmp = PathBuf::from(tmp);
    std::fs::write(&tmp, json + "\n").map_err(|e| io(&tmp, e))?;
    std::fs::rename(&tmp, path).map_err(|e| io(path, e))
}

pub fn load(path: &Path) -> Result<ProbeReport, StoreError> {
    let meta = std::fs::metadata(path).map_err(|e| io(path, e))?;
    if meta.len() > MAX_FILE {
        return Err(StoreError::Format {
            path: path.to_path_buf(),
            what: format!("{} bytes is far larger than a probe result", meta.len()),
        });
    }
    let text = std::fs::read_to_string(path).map_err(|e| io(path, e))?;
    let r: ProbeReport = serde_json::from_str(&text).map_err(|e| StoreError::Format {
        path: path.to_path_buf(),
        what: e.to_string(),
    })?;
    if r.schema != SCHEMA {
        return Err(StoreError::Format {
            path: path.to_path_buf(),
            what: format!(
                "schema {} (this gpuledger reads schema {SCHEMA}); run `gpuledger probe --save` again",
                r.schema
            ),
        });
    }
    measured_time(&r).map_err(|what| StoreError::Format {
        path: path.to_path_buf(),
        what,
    })?;
    Ok(r)
}

fn measured_time(r: &ProbeReport) -> Result<SystemTime, String> {
    humantime::parse_rfc3339(&r.measured_at)
        .map_err(|e| format!("measured_at {:?}: {e}", r.measured_at))
}

/// Whether a saved result exists, for `selftest`.
#[derive(Debug)]
pub enum ProbeStatus {
    Missing {
        path: PathBuf,
    },
    Present {
        path: PathBuf,
        report: Box<ProbeReport>,
        /// Zero when the clock says the result is from the future.
        age: Duration,
    },
    Unreadable {
        error: StoreError,
    },
}

impl ProbeStatus {
    /// One line for `selftest`, said in its reader's language.
    pub fn summary(&self) -> Said {
        let path = |p: &Path| ("path", p.display().to_string().into());
        match self {
            ProbeStatus::Missing { path: p } => Said::new("report-probe-missing", vec![path(p)]),
            ProbeStatus::Present {
                path: p,
                report,
                age,
            } => Said::new(
                "report-probe-present",
                vec![
                    ("at", report.measured_at.as_str().into()),
                    ("age", human_age(*age).into()),
                    ("device", report.device.name.as_str().into()),
                    path(p),
                ],
            ),
            ProbeStatus::Unreadable { error } => Said::new(
                "report-probe-unreadable",
                vec![("error", error.to_string().into())],
            ),
        }
    }
}

/// `3 days`, `5 hours`, `12 minutes`, `40 seconds`: coarse on purpose.
pub fn human_age(d: Duration) -> Said {
    let s = d.as_secs();
    let (n, key) = if s >= 86_400 {
        (s / 86_400, "report-age-days")
    } else if s >= 3_600 {
        (s / 3_600, "report-age-hours")
    } else if s >= 60 {
        (s / 60, "report-age-minutes")
    } else {
        (s, "report-age-seconds")
    };
    Said::new(key, vec![("n", n.into())])
}

pub fn status(path: &Path, now: SystemTime) -> ProbeStatus {
    if !path.exists() {
        return ProbeStatus::Missing {
            path: path.to_path_buf(),
        };
    }
    match load(path) {
        Ok(report) => {
            let at = measured_time(&report).expect("checked by load");
            ProbeStatus::Present {
                path: path.to_path_buf(),
                age: now.duration_since(at).unwrap_or_default(),
                report: Box::new(report),
            }
        }
        Err(error) => ProbeStatus::Unreadable { error },
    }
}

/// What `estimate`/`explain` take from a saved result for their runtime-overhead line.
#[derive(Debug, Clone, PartialEq)]
pub struct MeasuredOverhead {
    /// VRAM a process's CUDA context costs on this machine (NVML's view of the first context;
    /// the driver's view of a second context when NVML was not available).
    pub context_bytes: Option<u64>,
    /// VRAM charged per byte of default pinned host memory (`cuMemHostAlloc`), from the largest
    /// size probed; about 1 under WDDM, about 0 on Linux.
    pub pinned_ratio: Option<f64>,
    pub device_name: String,
    pub device_uuid: Option<String>,
    /// The day of the probe (`2026-11-29`).
    pub date: String,
}

impl MeasuredOverhead {
    /// The overhead line's sentence (`CUDA context on DEVICE, measured by probe on DATE`): what
    /// `estimate` and `explain` show, and what `probe --save` says they will.
    pub fn said(&self) -> Said {
        let what = vec![
            ("device", self.device_name.as_str().into()),
            ("date", self.date.as_str().into()),
        ];
        Said::new("recipe-overhead-probed", what)
    }
}

pub fn measured_overhead(r: &ProbeReport) -> MeasuredOverhead {
    let context = r
        .context
        .first_by_nvml
        .unwrap_or(r.context.second_by_driver);
    let pinned = r
        .rows
        .iter()
        .filter(|row| row.method == Method::HostAlloc)
        .max_by_key(|row| row.host_bytes)
        .map(|row| row.ratio_nvml.unwrap_or(row.ratio_driver));
    MeasuredOverhead {
        context_bytes: u64::try_from(context).ok(),
        pinned_ratio: pinned,
        device_name: r.device.name.clone(),
        device_uuid: r.device.uuid.clone(),
        date: r.date().to_string(),
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn data_dir_rules() {
        let env = |pairs: &'static [(&'static str, &'static str)]| {
            move |k: &str| {
                pairs
                    .iter()
                    .find(|(n, _)| *n == k)
                    .map(|(_, v)| OsString::from(*v))
            }
        };
        if cfg!(windows) {
            return;
        }
        assert_eq!(
            default_path_with(env(&[("XDG_DATA_HOME", "/x/data"), ("HOME", "/home/a")])),
            Some(PathBuf::from("/x/data/gpuledger/probe.json"))
        );
        assert_eq!(
            default_path_with(env(&[("XDG_DATA_HOME", "rel"), ("HOME", "/home/a")])),
            Some(PathBuf::from("/home/a/.local/share/gpuledger/probe.json"))
        );
        assert_eq!(
            default_path_with(env(&[("XDG_DATA_HOME", ""), ("HOME", "/home/a")])),
            Some(PathBuf::from("/home/a/.local/share/gpuledger/probe.json"))
        );
        assert_eq!(default_path_with(env(&[])), None);
    }

    #[test]
    fn ages() {
        assert_eq!(human_age(Duration::from_secs(59)).as_str(), "59 seconds");
        assert_eq!(human_age(Duration::from_secs(60)).as_str(), "1 minute");
        assert_eq!(
            human_age(Duration::from_secs(3 * 86_400 + 5)).as_str(),
            "3 days"
        );
        let cn = human_age(Duration::from_secs(3 * 86_400)).in_lang(gpuledger_lang::Lang::ZhCn);
        assert_eq!(cn, "3 天");
    }

    #[test]
    fn bad_files_are_named() {
        let d = tempfile::tempdir().unwrap();
        let p = d.path().join("probe.json");
        std::fs::write(&p, "{\"schema\": 1}").unwrap();
        let m = load(&p).unwrap_err().to_string();
        assert!(
            m.contains("probe.json") && m.contains("not a gpuledger probe result"),
            "{m}"
        );
        match status(&p, SystemTime::now()) {
            ProbeStatus::Unreadable { .. } => {}
            other => panic!("expected unreadable, got {other:?}"),
        }
        let absent = d.path().join("none.json");
        let s = status(&absent, SystemTime::now());
        assert!(matches!(s, ProbeStatus::Missing { .. }));
        assert!(s.summary().contains("gpuledger probe --save"));
    }

    proptest::proptest! {
        #[test]
        fn loading_junk_never_panics(bytes in proptest::collection::vec(proptest::num::u8::ANY, 0..512)) {
            let d = tempfile::tempdir().unwrap();
            let p = d.path().join("probe.json");
            std::fs::write(&p, &bytes).unwrap();
            let r = load(&p);
            proptest::prop_assert!(r.is_err());
        }
    }
}
