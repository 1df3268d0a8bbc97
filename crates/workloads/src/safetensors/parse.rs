//! The JSON header, walked once as it streams: serde visitors check every record and keep the
//! totals a recipe needs (tensors, bytes, bytes per dtype), never a tree of the JSON. Memory is
//! the longest single string plus 16 bytes per tensor (for the overlap check), whatever the
//! header's size; every tensor and the metadata are kept only when asked ([`Gather::collect`]).
//!
//! Messages never echo a value of a file that may not be safetensors at all: a value of the
//! wrong type is described by where it was met, not shown (serde's own message would quote it).

use super::{Dtype, ErrorKind, TensorInfo};
use gpuledger_model::runtime_estimate::thousands;
use serde::de::{self, DeserializeSeed, IgnoredAny, MapAccess, SeqAccess, Visitor};
use std::collections::BTreeMap;
use std::fmt;

/// The most dimensions one tensor may have (real ones have at most 5).
const MAX_RANK: u64 = 64;
/// The most characters of a tensor name a message shows.
const NAME_SHOWN: usize = 120;

/// Where the walk is, for messages about a value of the wrong type.
#[derive(Clone, Copy)]
enum At {
    Top,
    Metadata,
    MetaValue,
    Tensor,
    Dtype,
    Shape,
    Offsets,
}

/// What one walk gathers, and its limits.
pub(super) struct Gather {
    data_bytes: u64,
    max_tensors: u64,
    pub count: u64,
    pub bytes: u64,
    /// Bytes per dtype, in the order met.
    pub by_dtype: Vec<(Dtype, u64)>,
    spans: Vec<(u64, u64)>,
    pub tensors: Option<Vec<TensorInfo>>,
    pub metadata: Option<BTreeMap<String, String>>,
    at: At,
    /// The current tensor's (or metadata key's) name: whole when collecting, else cut.
    name: String,
    /// A refusal of ours: serde_json carries a placeholder up, this is the message.
    why: Option<(ErrorKind, String)>,
}

impl Gather {
    /// A walk over a header followed by `data_bytes` of data.
    pub fn new(data_bytes: u64, max_tensors: u64) -> Gather {
        Gather {
            data_bytes,
            max_tensors,
            count: 0,
            bytes: 0,
            by_dtype: Vec::new(),
            spans: Vec::new(),
            tensors: None,
            metadata: None,
            at: At::Top,
            name: String::new(),
            why: None,
        }
    }

    /// Keep every tensor and the metadata too.
    pub fn collect(mut self) -> Gather {
        self.tensors = Some(Vec::new());
        self.metadata = Some(BTreeMap::new());
        self
    }

    /// Walk the header `r` holds. `Err` with the kind of refusal and its message.
    pub fn walk<'de, R: serde_json::de::Read<'de>>(
        &mut self,
        r: R,
    ) -> Result<(), (ErrorKind, String)> {
        let mut de = serde_json::Deserializer::new(r);
        let res = serde::Deserializer::deserialize_map(&mut de, TopVisitor(&mut *self))
            .and_then(|()| de.end());
        match res {
            Ok(()) => self.check_spans(),
            Err(e) => Err(self.explain(&e)),
        }
    }

    fn refuse<E: de::Error>(&mut self, kind: ErrorKind, what: String) -> E {
        self.why = Some((kind, what));
        E::custom("refused")
    }

    /// The current name, quoted and cut for a message.
    fn shown(&self) -> String {
        match self.name.char_indices().nth(NAME_SHOWN) {
            Some((i, _)) => format!("{:?}…", &self.name[..i]),
            None => format!("{:?}", self.name),
        }
    }

    fn set_name(&mut self, s: &str) {
        self.name.clear();
        match (self.tensors.is_some(), s.char_indices().nth(NAME_SHOWN + 1)) {
            (false, Some((i, _))) => self.name.push_str(&s[..i]),
            _ => self.name.push_str(s),
        }
    }

    /// serde_json's error as ours: our own refusal, a value of the wrong type described by
    /// where it was met, or the JSON's syntax error (fixed texts and a position).
    fn explain(&mut self, e: &serde_json::Error) -> (ErrorKind, String) {
        use serde_json::error::Category;
        if let Some(w) = self.why.take() {
            return w;
        }
        let pos = format!("line {}, column {}", e.line(), e.column());
        match e.classify() {
            Category::Data => {
                let what = match self.at {
                    At::Top => "not a safetensors header (not an object of tensors)".to_string(),
                    At::Metadata => "__metadata__ is not an object".to_string(),
                    At::MetaValue => {
                        format!("__metadata__ value of {} is not a string", self.shown())
                    }
                    At::Tensor => format!(
                        "not a safetensors header: entry {} is not a tensor record",
                        self.count
                    ),
                    At::Dtype => format!("tensor {}: dtype is not a string", self.shown()),
                    At::Shape => format!(
                        "tensor {}: shape is not a list of whole numbers",
                        self.shown()
                    ),
                    At::Offsets => {
                        format!("tensor {}: data_offsets is not [begin, end]", self.shown())
                    }
                };
                (ErrorKind::Format, format!("{what} ({pos})"))
            }
            Category::Io => (ErrorKind::Io, format!("reading the header: {e}")),
            Category::Syntax | Category::Eof => {
                (ErrorKind::Format, format!("header is not valid JSON: {e}"))
            }
        }
    }

