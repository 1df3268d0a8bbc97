//! Peak memory and time of the kubelet client on hostile answers within the 16 MiB limit: a
//! server process that answers `List` with a crafted message, and a client process that asks
//! once, measured from outside (`/usr/bin/time -v`: "Maximum resident set size", elapsed).
//!
//! Run: `cargo build --release -p gpuledger-sources --example kubelet_peak`, then
//! `target/release/examples/kubelet_peak serve /tmp/k.sock SHAPE &` and
//! `/usr/bin/time -v target/release/examples/kubelet_peak ask /tmp/k.sock`. SHAPE is one of
//! `empty-pods` (8.4 M empty pods), `pods-at-limit` (10,000 pods, names filling 16 MiB),
//! `containers-at-limit` (50,000 containers and 10,000 device ids, names filling the rest),
//! `hpack-bomb` (a 64 KiB header block of references to a 4,000-byte literal), `ok` (one pod).

#[cfg(unix)]
mod unix {
    use std::io::{Read, Write};
    use std::os::unix::net::UnixListener;
    use std::path::Path;
    use std::time::Instant;

    const MAX: usize = 16 << 20;

    fn varint(mut v: u64, out: &mut Vec<u8>) {
        while v >= 0x80 {
            out.push((v as u8) | 0x80);
            v >>= 7;
        }
        out.push(v as u8);
    }

    fn field(n: u64, b: &[u8], out: &mut Vec<u8>) {
        varint(n << 3 | 2, out);
        varint(b.len() as u64, out);
        out.extend_from_slice(b);
    }

    fn frame(out: &mut Vec<u8>, kind: u8, flags: u8, stream: u32, payload: &[u8]) {
        out.extend_from_slice(&(payload.len() as u32).to_be_bytes()[1..]);
        out.extend_from_slice(&[kind, flags]);
        out.extend_from_slice(&stream.to_be_bytes());
        out.extend_from_slice(payload);
    }

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

    fn literal(out: &mut Vec<u8>, name: &str, value: &str) {
        out.push(0x10);
        for s in [name, value] {
            hpack_int(out, s.len(), 7, 0);
            out.extend_from_slice(s.as_bytes());
        }
    }

    /// A pod named by `name_len` bytes, with `containers` containers of `ids` device ids each.
    fn pod(name_len: usize, containers: usize, ids: usize) -> Vec<u8> {
        let mut p = Vec::new();
        field(1, &vec![b'p'; name_len], &mut p);
        field(2, b"ns", &mut p);
        for _ in 0..containers {
            let mut c = Vec::new();
            field(1, b"c", &mut c);
            if ids > 0 {
                let mut d = Vec::new();
                field(1, b"nvidia.com/gpu", &mut d);
                for _ in 0..ids {
                    field(2, b"GPU-1", &mut d);
                }
                field(2, &d, &mut c);
            }
            field(3, &c, &mut p);
        }
        p
    }

    /// The `List` answer of `shape`, at most [`MAX`] bytes.
    fn message(shape: &str) -> Vec<u8> {
        let mut m = Vec::new();
        match shape {
            "empty-pods" => {
                while m.len() + 2 <= MAX {
                    field(1, &[], &mut m);
                }
            }
            "pods-at-limit" => {
                let each = MAX / 10_000 - 20;
                for _ in 0..10_000 {
                    field(1, &pod(each, 0, 0), &mut m);
                }
            }
            "containers-at-limit" => {
                // 50 pods of 1,000 containers, 10 of each with a list of 19 ids (10,000 ids
                // and lists in all), then one pod whose name fills the rest.
                for _ in 0..50 {
                    let mut p = pod(1, 990, 0);
                    for _ in 0..10 {
                        let mut c = Vec::new();
                        field(1, b"c", &mut c);
                        let mut d = Vec::new();
                        field(1, b"nvidia.com/gpu", &mut d);
                        for _ in 0..19 {
                            field(2, b"GPU-1", &mut d);
                        }
                        field(2, &d, &mut c);
                        field(3, &c, &mut p);
                    }
                    field(1, &p, &mut m);
                }
                let room = MAX - m.len() - 32;
                field(1, &pod(room, 0, 0), &mut m);
            }
            _ => field(1, &pod(8, 1, 1), &mut m),
        }
        m
    }

    /// Writes the answer to call `stream`: head, message, trailers.
    fn answer(out: &mut Vec<u8>, stream: u32, msg: &[u8], bomb: bool) {
        let mut head = Vec::new();
        literal(&mut head, ":status", "200");
        literal(&mut head, "content-type", "application/grpc");
        if bomb {
            head.push(0x40);
            hpack_int(&mut head, 1, 7, 0);
            head.push(b'x');
            hpack_int(&mut head, 4_000, 7, 0);
            head.extend(std::iter::repeat_n(b'a', 4_000));
            head.resize(64 * 1024 - 1, 0x80 | 62);
        }
        let chunks: Vec<&[u8]> = head.chunks(16_384).collect();
        for (i, c) in chunks.iter().enumerate() {
            let kind = if i == 0 { 1 } else { 9 };
            let flags = if i + 1 == chunks.len() { 0x4 } else { 0 };
            frame(out, kind, flags, stream, c);
        }
        let mut body = vec![0u8];
        body.extend_from_slice(&(msg.len() as u32).to_be_bytes());
        body.extend_from_slice(msg);
        for c in body.chunks(16_384) {
            frame(out, 0, 0, stream, c);
        }
        let mut trailers = Vec::new();
        literal(&mut trailers, "grpc-status", "0");
        frame(out, 1, 0x5, stream, &trailers);
    }

    fn serve(socket: &Path, shape: &str) {
        let _ = std::fs::remove_file(socket);
        let listener = UnixListener::bind(socket).expect("bind");
        let msg = message(shape);
        eprintln!("serving {shape}: a {}-byte List answer", msg.len());
        let mut out = Vec::new();
        frame(&mut out, 4, 0, 0, &[]);
        answer(&mut out, 1, &msg, shape == "hpack-bomb");
        answer(&mut out, 3, &[], false);
        for conn in listener.incoming() {
            let Ok(mut c) = conn else { continue };
            let mut drain = c.try_clone().expect("clone");
            std::thread::spawn(move || {
                let mut sink = [0u8; 4096];
                while matches!(drain.read(&mut sink), Ok(n) if n > 0) {}
            });
            let _ = c.write_all(&out);
        }
    }

    fn ask(socket: &Path) {
        use gpuledger_sources::owner::kube::{query, DEADLINE, MAX_MESSAGE};
        let started = Instant::now();
        let r = query(socket, DEADLINE, MAX_MESSAGE);
        let took = started.elapsed();
        match r {
            Ok(l) => println!("{} pods listed in {took:?}", l.pods.len()),
            Err(e) => println!("refused in {took:?}: {e}"),
        }
    }

    pub fn main() {
        let args: Vec<String> = std::env::args().collect();
        match (args.get(1).map(String::as_str), args.get(2)) {
            (Some("serve"), Some(s)) => serve(Path::new(s), args.get(3).map_or("ok", |s| s)),
            (Some("ask"), Some(s)) => ask(Path::new(s)),
            _ => eprintln!("usage: kubelet_peak serve SOCKET SHAPE | ask SOCKET"),
        }
    }
}

fn main() {
    #[cfg(unix)]
    unix::main();
}
