//! The header parser: magic and version, the metadata, the tensor infos, and the checks that
//! every tensor is aligned and inside the file. It reads through [`super::cursor`]'s bounded
//! cursor.

use std::io::{Read, Seek};
use std::path::Path;

use gpuledger_lang::said::{Arg, Said};
use gpuledger_model::units::human_bytes;

use super::cursor::{Src, LOAD_BUDGET_STRING_BYTES, MAX_LOADED_STRING};
use super::{
    GgmlType, GgufError, GgufFile, MetaValue, ReadOptions, TensorInfo, ValueType,
    DEFAULT_ALIGNMENT, MAX_DIMS,
};

/// Sane limits, far above any real model, that stop a header from asking for absurd work even
/// when the file is large enough to "hold" it: a sparse file of a few KiB on disk can declare
/// terabytes. The largest current models have about 1,100 tensors and 50 metadata keys.
pub const MAX_TENSORS: u64 = 1 << 16;
const MAX_KV: u64 = 1 << 16;
const MAX_KEY_LEN: u64 = 1 << 12;
const MAX_TENSOR_NAME_LEN: u64 = 1 << 12;

/// Read one GGUF file's header.
pub fn read_file(path: &Path, opts: &ReadOptions) -> Result<GgufFile, GgufError> {
    // The path may come from another process's command line: a FIFO or a device there must
    // neither block this round nor be read without end.
    let f = gpuledger_sources::regular::open_regular(path).map_err(|e| {
        let said = Said::new(
            "report-gguf-cannot-open",
            vec![("error", e.to_string().into())],
        );
        GgufError::new(path, "file", said)
    })?;
    let len = f
        .metadata()
        .map_err(|e| {
            let said = Said::new(
                "report-gguf-cannot-stat",
                vec![("error", e.to_string().into())],
            );
            GgufError::new(path, "file", said)
        })?
        .len();
    parse(f, len, path, opts)
}

/// Parse a header from any reader (`len` = total size of the file behind it).
pub fn parse<R: Read + Seek>(
    r: R,
    len: u64,
    path: &Path,
    opts: &ReadOptions,
) -> Result<GgufFile, GgufError> {
    let mut s = Src::new(r, len, path);
    let version = header_version(&mut s)?;
    let n_tensors = s.i64("tensor count")?;
    let n_kv = s.i64("metadata count")?;
    // A tensor info takes at least 8 (name len) + 4 (n_dims) + 4 (type) + 8 (offset) bytes.
    check_count(&s, "tensor count", n_tensors, 24, MAX_TENSORS)?;
    // A key/value pair: 8 (key len) + 4 (type) + 1 (smallest value).
    check_count(&s, "metadata count", n_kv, 13, MAX_KV)?;

    // Capacity from what was read, not from what the header declares.
    let mut metadata = Vec::new();
    for i in 0..n_kv {
        let key = s.string(&format!("metadata key {i}"), MAX_KEY_LEN)?;
        match metadata_value(&mut s, &key, opts)? {
            Some(v) => metadata.push((key, v)),
            None => {
                let why = format!(
                    "a string too long to load (over {} per string or {} in all); skipped unread",
                    human_bytes(MAX_LOADED_STRING),
                    human_bytes(LOAD_BUDGET_STRING_BYTES)
                );
                s.skipped.push((key, why));
            }
        }
    }
    let alignment = alignment(&s, &metadata)?;
    let mut tensors = Vec::new();
    for i in 0..n_tensors {
        tensors.push(tensor_info(&mut s, i)?);
    }
    let data_offset = s.pos.div_ceil(alignment) * alignment;
    check_placement(&s, &tensors, alignment, len.saturating_sub(data_offset))?;
    let mut file = GgufFile::new(
        path.to_path_buf(),
        version,
        len,
        alignment,
        metadata,
        tensors,
        data_offset,
    );
    file.skipped = s.skipped;
    Ok(file)
}

