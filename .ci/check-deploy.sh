#!/usr/bin/env bash
# Validates deploy/kubernetes/ and the Helm chart deploy/helm/gpuledger/ (a few seconds):
# 1. the plain manifests against the Kubernetes 1.37 schemas (kubernetes-validate --strict: an
#    unknown field fails), the PodMonitor and ServiceMonitor against the Prometheus Operator's
#    CRD schemas;
# 2. the chart: Chart.yaml's required fields; its templates rendered by .ci/render-chart.py (no
#    `helm` installs from the registries here: it renders the subset of Go templates the chart
#    uses and fails on anything else), with the defaults and with every option flipped, each
#    rendering validated like 1.; the defaults must render exactly the plain manifests, and
#    with the Namespace and the ServiceMonitor (instead of the PodMonitor) on, exactly
#    namespace.yaml, daemonset.yaml, service.yaml and servicemonitor.yaml.
# `helm lint` itself is not run (no helm binary here).
set -euo pipefail
ROOT="$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)"
cd "$ROOT"
VENV="${GPULEDGER_GRPC_VENV:-$ROOT/target/grpc-venv}"
[ -x "$VENV/bin/kubernetes-validate" ] || bash .ci/setup-grpc.sh >/dev/null
PY="$VENV/bin/python"
CRD=fixtures/kubernetes-crds/monitoring.coreos.com_podmonitors.yaml,fixtures/kubernetes-crds/monitoring.coreos.com_servicemonitors.yaml
CHART=deploy/helm/gpuledger
tmp="$(mktemp -d)"
trap 'rm -rf "$tmp"' EXIT

validate() {
    # --no-warn: the one warning is "no schema for PodMonitor/ServiceMonitor", checked by
    # validate-crd.py.
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
# same_objects RENDERED PLAIN...: the rendered objects are exactly those of the plain files.
same_objects() {
    "$PY" - "$@" <<'PY'
import sys, yaml
rendered = [d for d in yaml.safe_load_all(open(sys.argv[1])) if d]
plain = [d for p in sys.argv[2:] for d in yaml.safe_load_all(open(p)) if d]
key = lambda d: d["kind"]
if [d["kind"] for d in sorted(rendered, key=key)] != [d["kind"] for d in sorted(plain, key=key)]:
    sys.exit(f"check-deploy: the chart renders {sorted(map(key, rendered))}, not {sorted(map(key, plain))}")
if sorted(rendered, key=key) != sorted(plain, key=key):
    for r, p in zip(sorted(rendered, key=key), sorted(plain, key=key)):
        if r != p:
            print(f"the chart's {r['kind']} differs from deploy/kubernetes/", file=sys.stderr)
    sys.exit("check-deploy: the chart does not render deploy/kubernetes/")
print(f"check-deploy: the chart renders {', '.join(sys.argv[2:])} exactly")
PY
}
same_objects "$tmp/defaults.yaml" deploy/kubernetes/daemonset.yaml deploy/kubernetes/service.yaml \
    deploy/kubernetes/podmonitor.yaml
"$PY" .ci/render-chart.py "$CHART" --set namespace.create=true --set podMonitor.enabled=false \
    --set serviceMonitor.enabled=true >"$tmp/servicemonitor.yaml"
validate "$tmp/servicemonitor.yaml"
same_objects "$tmp/servicemonitor.yaml" deploy/kubernetes/namespace.yaml \
    deploy/kubernetes/daemonset.yaml deploy/kubernetes/service.yaml \
    deploy/kubernetes/servicemonitor.yaml
"$PY" .ci/render-chart.py "$CHART" --name gpu-usage --namespace monitoring \
    --set runtimeClassName= --set 'extraCapabilities=[SYS_PTRACE, DAC_READ_SEARCH]' \
    --set podMonitor.enabled=false --set service.enabled=false --set port=9400 \
    --set 'nodeSelector={}' --set 'tolerations=[]' --set listenAddress=0.0.0.0 \
    --set 'extraArgs=[--dcgm-compat, --processes=all]' >"$tmp/flipped.yaml"
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
# Extra arguments come after the chart's own, in order.
assert c["args"][-2:] == ["--dcgm-compat", "--processes=all"], c["args"]
print("check-deploy: the chart's options render what they say")
PY
# Monitor labels (kube-prometheus-stack's `release` selector) on both monitors, the Namespace's
# Pod Security label under another release name.
"$PY" .ci/render-chart.py "$CHART" --name gpu-usage --namespace monitoring \
    --set namespace.create=true --set serviceMonitor.enabled=true \
    --set 'podMonitor.labels={release: kube-prometheus-stack}' \
    --set 'serviceMonitor.labels={release: kube-prometheus-stack, team: gpu}' >"$tmp/labels.yaml"
validate "$tmp/labels.yaml"
"$PY" - "$tmp/labels.yaml" <<'PY'
import sys, yaml
docs = {d["kind"]: d for d in yaml.safe_load_all(open(sys.argv[1])) if d}
assert sorted(docs) == ["DaemonSet", "Namespace", "PodMonitor", "Service", "ServiceMonitor"], sorted(docs)
assert docs["PodMonitor"]["metadata"]["labels"] == {
    "app.kubernetes.io/name": "gpu-usage", "release": "kube-prometheus-stack"}
assert docs["ServiceMonitor"]["metadata"]["labels"] == {
    "app.kubernetes.io/name": "gpu-usage", "release": "kube-prometheus-stack", "team": "gpu"}
ns = docs["Namespace"]["metadata"]
assert ns["name"] == "monitoring" and ns["labels"]["pod-security.kubernetes.io/enforce"] == "privileged"
for kind in ("PodMonitor", "ServiceMonitor"):
    ep = (docs[kind]["spec"].get("podMetricsEndpoints") or docs[kind]["spec"]["endpoints"])[0]
    assert ep["honorLabels"] is True, kind
print("check-deploy: monitor labels and the Namespace render what they say")
PY
echo "check-deploy: ok (helm lint not run: no helm binary installs here)"
