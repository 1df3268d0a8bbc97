//! The connection loop: one thread waits on readiness (epoll, kqueue or IOCP through mio) for
//! every open connection at once, so a silent or slow client costs a table entry and a
//! descriptor, never a thread. Requests are read as their bytes arrive and answered from the
//! published round, which is already rendered: answering is copying bytes into a socket.
//!
//! Every deadline runs from the moment the connection is accepted (the head must arrive whole
//! within the request deadline), not from when some worker gets round to it, and nothing waits
//! in a queue behind another client.
//!
//! Bounds (so a flood costs answers, not memory or descriptors):
//! - at most `max_waiting` connections wait for their request head. When that many are
//!   waiting, the one waiting longest is answered 503 to make room if it has waited a quarter of
//!   the request deadline (a real client sends its request within a round trip); otherwise the
//!   newcomer is answered 503 with `Retry-After`;
//! - at most `max_open` connections are open in all (waiting, being answered, or closing). A
//!   new connection takes the place of the answered one that has lingered longest; when none
//!   lingers, it gets its 503 written at once, without waiting, and is closed;
//! - descriptors: the process's soft limit is raised to its hard limit where allowed, and
//!   [`RESERVED_FDS`] are left to collection whatever the clients do;
//! - if accepting fails anyway (out of descriptors), new connections stay in the kernel's
//!   listen backlog and accepting is retried shortly: they wait, they are not dropped.
//!
//! After an answer, the write side is shut and the connection lingers up to [`LINGER`] for the
//! client to close, discarding at most [`DRAIN_MAX`] bytes: closing with unread request bytes
//! would reset the connection and could destroy the answer in flight.

use crate::http::{find_end, HeadError, Response, MAX_HEAD};
use mio::net::{TcpListener, TcpStream};
use mio::{Events, Interest, Poll, Token};
use std::io::{self, IoSlice, Read, Write};
use std::net::Shutdown;
use std::sync::Arc;
use std::time::{Duration, Instant};

pub(crate) const LISTENER: Token = Token(usize::MAX - 1);
pub(crate) const WAKER: Token = Token(usize::MAX - 2);

/// How long an answered connection may stay open for the client to close it first.
pub(crate) const LINGER: Duration = Duration::from_secs(1);
/// Whole deadline of a refused connection (write its 503, linger).
const REFUSE_DEADLINE: Duration = Duration::from_secs(1);
/// Most bytes discarded while lingering.
const DRAIN_MAX: usize = 64 * 1024;
/// Descriptors left for collection (/proc, sysfs, NVML, DRM nodes) however many clients come.
pub const RESERVED_FDS: usize = 128;
/// Retry accepting this soon after running out of descriptors.
const ACCEPT_RETRY: Duration = Duration::from_millis(50);

pub(crate) struct Limits {
    pub max_waiting: usize,
    pub max_open: usize,
    pub request_timeout: Duration,
    pub write_timeout: Duration,
}

/// What the loop asks of the server: the answer to a request head (or to a head that could not
/// be read: timeout, too large). `None`: nothing to answer, close.
pub(crate) type Answer = dyn Fn(Result<&[u8], HeadError>) -> Option<Response> + Send;

enum Phase {
    Reading {
        buf: Vec<u8>,
    },
    Writing {
        head: Vec<u8>,
        body: Arc<[u8]>,
        at: usize,
    },
    Draining {
        left: usize,
    },
}

struct Conn {
    stream: TcpStream,
    accepted: Instant,
    deadline: Instant,
    phase: Phase,
}

enum Step {
    Keep,
    Close,
}

impl Conn {
    fn waiting(&self) -> bool {
        matches!(self.phase, Phase::Reading { .. })
    }

    fn answer(&mut self, r: &Response, deadline: Instant) {
        self.phase = Phase::Writing {
            head: r.head_bytes(),
            body: if r.head_only {
                Arc::from(&[][..])
            } else {
                r.body.clone()
            },
            at: 0,
        };
        self.deadline = deadline;
    }

