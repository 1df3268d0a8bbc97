//! The kubelet pod-resources v1 messages gpuledger reads, decoded by hand from the protobuf
//! wire format (the proto is `k8s.io/kubelet/pkg/apis/podresources/v1/api.proto`, kept as
//! `fixtures/kubelet/api.proto`). Only the fields needed are kept; every other field, known or
//! not, is skipped by its wire type, as protobuf requires of readers of newer messages.
//!
//! A hand-written decoder instead of prost: prost needs protoc or generated code checked in,
//! for five small messages. Nothing here can allocate more than the message it reads: a length
//! past the end of the buffer is an error, never a reservation.

use std::fmt;

/// What went wrong, with the byte offset inside the message being read.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct ProtoError(pub String);

impl fmt::Display for ProtoError {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(f, "malformed protobuf: {}", self.0)
    }
}

/// `ContainerDevices`: the devices of one resource (`nvidia.com/gpu`) given to a container.
#[derive(Debug, Clone, Default, PartialEq, Eq)]
pub struct Devices {
    pub resource_name: String,
    /// As the device plugin names them: a GPU UUID for NVIDIA's plugin, `<UUID>::<n>` for one
    /// of its time-slicing replicas, a MIG device's UUID.
    pub device_ids: Vec<String>,
}

/// `ContainerResources`: a container by name, its device-plugin devices and the devices of its
/// DRA claims (`<driver>/<pool>/<device>`).
#[derive(Debug, Clone, Default, PartialEq, Eq)]
pub struct Container {
    pub name: String,
    pub devices: Vec<Devices>,
    pub dra_devices: Vec<String>,
}

/// `PodResources`: a pod by name and namespace (the message has no UID).
#[derive(Debug, Clone, Default, PartialEq, Eq)]
pub struct Pod {
    pub name: String,
    pub namespace: String,
    pub containers: Vec<Container>,
}

/// The most items one answer may hold, far above any real node (the kubelet's default
/// `--max-pods` is 110; a GPU node has a few dozen device ids, a few hundred with
/// time-slicing replicas). With every string at most the message's own bytes, these keep a
/// decoded 16 MiB answer within a few tens of megabytes.
#[derive(Debug, Clone, Copy)]
pub struct Limits {
    pub pods: usize,
    pub containers_per_pod: usize,
    /// Containers in the whole answer.
    pub containers: usize,
    /// Device ids (device plugins' and DRA devices) and device lists in the whole answer.
    pub devices: usize,
}

pub const LIMITS: Limits = Limits {
    pods: 10_000,
    containers_per_pod: 1_000,
    containers: 50_000,
    devices: 10_000,
};

/// What one answer has decoded so far, against [`Limits`].
struct Budget {
    limits: Limits,
    pods: usize,
    containers: usize,
    devices: usize,
}

impl Budget {
    fn new(limits: Limits) -> Self {
        Budget {
            limits,
            pods: 0,
            containers: 0,
            devices: 0,
        }
    }

    /// Counts one more item; an error naming the limit past it.
    fn take(&mut self, item: Item) -> Result<(), ProtoError> {
        let (n, max, what) = match item {
            Item::Pod => (&mut self.pods, self.limits.pods, "pods"),
            Item::Container => (&mut self.containers, self.limits.containers, "containers"),
            Item::Device => (
                &mut self.devices,
                self.limits.devices,
                "device ids and device lists",
            ),
        };
        *n += 1;
        if *n > max {
            return Err(ProtoError(format!(
                "more than {max} {what} in one answer: refused (far above any real node; the kubelet runs at most 110 pods by default)"
            )));
        }
        Ok(())
    }
}

#[derive(Clone, Copy)]
enum Item {
    Pod,
    Container,
    Device,
}

/// One field: its number and value.
enum Value<'a> {
    Varint,
    Bytes(&'a [u8]),
    Fixed,
}

struct Reader<'a> {
    buf: &'a [u8],
    pos: usize,
}

impl<'a> Reader<'a> {
    fn new(buf: &'a [u8]) -> Self {
        Reader { buf, pos: 0 }
    }

    fn err(&self, what: &str) -> ProtoError {
        ProtoError(format!("{what} at byte {}", self.pos))
    }

    fn varint(&mut self) -> Result<u64, ProtoError> {
        let mut v: u64 = 0;
        for shift in (0..70).step_by(7) {
            let Some(&b) = self.buf.get(self.pos) else {
                return Err(self.err("truncated varint"));
            };
            self.pos += 1;
            if shift == 63 && b > 1 {
                return Err(self.err("varint longer than 64 bits"));
            }
            v |= u64::from(b & 0x7f) << shift;
            if b & 0x80 == 0 {
                return Ok(v);
            }
        }
        Err(self.err("varint longer than 10 bytes"))
    }

