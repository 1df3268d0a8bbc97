//! `gpuledger serve`: the latest snapshot over read-only HTTP — Prometheus metrics, the JSON
//! contract, a health check, and the browser view (a page that draws the JSON, with curves from
//! a ring of recent samples the server keeps: [`history`], [`page`]).
//!
//! Shape (why it is built this way):
//! - **One collection thread** runs a round every interval. A round that overruns makes the loop
//!   skip the ticks it missed (counted in `gpuledger_collection_skipped_rounds_total`); rounds are
//!   never queued back to back. After each round it renders the metrics and the JSON once and
//!   publishes them behind an `Arc`; a scrape only clones that `Arc` and writes bytes, so a scrape
//!   never triggers collection and costs the same however often it comes.
//! - **A small readiness-based server** rather than an HTTP framework: a few routes, GET/HEAD
//!   only, no keep-alive, no bodies. One thread (the `net` module) waits on every connection at
//!   once and answers each request as soon as its head has arrived, so a silent or trickling client
//!   costs a table entry, never a worker that others queue behind; each request head must
//!   arrive whole within a deadline counted from accept, and within a size limit. A flood is
//!   answered `503` with `Retry-After` (never closed without an answer while descriptors last),
//!   within fixed bounds on connections and descriptors. tiny_http was considered: its task
//!   pool starts a thread per busy connection and it has no deadline for a whole request head;
//!   a thread pool of our own serialised queued connections behind slow ones.
//! - Collection and serving share nothing but the published `Arc`, so a stalled client can never
//!   stall collection, and a slow round never delays a scrape (it serves the previous round).

pub mod history;
pub mod host;
pub mod http;
mod net;
pub mod page;

pub use net::RESERVED_FDS;

use gpuledger_lang::Lang;
use gpuledger_model::{Snapshot, SourceState};
use gpuledger_views::prometheus::{render_metrics, CollectionStats, MetricsOptions, ProcessSeries};
use http::{HeadError, Response};
use std::io;
use std::net::SocketAddr;
use std::sync::atomic::{AtomicBool, Ordering};
use std::sync::mpsc::{self, RecvTimeoutError, SyncSender};
use std::sync::{Arc, Mutex, RwLock};
use std::thread::JoinHandle;
use std::time::{Duration, Instant, SystemTime, UNIX_EPOCH};

pub const DEFAULT_LISTEN: &str = "127.0.0.1:9835";

/// Parse `--interval` with the one duration grammar (`5s`, `500ms`, `2m`, `1.5s`, a bare number
/// of seconds) within a refresh's bounds ([`gpuledger_model::time::REFRESH`]).
pub fn parse_interval(s: &str) -> Result<Duration, gpuledger_lang::said::Said> {
    gpuledger_model::time::REFRESH.parse(s)
}

#[derive(Debug, Clone)]
pub struct ServeConfig {
    pub listen: SocketAddr,
    /// Time between collection rounds.
    pub interval: Duration,
    pub processes: ProcessSeries,
    /// Also export the dcgm-exporter-compatible device family (`--dcgm-compat`).
    pub dcgm_compat: bool,
    /// Connections that may wait for their request head at once. Beyond this, the one waiting
    /// longest is answered 503 to make room (once it has waited a quarter of
    /// `request_timeout`), otherwise the newcomer is; connections in all are bounded by twice
    /// this and by the descriptor limit.
    pub max_connections: usize,
    /// Deadline for a whole request head to arrive, counted from accept.
    pub request_timeout: Duration,
    /// Deadline for writing a whole response.
    pub write_timeout: Duration,
    /// Names the server answers to besides its own (`--allow-host`; [`host`] says which).
    pub allow_hosts: Vec<String>,
    /// The page's language when neither its switch nor the browser names one gpuledger has
    /// (`--lang`; [`page::choose_lang`]). The machine endpoints never change with it.
    pub lang: Lang,
}

