//! The browser view in Chinese, in headless Chromium: asked for with `?lang=zh-CN` (the page's
//! switch, remembered in localStorage) and by a browser whose languages are zh-TW. Headings,
//! column titles and the why pane are the catalogues' words; with CJK process names, users and
//! model files nothing overflows the table's box or the page, at 1440×900 and on a phone.
//! Screenshots under `target/web-screenshots/` (`lang-zh-CN-*.png`, `lang-zh-TW-*.png`).

use crate::serve_support::*;
use crate::support::*;
use crate::web_support::*;
use gpuledger_lang::Lang;
use serde_json::{json, Value};
use std::path::PathBuf;
use std::time::Duration;

const WAIT: Duration = Duration::from_secs(30);

/// The sample snapshot with CJK names: a user 张三, processes and a model file named in Chinese.
fn cjk_sample(dir: &tempfile::TempDir) -> PathBuf {
    let root = PathBuf::from(env!("CARGO_MANIFEST_DIR")).join("../..");
    let text = std::fs::read_to_string(root.join("examples/sample-snapshot.json")).unwrap();
    let mut s: Value = serde_json::from_str(&text).unwrap();
    for p in s["processes"].as_array_mut().unwrap() {
        if p["user"] == "alice" {
            p["user"] = json!("张三");
        }
        if p["name"] == "python3" {
            p["name"] = json!("训练脚本-通义千问微调");
            p["cmdline"] = json!([
                "python3",
                "/home/张三/通义千问-7B-Chat/微调训练.py",
                "--配置",
                "lora.yaml"
            ]);
        }
        if p["pid"] == 4242 {
            let model = "/models/通义千问-7B-Chat.Q4_K_M.gguf";
            p["workload"]["model"] = json!(model);
            p["cmdline"][2] = json!(model);
        }
    }
    let path = dir.path().join("样本快照.json");
    std::fs::write(&path, s.to_string()).unwrap();
    path
}

/// The page's language, headings, table heading, and what is wider than its box.
const READ: &str = r#"
const t = (e) => (e ? e.textContent.trim() : null);
const q = (s) => [...document.querySelectorAll(s)];
const box = document.querySelector('#procs').parentElement;
const wide = q('body *').filter((e) => { const r = e.getBoundingClientRect(); return r.width > 0 && r.right > window.innerWidth + 0.5; })
  .map((e) => e.tagName + '.' + e.className + ' ' + (e.textContent || '').slice(0, 40));
return {
  lang: document.documentElement.lang,
  h2: q('main h2').map((h) => t(h.firstChild.nodeType === 3 ? h : h.firstElementChild)),
  head: q('#procs thead th').map((th) => t(th).replace(/ [▲▼]$/, '')),
  why: t(document.querySelector('#why .col.measured h4')),
  curves: q('figure.chart').map((f) => t(f.querySelector('.legend .lab'))),
  body: document.body.innerText,
  scroll: [box.scrollWidth, box.clientWidth],
  page: [document.documentElement.scrollWidth, window.innerWidth],
  wide,
};"#;

/// Load `url` (or follow where the page goes itself) and wait for its first render.
fn rendered(b: &Browser, url: Option<&str>) -> Value {
    if let Some(u) = url {
        b.goto(u);
    }
    b.wait_for(
        "the first render",
        "return document.documentElement.dataset.renders >= 1",
        WAIT,
    );
    b.exec(READ, json!([]))
}

