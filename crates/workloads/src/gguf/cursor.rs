//! The bounded, buffered cursor the header parser reads through: its own read buffer, limits
//! on what a header may make it read or load, and GGUF's primitive values (integers, strings,
//! typed values, arrays) read or skipped under those limits.

use std::io::{Read, Seek};
use std::path::Path;

use gpuledger_model::units::human_bytes;

use super::{GgufError, MetaArray, MetaValue, ReadOptions, ValueType};
use gpuledger_lang::said::Said;

pub(super) const MAX_STRING_LEN: u64 = 1 << 30;
const MAX_ARRAY_DEPTH: u32 = 8;
/// A string value longer than this is skipped (seeked over, never read) and listed in
/// [`GgufFile::skipped`](super::GgufFile::skipped): the values the recipes use are short, while a header may embed a whole
/// `tokenizer.json` of several MiB that nothing here needs.
pub const MAX_LOADED_STRING: u64 = 1 << 20;
/// What all loaded values of one header may take together: array elements, and string bytes.
/// Beyond it, arrays are kept as their length only and strings are skipped, so memory stays
/// bounded by these, not by what a header declares.
pub(super) const LOAD_BUDGET_VALUES: u64 = 1 << 19;
pub(super) const LOAD_BUDGET_STRING_BYTES: u64 = 32 << 20;
/// Bytes actually read (seeks excluded): real headers, vocabulary included, are tens of MiB.
const MAX_HEADER_READ: u64 = 256 << 20;
/// Buffer: large enough that skipping a vocabulary is mostly in-memory cursor moves.
const BUF_SIZE: usize = 256 * 1024;

/// A cursor over the file with its own read buffer: reading a length or skipping a token string
/// inside the buffer is a bounds check and an add (a vocabulary is 150k–250k of them).
pub(super) struct Src<'a, R> {
    r: R,
    buf: Vec<u8>,
    start: usize,
    end: usize,
    /// Logical position in the file (the underlying reader is `end - start` bytes ahead).
    pub(super) pos: u64,
    pub(super) len: u64,
    path: &'a Path,
    /// Bytes read from `r` so far (bounded by [`MAX_HEADER_READ`]).
    read: u64,
    /// What is left of the load budgets.
    values_left: u64,
    string_bytes_left: u64,
    /// Values skipped for their size: (key, why).
    pub(super) skipped: Vec<(String, String)>,
}

impl<'a, R: Read + Seek> Src<'a, R> {
    /// A cursor at the start of `r`, a file of `len` bytes at `path`, with full load budgets.
    pub(super) fn new(r: R, len: u64, path: &'a Path) -> Self {
        Src {
            r,
            buf: vec![0u8; BUF_SIZE.min(len.max(64) as usize)],
            start: 0,
            end: 0,
            pos: 0,
            len,
            path,
            read: 0,
            values_left: LOAD_BUDGET_VALUES,
            string_bytes_left: LOAD_BUDGET_STRING_BYTES,
            skipped: Vec::new(),
        }
    }

    pub(super) fn err(&self, field: &str, msg: Said) -> GgufError {
        GgufError::new(self.path, field, msg)
    }

    /// Reading `field` failed with the OS's `e`.
    fn reading(&self, field: &str, e: &std::io::Error) -> GgufError {
        let said = Said::new(
            "report-gguf-reading",
            vec![("field", field.into()), ("error", e.to_string().into())],
        );
        self.err(field, said)
    }

    pub(super) fn remaining(&self) -> u64 {
        self.len.saturating_sub(self.pos)
    }

    /// "... exceeds what the remaining 12 KiB of a 480 KiB file can hold".
    pub(super) fn too_big(&self, field: &str, what: Said) -> GgufError {
        let size = ("size", human_bytes(self.len).into());
        let said = if self.pos == 0 {
            Said::new("report-gguf-too-big", vec![("what", what.into()), size])
        } else {
            let left = ("left", human_bytes(self.remaining()).into());
            Said::new(
                "report-gguf-too-big-rest",
                vec![("what", what.into()), left, size],
            )
        };
        self.err(field, said)
    }

    pub(super) fn need(&self, n: u64, field: &str) -> Result<(), GgufError> {
        if n > self.remaining() {
            return Err(self.err(
                field,
                Said::new(
                    "report-gguf-truncated",
                    vec![
                        ("field", field.into()),
                        ("len", self.len.to_string().into()),
                        ("more", n.to_string().into()),
                    ],
                ),
            ));
        }
        Ok(())
    }

    /// Make at least `n` (<= buffer size) bytes available in the buffer.
    pub(super) fn fill(&mut self, n: usize, field: &str) -> Result<(), GgufError> {
        if self.end - self.start >= n {
            return Ok(());
        }
        self.buf.copy_within(self.start..self.end, 0);
        self.end -= self.start;
        self.start = 0;
        while self.end < n {
            let got = self
                .r
                .read(&mut self.buf[self.end..])
                .map_err(|e| self.reading(field, &e))?;
            if got == 0 {
                let said = Said::new("report-gguf-eof", vec![("field", field.into())]);
                return Err(self.err(field, said));
            }
            self.end += got;
            self.count_read(got as u64, field)?;
        }
        Ok(())
    }

