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
//! and `/api/v1/words` (with the page's own `page-…` messages) answers in it; the machine
//! endpoints (`/metrics`, `/api/v1/snapshot`, `/api/v1/history`) are the same in every language.

use gpuledger_lang::{from_accept_language, Lang};

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