/// In `lang`: the headings and columns are the catalogues', no English heading is left, and
/// nothing is wider than its box.
fn check(page: &Value, lang: Lang, at: &str) {
    assert_eq!(page["lang"], lang.code(), "{at}");
    let h2: Vec<String> = [
        "page-devices",
        "page-processes",
        "page-why-heading",
        "page-curves-heading",
        "page-notes-heading",
    ]
    .iter()
    .map(|k| lang.t(k))
    .collect();
    assert_eq!(page["h2"], json!(h2), "{at}");
    let head: Vec<String> = [
        "report-col-pid",
        "report-col-user",
        "report-col-name",
        "report-col-workload",
        "report-col-gpu",
        "report-col-memory",
        "report-col-source",
        "report-col-sm-pct",
        "report-col-command",
    ]
    .iter()
    .map(|k| lang.t(k))
    .collect();
    assert_eq!(page["head"], json!(head), "{at}");
    assert_eq!(
        page["why"],
        lang.t("page-col-measured") + " " + &lang.t("page-col-measured-by")
    );
    let used = |gpu: &str| lang.t_args("page-curve-used", &[("gpu", gpu.into())]);
    assert_eq!(page["curves"], json!([used("0"), used("1")]), "{at}");
    let body = page["body"].as_str().unwrap();
    // The page's own words (the snapshot's notes and the sources' details are the collection's
    // text, the same in every view).
    for english in [
        "Devices",
        "Processes",
        "Why this much",
        "Measured",
        "Reported",
        "Estimated",
        "Evidence",
        "Notes and",
        "Filter",
        "card total",
        "Sources",
    ] {
        assert!(!body.contains(english), "{at}: still English: {english}");
    }
    // The sources, as `gpuledger snapshot` words them in the language.
    let ok = lang.t("report-source-ok");
    let line = lang.t_args(
        "report-source-line",
        &[("state", ok.into()), ("detail", "".into())],
    );
    assert!(
        body.contains(&format!("nvml {line}")),
        "{at}: no `nvml {line}`"
    );
    for cjk in ["张三", "通义千问"] {
        assert!(body.contains(cjk), "{at}: {cjk} not shown");
    }
    let (sw, cw) = (&page["scroll"][0], &page["scroll"][1]);
    assert!(
        sw.as_f64() <= cw.as_f64(),
        "{at}: the table overflows its box: {sw} > {cw}"
    );
    let (pw, iw) = (&page["page"][0], &page["page"][1]);
    assert!(
        pw.as_f64() <= iw.as_f64(),
        "{at}: the page is wider than the window: {pw} > {iw}"
    );
    assert_eq!(page["wide"], json!([]), "{at}: wider than the window");
}

/// Desktop then phone, a screenshot of each.
fn check_sizes(b: &Browser, lang: Lang) {
    let dir = screenshot_dir();
    for (w, h, mobile, name) in [(1440, 900, false, "desktop"), (390, 844, true, "phone")] {
        b.viewport(w, h, mobile);
        b.wait_for(
            "the size",
            &format!("return window.innerWidth === {w}"),
            WAIT,
        );
        std::thread::sleep(Duration::from_millis(400)); // cards and curves are redrawn after a resize
        b.click("#procs tbody tr[data-pid='4242']");
        let page = b.exec(READ, json!([]));
        check(&page, lang, &format!("{} {w}×{h}", lang.code()));
        b.screenshot(&dir.join(format!("lang-{}-{name}.png", lang.code())), false);
        b.screenshot(
            &dir.join(format!("lang-{}-{name}-full.png", lang.code())),
            true,
        );
    }
    let errors: Vec<_> = b.log().into_iter().filter(|(l, _)| l == "SEVERE").collect();
    assert!(errors.is_empty(), "console errors: {errors:?}");
}

#[test]
fn the_page_in_simplified_chinese_by_its_switch_and_remembered() {
    let Some(b) = browser_or_skip("the_page_in_simplified_chinese_by_its_switch_and_remembered")
    else {
        return;
    };
    let dir = tempfile::tempdir().unwrap();
    let file = cjk_sample(&dir);
    let s = start_serving(gpuledger_command().arg("--replay").arg(&file).args([
        "serve",
        "--listen",
        "127.0.0.1:0",
    ]));
    let base = format!("http://{}/", s.addr);
    // An English browser gets English; the switch offers the three languages.
    b.viewport(1440, 900, false);
    let en = rendered(&b, Some(&base));
    assert_eq!(en["lang"], "en");
    assert_eq!(en["head"][5], "MEMORY");
    let options = b.exec(
        "return [...document.querySelectorAll('#lang option')].map((o) => o.value)",
        json!([]),
    );
    assert_eq!(options, json!(["en", "zh-CN", "zh-TW"]));

    let page = rendered(&b, Some(&format!("{base}?lang=zh-CN")));
    check(&page, Lang::ZhCn, "zh-CN");
    check_sizes(&b, Lang::ZhCn);

    // Chosen on the switch: the page comes again in that language, and stays so on a plain visit.
    b.viewport(1440, 900, false);
    b.exec(
        "const s = document.getElementById('lang'); s.value = 'zh-TW'; s.dispatchEvent(new Event('change'));",
        json!([]),
    );
    std::thread::sleep(Duration::from_millis(1500)); // the page is loaded again
    b.wait_for("the page in zh-TW", "return document.documentElement.lang === 'zh-TW' && document.documentElement.dataset.renders >= 1", WAIT);
    b.goto(&base);
    std::thread::sleep(Duration::from_millis(1500)); // and once more, in the kept language
    b.wait_for("the remembered language", "return document.documentElement.lang === 'zh-TW' && document.documentElement.dataset.renders >= 1", WAIT);
    check(&rendered(&b, None), Lang::ZhTw, "zh-TW, remembered");
    let url = b.exec("return location.search", json!([]));
    assert_eq!(url, "?lang=zh-TW");
}

