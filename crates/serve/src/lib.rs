//! `gpuledger serve`: the latest snapshot over read-only HTTP — Prometheus metrics, the JSON
//! contract, a health check and a small index page.
//!
//! Shape (why it is built this way):
//! - **One collection thread** runs a round every interval. A round that overruns makes the loop
//!   skip the ticks it missed (counted in `gpuledger_collection_skipped_rounds_total`); rounds are
//!   never queued back to back. After each round it renders the metrics and the JSON once and
//!   publishes them behind an `Arc`; a scrape only clones that `Arc` and writes bytes, so a scrape
//!   never triggers collection and costs the same however often it comes.
//! - **A small std::net server** rather than an HTTP framework: four routes, GET/HEAD only, no
//!   keep-alive, no bodies. One acceptor thread hands connections to a fixed pool of workers
//!   through a bounded queue; when the queue is full the connection goes to one refusing thread
//!   that answers 503 (and, if that one is behind too, is closed): a flood costs refused
//!   connections, not memory or threads. Each request head must arrive whole within a deadline
//!   and a size limit, so a slow or silent client holds one worker for at most that long.
//!   tiny_http was considered: its task pool starts a new thread whenever all are busy (threads
//!   grow with slow connections) and it offers no deadline for a whole request head, which is
//!   the part that matters here.
//! - Collection and serving share nothing but the published `Arc`, so a stalled client can never
//!   stall collection, and a slow round never delays a scrape (it serves the previous round).

pub mod http;

use gpuledger_model::{Snapshot, SourceState};
use gpuledger_views::prometheus::{render_metrics, CollectionStats, MetricsOptions, ProcessSeries};
use http::{HeadError, Response};
use std::io;
use std::net::{IpAddr, Ipv4Addr, Ipv6Addr, SocketAddr, TcpListener, TcpStream};
use std::sync::atomic::{AtomicBool, Ordering};
use std::sync::mpsc::{self, RecvTimeoutError, SyncSender, TrySendError};
use std::sync::{Arc, Mutex, RwLock};
use std::thread::JoinHandle;
use std::time::{Duration, Instant, SystemTime, UNIX_EPOCH};

pub const DEFAULT_LISTEN: &str = "127.0.0.1:9835";

/// Shortest and longest collection interval accepted.
pub const MIN_INTERVAL: Duration = Duration::from_millis(100);
pub const MAX_INTERVAL: Duration = Duration::from_secs(3600);

/// Parse an interval: `5s`, `500ms`, `2m`, `1.5s`, or a bare number of seconds. Bounded to
/// [`MIN_INTERVAL`]..=[`MAX_INTERVAL`]; errors say what was wrong.
pub fn parse_interval(s: &str) -> Result<Duration, String> {
    let t = s.trim();
    let (num, unit) = match t.find(|c: char| !(c.is_ascii_digit() || c == '.')) {
        Some(i) => t.split_at(i),
        None => (t, "s"),
    };
    let scale = match unit {
        "ms" => 0.001,
        "s" => 1.0,
        "m" => 60.0,
        _ => {
            return Err(format!(
                "{s:?}: unknown unit {unit:?} (use ms, s or m, e.g. 5s)"
            ))
        }
    };
    let v: f64 = num
        .parse()
        .map_err(|_| format!("{s:?} is not a duration (e.g. 5s, 500ms, 1m)"))?;
    let secs = v * scale;
    if !(MIN_INTERVAL.as_secs_f64()..=MAX_INTERVAL.as_secs_f64()).contains(&secs) {
        return Err(format!(
            "{s:?}: the interval must be between {} ms and {} s",
            MIN_INTERVAL.as_millis(),
            MAX_INTERVAL.as_secs()
        ));
    }
    Ok(Duration::from_secs_f64(secs))
}

#[cfg(test)]
mod interval_tests {
    use super::*;

