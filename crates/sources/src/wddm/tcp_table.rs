//! The bytes of Windows' TCP owner tables, as `GetExtendedTcpTable(…, TCP_TABLE_OWNER_PID_LISTENER)`
//! fills them, read into (listening port, owning pid): the Windows counterpart of
//! `/proc/net/tcp{,6}` joined with `/proc/PID/fd` on Linux. Pure, so it is tested on every
//! platform; `wddm::facts` makes the call on Windows.
//!
//! The layouts, from Microsoft's documentation (Win32 API, iprtrmib.h / tcpmib.h):
//! - `MIB_TCPTABLE_OWNER_PID` = `DWORD dwNumEntries; MIB_TCPROW_OWNER_PID table[ANY_SIZE]`
//!   (<https://learn.microsoft.com/en-us/windows/win32/api/tcpmib/ns-tcpmib-mib_tcptable_owner_pid>);
//!   a row is six DWORDs: `dwState, dwLocalAddr, dwLocalPort, dwRemoteAddr, dwRemotePort,
//!   dwOwningPid` (24 bytes;
//!   <https://learn.microsoft.com/en-us/windows/win32/api/tcpmib/ns-tcpmib-mib_tcprow_owner_pid>).
//! - `MIB_TCP6TABLE_OWNER_PID` = `DWORD dwNumEntries; MIB_TCP6ROW_OWNER_PID table[ANY_SIZE]`
//!   (<https://learn.microsoft.com/en-us/windows/win32/api/tcpmib/ns-tcpmib-mib_tcp6table_owner_pid>);
//!   a row is `UCHAR ucLocalAddr[16]; DWORD dwLocalScopeId, dwLocalPort; UCHAR ucRemoteAddr[16];
//!   DWORD dwRemoteScopeId, dwRemotePort, dwState, dwOwningPid` (56 bytes;
//!   <https://learn.microsoft.com/en-us/windows/win32/api/tcpmib/ns-tcpmib-mib_tcp6row_owner_pid>).
//!
//! Both start their rows right after the 4-byte count (every member is DWORD-aligned). DWORDs are
//! little-endian (every Windows target); `dwLocalPort` holds the port in network byte order in
//! its low 16 bits, "the upper 16 bits may contain uninitialized data". `dwState` 2 is
//! `MIB_TCP_STATE_LISTEN` (<https://learn.microsoft.com/en-us/windows/win32/api/tcpmib/ns-tcpmib-mib_tcprow_owner_pid>).

/// Which of the two tables the bytes are.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Family {
    /// `AF_INET`: `MIB_TCPTABLE_OWNER_PID`.
    V4,
    /// `AF_INET6`: `MIB_TCP6TABLE_OWNER_PID`.
    V6,
}

/// `MIB_TCP_STATE_LISTEN`.
const LISTEN: u32 = 2;

/// (row size, offset of dwState, of dwLocalPort, of dwOwningPid) in bytes.
const fn layout(f: Family) -> (usize, usize, usize, usize) {
    match f {
        Family::V4 => (24, 0, 8, 20),
        Family::V6 => (56, 48, 20, 52),
    }
}

/// The size in bytes of one row of `f`'s table.
pub const fn row_size(f: Family) -> usize {
    layout(f).0
}

fn dword(b: &[u8], at: usize) -> Option<u32> {
    Some(u32::from_le_bytes(b.get(at..at + 4)?.try_into().ok()?))
}

/// Every listening socket of the table: (local port, owning pid), in the table's order. Rows
/// are read up to the smaller of the table's count and what the buffer holds (a count larger
/// than the bytes, a truncated last row or a buffer shorter than the count are read as far as
/// they go, never past the end); rows in another state than listening are left out.
pub fn listeners(table: &[u8], f: Family) -> Vec<(u16, u32)> {
    let (size, state_at, port_at, pid_at) = layout(f);
    let Some(count) = dword(table, 0) else {
        return Vec::new();
    };
    let rows = table.get(4..).unwrap_or_default().chunks_exact(size);
    rows.take(count as usize)
        .filter(|r| dword(r, state_at) == Some(LISTEN))
        .filter_map(|r| {
            let port = u16::from_be_bytes([r[port_at], r[port_at + 1]]);
            Some((port, dword(r, pid_at)?))
        })
        .collect()
}

/// The ports `pid` listens on among `listeners`, sorted, each once.
pub fn ports_of(listeners: &[(u16, u32)], pid: u32) -> Vec<u16> {
    let mut ports: Vec<u16> = listeners
        .iter()
        .filter(|(_, owner)| *owner == pid)
        .map(|(port, _)| *port)
        .collect();
    ports.sort_unstable();
    ports.dedup();
    ports
}

