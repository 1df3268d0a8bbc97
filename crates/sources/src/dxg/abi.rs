//! The `/dev/dxg` statistics ioctl of WSL2's dxgkrnl, as raw buffers.
//!
//! Layout (Linux uapi `include/uapi/misc/d3dkmthk.h`, Microsoft's WSL2 kernel):
//! `struct d3dkmt_querystatistics { enum type; struct winluid adapter_luid; __u64 process;
//! struct d3dkmt_querystatistics_result result /* 0x308 bytes */; }` padded to 0x328 bytes, sent
//! as `LX_DXQUERYSTATISTICS = _IOWR(0x47, 0x43, struct d3dkmt_querystatistics)`. The kernel copies
//! the host's answer into `result` unchanged, so `result` and the query input after it (segment or
//! node id at 0x320) have Windows' `D3DKMT_QUERYSTATISTICS` layout. On Windows builds the offsets
//! below are checked at compile time against the `windows` crate's definitions of those structs.

use super::super::wddm::Luid;

/// `sizeof(struct d3dkmt_querystatistics)`.
pub const QUERY_SIZE: usize = 0x328;
pub const OFF_TYPE: usize = 0x0;
/// `winluid { a = LowPart, b = HighPart }`.
pub const OFF_LUID: usize = 0x4;
/// Linux: the process id (vpid) to query, 0 = the caller (needs the dxgkrnl patch "Handle process
/// ID in D3DKMTQueryStatistics"; older kernels only answer for the caller).
pub const OFF_PROCESS: usize = 0x10;
pub const OFF_RESULT: usize = 0x18;
pub const RESULT_SIZE: usize = 0x308;
/// `QuerySegment.SegmentId` / `QueryNode.NodeId` / ...: the union after the result.
pub const OFF_QUERY: usize = 0x320;

/// `D3DKMT_QUERYSTATISTICS_TYPE` values used here.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
#[repr(u32)]
pub enum QueryType {
    Adapter = 0,
    Process = 1,
    ProcessAdapter = 2,
    Segment = 3,
    ProcessSegment = 4,
    Node = 5,
    ProcessNode = 6,
}

/// Offsets inside `result` (Windows `D3DKMT_QUERYSTATISTICS_*_INFORMATION`).
pub mod result {
    /// ADAPTER_INFORMATION.NbSegments / NodeCount (u32).
    pub const ADAPTER_NB_SEGMENTS: usize = 0x0;
    pub const ADAPTER_NODE_COUNT: usize = 0x4;
    /// SEGMENT_INFORMATION.CommitLimit / BytesCommitted / BytesResident (u64), Aperture (u32).
    pub const SEGMENT_COMMIT_LIMIT: usize = 0x0;
    pub const SEGMENT_BYTES_COMMITTED: usize = 0x8;
    pub const SEGMENT_BYTES_RESIDENT: usize = 0x10;
    pub const SEGMENT_APERTURE: usize = 0x28;
    /// PROCESS_SEGMENT_INFORMATION.BytesCommitted (u64).
    pub const PROCESS_SEGMENT_BYTES_COMMITTED: usize = 0x0;
    /// PROCESS_NODE_INFORMATION.RunningTime (i64, 100 ns).
    pub const PROCESS_NODE_RUNNING_TIME: usize = 0x0;
}

const fn ioc_rw(ty: u64, nr: u64, size: u64) -> u64 {
    // _IOC(_IOC_READ | _IOC_WRITE, ty, nr, size) on x86-64 and arm64.
    (3 << 30) | (size << 16) | (ty << 8) | nr
}

/// `LX_DXQUERYSTATISTICS`.
pub const LX_DXQUERYSTATISTICS: u64 = ioc_rw(0x47, 0x43, QUERY_SIZE as u64);
/// `LX_DXENUMADAPTERS2` with `struct d3dkmt_enumadapters2 { u32 num_adapters; u32 reserved;
/// u64 adapters; }`.
pub const LX_DXENUMADAPTERS2: u64 = ioc_rw(0x47, 0x14, 16);
/// `struct d3dkmt_adapterinfo { u32 adapter_handle; winluid adapter_luid; u32 num_sources;
/// u32 present_move_regions_preferred; }`.
pub const ADAPTERINFO_SIZE: usize = 20;
/// `D3DKMT_ADAPTERS_MAX`.
pub const ADAPTERS_MAX: usize = 64;

/// One statistics request/answer buffer.
#[derive(Clone, PartialEq, Eq)]
pub struct QueryBuf(pub [u8; QUERY_SIZE]);

