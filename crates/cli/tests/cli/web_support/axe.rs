//! axe-core's accessibility rules, run inside the test's Chromium on the page as it is drawn.
//! axe-core is installed pinned by `.ci/setup-chromium.sh` into the user's cache (never
//! committed); where it is missing the check is skipped with the reason, or fails under `CI=true`.

use super::Browser;
use serde_json::{json, Value};
use std::path::PathBuf;

/// Where `.ci/setup-chromium.sh` puts axe-core's browser build.
fn axe_path() -> PathBuf {
    let cache = std::env::var_os("XDG_CACHE_HOME")
        .map(PathBuf::from)
        .or_else(|| std::env::var_os("HOME").map(|h| PathBuf::from(h).join(".cache")))
        .unwrap_or_default();
    cache.join("gpuledger/axe-core/node_modules/axe-core/axe.min.js")
}

/// axe's source, or `None` after printing why the check cannot run here.
pub fn axe_or_skip(test: &str) -> Option<String> {
    let path = axe_path();
    match std::fs::read_to_string(&path) {
        Ok(src) => Some(src),
        Err(e) => {
            let msg = format!(
                "{test}: accessibility check skipped: {}: {e} (install with .ci/setup-chromium.sh)",
                path.display()
            );
            if std::env::var("CI").is_ok_and(|v| v == "true") {
                panic!("{msg}: required in CI");
            }
            eprintln!("{msg}");
            None
        }
    }
}

/// The serious and critical violations axe finds on the page now (rule, impact, help, where).
pub fn serious_violations(b: &Browser, axe: &str) -> Vec<Value> {
    if b.exec("return typeof window.axe", json!([])) != "object" {
        // Injected through WebDriver, as a test tool is: the page's CSP governs the page's own
        // scripts, not the driver's.
        let kind = b.exec(&format!("{axe}\n;return typeof window.axe"), json!([]));
        assert_eq!(kind, "object", "axe-core did not load");
    }
    let v = b.exec_async(
        r#"const done = arguments[arguments.length - 1];
           axe.run(document, { resultTypes: ['violations'] }).then((r) => done(r.violations
             .filter((v) => v.impact === 'serious' || v.impact === 'critical')
             .map((v) => ({ id: v.id, impact: v.impact, help: v.help,
                            nodes: v.nodes.slice(0, 4).map((n) => n.target.join(' ') + ': ' + n.failureSummary) }))),
             (e) => done([{ id: 'axe-error', help: String(e) }]));"#,
    );
    v.as_array().cloned().unwrap_or_default()
}