    /// One more tensor: within the cap. (The round's time is checked before a file, never
    /// inside one: a file cut short would be read again, and cut again, every round.)
    fn count_tensor<E: de::Error>(&mut self) -> Result<(), E> {
        self.count += 1;
        if self.count > self.max_tensors {
            let what = format!(
                "skipped: more than {} tensors, the cap per file (not read further)",
                thousands(self.max_tensors)
            );
            return Err(self.refuse(ErrorKind::FileBudget, what));
        }
        Ok(())
    }

    /// A tensor's record, checked: its dtype and shape give exactly the bytes its offsets
    /// span, inside the data the file holds; then counted.
    fn finish_tensor<E: de::Error>(&mut self, t: Record) -> Result<(), E> {
        let name = self.shown();
        let bad = |what: String| format!("tensor {name}: {what}");
        let (Some(dtype), Some((elements, shape))) = (t.dtype, t.shape) else {
            let what = bad(if t.dtype.is_none() {
                "no dtype"
            } else {
                "no shape"
            }
            .into());
            return Err(self.refuse(ErrorKind::Format, what));
        };
        let Some((begin, end)) = t.offsets.filter(|(b, e)| b <= e) else {
            let what = bad("data_offsets are not two ordered whole numbers".into());
            return Err(self.refuse(ErrorKind::Format, what));
        };
        // u128: elements × bits cannot pass it (a shape over 2^64 elements was refused).
        let bits = elements * u128::from(dtype.bits());
        if bits % 8 != 0 {
            let what = bad(format!(
                "{elements} elements of {} do not fill whole bytes",
                dtype.name()
            ));
            return Err(self.refuse(ErrorKind::Format, what));
        }
        let Ok(bytes) = u64::try_from(bits / 8) else {
            let what = bad("its size overflows 2^64 bytes".into());
            return Err(self.refuse(ErrorKind::Format, what));
        };
        if end - begin != bytes {
            let what = bad(format!(
                "{elements} elements of {} are {bytes} bytes but data_offsets span {}",
                dtype.name(),
                end - begin
            ));
            return Err(self.refuse(ErrorKind::Format, what));
        }
        if end > self.data_bytes {
            let what = bad(format!(
                "data ends at {end} but the file holds {} data bytes (truncated)",
                self.data_bytes
            ));
            return Err(self.refuse(ErrorKind::Format, what));
        }
        // Overlapping records could pass 2^64 before the overlap check refuses them.
        let Some(total) = self.bytes.checked_add(bytes) else {
            let what = bad("the tensors' bytes overflow 2^64".into());
            return Err(self.refuse(ErrorKind::Format, what));
        };
        self.bytes = total;
        self.spans.push((begin, end));
        match self.by_dtype.iter_mut().find(|(d, _)| *d == dtype) {
            Some((_, b)) => *b += bytes, // ≤ self.bytes
            None => self.by_dtype.push((dtype, bytes)),
        }
        if let Some(all) = &mut self.tensors {
            all.push(TensorInfo {
                name: self.name.clone(),
                dtype,
                shape,
                bytes,
            });
        }
        Ok(())
    }

    /// Offsets must not overlap (gaps are accepted: this reader only sizes).
    fn check_spans(&mut self) -> Result<(), (ErrorKind, String)> {
        self.spans.sort_unstable();
        for w in self.spans.windows(2) {
            if w[1].0 < w[0].1 {
                return Err((
                    ErrorKind::Format,
                    format!(
                        "two tensors overlap in the data (bytes {}..{} and {}..{})",
                        w[0].0, w[0].1, w[1].0, w[1].1
                    ),
                ));
            }
        }
        self.spans = Vec::new();
        if let Some(t) = &mut self.tensors {
            t.sort_by(|a, b| a.name.cmp(&b.name));
        }
        Ok(())
    }
}

/// One tensor record's fields as met.
#[derive(Default)]
struct Record {
    dtype: Option<Dtype>,
    /// Elements, and the dimensions when collecting.
    shape: Option<(u128, Vec<u64>)>,
    offsets: Option<(u64, u64)>,
}

/// The top object: `__metadata__` and tensors.
struct TopVisitor<'a>(&'a mut Gather);

