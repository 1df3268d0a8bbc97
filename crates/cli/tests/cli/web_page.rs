//! The browser view in a real browser (headless Chromium through chromedriver): every figure the
//! page shows equals the JSON API's, formatted by the same rules as the terminal views; a
//! process's why; sorting, filtering and the keyboard; the phone layout; light and dark; no
//! console error; screenshots under `target/web-screenshots/`. Then a live server: the page
//! follows it, stops polling while hidden, and survives the server restarting.

use crate::serve_support::*;
use crate::support::*;
use crate::web_support::axe::{axe_or_skip, serious_violations};
use crate::web_support::cpu::{per_update, renders};
use crate::web_support::*;
use gpuledger_model::units::{human_bytes, human_opt};
use gpuledger_model::{bar_fraction, Process, Snapshot};
use serde_json::{json, Value};
use std::net::SocketAddr;
use std::path::{Path, PathBuf};
use std::time::Duration;

const WAIT: Duration = Duration::from_secs(30);

fn repo_root() -> PathBuf {
    PathBuf::from(env!("CARGO_MANIFEST_DIR")).join("../..")
}

fn sample() -> PathBuf {
    repo_root().join("examples/sample-snapshot.json")
}

/// What the page shows, read from the DOM as text.
pub(crate) const READ_PAGE: &str = r#"
const t = (e) => (e ? e.textContent : null);
const q = (s, r) => [...(r || document).querySelectorAll(s)];
const banner = document.getElementById('replay');
return {
  host: t(document.getElementById('host')),
  banner: banner.hidden ? null : t(banner),
  cards: q('.card').map((c) => ({
    gpu: Number(c.dataset.gpu), title: t(c.querySelector('h3')), used: t(c.querySelector('.used')),
    share: t(c.querySelector('.share')),
    legend: q('.legend li', c).map((li) => [t(li.querySelector('.lab')), t(li.querySelector('.num'))]),
    bars: q('svg.ledger rect:not(.track)', c).map((r) => [r.getAttribute('class').split(' ')[0], Number(r.getAttribute('width')), r.dataset.pid ? Number(r.dataset.pid) : null]),
    barPx: c.querySelector('svg.ledger').getBoundingClientRect().width,
    stats: Object.fromEntries(q('.stats div', c).map((d) => [d.className, t(d.querySelector('dd'))])),
  })),
  head: q('#procs thead th').filter((th) => getComputedStyle(th).display !== 'none').map((th) => t(th).replace(/ [▲▼]$/, '')),
  sorted: q('#procs thead th').map((th) => th.getAttribute('aria-sort')),
  source: t(document.getElementById('procs-source')),
  rows: q('#procs tbody tr[data-key]').map((tr) => Object.fromEntries(q('td', tr).map((td) => [td.dataset.col, t(td)]))),
  notes: q('#notes li').map(t),
  sources: q('#sources li').map(t),
  charts: q('figure.chart').map((f) => ({ gpu: Number(f.dataset.gpu), lines: q('polyline', f).length,
    dots: q('circle', f).length, legend: q('li', f).map((li) => [t(li.querySelector('.lab')), t(li.querySelector('.num'))]) })),
};"#;

/// The why pane, read as text.
pub(crate) const READ_WHY: &str = r#"
const t = (e) => (e ? e.textContent : null);
const w = document.getElementById('why');
const figs = (s) => [...w.querySelectorAll(s + ' .fig')].map((f) => [t(f.querySelector('b')), t(f.querySelector('span'))]);
return {
  head: t(w.querySelector('h3')), workload: t(w.querySelector('.workload')),
  measured: figs('.col.measured'), reported: figs('.col.reported'), estimated: figs('.col.estimated'),
  recipe: t(w.querySelector('.col.estimated .src')), estimatedText: t(w.querySelector('.col.estimated')),
  parts: [...w.querySelectorAll('.parts-legend li')].map((li) => [t(li.querySelector('.lab')), t(li.querySelector('.num'))]),
  sentence: t(w.querySelector('.sentence')),
  evidence: [...w.querySelectorAll('.evidence li')].map(t),
  selected: [...document.querySelectorAll('#procs tr[aria-selected="true"]')].map((tr) => Number(tr.dataset.pid)),
  focused: document.activeElement && document.activeElement.dataset ? Number(document.activeElement.dataset.pid) : null,
};"#;

