//! Stop requests (Ctrl-C, SIGTERM, SIGHUP; Ctrl-C and console close on Windows) for the commands
//! that run until told to stop: `record`, `watch` and `serve`. One handler, through `ctrlc`, for
//! all of them. (`probe` and `verify` use `gpuledger_cuda::signal` instead: a driver call can
//! raise the signal and return, and the flag must be set when it returns, which only a handler
//! run in signal context guarantees; `ctrlc` runs its handler on a thread.)

use std::sync::atomic::{AtomicBool, Ordering};
use std::sync::{Arc, Condvar, Mutex, OnceLock};
use std::time::Duration;

/// How long a stop request waits for the round in progress before the process exits anyway.
pub const STOP_GRACE: Duration = Duration::from_secs(5);

/// Set when a stop was requested, for [`wait_for_stop`].
static REQUESTED: (Mutex<bool>, Condvar) = (Mutex::new(false), Condvar::new());

/// Set by a stop request. The handler is installed once per process.
///
/// The command stops after the round in progress. A round can hang in a driver or a file read
/// that never returns, and a stop request must still stop the command: if the process has not
/// ended [`STOP_GRACE`] after the request (or a second request comes), it exits with status 130.
pub fn stop_flag() -> anyhow::Result<Arc<AtomicBool>> {
    static FLAG: OnceLock<Arc<AtomicBool>> = OnceLock::new();
    if let Some(f) = FLAG.get() {
        return Ok(f.clone());
    }
    let flag = Arc::new(AtomicBool::new(false));
    let f = flag.clone();
    ctrlc::set_handler(move || {
        // ctrlc runs this on its own thread, not in signal context: spawning is allowed.
        if f.swap(true, Ordering::SeqCst) {
            force_exit("a second stop request");
        }
        let (lock, cv) = &REQUESTED;
        *lock.lock().unwrap_or_else(|e| e.into_inner()) = true;
        cv.notify_all();
        std::thread::spawn(|| {
            std::thread::sleep(STOP_GRACE);
            force_exit(&format!(
                "the collection round in progress did not finish within {}s of the stop request",
                STOP_GRACE.as_secs()
            ));
        });
    })
    .map_err(|e| handler_error(&e))?;
    let _ = FLAG.set(flag.clone());
    Ok(flag)
}

/// Block until a stop is requested (after [`stop_flag`] installed the handler). Sleeps, never
/// polls: an idle server does not wake up for it.
pub fn wait_for_stop() {
    let (lock, cv) = &REQUESTED;
    let mut requested = lock.lock().unwrap_or_else(|e| e.into_inner());
    while !*requested {
        requested = cv.wait(requested).unwrap_or_else(|e| e.into_inner());
    }
}

/// End the process now, saying why (a stop request that the normal path could not honour).
fn force_exit(why: &str) -> ! {
    eprintln!("gpuledger: stopping at once: {why}");
    std::process::exit(130)
}

/// The Ctrl-C/SIGTERM handler could not be installed.
pub fn handler_error(e: &dyn std::fmt::Display) -> anyhow::Error {
    crate::failed::failed(
        "cli-err-signal-handler",
        vec![("error", e.to_string().into())],
    )
}
