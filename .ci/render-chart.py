"""Renders deploy/helm/gpuledger the way `helm template` would, for the subset of Go templates the
chart uses, because no `helm` binary installs from the registries this project's machines reach
(Debian 12, PyPI, npm, crates.io). It is not Helm: it knows exactly these constructs and stops
with the file and the construct on anything else, so the chart cannot grow past what is checked:

  {{ .Values.a.b }} {{ .Release.Name }} {{ .Release.Namespace }} {{ .Chart.Name }}
  {{ .Chart.Version }} {{ .Chart.AppVersion }} {{ . }}   pipelines: | quote, | toYaml, | nindent N
  (and toYaml X, quote X as the first stage)
  {{ if X }} {{ else }} {{ end }}   {{ with X }} ... {{ end }}   and {{- / -}} whitespace trimming

Truthiness is Go's (empty string, list, map, 0, false and nil are false); toYaml sorts keys as
Helm's does. Usage: render-chart.py CHART_DIR [--set key.path=yaml-value ...]
Writes the manifests of templates/*.yaml (not NOTES.txt) to stdout, `---` separated.
"""
import os
import re
import sys

import yaml

TAG = re.compile(r"\{\{(-?)\s*(.*?)\s*(-?)\}\}", re.S)


class Unsupported(Exception):
    pass


def tokens(text, where):
    """Text and tags, with {{- and -}} trimming applied."""
    out, pos = [], 0
    for m in TAG.finditer(text):
        before = text[pos:m.start()]
        if m.group(1):
            before = before.rstrip(" \t\n")
        out.append(("text", before))
        out.append(("tag", m.group(2), f"{where}:{text.count(chr(10), 0, m.start()) + 1}"))
        pos = m.end()
        if m.group(3):
            while pos < len(text) and text[pos] in " \t\n":
                pos += 1
    out.append(("text", text[pos:]))
    return out


def parse(toks, i=0, closers=()):
    """A list of nodes up to one of `closers`; returns (nodes, index, closer)."""
    nodes = []
    while i < len(toks):
        t = toks[i]
        if t[0] == "text":
            nodes.append(t)
            i += 1
            continue
        body, where = t[1], t[2]
        word = body.split()[0] if body.split() else ""
        if word in closers:
            return nodes, i, word
        if word in ("if", "with"):
            then, i, closer = parse(toks, i + 1, ("else", "end"))
            other = []
            if closer == "else":
                other, i, closer = parse(toks, i + 1, ("end",))
            if closer != "end":
                raise Unsupported(f"{where}: {word} without end")
            nodes.append((word, body[len(word):].strip(), then, other, where))
            i += 1
        elif word in ("else", "end"):
            raise Unsupported(f"{where}: {word} out of place")
        else:
            nodes.append(("expr", body, where))
            i += 1
    if closers:
        raise Unsupported(f"unclosed block (expected {'/'.join(closers)})")
    return nodes, i, None


def lookup(path, ctx, where):
    if path == ".":
        return ctx["dot"]
    m = re.fullmatch(r"\.(Values|Release|Chart)((?:\.[A-Za-z_][A-Za-z0-9_]*)*)", path)
    if not m:
        raise Unsupported(f"{where}: {path!r} is not a value this renderer knows")
    v = ctx[m.group(1)]
    for key in filter(None, m.group(2).split(".")):
        v = v.get(key) if isinstance(v, dict) else None
    return v


def truthy(v):
    return v not in (None, False, 0, "", [], {})


def to_yaml(v):
    return yaml.safe_dump(v, default_flow_style=False, sort_keys=True).rstrip("\n")


def evaluate(body, ctx, where):
    parts = [p.strip() for p in body.split("|")]
    first = parts[0].split()
    # `toYaml X` is `X | toYaml`.
    if len(first) == 2 and first[0] in ("toYaml", "quote"):
        parts[1:1] = [first[0]]
        first = first[1:]
    if len(first) != 1:
        raise Unsupported(f"{where}: {parts[0]!r} is not an expression this renderer knows")
    if re.fullmatch(r'"[^"]*"', first[0]):
        v = first[0][1:-1]
    else:
        v = lookup(first[0], ctx, where)
    for f in parts[1:]:
        words = f.split()
        if words == ["quote"]:
            v = '"' + str(v if v is not None else "") + '"'
        elif words == ["toYaml"]:
            v = to_yaml(v)
        elif len(words) == 2 and words[0] == "nindent" and words[1].isdigit():
            pad = " " * int(words[1])
            v = "\n" + "\n".join(pad + line if line else line for line in str(v).split("\n"))
        else:
            raise Unsupported(f"{where}: function {f!r} is not one this renderer knows")
    return v


def render(nodes, ctx):
    out = []
    for n in nodes:
        if n[0] == "text":
            out.append(n[1])
        elif n[0] == "expr":
            v = evaluate(n[1], ctx, n[2])
            if isinstance(v, (dict, list)):
                raise Unsupported(f"{n[2]}: a map or list printed without toYaml")
            out.append("" if v is None else ("true" if v is True else "false" if v is False else str(v)))
        else:
            kind, cond, then, other, where = n
            v = evaluate(cond, ctx, where)
            if truthy(v):
                inner = dict(ctx, dot=v) if kind == "with" else ctx
                out.append(render(then, inner))
            else:
                out.append(render(other, ctx))
    return "".join(out)


def set_value(values, assignment):
    path, _, raw = assignment.partition("=")
    keys = path.split(".")
    d = values
    for k in keys[:-1]:
        d = d.setdefault(k, {})
    d[keys[-1]] = yaml.safe_load(raw)


def main():
    chart_dir = sys.argv[1]
    args = sys.argv[2:]
    with open(os.path.join(chart_dir, "Chart.yaml")) as f:
        chart = yaml.safe_load(f)
    with open(os.path.join(chart_dir, "values.yaml")) as f:
        values = yaml.safe_load(f) or {}
    release = {"Name": "gpuledger", "Namespace": "gpuledger"}
    while args:
        flag = args.pop(0)
        if flag == "--set":
            set_value(values, args.pop(0))
        elif flag in ("--name", "--namespace"):
            release[flag[2:].capitalize()] = args.pop(0)
        else:
            sys.exit(f"render-chart: unknown option {flag}")
    ctx = {"Values": values, "Release": release, "dot": None,
           "Chart": {"Name": chart["name"], "Version": chart["version"],
                     "AppVersion": chart.get("appVersion")}}
    docs = []
    tdir = os.path.join(chart_dir, "templates")
    for name in sorted(os.listdir(tdir)):
        if not name.endswith(".yaml"):
            continue
        path = os.path.join(tdir, name)
        with open(path) as f:
            text = f.read()
        try:
            nodes, _, _ = parse(tokens(text, path))
            out = render(nodes, ctx)
        except Unsupported as e:
            sys.exit(f"render-chart: {e}")
        if out.strip():
            docs.append(f"# Source: {os.path.basename(chart_dir)}/templates/{name}\n{out.strip()}\n")
    sys.stdout.write("---\n".join(docs))


if __name__ == "__main__":
    main()