    fn take(&mut self, n: u64) -> Result<&'a [u8], ProtoError> {
        let left = (self.buf.len() - self.pos) as u64;
        if n > left {
            return Err(self.err(&format!("length {n} past the end ({left} bytes left)")));
        }
        let s = &self.buf[self.pos..self.pos + n as usize];
        self.pos += n as usize;
        Ok(s)
    }

    /// The next field, or `None` at the end of the message.
    fn field(&mut self) -> Result<Option<(u64, Value<'a>)>, ProtoError> {
        if self.pos >= self.buf.len() {
            return Ok(None);
        }
        let key = self.varint()?;
        let (number, wire) = (key >> 3, key & 7);
        if number == 0 {
            return Err(self.err("field number 0"));
        }
        let value = match wire {
            0 => {
                self.varint()?;
                Value::Varint
            }
            1 => {
                self.take(8)?;
                Value::Fixed
            }
            2 => {
                let n = self.varint()?;
                Value::Bytes(self.take(n)?)
            }
            5 => {
                self.take(4)?;
                Value::Fixed
            }
            // Groups (3, 4) are proto2 only; 6 and 7 do not exist.
            w => return Err(self.err(&format!("wire type {w}"))),
        };
        Ok(Some((number, value)))
    }
}

/// Calls `f` with every length-delimited field; a known field of another wire type is an error.
fn each_bytes<'a>(
    buf: &'a [u8],
    what: &str,
    known: &[u64],
    mut f: impl FnMut(u64, &'a [u8]) -> Result<(), ProtoError>,
) -> Result<(), ProtoError> {
    let mut r = Reader::new(buf);
    while let Some((n, v)) = r.field()? {
        match v {
            Value::Bytes(b) => f(n, b).map_err(|e| ProtoError(format!("{what}.{n}: {}", e.0)))?,
            Value::Varint | Value::Fixed if known.contains(&n) => {
                return Err(ProtoError(format!(
                    "{what}: field {n} should be length-delimited"
                )))
            }
            _ => {}
        }
    }
    Ok(())
}

fn string(b: &[u8]) -> Result<String, ProtoError> {
    String::from_utf8(b.to_vec()).map_err(|_| ProtoError("a string that is not UTF-8".into()))
}

/// `ListPodResourcesResponse`.
pub fn list_response(buf: &[u8]) -> Result<Vec<Pod>, ProtoError> {
    list_response_within(buf, LIMITS)
}

/// The same within other limits (tests).
pub fn list_response_within(buf: &[u8], limits: Limits) -> Result<Vec<Pod>, ProtoError> {
    let mut budget = Budget::new(limits);
    let mut pods = Vec::new();
    each_bytes(buf, "ListPodResourcesResponse", &[1], |n, b| {
        if n == 1 {
            budget.take(Item::Pod)?;
            pods.push(pod(b, &mut budget)?);
        }
        Ok(())
    })?;
    Ok(pods)
}

/// `AllocatableResourcesResponse`: the devices the kubelet can hand out.
pub fn allocatable_response(buf: &[u8]) -> Result<Vec<Devices>, ProtoError> {
    let mut budget = Budget::new(LIMITS);
    let mut devices = Vec::new();
    // cpu_ids (2) are packed int64s: length-delimited, skipped like memory (3).
    each_bytes(buf, "AllocatableResourcesResponse", &[1, 3], |n, b| {
        if n == 1 {
            budget.take(Item::Device)?;
            devices.push(container_devices(b, &mut budget)?);
        }
        Ok(())
    })?;
    Ok(devices)
}

fn pod(buf: &[u8], budget: &mut Budget) -> Result<Pod, ProtoError> {
    let mut p = Pod::default();
    each_bytes(buf, "PodResources", &[1, 2, 3, 5], |n, b| {
        match n {
            1 => p.name = string(b)?,
            2 => p.namespace = string(b)?,
            3 => {
                if p.containers.len() >= budget.limits.containers_per_pod {
                    return Err(ProtoError(format!(
                        "more than {} containers in one pod: refused",
                        budget.limits.containers_per_pod
                    )));
                }
                budget.take(Item::Container)?;
                p.containers.push(container(b, budget)?);
            }
            _ => {}
        }
        Ok(())
    })?;
    Ok(p)
}

fn container(buf: &[u8], budget: &mut Budget) -> Result<Container, ProtoError> {
    let mut c = Container::default();
    each_bytes(buf, "ContainerResources", &[1, 2, 4, 5], |n, b| {
        match n {
            1 => c.name = string(b)?,
            2 => {
                budget.take(Item::Device)?;
                c.devices.push(container_devices(b, budget)?);
            }
            5 => c.dra_devices.extend(dynamic_resource(b, budget)?),
            _ => {}
        }
        Ok(())
    })?;
    Ok(c)
}

