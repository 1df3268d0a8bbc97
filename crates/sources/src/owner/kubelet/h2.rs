//! A unary gRPC client over HTTP/2 with prior knowledge (RFC 9113 §3.3) on a blocking unix
//! socket: just enough to ask the kubelet's pod-resources API two questions per connection.
//!
//! Why not tonic: it needs tokio and hyper, which nothing else in gpuledger uses, for two
//! calls that carry a few kilobytes. What this client does: the connection preface and
//! SETTINGS (and their ACK), one HEADERS frame per call with HPACK literal fields that are
//! never indexed (so nothing of ours needs a table), one DATA frame with the 5-byte gRPC
//! prefix; then it reads HEADERS, CONTINUATION, DATA and trailers, answers PING and SETTINGS,
//! and reads GOAWAY and RST_STREAM as the errors they are. Answers are HPACK-decoded with
//! `loona-hpack` (Huffman and the dynamic table, bounded).
//!
//! Everything is bounded: frames at 16 KiB (the default we never raise), header blocks at
//! 64 KiB, the message at `max_message`, and the whole exchange by one deadline: every read
//! and write gets the time left, so a socket that accepts and then hangs costs at most the
//! deadline, never a stalled refresh.

pub use super::grpc_error::CallError;
use gpuledger_model::term_safe;
use std::io::{Read, Write};
use std::os::unix::net::UnixStream;
use std::path::Path;
use std::time::{Duration, Instant};

const PREFACE: &[u8] = b"PRI * HTTP/2.0\r\n\r\nSM\r\n\r\n";
/// Frames are never larger than the default SETTINGS_MAX_FRAME_SIZE, which we do not raise.
const MAX_FRAME: usize = 16_384;
/// One header block (HEADERS and its CONTINUATIONs), encoded.
const MAX_HEADER_BLOCK: usize = 64 * 1024;
/// The decoded header list, as RFC 9113 §6.5.2 sizes it (each field's name and value plus 32
/// octets); announced as SETTINGS_MAX_HEADER_LIST_SIZE. HPACK lets a few bytes name a large
/// table entry again, so without it a 64 KiB block of one-byte references to a 4,000-byte
/// literal decodes to 256 MB.
const MAX_HEADER_LIST: usize = 64 * 1024;

/// One HTTP/2 connection, with the deadline every call on it shares.
pub struct Conn {
    sock: UnixStream,
    hpack: loona_hpack::Decoder<'static>,
    next_stream: u32,
    started: Instant,
    deadline: Duration,
    max_message: usize,
    /// Has the server's preface (a SETTINGS frame) arrived?
    preface_seen: bool,
}

mod frame {
    pub const DATA: u8 = 0;
    pub const HEADERS: u8 = 1;
    pub const RST_STREAM: u8 = 3;
    pub const SETTINGS: u8 = 4;
    pub const PUSH_PROMISE: u8 = 5;
    pub const PING: u8 = 6;
    pub const GOAWAY: u8 = 7;
    pub const WINDOW_UPDATE: u8 = 8;
    pub const CONTINUATION: u8 = 9;
    pub const END_STREAM: u8 = 0x1;
    pub const ACK: u8 = 0x1;
    pub const END_HEADERS: u8 = 0x4;
    pub const PADDED: u8 = 0x8;
    pub const PRIORITY: u8 = 0x20;
}

/// What one call's stream has received so far.
#[derive(Default)]
struct Answer {
    headers_seen: bool,
    body: Vec<u8>,
    grpc_status: Option<u32>,
    grpc_message: String,
    done: bool,
}

impl Conn {
    /// Connects to `socket` and sends the preface and our SETTINGS. `deadline` bounds the
    /// connection's whole life, every call included.
    pub fn open(socket: &Path, deadline: Duration, max_message: usize) -> Result<Conn, CallError> {
        let started = Instant::now();
        let sock = super::connect::connect(socket, started + deadline)?;
        Conn::over(sock, started, deadline, max_message)
    }