/// The page's weight: HTML + script + stylesheet + icon as served.
fn page_weight(addr: SocketAddr) -> usize {
    ["/", "/app.js", "/app.css", "/icon.svg"]
        .iter()
        .map(|p| {
            let r = get(addr, p);
            assert_eq!(r.status, 200, "{p}");
            assert!(r.head.contains("X-Content-Type-Options: nosniff"));
            assert!(r.head.contains(
                "Content-Security-Policy: default-src 'self'; script-src 'self'; style-src 'self';"
            ));
            r.body.len()
        })
        .sum()
}

/// The table's rows as the snapshot says they must read: one per process and device, largest
/// memory first (unknown last), then by pid.
fn expected_rows(s: &Snapshot) -> Vec<Value> {
    let mut rows: Vec<(&Process, &gpuledger_model::Usage)> = s
        .processes
        .iter()
        .flat_map(|p| p.usage.iter().map(move |u| (p, u)))
        .collect();
    rows.sort_by_key(|(p, u)| {
        (
            std::cmp::Reverse(u.memory_bytes.map_or(-1, |b| b as i128)),
            p.pid,
        )
    });
    rows.iter()
        .map(|(p, u)| {
            json!({
                "pid": p.pid.to_string(),
                "user": p.user.clone().unwrap_or("n/a".into()),
                "name": p.display_name(),
                "workload": p.workload.as_ref().map_or("n/a".into(), |w| w.short_label()),
                "gpu": s.device_by_uuid(&u.device).unwrap().index.to_string(),
                "mem": human_opt(u.memory_bytes),
                "source": u.memory_source,
                "util": u.engines.sm_percent.map_or("n/a".into(), |v| format!("{v}%")),
                "cmd": p.cmdline.as_ref().map(|c| c.join(" ")).or(p.exe.clone()).unwrap_or("n/a".into()),
            })
        })
        .collect()
}

/// Each card: memory, the ledger bar (widths by the model's own normalisation rule), the legend
/// with raw labels, and the device figures.
pub(crate) fn check_cards(page: &Value, s: &Snapshot) {
    let cards = page["cards"].as_array().unwrap();
    assert_eq!(cards.len(), s.devices.len());
    for (c, d) in cards.iter().zip(&s.devices) {
        assert_eq!(c["gpu"], d.index);
        assert_eq!(
            c["title"],
            format!("GPU{} {}", d.index, d.name.as_deref().unwrap())
        );
        let (used, total) = (d.memory.used_bytes.unwrap(), d.memory.total_bytes.unwrap());
        assert_eq!(
            c["used"],
            format!("{} / {}", human_bytes(used), human_bytes(total))
        );
        assert_eq!(
            c["share"],
            format!(" ({:.0}%)", used as f64 * 100.0 / total as f64)
        );
        let mut on: Vec<(&Process, Option<u64>)> = s
            .processes
            .iter()
            .flat_map(|p| {
                p.usage
                    .iter()
                    .filter(|u| u.device == d.uuid)
                    .map(move |u| (p, u.memory_bytes))
            })
            .collect();
        on.sort_by_key(|(p, b)| (std::cmp::Reverse(b.map_or(-1, |b| b as i128)), p.pid));
        check_legend(c, d, &on);
        check_bar(c, d, &on);
        let stats = &c["stats"];
        assert_eq!(
            stats["gpu"],
            format!("{}%", d.utilization.gpu_percent.unwrap())
        );
        assert_eq!(
            stats["membw"],
            format!("{}%", d.utilization.memory_percent.unwrap())
        );
        assert_eq!(stats["temp"], format!("{}°C", d.temperature_c.unwrap()));
        let w = |v: Option<f64>| format!("{:.0} W", v.unwrap());
        assert_eq!(
            stats["power"],
            format!("{} / {}", w(d.power.usage_watts), w(d.power.limit_watts))
        );
        assert_eq!(stats["attributed"], human_bytes(d.ledger.attributed_bytes));
    }
}