impl ServeConfig {
    /// What the metrics view is asked for: the process selection and the DCGM family.
    fn metrics(&self) -> (ProcessSeries, bool) {
        (self.processes, self.dcgm_compat)
    }
}

impl Default for ServeConfig {
    fn default() -> Self {
        ServeConfig {
            listen: DEFAULT_LISTEN.parse().expect("constant address"),
            interval: Duration::from_secs(5),
            processes: ProcessSeries::default(),
            dcgm_compat: false,
            max_connections: 1024,
            request_timeout: Duration::from_secs(5),
            write_timeout: Duration::from_secs(10),
            allow_hosts: Vec::new(),
            lang: Lang::En,
        }
    }
}

/// Builds the round function on the collection thread.
pub type Factory = Box<dyn FnOnce() -> Box<dyn FnMut() -> Snapshot> + Send>;

/// Where snapshots come from.
pub enum Source {
    /// A live collection loop. The factory runs on the collection thread and returns the round
    /// function, so the collector (library handles and all) never has to cross threads.
    Live(Factory),
    /// A recording, served as it is (`--replay`); no collection happens.
    Replay {
        snapshot: Box<Snapshot>,
        path: String,
    },
}

/// What one round produced, rendered once, read by every request until the next round.
struct Published {
    metrics: Arc<[u8]>,
    json: Arc<[u8]>,
    /// `/api/v1/said` in each language of [`Lang::ALL`] ([`page::said_json`]).
    said: Vec<Arc<[u8]>>,
    /// When the round finished (monotonic), for the health check.
    at: Instant,
    replay: bool,
}

struct Shared {
    latest: RwLock<Arc<Published>>,
    stop: AtomicBool,
    /// A round older than this is reported unhealthy; `None` for a replay (nothing to go stale).
    stale_after: Option<Duration>,
    /// Recent rounds, small, for the page's curves.
    history: Mutex<history::Ring>,
    /// The page's files, shared by every answer.
    assets: Vec<(&'static str, &'static str, Arc<[u8]>)>,
    /// The names requests may call the server by.
    hosts: host::HostPolicy,
    /// `/` and `/api/v1/words` in each language of [`Lang::ALL`], in its order (rendered once).
    html: Vec<Arc<[u8]>>,
    words: Vec<Arc<[u8]>>,
    /// The server's language (`--lang`), the page's when the request names none gpuledger has.
    lang: Lang,
}

/// A running server. Dropping it without [`Server::shutdown`] also stops it.
pub struct Server {
    addr: SocketAddr,
    shared: Arc<Shared>,
    /// Dropping the sender wakes the collection thread at once.
    stop_collect: Option<mpsc::Sender<()>>,
    /// Wakes the connection loop to stop.
    waker: Option<mio::Waker>,
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
    (processes, dcgm_compat): (ProcessSeries, bool),
    collection: Option<CollectionStats>,
    replay: Option<&str>,
) -> Published {
    let metrics = render_metrics(
        snap,
        &MetricsOptions {
            processes,
            collection,
            replay: replay.is_some(),
            dcgm_compat,
        },
    );
    // The same serialiser as `snapshot --json`, so the page gets the workload groups too.
    let json = gpuledger_views::render_json_compact(snap);
    Published {
        metrics: Arc::from(metrics.into_bytes()),
        json: Arc::from(json.into_bytes()),
        said: Lang::ALL
            .iter()
            .map(|l| Arc::from(page::said_json(snap, *l).into_bytes()))
            .collect(),
        at: Instant::now(),
        replay: replay.is_some(),
    }
}

