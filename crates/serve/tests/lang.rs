//! The page's language (the `lang` query, then `Accept-Language`, then the server's `--lang`)
//! changes the page and `/api/v1/words`, and nothing else: the machine endpoints are the same
//! bytes whatever the language.

use gpuledger_lang::Lang;
use gpuledger_model::test_support;
use gpuledger_model::*;
use gpuledger_serve::{ServeConfig, Server, Source};
use std::io::{Read, Write};
use std::net::{SocketAddr, TcpStream};
use std::time::Duration;

fn snap() -> Snapshot {
    let mut p = test_support::process(42, "GPU-A", Some(100));
    p.name = Some("通义千问-server".into());
    p.user = Some("张三".into());
    let mut s = test_support::snapshot(
        "2026-11-29T08:00:05Z",
        vec![test_support::device(0, "GPU-A", Some(1000), Some(600))],
        vec![p],
    );
    s.sources
        .push(SourceStatus::new("nvml", SourceState::Ok, "1 device"));
    // A note with a message key: English in the snapshot's JSON, the page's language in
    // /api/v1/said.
    s.notes
        .push(gpuledger_lang::Said::new("report-note-no-gpu", vec![]));
    s
}

/// The page asks /api/v1/said for the round's sentences in its language; the snapshot's JSON
/// keeps the English for every language.
#[test]
fn the_said_endpoint_speaks_the_page_language() {
    let server = start(Lang::En);
    let english = "no GPU found by any source (see `gpuledger selftest`)";
    let (_, json) = get(
        server.local_addr(),
        "/api/v1/snapshot",
        "Accept-Language: zh-TW\r\n",
    );
    assert!(String::from_utf8(json).unwrap().contains(english));
    let said = |query: &str, header: &str| {
        let (_, body) = get(server.local_addr(), &format!("/api/v1/said{query}"), header);
        serde_json::from_slice::<serde_json::Value>(&body).unwrap()
    };
    assert_eq!(
        said("?lang=zh-TW", "")[english],
        "所有資料來源都沒有找到 GPU（請見 `gpuledger selftest`）"
    );
    assert_eq!(
        said("", "Accept-Language: zh-CN\r\n")[english],
        "所有数据源都没有找到 GPU（见 `gpuledger selftest`）"
    );
    assert_eq!(said("?lang=en", ""), serde_json::json!({}));
    server.shutdown();
}

fn start(lang: Lang) -> Server {
    let cfg = ServeConfig {
        listen: "127.0.0.1:0".parse().unwrap(),
        lang,
        ..ServeConfig::default()
    };
    let src = Source::Replay {
        snapshot: Box::new(snap()),
        path: "rec.json".into(),
    };
    Server::start(cfg, src).unwrap()
}

/// The answer's head and body bytes for `path` with these extra header lines.
fn get(a: SocketAddr, path: &str, headers: &str) -> (String, Vec<u8>) {
    let mut s = TcpStream::connect(a).unwrap();
    s.set_read_timeout(Some(Duration::from_secs(10))).unwrap();
    let req = format!("GET {path} HTTP/1.1\r\nHost: localhost\r\n{headers}\r\n");
    s.write_all(req.as_bytes()).unwrap();
    let mut buf = Vec::new();
    s.read_to_end(&mut buf).unwrap();
    let end = buf.windows(4).position(|w| w == b"\r\n\r\n").unwrap();
    let head = String::from_utf8(buf[..end].to_vec()).unwrap();
    assert!(head.starts_with("HTTP/1.1 200"), "{path}: {head}");
    (head, buf[end + 4..].to_vec())
}

const ASKS: [(&str, &str); 5] = [
    ("", ""),
    ("?lang=zh-CN", ""),
    ("?lang=zh-TW", "Accept-Language: zh-CN\r\n"),
    ("", "Accept-Language: zh-TW,zh;q=0.9\r\n"),
    ("", "Accept-Language: en-US,en;q=0.8\r\n"),
];

#[test]
fn machine_endpoints_are_the_same_bytes_in_every_language() {
    let servers: Vec<Server> = Lang::ALL.iter().map(|l| start(*l)).collect();
    for path in ["/metrics", "/api/v1/snapshot", "/api/v1/history"] {
        let reference = get(servers[0].local_addr(), path, "").1;
        assert!(!reference.is_empty());
        for srv in &servers {
            for (query, header) in ASKS {
                let sep = if path.contains('?') { "&" } else { "" };
                let target = format!("{path}{}{}", sep, query);
                let body = get(srv.local_addr(), &target, header).1;
                assert!(body == reference, "{target} with {header:?} differs");
            }
        }
    }
}

/// Which language the page and the words came in, from `Content-Language` and the bodies.
fn page_lang(a: SocketAddr, query: &str, header: &str) -> String {
    let (head, body) = get(a, &format!("/{query}"), header);
    let html = String::from_utf8(body).unwrap();
    let code = head
        .lines()
        .find_map(|l| l.strip_prefix("Content-Language: "))
        .unwrap()
        .to_string();
    assert!(head.contains("Vary: Accept-Language"), "{head}");
    assert!(html.contains(&format!("<html lang=\"{code}\">")), "{html}");
    let (_, words) = get(a, &format!("/api/v1/words{query}"), header);
    let words: serde_json::Value = serde_json::from_slice(&words).unwrap();
    assert_eq!(words["lang"], code.as_str());
    code
}

#[test]
fn the_page_speaks_the_query_then_the_browser_then_the_server() {
    let cn = start(Lang::ZhCn);
    let a = cn.local_addr();
    assert_eq!(page_lang(a, "", ""), "zh-CN", "the server's --lang");
    assert_eq!(page_lang(a, "", "Accept-Language: fr, de\r\n"), "zh-CN");
    assert_eq!(
        page_lang(a, "", "Accept-Language: zh-TW,zh;q=0.9\r\n"),
        "zh-TW"
    );
    assert_eq!(page_lang(a, "", "Accept-Language: en-US\r\n"), "en");
    assert_eq!(
        page_lang(a, "?lang=en", "Accept-Language: zh-TW\r\n"),
        "en",
        "the switch wins"
    );
    assert_eq!(page_lang(a, "?lang=zh-HK", ""), "zh-TW");
    let (_, html) = get(a, "/", "");
    let html = String::from_utf8(html).unwrap();
    assert!(
        html.contains(">设备</h2>") && html.contains(">进程</span>"),
        "{html}"
    );
    let (_, words) = get(a, "/api/v1/words?lang=zh-TW", "");
    let words: serde_json::Value = serde_json::from_slice(&words).unwrap();
    assert_eq!(words["columns"]["mem"], "記憶體");
    assert_eq!(words["page"]["page-why-heading"], "為什麼用了這麼多？");
}