    /// The same over a connected socket (`open`, and the tests' socket pairs).
    fn over(
        sock: UnixStream,
        started: Instant,
        deadline: Duration,
        max_message: usize,
    ) -> Result<Conn, CallError> {
        let mut hpack = loona_hpack::Decoder::new();
        // The server may not grow the table past the default we announce (4096).
        hpack.set_max_allowed_table_size(4096);
        let mut c = Conn {
            sock,
            hpack,
            next_stream: 1,
            started,
            deadline,
            max_message,
            preface_seen: false,
        };
        // Our window must hold a whole answer: the stream's initial window and the
        // connection's (raised by WINDOW_UPDATE) are set to the largest message plus its prefix.
        let window = (max_message + 5).min(0x7fff_ffff) as u32;
        let mut out = PREFACE.to_vec();
        let mut settings = Vec::new();
        for (id, v) in [(0x2u16, 0u32), (0x4, window), (0x6, MAX_HEADER_LIST as u32)] {
            settings.extend_from_slice(&id.to_be_bytes());
            settings.extend_from_slice(&v.to_be_bytes());
        }
        push_frame(&mut out, frame::SETTINGS, 0, 0, &settings);
        let inc = window.saturating_sub(65_535);
        push_frame(&mut out, frame::WINDOW_UPDATE, 0, 0, &inc.to_be_bytes());
        c.write(&out, "sending the HTTP/2 preface")?;
        Ok(c)
    }

    fn left(&self, stage: &'static str) -> Result<Duration, CallError> {
        let left = self.deadline.saturating_sub(self.started.elapsed());
        if left.is_zero() {
            return Err(CallError::Timeout {
                stage,
                after: self.deadline,
            });
        }
        Ok(left)
    }

    fn io_err(&self, e: std::io::Error, stage: &'static str) -> CallError {
        match e.kind() {
            std::io::ErrorKind::WouldBlock | std::io::ErrorKind::TimedOut => CallError::Timeout {
                stage,
                after: self.deadline,
            },
            std::io::ErrorKind::UnexpectedEof => {
                CallError::Protocol(format!("the connection closed while {stage}"))
            }
            _ => CallError::Protocol(format!("{stage}: {e}")),
        }
    }

    fn write(&mut self, buf: &[u8], stage: &'static str) -> Result<(), CallError> {
        let left = self.left(stage)?;
        self.sock
            .set_write_timeout(Some(left))
            .map_err(|e| self.io_err(e, stage))?;
        let r = self.sock.write_all(buf);
        r.map_err(|e| self.io_err(e, stage))
    }

    fn read_exact(&mut self, buf: &mut [u8], stage: &'static str) -> Result<(), CallError> {
        let mut got = 0;
        while got < buf.len() {
            let left = self.left(stage)?;
            self.sock
                .set_read_timeout(Some(left))
                .map_err(|e| self.io_err(e, stage))?;
            match self.sock.read(&mut buf[got..]) {
                Ok(0) => {
                    return Err(CallError::Protocol(format!(
                        "the connection closed while {stage}"
                    )))
                }
                Ok(n) => got += n,
                Err(e) if e.kind() == std::io::ErrorKind::Interrupted => {}
                Err(e) => return Err(self.io_err(e, stage)),
            }
        }
        Ok(())
    }