/// The legend: the largest processes by name, raw figures; the rest as one "others" line
/// that counts and sums them; then the unattributed row.
fn check_legend(c: &Value, d: &gpuledger_model::Device, on: &[(&Process, Option<u64>)]) {
    let legend = c["legend"].as_array().unwrap();
    // No others line: every process by name; otherwise all but the others and unattributed lines.
    let named = if legend.len() == on.len() + 1 {
        on.len()
    } else {
        legend.len() - 2
    };
    // A workload's member is named by its runtime and role, the others by their names.
    let name = |p: &Process| match p.workload.as_deref() {
        Some(w) if w.member.is_some() => {
            format!("{} {}", w.kind.label(), w.member.as_ref().unwrap().role)
        }
        _ => p.display_name().to_string(),
    };
    let mut want: Vec<Value> = on[..named]
        .iter()
        .map(|(p, b)| json!([format!("{} ({})", name(p), p.pid), human_opt(*b)]))
        .collect();
    if named < on.len() {
        let rest = &on[named..];
        assert!(rest.len() >= 2, "an others line of one: {legend:?}");
        let unknown = rest.iter().filter(|(_, b)| b.is_none()).count();
        let sum: u64 = rest.iter().filter_map(|(_, b)| *b).sum();
        let tail = if unknown > 0 {
            format!(", {unknown} of them n/a")
        } else {
            String::new()
        };
        want.push(json!([
            format!("others ({} processes{tail})", rest.len()),
            human_bytes(sum)
        ]));
    }
    want.push(json!([
        "unattributed (driver, system, other users, unknown processes)",
        human_opt(d.ledger.unattributed_bytes)
    ]));
    assert_eq!(c["legend"], json!(want), "GPU{} legend", d.index);
}

/// The bar: drawn widths add up to the used share within 1 px (no used memory drawn as free);
/// a named segment is its process's share (the model's `bar_fraction`), or the minimum width
/// when it is narrower; unattributed last.
fn check_bar(c: &Value, d: &gpuledger_model::Device, on: &[(&Process, Option<u64>)]) {
    let bars = c["bars"].as_array().unwrap();
    let px = c["barPx"].as_f64().unwrap();
    let sum: f64 = bars.iter().map(|b| b[1].as_f64().unwrap()).sum::<f64>() / 1000.0;
    let used = bar_fraction(d.memory.used_bytes.unwrap(), d).unwrap();
    assert!(
        (sum - used).abs() * px <= 1.0,
        "GPU{}: drawn {sum} of the bar, used {used}: {bars:?}",
        d.index
    );
    let min = 3.0 / px;
    for bar in bars.iter().filter(|b| !b[2].is_null()) {
        let (_, bytes) = on.iter().find(|(p, _)| u64::from(p.pid) == bar[2]).unwrap();
        let frac = bar_fraction(bytes.unwrap(), d).unwrap();
        let w = bar[1].as_f64().unwrap() / 1000.0;
        assert!(
            (w - frac.max(min)).abs() < 1e-4,
            "GPU{} segment {bar}: {w} vs {frac}",
            d.index
        );
    }
    assert_eq!(bars.last().unwrap()[0], "unattr");
}

/// The NOTES section of `gpuledger snapshot` on the same file: the page must say the same.
fn table_notes() -> Vec<String> {
    let out = gpuledger_command()
        .arg("--replay")
        .arg(sample())
        .arg("snapshot")
        .output()
        .unwrap();
    let text = String::from_utf8(out.stdout).unwrap();
    text.split("NOTES AND WHAT WAS NOT SEEN\n")
        .nth(1)
        .expect("a notes section")
        .lines()
        .map_while(|l| l.strip_prefix("  - "))
        .map(str::to_string)
        .collect()
}

