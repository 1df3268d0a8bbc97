#!/usr/bin/env python3
"""The structure gates' own tests: each gate must fail on a fixture with a planted breach and pass
on one without (scripts/gate-fixtures/), and the reader they share must see through literals.

Usage: python3 scripts/test_gates.py    (stdlib unittest; exit status non-zero on a failure)
"""
import os
import subprocess
import sys
import unittest

HERE = os.path.dirname(os.path.abspath(__file__))
FIXTURES = os.path.join(HERE, "gate-fixtures")
sys.path.insert(0, HERE)

import rust_source  # noqa: E402  (found through HERE)


def gate(script, fixture, *dirs):
    """(exit status, output) of a gate run inside a fixture tree."""
    done = subprocess.run(
        [sys.executable, os.path.join(HERE, script), *dirs],
        cwd=os.path.join(FIXTURES, fixture),
        capture_output=True,
        text=True,
        check=False,
    )
    return done.returncode, done.stdout + done.stderr


class Sizes(unittest.TestCase):
    def test_code_after_an_early_test_module_is_measured(self):
        rc, out = gate("sizes.py", "sizes/fail-long-fn-after-test-module", "crates")
        self.assertEqual(rc, 1, out)
        self.assertIn("crates/a/src/lib.rs:17: fn long_after_tests is 82 lines", out)

    def test_testing_folder_is_measured_inside_and_outside_src(self):
        rc, out = gate("sizes.py", "sizes/fail-long-testing-file", "testing")
        self.assertEqual(rc, 1, out)
        self.assertIn("testing/fake/src/lib.rs:3: fn long_after_tests is 82 lines", out)
        self.assertIn("testing/helper.rs:3: fn helper_too_long is 82 lines", out)

    def test_within_budget_passes_and_test_only_files_are_not_measured(self):
        rc, out = gate("sizes.py", "sizes/pass", "crates")
        self.assertEqual(rc, 0, out)
        self.assertIn("size budget holds", out)

    def test_a_missing_folder_is_bad_usage(self):
        rc, out = gate("sizes.py", "sizes/pass", "no-such-folder")
        self.assertEqual(rc, 2, out)
        self.assertIn("no-such-folder: not a folder", out)


class ImportCycles(unittest.TestCase):
    def test_a_parent_child_loop_through_a_sibling_fails(self):
        rc, out = gate("import_cycles.py", "cycles/fail-loop-through-sibling", "crates")
        self.assertEqual(rc, 1, out)
        self.assertIn("1 import circle(s)", out)
        for name in ("parent/mod.rs", "parent/child.rs", "sibling.rs"):
            self.assertIn(name, out)

    def test_glob_imports_fail_sibling_and_re_export(self):
        rc, out = gate("import_cycles.py", "cycles/fail-sibling-glob", "crates")
        self.assertEqual(rc, 1, out)
        self.assertIn("crates/a/src/view.rs:1: glob import `super::text::*`", out)
        self.assertIn("crates/a/src/lib.rs:6: glob import `view::{render, *}`", out)

    def test_ancestor_imports_literals_and_test_code_pass(self):
        rc, out = gate("import_cycles.py", "cycles/pass", "crates")
        self.assertEqual(rc, 0, out)
        self.assertIn("no import circles between files", out)


class Reader(unittest.TestCase):
    def test_literals_and_comments_are_blanked_keeping_lines(self):
        text = 'let a = "}{";\n// }\nlet b = \'{\';\nlet c = r#"}"#;\n/* { /* } */ */ fn f<\'a>() {}\n'
        code = rust_source.mask(text)
        self.assertEqual(code.count("\n"), text.count("\n"))
        self.assertEqual(code.count("{"), 1)
        self.assertEqual(code.count("}"), 1)
        self.assertIn("fn f<'a>() {}", code)

    def test_only_the_test_module_is_cut(self):
        code = rust_source.mask(
            "fn a() {}\n#[cfg(all(test, unix))]\n#[allow(dead_code)]\nmod t {\n    fn b() { }\n}\n"
            "fn c() {}\n#[cfg(any(test, feature = \"x\"))]\nmod kept {}\n"
        )
        items = rust_source.test_items(code)
        self.assertEqual([(name, braced) for _, _, name, braced in items], [("t", True)])
        start, end, _, _ = items[0]
        self.assertTrue(code[start:end].rstrip().endswith("}"))
        self.assertIn("fn c()", code[end:])

    def test_use_trees_expand_nested_groups(self):
        import import_cycles

        paths = import_cycles.use_paths("crate::{a::{b, c as d}, e::*, self}")
        self.assertEqual(
            paths,
            [["crate", "a", "b"], ["crate", "a", "c"], ["crate", "e", "*"], ["crate", "self"]],
        )


if __name__ == "__main__":
    unittest.main()