/// The magic and the version: 2 or 3, little-endian.
fn header_version<R: Read + Seek>(s: &mut Src<'_, R>) -> Result<u32, GgufError> {
    let magic: [u8; 4] = s.bytes("magic")?;
    if &magic != b"GGUF" {
        return Err(s.err(
            "magic",
            // Its bytes are not shown: a file of another kind may be anything.
            Said::new("report-gguf-not-gguf", vec![]),
        ));
    }
    let version = s.u32("version")?;
    if version & 0xFFFF == 0 && version != 0 {
        return Err(s.err(
            "version",
            Said::new(
                "report-gguf-byte-swapped",
                vec![("version", format!("{version:#x}").into())],
            ),
        ));
    }
    match version {
        2 | 3 => Ok(version),
        1 => Err(s.err("version", Said::new("report-gguf-version-1", vec![]))),
        v => Err(s.err(
            "version",
            Said::new(
                "report-gguf-version",
                vec![("version", v.to_string().into())],
            ),
        )),
    }
}

/// The value of metadata `key` (whole, for an array `opts.always_load` names); `None` for a
/// string skipped unread.
fn metadata_value<R: Read + Seek>(
    s: &mut Src<'_, R>,
    key: &str,
    opts: &ReadOptions,
) -> Result<Option<MetaValue>, GgufError> {
    let field = format!("metadata '{key}'");
    let t = s.value_type(&field)?;
    if t == ValueType::Array && opts.always_load.iter().any(|k| k == key) {
        let all = ReadOptions {
            max_array_len: u64::MAX,
            always_load: Vec::new(),
        };
        Ok(Some(MetaValue::Array(s.array(&field, true, &all, 0)?)))
    } else {
        s.value(t, &field, true, opts, 0)
    }
}

/// `general.alignment` when set (a non-zero power of two stored as u32), else the default.
fn alignment<R: Read + Seek>(
    s: &Src<'_, R>,
    metadata: &[(String, MetaValue)],
) -> Result<u64, GgufError> {
    match metadata.iter().find(|(k, _)| k == "general.alignment") {
        None => Ok(DEFAULT_ALIGNMENT),
        Some((_, MetaValue::U32(a))) if *a != 0 && a.is_power_of_two() => Ok(*a as u64),
        Some((_, v)) => Err(s.err(
            "general.alignment",
            Said::new(
                "report-gguf-alignment",
                vec![("value", format!("{v:?}").into())],
            ),
        )),
    }
}

/// Tensor info `i`: its name, dimensions, a type ggml still supports, its offset, and its
/// size in bytes (whole blocks of the type, no overflow).
fn tensor_info<R: Read + Seek>(s: &mut Src<'_, R>, i: i64) -> Result<TensorInfo, GgufError> {
    let name = s.string(&format!("tensor {i} name"), MAX_TENSOR_NAME_LEN)?;
    let field = format!("tensor '{name}'");
    let text = |v: &dyn ToString| -> Arg { v.to_string().into() };
    let n_dims = s.u32(&format!("{field} n_dims"))?;
    if n_dims > MAX_DIMS {
        let values = vec![("n", text(&n_dims)), ("max", text(&MAX_DIMS))];
        return Err(tensor_error(s, &field, "report-gguf-dims", values));
    }
    let mut dims = Vec::with_capacity(n_dims as usize);
    for d in 0..n_dims {
        let ne = s.i64(&format!("{field} ne[{d}]"))?;
        if ne < 0 {
            let values = vec![("d", text(&d)), ("ne", text(&ne))];
            return Err(tensor_error(s, &field, "report-gguf-negative", values));
        }
        dims.push(ne as u64);
    }
    let type_id = s.u32(&format!("{field} type"))?;
    let ggml_type = GgmlType::from_id(type_id).ok_or_else(|| {
        tensor_error(
            s,
            &field,
            "report-gguf-type-id",
            vec![("id", text(&type_id))],
        )
    })?;
    if !ggml_type.is_usable() {
        let values = vec![("type", ggml_type.name.into()), ("id", text(&type_id))];
        return Err(tensor_error(s, &field, "report-gguf-type-dropped", values));
    }
    let offset = s.u64(&format!("{field} offset"))?;
    let n_elems = dims
        .iter()
        .try_fold(1u64, |a, &d| a.checked_mul(d))
        .filter(|&n| n <= i64::MAX as u64)
        .ok_or_else(|| {
            let values = vec![("dims", format!("{dims:?}").into())];
            tensor_error(s, &field, "report-gguf-dims-overflow", values)
        })?;
    let ne0 = dims.first().copied().unwrap_or(1);
    if ne0 % ggml_type.block_size != 0 {
        let values = vec![
            ("ne0", text(&ne0)),
            ("type", ggml_type.name.into()),
            ("block", text(&ggml_type.block_size)),
        ];
        return Err(tensor_error(s, &field, "report-gguf-row-length", values));
    }
    let n_bytes = (n_elems / ggml_type.block_size)
        .checked_mul(ggml_type.type_size)
        .ok_or_else(|| tensor_error(s, &field, "report-gguf-size-overflow", vec![]))?;
    Ok(TensorInfo {
        name,
        dims,
        ggml_type,
        offset,
        n_bytes,
    })
}