impl Server {
    /// Bind, produce the first snapshot, then start answering. Errors: the address cannot be
    /// bound, or a thread cannot be started.
    pub fn start(cfg: ServeConfig, source: Source) -> io::Result<Server> {
        let listener = std::net::TcpListener::bind(cfg.listen)?;
        deepen_backlog(&listener);
        let addr = listener.local_addr()?;

        let (initial, ring, stale_after, live) = first_state(&cfg, source);
        let shared = Arc::new(Shared {
            latest: RwLock::new(Arc::new(initial)),
            stop: AtomicBool::new(false),
            stale_after,
            history: Mutex::new(ring),
            assets: page::ASSETS
                .iter()
                .map(|&(path, ctype, body)| (path, ctype, Arc::from(body.as_bytes())))
                .collect(),
            hosts: host::HostPolicy::new(addr, &cfg.allow_hosts),
            html: Lang::ALL
                .iter()
                .map(|l| Arc::from(page::html_in(*l).into_bytes()))
                .collect(),
            words: Lang::ALL
                .iter()
                .map(|l| Arc::from(gpuledger_views::web::words_json_in(*l).into_bytes()))
                .collect(),
            lang: cfg.lang,
        });
        let (stop_tx, stop_rx) = mpsc::channel::<()>();
        let mut server = Server {
            addr,
            shared: shared.clone(),
            stop_collect: Some(stop_tx),
            waker: None,
            threads: Vec::new(),
        };
        if let Some(factory) = live {
            server
                .threads
                .push(start_collection(&cfg, factory, &shared, stop_rx)?);
        }
        let (waker, http) = start_connection_loop(&cfg, listener, &shared)?;
        server.waker = Some(waker);
        server.threads.push(http);
        Ok(server)
    }

    pub fn local_addr(&self) -> SocketAddr {
        self.addr
    }

    /// Stop accepting and close open connections, stop collecting (after the round in hand),
    /// join.
    pub fn shutdown(mut self) {
        self.stop();
    }

