#!/usr/bin/env python3
"""Checks servebench's module boundaries: every include against its target's DEPS.

The build writes <build>/servebench_targets.tsv (cmake/servebench_targets.cmake): one
row per module library, testing library and test binary with its folder, DEPS and
sources. This script reads every source and header and reports, with file:line,

  - a module file that includes another module's header without that module among
    the DEPS of its servebench_module() (each module declares what it uses directly);
  - a module file that includes a testing/ header (test helpers are for tests only);
  - a test or testing library that includes a module, or a module's testing/ helpers,
    that nothing in its DEPS links;
  - a module that depends on one listed after it in SERVEBENCH_MODULES (CMakeLists.txt),
    or a dependency cycle.

Each problem says which DEPS entry is missing and in which CMakeLists.txt to add it.
Exit status 0 when every include is declared, 1 otherwise (run by ctest as deps_check).
"""

import argparse
import os
import re
import sys
from collections import defaultdict

INCLUDE = re.compile(r'^\s*#\s*include\s+"([^"]+)"')
SOURCE_SUFFIXES = (".h", ".cc", ".cpp")


class Target:
    def __init__(self, kind, name, folder, deps, sources):
        self.kind = kind  # module | testing | test
        self.name = name
        self.folder = folder
        self.deps = [d for d in deps.split(";") if d]
        self.sources = [s for s in sources.split(";") if s]


def read_targets(path):
    order, targets = [], {}
    with open(path, encoding="utf-8") as f:
        for line in f:
            fields = line.rstrip("\n").split("\t")
            if fields[0] == "order":
                order = fields[1].split()
            elif len(fields) == 5:
                t = Target(*fields)
                targets[t.name] = t
    return order, targets


def module_of_library(library):
    """servebench_net -> net; servebench_net_testing -> net/testing; else None."""
    if not library.startswith("servebench_"):
        return None
    name = library[len("servebench_"):]
    if name.endswith("_testing"):
        return name[: -len("_testing")] + "/testing"
    return name


def includes(path):
    with open(path, encoding="utf-8", errors="replace") as f:
        for number, line in enumerate(f, 1):
            m = INCLUDE.match(line)
            if m:
                yield number, m.group(1)


def what_it_needs(include, modules):
    """The module ("net") or testing helpers ("net/testing") an include belongs to."""
    parts = include.split("/")
    if len(parts) < 2 or parts[0] not in modules:
        return None
    if parts[1] == "testing":
        return parts[0] + "/testing"
    return parts[0]


def library_of(need):
    return "servebench_" + need.replace("/testing", "_testing")


def module_files(source_dir, module, test_sources):
    """Every header and source of src/<module>/ that is part of the library."""
    root = os.path.join(source_dir, "src", module)
    for folder, subfolders, files in os.walk(root):
        rel = os.path.relpath(folder, root)
        top = rel.split(os.sep)[0]
        if top in ("testing", "testdata"):
            continue
        for name in sorted(files):
            path = os.path.join(folder, name)
            if not name.endswith(SOURCE_SUFFIXES) or name.endswith("_test.cc"):
                continue
            if os.path.realpath(path) in test_sources:
                continue
            yield path


def closure(start, targets):
    """Every servebench library reachable from `start` (library names)."""
    seen, stack = set(), list(start)
    while stack:
        lib = stack.pop()
        if lib in seen:
            continue
        seen.add(lib)
        if lib in targets:
            stack.extend(d for d in targets[lib].deps if d.startswith("servebench_"))
    return seen


