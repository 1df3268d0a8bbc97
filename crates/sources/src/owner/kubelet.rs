//! The kubelet's names for pods: a gRPC client of its pod-resources unix socket (HTTP/2 with
//! prior knowledge, HPACK, the protobuf messages), kept apart from the cgroup parser it serves.

mod connect;
mod grpc_error;
mod h2;
pub mod kube;
mod proto;
