//! Names the build in `gpuledger --version` and `selftest`: the commit it was built from and its
//! date, so a bug report says what was run. Release builds may set `GPULEDGER_COMMIT` and
//! `SOURCE_DATE_EPOCH`; a build outside a git checkout (a crate tarball) says "unknown" rather than
//! guessing. The date is the commit's, not the clock's, so the same source builds the same binary.

use std::process::Command;

fn git(args: &[&str]) -> Option<String> {
    let out = Command::new("git").args(args).output().ok()?;
    let s = String::from_utf8(out.stdout).ok()?.trim().to_string();
    (out.status.success() && !s.is_empty()).then_some(s)
}

fn main() {
    println!("cargo:rerun-if-env-changed=GPULEDGER_COMMIT");
    println!("cargo:rerun-if-env-changed=SOURCE_DATE_EPOCH");
    // Rebuild when HEAD moves: HEAD itself, the branch it points to, and packed refs.
    if let Some(dir) = git(&["rev-parse", "--git-dir"]) {
        let common = git(&["rev-parse", "--git-common-dir"]).unwrap_or_else(|| dir.clone());
        // Only files that exist: cargo reruns the script on every build for a watched file that
        // is missing (a branch ref packed by `git gc`, no packed-refs in a fresh repository).
        let watch = |path: String| {
            if std::path::Path::new(&path).exists() {
                println!("cargo:rerun-if-changed={path}");
            }
        };
        watch(format!("{dir}/HEAD"));
        watch(format!("{common}/packed-refs"));
        if let Some(r) = git(&["symbolic-ref", "-q", "HEAD"]) {
            watch(format!("{common}/{r}"));
        }
    }
    let commit = std::env::var("GPULEDGER_COMMIT")
        .ok()
        .filter(|s| !s.is_empty())
        .or_else(|| git(&["rev-parse", "--short=12", "HEAD"]))
        .unwrap_or_else(|| "unknown".into());
    let date = match std::env::var("SOURCE_DATE_EPOCH")
        .ok()
        .and_then(|s| s.parse::<i64>().ok())
    {
        Some(secs) => civil_date(secs),
        None => git(&["log", "-1", "--format=%cs", "HEAD"]).unwrap_or_else(|| "unknown".into()),
    };
    println!("cargo:rustc-env=GPULEDGER_COMMIT={commit}");
    println!("cargo:rustc-env=GPULEDGER_BUILD_DATE={date}");
}

/// `YYYY-MM-DD` (UTC) of a Unix time, by the days-from-civil inverse (no date crate in a build
/// script).
fn civil_date(secs: i64) -> String {
    let z = secs.div_euclid(86_400) + 719_468;
    let era = z.div_euclid(146_097);
    let doe = z - era * 146_097;
    let yoe = (doe - doe / 1_460 + doe / 36_524 - doe / 146_096) / 365;
    let doy = doe - (365 * yoe + yoe / 4 - yoe / 100);
    let mp = (5 * doy + 2) / 153;
    let d = doy - (153 * mp + 2) / 5 + 1;
    let m = if mp < 10 { mp + 3 } else { mp - 9 };
    let y = yoe + era * 400 + i64::from(m <= 2);
    format!("{y:04}-{m:02}-{d:02}")
}
