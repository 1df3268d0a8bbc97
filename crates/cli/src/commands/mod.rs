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
