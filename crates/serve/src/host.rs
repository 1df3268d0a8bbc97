//! Which names a request may call this server by: the defence against DNS rebinding.
//!
//! A web page at `http://evil.example:9835/` whose DNS name is made to resolve to 127.0.0.1 is,
//! for the browser, same-origin with this server: its script could read the whole snapshot (users,
//! command lines, pods). The browser still sends the page's own name in `Host`, and a script
//! cannot change that header, so a server that answers only to its own names is out of reach.
//!
//! Accepted on every listen address: `localhost`, any 127/8 address, `[::1]`, the exact listen
//! address, and the names given with `--allow-host`, each with any port (an SSH tunnel or a proxy
//! changes the port, never the origin's safety). On a non-loopback listen (`--allow-remote`)
//! also any IP address (a rebinding needs a DNS name; a request that names an address went to that
//! address, so it is same-origin with nothing else: this is how Prometheus scrapes by address) and
//! this machine's host name (how it scrapes by node name). Anything else is answered 421.

use std::net::{IpAddr, Ipv4Addr, Ipv6Addr, SocketAddr};

/// The names this server answers to.
#[derive(Debug, Clone)]
pub struct HostPolicy {
    listen: IpAddr,
    /// Lower case, without a trailing dot.
    names: Vec<String>,
    /// Not a loopback listen: any IP address is accepted, and HTTP/1.0 requests must name one.
    remote: bool,
}

/// Why a request's `Host` is not answered: the status and a plain-text reason.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Refusal {
    pub status: u16,
    pub reason: String,
}

impl HostPolicy {
    /// The policy of a server listening on `listen`, with the user's `allowed` names (each
    /// checked by [`parse_allowed`]). On a non-loopback listen this machine's host name is added.
    pub fn new(listen: SocketAddr, allowed: &[String]) -> HostPolicy {
        let remote = !listen.ip().is_loopback();
        let mut names: Vec<String> = allowed.iter().map(|n| normal(n)).collect();
        if remote {
            names.extend(machine_name().map(|n| normal(&n)));
        }
        names.retain(|n| !n.is_empty());
        names.sort();
        names.dedup();
        HostPolicy {
            listen: listen.ip(),
            names,
            remote,
        }
    }

    /// Whether a request with this `Host` header (`None`: none was sent) is answered; `http10`:
    /// the request said HTTP/1.0, where `Host` is optional.
    pub fn check(&self, host: Option<&str>, http10: bool) -> Result<(), Refusal> {
        let Some(host) = host else {
            // An HTTP/1.0 client on this machine (an old probe); from the network, a request
            // that names nothing could come from any page.
            if http10 && !self.remote {
                return Ok(());
            }
            return Err(Refusal {
                status: 400,
                reason: "a Host header is required (RFC 9112 §3.2)".into(),
            });
        };
        let name = parse_host(host).map_err(|why| Refusal {
            status: 400,
            reason: format!("malformed Host header: {why}"),
        })?;
        if self.allows(&name) {
            return Ok(());
        }
        Err(Refusal {
            status: 421,
            reason: format!(
                "misdirected request: this server does not answer to the name \"{host}\" (a web \
                 page whose name was pointed at this machine must not read it). It answers to {}. \
                 Start it with --allow-host NAME to serve it under another name",
                self.describe()
            ),
        })
    }

    fn allows(&self, name: &Name) -> bool {
        match name {
            Name::Ip(ip) => {
                is_loopback_literal(ip) || *ip == self.listen || self.remote || {
                    // `--allow-host 192.168.1.5` on a loopback listen behind a proxy.
                    self.names
                        .iter()
                        .any(|n| n.parse::<IpAddr>().ok() == Some(*ip))
                }
            }
            Name::Dns(n) => n == "localhost" || self.names.iter().any(|a| a == n),
        }
    }

    /// The accepted names, for the refusal's text.
    fn describe(&self) -> String {
        let mut list = vec![
            "localhost".to_string(),
            "127.0.0.1 (any 127/8 address)".to_string(),
            "[::1]".to_string(),
        ];
        let listen = match self.listen {
            IpAddr::V6(a) => format!("[{a}]"),
            a => a.to_string(),
        };
        if !self.listen.is_loopback() && !self.listen.is_unspecified() {
            list.push(listen);
        }
        if self.remote {
            list.push("any IP address".into());
        }
        list.extend(self.names.iter().cloned());
        list.join(", ")
    }
}