    /// Calls `path` (`/v1.PodResourcesLister/List`) with the encoded request; the answer's
    /// message bytes (without the gRPC prefix).
    pub fn call(&mut self, path: &str, request: &[u8]) -> Result<Vec<u8>, CallError> {
        let stream = self.next_stream;
        self.next_stream += 2;
        let timeout_ms = self.left("sending the request")?.as_millis().max(1);
        let mut block = Vec::new();
        for (name, value) in [
            (":method", "POST"),
            (":scheme", "http"),
            (":path", path),
            (":authority", "localhost"),
            ("content-type", "application/grpc"),
            ("te", "trailers"),
            ("grpc-timeout", &format!("{timeout_ms}m")),
        ] {
            literal(&mut block, name, value);
        }
        let mut body = vec![0u8];
        body.extend_from_slice(&(request.len() as u32).to_be_bytes());
        body.extend_from_slice(request);
        let mut out = Vec::new();
        push_frame(&mut out, frame::HEADERS, frame::END_HEADERS, stream, &block);
        push_frame(&mut out, frame::DATA, frame::END_STREAM, stream, &body);
        self.write(&out, "sending the request")?;
        let mut answer = Answer::default();
        while !answer.done {
            self.read_frame(stream, &mut answer)?;
        }
        let consumed = answer.body.len() as u32;
        if consumed > 0 {
            // Give the connection's window back for the next call.
            let mut out = Vec::new();
            push_frame(
                &mut out,
                frame::WINDOW_UPDATE,
                0,
                0,
                &consumed.to_be_bytes(),
            );
            self.write(&out, "sending a window update")?;
        }
        finish(answer, self.max_message)
    }

    /// Reads one frame and applies it to `stream`'s answer.
    fn read_frame(&mut self, stream: u32, a: &mut Answer) -> Result<(), CallError> {
        let stage = "waiting for the answer";
        let mut head = [0u8; 9];
        self.read_exact(&mut head, stage)?;
        let len = u32::from_be_bytes([0, head[0], head[1], head[2]]) as usize;
        let (kind, flags) = (head[3], head[4]);
        let id = u32::from_be_bytes([head[5], head[6], head[7], head[8]]) & 0x7fff_ffff;
        if !self.preface_seen {
            // A server's first frame is its SETTINGS (RFC 9113 §3.4).
            if kind != frame::SETTINGS || flags & frame::ACK != 0 {
                let start: String = String::from_utf8_lossy(&head).escape_debug().collect();
                return Err(CallError::Protocol(format!(
                    "the server did not start with HTTP/2 SETTINGS (its first bytes: \"{start}\")"
                )));
            }
            self.preface_seen = true;
        }
        if len > MAX_FRAME {
            return Err(CallError::Protocol(format!(
                "a frame of {len} bytes, over the {MAX_FRAME}-byte maximum we announced"
            )));
        }
        let mut payload = vec![0u8; len];
        self.read_exact(&mut payload, stage)?;
        match kind {
            frame::SETTINGS if flags & frame::ACK == 0 => {
                if id != 0 || !len.is_multiple_of(6) {
                    return Err(CallError::Protocol("a malformed SETTINGS frame".into()));
                }
                let mut ack = Vec::new();
                push_frame(&mut ack, frame::SETTINGS, frame::ACK, 0, &[]);
                self.write(&ack, "acknowledging SETTINGS")?;
            }
            frame::PING if flags & frame::ACK == 0 => {
                let mut pong = Vec::new();
                push_frame(&mut pong, frame::PING, frame::ACK, 0, &payload);
                self.write(&pong, "answering a PING")?;
            }
            frame::GOAWAY => goaway(&payload, stream)?,
            frame::PUSH_PROMISE => {
                return Err(CallError::Protocol(
                    "a PUSH_PROMISE, which we disabled".into(),
                ))
            }
            frame::RST_STREAM if id == stream => {
                let code = payload
                    .get(..4)
                    .map_or(0, |b| u32::from_be_bytes(b.try_into().unwrap_or_default()));
                return Err(CallError::Protocol(format!(
                    "the server reset the stream (HTTP/2 error code {code})"
                )));
            }
            frame::HEADERS if id == stream => self.headers(flags, payload, stream, a)?,
            frame::DATA if id == stream => data(flags, &payload, a, self.max_message)?,
            frame::CONTINUATION => {
                return Err(CallError::Protocol("a CONTINUATION out of place".into()))
            }
            // WINDOW_UPDATE (our request fits the default window), PRIORITY, ACKs, frames of
            // other streams and unknown types are ignored, as RFC 9113 §4.1 and §5.5 say.
            _ => {}
        }
        Ok(())
    }

