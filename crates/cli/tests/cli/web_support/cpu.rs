//! What the page costs per update: Chromium's own main-thread metrics, the CPU of all of
//! Chromium's processes (paint and compositing included) less Chromium's idle cost, and the
//! CPU of `serve` (a round and its answers), all read from /proc and the DevTools protocol.

use super::Browser;
use serde_json::json;
use std::time::{Duration, Instant};

/// CPU ticks (user + system) of a process, from /proc.
pub fn cpu_ticks(pid: u32) -> u64 {
    // A process that ended meanwhile counts nothing.
    let Ok(stat) = std::fs::read_to_string(format!("/proc/{pid}/stat")) else {
        return 0;
    };
    let after = stat.rsplit_once(')').unwrap().1;
    let f: Vec<&str> = after.split_whitespace().collect();
    f[11].parse::<u64>().unwrap() + f[12].parse::<u64>().unwrap()
}

/// A process and all its descendants, from /proc.
pub fn descendants(root: u32) -> Vec<u32> {
    let parent: Vec<(u32, u32)> = std::fs::read_dir("/proc")
        .unwrap()
        .filter_map(|e| e.ok()?.file_name().to_str()?.parse::<u32>().ok())
        .filter_map(|pid| {
            let stat = std::fs::read_to_string(format!("/proc/{pid}/stat")).ok()?;
            let ppid = stat
                .rsplit_once(')')?
                .1
                .split_whitespace()
                .nth(1)?
                .parse()
                .ok()?;
            Some((pid, ppid))
        })
        .collect();
    let mut out = vec![root];
    let mut i = 0;
    while i < out.len() {
        let p = out[i];
        out.extend(parent.iter().filter(|&&(_, pp)| pp == p).map(|&(c, _)| c));
        i += 1;
    }
    out
}

fn main_thread(b: &Browser) -> f64 {
    b.cdp("Performance.getMetrics", json!({}))["metrics"]
        .as_array()
        .unwrap()
        .iter()
        .filter(|x| {
            ["ScriptDuration", "LayoutDuration", "RecalcStyleDuration"]
                .contains(&x["name"].as_str().unwrap())
        })
        .map(|x| x["value"].as_f64().unwrap())
        .sum()
}

fn chromium(b: &Browser) -> u64 {
    descendants(b.driver_pid()).into_iter().map(cpu_ticks).sum()
}

/// How many times the page has rendered (its own counter, `data-renders`).
pub fn renders(b: &Browser) -> u64 {
    b.exec(
        "return Number(document.documentElement.dataset.renders || 0)",
        json!([]),
    )
    .as_u64()
    .unwrap()
}

/// Per update, in ms of CPU.
pub struct Cost {
    pub renders: u64,
    /// All of Chromium's processes, its idle cost taken out.
    pub page_ms: f64,
    /// Script, style and layout on the page's main thread.
    pub main_ms: f64,
    /// Chromium with the page's tab hidden, per second (not counted in `page_ms`).
    pub idle_ms_per_s: f64,
    /// `serve` per collection round.
    pub serve_ms: f64,
    /// The page's tab, hidden behind a blank one: show it again with [`Browser::show_tab`].
    pub hidden_tab: String,
}

/// Watch `live` of updates at `round` intervals, then Chromium idle for 3 s with the page's
/// tab hidden (left hidden: see [`Cost::hidden_tab`]).
pub fn per_update(b: &Browser, serve_pid: u32, live: Duration, round: Duration) -> Cost {
    b.cdp("Performance.enable", json!({}));
    let (r0, main0, chr0, ticks0, t0) = (
        renders(b),
        main_thread(b),
        chromium(b),
        cpu_ticks(serve_pid),
        Instant::now(),
    );
    std::thread::sleep(live);
    let (r1, main1, chr1, ticks1) = (
        renders(b),
        main_thread(b),
        chromium(b),
        cpu_ticks(serve_pid),
    );
    let (live_secs, n) = (t0.elapsed().as_secs_f64(), (r1 - r0).max(1) as f64);
    let hidden_tab = b.hide_in_new_tab();
    let (idle0, t1) = (chromium(b), Instant::now());
    std::thread::sleep(Duration::from_secs(3));
    let idle_per_s = (chromium(b) - idle0) as f64 * 10.0 / t1.elapsed().as_secs_f64();
    Cost {
        renders: r1 - r0,
        page_ms: ((chr1 - chr0) as f64 * 10.0 - idle_per_s * live_secs) / n,
        main_ms: (main1 - main0) * 1000.0 / n,
        idle_ms_per_s: idle_per_s,
        serve_ms: (ticks1 - ticks0) as f64 * 10.0 / (live_secs / round.as_secs_f64()),
        hidden_tab,
    }
}
