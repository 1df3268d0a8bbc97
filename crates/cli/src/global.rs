//! Options every command shares: where the sources read from, or a recording to replay instead.

use gpuledger_model::{parse_snapshot, Snapshot, SnapshotError};
use gpuledger_sources::{Collector, SourceConfig};
use gpuledger_workloads::asking::Asking;
use std::path::PathBuf;

#[derive(clap::Args, Debug, Clone)]
pub struct GlobalArgs {
    /// Read process information from this procfs tree instead of /proc (recorded data, tests).
    #[arg(
        long,
        global = true,
        help_heading = "Where to read from",
        value_name = "PATH",
        default_value = "/proc"
    )]
    pub proc_root: PathBuf,
    /// Read device information from this sysfs tree instead of /sys.
    #[arg(
        long,
        global = true,
        help_heading = "Where to read from",
        value_name = "PATH",
        default_value = "/sys"
    )]
    pub sys_root: PathBuf,
    /// Load NVML from this file instead of searching for libnvidia-ml.so.1 / nvml.dll.
    #[arg(
        long,
        global = true,
        help_heading = "Where to read from",
        value_name = "PATH",
        env = "GPULEDGER_NVML_LIB"
    )]
    pub nvml_lib: Option<PathBuf>,
    /// The kubelet's pod-resources socket, asked for the names of pods and the devices their
    /// containers were assigned (Kubernetes nodes; a GPU process in a pod keeps its UID when
    /// the socket is absent or does not answer within 2 s).
    #[arg(
        long,
        global = true,
        help_heading = "Where to read from",
        value_name = "PATH",
        env = "GPULEDGER_KUBELET_SOCKET",
        default_value = gpuledger_sources::owner::DEFAULT_KUBELET_SOCKET
    )]
    pub kubelet_socket: PathBuf,
    /// The kubelet's container log links (`<pod>_<namespace>_<container>-<id>.log`), which
    /// join a process's container id to its pod's name.
    #[arg(
        long,
        global = true,
        help_heading = "Where to read from",
        value_name = "DIR",
        env = "GPULEDGER_CONTAINER_LOGS",
        default_value = gpuledger_sources::owner::DEFAULT_CONTAINER_LOGS
    )]
    pub container_logs: PathBuf,
    /// Do not ask model servers' own HTTP APIs on loopback (llama-server /props, vLLM /metrics,
    /// SGLang /get_server_info, Ollama /api/ps, LM Studio /api/v0/models). Without it,
    /// `explain` and `snapshot` ask them while they collect, and the live view, `serve`, `watch`
    /// and `record` ask from a background thread (the answers show a round or two later).
    #[arg(long, global = true, help_heading = "Where to read from")]
    pub no_probe: bool,
    /// Show a saved snapshot (JSON from `gpuledger snapshot --json`) or a recording (the database
    /// of `gpuledger record`; pick the moment with `snapshot --at`) instead of the live machine.
    /// The output is marked as a replay.
    #[arg(
        long,
        global = true,
        help_heading = "Where to read from",
        value_name = "FILE"
    )]
    pub replay: Option<PathBuf>,
    /// The language people read: en, zh-CN (Simplified Chinese) or zh-TW (Traditional, also
    /// for Hong Kong and Macau); `--lang list` or `--lang` alone lists them. Without it:
    /// GPULEDGER_LANG, LANGUAGE (unless the locale is C), LC_ALL, LC_MESSAGES, LANG, then the
    /// Windows display language. JSON, CSV, metrics and recordings are the same in every
    /// language.
    #[arg(
        long,
        global = true,
        value_name = "LANG",
        num_args = 0..=1,
        default_missing_value = "list",
        env = LANG_VAR
    )]
    pub lang: Option<String>,
}

/// `--lang` from the environment, before the locale variables (scripts and tests that must
/// not depend on the user's locale).
pub const LANG_VAR: &str = "GPULEDGER_LANG";

use crate::failed::{failed as error, path as shown, with_file};

pub struct Global {
    pub args: GlobalArgs,
    /// The language of the text reports ([`gpuledger_lang::choose`]); English until main sets it.
    pub lang: gpuledger_lang::Lang,
}

impl Global {
    pub fn new(args: GlobalArgs) -> Self {
        Global {
            args,
            lang: gpuledger_lang::Lang::En,
        }
    }

    pub fn source_config(&self) -> SourceConfig {
        SourceConfig {
            proc_root: self.args.proc_root.clone(),
            sys_root: self.args.sys_root.clone(),
            nvml_lib: self.args.nvml_lib.clone(),
            kubelet_socket: self.args.kubelet_socket.clone(),
            container_logs: self.args.container_logs.clone(),
        }
    }

    /// The sources, with workload identification attached to each round; runtimes' APIs are
    /// not asked (see [`Global::asking_collector`]).
    pub fn collector(&self) -> Collector {
        self.collector_with(Asking::Off, false)
    }

