#!/usr/bin/env python3
"""File-level import circles inside each crate: CI fails when one file's `use` reaches another
that reaches back (directly or through others).

A file imports another when it names an item in it through `crate::...`, `super::...` or
`self::...` paths (in `use` lines or in code). A module and its own descendants are one unit
(mod.rs's types used by its children, its children's functions by mod.rs), so only imports
between modules that are not ancestor and descendant count.
A path is resolved to the longest module prefix that is a file of the crate. Test code is not
counted: files named `tests.rs`, `tests/` folders, and everything after a top-level
`#[cfg(test)] mod ... {`.

Also fails on a top-level `use super::*;` outside tests: a file names what it takes.

Usage: scripts/import_cycles.py [CRATES_DIR]    (default: crates)
Exit status: 0 without circles or glob imports, 1 with (each listed), 2 on bad usage.
"""
import os
import re
import sys

PATH = re.compile(r"\b(crate|super|self)((?:::[A-Za-z_][A-Za-z0-9_]*)+|::\{)")
USE_GROUP = re.compile(r"\buse\s+(crate|super|self)::\{([^;]*)\};", re.S)
TEST_MODULE = re.compile(r"^#\[cfg\((all\()?test")


def module_files(src):
    """Map module path (tuple) -> file, for one crate's src folder."""
    files = {}
    for folder, _, names in os.walk(src):
        for name in names:
            if not name.endswith(".rs"):
                continue
            path = os.path.join(folder, name)
            rel = os.path.relpath(path, src)[:-3].split(os.sep)
            if rel[-1] in ("mod", "lib", "main"):
                rel = rel[:-1]
            if "tests" in rel or (rel and rel[-1] == "tests"):
                continue
            files[tuple(rel)] = path
    return files


def non_test_text(path):
    with open(path, encoding="utf-8") as f:
        lines = f.read().split("\n")
    for i, line in enumerate(lines[:-1]):
        if TEST_MODULE.match(line) and re.match(r"mod \w+ \{", lines[i + 1]):
            return "\n".join(lines[:i])
    return "\n".join(lines)


def strip_comments(text):
    text = re.sub(r"/\*.*?\*/", "", text, flags=re.S)
    return "\n".join(line.split("//", 1)[0] for line in text.split("\n"))


def resolve(start, words, files):
    """The file a path starting at module `start` names (longest module prefix)."""
    mod = list(start)
    for w in words:
        if w == "super":
            if not mod:
                return None
            mod.pop()
        elif w == "self":
            continue
        else:
            mod.append(w)
    while mod and tuple(mod) not in files:
        mod.pop()
    return files.get(tuple(mod)) if mod else files.get(())


def paths_in(text):
    """Every `crate::a::b` / `super::x` path, group imports expanded."""
    for m in USE_GROUP.finditer(text):
        for item in m.group(2).split(","):
            item = item.strip().split(" as ")[0].strip()
            if item and item != "*":
                yield [m.group(1)] + [p for p in item.split("::") if p not in ("{", "}")]
    for m in PATH.finditer(text):
        rest = m.group(2)
        if rest == "::{":
            continue
        yield [m.group(1)] + [p for p in rest.split("::") if p]


def edges_of(files):
    edges = {path: set() for path in files.values()}
    for mod, path in files.items():
        text = strip_comments(non_test_text(path))
        for words in paths_in(text):
            head = words[0]
            start = () if head == "crate" else mod
            # `super::` in a file is relative to the file's own module.
            target = resolve(start, words if head != "crate" else words[1:], files)
            if target and target != path and not related(path, target, files):
                edges[path].add(target)
    return edges


def related(a, b, files):
    """Whether one file's module is an ancestor of the other's: a module's own items and its
    children's are one unit (mod.rs's types used by its children, its children's functions by
    mod.rs), so only imports between unrelated modules can make a circle."""
    by_file = {v: k for k, v in files.items()}
    ma, mb = by_file[a], by_file[b]
    return ma[: len(mb)] == mb or mb[: len(ma)] == ma


def cycles(edges):
    """Strongly connected components of more than one file (Tarjan)."""
    index, low, on, stack, out = {}, {}, set(), [], []
    counter = [0]

    def visit(v):
        index[v] = low[v] = counter[0]
        counter[0] += 1
        stack.append(v)
        on.add(v)
        for w in edges[v]:
            if w not in index:
                visit(w)
                low[v] = min(low[v], low[w])
            elif w in on:
                low[v] = min(low[v], index[w])
        if low[v] == index[v]:
            comp = []
            while True:
                w = stack.pop()
                on.discard(w)
                comp.append(w)
                if w == v:
                    break
            if len(comp) > 1:
                out.append(sorted(comp))

    sys.setrecursionlimit(10000)
    for v in sorted(edges):
        if v not in index:
            visit(v)
    return out


def glob_imports(files):
    """Files whose own code (tests excluded) takes everything of its parent: `use super::*;`."""
    return sorted(
        path
        for path in files.values()
        if re.search(r"^use super::\*;", non_test_text(path), re.M)
    )


def main(argv):
    if len(argv) > 2:
        print(__doc__, file=sys.stderr)
        return 2
    root = argv[1] if len(argv) == 2 else "crates"
    if not os.path.isdir(root):
        print(f"import_cycles.py: {root}: not a folder", file=sys.stderr)
        return 2
    found, globs = [], []
    for crate in sorted(os.listdir(root)):
        src = os.path.join(root, crate, "src")
        if os.path.isdir(src):
            files = module_files(src)
            found.extend(cycles(edges_of(files)))
            globs.extend(glob_imports(files))
    for path in globs:
        print(f"{path}: a top-level `use super::*;` (name what the file takes)")
    if not found:
        print("no import circles between files")
        return 1 if globs else 0
    print(f"{len(found)} import circle(s) between files (move what each shows belongs elsewhere):")
    for comp in found:
        print("  " + " <-> ".join(comp))
    return 1


if __name__ == "__main__":
    sys.exit(main(sys.argv))