/// What a `Host` names.
#[derive(Debug, PartialEq, Eq)]
enum Name {
    Ip(IpAddr),
    /// A DNS name, lower case, without a trailing dot.
    Dns(String),
}

/// `name`, `name:port`, `1.2.3.4:port`, `[v6]:port` → the name without its port.
fn parse_host(h: &str) -> Result<Name, &'static str> {
    let (host, port) = if let Some(rest) = h.strip_prefix('[') {
        let (inner, after) = rest.split_once(']').ok_or("an unclosed [")?;
        let ip: Ipv6Addr = inner.parse().map_err(|_| "not an IPv6 address in [ ]")?;
        let port = match after {
            "" => None,
            p => Some(p.strip_prefix(':').ok_or("text after ]")?),
        };
        (Name::Ip(IpAddr::V6(ip)), port)
    } else {
        let (host, port) = match h.split_once(':') {
            Some((host, port)) => (host, Some(port)),
            None => (h, None),
        };
        let name = match host.parse::<Ipv4Addr>() {
            Ok(ip) => Name::Ip(IpAddr::V4(ip)),
            Err(_) => Name::Dns(dns_name(host)?),
        };
        (name, port)
    };
    if let Some(p) = port {
        if p.is_empty() || p.len() > 5 || !p.bytes().all(|b| b.is_ascii_digit()) {
            return Err("the port is not a number");
        }
    }
    Ok(host)
}

/// A DNS name as it is compared: letters, digits, `-`, `_` and dots; lower case; no trailing dot.
fn dns_name(host: &str) -> Result<String, &'static str> {
    if host.is_empty() {
        return Err("no name");
    }
    if host.len() > 253 {
        return Err("a name longer than DNS allows");
    }
    if !host
        .bytes()
        .all(|b| b.is_ascii_alphanumeric() || matches!(b, b'-' | b'_' | b'.'))
    {
        return Err("characters a host name cannot hold");
    }
    Ok(normal(host))
}

fn normal(name: &str) -> String {
    name.trim().trim_end_matches('.').to_ascii_lowercase()
}

fn is_loopback_literal(ip: &IpAddr) -> bool {
    match ip {
        IpAddr::V4(a) => a.is_loopback(),
        IpAddr::V6(a) => a.is_loopback(),
    }
}

/// Check one `--allow-host` value: a host name or an IP address, without a port or scheme.
pub fn parse_allowed(s: &str) -> Result<String, String> {
    let bad = |why: &str| {
        Err(format!(
            "--allow-host {s:?}: {why}; give a host name or an IP address, without a port \
             (every port is accepted)"
        ))
    };
    if s.contains("://") || s.contains('/') {
        return bad("that is a URL");
    }
    if s.parse::<IpAddr>().is_ok() {
        return Ok(s.to_string());
    }
    if let Some(v6) = s.strip_prefix('[').and_then(|r| r.strip_suffix(']')) {
        if let Ok(ip) = v6.parse::<Ipv6Addr>() {
            return Ok(ip.to_string());
        }
    }
    if s.contains(':') {
        return bad("it has a port");
    }
    match dns_name(s) {
        Ok(n) => Ok(n),
        Err(why) => bad(why),
    }
}

/// This machine's host name (what Prometheus's node-name targets use).
#[cfg(unix)]
fn machine_name() -> Option<String> {
    let mut buf = [0u8; 256];
    // SAFETY: gethostname writes at most buf.len() bytes into our buffer.
    let rc = unsafe { libc::gethostname(buf.as_mut_ptr().cast(), buf.len()) };
    if rc != 0 {
        return None;
    }
    let end = buf.iter().position(|&b| b == 0).unwrap_or(buf.len());
    String::from_utf8(buf[..end].to_vec()).ok()
}

#[cfg(not(unix))]
fn machine_name() -> Option<String> {
    std::env::var("COMPUTERNAME").ok()
}

#[cfg(test)]
mod tests {
    use super::*;

    fn loopback(allowed: &[&str]) -> HostPolicy {
        let a: Vec<String> = allowed.iter().map(|s| s.to_string()).collect();
        HostPolicy::new("127.0.0.1:9835".parse().unwrap(), &a)
    }

    fn status(p: &HostPolicy, host: Option<&str>, http10: bool) -> u16 {
        match p.check(host, http10) {
            Ok(()) => 200,
            Err(r) => r.status,
        }
    }