    /// A HEADERS frame and its CONTINUATIONs: the response head, or the trailers.
    fn headers(
        &mut self,
        flags: u8,
        payload: Vec<u8>,
        stream: u32,
        a: &mut Answer,
    ) -> Result<(), CallError> {
        let mut block = unpad(flags, &payload)?.to_vec();
        if flags & frame::PRIORITY != 0 {
            block.drain(..5.min(block.len()));
        }
        let mut end_headers = flags & frame::END_HEADERS != 0;
        while !end_headers {
            let mut head = [0u8; 9];
            self.read_exact(&mut head, "reading header continuation")?;
            let len = u32::from_be_bytes([0, head[0], head[1], head[2]]) as usize;
            let id = u32::from_be_bytes([head[5], head[6], head[7], head[8]]) & 0x7fff_ffff;
            if head[3] != frame::CONTINUATION || id != stream || len > MAX_FRAME {
                return Err(CallError::Protocol("a header block cut short".into()));
            }
            if block.len() + len > MAX_HEADER_BLOCK {
                return Err(CallError::Protocol(format!(
                    "a header block over {MAX_HEADER_BLOCK} bytes"
                )));
            }
            let mut more = vec![0u8; len];
            self.read_exact(&mut more, "reading header continuation")?;
            block.extend_from_slice(&more);
            end_headers = head[4] & frame::END_HEADERS != 0;
        }
        let fields = decode_headers(&mut self.hpack, &block)?;
        apply_headers(&fields, a)?;
        a.done |= flags & frame::END_STREAM != 0;
        Ok(())
    }
}

/// A decoded header field: name and value.
type HeaderField = (Vec<u8>, Vec<u8>);

/// Decodes a header block, refusing a list over [`MAX_HEADER_LIST`]. The whole block is still
/// decoded (the dynamic table must stay in step with the server's), but nothing past the limit
/// is copied: an indexed field is a borrow from the table.
fn decode_headers(
    hpack: &mut loona_hpack::Decoder<'static>,
    block: &[u8],
) -> Result<Vec<HeaderField>, CallError> {
    let (mut fields, mut size) = (Vec::new(), 0usize);
    hpack
        .decode_with_cb(block, |name, value| {
            size = size.saturating_add(name.len() + value.len() + 32);
            if size <= MAX_HEADER_LIST {
                fields.push((name.into_owned(), value.into_owned()));
            }
        })
        .map_err(|e| CallError::Protocol(format!("undecodable HPACK header block ({e:?})")))?;
    if size > MAX_HEADER_LIST {
        return Err(CallError::Protocol(format!(
            "a header list of {size} bytes decoded from a {}-byte block, over the {MAX_HEADER_LIST} bytes we announced (SETTINGS_MAX_HEADER_LIST_SIZE)",
            block.len()
        )));
    }
    Ok(fields)
}

/// The response head (`:status`, `content-type`) or trailers (`grpc-status`, `grpc-message`).
fn apply_headers(fields: &[(Vec<u8>, Vec<u8>)], a: &mut Answer) -> Result<(), CallError> {
    let get = |n: &str| {
        fields
            .iter()
            .find(|(k, _)| k == n.as_bytes())
            .map(|(_, v)| String::from_utf8_lossy(v).into_owned())
    };
    if !a.headers_seen {
        a.headers_seen = true;
        let status = get(":status").unwrap_or_default();
        if status != "200" {
            return Err(CallError::Protocol(format!("HTTP status {status:?}")));
        }
        let ct = get("content-type").unwrap_or_default();
        if !ct.starts_with("application/grpc") {
            return Err(CallError::Protocol(format!("content-type {ct:?}")));
        }
    }
    if let Some(s) = get("grpc-status") {
        a.grpc_status = Some(
            s.trim()
                .parse()
                .map_err(|_| CallError::Protocol(format!("grpc-status {s:?} is not a number")))?,
        );
        // The server's words, kept on one line like every text from outside.
        let message = percent_decode(&get("grpc-message").unwrap_or_default());
        a.grpc_message = term_safe(&message).into_owned();
    }
    Ok(())
}