impl std::fmt::Debug for QueryBuf {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        write!(f, "QueryBuf(type {})", self.u32_at(OFF_TYPE))
    }
}

impl QueryBuf {
    /// A request: `pid` 0 asks about the caller; `id` is the segment or node id where the type
    /// takes one.
    pub fn request(ty: QueryType, luid: Luid, pid: u64, id: u32) -> QueryBuf {
        let mut b = [0u8; QUERY_SIZE];
        b[OFF_TYPE..OFF_TYPE + 4].copy_from_slice(&(ty as u32).to_le_bytes());
        b[OFF_LUID..OFF_LUID + 4].copy_from_slice(&luid.low.to_le_bytes());
        b[OFF_LUID + 4..OFF_LUID + 8].copy_from_slice(&luid.high.to_le_bytes());
        b[OFF_PROCESS..OFF_PROCESS + 8].copy_from_slice(&pid.to_le_bytes());
        b[OFF_QUERY..OFF_QUERY + 4].copy_from_slice(&id.to_le_bytes());
        QueryBuf(b)
    }

    /// A recorded buffer (fixtures, hex). Wrong lengths are errors.
    pub fn from_hex(s: &str) -> Result<QueryBuf, String> {
        let s: String = s.chars().filter(|c| !c.is_ascii_whitespace()).collect();
        if s.len() != QUERY_SIZE * 2 {
            return Err(format!(
                "statistics buffer is {} hex digits, expected {}",
                s.len(),
                QUERY_SIZE * 2
            ));
        }
        let mut b = [0u8; QUERY_SIZE];
        for (i, byte) in b.iter_mut().enumerate() {
            *byte = u8::from_str_radix(&s[2 * i..2 * i + 2], 16)
                .map_err(|_| format!("statistics buffer: bad hex at byte {i}"))?;
        }
        Ok(QueryBuf(b))
    }

    pub fn to_hex(&self) -> String {
        self.0.iter().map(|b| format!("{b:02x}")).collect()
    }

    fn u32_at(&self, off: usize) -> u32 {
        u32::from_le_bytes(self.0[off..off + 4].try_into().expect("4 bytes"))
    }

    fn u64_at(&self, off: usize) -> u64 {
        u64::from_le_bytes(self.0[off..off + 8].try_into().expect("8 bytes"))
    }

    pub fn query_type(&self) -> u32 {
        self.u32_at(OFF_TYPE)
    }

    pub fn luid(&self) -> Luid {
        Luid {
            low: self.u32_at(OFF_LUID),
            high: self.u32_at(OFF_LUID + 4),
        }
    }

    pub fn query_id(&self) -> u32 {
        self.u32_at(OFF_QUERY)
    }

    fn result_u32(&self, off: usize) -> u32 {
        self.u32_at(OFF_RESULT + off)
    }

    fn result_u64(&self, off: usize) -> u64 {
        self.u64_at(OFF_RESULT + off)
    }

    fn expect(&self, ty: QueryType) -> Result<(), String> {
        if self.query_type() == ty as u32 {
            Ok(())
        } else {
            Err(format!(
                "statistics buffer is of type {}, not {:?}",
                self.query_type(),
                ty
            ))
        }
    }

    /// ADAPTER: (segment count, node count).
    pub fn adapter_info(&self) -> Result<(u32, u32), String> {
        self.expect(QueryType::Adapter)?;
        Ok((
            self.result_u32(result::ADAPTER_NB_SEGMENTS),
            self.result_u32(result::ADAPTER_NODE_COUNT),
        ))
    }

    /// SEGMENT: the segment's size, use, and whether it is an aperture (system memory) segment.
    pub fn segment_info(&self) -> Result<SegmentInfo, String> {
        self.expect(QueryType::Segment)?;
        Ok(SegmentInfo {
            id: self.query_id(),
            commit_limit: self.result_u64(result::SEGMENT_COMMIT_LIMIT),
            bytes_committed: self.result_u64(result::SEGMENT_BYTES_COMMITTED),
            bytes_resident: self.result_u64(result::SEGMENT_BYTES_RESIDENT),
            aperture: self.result_u32(result::SEGMENT_APERTURE) != 0,
        })
    }

    /// PROCESS_SEGMENT: bytes the process has committed in the segment.
    pub fn process_segment_committed(&self) -> Result<u64, String> {
        self.expect(QueryType::ProcessSegment)?;
        Ok(self.result_u64(result::PROCESS_SEGMENT_BYTES_COMMITTED))
    }

