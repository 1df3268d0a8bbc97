#!/usr/bin/env bash
# Validates deploy/kubernetes/ and the Helm chart deploy/helm/gpuledger/ (a few seconds):
# 1. the plain manifests against the Kubernetes 1.37 schemas (kubernetes-validate --strict: an
#    unknown field fails), the PodMonitor against the Prometheus Operator's CRD schema;
# 2. the chart: Chart.yaml's required fields; its templates rendered by .ci/render-chart.py (no
#    `helm` installs from the registries here: it renders the subset of Go templates the chart
#    uses and fails on anything else), with the defaults and with every option flipped, each
#    rendering validated like 1.; the defaults must render exactly the plain manifests.
# `helm lint` itself is not run (no helm binary here).
set -euo pipefail
ROOT="$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)"
cd "$ROOT"
VENV="${GPULEDGER_GRPC_VENV:-$ROOT/target/grpc-venv}"
[ -x "$VENV/bin/kubernetes-validate" ] || bash .ci/setup-grpc.sh >/dev/null
PY="$VENV/bin/python"
CRD=fixtures/kubernetes-crds/monitoring.coreos.com_podmonitors.yaml
CHART=deploy/helm/gpuledger
tmp="$(mktemp -d)"
trap 'rm -rf "$tmp"' EXIT

validate() {
    # --no-warn: the one warning is "no schema for PodMonitor", checked by validate-crd.py.
    "$VENV/bin/kubernetes-validate" --strict --quiet --no-warn "$@"
    local out
    out="$("$PY" .ci/validate-crd.py "$CRD" "$@")" || { echo "$out"; return 1; }
}

echo "check-deploy: deploy/kubernetes/*.yaml"
validate deploy/kubernetes/*.yaml

echo "check-deploy: $CHART"
"$PY" - "$CHART" <<'PY'
import re, sys, yaml
chart = yaml.safe_load(open(f"{sys.argv[1]}/Chart.yaml"))
problems = [f"{k} missing" for k in ("apiVersion", "name", "version") if not chart.get(k)]
if chart.get("apiVersion") != "v2":
    problems.append("apiVersion must be v2")
if chart.get("name") != sys.argv[1].rstrip("/").split("/")[-1]:
    problems.append("name must be the chart's directory name")
if not re.fullmatch(r"\d+\.\d+\.\d+(-[0-9A-Za-z.-]+)?(\+[0-9A-Za-z.-]+)?", str(chart.get("version"))):
    problems.append(f"version {chart.get('version')!r} is not SemVer 2")
yaml.safe_load(open(f"{sys.argv[1]}/values.yaml"))
if problems:
    sys.exit("Chart.yaml: " + "; ".join(problems))
PY
"$PY" .ci/render-chart.py "$CHART" >"$tmp/defaults.yaml"
validate "$tmp/defaults.yaml"
"$PY" - "$tmp/defaults.yaml" deploy/kubernetes/daemonset.yaml deploy/kubernetes/service.yaml \
    deploy/kubernetes/podmonitor.yaml <<'PY'
import sys, yaml
rendered = [d for d in yaml.safe_load_all(open(sys.argv[1])) if d]
plain = [d for p in sys.argv[2:] for d in yaml.safe_load_all(open(p)) if d]
key = lambda d: d["kind"]
if sorted(rendered, key=key) != sorted(plain, key=key):
    for r, p in zip(sorted(rendered, key=key), sorted(plain, key=key)):
        if r != p:
            print(f"the chart's {r['kind']} differs from deploy/kubernetes/", file=sys.stderr)
    sys.exit("check-deploy: the chart's defaults do not render deploy/kubernetes/")
print("check-deploy: the chart's defaults render deploy/kubernetes/ exactly")
PY
"$PY" .ci/render-chart.py "$CHART" --name gpu-usage --namespace monitoring \
    --set runtimeClassName= --set 'extraCapabilities=[SYS_PTRACE, DAC_READ_SEARCH]' \
    --set podMonitor.enabled=false --set service.enabled=false --set port=9400 \
    --set 'nodeSelector={}' --set 'tolerations=[]' >"$tmp/flipped.yaml"
"$VENV/bin/kubernetes-validate" --strict --quiet --no-warn "$tmp/flipped.yaml"
"$PY" - "$tmp/flipped.yaml" <<'PY'
import sys, yaml
docs = [d for d in yaml.safe_load_all(open(sys.argv[1])) if d]
assert [d["kind"] for d in docs] == ["DaemonSet"], [d["kind"] for d in docs]
ds = docs[0]
spec = ds["spec"]["template"]["spec"]
c = spec["containers"][0]
assert (ds["metadata"]["name"], ds["metadata"]["namespace"]) == ("gpu-usage", "monitoring")
assert "runtimeClassName" not in spec and "nodeSelector" not in spec and "tolerations" not in spec
assert c["securityContext"]["capabilities"] == {"drop": ["ALL"], "add": ["SYS_PTRACE", "DAC_READ_SEARCH"]}
assert "--listen=0.0.0.0:9400" in c["args"] and c["ports"][0]["containerPort"] == 9400
print("check-deploy: the chart's options render what they say")
PY
echo "check-deploy: ok (helm lint not run: no helm binary installs here)"
