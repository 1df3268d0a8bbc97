//! Just enough HTTP/1.x for a read-only exporter: one request head (size-limited; the
//! connection loop in `net` enforces its deadline), one answer, close. No keep-alive, so a
//! connection never outlives its request. Of the headers only `Host` matters (which names the
//! server answers to: [`crate::host`]), and `Accept-Language` (the page's language).

use std::sync::Arc;

/// Longest request head accepted (request line + headers). Prometheus sends about 300 bytes.
pub const MAX_HEAD: usize = 8 * 1024;

#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Request {
    pub method: String,
    /// Path without the query string.
    pub path: String,
    /// The query string (after `?`, before any `#`), empty when there is none.
    pub query: String,
    /// The `Host` header's value, trimmed; `None` when the request sent none.
    pub host: Option<String>,
    /// The request line said HTTP/1.0 (where `Host` is optional).
    pub http10: bool,
    /// The `Accept-Language` header's value (the last one sent), for the page's language.
    pub accept_language: Option<String>,
}

#[derive(Debug, PartialEq, Eq)]
pub enum HeadError {
    /// The peer closed before sending a whole head (nothing to answer).
    Closed,
    /// No complete head before the deadline (slow client).
    Timeout,
    TooLarge,
    Malformed(&'static str),
}

/// Parse a complete head: the request line, and of the headers `Host` (each header line is
/// checked for shape, as a request smuggled past a proxy could hide a second `Host` in a bad one).
pub fn parse_head(head: &[u8]) -> Result<Request, HeadError> {
    let line_end = head
        .iter()
        .position(|&b| b == b'\n')
        .ok_or(HeadError::Malformed("no request line"))?;
    let line = head[..line_end]
        .strip_suffix(b"\r")
        .unwrap_or(&head[..line_end]);
    let mut req = parse_request_line(line)?;
    (req.host, req.accept_language) = headers(&head[line_end + 1..])?;
    Ok(req)
}

/// `METHOD TARGET VERSION`.
fn parse_request_line(line: &[u8]) -> Result<Request, HeadError> {
    let line =
        std::str::from_utf8(line).map_err(|_| HeadError::Malformed("request line is not UTF-8"))?;
    let mut parts = line.split(' ');
    let (Some(method), Some(target), Some(version), None) =
        (parts.next(), parts.next(), parts.next(), parts.next())
    else {
        return Err(HeadError::Malformed(
            "request line is not METHOD TARGET VERSION",
        ));
    };
    if method.is_empty() || !method.bytes().all(|b| b.is_ascii_uppercase()) {
        return Err(HeadError::Malformed("bad method"));
    }
    if !matches!(version, "HTTP/1.0" | "HTTP/1.1") {
        return Err(HeadError::Malformed("unsupported HTTP version"));
    }
    // Origin form only ("/path?query"); absolute form and "*" are not served here.
    if !target.starts_with('/') {
        return Err(HeadError::Malformed("request target must start with /"));
    }
    let target = target.split('#').next().unwrap_or("/");
    let (path, query) = target.split_once('?').unwrap_or((target, ""));
    Ok(Request {
        method: method.to_string(),
        path: path.to_string(),
        query: query.to_string(),
        host: None,
        http10: version == "HTTP/1.0",
        accept_language: None,
    })
}

/// The one `Host` header among the header lines (up to the blank line that ends the head), and
/// `Accept-Language`.
fn headers(headers: &[u8]) -> Result<(Option<String>, Option<String>), HeadError> {
    let mut host = None;
    let mut accept_language = None;
    for line in headers.split(|&b| b == b'\n') {
        let line = line.strip_suffix(b"\r").unwrap_or(line);
        if line.is_empty() {
            break;
        }
        if line[0] == b' ' || line[0] == b'\t' {
            return Err(HeadError::Malformed("obsolete line folding in a header"));
        }
        let colon = line
            .iter()
            .position(|&b| b == b':')
            .ok_or(HeadError::Malformed("a header line without a colon"))?;
        let name = &line[..colon];
        if !name.iter().all(|&b| is_token(b)) {
            return Err(HeadError::Malformed(
                "a header name with characters a name cannot hold",
            ));
        }
        if name.eq_ignore_ascii_case(b"accept-language") {
            // Not ASCII: no language gpuledger knows, so none.
            accept_language = std::str::from_utf8(&line[colon + 1..])
                .ok()
                .map(|v| v.trim_matches([' ', '\t']).to_string());
            continue;
        }
        if !name.eq_ignore_ascii_case(b"host") {
            continue;
        }
        if host.is_some() {
            return Err(HeadError::Malformed("more than one Host header"));
        }
        let value = std::str::from_utf8(&line[colon + 1..])
            .map_err(|_| HeadError::Malformed("the Host header is not ASCII"))?;
        host = Some(value.trim_matches([' ', '\t']).to_string());
    }
    Ok((host, accept_language))
}

/// A character of an HTTP token (RFC 9110 §5.6.2), the alphabet of header names.
fn is_token(b: u8) -> bool {
    b.is_ascii_alphanumeric() || b"!#$%&'*+-.^_`|~".contains(&b)
}

/// End of the head (`\r\n\r\n`, or `\n\n` from lenient clients): index just past it.
pub(crate) fn find_end(b: &[u8]) -> Option<usize> {
    for i in 0..b.len() {
        if b[i..].starts_with(b"\r\n\r\n") {
            return Some(i + 4);
        }
        if b[i..].starts_with(b"\n\n") {
            return Some(i + 2);
        }
    }
    None
}

/// The Content-Security-Policy of every answer: the browser view may load its own script, style,
/// icon and data and nothing else (no inline script or style, no other origin, no plug-ins), and
/// may not be framed.
pub const CSP: &str = "default-src 'self'; script-src 'self'; style-src 'self'; img-src 'self'; \
                       connect-src 'self'; object-src 'none'; base-uri 'none'; form-action 'none'; \
                       frame-ancestors 'none'";

/// An answer, written by the connection loop. Bodies are shared: the published round's
/// renderings are sent without copying them per request.
#[derive(Clone)]
pub struct Response {
    pub status: u16,
    pub content_type: &'static str,
    pub body: Arc<[u8]>,
    pub extra_headers: Vec<(&'static str, String)>,
    /// Answer to HEAD: the same headers, no body.
    pub head_only: bool,
}

impl Response {
    pub fn text(status: u16, body: &str) -> Self {
        Response {
            status,
            content_type: "text/plain; charset=utf-8",
            body: Arc::from(body.as_bytes()),
            extra_headers: Vec::new(),
            head_only: false,
        }
    }

