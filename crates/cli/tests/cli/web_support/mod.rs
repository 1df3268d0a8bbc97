//! A headless Chromium for the browser view's tests, driven through chromedriver's WebDriver
//! HTTP interface with the workspace's own HTTP client (ureq) and serde_json: a handful of
//! commands, no WebDriver crate and no async runtime to build. Chromium's DevTools commands go
//! through chromedriver's `goog/cdp/execute` (device metrics, colour scheme, CPU metrics).
//!
//! Chromium and chromedriver come from Debian (`.ci/setup-chromium.sh`). Where they are missing
//! the tests skip with the reason; with `CI=true` they fail instead.
#![allow(dead_code)]

pub mod axe;
pub mod cpu;

use crate::serve_support::{free_port, Guard};
use serde_json::{json, Value};
use std::path::{Path, PathBuf};
use std::process::{Command, Stdio};
use std::time::{Duration, Instant};

/// Find a program on PATH.
fn which(name: &str) -> Option<PathBuf> {
    std::env::var_os("PATH")?
        .to_str()?
        .split(':')
        .map(|d| Path::new(d).join(name))
        .find(|p| p.is_file())
}

/// `Some(driver)`, or `None` after printing why the browser tests cannot run here (a failure
/// under `CI=true`, where `.ci/setup-chromium.sh` installed both programs).
pub fn browser_or_skip(test: &str) -> Option<Browser> {
    browser_in_or_skip(test, "en-US")
}

/// [`browser_or_skip`] with a browser whose languages (`Accept-Language`, `navigator.languages`)
/// are `langs` (`zh-TW,zh`).
pub fn browser_in_or_skip(test: &str, langs: &str) -> Option<Browser> {
    match Browser::start(langs) {
        Ok(b) => Some(b),
        Err(why) => {
            let msg = format!("{test}: skipped: {why} (install with .ci/setup-chromium.sh)");
            if std::env::var("CI").is_ok_and(|v| v == "true") {
                panic!("{msg}: required in CI");
            }
            eprintln!("{msg}");
            None
        }
    }
}

/// One chromedriver with one headless Chromium session; both end when this is dropped.
pub struct Browser {
    base: String,
    agent: ureq::Agent,
    driver: Guard,
}

impl Browser {
    fn start(langs: &str) -> Result<Browser, String> {
        let driver = which("chromedriver").ok_or("chromedriver not found on PATH")?;
        let chromium = ["chromium", "chromium-browser", "google-chrome"]
            .iter()
            .find_map(|n| which(n))
            .ok_or("chromium not found on PATH")?;
        let port = free_port();
        let child = Command::new(&driver)
            .arg(format!("--port={port}"))
            .stdin(Stdio::null())
            .stdout(Stdio::null())
            .stderr(Stdio::null())
            .spawn()
            .map_err(|e| format!("cannot start {}: {e}", driver.display()))?;
        let guard = Guard(child);
        let agent: ureq::Agent = ureq::Agent::config_builder()
            .timeout_global(Some(Duration::from_secs(60)))
            .http_status_as_error(false)
            .build()
            .into();
        let root = format!("http://127.0.0.1:{port}");
        let t = Instant::now();
        while !agent
            .get(&format!("{root}/status"))
            .call()
            .is_ok_and(|r| r.status() == 200)
        {
            if t.elapsed() > Duration::from_secs(20) {
                return Err("chromedriver did not answer within 20 s".into());
            }
            std::thread::sleep(Duration::from_millis(100));
        }
        let caps = json!({"capabilities": {"alwaysMatch": {
            "browserName": "chrome",
            "goog:chromeOptions": {
                "binary": chromium,
                "args": ["--headless=new", "--no-sandbox", "--disable-gpu", "--disable-dev-shm-usage",
                         "--hide-scrollbars", "--window-size=1280,800", "--force-device-scale-factor=1",
                         format!("--lang={}", langs.split(',').next().unwrap_or("en-US")),
                         format!("--accept-lang={langs}"), "--no-first-run", "--disable-extensions"],
                "prefs": {"intl.accept_languages": langs},
            },
            "goog:loggingPrefs": {"browser": "ALL"},
        }}});
        let mut b = Browser {
            base: root.clone(),
            agent,
            driver: guard,
        };
        let v = b.call("POST", "/session", Some(caps))?;
        let id = v["sessionId"].as_str().ok_or("no session id")?;
        b.base = format!("{root}/session/{id}");
        Ok(b)
    }

    /// One WebDriver command: its `value`, or the driver's error message.
    fn call(&self, method: &str, path: &str, body: Option<Value>) -> Result<Value, String> {
        let url = format!("{}{path}", self.base);
        let resp = match body {
            Some(b) => self
                .agent
                .post(&url)
                .header("Content-Type", "application/json")
                .send(b.to_string()),
            None if method == "DELETE" => self.agent.delete(&url).call(),
            None => self.agent.get(&url).call(),
        };
        let mut resp = resp.map_err(|e| format!("{method} {path}: {e}"))?;
        let text = resp
            .body_mut()
            .with_config()
            .limit(256 << 20)
            .read_to_string()
            .map_err(|e| format!("{method} {path}: {e}"))?;
        let v: Value = serde_json::from_str(&text).map_err(|e| format!("{path}: {e}: {text}"))?;
        match v["value"].get("error") {
            Some(err) => Err(format!("{method} {path}: {err}: {}", v["value"]["message"])),
            None => Ok(v["value"].clone()),
        }
    }

    fn cmd(&self, method: &str, path: &str, body: Option<Value>) -> Value {
        self.call(method, path, body)
            .unwrap_or_else(|e| panic!("{e}"))
    }

    pub fn goto(&self, url: &str) {
        self.cmd("POST", "/url", Some(json!({ "url": url })));
    }