fn container_devices(buf: &[u8], budget: &mut Budget) -> Result<Devices, ProtoError> {
    let mut d = Devices::default();
    each_bytes(buf, "ContainerDevices", &[1, 2, 3], |n, b| {
        match n {
            1 => d.resource_name = string(b)?,
            2 => {
                budget.take(Item::Device)?;
                d.device_ids.push(string(b)?);
            }
            _ => {}
        }
        Ok(())
    })?;
    Ok(d)
}

/// `DynamicResource`: its claim's devices as `<driver>/<pool>/<device>`.
fn dynamic_resource(buf: &[u8], budget: &mut Budget) -> Result<Vec<String>, ProtoError> {
    let mut out = Vec::new();
    each_bytes(buf, "DynamicResource", &[2, 3, 4], |n, b| {
        if n == 4 {
            budget.take(Item::Device)?;
            let (mut driver, mut pool, mut device) = (String::new(), String::new(), String::new());
            each_bytes(b, "ClaimResource", &[1, 2, 3, 4, 5], |n, b| {
                match n {
                    2 => driver = string(b)?,
                    3 => pool = string(b)?,
                    4 => device = string(b)?,
                    _ => {}
                }
                Ok(())
            })?;
            out.push(format!("{driver}/{pool}/{device}"));
        }
        Ok(())
    })?;
    Ok(out)
}

#[cfg(test)]
mod tests {
    use super::*;
    use proptest::prelude::*;

    proptest! {
        #[test]
        fn random_bytes_never_panic(bytes in proptest::collection::vec(any::<u8>(), 0..512)) {
            let _ = list_response(&bytes);
            let _ = allocatable_response(&bytes);
        }

        #[test]
        fn truncated_messages_never_panic(cut in 0usize..200) {
            let msg = sample();
            let _ = list_response(&msg[..cut.min(msg.len())]);
        }
    }

    fn sample() -> Vec<u8> {
        let mut devs = Vec::new();
        bytes(1, b"nvidia.com/gpu", &mut devs);
        bytes(2, b"GPU-1::0", &mut devs);
        let mut ctr = Vec::new();
        bytes(1, b"trainer", &mut ctr);
        bytes(2, &devs, &mut ctr);
        let mut pod = Vec::new();
        bytes(1, b"train-0", &mut pod);
        bytes(2, b"ml", &mut pod);
        bytes(3, &ctr, &mut pod);
        let mut msg = Vec::new();
        bytes(1, &pod, &mut msg);
        msg
    }

    fn varint(mut v: u64, out: &mut Vec<u8>) {
        while v >= 0x80 {
            out.push((v as u8) | 0x80);
            v >>= 7;
        }
        out.push(v as u8);
    }

    fn bytes(n: u64, b: &[u8], out: &mut Vec<u8>) {
        varint(n << 3 | 2, out);
        varint(b.len() as u64, out);
        out.extend_from_slice(b);
    }

    #[test]
    fn decodes_a_pod_and_skips_unknown_fields() {
        let mut devs = Vec::new();
        bytes(1, b"nvidia.com/gpu", &mut devs);
        bytes(2, b"GPU-1::0", &mut devs);
        bytes(2, b"GPU-1::1", &mut devs);
        let mut ctr = Vec::new();
        bytes(1, b"trainer", &mut ctr);
        bytes(2, &devs, &mut ctr);
        bytes(3, &[2, 3], &mut ctr); // packed cpu_ids
        varint(99 << 3, &mut ctr); // an unknown varint field
        varint(7, &mut ctr);
        let mut pod = Vec::new();
        bytes(1, b"train-0", &mut pod);
        bytes(2, b"ml", &mut pod);
        bytes(3, &ctr, &mut pod);
        let mut msg = Vec::new();
        bytes(1, &pod, &mut msg);
        let pods = list_response(&msg).unwrap();
        assert_eq!(pods.len(), 1);
        assert_eq!(
            (pods[0].namespace.as_str(), pods[0].name.as_str()),
            ("ml", "train-0")
        );
        assert_eq!(pods[0].containers[0].name, "trainer");
        assert_eq!(
            pods[0].containers[0].devices[0].device_ids,
            vec!["GPU-1::0", "GPU-1::1"]
        );
    }

    /// `n` copies of field 1 holding `item`.
    fn repeated(n: usize, field: u64, item: &[u8]) -> Vec<u8> {
        let mut out = Vec::new();
        for _ in 0..n {
            bytes(field, item, &mut out);
        }
        out
    }