fn check_why_of_llama(b: &Browser, p: &Process) {
    let why = b.exec(READ_WHY, json!([]));
    let e = p.estimate.as_ref().unwrap();
    let w = p.workload.as_ref().unwrap();
    assert_eq!(why["selected"], json!([p.pid]));
    assert_eq!(
        why["head"],
        format!(
            "{} pid {} · {}",
            p.display_name(),
            p.pid,
            p.user.as_deref().unwrap()
        )
    );
    assert_eq!(why["workload"], w.short_label());
    let u = &p.usage[0];
    assert_eq!(
        why["measured"],
        json!([[human_opt(u.memory_bytes), "GPU0 · nvml"]])
    );
    // One message per language, the dash inside the English one (no figure).
    assert_eq!(
        why["reported"],
        json!([[null, "— nothing recorded"]]),
        "{why}"
    );
    assert_eq!(why["estimated"], json!([[e.total_text(), "total GPU"]]));
    assert_eq!(
        why["recipe"],
        format!("{} · context {}", e.recipe, e.n_ctx.unwrap())
    );
    assert_eq!(
        why["parts"],
        json!([
            ["weights", human_bytes(e.weights_gpu_bytes)],
            ["KV cache", human_opt(e.kv_cache_gpu_bytes)],
            ["compute buffers", human_opt(e.compute_gpu_bytes)],
            ["overhead", human_opt(e.overhead_gpu_bytes)],
        ])
    );
    assert_eq!(
        why["sentence"],
        format!("Why: {}", e.why.as_deref().unwrap())
    );
    let mut evidence: Vec<String> = w
        .evidence
        .iter()
        .map(|ev| {
            format!(
                "{}: {} — {}",
                ev.kind.label(),
                ev.shown(gpuledger_lang::Lang::En),
                ev.source
            )
        })
        .collect();
    evidence.extend(w.missing.iter().map(|m| format!("missing: {m}")));
    assert_eq!(why["evidence"], json!(evidence));
}

/// Sorting by a heading, filtering, and the keyboard: ↓ moves, Enter shows the why.
fn check_table_controls(b: &Browser, s: &Snapshot) {
    let pids = |b: &Browser| -> Vec<u64> {
        b.exec(READ_PAGE, json!([]))["rows"]
            .as_array()
            .unwrap()
            .iter()
            .map(|r| r["pid"].as_str().unwrap().parse().unwrap())
            .collect()
    };
    let mut all: Vec<u64> = s.processes.iter().map(|p| u64::from(p.pid)).collect();
    all.sort();
    b.click("#procs th button[data-key='pid']");
    assert_eq!(
        pids(b),
        all.iter().rev().copied().collect::<Vec<_>>(),
        "PID, largest first"
    );
    b.click("#procs th button[data-key='pid']");
    assert_eq!(pids(b), all, "PID again: ascending");
    b.click("#procs th button[data-key='mem']");
    let page = b.exec(READ_PAGE, json!([]));
    assert_eq!(page["sorted"][5], "descending", "{}", page["sorted"]);

    b.keys("#filter", "alice");
    let alice: Vec<u64> = s
        .processes
        .iter()
        .filter(|p| p.user.as_deref() == Some("alice"))
        .map(|p| u64::from(p.pid))
        .collect();
    let mut shown = pids(b);
    shown.sort();
    assert_eq!(shown, alice);
    b.press("\u{E00C}"); // Escape clears the filter
    assert_eq!(pids(b).len(), expected_rows(s).len());

    // The first row (the largest) is clicked; ↓ moves to the second, Enter shows its why.
    let rows = expected_rows(s);
    b.click("#procs tbody tr[data-key]");
    b.press("\u{E015}");
    let second: u64 = rows[1]["pid"].as_str().unwrap().parse().unwrap();
    let why = b.exec(READ_WHY, json!([]));
    assert_eq!(why["focused"], second, "↓ moved the focus");
    assert_eq!(
        why["selected"],
        json!([rows[0]["pid"].as_str().unwrap().parse::<u64>().unwrap()])
    );
    b.press("\u{E007}");
    let why = b.exec(READ_WHY, json!([]));
    assert_eq!(why["selected"], json!([second]));
    assert!(
        why["estimatedText"]
            .as_str()
            .unwrap()
            .contains("no estimateNot an AI runtime"),
        "{why}"
    );
}