    /// Make all the progress the socket allows now.
    fn step(&mut self, answer: &Answer, limits: &Limits) -> Step {
        loop {
            match &mut self.phase {
                Phase::Reading { buf } => {
                    let head = match read_head(&mut self.stream, buf) {
                        Ok(None) => return Step::Keep,
                        Ok(Some(())) => Ok(&buf[..]),
                        Err(e) => Err(e),
                    };
                    let Some(r) = answer(head) else {
                        return Step::Close;
                    };
                    self.answer(&r, Instant::now() + limits.write_timeout);
                }
                Phase::Writing { head, body, at } => {
                    match write_some(&mut self.stream, head, body, at) {
                        Ok(false) => return Step::Keep,
                        Ok(true) => {
                            let _ = self.stream.shutdown(Shutdown::Write);
                            self.phase = Phase::Draining { left: DRAIN_MAX };
                            self.deadline = self.deadline.min(Instant::now() + LINGER);
                        }
                        Err(_) => return Step::Close,
                    }
                }
                Phase::Draining { left } => {
                    return match drain(&mut self.stream, left) {
                        true => Step::Keep,
                        false => Step::Close,
                    }
                }
            }
        }
    }
}

/// Read what has arrived. `Ok(Some(()))`: `buf` now holds a whole head (cut at its end);
/// `Ok(None)`: not yet, wait for more.
fn read_head(s: &mut TcpStream, buf: &mut Vec<u8>) -> Result<Option<()>, HeadError> {
    let mut chunk = [0u8; 2048];
    loop {
        match s.read(&mut chunk) {
            Ok(0) => return Err(HeadError::Closed),
            Ok(n) => {
                // Look for the end of the head only around what just arrived.
                let from = buf.len().saturating_sub(3);
                buf.extend_from_slice(&chunk[..n]);
                if let Some(end) = find_end(&buf[from..]) {
                    buf.truncate(from + end);
                    return Ok(Some(()));
                }
                if buf.len() > MAX_HEAD {
                    return Err(HeadError::TooLarge);
                }
            }
            Err(e) if e.kind() == io::ErrorKind::WouldBlock => return Ok(None),
            Err(e) if e.kind() == io::ErrorKind::Interrupted => {}
            Err(_) => return Err(HeadError::Closed),
        }
    }
}

/// Write until done (`Ok(true)`) or the socket is full (`Ok(false)`).
fn write_some(s: &mut TcpStream, head: &[u8], body: &[u8], at: &mut usize) -> io::Result<bool> {
    let total = head.len() + body.len();
    while *at < total {
        let r = if *at < head.len() {
            s.write_vectored(&[IoSlice::new(&head[*at..]), IoSlice::new(body)])
        } else {
            s.write(&body[*at - head.len()..])
        };
        match r {
            Ok(0) => return Err(io::ErrorKind::WriteZero.into()),
            Ok(n) => *at += n,
            Err(e) if e.kind() == io::ErrorKind::WouldBlock => return Ok(false),
            Err(e) if e.kind() == io::ErrorKind::Interrupted => {}
            Err(e) => return Err(e),
        }
    }
    Ok(true)
}

/// Discard what the client still sends; `false` once it closed, failed or sent too much.
fn drain(s: &mut TcpStream, left: &mut usize) -> bool {
    let mut sink = [0u8; 4096];
    loop {
        match s.read(&mut sink) {
            Ok(0) => return false,
            Ok(n) if n >= *left => return false,
            Ok(n) => *left -= n,
            Err(e) if e.kind() == io::ErrorKind::WouldBlock => return true,
            Err(e) if e.kind() == io::ErrorKind::Interrupted => {}
            Err(_) => return false,
        }
    }
}

pub(crate) struct Loop {
    pub poll: Poll,
    pub listener: TcpListener,
    pub limits: Limits,
    pub answer: Box<Answer>,
    /// The 503 a refused connection gets.
    pub busy: Response,
    pub stop: Box<dyn Fn() -> bool + Send>,
    conns: Vec<Option<Conn>>,
    free: Vec<usize>,
    open: usize,
    waiting: usize,
    /// Earliest deadline of any connection (a sweep then expires what is due).
    next_sweep: Option<Instant>,
    accept_retry: Option<Instant>,
}