    /// PROCESS_NODE: the process's cumulative running time on the node, 100 ns units.
    pub fn process_node_running_time(&self) -> Result<u64, String> {
        self.expect(QueryType::ProcessNode)?;
        let v = self.result_u64(result::PROCESS_NODE_RUNNING_TIME) as i64;
        u64::try_from(v).map_err(|_| format!("negative running time {v}"))
    }

    /// Write a result field (recorders and tests build answers with this).
    pub fn set_result_u64(&mut self, off: usize, v: u64) {
        self.0[OFF_RESULT + off..OFF_RESULT + off + 8].copy_from_slice(&v.to_le_bytes());
    }

    pub fn set_result_u32(&mut self, off: usize, v: u32) {
        self.0[OFF_RESULT + off..OFF_RESULT + off + 4].copy_from_slice(&v.to_le_bytes());
    }
}

/// One memory segment of an adapter.
#[derive(Debug, Clone, Copy, PartialEq, Eq, serde::Serialize, serde::Deserialize)]
pub struct SegmentInfo {
    pub id: u32,
    pub commit_limit: u64,
    pub bytes_committed: u64,
    pub bytes_resident: u64,
    /// Aperture segments map system memory (WDDM "shared").
    pub aperture: bool,
}

/// `struct d3dkmt_adapterinfo` records from `LX_DXENUMADAPTERS2`: (handle, LUID).
pub fn parse_adapter_infos(bytes: &[u8], count: usize) -> Result<Vec<(u32, Luid)>, String> {
    if count > ADAPTERS_MAX {
        return Err(format!(
            "{count} adapters is over the limit of {ADAPTERS_MAX}"
        ));
    }
    let need = count * ADAPTERINFO_SIZE;
    if bytes.len() < need {
        return Err(format!(
            "adapter list is {} bytes, {count} adapters need {need}",
            bytes.len()
        ));
    }
    Ok(bytes[..need]
        .chunks_exact(ADAPTERINFO_SIZE)
        .map(|c| {
            let u = |o: usize| u32::from_le_bytes(c[o..o + 4].try_into().expect("4 bytes"));
            (
                u(0),
                Luid {
                    low: u(4),
                    high: u(8),
                },
            )
        })
        .collect())
}