    /// Status line and headers, ending with the blank line. Every answer closes the connection.
    pub fn head_bytes(&self) -> Vec<u8> {
        let mut head = format!(
            "HTTP/1.1 {} {}\r\nContent-Type: {}\r\nContent-Length: {}\r\nConnection: close\r\nCache-Control: no-store\r\nX-Content-Type-Options: nosniff\r\nContent-Security-Policy: {CSP}\r\nReferrer-Policy: no-referrer\r\n",
            self.status,
            reason(self.status),
            self.content_type,
            self.body.len()
        );
        for (k, v) in &self.extra_headers {
            head.push_str(k);
            head.push_str(": ");
            head.push_str(v);
            head.push_str("\r\n");
        }
        head.push_str("\r\n");
        head.into_bytes()
    }
}

fn reason(status: u16) -> &'static str {
    match status {
        200 => "OK",
        400 => "Bad Request",
        404 => "Not Found",
        405 => "Method Not Allowed",
        408 => "Request Timeout",
        421 => "Misdirected Request",
        431 => "Request Header Fields Too Large",
        503 => "Service Unavailable",
        _ => "Error",
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn request_lines() {
        let r = parse_head(b"GET /metrics?x=1 HTTP/1.1\r\nHost: a\r\n\r\n").unwrap();
        assert_eq!(r.method, "GET");
        assert_eq!(r.path, "/metrics");
        assert_eq!(r.query, "x=1");
        let r = parse_head(b"GET /api/v1/history?since=5#frag HTTP/1.1\r\n\r\n").unwrap();
        assert_eq!(
            (r.path.as_str(), r.query.as_str()),
            ("/api/v1/history", "since=5")
        );
        assert_eq!(parse_head(b"HEAD / HTTP/1.0\n\n").unwrap().method, "HEAD");
        for (bad, why) in [
            (&b"GET /metrics\r\n\r\n"[..], "METHOD TARGET VERSION"),
            (b"GET  /metrics HTTP/1.1\r\n\r\n", "METHOD TARGET VERSION"),
            (b"GET metrics HTTP/1.1\r\n\r\n", "must start with /"),
            (b"get / HTTP/1.1\r\n\r\n", "bad method"),
            (b"GET / HTTP/2.0\r\n\r\n", "version"),
            (b"GET http://x/ HTTP/1.1\r\n\r\n", "start with /"),
            (b"GET / HTTP/1.1 extra\r\n\r\n", "METHOD TARGET VERSION"),
            (b"\xff\xfe / HTTP/1.1\r\n\r\n", "UTF-8"),
        ] {
            match parse_head(bad) {
                Err(HeadError::Malformed(m)) => assert!(m.contains(why), "{m} for {bad:?}"),
                other => panic!("{bad:?} gave {other:?}"),
            }
        }
    }

    #[test]
    fn the_host_header_is_read_once_and_checked_for_shape() {
        let r =
            parse_head(b"GET / HTTP/1.1\r\nAccept: */*\r\nhOsT:  localhost:9835 \r\n\r\n").unwrap();
        assert_eq!(r.host.as_deref(), Some("localhost:9835"));
        assert!(!r.http10);
        assert_eq!(r.accept_language, None);
        let r = parse_head(b"GET / HTTP/1.1\r\naccept-language: zh-TW,zh;q=0.9\r\n\r\n").unwrap();
        assert_eq!(r.accept_language.as_deref(), Some("zh-TW,zh;q=0.9"));
        let r = parse_head(b"GET / HTTP/1.0\r\n\r\n").unwrap();
        assert_eq!((r.host, r.http10), (None, true));
        // Lenient line ends; the head's end stops the scan.
        let r = parse_head(b"GET / HTTP/1.1\nHost: a\n\nHost: b\n").unwrap();
        assert_eq!(r.host.as_deref(), Some("a"));
        for (bad, why) in [
            (
                &b"GET / HTTP/1.1\r\nHost: a\r\nHost: b\r\n\r\n"[..],
                "more than one Host",
            ),
            (b"GET / HTTP/1.1\r\nHost: a\r\n x\r\n\r\n", "folding"),
            (b"GET / HTTP/1.1\r\nHost a\r\n\r\n", "without a colon"),
            (b"GET / HTTP/1.1\r\nHost : a\r\n\r\n", "header name"),
            (b"GET / HTTP/1.1\r\nHost: \xff\r\n\r\n", "not ASCII"),
        ] {
            match parse_head(bad) {
                Err(HeadError::Malformed(m)) => assert!(m.contains(why), "{m} for {bad:?}"),
                other => panic!("{bad:?} gave {other:?}"),
            }
        }
    }

    #[test]
    fn end_of_head() {
        assert_eq!(find_end(b"GET / HTTP/1.1\r\n\r\nbody"), Some(18));
        assert_eq!(find_end(b"GET / HTTP/1.1\n\n"), Some(16));
        assert_eq!(find_end(b"GET / HTTP/1.1\r\nHost: x\r\n"), None);
    }

    proptest::proptest! {
        #[test]
        fn arbitrary_bytes_never_panic(b in proptest::collection::vec(proptest::num::u8::ANY, 0..300)) {
            let _ = parse_head(&b);
            let _ = find_end(&b);
        }

        #[test]
        fn well_formed_lines_round_trip(path in "/[a-z0-9/._-]{0,40}", q in "[a-z=&]{0,10}") {
            let line = format!("GET {path}?{q} HTTP/1.1\r\n\r\n");
            let r = parse_head(line.as_bytes()).unwrap();
            proptest::prop_assert_eq!(r.path, path);
            proptest::prop_assert_eq!(r.query, q);
        }
    }
}