    /// Run `script` (a function body; `arguments[i]` are `args`) in the page: what it returns.
    pub fn exec(&self, script: &str, args: Value) -> Value {
        self.cmd(
            "POST",
            "/execute/sync",
            Some(json!({"script": script, "args": args})),
        )
    }

    /// Run `script` asynchronously: it calls its last argument with what it returns.
    pub fn exec_async(&self, script: &str) -> Value {
        self.cmd(
            "POST",
            "/execute/async",
            Some(json!({"script": script, "args": []})),
        )
    }

    /// Wait until `script` returns true; panics with `what` after `limit`.
    pub fn wait_for(&self, what: &str, script: &str, limit: Duration) {
        let t = Instant::now();
        while self.exec(script, json!([])) != json!(true) {
            assert!(t.elapsed() < limit, "waited {limit:?} for {what}");
            std::thread::sleep(Duration::from_millis(50));
        }
    }

    /// The WebDriver id of the first element matching `css`.
    pub fn find(&self, css: &str) -> String {
        let v = self.cmd(
            "POST",
            "/element",
            Some(json!({"using": "css selector", "value": css})),
        );
        v.as_object()
            .and_then(|o| o.values().next())
            .and_then(Value::as_str)
            .unwrap_or_else(|| panic!("no element id for {css}: {v}"))
            .to_string()
    }

    /// A real click (pointer events through the browser), on the first match of `css`.
    pub fn click(&self, css: &str) {
        let id = self.find(css);
        self.cmd("POST", &format!("/element/{id}/click"), Some(json!({})));
    }

    /// Type `text` into the first match of `css` (WebDriver key codes: `\u{E015}` is ↓,
    /// `\u{E007}` Enter).
    pub fn keys(&self, css: &str, text: &str) {
        let id = self.find(css);
        self.cmd(
            "POST",
            &format!("/element/{id}/value"),
            Some(json!({ "text": text })),
        );
    }

    /// Press and release `key` on whatever has the focus (`\u{E015}` ↓, `\u{E013}` ↑,
    /// `\u{E007}` Enter, `\u{E00C}` Escape).
    pub fn press(&self, key: &str) {
        let actions = json!({"actions": [{"type": "key", "id": "keyboard", "actions": [
            {"type": "keyDown", "value": key}, {"type": "keyUp", "value": key}]}]});
        self.cmd("POST", "/actions", Some(actions));
    }

    /// chromedriver's process id: Chromium's processes descend from it.
    pub fn driver_pid(&self) -> u32 {
        self.driver.0.id()
    }

    /// A Chrome DevTools Protocol command.
    pub fn cdp(&self, cmd: &str, params: Value) -> Value {
        self.cmd(
            "POST",
            "/goog/cdp/execute",
            Some(json!({"cmd": cmd, "params": params})),
        )
    }

    /// Emulate a viewport of `w`×`h` CSS pixels (a phone's when `mobile`).
    pub fn viewport(&self, w: u32, h: u32, mobile: bool) {
        self.cdp(
            "Emulation.setDeviceMetricsOverride",
            json!({"width": w, "height": h, "deviceScaleFactor": 1, "mobile": mobile}),
        );
    }

    /// `prefers-color-scheme: dark` (or light).
    pub fn color_scheme(&self, scheme: &str) {
        self.cdp(
            "Emulation.setEmulatedMedia",
            json!({"features": [{"name": "prefers-color-scheme", "value": scheme}]}),
        );
    }

    /// A PNG of the viewport, or of the whole page when `full`.
    pub fn screenshot(&self, path: &Path, full: bool) {
        let mut params = json!({"format": "png"});
        if full {
            let size = self.exec(
                "return [document.documentElement.scrollWidth, document.documentElement.scrollHeight]",
                json!([]),
            );
            params["captureBeyondViewport"] = json!(true);
            params["clip"] =
                json!({"x": 0, "y": 0, "width": size[0], "height": size[1], "scale": 1});
        }
        let v = self.cdp("Page.captureScreenshot", params);
        let png = base64::Engine::decode(
            &base64::engine::general_purpose::STANDARD,
            v["data"].as_str().expect("screenshot data"),
        )
        .expect("base64 PNG");
        assert!(png.starts_with(b"\x89PNG"), "not a PNG");
        std::fs::create_dir_all(path.parent().unwrap()).unwrap();
        std::fs::write(path, png).unwrap();
    }

    /// The browser's console and network log since the last call (level, message).
    pub fn log(&self) -> Vec<(String, String)> {
        let v = self.cmd("POST", "/se/log", Some(json!({"type": "browser"})));
        v.as_array()
            .into_iter()
            .flatten()
            .map(|e| {
                (
                    e["level"].as_str().unwrap_or("").to_string(),
                    e["message"].as_str().unwrap_or("").to_string(),
                )
            })
            .collect()
    }

    /// Open a second tab and show it (the page's tab becomes hidden); the first tab's handle.
    pub fn hide_in_new_tab(&self) -> String {
        let first = self.cmd("GET", "/window", None);
        let new = self.cmd("POST", "/window/new", Some(json!({"type": "tab"})));
        self.cmd("POST", "/window", Some(json!({"handle": new["handle"]})));
        first.as_str().unwrap().to_string()
    }

    pub fn show_tab(&self, handle: &str) {
        self.cmd("POST", "/window", Some(json!({ "handle": handle })));
    }
}

impl Drop for Browser {
    fn drop(&mut self) {
        let _ = self.call("DELETE", "", None);
    }
}

/// Where the browser tests write their screenshots: `target/web-screenshots/`.
pub fn screenshot_dir() -> PathBuf {
    crate::support::profile_dir()
        .parent()
        .expect("target dir")
        .join("web-screenshots")
}