/// No serious or critical accessibility violation, by axe-core (when installed).
pub(crate) fn check_axe(b: &Browser, axe: Option<&str>, at: &str) {
    if let Some(axe) = axe {
        let bad = serious_violations(b, axe);
        assert!(bad.is_empty(), "axe at {at}: {:#}", json!(bad));
    }
}

/// Console errors, CSP violations, failed loads: none (a message matching `allowed` excepted).
fn check_console(b: &Browser, allowed: &[&str]) {
    let log = b.log();
    for (level, msg) in &log {
        eprintln!("browser log: {level} {msg}");
    }
    let bad: Vec<_> = log
        .iter()
        .filter(|(level, msg)| level == "SEVERE" && !allowed.iter().any(|a| msg.contains(a)))
        .collect();
    assert!(bad.is_empty(), "console errors: {bad:?}");
}

#[test]
fn the_page_shows_the_json_api_figures_in_a_real_browser() {
    let Some(b) = browser_or_skip("the_page_shows_the_json_api_figures_in_a_real_browser") else {
        return;
    };
    // From the repository root, so the page names the file as a user would type it.
    let axe = axe_or_skip("the_page_shows_the_json_api_figures_in_a_real_browser");
    let s = start_serving(gpuledger_command().current_dir(repo_root()).args([
        "--replay",
        "examples/sample-snapshot.json",
        "serve",
        "--listen",
        "127.0.0.1:0",
    ]));
    let snap = gpuledger_model::parse_snapshot(&get(s.addr, "/api/v1/snapshot").body).unwrap();
    let weight = page_weight(s.addr);
    eprintln!("page weight: {weight} bytes (HTML + JS + CSS + icon, uncompressed)");
    assert!(weight < 64 * 1024, "{weight} bytes");

    b.viewport(1280, 800, false);
    b.goto(&format!("http://{}/", s.addr));
    b.wait_for(
        "the first render",
        "return document.documentElement.dataset.renders >= 1",
        WAIT,
    );
    let first = b.exec(
        "return Number(document.documentElement.dataset.firstRenderMs)",
        json!([]),
    );
    eprintln!("time to first render: {first} ms after navigation started");

    let page = b.exec(READ_PAGE, json!([]));
    assert_eq!(page["host"], "on sample-host");
    let banner = page["banner"].as_str().unwrap();
    assert_eq!(banner, "REPLAY of examples/sample-snapshot.json (recorded 2026-11-29T09:00:00Z, not the live machine)");
    check_cards(&page, &snap);
    // Every row reads as the snapshot says; one memory source for all: named once, in the heading.
    assert_eq!(page["source"], " (nvml)");
    assert_eq!(
        page["head"],
        json!(["PID", "USER", "NAME", "WORKLOAD", "GPU", "MEMORY", "SM%", "COMMAND"])
    );
    assert_eq!(page["rows"], json!(expected_rows(&snap)));
    assert_eq!(page["notes"], json!(table_notes()));
    let sources: Vec<String> = snap
        .sources
        .iter()
        .map(|x| {
            format!(
                "{} {}: {}",
                x.name,
                serde_json::to_value(x.status).unwrap().as_str().unwrap(),
                x.detail
            )
        })
        .collect();
    assert_eq!(page["sources"], json!(sources));
    // A replay is one moment: a dot per series, no line, and the legend says so in figures.
    let charts = page["charts"].as_array().unwrap();
    assert_eq!(charts.len(), 2);
    assert_eq!(charts[0]["lines"], 0);
    assert_eq!(
        charts[0]["legend"][0],
        json!(["GPU0 used", human_opt(snap.devices[0].memory.used_bytes)])
    );

    // Select the llama.cpp server: its why, measured, reported and estimated side by side.
    b.click("#procs tbody tr[data-pid='4242']");
    check_why_of_llama(&b, snap.processes.iter().find(|p| p.pid == 4242).unwrap());
    let dir = screenshot_dir();
    b.screenshot(&dir.join("desktop.png"), false);
    b.screenshot(&dir.join("desktop-full.png"), true);
    check_axe(&b, axe.as_deref(), "1280×800");
    b.color_scheme("dark");
    b.screenshot(&dir.join("desktop-dark.png"), false);
    check_axe(&b, axe.as_deref(), "1280×800, dark");
    b.color_scheme("light");

    check_table_controls(&b, &snap);
    b.click("#procs tbody tr[data-pid='4242']");

    // A phone: nothing wider than the screen, memory and GPU % still in the table.
    b.viewport(390, 844, true);
    b.wait_for("the phone layout", "return window.innerWidth === 390", WAIT);
    std::thread::sleep(Duration::from_millis(300)); // the curves are redrawn after a resize
    let fit = b.exec(
        r#"const w = window.innerWidth;
           const cell = (c) => document.querySelector('#procs td[data-col="' + c + '"]').getBoundingClientRect();
           return { page: document.documentElement.scrollWidth, w, mem: cell('mem').right, util: cell('util').right };"#,
        json!([]),
    );
    assert!(
        fit["page"].as_u64() <= fit["w"].as_u64(),
        "wider than the phone: {fit}"
    );
    assert!(
        fit["util"].as_f64().unwrap() <= 390.0,
        "GPU % off screen: {fit}"
    );
    check_cards(&b.exec(READ_PAGE, json!([])), &snap);
    b.screenshot(&dir.join("phone.png"), false);
    check_axe(&b, axe.as_deref(), "390×844");
    b.screenshot(&dir.join("phone-full.png"), true);
    check_console(&b, &[]);
    eprintln!("screenshots in {}", dir.display());
}

