"""What the structure gates read of a Rust file: its code, with comments and literals blanked and
its test items cut out, line numbers unchanged.

Shared by sizes.py and import_cycles.py so that both gates see the same code. A test item is a
module gated on `#[cfg(test)]` or `#[cfg(all(test, ...))]`, wherever it stands in the file: its
braces are matched, so code after an early test module is still read. `#[cfg(test)] mod x;`
names a file that is test code as a whole; `test_files` lists those.
"""
import os
import re

# `#[cfg(test)]`, `#[cfg(all(test, unix))]`; not `any(test, ...)`, which is built outside tests too.
TEST_CFG = re.compile(r"#\[cfg\((?:all\(\s*)?test\b")
ATTRIBUTE = re.compile(r"\s*#\[")
MODULE = re.compile(r"\s*(?:pub(?:\([^)]*\))?\s+)?mod\s+(?P<name>\w+)\s*(?P<end>[{;])")


def _blank(chars, start, end):
    """Blank chars[start:end], keeping line breaks so line numbers stay."""
    for i in range(start, end):
        if chars[i] != "\n":
            chars[i] = " "


def _string_end(text, i):
    """Index just past the string literal whose opening quote is at i."""
    i += 1
    while i < len(text) and text[i] != '"':
        i += 2 if text[i] == "\\" else 1
    return i + 1


def _raw_string_end(text, i):
    """Index just past the raw string `r#"..."#` whose `r` is at i, or None if it is not one."""
    m = re.compile(r'r(#*)"').match(text, i)
    if not m:
        return None
    close = text.find('"' + m.group(1), m.end())
    return len(text) if close < 0 else close + 1 + len(m.group(1))


def _char_end(text, i):
    """Index just past the char literal at i, or None where the quote starts a lifetime."""
    if text.startswith("\\", i + 1):
        close = text.find("'", i + 3)
        return None if close < 0 else close + 1
    if text.startswith("'", i + 2):
        return i + 3
    return None


def _comment_end(text, i):
    """Index just past the comment starting at i (line comment or nested block comment)."""
    if text.startswith("//", i):
        close = text.find("\n", i)
        return len(text) if close < 0 else close
    depth, i = 1, i + 2
    while i < len(text) and depth:
        if text.startswith("/*", i):
            depth, i = depth + 1, i + 2
        elif text.startswith("*/", i):
            depth, i = depth - 1, i + 2
        else:
            i += 1
    return i


# Where a comment or a literal can start; everything between is code, skipped in one step.
LITERAL_START = re.compile(r"""//|/\*|["']|(?<![\w])b?r#*"|(?<![\w])b'""")


def mask(text):
    """The text with comments and the contents of string and char literals blanked."""
    chars, i = list(text), 0
    while i < len(text):
        m = LITERAL_START.search(text, i)
        if not m:
            break
        i = m.start()
        c = text[i]
        end = None
        if text.startswith(("//", "/*"), i):
            end = _comment_end(text, i)
        elif c == '"':
            end = _string_end(text, i)
        elif c in "rb" and (i == 0 or not (text[i - 1].isalnum() or text[i - 1] == "_")):
            start = i + 1 if text.startswith("br", i) else i
            end = _raw_string_end(text, start)
            if end is None and c == "b" and text.startswith(("b'", 'b"'), i):
                end = _string_end(text, i + 1) if text[i + 1] == '"' else _char_end(text, i + 1)
        elif c == "'":
            end = _char_end(text, i)
        if end is None:
            i += 1
            continue
        _blank(chars, i, end)
        i = end
    return "".join(chars)


def matching_brace(code, open_at):
    """Index of the `}` closing the `{` at open_at in masked code (len(code) if unclosed)."""
    depth = 0
    for i in range(open_at, len(code)):
        if code[i] == "{":
            depth += 1
        elif code[i] == "}":
            depth -= 1
            if depth == 0:
                return i
    return len(code)


def _after_attributes(code, i):
    """Index past the attributes `#[...]` that start at i (whitespace included)."""
    while True:
        m = ATTRIBUTE.match(code, i)
        if not m:
            return i
        depth, j = 0, m.end() - 1
        while j < len(code):
            depth += {"[": 1, "]": -1}.get(code[j], 0)
            j += 1
            if depth == 0:
                break
        i = j


def test_items(code):
    """(start, end, module name, braced) of each test module in masked code."""
    items, pos = [], 0
    while True:
        m = TEST_CFG.search(code, pos)
        if not m:
            return items
        module = MODULE.match(code, _after_attributes(code, m.start()))
        if not module:
            pos = m.end()
            continue
        braced = module.group("end") == "{"
        end = matching_brace(code, module.end() - 1) + 1 if braced else module.end()
        items.append((m.start(), end, module.group("name"), braced))
        pos = end


def read(path):
    """(code, test files) of one file: the masked code with its test modules blanked, and the
    paths of the files its `#[cfg(test)] mod x;` lines name."""
    with open(path, encoding="utf-8") as f:
        text = f.read()
    chars, folder, tests = list(mask(text)), _children_folder(path), []
    for start, end, name, braced in test_items("".join(chars)):
        _blank(chars, start, end)
        if not braced:
            tests += [os.path.join(folder, name + ".rs"), os.path.join(folder, name, "mod.rs")]
    return "".join(chars), tests


def test_lines(path):
    """The 0-based numbers of the lines that test modules occupy in the file."""
    with open(path, encoding="utf-8") as f:
        code = mask(f.read())
    lines = set()
    for start, end, _, _ in test_items(code):
        first = code.count("\n", 0, start)
        lines.update(range(first, first + code.count("\n", start, end) + 1))
    return lines


def _children_folder(path):
    """The folder holding a file's child modules: its own folder for mod.rs, lib.rs and main.rs,
    else the folder named after the file."""
    folder, name = os.path.split(path)
    if name in ("mod.rs", "lib.rs", "main.rs"):
        return folder
    return os.path.join(folder, name[:-3])


def test_files(paths, root):
    """The paths among `paths` (files under root) that are test code as a whole: named tests.rs,
    under a tests/ folder, or declared by a `#[cfg(test)] mod x;` line, with their descendants."""
    excluded = set()
    for path in paths:
        parts = os.path.relpath(path, root).split(os.sep)
        if parts[-1] == "tests.rs" or "tests" in parts[:-1]:
            excluded.add(os.path.normpath(path))
        else:
            excluded.update(os.path.normpath(p) for p in read(path)[1])
    norm = {os.path.normpath(p): p for p in paths}
    out = set()
    for n, p in norm.items():
        if n in excluded or any(n.startswith(e[:-3] + os.sep) for e in excluded if e.endswith(".rs")):
            out.add(p)
    return out