    #[test]
    fn units_and_bounds() {
        assert_eq!(parse_interval("5s"), Ok(Duration::from_secs(5)));
        assert_eq!(parse_interval("500ms"), Ok(Duration::from_millis(500)));
        assert_eq!(parse_interval("2m"), Ok(Duration::from_secs(120)));
        assert_eq!(parse_interval("1.5s"), Ok(Duration::from_millis(1500)));
        assert_eq!(parse_interval("15"), Ok(Duration::from_secs(15)));
        assert!(parse_interval("5h").unwrap_err().contains("unknown unit"));
        assert!(parse_interval("s").unwrap_err().contains("not a duration"));
        assert!(parse_interval("1.2.3s")
            .unwrap_err()
            .contains("not a duration"));
        assert!(parse_interval("10ms")
            .unwrap_err()
            .contains("between 100 ms"));
        assert!(parse_interval("2h").is_err());
        assert!(parse_interval("99999999999999999999m")
            .unwrap_err()
            .contains("between"));
        assert!(parse_interval("-5s").is_err());
    }

    proptest::proptest! {
        #[test]
        fn never_panics_and_stays_in_bounds(s in "\\PC{0,12}") {
            if let Ok(d) = parse_interval(&s) {
                proptest::prop_assert!(d >= MIN_INTERVAL && d <= MAX_INTERVAL);
            }
        }

        #[test]
        fn millis_round_trip(ms in 100u64..3_600_000) {
            proptest::prop_assert_eq!(parse_interval(&format!("{ms}ms")), Ok(Duration::from_millis(ms)));
        }
    }
}

#[derive(Debug, Clone)]
pub struct ServeConfig {
    pub listen: SocketAddr,
    /// Time between collection rounds.
    pub interval: Duration,
    pub processes: ProcessSeries,
    /// Worker threads answering requests.
    pub workers: usize,
    /// Accepted connections waiting for a worker; beyond this new connections get 503.
    pub queue: usize,
    /// Deadline for a whole request head to arrive.
    pub request_timeout: Duration,
    /// Deadline for each write of the response.
    pub write_timeout: Duration,
}

impl Default for ServeConfig {
    fn default() -> Self {
        ServeConfig {
            listen: DEFAULT_LISTEN.parse().expect("constant address"),
            interval: Duration::from_secs(5),
            processes: ProcessSeries::default(),
            workers: 4,
            queue: 64,
            request_timeout: Duration::from_secs(5),
            write_timeout: Duration::from_secs(10),
        }
    }
}

/// Where snapshots come from.
pub enum Source {
    /// A live collection loop. The factory runs on the collection thread and returns the round
    /// function, so the collector (library handles and all) never has to cross threads.
    Live(Box<dyn FnOnce() -> Box<dyn FnMut() -> Snapshot> + Send>),
    /// A recording, served as it is (`--replay`); no collection happens.
    Replay {
        snapshot: Box<Snapshot>,
        path: String,
    },
}

/// What one round produced, rendered once, read by every request until the next round.
struct Published {
    metrics: String,
    json: String,
    index: String,
    /// When the round finished (monotonic), for the health check.
    at: Instant,
    replay: bool,
}

struct Shared {
    latest: RwLock<Arc<Published>>,
    stop: AtomicBool,
    /// A round older than this is reported unhealthy; `None` for a replay (nothing to go stale).
    stale_after: Option<Duration>,
}

/// A running server. Dropping it without [`Server::shutdown`] also stops it.
pub struct Server {
    addr: SocketAddr,
    shared: Arc<Shared>,
    /// Dropping the sender wakes the collection thread at once.
    stop_collect: Option<mpsc::Sender<()>>,
    threads: Vec<JoinHandle<()>>,
}

fn unix_now() -> f64 {
    SystemTime::now()
        .duration_since(UNIX_EPOCH)
        .map(|d| d.as_secs_f64())
        .unwrap_or(0.0)
}

fn publish(
    snap: &Snapshot,
    processes: ProcessSeries,
    collection: Option<CollectionStats>,
    replay: Option<&str>,
) -> Published {
    let metrics = render_metrics(
        snap,
        &MetricsOptions {
            processes,
            collection,
            replay: replay.is_some(),
        },
    );
    let mut json = serde_json::to_string(snap)
        .unwrap_or_else(|e| format!("{{\"error\":{}}}", serde_json::Value::String(e.to_string())));
    json.push('\n');
    Published {
        metrics,
        json,
        index: index_page(snap, replay),
        at: Instant::now(),
        replay: replay.is_some(),
    }
}