/// Serve the snapshot `file` as a replay, open the page at 1280×800 and select `pid`: its why
/// pane is then shown. The server lives as long as what is returned.
fn open_why_of_replay(b: &Browser, file: &Path, pid: u32) -> Served {
    let s = start_serving(gpuledger_command().args(["--replay"]).arg(file).args([
        "serve",
        "--listen",
        "127.0.0.1:0",
    ]));
    b.viewport(1280, 800, false);
    b.goto(&format!("http://{}/", s.addr));
    b.wait_for(
        "the first render",
        "return document.documentElement.dataset.renders >= 1",
        WAIT,
    );
    b.click(&format!("#procs tbody tr[data-pid='{pid}']"));
    s
}

/// An AI process no recipe models (Ollama's Go engine): the page gives collection's reason and
/// the runtime's own figures, in the Reported column, never as an estimate.
#[test]
fn a_process_without_an_estimate_shows_why_and_the_runtimes_figures() {
    let Some(b) =
        browser_or_skip("a_process_without_an_estimate_shows_why_and_the_runtimes_figures")
    else {
        return;
    };
    let mut v: Value = serde_json::from_str(&std::fs::read_to_string(sample()).unwrap()).unwrap();
    let p = process_mut(&mut v, 4242);
    p.as_object_mut().unwrap().remove("estimate");
    p["no_estimate"] = json!({
        "why": "Ollama's own Go engine allocates its weights, KV cache and graph itself; no recipe models it",
        "reported": [{"what": "size_vram", "bytes": 7335301120u64, "source": "GET http://127.0.0.1:11434/api/ps"}],
    });
    let d = tempfile::tempdir().unwrap();
    let file = d.path().join("go-engine.json");
    std::fs::write(&file, v.to_string()).unwrap();
    let _s = open_why_of_replay(&b, &file, 4242);
    let why = b.exec(READ_WHY, json!([]));
    assert_eq!(why["reported"], json!([["6.83 GiB", "size_vram"]]), "{why}");
    let text = why["estimatedText"].as_str().unwrap();
    assert!(
        text.contains("no estimate") && text.contains("no recipe models it"),
        "{why}"
    );
    b.screenshot(&screenshot_dir().join("no-estimate.png"), false);
    check_console(&b, &[]);
}