/// The gRPC message of a finished stream.
fn finish(mut a: Answer, max: usize) -> Result<Vec<u8>, CallError> {
    match a.grpc_status {
        Some(0) => {}
        Some(code) => {
            return Err(CallError::Status {
                code,
                message: a.grpc_message.chars().take(300).collect(),
            })
        }
        None => {
            return Err(CallError::Protocol(
                "the stream ended without grpc-status".into(),
            ))
        }
    }
    check_prefix(&a.body, max)?;
    if a.body.len() < 5 {
        return Err(CallError::Protocol("no message in the answer".into()));
    }
    if a.body[0] != 0 {
        return Err(CallError::Protocol(
            "a compressed message, which we did not offer to accept".into(),
        ));
    }
    let declared = u32::from_be_bytes([a.body[1], a.body[2], a.body[3], a.body[4]]) as usize;
    if a.body.len() - 5 != declared {
        return Err(CallError::Protocol(format!(
            "the message says {declared} bytes but {} came",
            a.body.len() - 5
        )));
    }
    // In place: a second copy of a 16 MiB answer would double the peak.
    a.body.drain(..5);
    Ok(a.body)
}

/// A DATA frame of our stream: appended to the answer within the message limit.
fn data(flags: u8, payload: &[u8], a: &mut Answer, max: usize) -> Result<(), CallError> {
    let data = unpad(flags, payload)?;
    if a.body.len() + data.len() > max + 5 {
        return Err(CallError::TooLarge {
            bytes: (a.body.len() + data.len()) as u64,
            max,
        });
    }
    let before = a.body.len();
    a.body.extend_from_slice(data);
    check_prefix(&a.body, max)?;
    if before < 5 && a.body.len() >= 5 {
        // One allocation of the declared size (checked against the limit above), not a
        // doubling to twice it.
        let declared = u32::from_be_bytes([a.body[1], a.body[2], a.body[3], a.body[4]]);
        a.body
            .reserve_exact((declared as usize + 5).saturating_sub(a.body.len()));
    }
    a.done |= flags & frame::END_STREAM != 0;
    Ok(())
}

/// Fails as soon as the gRPC prefix declares a message over the limit.
fn check_prefix(body: &[u8], max: usize) -> Result<(), CallError> {
    if body.len() >= 5 {
        let declared = u32::from_be_bytes([body[1], body[2], body[3], body[4]]) as u64;
        if declared > max as u64 {
            return Err(CallError::TooLarge {
                bytes: declared,
                max,
            });
        }
    }
    Ok(())
}

fn goaway(payload: &[u8], stream: u32) -> Result<(), CallError> {
    if payload.len() < 8 {
        return Err(CallError::Protocol("a malformed GOAWAY frame".into()));
    }
    let last = u32::from_be_bytes([payload[0], payload[1], payload[2], payload[3]]) & 0x7fff_ffff;
    let code = u32::from_be_bytes([payload[4], payload[5], payload[6], payload[7]]);
    if last < stream {
        let debug: String = String::from_utf8_lossy(&payload[8..])
            .chars()
            .take(200)
            .collect();
        let debug = term_safe(&debug);
        return Err(CallError::Protocol(format!(
            "the server closed the connection (GOAWAY, error code {code}{}{debug})",
            if debug.is_empty() { "" } else { ": " }
        )));
    }
    Ok(())
}

