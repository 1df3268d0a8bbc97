//! The browser view: one page, one script, one stylesheet and an icon, embedded in the binary
//! (no CDN, no external font: it works offline and on a machine with no network). The script
//! draws with plain SVG and DOM text; it renders the JSON API's figures and computes none of the
//! accounting (the ledger, unattributed, normalisation, estimates all come from the snapshot).
//!
//! Every answer carries the strict [`crate::http::CSP`]: the page runs only these files, so
//! nothing in a snapshot (a process name, a command line) can become script or style.
//!
//! Its language ([`choose_lang`]): the `lang` query parameter (the page's switch), else the
//! browser's `Accept-Language`, else the server's `--lang`. The HTML is sent in it ([`html_in`]),
//! and `/api/v1/words` (with the page's own `page-…` messages) and `/api/v1/said` (the round's
//! sentences, [`said_json`]) answer in it; the machine
//! endpoints (`/metrics`, `/api/v1/snapshot`, `/api/v1/history`) are the same in every language.

use gpuledger_lang::{from_accept_language, Lang, Said};
use gpuledger_model::Snapshot;
use std::collections::BTreeMap;

/// The files of the page: request path, content type, bytes.
pub const ASSETS: [(&str, &str, &str); 4] = [
    (
        "/",
        "text/html; charset=utf-8",
        include_str!("../assets/index.html"),
    ),
    (
        "/app.js",
        "text/javascript; charset=utf-8",
        include_str!("../assets/app.js"),
    ),
    (
        "/app.css",
        "text/css; charset=utf-8",
        include_str!("../assets/app.css"),
    ),
    (
        "/icon.svg",
        "image/svg+xml",
        include_str!("../assets/icon.svg"),
    ),
];

/// The page's weight in bytes as served in English: HTML + script + stylesheet + icon,
/// uncompressed.
pub fn weight() -> usize {
    weight_in(Lang::En)
}

/// The page's weight in bytes as served in `lang` (its HTML written in it).
pub fn weight_in(lang: Lang) -> usize {
    let rest: usize = ASSETS[1..].iter().map(|(_, _, body)| body.len()).sum();
    html_in(lang).len() + rest
}

/// `/api/v1/said`: the round's sentences that have a message key (a [`Said`]: the notes, why a
/// figure is unknown, the sources' findings, an estimate's why, rows and what it does not
/// model, why there is none, the evidence) as `{English: words in lang}`, so the page shows in
/// its language what the snapshot's JSON carries in English, and that JSON stays one for every
/// language. A sentence with no key (a replayed recording's, which JSON keeps as text) is
/// listed where it is keyed again from its English; the system's own words are not: the page
/// shows them as the JSON has them. English: `{}`.
pub fn said_json<'a>(snap: &'a Snapshot, lang: Lang) -> String {
    let mut map: BTreeMap<&str, String> = BTreeMap::new();
    if lang != Lang::En {
        // Keyed sentences, and those read back (a replay's) that are keyed again.
        let mut add = |s: &'a Said| {
            if !map.contains_key(s.as_str()) {
                let text = s.in_lang(lang);
                if s.key().is_some() || text != s.as_str() {
                    map.insert(s.as_str(), text);
                }
            }
        };
        snap.notes.iter().for_each(&mut add);
        snap.sources.iter().for_each(|s| add(&s.detail));
        snap.processes
            .iter()
            .filter_map(|p| p.metadata_unavailable.as_ref())
            .for_each(&mut add);
        for u in snap.processes.iter().flat_map(|p| &p.usage) {
            u.unavailable_reason.iter().for_each(&mut add);
            u.engines.unavailable_reason.iter().for_each(&mut add);
            u.accounting_note.iter().for_each(&mut add);
        }
        for e in snap.processes.iter().filter_map(|p| p.estimate.as_deref()) {
            e.why.iter().chain(&e.not_modelled).for_each(&mut add);
            e.compute_label.iter().for_each(&mut add);
            add(&e.overhead_source);
            for r in &e.reported {
                add(&r.what);
                r.text.iter().for_each(&mut add);
            }
        }
        for n in snap.processes.iter().filter_map(|p| p.no_estimate.as_ref()) {
            add(&n.why);
            for r in &n.reported {
                add(&r.what);
                r.text.iter().for_each(&mut add);
            }
        }
        for w in snap.processes.iter().filter_map(|p| p.workload.as_deref()) {
            w.evidence.iter().for_each(|e| add(&e.showed));
            w.missing.iter().for_each(&mut add);
            w.member.iter().for_each(|m| add(&m.evidence));
        }
    }
    serde_json::to_string(&map).unwrap_or_else(|_| "{}".into())
}

