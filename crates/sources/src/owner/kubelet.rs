//! The kubelet's names for pods: a gRPC client of its pod-resources unix socket (HTTP/2 with
//! prior knowledge, HPACK, the protobuf messages), kept apart from the cgroup parser it serves.

mod connect;
mod grpc_error;
mod h2;
pub mod kube;
mod proto;

/// The whole client against a server's bytes: HTTP/2 framing, HPACK, the gRPC status and the
/// `List` protobuf answer, each within its bounds; the pods decoded, or the error as the user
/// would read it. For the fuzz target (`crates/sources/fuzz`): it reaches no kubelet.
#[doc(hidden)]
pub fn list_from_server_bytes(server: &[u8]) -> Result<usize, String> {
    let body = h2::call_against(server, kube::MAX_MESSAGE).map_err(|e| e.to_string())?;
    proto::list_response(&body)
        .map(|pods| pods.len())
        .map_err(|e| e.to_string())
}

/// The two protobuf answers the client decodes (`List`, `GetAllocatableResources`), from `body`:
/// how many items each gave, or its error. For the fuzz target; it reaches no kubelet.
#[doc(hidden)]
pub fn decode_bodies(body: &[u8]) -> (Result<usize, String>, Result<usize, String>) {
    (
        proto::list_response(body)
            .map(|p| p.len())
            .map_err(|e| e.to_string()),
        proto::allocatable_response(body)
            .map(|d| d.len())
            .map_err(|e| e.to_string()),
    )
}
