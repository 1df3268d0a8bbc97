#!/usr/bin/env python3
"""The size budget of the Rust sources: CI fails when a file or a function outgrows it.

Counted: every `.rs` file under a `src/` folder of DIR (default: crates), without its trailing
`#[cfg(test)] mod ... {` block; `tests.rs` files and `tests/` folders are not counted. A function
is measured from its `fn` line to the closing brace at the same indentation (rustfmt's layout).

Usage: scripts/sizes.py [DIR]
Exit status: 0 within budget, 1 on a breach (each one listed), 2 on bad usage.
"""
import os
import re
import sys

# The budget, in one place.
MAX_FILE_LINES = 600
MAX_FUNCTION_LINES = 80

FN_START = re.compile(
    r'^(?P<indent>\s*)(pub(\([^)]*\))? )?(const )?(async )?(unsafe )?(extern "C" )?fn (?P<name>\w+)'
)
TEST_MODULE = re.compile(r"mod \w+ \{")


def counted_files(root):
    """Paths of the source files the budget applies to."""
    for folder, _, names in os.walk(root):
        if "/tests" in folder or "target" in folder:
            continue
        for name in sorted(names):
            path = os.path.join(folder, name)
            if name.endswith(".rs") and name != "tests.rs" and "/src/" in path:
                yield path


def non_test_lines(lines):
    """The lines before the file's `#[cfg(test)] mod ... {` block."""
    for i, line in enumerate(lines[:-1]):
        is_test_cfg = line.startswith("#[cfg(test)]") or line.startswith("#[cfg(all(test")
        if is_test_cfg and TEST_MODULE.match(lines[i + 1]):
            return lines[:i]
    return lines


def functions(lines):
    """(name, first line number, length) of each function with a body."""
    i = 0
    while i < len(lines):
        start = FN_START.match(lines[i])
        if not start:
            i += 1
            continue
        indent = start.group("indent")
        body = i
        while body < len(lines) and not lines[body].rstrip().endswith(("{", ";")):
            body += 1
        if body >= len(lines) or lines[body].rstrip().endswith(";"):
            i = body + 1  # a declaration without a body
            continue
        end = body + 1
        closing = indent + "}"
        while end < len(lines) and lines[end].rstrip() != closing:
            end += 1
        yield start.group("name"), i + 1, end - i + 1
        i = end + 1


def breaches(root):
    found = []
    for path in counted_files(root):
        with open(path, encoding="utf-8") as f:
            lines = non_test_lines(f.read().split("\n"))
        if len(lines) > MAX_FILE_LINES:
            found.append(f"{path}: {len(lines)} lines (budget {MAX_FILE_LINES})")
        for name, line, length in functions(lines):
            if length > MAX_FUNCTION_LINES:
                found.append(
                    f"{path}:{line}: fn {name} is {length} lines (budget {MAX_FUNCTION_LINES})"
                )
    return found


def main(argv):
    if len(argv) > 2:
        print(__doc__, file=sys.stderr)
        return 2
    root = argv[1] if len(argv) == 2 else "crates"
    if not os.path.isdir(root):
        print(f"sizes.py: {root}: not a folder", file=sys.stderr)
        return 2
    found = breaches(root)
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