    pub(super) fn bytes<const N: usize>(&mut self, field: &str) -> Result<[u8; N], GgufError> {
        self.need(N as u64, field)?;
        self.fill(N, field)?;
        let mut b = [0u8; N];
        b.copy_from_slice(&self.buf[self.start..self.start + N]);
        self.start += N;
        self.pos += N as u64;
        Ok(b)
    }

    pub(super) fn count_read(&mut self, n: u64, field: &str) -> Result<(), GgufError> {
        self.read += n;
        if self.read > MAX_HEADER_READ {
            return Err(self.err(
                field,
                Said::new(
                    "report-gguf-header-too-long",
                    vec![
                        ("field", field.into()),
                        ("limit", human_bytes(MAX_HEADER_READ).into()),
                    ],
                ),
            ));
        }
        Ok(())
    }

    /// Read `n` bytes (already checked against the file and the load limits) into a new vector.
    pub(super) fn take_vec(&mut self, n: u64, field: &str) -> Result<Vec<u8>, GgufError> {
        let n = n as usize;
        let mut v = Vec::with_capacity(n);
        let have = (self.end - self.start).min(n);
        v.extend_from_slice(&self.buf[self.start..self.start + have]);
        self.start += have;
        if have < n {
            // Longer than what is buffered: read the rest straight from the file.
            self.count_read((n - have) as u64, field)?;
            v.resize(n, 0);
            self.r
                .read_exact(&mut v[have..])
                .map_err(|e| self.reading(field, &e))?;
        }
        self.pos += n as u64;
        Ok(v)
    }

    pub(super) fn skip(&mut self, n: u64, field: &str) -> Result<(), GgufError> {
        self.need(n, field)?;
        let buffered = (self.end - self.start) as u64;
        if n <= buffered {
            self.start += n as usize;
        } else {
            let ahead = i64::try_from(n - buffered)
                .map_err(|_| self.err(field, Said::new("report-gguf-skip-too-large", vec![])))?;
            self.start = 0;
            self.end = 0;
            self.r
                .seek(std::io::SeekFrom::Current(ahead))
                .map_err(|e| {
                    let said =
                        Said::new("report-gguf-seeking", vec![("error", e.to_string().into())]);
                    self.err(field, said)
                })?;
        }
        self.pos += n;
        Ok(())
    }

    pub(super) fn u32(&mut self, field: &str) -> Result<u32, GgufError> {
        Ok(u32::from_le_bytes(self.bytes(field)?))
    }
    pub(super) fn u64(&mut self, field: &str) -> Result<u64, GgufError> {
        Ok(u64::from_le_bytes(self.bytes(field)?))
    }
    pub(super) fn i64(&mut self, field: &str) -> Result<i64, GgufError> {
        Ok(i64::from_le_bytes(self.bytes(field)?))
    }

    /// Skip `count` strings (a vocabulary): the hot loop of reading a header, kept to a length
    /// read, a bound check and a cursor move while the buffer has the bytes.
    pub(super) fn skip_strings(&mut self, count: u64, field: &str) -> Result<(), GgufError> {
        for _ in 0..count {
            if self.end - self.start >= 8 {
                let mut b = [0u8; 8];
                b.copy_from_slice(&self.buf[self.start..self.start + 8]);
                let n = u64::from_le_bytes(b);
                let avail = (self.end - self.start - 8) as u64;
                if n <= avail && n <= MAX_STRING_LEN {
                    self.start += 8 + n as usize;
                    self.pos += 8 + n;
                    continue;
                }
            }
            // Slow path: refill, checks and error messages.
            let n = self.str_len(field, MAX_STRING_LEN)?;
            self.skip(n, field)?;
        }
        Ok(())
    }

    /// A string's length, checked against the file and `max`.
    pub(super) fn str_len(&mut self, field: &str, max: u64) -> Result<u64, GgufError> {
        let n = self.u64(field)?;
        if n > self.remaining() {
            let what = Said::new(
                "report-gguf-what-length",
                vec![("field", field.into()), ("n", n.to_string().into())],
            );
            return Err(self.too_big(field, what));
        }
        if n > max {
            return Err(self.err(
                field,
                Said::new(
                    "report-gguf-length-limit",
                    vec![
                        ("field", field.into()),
                        ("n", n.to_string().into()),
                        ("max", max.to_string().into()),
                    ],
                ),
            ));
        }
        Ok(n)
    }

    pub(super) fn string(&mut self, field: &str, max: u64) -> Result<String, GgufError> {
        let n = self.str_len(field, max)?;
        self.string_body(n, field)
    }