    #[test]
    fn a_loopback_server_answers_only_to_loopback_names() {
        let p = loopback(&[]);
        for ok in [
            "localhost",
            "localhost:9835",
            "LOCALHOST:1",
            "localhost.",
            "127.0.0.1",
            "127.0.0.1:9835",
            "127.3.4.5:80",
            "[::1]",
            "[::1]:9835",
        ] {
            assert_eq!(status(&p, Some(ok), false), 200, "{ok}");
        }
        for refused in [
            "evil.example",
            "evil.example:9835",
            "localhost.evil.example",
            "127.0.0.1.nip.io",
            "10.0.0.5:9835",
            "[::2]:9835",
            "0.0.0.0:9835",
        ] {
            let r = p.check(Some(refused), false).unwrap_err();
            assert_eq!(r.status, 421, "{refused}");
            assert!(r.reason.contains(refused), "{}", r.reason);
            assert!(r.reason.contains("--allow-host"), "{}", r.reason);
        }
        for malformed in [
            "",
            ":80",
            "a b",
            "x@evil",
            "localhost:80:80",
            "[::1",
            "[nope]",
            "[::1]x",
            "localhost:port",
            "localhost:123456",
        ] {
            assert_eq!(status(&p, Some(malformed), false), 400, "{malformed:?}");
        }
    }

    #[test]
    fn a_missing_host_is_a_bad_request_except_http10_on_loopback() {
        let p = loopback(&[]);
        assert_eq!(status(&p, None, false), 400);
        assert_eq!(status(&p, None, true), 200);
        let remote = HostPolicy::new("0.0.0.0:9835".parse().unwrap(), &[]);
        assert_eq!(status(&remote, None, true), 400);
        assert_eq!(status(&remote, None, false), 400);
    }

    #[test]
    fn names_given_are_answered_and_the_listen_address_too() {
        let p = HostPolicy::new(
            "127.0.0.2:9835".parse().unwrap(),
            &["gpu-box.lan".to_string(), "192.168.1.5".to_string()],
        );
        assert_eq!(status(&p, Some("GPU-Box.lan:8080"), false), 200);
        assert_eq!(status(&p, Some("gpu-box.lan."), false), 200);
        assert_eq!(status(&p, Some("192.168.1.5:80"), false), 200);
        assert_eq!(status(&p, Some("127.0.0.2:9835"), false), 200);
        assert_eq!(status(&p, Some("other.lan"), false), 421);
        assert_eq!(status(&p, Some("gpu-box.lan.evil"), false), 421);
        let v6 = HostPolicy::new("[::1]:9835".parse().unwrap(), &[]);
        assert_eq!(status(&v6, Some("[::1]:9835"), false), 200);
        assert_eq!(status(&v6, Some("evil.example"), false), 421);
    }

    #[test]
    fn a_network_server_answers_to_addresses_and_this_machines_name() {
        let p = HostPolicy::new("0.0.0.0:9835".parse().unwrap(), &["node-3".into()]);
        assert_eq!(status(&p, Some("10.1.2.3:9835"), false), 200);
        assert_eq!(status(&p, Some("[fd00::7]:9835"), false), 200);
        assert_eq!(status(&p, Some("node-3:9835"), false), 200);
        assert_eq!(status(&p, Some("evil.example:9835"), false), 421);
        if let Some(me) = machine_name().filter(|n| dns_name(n).is_ok()) {
            assert_eq!(status(&p, Some(&format!("{me}:9835")), false), 200);
        }
        let r = p.check(Some("evil.example"), false).unwrap_err();
        assert!(r.reason.contains("any IP address"), "{}", r.reason);
    }

    #[test]
    fn allow_host_values_are_names_or_addresses() {
        assert_eq!(parse_allowed("GPU-Box.lan").unwrap(), "gpu-box.lan");
        assert_eq!(parse_allowed("10.0.0.5").unwrap(), "10.0.0.5");
        assert_eq!(parse_allowed("[fd00::7]").unwrap(), "fd00::7");
        assert!(parse_allowed("gpu-box:9835").unwrap_err().contains("port"));
        assert!(parse_allowed("http://gpu-box/")
            .unwrap_err()
            .contains("URL"));
        assert!(parse_allowed("a b").is_err());
        assert!(parse_allowed("").is_err());
    }

    proptest::proptest! {
        #[test]
        fn any_header_value_gets_a_verdict_without_panicking(h in "\\PC{0,40}") {
            let _ = loopback(&["x.lan"]).check(Some(&h), false);
        }
    }
}