/// A frame's payload without its padding (PADDED flag).
fn unpad(flags: u8, payload: &[u8]) -> Result<&[u8], CallError> {
    if flags & frame::PADDED == 0 {
        return Ok(payload);
    }
    let pad = *payload
        .first()
        .ok_or_else(|| CallError::Protocol("a padded frame with no pad length".into()))?
        as usize;
    if pad + 1 > payload.len() {
        return Err(CallError::Protocol("padding longer than its frame".into()));
    }
    Ok(&payload[1..payload.len() - pad])
}

fn push_frame(out: &mut Vec<u8>, kind: u8, flags: u8, stream: u32, payload: &[u8]) {
    let len = payload.len() as u32;
    out.extend_from_slice(&len.to_be_bytes()[1..]);
    out.extend_from_slice(&[kind, flags]);
    out.extend_from_slice(&stream.to_be_bytes());
    out.extend_from_slice(payload);
}

/// An HPACK "literal header field never indexed" with a new name, no Huffman (RFC 7541 §6.2.3).
fn literal(out: &mut Vec<u8>, name: &str, value: &str) {
    out.push(0x10);
    for s in [name, value] {
        hpack_int(out, s.len(), 7, 0);
        out.extend_from_slice(s.as_bytes());
    }
}

/// An HPACK integer with an `n`-bit prefix (RFC 7541 §5.1).
fn hpack_int(out: &mut Vec<u8>, mut v: usize, n: u32, first: u8) {
    let max = (1usize << n) - 1;
    if v < max {
        out.push(first | v as u8);
        return;
    }
    out.push(first | max as u8);
    v -= max;
    while v >= 128 {
        out.push((v % 128) as u8 | 0x80);
        v /= 128;
    }
    out.push(v as u8);
}

/// `grpc-message` is percent-encoded (gRPC over HTTP/2, "Responses").
fn percent_decode(s: &str) -> String {
    let b = s.as_bytes();
    let mut out = Vec::with_capacity(b.len());
    let mut i = 0;
    while i < b.len() {
        let hex = |c: u8| (c as char).to_digit(16);
        if b[i] == b'%' && i + 2 < b.len() {
            if let (Some(h), Some(l)) = (hex(b[i + 1]), hex(b[i + 2])) {
                out.push((h * 16 + l) as u8);
                i += 3;
                continue;
            }
        }
        out.push(b[i]);
        i += 1;
    }
    String::from_utf8_lossy(&out).into_owned()
}

/// Decodes an HPACK block with the client's decoder settings and bounds: for the fuzz tests.
#[cfg(test)]
pub(crate) fn decode_block(block: &[u8]) -> Result<Vec<HeaderField>, String> {
    let mut d = loona_hpack::Decoder::new();
    d.set_max_allowed_table_size(4096);
    decode_headers(&mut d, block).map_err(|e| e.to_string())
}

/// One `List` call whose server sends `bytes` and closes (what anything on the kubelet's socket
/// could answer), over a socket pair: the fuzz target's and the tests' way into the client.
pub(super) fn call_against(bytes: &[u8], max_message: usize) -> Result<Vec<u8>, CallError> {
    let (a, mut b) =
        UnixStream::pair().map_err(|e| CallError::Connect(format!("socket pair: {e}")))?;
    let bytes = bytes.to_vec();
    let t = std::thread::spawn(move || {
        let _ = b.write_all(&bytes);
        let _ = b.shutdown(std::net::Shutdown::Write);
        // Drain what the client sends so that its writes never block.
        let mut sink = [0u8; 4096];
        let _ = b.set_read_timeout(Some(Duration::from_millis(2_000)));
        while matches!(b.read(&mut sink), Ok(n) if n > 0) {}
    });
    let r = Conn::over(a, Instant::now(), Duration::from_millis(500), max_message)
        .and_then(|mut c| c.call("/v1.PodResourcesLister/List", &[]));
    let _ = t.join();
    r
}

#[cfg(test)]
mod tests {
    use super::*;
    use proptest::prelude::*;