/// The offsets above, checked against Windows' own definitions (windows crate metadata) whenever
/// this crate is built for Windows (CI's x86_64-pc-windows-msvc check).
#[cfg(windows)]
const _: () = {
    use result as r;
    use std::mem::{offset_of, size_of};
    use windows::Wdk::Graphics::Direct3D as d;
    // `at!(T { field: OFF, ... })`: Windows' struct `T` has each `field` at our offset `OFF`.
    macro_rules! at {
        ($t:ident { $($f:ident: $off:expr),* $(,)? }) => {
            $(assert!(offset_of!(d::$t, $f) == $off);)*
        };
    }
    assert!(size_of::<d::D3DKMT_QUERYSTATISTICS>() == QUERY_SIZE);
    assert!(size_of::<d::D3DKMT_QUERYSTATISTICS_RESULT>() == RESULT_SIZE);
    at!(D3DKMT_QUERYSTATISTICS {
        Type: OFF_TYPE,
        AdapterLuid: OFF_LUID,
        hProcess: OFF_PROCESS,
        QueryResult: OFF_RESULT,
        Anonymous: OFF_QUERY,
    });
    at!(D3DKMT_QUERYSTATISTICS_ADAPTER_INFORMATION {
        NbSegments: r::ADAPTER_NB_SEGMENTS,
        NodeCount: r::ADAPTER_NODE_COUNT,
    });
    at!(D3DKMT_QUERYSTATISTICS_SEGMENT_INFORMATION {
        CommitLimit: r::SEGMENT_COMMIT_LIMIT,
        BytesCommitted: r::SEGMENT_BYTES_COMMITTED,
        BytesResident: r::SEGMENT_BYTES_RESIDENT,
        Aperture: r::SEGMENT_APERTURE,
    });
    at!(D3DKMT_QUERYSTATISTICS_PROCESS_SEGMENT_INFORMATION {
        BytesCommitted: r::PROCESS_SEGMENT_BYTES_COMMITTED,
    });
    at!(D3DKMT_QUERYSTATISTICS_PROCESS_NODE_INFORMATION {
        RunningTime: r::PROCESS_NODE_RUNNING_TIME,
    });
    assert!(d::D3DKMT_QUERYSTATISTICS_PROCESS_SEGMENT.0 == QueryType::ProcessSegment as i32);
    assert!(d::D3DKMT_QUERYSTATISTICS_PROCESS_NODE.0 == QueryType::ProcessNode as i32);
    assert!(d::D3DKMT_QUERYSTATISTICS_SEGMENT.0 == QueryType::Segment as i32);
};

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn ioctl_numbers_match_the_uapi_encoding() {
        // _IOWR(0x47, 0x43, 0x328): dir 3, size 0x328, type 'G', nr 0x43.
        assert_eq!(LX_DXQUERYSTATISTICS, 0xC328_4743);
        assert_eq!(LX_DXENUMADAPTERS2, 0xC010_4714);
    }

    #[test]
    fn request_layout() {
        let luid = Luid {
            high: 0x1,
            low: 0xC85A,
        };
        let q = QueryBuf::request(QueryType::ProcessSegment, luid, 4242, 3);
        assert_eq!(&q.0[0..4], &[4, 0, 0, 0]);
        assert_eq!(&q.0[4..12], &[0x5A, 0xC8, 0, 0, 1, 0, 0, 0]);
        assert_eq!(&q.0[0x10..0x18], &4242u64.to_le_bytes());
        assert_eq!(&q.0[0x320..0x324], &[3, 0, 0, 0]);
        assert_eq!(q.luid(), luid);
        assert_eq!(q.query_id(), 3);
        assert!(q.0[0x18..0x320].iter().all(|b| *b == 0));
    }

    #[test]
    fn answers_decode_and_types_are_checked() {
        let luid = Luid { high: 0, low: 7 };
        let mut a = QueryBuf::request(QueryType::Adapter, luid, 0, 0);
        a.set_result_u32(result::ADAPTER_NB_SEGMENTS, 3);
        a.set_result_u32(result::ADAPTER_NODE_COUNT, 9);
        assert_eq!(a.adapter_info(), Ok((3, 9)));
        assert!(a.segment_info().unwrap_err().contains("type 0"));

        let mut s = QueryBuf::request(QueryType::Segment, luid, 0, 2);
        s.set_result_u64(result::SEGMENT_COMMIT_LIMIT, 24 << 30);
        s.set_result_u64(result::SEGMENT_BYTES_COMMITTED, 5 << 30);
        s.set_result_u64(result::SEGMENT_BYTES_RESIDENT, 4 << 30);
        s.set_result_u32(result::SEGMENT_APERTURE, 1);
        let si = s.segment_info().unwrap();
        assert_eq!(si.id, 2);
        assert_eq!(si.commit_limit, 24 << 30);
        assert_eq!(si.bytes_resident, 4 << 30);
        assert!(si.aperture);

        let mut n = QueryBuf::request(QueryType::ProcessNode, luid, 12, 1);
        n.set_result_u64(result::PROCESS_NODE_RUNNING_TIME, (-5i64) as u64);
        assert!(n
            .process_node_running_time()
            .unwrap_err()
            .contains("negative"));
        n.set_result_u64(result::PROCESS_NODE_RUNNING_TIME, 77);
        assert_eq!(n.process_node_running_time(), Ok(77));

        let hex = n.to_hex();
        assert_eq!(QueryBuf::from_hex(&hex).unwrap(), n);
        assert!(QueryBuf::from_hex("00ff")
            .unwrap_err()
            .contains("hex digits"));
        let bad = format!("zz{}", &hex[2..]);
        assert!(QueryBuf::from_hex(&bad)
            .unwrap_err()
            .contains("bad hex at byte 0"));
    }

    #[test]
    fn adapter_list_records() {
        let mut b = vec![0u8; 2 * ADAPTERINFO_SIZE];
        b[0..4].copy_from_slice(&0x4000_0040u32.to_le_bytes());
        b[4..8].copy_from_slice(&0xC85Au32.to_le_bytes());
        b[20..24].copy_from_slice(&0x4000_0080u32.to_le_bytes());
        b[24..28].copy_from_slice(&0xD3ECu32.to_le_bytes());
        b[28..32].copy_from_slice(&2u32.to_le_bytes());
        let v = parse_adapter_infos(&b, 2).unwrap();
        assert_eq!(
            v[0],
            (
                0x4000_0040,
                Luid {
                    high: 0,
                    low: 0xC85A
                }
            )
        );
        assert_eq!(
            v[1],
            (
                0x4000_0080,
                Luid {
                    high: 2,
                    low: 0xD3EC
                }
            )
        );
        assert!(parse_adapter_infos(&b, 3).unwrap_err().contains("need 60"));
        assert!(parse_adapter_infos(&b, 65).is_err());
    }
}