fn html_escape(s: &str) -> String {
    let mut o = String::with_capacity(s.len());
    for c in s.chars() {
        match c {
            '&' => o.push_str("&amp;"),
            '<' => o.push_str("&lt;"),
            '>' => o.push_str("&gt;"),
            '"' => o.push_str("&quot;"),
            '\'' => o.push_str("&#39;"),
            c => o.push(c),
        }
    }
    o
}

fn index_page(snap: &Snapshot, replay: Option<&str>) -> String {
    let host = html_escape(snap.host.hostname.as_deref().unwrap_or("unknown host"));
    let replay = match replay {
        Some(p) => format!(
            "<p><strong>REPLAY of {} — a recording, not the live machine.</strong></p>\n",
            html_escape(p)
        ),
        None => String::new(),
    };
    format!(
        "<!doctype html>\n<html><head><meta charset=\"utf-8\"><title>gpuledger on {host}</title></head>\n<body>\n\
         <h1>gpuledger on {host}</h1>\n{replay}<p>Latest snapshot: {} · {} device(s) · {} GPU process(es). Read-only.</p>\n\
         <ul>\n<li><a href=\"/metrics\">/metrics</a> — Prometheus text format</li>\n\
         <li><a href=\"/api/v1/snapshot\">/api/v1/snapshot</a> — the snapshot as JSON (gpuledger.snapshot/1)</li>\n\
         <li><a href=\"/healthz\">/healthz</a> — health of the collection loop</li>\n</ul>\n</body></html>\n",
        html_escape(&snap.taken_at),
        snap.devices.len(),
        snap.processes.len()
    )
}

impl Server {
    /// Bind, produce the first snapshot, then start answering. Errors: the address cannot be
    /// bound, or a thread cannot be started.
    pub fn start(cfg: ServeConfig, source: Source) -> io::Result<Server> {
        let listener = TcpListener::bind(cfg.listen)?;
        let addr = listener.local_addr()?;
        let workers = cfg.workers.max(1);

        let (stop_tx, stop_rx) = mpsc::channel::<()>();
        let (first_tx, first_rx) = mpsc::sync_channel::<()>(1);
        let (initial, stale_after, live) = match source {
            Source::Replay { snapshot, path } => (
                publish(&snapshot, cfg.processes, None, Some(&path)),
                None,
                None,
            ),
            Source::Live(factory) => (
                // Replaced by the first round before any request is answered.
                publish(
                    &Snapshot::new(String::new(), Default::default()),
                    ProcessSeries::None,
                    None,
                    None,
                ),
                Some(cfg.interval * 3 + Duration::from_secs(1)),
                Some(factory),
            ),
        };
        let shared = Arc::new(Shared {
            latest: RwLock::new(Arc::new(initial)),
            stop: AtomicBool::new(false),
            stale_after,
        });
        let mut server = Server {
            addr,
            shared: shared.clone(),
            stop_collect: Some(stop_tx),
            threads: Vec::new(),
        };
        if let Some(factory) = live {
            let cfg2 = cfg.clone();
            let shared2 = shared.clone();
            server.threads.push(
                std::thread::Builder::new()
                    .name("gpuledger-collect".into())
                    .spawn(move || collection_loop(cfg2, factory, shared2, first_tx, stop_rx))?,
            );
            // The first round is published before the first request is answered, so every
            // response has data (connections arriving meanwhile wait in the listen backlog).
            first_rx.recv().map_err(|_| {
                io::Error::other("the collection thread stopped before its first round")
            })?;
        }

        let (tx, rx) = mpsc::sync_channel::<TcpStream>(cfg.queue);
        let rx = Arc::new(Mutex::new(rx));
        for i in 0..workers {
            let rx = rx.clone();
            let shared = shared.clone();
            let cfg = cfg.clone();
            server.threads.push(
                std::thread::Builder::new()
                    .name(format!("gpuledger-http-{i}"))
                    .spawn(move || loop {
                        // Holding the lock only while waiting for the next connection.
                        let next = rx.lock().map(|r| r.recv());
                        match next {
                            Ok(Ok(s)) => handle(s, &shared, &cfg),
                            _ => return,
                        }
                    })?,
            );
        }
        let (refuse_tx, refuse_rx) = mpsc::sync_channel::<TcpStream>(cfg.queue);
        server.threads.push(
            std::thread::Builder::new()
                .name("gpuledger-refuse".into())
                .spawn(move || refuse_loop(refuse_rx))?,
        );
        let shared2 = shared.clone();
        server.threads.push(
            std::thread::Builder::new()
                .name("gpuledger-accept".into())
                .spawn(move || accept_loop(listener, tx, refuse_tx, &shared2))?,
        );
        Ok(server)
    }

