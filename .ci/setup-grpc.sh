#!/usr/bin/env bash
# A Python venv, target/grpc-venv, with what two checks need (idempotent; a satisfied pin costs
# about a second):
# - grpcio + grpcio-tools: the kubelet pod-resources server of crates/sources/tests/kubelet_grpc.rs,
#   generated at test time from the published proto (fixtures/kubelet/api.proto);
# - kubernetes-validate: the Kubernetes schema validator .ci/check-deploy.sh runs on
#   deploy/kubernetes/ and on the rendered Helm chart.
set -euo pipefail
ROOT="$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)"
VENV="${GPULEDGER_GRPC_VENV:-$ROOT/target/grpc-venv}"
PINS=("grpcio==1.85.3" "grpcio-tools==1.85.1" "kubernetes-validate==1.37.0" "PyYAML==6.0.4")

if ! python3 -c 'import venv, ensurepip' >/dev/null 2>&1; then
    export DEBIAN_FRONTEND=noninteractive
    apt-get update -qq >/dev/null && apt-get install -y -qq python3-venv >/dev/null
fi
[ -x "$VENV/bin/python" ] || python3 -m venv "$VENV"
"$VENV/bin/pip" install --quiet --disable-pip-version-check "${PINS[@]}"
"$VENV/bin/python" -c 'import grpc, grpc_tools, kubernetes_validate, yaml; print("setup-grpc: grpcio", grpc.__version__)'