    #[test]
    fn counts_are_bounded_as_well_as_bytes() {
        // 8.4 M empty pods fit in 16 MiB (two bytes each): stop at the limit, naming it.
        let e = list_response(&repeated(LIMITS.pods + 1, 1, &[])).unwrap_err();
        assert!(e.0.contains("more than 10000 pods"), "{e}");
        assert_eq!(
            list_response(&repeated(LIMITS.pods, 1, &[])).unwrap().len(),
            LIMITS.pods
        );
        // Containers per pod, and in the whole answer (spread over pods under the per-pod limit).
        let pod = repeated(LIMITS.containers_per_pod + 1, 3, &[]);
        let e = list_response(&repeated(1, 1, &pod)).unwrap_err();
        assert!(e.0.contains("more than 1000 containers in one pod"), "{e}");
        let pod = repeated(LIMITS.containers_per_pod, 3, &[]);
        let n = LIMITS.containers / LIMITS.containers_per_pod + 1;
        let e = list_response(&repeated(n, 1, &pod)).unwrap_err();
        assert!(e.0.contains("more than 50000 containers"), "{e}");
        // Device ids, in one list or in many.
        let devs = repeated(LIMITS.devices + 1, 2, b"GPU-1");
        let ctr = repeated(1, 2, &devs);
        let e = list_response(&repeated(1, 1, &repeated(1, 3, &ctr))).unwrap_err();
        assert!(e.0.contains("more than 10000 device ids"), "{e}");
        let e = allocatable_response(&repeated(LIMITS.devices + 1, 1, &[])).unwrap_err();
        assert!(e.0.contains("more than 10000 device ids"), "{e}");
    }

    /// Nested messages of random shapes: decoded or refused, never more items than the limits.
    fn nested() -> impl Strategy<Value = Vec<u8>> {
        let devices = proptest::collection::vec(0usize..4, 0..4).prop_map(|ids| {
            let mut d = Vec::new();
            bytes(1, b"nvidia.com/gpu", &mut d);
            for i in ids {
                bytes(2, format!("GPU-{i}::{i}").as_bytes(), &mut d);
            }
            d
        });
        let container = proptest::collection::vec(devices, 0..4).prop_map(|ds| {
            let mut c = Vec::new();
            bytes(1, b"c", &mut c);
            for d in ds {
                bytes(2, &d, &mut c);
            }
            c
        });
        let pod = proptest::collection::vec(container, 0..5).prop_map(|cs| {
            let mut p = Vec::new();
            bytes(1, b"p", &mut p);
            for c in cs {
                bytes(3, &c, &mut p);
            }
            p
        });
        proptest::collection::vec(pod, 0..8).prop_map(|ps| {
            let mut m = Vec::new();
            for p in ps {
                bytes(1, &p, &mut m);
            }
            m
        })
    }

    proptest! {
        #[test]
        fn decoded_items_stay_within_the_limits(msg in nested(), flip in any::<(usize, u8)>()) {
            let small = Limits { pods: 5, containers_per_pod: 3, containers: 8, devices: 12 };
            let mut msg = msg;
            if !msg.is_empty() {
                let i = flip.0 % msg.len();
                msg[i] ^= flip.1;
            }
            if let Ok(pods) = list_response_within(&msg, small) {
                prop_assert!(pods.len() <= small.pods);
                let ctrs: Vec<&Container> = pods.iter().flat_map(|p| &p.containers).collect();
                prop_assert!(ctrs.len() <= small.containers);
                prop_assert!(pods.iter().all(|p| p.containers.len() <= small.containers_per_pod));
                let devs: usize = ctrs.iter().map(|c| c.devices.len() + c.devices.iter().map(|d| d.device_ids.len()).sum::<usize>() + c.dra_devices.len()).sum();
                prop_assert!(devs <= small.devices);
            }
        }
    }

    #[test]
    fn rejects_lengths_past_the_end_and_wrong_wire_types() {
        // Field 1, length 200, 3 bytes present.
        let e = list_response(&[0x0a, 0xc8, 0x01, 1, 2, 3]).unwrap_err();
        assert!(e.0.contains("past the end"), "{e}");
        // Field 1 as a varint.
        let e = list_response(&[0x08, 0x01]).unwrap_err();
        assert!(e.0.contains("length-delimited"), "{e}");
        // A 64-bit varint overflow.
        let e = list_response(&[
            0x08, 0xff, 0xff, 0xff, 0xff, 0xff, 0xff, 0xff, 0xff, 0xff, 0x7f,
        ])
        .unwrap_err();
        assert!(e.0.contains("64 bits"), "{e}");
    }
}
