//! The browser view: one page, one script, one stylesheet and an icon, embedded in the binary
//! (no CDN, no external font: it works offline and on a machine with no network). The script
//! draws with plain SVG and DOM text; it renders the JSON API's figures and computes none of the
//! accounting (the ledger, unattributed, normalisation, estimates all come from the snapshot).
//!
//! Every answer carries the strict [`crate::http::CSP`]: the page runs only these files, so
//! nothing in a snapshot (a process name, a command line) can become script or style.

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

/// The page's weight in bytes: HTML + script + stylesheet + icon, uncompressed.
pub fn weight() -> usize {
    ASSETS.iter().map(|(_, _, body)| body.len()).sum()
}

#[cfg(test)]
mod tests {
    use super::*;

    /// The budget the README states: the whole page under 64 KiB uncompressed.
    #[test]
    fn the_page_stays_small() {
        assert!(weight() < 64 * 1024, "{} bytes", weight());
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