/// The page's language for one request: `lang=` in the query when gpuledger has it, else the
/// most preferred of `Accept-Language` that it has, else `server` (the server's `--lang`).
pub fn choose_lang(query: &str, accept_language: Option<&str>, server: Lang) -> Lang {
    let known = |tag: &str| gpuledger_lang::choose(Some(tag.trim())).ok();
    let asked = query.split('&').find_map(|kv| kv.strip_prefix("lang="));
    if let Some(l) = asked.and_then(known) {
        return l;
    }
    let Some(header) = accept_language else {
        return server;
    };
    let any_known = header.split(',').any(|item| {
        let mut parts = item.split(';');
        let tag = parts.next().unwrap_or_default();
        let q = parts
            .find_map(|p| p.trim().strip_prefix("q="))
            .and_then(|q| q.trim().parse::<f32>().ok())
            .unwrap_or(1.0);
        q > 0.0 && known(tag).is_some()
    });
    if any_known {
        from_accept_language(header)
    } else {
        server
    }
}

/// `text` safe inside an HTML element or a quoted attribute.
fn escape(text: &str) -> String {
    text.replace('&', "&amp;")
        .replace('<', "&lt;")
        .replace('>', "&gt;")
        .replace('"', "&quot;")
}

/// The page's HTML in `lang`: `<html lang>` set; an element marked `data-t="page-…"` gets that
/// message as its text, and any other attribute whose value is a `page-…` key gets the message
/// as its value (`placeholder="page-filter-placeholder"`).
pub fn html_in(lang: Lang) -> String {
    let src = ASSETS[0].2.replacen(
        "<html lang=\"en\">",
        &format!("<html lang=\"{}\">", lang.code()),
        1,
    );
    let mut out = String::with_capacity(src.len() * 2);
    let mut rest = src.as_str();
    while let Some(i) = rest.find("\"page-") {
        let Some(len) = rest[i + 1..].find('"') else {
            break;
        };
        let text = escape(&lang.t(&rest[i + 1..i + 1 + len]));
        let after = &rest[i + 2 + len..];
        if rest[..i].ends_with(" data-t=") {
            let Some(gt) = after.find('>') else {
                break;
            };
            out.push_str(&rest[..i + 2 + len]);
            out.push_str(&after[..=gt]);
            out.push_str(&text);
            rest = &after[gt + 1..];
        } else {
            out.push_str(&rest[..=i]);
            out.push_str(&text);
            out.push('"');
            rest = after;
        }
    }
    out.push_str(rest);
    out
}

#[cfg(test)]
mod tests {
    use super::*;

    /// The page gets the round's keyed sentences in its language, keyed by the English the
    /// snapshot's JSON carries, and read-back ones that are catalogue sentences; English and
    /// other text are not listed.
    #[test]
    fn said_maps_the_json_english_to_the_page_language() {
        let mut snap = Snapshot::new(String::new(), Default::default());
        snap.notes.push(Said::new("report-note-no-gpu", vec![]));
        snap.notes
            .push(Said::verbatim("read back from a recording"));
        let recorded = Said::new("report-meta-not-visible", vec![]);
        snap.notes.push(Said::verbatim(recorded.to_string()));
        let mut p = gpuledger_model::Process::new(7);
        let mut u = gpuledger_model::Usage::new("GPU-1", "fdinfo");
        u.engines.unavailable_reason = Some(Said::new("report-why-engines-first", vec![]));
        u.accounting_note = Some(Said::new(
            "report-drm-shared-client",
            vec![("client", "3 on card0".into()), ("owner", "5".into())],
        ));
        p.usage.push(u);
        p.metadata_unavailable = Some(Said::new("report-meta-permission", vec![]));
        let e = gpuledger_model::EstimatedMemory {
            why: Some(Said::new(
                "recipe-why-runtime",
                vec![
                    ("lead", "qwen3:8b".into()),
                    ("weights", "4.35 GiB".into()),
                    ("kv", "4.50 GiB".into()),
                    ("tokens", "8192".into()),
                    ("slots", 2u64.into()),
                ],
            )),
            ..Default::default()
        };
        p.estimate = Some(std::sync::Arc::new(e));
        snap.processes.push(p);
        let v: serde_json::Value = serde_json::from_str(&said_json(&snap, Lang::ZhCn)).unwrap();
        assert_eq!(
            v["no GPU found by any source (see `gpuledger selftest`)"],
            "所有数据源都没有找到 GPU（见 `gpuledger selftest`）"
        );
        assert_eq!(
            v["first sample of this DRM client: engine use is a rate and needs a second round"],
            "这是该 DRM 客户端的第一次采样：引擎占用是一个速率，需要第二轮才能算出"
        );
        assert_eq!(
            v["qwen3:8b: 4.35 GiB weights, 4.50 GiB KV cache for 8192 tokens × 2 slots"],
            "qwen3:8b：权重 4.35 GiB，KV 缓存 4.50 GiB，每个槽位 8192 个 token × 2 个槽位"
        );
        assert_eq!(
            v["permission denied reading /proc for this process"],
            "读取此进程的 /proc 时权限被拒绝"
        );
        assert_eq!(
            v["shares DRM client 3 on card0 with pid 5, which is charged for it"],
            "与 PID 5 共用 DRM 客户端（3 on card0），该客户端计入 PID 5"
        );
        // A recorded sentence (no key) is keyed again from its English.
        assert_eq!(v[recorded.as_str()], recorded.in_lang(Lang::ZhCn));
        assert_eq!(v.as_object().unwrap().len(), 6, "{v}");
        assert_eq!(said_json(&snap, Lang::En), "{}");
    }