impl<'de> Visitor<'de> for TopVisitor<'_> {
    type Value = ();

    fn expecting(&self, f: &mut fmt::Formatter) -> fmt::Result {
        f.write_str("an object of tensors")
    }

    fn visit_map<A: MapAccess<'de>>(self, mut map: A) -> Result<(), A::Error> {
        let g = self.0;
        while let Some(is_metadata) = map.next_key_seed(KeySeed(&mut *g))? {
            if is_metadata {
                g.at = At::Metadata;
                map.next_value_seed(MetaSeed(&mut *g))?;
            } else {
                g.count_tensor()?;
                g.at = At::Tensor;
                let t = map.next_value_seed(TensorSeed(&mut *g))?;
                g.finish_tensor(t)?;
            }
            g.at = At::Top;
        }
        Ok(())
    }
}

/// A top-level key: `true` for `__metadata__`, else a tensor's name (kept in the gather).
struct KeySeed<'a>(&'a mut Gather);

impl<'de> DeserializeSeed<'de> for KeySeed<'_> {
    type Value = bool;

    fn deserialize<D: de::Deserializer<'de>>(self, d: D) -> Result<bool, D::Error> {
        d.deserialize_str(self)
    }
}

impl<'de> Visitor<'de> for KeySeed<'_> {
    type Value = bool;

    fn expecting(&self, f: &mut fmt::Formatter) -> fmt::Result {
        f.write_str("a tensor name")
    }

    fn visit_str<E: de::Error>(self, s: &str) -> Result<bool, E> {
        if s == "__metadata__" {
            return Ok(true);
        }
        self.0.set_name(s);
        Ok(false)
    }
}

/// `__metadata__`: an object of strings (kept only when collecting).
struct MetaSeed<'a>(&'a mut Gather);

impl<'de> DeserializeSeed<'de> for MetaSeed<'_> {
    type Value = ();

    fn deserialize<D: de::Deserializer<'de>>(self, d: D) -> Result<(), D::Error> {
        d.deserialize_map(self)
    }
}

impl<'de> Visitor<'de> for MetaSeed<'_> {
    type Value = ();

    fn expecting(&self, f: &mut fmt::Formatter) -> fmt::Result {
        f.write_str("an object of strings")
    }

    fn visit_map<A: MapAccess<'de>>(self, mut map: A) -> Result<(), A::Error> {
        let g = self.0;
        while let Some(k) = map.next_key::<String>()? {
            g.set_name(&k);
            g.at = At::MetaValue;
            let v = map.next_value_seed(StrSeed(g.metadata.is_some()))?;
            g.at = At::Metadata;
            if let (Some(m), Some(v)) = (&mut g.metadata, v) {
                m.insert(k, v);
            }
        }
        Ok(())
    }
}

/// A string, owned only when `.0` asks.
struct StrSeed(bool);

impl<'de> DeserializeSeed<'de> for StrSeed {
    type Value = Option<String>;

    fn deserialize<D: de::Deserializer<'de>>(self, d: D) -> Result<Option<String>, D::Error> {
        d.deserialize_str(self)
    }
}

impl<'de> Visitor<'de> for StrSeed {
    type Value = Option<String>;

    fn expecting(&self, f: &mut fmt::Formatter) -> fmt::Result {
        f.write_str("a string")
    }

    fn visit_str<E: de::Error>(self, s: &str) -> Result<Option<String>, E> {
        Ok(self.0.then(|| s.to_string()))
    }
}

/// A tensor's record: `dtype`, `shape`, `data_offsets` (other fields are passed over).
struct TensorSeed<'a>(&'a mut Gather);

impl<'de> DeserializeSeed<'de> for TensorSeed<'_> {
    type Value = Record;

    fn deserialize<D: de::Deserializer<'de>>(self, d: D) -> Result<Record, D::Error> {
        d.deserialize_map(self)
    }
}

impl<'de> Visitor<'de> for TensorSeed<'_> {
    type Value = Record;

    fn expecting(&self, f: &mut fmt::Formatter) -> fmt::Result {
        f.write_str("a tensor record")
    }

    fn visit_map<A: MapAccess<'de>>(self, mut map: A) -> Result<Record, A::Error> {
        let g = self.0;
        let mut t = Record::default();
        while let Some(field) = map.next_key::<Field>()? {
            match field {
                Field::Dtype => {
                    g.at = At::Dtype;
                    t.dtype = Some(map.next_value_seed(DtypeSeed(&mut *g))?);
                }
                Field::Shape => {
                    g.at = At::Shape;
                    t.shape = Some(map.next_value_seed(ShapeSeed(&mut *g))?);
                }
                Field::Offsets => {
                    g.at = At::Offsets;
                    t.offsets = Some(map.next_value_seed(OffsetsSeed(&mut *g))?);
                }
                Field::Other => {
                    map.next_value::<IgnoredAny>()?;
                }
            }
            g.at = At::Tensor;
        }
        Ok(t)
    }
}