/// A large measured-vs-estimated gap, in the issue's Ollama figures (8.38 GiB measured against
/// a 12.4 GiB estimate whose weights alone are 10.7 GiB) set on the sample's process: the why
/// pane writes the sentence and likely cause that `gpuledger snapshot` writes for it, the
/// server having found both (`estimate_gaps`, the words' `gap`), none re-derived in the page.
#[test]
fn a_large_gap_is_written_with_its_cause_as_the_table_writes_it() {
    let Some(b) = browser_or_skip("a_large_gap_is_written_with_its_cause_as_the_table_writes_it")
    else {
        return;
    };
    const GIB: f64 = (1u64 << 30) as f64;
    let g = |x: f64| (x * GIB) as u64;
    let mut v: Value = serde_json::from_str(&std::fs::read_to_string(sample()).unwrap()).unwrap();
    let p = process_mut(&mut v, 4242);
    p["usage"][0]["memory_bytes"] = json!(g(8.38));
    let e = &mut p["estimate"];
    let rest = e["compute_gpu_bytes"].as_u64().unwrap() + e["overhead_gpu_bytes"].as_u64().unwrap();
    e["weights_gpu_bytes"] = json!(g(10.7));
    e["kv_cache_gpu_bytes"] = json!(g(12.4) - g(10.7) - rest);
    e["total_gpu_bytes"] = json!(g(12.4));
    let d = tempfile::tempdir().unwrap();
    let file = d.path().join("gap.json");
    std::fs::write(&file, v.to_string()).unwrap();
    // What the table writes for it: the one sentence every text view shares.
    let out = gpuledger_command()
        .arg("--replay")
        .arg(&file)
        .arg("snapshot")
        .output()
        .unwrap();
    let text = String::from_utf8(out.stdout).unwrap();
    let table = text
        .lines()
        .filter_map(|l| l.strip_prefix("  pid 4242: "))
        .find(|l| l.starts_with("measured "))
        .unwrap_or_else(|| panic!("no gap line in the table:\n{text}"))
        .to_string();
    assert!(
        table.contains("below the estimated weights alone"),
        "{table}"
    );
    let _s = open_why_of_replay(&b, &file, 4242);
    let gaps = b.exec(
        "return [...document.querySelectorAll('#why .gap')].map((e) => e.textContent);",
        json!([]),
    );
    assert_eq!(gaps, json!([table]));
    // A process with a small gap shows none.
    b.click("#procs tbody tr[data-pid='5151']");
    let gaps = b.exec(
        "return document.querySelectorAll('#why .gap').length;",
        json!([]),
    );
    assert_eq!(gaps, json!(0));
    b.click("#procs tbody tr[data-pid='4242']");
    b.screenshot(&screenshot_dir().join("gap.png"), false);
    check_console(&b, &[]);
}

/// A scenario line edited: GPU0's used memory.
fn with_gpu0_used(used: u64) -> String {
    TWO_GPUS
        .lines()
        .map(|l| {
            if l.starts_with("device|index=0|") {
                l.split('|')
                    .map(|f| {
                        if f.starts_with("used=") {
                            format!("used={used}")
                        } else {
                            f.to_string()
                        }
                    })
                    .collect::<Vec<_>>()
                    .join("|")
            } else {
                l.to_string()
            }
        })
        .collect::<Vec<_>>()
        .join("\n")
        + "\n"
}