    #[test]
    fn the_language_is_the_query_then_the_browser_then_the_server() {
        let tw = Some("zh-TW,zh;q=0.9,en;q=0.8");
        assert_eq!(choose_lang("lang=zh-CN", tw, Lang::En), Lang::ZhCn);
        assert_eq!(choose_lang("since=1&lang=en", tw, Lang::ZhCn), Lang::En);
        assert_eq!(choose_lang("lang=klingon", tw, Lang::En), Lang::ZhTw);
        assert_eq!(choose_lang("", Some("zh-HK"), Lang::En), Lang::ZhTw);
        assert_eq!(choose_lang("", Some("en-US,en"), Lang::ZhCn), Lang::En);
        // Nothing the browser prefers is known: the server's language.
        assert_eq!(
            choose_lang("", Some("fr-FR,de;q=0.5"), Lang::ZhCn),
            Lang::ZhCn
        );
        assert_eq!(choose_lang("", Some("zh;q=0, fr"), Lang::ZhTw), Lang::ZhTw);
        assert_eq!(choose_lang("", None, Lang::ZhTw), Lang::ZhTw);
    }

    #[test]
    fn the_html_is_written_in_the_language() {
        let en = html_in(Lang::En);
        assert!(en.starts_with("<!doctype html>\n<html lang=\"en\">"));
        assert!(en.contains(">Devices</h2>"), "{en}");
        assert!(en.contains("placeholder=\"pid, user, name, model…\""));
        let cn = html_in(Lang::ZhCn);
        assert!(cn.contains("<html lang=\"zh-CN\">"));
        assert!(cn.contains(">设备</h2>"), "{cn}");
        let tw = html_in(Lang::ZhTw);
        assert!(tw.contains(">裝置</h2>"), "{tw}");
        // Every key the HTML names is a message (a missing one would show as its key).
        for html in [&en, &cn, &tw] {
            assert!(!html.contains(">page-"), "{html}");
            assert!(!html.contains("placeholder=\"page-"), "{html}");
        }
    }

    /// The budget the README states: the whole page under 64 KiB uncompressed.
    #[test]
    fn the_page_stays_small() {
        for lang in Lang::ALL {
            assert!(
                weight_in(lang) < 64 * 1024,
                "{lang}: {} bytes",
                weight_in(lang)
            );
        }
    }

    /// No inline script or style, and nothing fetched from elsewhere: the CSP would block it,
    /// and the page would be broken rather than merely unsafe.
    #[test]
    fn nothing_inline_nothing_remote() {
        let html = ASSETS[0].2;
        assert!(!html.contains("<style"), "inline style element");
        assert!(!html.contains(" style="), "inline style attribute");
        for (i, _) in html.match_indices(" on") {
            let name: String = html[i + 3..]
                .chars()
                .take_while(char::is_ascii_alphabetic)
                .collect();
            assert!(
                !html[i + 3 + name.len()..].starts_with('='),
                "inline handler on{name}"
            );
        }
        for tag in html.split("<script").skip(1) {
            assert!(tag.trim_start().starts_with("src=\"/app.js\""), "{tag}");
        }
        for (path, _, body) in ASSETS {
            // The SVG namespace is a name, not a place anything is fetched from.
            let body = body.replace("http://www.w3.org/2000/svg", "");
            assert!(
                !body.contains("http://") && !body.contains("https://") && !body.contains("//cdn"),
                "{path} names another origin"
            );
        }
        let js = ASSETS[1].2;
        for banned in [
            "innerHTML",
            "outerHTML",
            "insertAdjacentHTML",
            "document.write",
            "eval(",
            "setAttribute('style'",
            "new Function",
        ] {
            assert!(!js.contains(banned), "app.js uses {banned}");
        }
    }
}