impl Loop {
    pub fn new(
        poll: Poll,
        listener: TcpListener,
        limits: Limits,
        answer: Box<Answer>,
        busy: Response,
        stop: Box<dyn Fn() -> bool + Send>,
    ) -> Loop {
        Loop {
            poll,
            listener,
            limits,
            answer,
            busy,
            stop,
            conns: Vec::new(),
            free: Vec::new(),
            open: 0,
            waiting: 0,
            next_sweep: None,
            accept_retry: None,
        }
    }

    pub fn run(mut self) {
        let mut events = Events::with_capacity(512);
        loop {
            let now = Instant::now();
            let wake = match (self.next_sweep, self.accept_retry) {
                (Some(a), Some(b)) => Some(a.min(b)),
                (a, b) => a.or(b),
            };
            // An idle server with no connection sleeps until something happens.
            let timeout = wake.map(|t| t.saturating_duration_since(now));
            match self.poll.poll(&mut events, timeout) {
                Ok(()) => {}
                Err(e) if e.kind() == io::ErrorKind::Interrupted => continue,
                Err(_) => return,
            }
            if (self.stop)() {
                return;
            }
            let mut accept = false;
            for ev in events.iter() {
                match ev.token() {
                    LISTENER => accept = true,
                    WAKER => {}
                    Token(i) => self.progress(i),
                }
            }
            let now = Instant::now();
            if self.accept_retry.is_some_and(|t| now >= t) {
                self.accept_retry = None;
                accept = true;
            }
            if accept {
                self.accept();
            }
            if self.next_sweep.is_some_and(|t| Instant::now() >= t) {
                self.sweep();
            }
        }
    }

    fn accept(&mut self) {
        loop {
            match self.listener.accept() {
                Ok((s, _)) => self.admit(s),
                Err(e) if e.kind() == io::ErrorKind::WouldBlock => return,
                Err(e)
                    if matches!(
                        e.kind(),
                        io::ErrorKind::Interrupted
                            | io::ErrorKind::ConnectionAborted
                            | io::ErrorKind::ConnectionReset
                    ) => {}
                Err(_) => {
                    // Out of descriptors (or memory): the connections wait in the backlog.
                    self.accept_retry = Some(Instant::now() + ACCEPT_RETRY);
                    return;
                }
            }
        }
    }

    fn admit(&mut self, stream: TcpStream) {
        if self.open >= self.limits.max_open {
            // An answered connection only waits for its client's close: it gives its place.
            if let Some(i) = self.longest_lingering() {
                self.evict(i);
            }
        }
        if self.open >= self.limits.max_open {
            // Beyond every budget: the answer still goes out (a fresh socket's send buffer
            // holds it), then the connection is closed without lingering.
            let mut s = stream;
            let mut at = 0;
            let _ = write_some(&mut s, &self.busy.head_bytes(), &self.busy.body, &mut at);
            let _ = s.shutdown(Shutdown::Write);
            return;
        }
        let _ = stream.set_nodelay(true);
        let now = Instant::now();
        let mut c = Conn {
            stream,
            accepted: now,
            deadline: now + self.limits.request_timeout,
            phase: Phase::Reading { buf: Vec::new() },
        };
        // Most clients send their request with the connection: answer it now if it is here.
        if let Step::Close = c.step(&*self.answer, &self.limits) {
            return;
        }
        if c.waiting() && self.waiting >= self.limits.max_waiting {
            match self.longest_waiting(now) {
                Some(i) => self.refuse(i),
                None => c.answer(&self.busy, now + REFUSE_DEADLINE),
            }
            if let Step::Close = c.step(&*self.answer, &self.limits) {
                return;
            }
        }
        self.insert(c);
    }