def main():
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--targets", required=True, help="<build>/servebench_targets.tsv")
    parser.add_argument("--source-dir", required=True, help="the repository root")
    parser.add_argument("--binary-dir", required=True, help="the build folder (generated files)")
    args = parser.parse_args()
    order, targets = read_targets(args.targets)
    modules = set(order)
    problems = []

    def where(path, line):
        return f"{os.path.relpath(path, args.source_dir)}:{line}"

    binary_dir = os.path.realpath(args.binary_dir) + os.sep

    def sources_of(t):
        """The target's own sources, generated ones left out."""
        for s in t.sources:
            path = s if os.path.isabs(s) else os.path.join(args.source_dir, t.folder, s)
            if path.endswith(SOURCE_SUFFIXES) and not os.path.realpath(path).startswith(binary_dir):
                yield path

    test_sources = set()
    for t in targets.values():
        if t.kind != "module":
            test_sources.update(os.path.realpath(p) for p in sources_of(t))

    # Modules: direct DEPS only, no testing/ helpers, only earlier modules.
    for t in targets.values():
        if t.kind != "module":
            continue
        module = module_of_library(t.name)
        declared = {module_of_library(d) for d in t.deps} - {None}
        cmake = os.path.join(t.folder, "CMakeLists.txt")
        for dep in sorted(declared):
            if dep in modules and module in order and order.index(dep) > order.index(module):
                problems.append(
                    f"{cmake}: servebench_{module} depends on servebench_{dep}, which comes after "
                    f"it in SERVEBENCH_MODULES (CMakeLists.txt); a module may use only the modules "
                    f"before it: {', '.join(order[:order.index(module)]) or 'none'}")
        for path in module_files(args.source_dir, module, test_sources):
            for line, include in includes(path):
                need = what_it_needs(include, modules)
                if need is None or need == module:
                    continue
                if need.endswith("/testing"):
                    problems.append(
                        f'{where(path, line)}: #include "{include}": {need}/ holds test helpers, '
                        f"which product code (servebench_{module}) must not use")
                elif need not in declared:
                    problems.append(
                        f'{where(path, line)}: #include "{include}" needs servebench_{need}, which '
                        f"servebench_{module} does not declare: add servebench_{need} to the DEPS of "
                        f"servebench_module({module} ...) in {cmake}")

    # Tests and testing libraries: whatever they include must be linked (directly or
    # through another dependency).
    for t in targets.values():
        if t.kind == "module":
            continue
        linked = {module_of_library(lib) for lib in closure([t.name] + t.deps, targets)} - {None}
        # Header-only test helpers (common/testing/) come with their module.
        linked |= {m + "/testing" for m in linked if "servebench_" + m + "_testing" not in targets}
        cmake = os.path.join(t.folder, "CMakeLists.txt")
        call = "servebench_test" if t.kind == "test" else "servebench_testing_library"
        label = t.name if t.kind == "test" else module_of_library(t.name).split("/")[0]
        files = list(sources_of(t))
        if t.kind == "testing":
            root = os.path.join(args.source_dir, t.folder, "testing")
            files += [os.path.join(root, n) for n in sorted(os.listdir(root)) if n.endswith(".h")]
        for path in files:
            for line, include in includes(path):
                need = what_it_needs(include, modules)
                if need is None or need in linked:
                    continue
                problems.append(
                    f'{where(path, line)}: #include "{include}" needs {library_of(need)}, which '
                    f"{t.name} does not link: add {library_of(need)} to the DEPS of "
                    f"{call}({label} ...) in {cmake}")

    # Cycles among modules.
    graph = {module_of_library(t.name): [module_of_library(d) for d in t.deps
                                         if d in targets and targets[d].kind == "module"]
             for t in targets.values() if t.kind == "module"}
    state = defaultdict(int)

    def visit(node, path):
        state[node] = 1
        for dep in graph.get(node, []):
            if state[dep] == 1:
                cycle = path[path.index(dep):] + [dep]
                problems.append("module dependency cycle: " + " -> ".join(cycle))
            elif state[dep] == 0:
                visit(dep, path + [dep])
        state[node] = 2

    for node in sorted(graph):
        if state[node] == 0:
            visit(node, [node])

    for p in problems:
        print(p)
    if problems:
        print(f"deps_check: {len(problems)} undeclared dependenc{'y' if len(problems) == 1 else 'ies'} "
              "(cmake/servebench_targets.cmake explains the rules)", file=sys.stderr)
        return 1
    print(f"deps_check: {sum(t.kind == 'module' for t in targets.values())} modules and "
          f"{sum(t.kind != 'module' for t in targets.values())} test targets include only what they declare")
    return 0


if __name__ == "__main__":
    sys.exit(main())