enum Field {
    Dtype,
    Shape,
    Offsets,
    Other,
}

impl<'de> de::Deserialize<'de> for Field {
    fn deserialize<D: de::Deserializer<'de>>(d: D) -> Result<Field, D::Error> {
        struct V;
        impl Visitor<'_> for V {
            type Value = Field;
            fn expecting(&self, f: &mut fmt::Formatter) -> fmt::Result {
                f.write_str("a field name")
            }
            fn visit_str<E: de::Error>(self, s: &str) -> Result<Field, E> {
                Ok(match s {
                    "dtype" => Field::Dtype,
                    "shape" => Field::Shape,
                    "data_offsets" => Field::Offsets,
                    _ => Field::Other,
                })
            }
        }
        d.deserialize_str(V)
    }
}

struct DtypeSeed<'a>(&'a mut Gather);

impl<'de> DeserializeSeed<'de> for DtypeSeed<'_> {
    type Value = Dtype;

    fn deserialize<D: de::Deserializer<'de>>(self, d: D) -> Result<Dtype, D::Error> {
        d.deserialize_str(self)
    }
}

impl<'de> Visitor<'de> for DtypeSeed<'_> {
    type Value = Dtype;

    fn expecting(&self, f: &mut fmt::Formatter) -> fmt::Result {
        f.write_str("a dtype name")
    }

    fn visit_str<E: de::Error>(self, s: &str) -> Result<Dtype, E> {
        match Dtype::from_name(s) {
            Some(d) => Ok(d),
            None => {
                let shown: String = s.chars().take(24).collect();
                let what = format!("tensor {}: unknown dtype {shown:?}", self.0.shown());
                Err(self.0.refuse(ErrorKind::Format, what))
            }
        }
    }
}

/// A shape: its element count (checked), and its dimensions when collecting.
struct ShapeSeed<'a>(&'a mut Gather);

impl<'de> DeserializeSeed<'de> for ShapeSeed<'_> {
    type Value = (u128, Vec<u64>);

    fn deserialize<D: de::Deserializer<'de>>(self, d: D) -> Result<Self::Value, D::Error> {
        d.deserialize_seq(self)
    }
}

impl<'de> Visitor<'de> for ShapeSeed<'_> {
    type Value = (u128, Vec<u64>);

    fn expecting(&self, f: &mut fmt::Formatter) -> fmt::Result {
        f.write_str("a list of dimensions")
    }

    fn visit_seq<A: SeqAccess<'de>>(self, mut seq: A) -> Result<Self::Value, A::Error> {
        let g = self.0;
        let (mut elements, mut dims, mut rank) = (1u128, Vec::new(), 0u64);
        while let Some(d) = seq.next_element::<u64>()? {
            rank += 1;
            if rank > MAX_RANK {
                let what = format!("tensor {}: more than {MAX_RANK} dimensions", g.shown());
                return Err(g.refuse(ErrorKind::Format, what));
            }
            // A tensor of more than 2^64 elements is no tensor a file can hold.
            match elements.checked_mul(u128::from(d)) {
                Some(e) if e <= u128::from(u64::MAX) => elements = e,
                _ => {
                    let what = format!("tensor {}: shape overflows 2^64 elements", g.shown());
                    return Err(g.refuse(ErrorKind::Format, what));
                }
            }
            if g.tensors.is_some() {
                dims.push(d);
            }
        }
        Ok((elements, dims))
    }
}

/// `[begin, end]`.
struct OffsetsSeed<'a>(&'a mut Gather);

impl<'de> DeserializeSeed<'de> for OffsetsSeed<'_> {
    type Value = (u64, u64);

    fn deserialize<D: de::Deserializer<'de>>(self, d: D) -> Result<(u64, u64), D::Error> {
        d.deserialize_seq(self)
    }
}

impl<'de> Visitor<'de> for OffsetsSeed<'_> {
    type Value = (u64, u64);

    fn expecting(&self, f: &mut fmt::Formatter) -> fmt::Result {
        f.write_str("[begin, end]")
    }

    fn visit_seq<A: SeqAccess<'de>>(self, mut seq: A) -> Result<(u64, u64), A::Error> {
        let b = seq.next_element::<u64>()?;
        let e = seq.next_element::<u64>()?;
        let more = seq.next_element::<IgnoredAny>()?;
        match (b, e, more) {
            (Some(b), Some(e), None) => Ok((b, e)),
            _ => {
                let what = format!(
                    "tensor {}: data_offsets is not [begin, end]",
                    self.0.shown()
                );
                Err(self.0.refuse(ErrorKind::Format, what))
            }
        }
    }
}
