#!/usr/bin/env bash
# Builds the container image the DaemonSet runs (deploy/kubernetes/daemonset.yaml,
# image gpuledger:0.1.0) from Debian 12 packages and this repository's binary, without pulling
# any base image (no image registry is reachable from this project's machines; Debian's
# package archive is):
#   1. the root file system: the Debian 12 packages the binary needs (libc6, libgcc-s1, and
#      libc-bin for the ldconfig the NVIDIA container toolkit runs inside the container),
#      unpacked by mmdebstrap (--variant=extract: no shell, no package manager in the image);
#   2. the image: buildah from scratch, that tree, the binary as /usr/local/bin/gpuledger,
#      entrypoint gpuledger (what deploy/kubernetes/Containerfile builds, on Debian 12's
#      libraries alone instead of debian:12-slim);
#   3. the check: a container of the image runs (buildah run, chroot isolation: the image's
#      own glibc, not the host's) `gpuledger --version` and `gpuledger snapshot`; with
#      --fake-nvml LIB, snapshot runs with LIB mounted where the NVIDIA container toolkit
#      mounts the driver's libnvidia-ml.so.1, and must see the fake's GPU through it.
# Writes an OCI archive (load it with `podman load -i`, `skopeo copy oci-archive:FILE
# docker://<your registry>/gpuledger:0.1.0`, or `ctr images import`) and keeps the image in
# buildah's local storage.
#
# Usage: scripts/build-image.sh [--binary PATH] [--tag NAME:TAG] [--out FILE] [--fake-nvml LIB]
#   --binary  the gpuledger binary (default target/release/gpuledger, built if missing)
#   --tag     default gpuledger:<the workspace's version in Cargo.toml>
#   --out     default target/image/gpuledger-<version>.oci.tar
#   --fake-nvml  the test suite's fake NVML (target/debug/libfake_nvml.so) for the check
# Needs root and the Debian packages mmdebstrap and buildah (installed with apt-get when
# missing).
#
# Limits, as they stand:
# - Checked on this project's machines (root in a container; buildah's vfs storage and chroot
#   isolation, which need neither user namespaces nor overlay mounts): the image builds, and
#   its binary runs in a chroot-isolated container of it and loads an NVML mounted into it.
#   Not checked: a container under a full OCI runtime (podman/crun, containerd/runc: their
#   namespaces and cgroups), the real NVIDIA container toolkit and driver, a Kubernetes node.
# - linux/amd64 only (the machine's architecture); no multi-arch manifest, no signing, no push.
# - The binary is taken as built on this machine (Debian 12's glibc 2.36); a binary built
#   against a newer glibc would not run in the image, which the check catches.
set -euo pipefail
ROOT="$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)"
cd "$ROOT"
# The workspace's version (crates/cli takes it from the root Cargo.toml).
VERSION="$(sed -n 's/^version = "\(.*\)"/\1/p' Cargo.toml | head -n1)"
[ -n "$VERSION" ] || { echo "build-image: no version in Cargo.toml" >&2; exit 1; }
BIN=target/release/gpuledger
TAG="gpuledger:$VERSION"
OUT="target/image/gpuledger-$VERSION.oci.tar"
FAKE_NVML=""
while [ $# -gt 0 ]; do
    case "$1" in
        --binary) BIN="$2"; shift 2 ;;
        --tag) TAG="$2"; shift 2 ;;
        --out) OUT="$2"; shift 2 ;;
        --fake-nvml) FAKE_NVML="$(realpath "$2")"; shift 2 ;;
        *) echo "build-image: unknown option $1" >&2; exit 2 ;;
    esac
done
[ "$(id -u)" = 0 ] || { echo "build-image: needs root (mmdebstrap, buildah)" >&2; exit 1; }

if ! command -v mmdebstrap >/dev/null || ! command -v buildah >/dev/null; then
    export DEBIAN_FRONTEND=noninteractive
    apt-cache policy buildah 2>/dev/null | grep -q 'Candidate: [0-9]' || apt-get update -qq
    apt-get install -y -qq --no-install-recommends mmdebstrap buildah >/dev/null
fi
if [ ! -x "$BIN" ]; then
    cargo build --release -p gpuledger --locked
fi

work="$(mktemp -d)"
ctr=""
cleanup() {
    [ -n "$ctr" ] && buildah rm "$ctr" >/dev/null 2>&1
    rm -rf "$work"
    return 0
}
trap cleanup EXIT
# Without user namespaces or overlay mounts: plain directories and chroot.
export STORAGE_DRIVER=vfs BUILDAH_ISOLATION=chroot

echo "build-image: the root file system from Debian 12 packages"
mmdebstrap --quiet --variant=extract --include=libc6,libgcc-s1,libc-bin \
    bookworm "$work/rootfs.tar"
# The binary's own copy, without debug sections (a debug build is ~175 MB with them).
objcopy --strip-debug "$BIN" "$work/gpuledger"

echo "build-image: the image $TAG"
ctr="$(buildah from scratch)"
buildah add "$ctr" "$work/rootfs.tar" / >/dev/null
buildah copy --chmod 0755 "$ctr" "$work/gpuledger" /usr/local/bin/gpuledger >/dev/null
buildah config --entrypoint '["/usr/local/bin/gpuledger"]' --cmd '' \
    --label "org.opencontainers.image.title=gpuledger" \
    --label "org.opencontainers.image.version=$VERSION" \
    --label "org.opencontainers.image.source=deploy/kubernetes/Containerfile" "$ctr"
buildah commit --quiet "$ctr" "$TAG" >/dev/null
buildah rm "$ctr" >/dev/null

# A fresh container of the committed image (running one adds mount points to its tree).
echo "build-image: a container of the image runs gpuledger"
ctr="$(buildah from "$TAG")"
echo "build-image: $(buildah run "$ctr" -- /usr/local/bin/gpuledger --version)"
out="$(buildah run "$ctr" -- /usr/local/bin/gpuledger snapshot)"
grep -q '^  procfs   ok' <<<"$out" || { echo "$out"; echo "build-image: snapshot failed in the image" >&2; exit 1; }
if [ -n "$FAKE_NVML" ]; then
    uuid=GPU-0e3a5b1c-7d2f-4c6e-9a8b-1f2e3d4c5b6a
    printf 'driver|version=550.54.15\ndevice|index=0|name=NVIDIA H200|uuid=%s|total=150754820096|used=1073741824|free=149681078272\n' \
        "$uuid" >"$work/scenario"
    out="$(buildah run --env FAKE_NVML_SCENARIO=/scenario \
        -v "$FAKE_NVML:/usr/lib/x86_64-linux-gnu/libnvidia-ml.so.1:ro" \
        -v "$work/scenario:/scenario:ro" "$ctr" -- /usr/local/bin/gpuledger snapshot --json)"
    grep -q "\"$uuid\"" <<<"$out" || { echo "$out"; echo "build-image: NVML not seen in the image" >&2; exit 1; }
    echo "build-image: the image loads libnvidia-ml.so.1 from the toolkit's place and sees its GPU"
fi

# Images an earlier run left untagged (this tag moved to the new one).
buildah rmi --prune >/dev/null 2>&1 || true
mkdir -p "$(dirname "$OUT")"
rm -f "$OUT"
buildah push --quiet "$TAG" "oci-archive:$OUT:$TAG" >/dev/null
echo "build-image: $OUT ($(du -h "$OUT" | cut -f1)), and $TAG in buildah's local storage"