#[cfg(test)]
mod tests {
    use super::*;

    /// One MIB_TCPROW_OWNER_PID as Windows writes it: 127.0.0.1:port, listening.
    fn v4_row(state: u32, port: u16, pid: u32) -> Vec<u8> {
        let mut r = Vec::new();
        r.extend(state.to_le_bytes());
        r.extend([127, 0, 0, 1]); // dwLocalAddr, network order
                                  // dwLocalPort: network order in the low 16 bits, garbage above.
        r.extend(port.to_be_bytes());
        r.extend([0xAB, 0xCD]);
        r.extend([0u8; 4]); // dwRemoteAddr
        r.extend([0u8; 4]); // dwRemotePort
        r.extend(pid.to_le_bytes());
        assert_eq!(r.len(), row_size(Family::V4));
        r
    }

    /// One MIB_TCP6ROW_OWNER_PID: [::1]:port.
    fn v6_row(state: u32, port: u16, pid: u32) -> Vec<u8> {
        let mut r = vec![0u8; 15];
        r.push(1); // ucLocalAddr ::1
        r.extend(0u32.to_le_bytes()); // dwLocalScopeId
        r.extend(port.to_be_bytes());
        r.extend([0xFF, 0xFF]);
        r.extend([0u8; 16]); // ucRemoteAddr
        r.extend(0u32.to_le_bytes()); // dwRemoteScopeId
        r.extend(0u32.to_le_bytes()); // dwRemotePort
        r.extend(state.to_le_bytes());
        r.extend(pid.to_le_bytes());
        assert_eq!(r.len(), row_size(Family::V6));
        r
    }

    fn table(count: u32, rows: &[Vec<u8>]) -> Vec<u8> {
        let mut t = count.to_le_bytes().to_vec();
        for r in rows {
            t.extend(r);
        }
        t
    }

    /// Ollama on 11434 and LM Studio on 1234, in both tables; a non-listening row is left out.
    #[test]
    fn ports_and_owners_of_both_tables() {
        let t4 = table(
            3,
            &[
                v4_row(LISTEN, 11434, 9001),
                v4_row(5, 80, 7),
                v4_row(LISTEN, 1234, 4242),
            ],
        );
        let l4 = listeners(&t4, Family::V4);
        assert_eq!(l4, vec![(11434, 9001), (1234, 4242)]);
        let t6 = table(
            2,
            &[v6_row(LISTEN, 11434, 9001), v6_row(LISTEN, 8080, 9001)],
        );
        let l6 = listeners(&t6, Family::V6);
        assert_eq!(l6, vec![(11434, 9001), (8080, 9001)]);
        let all: Vec<(u16, u32)> = l4.into_iter().chain(l6).collect();
        assert_eq!(ports_of(&all, 9001), vec![8080, 11434]);
        assert_eq!(ports_of(&all, 4242), vec![1234]);
        assert!(ports_of(&all, 1).is_empty());
    }

    /// The count and the buffer bound each other; nothing reads past either.
    #[test]
    fn counts_and_buffers_that_disagree() {
        let rows = [v4_row(LISTEN, 1, 10), v4_row(LISTEN, 2, 20)];
        // More rows than counted: only the counted ones.
        assert_eq!(listeners(&table(1, &rows), Family::V4), vec![(1, 10)]);
        // A count far past the buffer, and a truncated last row: what is whole.
        let mut t = table(u32::MAX, &rows);
        t.truncate(t.len() - 3);
        assert_eq!(listeners(&t, Family::V4), vec![(1, 10)]);
        // No rows, no count, nothing at all.
        assert!(listeners(&table(0, &rows), Family::V4).is_empty());
        assert!(listeners(&[1, 0], Family::V4).is_empty());
        assert!(listeners(&[], Family::V6).is_empty());
        // v4 bytes read as v6 rows: bounded, no panic.
        let _ = listeners(&table(2, &rows), Family::V6);
    }

    /// Any bytes: no panic, never more rows than fit.
    #[test]
    fn arbitrary_bytes_never_panic() {
        let mut seed = 0x9e37_79b9_7f4a_7c15u64;
        for len in 0..600usize {
            let bytes: Vec<u8> = (0..len)
                .map(|_| {
                    seed ^= seed << 13;
                    seed ^= seed >> 7;
                    seed ^= seed << 17;
                    (seed >> 24) as u8
                })
                .collect();
            for f in [Family::V4, Family::V6] {
                let n = listeners(&bytes, f).len();
                assert!(n <= len.saturating_sub(4) / row_size(f));
            }
        }
    }
}