/// What is wrong with the tensor `field` (`tensor 'x'`): the message `key` with the field and
/// `values`.
fn tensor_error<R: Read + Seek>(
    s: &Src<'_, R>,
    field: &str,
    key: &'static str,
    mut values: Vec<(&'static str, Arg)>,
) -> GgufError {
    values.insert(0, ("field", field.into()));
    s.err(field, Said::new(key, values))
}

/// Every tensor aligned and inside the `data_room` bytes after the data offset.
fn check_placement<R: Read + Seek>(
    s: &Src<'_, R>,
    tensors: &[TensorInfo],
    alignment: u64,
    data_room: u64,
) -> Result<(), GgufError> {
    for t in tensors {
        let field = format!("tensor '{}' offset", t.name);
        if t.offset % alignment != 0 {
            return Err(s.err(
                &field,
                Said::new(
                    "report-gguf-offset-alignment",
                    vec![
                        ("name", t.name.as_str().into()),
                        ("offset", t.offset.to_string().into()),
                        ("alignment", alignment.to_string().into()),
                    ],
                ),
            ));
        }
        let end = t.offset.checked_add(t.n_bytes);
        if end.is_none_or(|e| e > data_room) {
            return Err(s.err(
                &field,
                Said::new(
                    "report-gguf-beyond-end",
                    vec![
                        ("name", t.name.as_str().into()),
                        ("bytes", t.n_bytes.to_string().into()),
                        ("offset", t.offset.to_string().into()),
                        ("size", human_bytes(s.len).into()),
                    ],
                ),
            ));
        }
    }
    Ok(())
}

fn check_count<R: Read + Seek>(
    s: &Src<'_, R>,
    field: &str,
    n: i64,
    min_each: u64,
    max: u64,
) -> Result<(), GgufError> {
    let values = |n: String| vec![("field", field.into()), ("n", n.into())];
    if n < 0 {
        return Err(s.err(
            field,
            Said::new("report-gguf-count-negative", values(n.to_string())),
        ));
    }
    let n = n as u64;
    if n.checked_mul(min_each).is_none_or(|b| b > s.remaining()) {
        let mut v = values(n.to_string());
        v.push(("size", human_bytes(s.len).into()));
        return Err(s.err(field, Said::new("report-gguf-count-too-big", v)));
    }
    if n > max {
        let mut v = values(n.to_string());
        v.push(("max", max.to_string().into()));
        return Err(s.err(field, Said::new("report-gguf-count-limit", v)));
    }
    Ok(())
}