    pub fn local_addr(&self) -> SocketAddr {
        self.addr
    }

    /// Stop accepting, let workers finish the request in hand, stop collecting, join.
    pub fn shutdown(mut self) {
        self.stop();
    }

    fn stop(&mut self) {
        if self.shared.stop.swap(true, Ordering::SeqCst) {
            return;
        }
        self.stop_collect.take();
        // Wake the acceptor blocked in accept().
        let wake = match self.addr.ip() {
            IpAddr::V4(ip) if ip.is_unspecified() => {
                SocketAddr::new(Ipv4Addr::LOCALHOST.into(), self.addr.port())
            }
            IpAddr::V6(ip) if ip.is_unspecified() => {
                SocketAddr::new(Ipv6Addr::LOCALHOST.into(), self.addr.port())
            }
            _ => self.addr,
        };
        let _ = TcpStream::connect_timeout(&wake, Duration::from_secs(1));
        for t in self.threads.drain(..) {
            let _ = t.join();
        }
    }
}

impl Drop for Server {
    fn drop(&mut self) {
        self.stop();
    }
}

fn collection_loop(
    cfg: ServeConfig,
    factory: Box<dyn FnOnce() -> Box<dyn FnMut() -> Snapshot> + Send>,
    shared: Arc<Shared>,
    first: SyncSender<()>,
    stop: mpsc::Receiver<()>,
) {
    let mut round = factory();
    let mut stats = CollectionStats::default();
    let interval = cfg.interval.max(Duration::from_millis(1));
    let mut next = Instant::now();
    let mut first = Some(first);
    loop {
        let started = Instant::now();
        let snap = round();
        let took = started.elapsed();
        stats.rounds_total += 1;
        stats.duration_seconds = took.as_secs_f64();
        stats.last_round_unix_seconds = unix_now();
        if snap.sources.iter().any(|s| s.status == SourceState::Error) {
            stats.errors_total += 1;
        }
        let p = publish(&snap, cfg.processes, Some(stats), None);
        if let Ok(mut w) = shared.latest.write() {
            *w = Arc::new(p);
        }
        if let Some(f) = first.take() {
            let _ = f.send(());
        }

        // Next tick on the original schedule; ticks that passed while this round ran are
        // skipped, not run back to back.
        next += interval;
        let now = Instant::now();
        if next <= now {
            let behind = now - next;
            let missed = (behind.as_nanos() / interval.as_nanos()) as u32 + 1;
            stats.skipped_total += u64::from(missed);
            next += interval * missed;
        }
        match stop.recv_timeout(next.saturating_duration_since(Instant::now())) {
            Err(RecvTimeoutError::Timeout) => {}
            _ => return,
        }
    }
}

fn accept_loop(
    listener: TcpListener,
    queue: SyncSender<TcpStream>,
    refuse: SyncSender<TcpStream>,
    shared: &Shared,
) {
    for conn in listener.incoming() {
        if shared.stop.load(Ordering::SeqCst) {
            return;
        }
        let s = match conn {
            Ok(s) => s,
            Err(_) => {
                // Out of descriptors or a reset before accept: back off instead of spinning.
                std::thread::sleep(Duration::from_millis(10));
                continue;
            }
        };
        match queue.try_send(s) {
            Ok(()) => {}
            // Flood: refuse rather than queue without bound. The refusing thread answers 503;
            // if it is behind too, the connection is simply closed.
            Err(TrySendError::Full(s)) => drop(refuse.try_send(s)),
            Err(TrySendError::Disconnected(_)) => return,
        }
    }
}

