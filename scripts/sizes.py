#!/usr/bin/env python3
"""The size budget of the Rust sources: CI fails when a file or a function outgrows it.

Counted: every `.rs` file under a `src/` folder of each DIR (default: crates and testing), and every
`.rs` file under testing/ (the fakes that stand in for hardware are code too). Test code is not
counted: test modules (`#[cfg(test)] mod x { ... }`, wherever they stand, braces matched), files a
`#[cfg(test)] mod x;` line names, `tests.rs` files and `tests/` folders. A function is measured from
its `fn` line to the line of the brace that closes its body.

Usage: scripts/sizes.py [DIR...]
Exit status: 0 within budget, 1 on a breach (each one listed), 2 on bad usage.
"""
import os
import re
import sys

import rust_source

# The budget, in one place.
MAX_FILE_LINES = 600
MAX_FUNCTION_LINES = 80

FN_NAME = re.compile(r"\bfn\s+(?P<name>\w+)")


def counted_files(root):
    """Paths of the source files the budget applies to."""
    found = []
    everything = os.path.basename(os.path.normpath(root)) == "testing"
    for folder, dirs, names in os.walk(root):
        dirs[:] = sorted(d for d in dirs if d != "target")
        for name in sorted(names):
            path = os.path.join(folder, name)
            if name.endswith(".rs") and (everything or "/src/" in path):
                found.append(path)
    tests = rust_source.test_files(found, root)
    return [p for p in found if p not in tests]


def body_open(code, i):
    """Index of the `{` opening the body of the function whose signature starts at i, or None
    for a declaration without a body (`;` first, outside parentheses and brackets)."""
    depth = 0
    while i < len(code):
        c = code[i]
        if c in "([":
            depth += 1
        elif c in ")]":
            depth -= 1
        elif depth == 0 and c == ";":
            return None
        elif depth == 0 and c == "{":
            return i
        i += 1
    return None


def functions(code):
    """(name, first line number, length) of each function with a body in masked code."""
    for m in FN_NAME.finditer(code):
        open_at = body_open(code, m.end())
        if open_at is None:
            continue
        close = rust_source.matching_brace(code, open_at)
        first = code.count("\n", 0, m.start())
        yield m.group("name"), first + 1, code.count("\n", m.start(), close) + 1


def breaches(root):
    found = []
    for path in counted_files(root):
        code, _ = rust_source.read(path)
        lines = code.count("\n") + (0 if code.endswith("\n") else 1)
        lines -= len(rust_source.test_lines(path))
        if lines > MAX_FILE_LINES:
            found.append(f"{path}: {lines} lines (budget {MAX_FILE_LINES})")
        for name, line, length in functions(code):
            if length > MAX_FUNCTION_LINES:
                found.append(
                    f"{path}:{line}: fn {name} is {length} lines (budget {MAX_FUNCTION_LINES})"
                )
    return found


def main(argv):
    roots = argv[1:] or ["crates", "testing"]
    for root in roots:
        if not os.path.isdir(root):
            print(f"sizes.py: {root}: not a folder\n\n{__doc__}", file=sys.stderr)
            return 2
    found = [b for root in roots for b in breaches(root)]
    if not found:
        print(f"size budget holds: files <= {MAX_FILE_LINES} lines, "
              f"functions <= {MAX_FUNCTION_LINES} lines (tests excluded)")
        return 0
    print("size budget breached (cut at a seam, not by size):")
    for b in found:
        print("  " + b)
    return 1


if __name__ == "__main__":
    sys.exit(main(sys.argv))