    pub(super) fn string_body(&mut self, n: u64, field: &str) -> Result<String, GgufError> {
        self.string_bytes_left = self.string_bytes_left.saturating_sub(n);
        let v = self.take_vec(n, field)?;
        // Token strings are bytes as far as GGUF is concerned; keep them readable rather than fail.
        Ok(match String::from_utf8(v) {
            Ok(s) => s,
            Err(e) => String::from_utf8_lossy(e.as_bytes()).into_owned(),
        })
    }

    pub(super) fn value_type(&mut self, field: &str) -> Result<ValueType, GgufError> {
        let id = self.u32(field)?;
        ValueType::from_id(id).ok_or_else(|| {
            let said = Said::new(
                "report-gguf-value-type",
                vec![("field", field.into()), ("id", id.to_string().into())],
            );
            self.err(field, said)
        })
    }

    pub(super) fn value(
        &mut self,
        t: ValueType,
        field: &str,
        load: bool,
        opts: &ReadOptions,
        depth: u32,
    ) -> Result<Option<MetaValue>, GgufError> {
        Ok(match t {
            ValueType::U8 => MetaValue::U8(self.bytes::<1>(field)?[0]),
            ValueType::I8 => MetaValue::I8(self.bytes::<1>(field)?[0] as i8),
            ValueType::Bool => MetaValue::Bool(self.bytes::<1>(field)?[0] != 0),
            ValueType::U16 => MetaValue::U16(u16::from_le_bytes(self.bytes(field)?)),
            ValueType::I16 => MetaValue::I16(i16::from_le_bytes(self.bytes(field)?)),
            ValueType::U32 => MetaValue::U32(self.u32(field)?),
            ValueType::I32 => MetaValue::I32(i32::from_le_bytes(self.bytes(field)?)),
            ValueType::F32 => MetaValue::F32(f32::from_le_bytes(self.bytes(field)?)),
            ValueType::U64 => MetaValue::U64(self.u64(field)?),
            ValueType::I64 => MetaValue::I64(self.i64(field)?),
            ValueType::F64 => MetaValue::F64(f64::from_le_bytes(self.bytes(field)?)),
            ValueType::String => {
                let n = self.str_len(field, MAX_STRING_LEN)?;
                if !self.can_load_string(n) {
                    // Never allocated: seek past it.
                    self.skip(n, field)?;
                    return Ok(None);
                }
                MetaValue::String(self.string_body(n, field)?)
            }
            ValueType::Array => MetaValue::Array(self.array(field, load, opts, depth)?),
        }
        .into())
    }

    pub(super) fn can_load_string(&self, n: u64) -> bool {
        n <= MAX_LOADED_STRING && n <= self.string_bytes_left
    }

    pub(super) fn array(
        &mut self,
        field: &str,
        load: bool,
        opts: &ReadOptions,
        depth: u32,
    ) -> Result<MetaArray, GgufError> {
        if depth >= MAX_ARRAY_DEPTH {
            return Err(self.err(
                field,
                Said::new(
                    "report-gguf-nested",
                    vec![
                        ("field", field.into()),
                        ("depth", MAX_ARRAY_DEPTH.to_string().into()),
                    ],
                ),
            ));
        }
        let elem_type = self.value_type(field)?;
        let len = self.u64(field)?;
        let min = elem_type.min_size();
        if len.checked_mul(min).is_none_or(|b| b > self.remaining()) {
            return Err(self.too_big(
                field,
                Said::new(
                    "report-gguf-what-array",
                    vec![
                        ("field", field.into()),
                        ("len", len.to_string().into()),
                        ("type", format!("{elem_type:?}").into()),
                    ],
                ),
            ));
        }
        let load = load && len <= opts.max_array_len && len <= self.values_left;
        if !load {
            self.skip_array_body(elem_type, len, field, opts, depth)?;
            return Ok(MetaArray {
                elem_type,
                len,
                values: None,
            });
        }
        // len is bounded by the load budget (and by what the rest of the file can hold).
        self.values_left -= len;
        let mut values = Vec::with_capacity(len as usize);
        for i in 0..len {
            match self.value(elem_type, field, true, opts, depth + 1)? {
                Some(v) => values.push(v),
                None => {
                    // A string too long to load: keep the array as its length only.
                    self.skip_array_body(elem_type, len - i - 1, field, opts, depth)?;
                    return Ok(MetaArray {
                        elem_type,
                        len,
                        values: None,
                    });
                }
            }
        }
        Ok(MetaArray {
            elem_type,
            len,
            values: Some(values),
        })
    }

    pub(super) fn skip_array_body(
        &mut self,
        elem_type: ValueType,
        len: u64,
        field: &str,
        opts: &ReadOptions,
        depth: u32,
    ) -> Result<(), GgufError> {
        if let Some(sz) = elem_type.fixed_size() {
            return self.skip(len * sz, field); // product checked by the caller
        }
        if elem_type == ValueType::String {
            return self.skip_strings(len, field);
        }
        for _ in 0..len {
            self.array(field, false, opts, depth + 1)?;
        }
        Ok(())
    }
}
