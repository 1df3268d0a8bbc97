//! Why a gRPC call to the kubelet gave no answer, in words a user can act on.

use std::fmt;
use std::time::Duration;

/// Why a call gave no answer, in words a user can act on.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum CallError {
    /// The socket file is not there (no kubelet, or its directory not mounted).
    Absent,
    /// Nothing listens on the socket (the kubelet is not running, or the socket is stale).
    Refused,
    /// The socket is root's.
    Denied,
    /// Connecting failed otherwise.
    Connect(String),
    /// The deadline passed while waiting for `stage`.
    Timeout {
        stage: &'static str,
        after: Duration,
    },
    /// The other end does not speak HTTP/2 + gRPC as expected.
    Protocol(String),
    /// The answer is larger than we accept.
    TooLarge { bytes: u64, max: usize },
    /// The server answered with a gRPC error status.
    Status { code: u32, message: String },
}

impl fmt::Display for CallError {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            // The whole sentences, with the socket's path, are the catalogue's
            // (`report-kubelet-no-socket`, `-refused`, `-denied`).
            CallError::Absent => write!(f, "no socket"),
            CallError::Refused => write!(f, "connection refused"),
            CallError::Denied => write!(f, "permission denied"),
            CallError::Connect(s) => write!(f, "{s}"),
            CallError::Timeout { stage, after } => {
                write!(f, "no answer within {} ms ({stage})", after.as_millis())
            }
            CallError::Protocol(s) => write!(f, "not a gRPC answer: {s}"),
            CallError::TooLarge { bytes, max } => {
                write!(f, "answer of {bytes} bytes is over the {max}-byte limit")
            }
            CallError::Status { code, message } => {
                write!(f, "gRPC status {code} ({})", grpc_code_name(*code))?;
                if !message.is_empty() {
                    write!(f, ": {message}")?;
                }
                Ok(())
            }
        }
    }
}

fn grpc_code_name(code: u32) -> &'static str {
    match code {
        1 => "cancelled",
        2 => "unknown",
        3 => "invalid argument",
        4 => "deadline exceeded",
        5 => "not found",
        7 => "permission denied",
        8 => "resource exhausted",
        12 => "unimplemented",
        13 => "internal",
        14 => "unavailable",
        16 => "unauthenticated",
        _ => "other",
    }
}
