#!/usr/bin/env python3
"""File-level import circles inside each crate, and glob imports: CI fails on either.

A file imports another when it names an item in it by path: `crate::a::b`, `super::x`,
`self::x`, or `child::x` for one of its own child modules, in `use` trees (groups expanded) and in
code. A path is resolved to the longest module prefix that is a file of the crate. Every such
arrow counts except one: a module's import of its own ancestor's items (the `use super::X` facade
idiom, where a parent's types and re-exports serve its children). So a parent that calls into a
child which reaches a sibling or cousin that reaches back to the parent is a circle.

Glob imports (`use x::*`, `pub use x::*`, `use E::*`) fail too: a file names what it takes and
what it re-exports.

Test code is not read: test modules (`#[cfg(test)] mod x { ... }`, braces matched, wherever they
stand), files a `#[cfg(test)] mod x;` line names, `tests.rs` files and `tests/` folders.

Usage: scripts/import_cycles.py [--graph] [CRATES_DIR]    (default: crates)
  --graph  also print each crate's arrows: all, back up to an ancestor (exempt), down to a
           descendant, across to a sibling or cousin.
Exit status: 0 without circles or glob imports, 1 with (each listed), 2 on bad usage.
"""
import os
import re
import sys

import rust_source

USE = re.compile(r"\buse\s+([^;]*);")
PATH = re.compile(r"(?<![\w:])([A-Za-z_]\w*)((?:\s*::\s*[A-Za-z_]\w*)+)")
USE_TOKEN = re.compile(r"::|[{},*]|[A-Za-z_]\w*")


def module_files(src):
    """Map module path (tuple) -> file, for one crate's src folder, test files left out."""
    found = []
    for folder, dirs, names in os.walk(src):
        dirs.sort()
        found += [os.path.join(folder, n) for n in sorted(names) if n.endswith(".rs")]
    tests = rust_source.test_files(found, src)
    files = {}
    for path in found:
        if path in tests:
            continue
        rel = os.path.relpath(path, src)[:-3].split(os.sep)
        if rel[-1] in ("mod", "lib", "main"):
            rel = rel[:-1]
        files[tuple(rel)] = path
    return files


def use_paths(tree):
    """Every full path a `use` tree names: `a::{b, c::{d, e as f}}` -> a::b, a::c::d, a::c::e;
    a glob ends its path with `*`."""
    tokens = USE_TOKEN.findall(tree)
    out = []

    def walk(i, prefix):
        path = list(prefix)
        while i < len(tokens):
            t = tokens[i]
            if t == "{":
                i += 1
                while i < len(tokens) and tokens[i] != "}":
                    i = walk(i, path)
                    if i < len(tokens) and tokens[i] == ",":
                        i += 1
                return i + 1
            if t in (",", "}"):
                break
            if t == "as":
                i += 2  # the alias names nothing of the target
                continue
            if t != "::":
                path.append(t)
            i += 1
        if len(path) > len(prefix):
            out.append(path)
        return i

    i = 0
    while i < len(tokens):
        i = walk(i, [])
        i += 1 if i < len(tokens) and tokens[i] == "," else 0
    return out


def paths_in(code, mod, files):
    """Every path in a file's masked code that can name a file of the crate."""
    for m in USE.finditer(code):
        yield from use_paths(m.group(1))
    code = USE.sub("", code)
    for m in PATH.finditer(code):
        head = m.group(1)
        if head in ("crate", "super", "self") or mod + (head,) in files:
            yield [head] + [w.strip() for w in m.group(2).split("::") if w.strip()]


def resolve(mod, words, files):
    """The module (tuple) a path written in module `mod` names: the longest prefix that is a
    file of the crate; None for paths outside the crate."""
    if words[0] == "crate":
        target, words = [], words[1:]
    elif words[0] in ("super", "self") or mod + (words[0],) in files:
        target = list(mod)
    else:
        return None
    for w in words:
        if w == "super":
            if not target:
                return None
            target.pop()
        elif w != "self":
            target.append(w)
    while target and tuple(target) not in files:
        target.pop()
    return tuple(target)


def is_ancestor(a, b):
    """Whether module a is a strict ancestor of module b."""
    return len(a) < len(b) and b[: len(a)] == a


def arrows(files):
    """module -> the modules its file names items of (itself left out)."""
    out = {}
    for mod, path in files.items():
        code, _ = rust_source.read(path)
        targets = {resolve(mod, words, files) for words in paths_in(code, mod, files)}
        out[mod] = {t for t in targets if t is not None and t != mod}
    return out


def counted(all_arrows):
    """The arrows that can make a circle: all but a module's arrows to its own ancestors."""
    return {m: {t for t in ts if not is_ancestor(t, m)} for m, ts in all_arrows.items()}


def cycles(edges):
    """Strongly connected components of more than one module (Tarjan)."""
    index, low, on, stack, out = {}, {}, set(), [], []
    counter = [0]

    def visit(v):
        index[v] = low[v] = counter[0]
        counter[0] += 1
        stack.append(v)
        on.add(v)
        for w in sorted(edges[v]):
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
    """`file:line: the use` of each glob import in non-test code."""
    found = []
    for path in sorted(files.values()):
        code, _ = rust_source.read(path)
        for m in USE.finditer(code):
            if "*" in m.group(1):
                line = code.count("\n", 0, m.start()) + 1
                found.append(f"{path}:{line}: glob import `{' '.join(m.group(1).split())}`")
    return found


def graph_figures(crate, all_arrows):
    """One line of figures about a crate's arrows."""
    flat = [(m, t) for m, ts in all_arrows.items() for t in ts]
    up = sum(1 for m, t in flat if is_ancestor(t, m))
    down = sum(1 for m, t in flat if is_ancestor(m, t))
    return (f"{crate}: {len(flat)} arrows between files: {up} back up to an ancestor (exempt), "
            f"{down} down to a descendant, {len(flat) - up - down} across to a sibling or cousin")


def main(argv):
    args = argv[1:]
    graph = "--graph" in args
    args = [a for a in args if a != "--graph"]
    if len(args) > 1 or any(a.startswith("-") for a in args):
        print(__doc__, file=sys.stderr)
        return 2
    root = args[0] if args else "crates"
    if not os.path.isdir(root):
        print(f"import_cycles.py: {root}: not a folder", file=sys.stderr)
        return 2
    found, globs = [], []
    for crate in sorted(os.listdir(root)):
        src = os.path.join(root, crate, "src")
        if not os.path.isdir(src):
            continue
        files = module_files(src)
        all_arrows = arrows(files)
        if graph:
            print(graph_figures(crate, all_arrows))
        found += [[files[m] for m in comp] for comp in cycles(counted(all_arrows))]
        globs += glob_imports(files)
    for g in globs:
        print(f"{g} (name what the file takes or re-exports)")
    if not found:
        print("no import circles between files")
        return 1 if globs else 0
    print(f"{len(found)} import circle(s) between files (move what each shows belongs elsewhere):")
    for comp in found:
        print("  " + " <-> ".join(comp))
    return 1


if __name__ == "__main__":
    sys.exit(main(sys.argv))