    /// A call whose server sends `bytes` and closes: always an error or an answer, no panic.
    fn call_against(bytes: &[u8]) -> Result<Vec<u8>, CallError> {
        super::call_against(bytes, 1 << 20)
    }

    /// A well-formed server answer: SETTINGS, head, one message, trailers.
    fn good_answer(msg: &[u8]) -> Vec<u8> {
        let mut out = Vec::new();
        push_frame(&mut out, frame::SETTINGS, 0, 0, &[]);
        let mut head = Vec::new();
        literal(&mut head, ":status", "200");
        literal(&mut head, "content-type", "application/grpc");
        push_frame(&mut out, frame::HEADERS, frame::END_HEADERS, 1, &head);
        let mut body = vec![0u8];
        body.extend_from_slice(&(msg.len() as u32).to_be_bytes());
        body.extend_from_slice(msg);
        push_frame(&mut out, frame::DATA, 0, 1, &body);
        let mut trailers = Vec::new();
        literal(&mut trailers, "grpc-status", "0");
        let flags = frame::END_HEADERS | frame::END_STREAM;
        push_frame(&mut out, frame::HEADERS, flags, 1, &trailers);
        out
    }

    #[test]
    fn a_well_formed_answer_is_read_and_every_truncation_fails_cleanly() {
        let answer = good_answer(b"\x0a\x03abc");
        assert_eq!(call_against(&answer).unwrap(), b"\x0a\x03abc");
        for cut in 0..answer.len() {
            assert!(call_against(&answer[..cut]).is_err(), "cut at {cut}");
        }
    }

    proptest! {
        #![proptest_config(ProptestConfig::with_cases(64))]
        #[test]
        fn random_server_bytes_never_panic(bytes in proptest::collection::vec(any::<u8>(), 0..512)) {
            let _ = call_against(&bytes);
        }

        #[test]
        fn random_bytes_after_a_valid_preface_never_panic(
            bytes in proptest::collection::vec(any::<u8>(), 0..512),
        ) {
            let mut all = Vec::new();
            push_frame(&mut all, frame::SETTINGS, 0, 0, &[]);
            all.extend_from_slice(&bytes);
            let _ = call_against(&all);
        }

        #[test]
        fn random_hpack_blocks_never_panic(bytes in proptest::collection::vec(any::<u8>(), 0..256)) {
            let _ = decode_block(&bytes);
        }

        /// Table insertions and references mixed at random: decoded within the bound or refused.
        #[test]
        fn hpack_references_stay_within_the_bound(
            ops in proptest::collection::vec((0u8..3, 0usize..4_000), 0..400),
        ) {
            let mut block = Vec::new();
            for (op, n) in ops {
                match op {
                    0 => {
                        block.push(0x40);
                        hpack_int(&mut block, 1, 7, 0);
                        block.push(b'k');
                        hpack_int(&mut block, n, 7, 0);
                        block.extend(std::iter::repeat_n(b'v', n));
                    }
                    1 => hpack_int(&mut block, 62 + n % 4, 7, 0x80),
                    _ => hpack_int(&mut block, 1 + n % 61, 7, 0x80),
                }
            }
            if let Ok(fields) = decode_block(&block) {
                let size: usize = fields.iter().map(|(k, v)| k.len() + v.len() + 32).sum();
                prop_assert!(size <= MAX_HEADER_LIST);
            }
        }
    }

    /// An HPACK bomb: one 4,000-byte literal added to the dynamic table, then one-byte
    /// references to it (index 62, the table's first entry) filling a `len`-byte block.
    fn hpack_bomb(len: usize) -> Vec<u8> {
        let mut block = vec![0x40]; // literal with incremental indexing, new name
        hpack_int(&mut block, 1, 7, 0);
        block.push(b'x');
        hpack_int(&mut block, 4_000, 7, 0);
        block.extend(std::iter::repeat_n(b'a', 4_000));
        block.resize(len, 0x80 | 62);
        block
    }