    /// [`Global::collector`] whose rounds ask the runtimes' own APIs (unless `--no-probe`):
    /// inline for a command of one round, in the background for one of many.
    pub fn asking_collector(&self, many_rounds: bool) -> Collector {
        let t = gpuledger_workloads::asking::TIMEOUT;
        let asking = match (self.args.no_probe, many_rounds) {
            (true, _) => Asking::Off,
            (false, true) => Asking::Background(t),
            (false, false) => Asking::Inline(t),
        };
        self.collector_with(asking, many_rounds)
    }

    /// `many_rounds`: a live view or a server, whose later rounds read what one skipped; a
    /// command of one round has none, so it gets the one-shot header budget.
    fn collector_with(&self, asking: Asking, many_rounds: bool) -> Collector {
        use gpuledger_workloads::safetensors::Budget;
        let identify = gpuledger_workloads::annotate::Identifier::new()
            .with_overhead(crate::overhead::probed_context())
            .asking(asking)
            .header_budget(if many_rounds {
                Budget::default()
            } else {
                Budget::one_shot()
            });
        Collector::new(self.source_config()).with_annotator(Box::new(identify))
    }

    /// The snapshot to show: the replay file if one was given, else one live round.
    /// The second value names the replay source.
    pub fn snapshot(&self) -> anyhow::Result<(Snapshot, Option<String>)> {
        self.snapshot_at(None)
    }

    /// Like [`Global::snapshot`]; `at` (RFC 3339 or a duration ago) picks the moment of a
    /// replayed recording, the latest sample when absent.
    pub fn snapshot_at(&self, at: Option<&str>) -> anyhow::Result<(Snapshot, Option<String>)> {
        match &self.args.replay {
            Some(path) if is_recording(path)? => {
                let reader = gpuledger_history::store::Reader::open(path)?;
                let now = gpuledger_model::time::now_ms();
                let at_ms = match at {
                    Some(a) => gpuledger_model::time::parse_time_arg(a, now)
                        .map_err(|e| crate::flags::option_error("--at", e))?,
                    None => i64::MAX,
                };
                let mut snap = reader.snapshot_at(at_ms)?;
                // Recordings made by older versions (or edited) may hold what today's rules hide.
                gpuledger_model::redact_snapshot(&mut snap);
                let said = [
                    ("path", path.display().to_string().into()),
                    ("at", snap.taken_at.clone().into()),
                ];
                let shown = self.lang.t_args("cli-replay-recording-at", &said);
                Ok((snap, Some(shown)))
            }
            Some(path) => {
                if at.is_some() {
                    return Err(error(
                        "cli-err-at-snapshot-file",
                        vec![("path", shown(path))],
                    ));
                }
                let shown = path.display().to_string();
                Ok((load_snapshot(path)?, Some(shown)))
            }
            None => {
                if at.is_some() {
                    let said = gpuledger_lang::said::Said::new("cli-err-at-needs-replay", vec![]);
                    return Err(crate::Usage(said).into());
                }
                Ok((self.asking_collector(false).collect(), None))
            }
        }
    }
}

/// Read a snapshot file; errors name the file and what is wrong with it.
pub fn load_snapshot(path: &std::path::Path) -> anyhow::Result<Snapshot> {
    let text = read_snapshot_text(path)?;
    let mut snap = parse_snapshot(&text).map_err(|e| match e {
        SnapshotError::Parse(e) => with_file("cli-err-not-snapshot", path, &e),
        SnapshotError::Schema { found, expected } => {
            let said = vec![
                ("path", shown(path)),
                ("found", format!("{found:?}").into()),
                ("expected", format!("{expected:?}").into()),
            ];
            error("cli-err-snapshot-schema", said)
        }
    })?;
    // A file can hold anything: secrets are redacted on every input path, not only at collection.
    gpuledger_model::redact_snapshot(&mut snap);
    Ok(snap)
}

/// The text of a snapshot file. Only a regular file is read (a FIFO would block, `/dev/zero`
/// never ends and reports a length of 0), and never more than the limit whatever length it
/// reports: this is the one reader of snapshot files (replay, diff, serve).
pub fn read_snapshot_text(path: &std::path::Path) -> anyhow::Result<String> {
    const MAX: u64 = 256 << 20;
    let bytes = gpuledger_sources::regular::read_regular(path, MAX).map_err(|e| {
        let key = if e.kind() == std::io::ErrorKind::InvalidData {
            "cli-err-too-large"
        } else {
            "cli-err-cannot-read"
        };
        with_file(key, path, &e)
    })?;
    String::from_utf8(bytes).map_err(|e| with_file("cli-err-not-utf8", path, &e))
}

/// A replay file is a recording when it starts with the SQLite header. Anything but a regular
/// file is refused here, before SQLite or the JSON reader opens it.
fn is_recording(path: &std::path::Path) -> anyhow::Result<bool> {
    use std::io::Read;
    let cannot_read = |e: std::io::Error| with_file("cli-err-cannot-read", path, &e);
    let f = gpuledger_sources::regular::open_regular(path).map_err(cannot_read)?;
    let mut head = Vec::with_capacity(16);
    f.take(16).read_to_end(&mut head).map_err(cannot_read)?;
    Ok(head == b"SQLite format 3\0")
}