    /// The connection that has waited longest for its head, if it waited long enough to be
    /// cut short for a newcomer.
    fn longest_waiting(&self, now: Instant) -> Option<usize> {
        let min_wait = self.limits.request_timeout / 4;
        self.conns
            .iter()
            .enumerate()
            .filter_map(|(i, c)| c.as_ref().filter(|c| c.waiting()).map(|c| (i, c.accepted)))
            .min_by_key(|&(_, at)| at)
            .filter(|&(_, at)| now.duration_since(at) >= min_wait)
            .map(|(i, _)| i)
    }

    /// The answered connection that has lingered longest for its client's close.
    fn longest_lingering(&self) -> Option<usize> {
        self.conns
            .iter()
            .enumerate()
            .filter_map(|(i, c)| {
                c.as_ref()
                    .filter(|c| matches!(c.phase, Phase::Draining { .. }))
                    .map(|c| (i, c.accepted))
            })
            .min_by_key(|&(_, at)| at)
            .map(|(i, _)| i)
    }

    /// Close an answered connection before its linger ends: what the client sent since is read
    /// first, so the close is a FIN rather than a reset that could cost it the answer.
    fn evict(&mut self, i: usize) {
        if let Some(Conn {
            stream,
            phase: Phase::Draining { left },
            ..
        }) = self.conns[i].as_mut()
        {
            drain(stream, left);
        }
        self.close(i);
    }

    fn refuse(&mut self, i: usize) {
        if let Some(c) = self.conns[i].as_mut() {
            c.answer(&self.busy, Instant::now() + REFUSE_DEADLINE);
            self.waiting -= 1;
        }
        self.progress(i);
    }

    fn insert(&mut self, mut c: Conn) {
        let i = self.free.pop().unwrap_or_else(|| {
            self.conns.push(None);
            self.conns.len() - 1
        });
        if self
            .poll
            .registry()
            .register(
                &mut c.stream,
                Token(i),
                Interest::READABLE | Interest::WRITABLE,
            )
            .is_err()
        {
            self.free.push(i);
            return;
        }
        self.open += 1;
        if c.waiting() {
            self.waiting += 1;
        }
        self.next_sweep = Some(self.next_sweep.map_or(c.deadline, |t| t.min(c.deadline)));
        self.conns[i] = Some(c);
    }

    fn close(&mut self, i: usize) {
        if let Some(mut c) = self.conns[i].take() {
            let _ = self.poll.registry().deregister(&mut c.stream);
            self.open -= 1;
            if c.waiting() {
                self.waiting -= 1;
            }
            self.free.push(i);
        }
    }

    fn progress(&mut self, i: usize) {
        let Some(c) = self.conns.get_mut(i).and_then(Option::as_mut) else {
            return;
        };
        let was_waiting = c.waiting();
        let step = c.step(&*self.answer, &self.limits);
        if was_waiting && !c.waiting() {
            self.waiting -= 1;
        }
        let deadline = c.deadline;
        match step {
            Step::Keep => {
                self.next_sweep = Some(self.next_sweep.map_or(deadline, |t| t.min(deadline)))
            }
            // `close` counts it out of the waiting ones if it still is one.
            Step::Close => self.close(i),
        }
    }

    /// Expire what is due; find the next deadline.
    fn sweep(&mut self) {
        let now = Instant::now();
        let mut next: Option<Instant> = None;
        for i in 0..self.conns.len() {
            let Some(c) = self.conns[i].as_mut() else {
                continue;
            };
            if c.deadline <= now {
                if c.waiting() {
                    // No whole head in time: say so (408), briefly.
                    match (self.answer)(Err(HeadError::Timeout)) {
                        Some(r) => {
                            c.answer(&r, now + REFUSE_DEADLINE);
                            self.waiting -= 1;
                            self.progress(i);
                        }
                        None => self.close(i),
                    }
                } else {
                    self.close(i);
                }
            }
            if let Some(c) = self.conns[i].as_ref() {
                next = Some(next.map_or(c.deadline, |t| t.min(c.deadline)));
            }
        }
        self.next_sweep = next;
    }
}