    #[test]
    fn the_decoded_header_list_is_bounded_by_what_we_announce() {
        let started = Instant::now();
        let e = match decode_block(&hpack_bomb(60 * 1024)) {
            Err(e) => e,
            Ok(fields) => panic!("{} fields decoded, no error", fields.len()),
        };
        assert!(e.contains("SETTINGS_MAX_HEADER_LIST_SIZE"), "{e}");
        assert!(
            started.elapsed() < Duration::from_millis(500),
            "{:?}",
            started.elapsed()
        );
        // A real answer's head and trailers are far below it.
        let mut ok = Vec::new();
        literal(&mut ok, ":status", "200");
        literal(&mut ok, "x-long", &"a".repeat(60_000));
        assert_eq!(decode_block(&ok).unwrap().len(), 2);
        // Through the client: the bomb as a HEADERS frame and its CONTINUATIONs.
        let block = hpack_bomb(MAX_HEADER_BLOCK - 1);
        let mut out = Vec::new();
        push_frame(&mut out, frame::SETTINGS, 0, 0, &[]);
        let chunks: Vec<&[u8]> = block.chunks(MAX_FRAME).collect();
        for (i, c) in chunks.iter().enumerate() {
            let kind = if i == 0 {
                frame::HEADERS
            } else {
                frame::CONTINUATION
            };
            let last = i + 1 == chunks.len();
            push_frame(
                &mut out,
                kind,
                if last { frame::END_HEADERS } else { 0 },
                1,
                c,
            );
        }
        let e = call_against(&out).unwrap_err().to_string();
        assert!(e.contains("SETTINGS_MAX_HEADER_LIST_SIZE"), "{e}");
    }

    #[test]
    fn text_from_the_server_stays_on_one_line() {
        let mut out = Vec::new();
        push_frame(&mut out, frame::SETTINGS, 0, 0, &[]);
        let mut head = Vec::new();
        literal(&mut head, ":status", "200");
        literal(&mut head, "content-type", "application/grpc");
        literal(&mut head, "grpc-status", "7");
        literal(&mut head, "grpc-message", "denied%0A[kubelet] ok%0D%1B[2J");
        let flags = frame::END_HEADERS | frame::END_STREAM;
        push_frame(&mut out, frame::HEADERS, flags, 1, &head);
        let e = call_against(&out).unwrap_err().to_string();
        assert!(!e.contains(['\n', '\r', '\u{1b}']), "{e:?}");
        assert!(e.contains("denied\\u000a[kubelet] ok"), "{e}");
        // GOAWAY's debug data.
        let mut out = Vec::new();
        push_frame(&mut out, frame::SETTINGS, 0, 0, &[]);
        let mut goaway = vec![0, 0, 0, 0, 0, 0, 0, 2];
        goaway.extend_from_slice(b"bye\nkubelet: all good\r");
        push_frame(&mut out, frame::GOAWAY, 0, 0, &goaway);
        let e = call_against(&out).unwrap_err().to_string();
        assert!(!e.contains(['\n', '\r']), "{e:?}");
        assert!(e.contains("bye\\u000akubelet"), "{e}");
    }

    #[test]
    fn literal_fields_decode_with_a_real_hpack_decoder() {
        let mut block = Vec::new();
        literal(&mut block, ":path", "/v1.PodResourcesLister/List");
        literal(&mut block, "x-long", &"a".repeat(300));
        let fields = decode_block(&block).unwrap();
        assert_eq!(fields[0].0, b":path");
        assert_eq!(fields[0].1, b"/v1.PodResourcesLister/List");
        assert_eq!(fields[1].1.len(), 300);
    }

    #[test]
    fn percent_decoding_of_grpc_message() {
        assert_eq!(percent_decode("not%20found%3A x"), "not found: x");
        assert_eq!(percent_decode("50%"), "50%");
        assert_eq!(percent_decode("%4"), "%4");
    }
}