#[test]
fn the_page_follows_a_browser_that_reads_traditional_chinese() {
    let Some(b) = browser_in_or_skip(
        "the_page_follows_a_browser_that_reads_traditional_chinese",
        "zh-TW,zh",
    ) else {
        return;
    };
    let dir = tempfile::tempdir().unwrap();
    let file = cjk_sample(&dir);
    // The server's --lang is only the fallback: the browser's language wins.
    let s = start_serving(
        gpuledger_command()
            .args(["--lang", "zh-CN", "--replay"])
            .arg(&file)
            .args(["serve", "--listen", "127.0.0.1:0"]),
    );
    b.viewport(1440, 900, false);
    let langs = rendered(&b, Some(&format!("http://{}/", s.addr)));
    let navigator = b.exec("return navigator.languages[0]", json!([]));
    assert_eq!(navigator, "zh-TW", "the browser's languages");
    check(&langs, Lang::ZhTw, "zh-TW");
    check_sizes(&b, Lang::ZhTw);
    // The snapshot is the same bytes whatever the page's language.
    let plain = get(s.addr, "/api/v1/snapshot").body;
    let asked = get(s.addr, "/api/v1/snapshot?lang=zh-TW").body;
    assert_eq!(plain, asked);
}

/// A live machine (an Ollama runner on the fake GPU, its model's GGUF header read): the why
/// pane's evidence, what was not found and why there is no answer from the runtime are the
/// catalogue's sentences in Chinese, from `/api/v1/said`, while `/api/v1/snapshot` keeps the
/// English. Screenshot `lang-zh-CN-live-why.png`.
#[test]
fn a_live_process_s_evidence_and_estimate_speak_chinese_on_the_page() {
    let Some(b) =
        browser_or_skip("a_live_process_s_evidence_and_estimate_speak_chinese_on_the_page")
    else {
        return;
    };
    let (_d, m) = crate::explain_ollama::ollama(crate::explain_ollama::RUNNER);
    let s = start_serving(&mut m.command(&["serve", "--listen", "127.0.0.1:0"]));
    b.viewport(1440, 900, false);
    rendered(&b, Some(&format!("http://{}/?lang=zh-CN", s.addr)));
    b.click("#procs tbody tr[data-pid='4242']");
    std::thread::sleep(Duration::from_millis(400));
    let body = b.exec("return document.body.innerText", json!([]));
    let body = body.as_str().unwrap();
    b.screenshot(&screenshot_dir().join("lang-zh-CN-live-why.png"), true);
    for says in [
        "ollama（PID 900）",
        "llama.cpp / ggml 库 /usr/local/lib/ollama/cuda_v12/libggml-cuda.so",
        "`ollama runner`，模型 ",
        "其进程标题 `ollama`；工作负载的根进程是 PID 900",
        "Ollama 运行器 · qwen3:8b · 运行器",
    ] {
        assert!(body.contains(says), "{says}\n{body}");
    }
    for english in ["ggml library", "parent chain", "`ollama runner` for model"] {
        assert!(!body.contains(english), "still English: {english}\n{body}");
    }
    let snap = get(s.addr, "/api/v1/snapshot?lang=zh-CN").body;
    assert!(snap.contains("llama.cpp / ggml library"), "{snap}");
    assert!(!snap.contains("ggml 库"));
}