/// Answers 503 to connections the workers have no room for. It reads the request first (with a
/// short deadline) so that closing does not reset the connection and lose the answer.
fn refuse_loop(rx: mpsc::Receiver<TcpStream>) {
    for mut s in rx {
        let _ = s.set_write_timeout(Some(Duration::from_millis(200)));
        let _ = http::read_head(&mut s, Duration::from_millis(200));
        let _ = http::respond(
            &mut s,
            &Response {
                extra_headers: &[("Retry-After", "1")],
                ..Response::text(503, "busy: too many connections, try again\n")
            },
            false,
        );
        http::close(s);
    }
}

fn handle(mut s: TcpStream, shared: &Shared, cfg: &ServeConfig) {
    let _ = s.set_nodelay(true);
    let _ = s.set_write_timeout(Some(cfg.write_timeout));
    let head = match http::read_head(&mut s, cfg.request_timeout) {
        Ok(h) => Ok(h),
        Err(HeadError::Closed) => return,
        Err(HeadError::Timeout) => {
            let _ = http::respond(
                &mut s,
                &Response::text(408, "request head not received in time\n"),
                false,
            );
            return http::close(s);
        }
        Err(HeadError::TooLarge) => {
            let _ = http::respond(
                &mut s,
                &Response::text(431, "request head too large\n"),
                false,
            );
            return http::close(s);
        }
        Err(e @ HeadError::Malformed(_)) => Err(e),
    };
    let req = match head.and_then(|h| http::parse_head(&h)) {
        Ok(r) => r,
        Err(e) => {
            let msg = match e {
                HeadError::Malformed(m) => format!("malformed request: {m}\n"),
                _ => "malformed request\n".to_string(),
            };
            let _ = http::respond(&mut s, &Response::text(400, &msg), false);
            return http::close(s);
        }
    };
    let head_only = req.method == "HEAD";
    if req.method != "GET" && !head_only {
        let _ = http::respond(
            &mut s,
            &Response {
                extra_headers: &[("Allow", "GET, HEAD")],
                ..Response::text(405, "read-only: only GET and HEAD are served\n")
            },
            false,
        );
        return http::close(s);
    }
    // Clone the Arc and release the lock before writing: a slow reader never blocks publishing.
    let latest = match shared.latest.read() {
        Ok(g) => Arc::clone(&g),
        Err(p) => Arc::clone(&p.into_inner()),
    };
    let health;
    let r = match req.path.as_str() {
        "/metrics" => Response {
            status: 200,
            content_type: gpuledger_views::prometheus::CONTENT_TYPE,
            body: latest.metrics.as_bytes(),
            extra_headers: &[],
        },
        "/api/v1/snapshot" => Response {
            status: 200,
            content_type: "application/json",
            body: latest.json.as_bytes(),
            extra_headers: &[],
        },
        "/" => Response {
            status: 200,
            content_type: "text/html; charset=utf-8",
            body: latest.index.as_bytes(),
            extra_headers: &[],
        },
        "/healthz" => {
            let age = latest.at.elapsed();
            health = match shared.stale_after {
                _ if latest.replay => "ok: serving a replay (no collection)\n".to_string(),
                Some(limit) if age > limit => format!(
                    "stale: the latest collection round finished {:.1} s ago (limit {:.1} s)\n",
                    age.as_secs_f64(),
                    limit.as_secs_f64()
                ),
                _ => format!("ok: latest round {:.1} s ago\n", age.as_secs_f64()),
            };
            Response::text(if health.starts_with("ok") { 200 } else { 503 }, &health)
        }
        _ => Response::text(
            404,
            "not found: try /, /metrics, /api/v1/snapshot or /healthz\n",
        ),
    };
    let _ = http::respond(&mut s, &r, head_only);
    http::close(s);
}
