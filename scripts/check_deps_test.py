#!/usr/bin/env python3
"""Tests of scripts/check-deps.py on a small tree written here: what it accepts, and
the exact advice it gives for each kind of undeclared dependency."""

import os
import subprocess
import sys
import tempfile
import unittest

SCRIPT = os.path.join(os.path.dirname(os.path.abspath(__file__)), "check-deps.py")


def write(root, path, text):
    full = os.path.join(root, path)
    os.makedirs(os.path.dirname(full), exist_ok=True)
    with open(full, "w", encoding="utf-8") as f:
        f.write(text)


class CheckDepsTest(unittest.TestCase):
    def run_check(self, rows, files):
        with tempfile.TemporaryDirectory() as root:
            for path, text in files.items():
                write(root, path, text)
            write(root, "build/targets.tsv", "order\tcommon net engine\n" + "".join(
                "\t".join(r) + "\n" for r in rows))
            p = subprocess.run([sys.executable, SCRIPT, "--targets", root + "/build/targets.tsv",
                                "--source-dir", root, "--binary-dir", root + "/build"],
                               capture_output=True, text=True)
            return p.returncode, p.stdout

    BASE = [("module", "servebench_common", "src/common", "fmt::fmt", "status.cc"),
            ("module", "servebench_net", "src/net", "servebench_common", "url.cc"),
            ("module", "servebench_engine", "src/engine", "servebench_common", "probe.cc")]
    FILES = {"src/common/status.cc": '#include "common/status.h"\n',
             "src/common/status.h": "",
             "src/net/url.cc": '#include "net/url.h"\n#include "common/status.h"\n',
             "src/net/url.h": "",
             "src/engine/probe.cc": '#include "engine/probe.h"\n',
             "src/engine/probe.h": '#pragma once\n#include <string>\n'}

    def test_declared_includes_pass(self):
        code, out = self.run_check(self.BASE, self.FILES)
        self.assertEqual(code, 0, out)
        self.assertIn("3 modules and 0 test targets include only what they declare", out)

    def test_undeclared_module_names_the_deps_entry_and_the_cmake_file(self):
        files = dict(self.FILES)
        files["src/engine/probe.h"] = '#pragma once\n#include "net/url.h"\n'
        code, out = self.run_check(self.BASE, files)
        self.assertEqual(code, 1)
        self.assertIn('src/engine/probe.h:2: #include "net/url.h" needs servebench_net, which '
                      "servebench_engine does not declare: add servebench_net to the DEPS of "
                      "servebench_module(engine ...) in src/engine/CMakeLists.txt", out)

    def test_product_code_may_not_include_test_helpers(self):
        files = dict(self.FILES)
        files["src/engine/probe.cc"] = '#include "net/testing/fake.h"\n'
        rows = [r if r[1] != "servebench_engine" else
                ("module", "servebench_engine", "src/engine", "servebench_net", "probe.cc")
                for r in self.BASE]
        code, out = self.run_check(rows, files)
        self.assertEqual(code, 1)
        self.assertIn('src/engine/probe.cc:1: #include "net/testing/fake.h": net/testing/ holds '
                      "test helpers, which product code (servebench_engine) must not use", out)

    def test_a_test_must_link_the_testing_library_it_includes(self):
        files = dict(self.FILES)
        files["src/engine/probe_test.cc"] = '#include "engine/probe.h"\n#include "net/testing/fake.h"\n'
        files["src/net/testing/fake.cc"] = '#include "net/testing/fake.h"\n'
        files["src/net/testing/fake.h"] = ""
        rows = self.BASE + [
            ("testing", "servebench_net_testing", "src/net", "servebench_net", "testing/fake.cc"),
            ("test", "engine_test", "src/engine", "servebench_engine", "probe_test.cc")]
        code, out = self.run_check(rows, files)
        self.assertEqual(code, 1)
        self.assertIn('src/engine/probe_test.cc:2: #include "net/testing/fake.h" needs '
                      "servebench_net_testing, which engine_test does not link: add "
                      "servebench_net_testing to the DEPS of servebench_test(engine_test ...) in "
                      "src/engine/CMakeLists.txt", out)

    def test_a_dependency_on_a_later_module_is_refused(self):
        rows = [r if r[1] != "servebench_net" else
                ("module", "servebench_net", "src/net", "servebench_common;servebench_engine",
                 "url.cc") for r in self.BASE]
        code, out = self.run_check(rows, self.FILES)
        self.assertEqual(code, 1)
        self.assertIn("servebench_net depends on servebench_engine, which comes after it in "
                      "SERVEBENCH_MODULES", out)


if __name__ == "__main__":
    unittest.main()