    fn stop(&mut self) {
        if self.shared.stop.swap(true, Ordering::SeqCst) {
            return;
        }
        self.stop_collect.take();
        if let Some(w) = &self.waker {
            let _ = w.wake();
        }
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

/// What is served before the first round: a replay's one moment, or (live) a placeholder the
/// first round replaces before any request is answered. Also the ring, the staleness limit, and
/// the live source's factory.
fn first_state(
    cfg: &ServeConfig,
    source: Source,
) -> (Published, history::Ring, Option<Duration>, Option<Factory>) {
    match source {
        Source::Replay { snapshot, path } => {
            // The recording's one moment, at the time it was taken.
            let at = gpuledger_model::time::parse_rfc3339_ms(&snapshot.taken_at)
                .unwrap_or_else(|_| gpuledger_model::time::now_ms());
            let mut ring = history::Ring::replay(&path);
            ring.push(&snapshot, at);
            let p = publish(&snapshot, cfg.metrics(), None, Some(&path));
            (p, ring, None, None)
        }
        Source::Live(factory) => (
            publish(
                &Snapshot::new(String::new(), Default::default()),
                (ProcessSeries::None, false),
                None,
                None,
            ),
            history::Ring::live(cfg.interval),
            Some(cfg.interval * 3 + Duration::from_secs(1)),
            Some(factory),
        ),
    }
}

/// Start the collection thread and wait for its first round: it is published before the first
/// request is answered, so every response has data (connections arriving meanwhile wait in the
/// listen backlog).
fn start_collection(
    cfg: &ServeConfig,
    factory: Factory,
    shared: &Arc<Shared>,
    stop: mpsc::Receiver<()>,
) -> io::Result<JoinHandle<()>> {
    let (first_tx, first_rx) = mpsc::sync_channel::<()>(1);
    let (cfg, shared) = (cfg.clone(), shared.clone());
    let t = std::thread::Builder::new()
        .name("gpuledger-collect".into())
        .spawn(move || collection_loop(cfg, factory, shared, first_tx, stop))?;
    first_rx
        .recv()
        .map_err(|_| io::Error::other("the collection thread stopped before its first round"))?;
    Ok(t)
}

/// Start the connection loop on `listener`: the waker that stops it, and its thread.
fn start_connection_loop(
    cfg: &ServeConfig,
    listener: std::net::TcpListener,
    shared: &Arc<Shared>,
) -> io::Result<(mio::Waker, JoinHandle<()>)> {
    let poll = mio::Poll::new()?;
    let waker = mio::Waker::new(poll.registry(), net::WAKER)?;
    listener.set_nonblocking(true)?;
    let mut listener = mio::net::TcpListener::from_std(listener);
    poll.registry()
        .register(&mut listener, net::LISTENER, mio::Interest::READABLE)?;
    let shared2 = shared.clone();
    let answer: Box<net::Answer> = Box::new(move |head| answer(head, &shared2));
    let shared3 = shared.clone();
    let stop = Box::new(move || shared3.stop.load(Ordering::SeqCst));
    let busy = Response {
        extra_headers: vec![("Retry-After", "1".to_string())],
        ..Response::text(503, "busy: too many connections, try again\n")
    };
    let lp = net::Loop::new(poll, listener, limits(cfg), answer, busy, stop);
    let t = std::thread::Builder::new()
        .name("gpuledger-http".into())
        .spawn(move || lp.run())?;
    Ok((waker, t))
}

fn collection_loop(
    cfg: ServeConfig,
    factory: Factory,
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
        let p = publish(&snap, cfg.metrics(), Some(stats), None);
        if let Ok(mut h) = shared.history.lock() {
            h.push(&snap, gpuledger_model::time::now_ms());
        }
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

/// The connection loop's bounds for `cfg`, after raising the descriptor limit.
fn limits(cfg: &ServeConfig) -> net::Limits {
    let max_connections = cfg.max_connections.max(1);
    let budget = raise_nofile_limit()
        .map(|n| n.saturating_sub(RESERVED_FDS).max(8))
        .unwrap_or(usize::MAX);
    let max_open = budget.min(max_connections.saturating_mul(2));
    net::Limits {
        max_waiting: max_connections.min(max_open / 2).max(1),
        max_open,
        request_timeout: cfg.request_timeout,
        write_timeout: cfg.write_timeout,
    }
}

/// Raise this process's soft descriptor limit to its hard limit (capped at 65,536), as servers
/// commonly do: the default soft limit of 1,024 is less than one busy exporter can need, while
/// the hard limit is the administrator's real bound. Returns the soft limit now in force.
#[cfg(unix)]
fn raise_nofile_limit() -> Option<usize> {
    // SAFETY: plain system calls on a local struct.
    unsafe {
        let mut r: libc::rlimit = std::mem::zeroed();
        if libc::getrlimit(libc::RLIMIT_NOFILE, &mut r) != 0 {
            return None;
        }
        // macOS refuses more than OPEN_MAX (10,240) even under an unlimited hard limit.
        for want in [r.rlim_max.min(65_536), r.rlim_max.min(10_240)] {
            if r.rlim_cur >= want {
                break;
            }
            let raised = libc::rlimit {
                rlim_cur: want,
                rlim_max: r.rlim_max,
            };
            if libc::setrlimit(libc::RLIMIT_NOFILE, &raised) == 0 {
                r.rlim_cur = want;
            }
        }
        Some(usize::try_from(r.rlim_cur).unwrap_or(usize::MAX))
    }
}

#[cfg(not(unix))]
fn raise_nofile_limit() -> Option<usize> {
    None
}

/// The standard library listens with a backlog of 128; a burst of connections beyond it has
/// its SYNs dropped and retried a second later. Calling listen() again on a listening socket
/// only changes the backlog (the kernel caps it at somaxconn).
#[cfg(unix)]
fn deepen_backlog(l: &std::net::TcpListener) {
    use std::os::fd::AsRawFd;
    // SAFETY: listen() on a descriptor we own.
    unsafe {
        libc::listen(l.as_raw_fd(), 4096);
    }
}

#[cfg(not(unix))]
fn deepen_backlog(_: &std::net::TcpListener) {}

/// The answer to one request head, or to a head that could not be read.
fn answer(head: Result<&[u8], HeadError>, shared: &Shared) -> Option<Response> {
    let req = match head.and_then(http::parse_head) {
        Ok(r) => r,
        Err(HeadError::Closed) => return None,
        Err(HeadError::Timeout) => {
            return Some(Response::text(408, "request head not received in time\n"))
        }
        Err(HeadError::TooLarge) => return Some(Response::text(431, "request head too large\n")),
        Err(HeadError::Malformed(m)) => {
            return Some(Response::text(400, &format!("malformed request: {m}\n")))
        }
    };
    // Before anything else: a page that rebinds its name to this machine learns nothing.
    if let Err(r) = shared.hosts.check(req.host.as_deref(), req.http10) {
        return Some(Response::text(r.status, &format!("{}\n", r.reason)));
    }
    let head_only = req.method == "HEAD";
    if req.method != "GET" && !head_only {
        return Some(Response {
            extra_headers: vec![("Allow", "GET, HEAD".to_string())],
            ..Response::text(405, "read-only: only GET and HEAD are served\n")
        });
    }
    // Clone the Arc and release the lock at once: answering never blocks publishing.
    let latest = match shared.latest.read() {
        Ok(g) => Arc::clone(&g),
        Err(p) => Arc::clone(&p.into_inner()),
    };
    let ok = |content_type, body: &Arc<[u8]>| Response {
        status: 200,
        content_type,
        body: body.clone(),
        extra_headers: Vec::new(),
        head_only: false,
    };
    let mut r = match req.path.as_str() {
        "/metrics" => ok(gpuledger_views::prometheus::CONTENT_TYPE, &latest.metrics),
        "/api/v1/snapshot" => ok("application/json", &latest.json),
        "/api/v1/history" => history_answer(&req.query, shared),
        "/" => in_language(&req, shared, "text/html; charset=utf-8", &shared.html),
        "/api/v1/words" => in_language(&req, shared, "application/json", &shared.words),
        "/api/v1/said" => in_language(&req, shared, "application/json", &latest.said),
        "/healthz" => {
            let age = latest.at.elapsed();
            let health = match shared.stale_after {
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
        path => match shared.assets.iter().find(|a| a.0 == path) {
            Some((_, ctype, body)) => ok(ctype, body),
            None => Response::text(
                404,
                "not found: try /, /metrics, /api/v1/snapshot, /api/v1/history, /api/v1/words or /healthz\n",
            ),
        },
    };
    r.head_only = head_only;
    Some(r)
}

/// One of the answers written in each language: the request's ([`page::choose_lang`]).
fn in_language(
    req: &http::Request,
    shared: &Shared,
    content_type: &'static str,
    each: &[Arc<[u8]>],
) -> Response {
    let lang = page::choose_lang(&req.query, req.accept_language.as_deref(), shared.lang);
    let i = Lang::ALL.iter().position(|l| *l == lang).unwrap_or(0);
    Response {
        status: 200,
        content_type,
        body: each[i].clone(),
        extra_headers: vec![
            ("Content-Language", lang.code().to_string()),
            ("Vary", "Accept-Language".to_string()),
        ],
        head_only: false,
    }
}

/// `/api/v1/history?since=MS`: the ring's samples after `MS`.
fn history_answer(query: &str, shared: &Shared) -> Response {
    let since = match history::parse_since(query) {
        Ok(s) => s,
        Err(e) => return Response::text(400, &format!("bad query: {e}\n")),
    };
    let body = match shared.history.lock() {
        Ok(h) => h.answer(since),
        Err(p) => p.into_inner().answer(since),
    };
    Response {
        status: 200,
        content_type: "application/json",
        body: Arc::from(body.into_bytes()),
        extra_headers: Vec::new(),
        head_only: false,
    }
}

#[cfg(test)]
mod tests;
