//! One module per sub-command.

pub mod completions;
pub mod diff;
pub mod estimate;
pub mod explain;
pub mod history;
pub mod kill;
pub mod plot;
pub mod probe;
pub mod record;
pub mod sampling;
pub mod selftest;
pub mod serve;
pub mod snapshot;
pub mod ui;
pub mod verify;
pub mod watch;

use std::io::Write;
use std::process::ExitCode;

/// Write `text` to stdout; a closed pipe (`| head`) is not an error worth a message.
///
/// Texts carry names and command lines from outside: control characters are escaped on the way
/// out (`\u001b`, the JSON spelling, so JSON stays valid and means the same).
pub fn print(text: &str) -> anyhow::Result<ExitCode> {
    let text = gpuledger_views::term_safe_text(text);
    let mut out = std::io::stdout().lock();
    match out.write_all(text.as_bytes()).and_then(|_| out.flush()) {
        Err(e) if e.kind() != std::io::ErrorKind::BrokenPipe => Err(e.into()),
        _ => Ok(ExitCode::SUCCESS),
    }
}

/// The most of a runtime log (`--log`) that is read: logs of a loaded server are small, and the
/// lines that matter (buffer sizes) come first.
const MAX_LOG: u64 = 64 << 20;

/// Read a runtime log given with `--log`, bounded by [`MAX_LOG`]. Only a regular file: a FIFO
/// given as the log must not hang the command.
pub fn read_log(path: &std::path::Path) -> anyhow::Result<String> {
    let bytes = gpuledger_sources::regular::read_regular_prefix(path, MAX_LOG)
        .map_err(|e| crate::failed::with_file("cli-err-cannot-read", path, &e))?;
    Ok(String::from_utf8_lossy(&bytes).into_owned())
}