#[cfg(target_os = "linux")]
#[test]
fn the_page_follows_a_live_server_pauses_when_hidden_and_survives_a_restart() {
    let Some(b) =
        browser_or_skip("the_page_follows_a_live_server_pauses_when_hidden_and_survives_a_restart")
    else {
        return;
    };
    let m = Machine::two_gpus();
    let port = free_port();
    let listen = format!("127.0.0.1:{port}");
    let serve =
        || start_serving(&mut m.command(&["serve", "--listen", &listen, "--interval", "250ms"]));
    let s = serve();
    b.viewport(1280, 800, false);
    b.goto(&format!("http://{}/", s.addr));
    b.wait_for(
        "five samples",
        "const m = /(\\d+) samples/.exec(document.querySelector('figure.chart')?.textContent || ''); return !!m && Number(m[1]) >= 5",
        WAIT,
    );
    assert!(
        b.exec(
            "return document.querySelectorAll('figure.chart polyline.used').length",
            json!([])
        ) == 2
    );
    let text = b.exec("return document.body.textContent", json!([]));
    assert!(
        !text.as_str().unwrap().contains("SECRET"),
        "the page shows what the API shows: redacted"
    );

    // The machine changes; the page follows at the collection interval.
    m.set_scenario(&with_gpu0_used(60_000_000_000));
    let want = format!("{} / ", human_bytes(60_000_000_000));
    b.wait_for(
        "the new used memory",
        &format!("return document.querySelector('.card .used').textContent.startsWith('{want}')"),
        WAIT,
    );

    // Focus on a sort heading and the selection survive refreshes.
    b.click("#procs tbody tr[data-pid='5151']");
    b.exec(
        "document.querySelector(\"#procs th button[data-key='user']\").focus()",
        json!([]),
    );
    let at = renders(&b);
    b.wait_for(
        "three refreshes",
        &format!(
            "return Number(document.documentElement.dataset.renders) >= {}",
            at + 3
        ),
        WAIT,
    );
    let kept = b.exec(
        "const a = document.activeElement; return [a.tagName, a.dataset.key, [...document.querySelectorAll('#procs tr[aria-selected=\"true\"]')].map((tr) => Number(tr.dataset.pid))]",
        json!([]),
    );
    assert_eq!(kept, json!(["BUTTON", "user", [5151]]), "after 3 refreshes");

    // Per update: what the page and serve cost. Hidden meanwhile (another tab in front): no
    // polling, so no render; shown again: it resumes at once.
    b.exec("window.__vis = []; document.addEventListener('visibilitychange', () => window.__vis.push([document.visibilityState, Number(document.documentElement.dataset.renders)]))", json!([]));
    let round = Duration::from_millis(250);
    let c = per_update(&b, s.guard.0.id(), Duration::from_secs(5), round);
    eprintln!(
        "per update ({} renders): the page {:.1} ms of Chromium CPU (main thread: {:.1} ms script, style and layout; \
         Chromium idle {:.0} ms/s not counted); serve {:.2} ms CPU per 250 ms round (fake NVML, 2 GPUs)",
        c.renders, c.page_ms, c.main_ms, c.idle_ms_per_s, c.serve_ms
    );
    let first = c.hidden_tab;
    b.show_tab(&first);
    b.screenshot(&screenshot_dir().join("desktop-live.png"), true);
    let vis = b.exec("return window.__vis", json!([]));
    assert_eq!(vis[0][0], "hidden", "{vis}");
    assert_eq!(vis[1][0], "visible", "{vis}");
    assert_eq!(vis[0][1], vis[1][1], "rendered while hidden: {vis}");
    let shown_at = vis[1][1].as_u64().unwrap();
    b.wait_for(
        "polling again",
        &format!("return Number(document.documentElement.dataset.renders) > {shown_at}"),
        WAIT,
    );
    check_console(&b, &[]);

    // serve stops: the page keeps the last snapshot and says so; serve is back: so is the page.
    drop(s);
    b.wait_for(
        "the page to notice",
        "return document.getElementById('status').classList.contains('bad')",
        WAIT,
    );
    assert!(
        b.exec(
            "return document.querySelectorAll('.card').length",
            json!([])
        ) == 2,
        "last snapshot kept"
    );
    let before = renders(&b);
    let _s2 = serve();
    b.wait_for("the page to recover", &format!("return !document.getElementById('status').classList.contains('bad') && Number(document.documentElement.dataset.renders) > {before}"), WAIT);
    let status = b.exec(
        "return document.getElementById('status').textContent",
        json!([]),
    );
    assert!(
        status.as_str().unwrap().starts_with("live · every 0.25 s"),
        "{status}"
    );
    // While serve was away, the browser logged the refused connections (and, when serve stopped
    // with a request of the page in flight, that socket's end), and nothing else.
    check_console(&b, &["ERR_CONNECTION_REFUSED", "ERR_SOCKET_NOT_CONNECTED"]);
}
