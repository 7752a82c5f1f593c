#!/usr/bin/env python3
"""Checks the shape of src/: no module uses one that uses it back (through any chain, `super::` and `self::`
paths, `use` trees, re-exports and paths written inline all counted), and no file is over 400 lines unless its
doc comment says why (an `//! Over 400 lines: ...` line).

A module uses another when a path it writes resolves to an item that module defines, or to the module itself.
Declaring a child (`mod x;`) is not a use. Paths are resolved the way rustc resolves them, far enough for this
check: `crate`, `super`, `self`, the library's name from the binaries, child modules, and each module's imports,
re-exports and glob imports followed to where the item is defined. rustc has no such lint and cargo-modules
needs a nightly toolchain, so the check reads the sources itself; comments and string literals are stripped
first, so a path in prose is not a use.

Usage: python3 scripts/check_modules.py [--root src]   (exit status 1 when the tree breaks either rule)
       python3 scripts/check_modules.py --self-test    (the check on small trees it must pass and fail)
"""
from __future__ import annotations

import argparse
import re
import sys
from dataclasses import dataclass, field
from pathlib import Path

LIBRARY = "quire"
MAX_LINES = 400
LONG_REASON = re.compile(r"^//! Over 400 lines: \S", re.MULTILINE)
CRATE_ROOTS = {"lib.rs": "crate", "main.rs": "bin main", "page.rs": "bin page"}
ITEM = re.compile(
    r"\b(?:(?:const|async|unsafe|extern\s+\"[^\"]*\")\s+)*"
    r"(?:struct|enum|fn|static|type|trait|union|mod|const)\s+(?:mut\s+)?([A-Za-z_]\w*)"
    r"|\bmacro_rules!\s*([A-Za-z_]\w*)"
)
CHILD = re.compile(r"^\s*(?:#\[[^\]]*\]\s*)*(?:pub(?:\([^)]*\))?\s+)?mod\s+([A-Za-z_]\w*)\s*;", re.MULTILINE)
INLINE_MOD = re.compile(r"(?:pub(?:\([^)]*\))?\s+)?mod\s+([A-Za-z_]\w*)\s*\{")
USE = re.compile(r"\b(?:pub(?:\([^)]*\))?\s+)?use\s+([^;]+);")
PATH = re.compile(r"(?<![\w:])((?:[A-Za-z_]\w*)(?:\s*::\s*[A-Za-z_]\w*)+)")
KEYWORDS = {"fn", "let", "mut", "ref", "as", "where", "impl", "dyn", "for", "in", "if", "else", "match", "return"}


def strip(source: str) -> str:
    """The source with comments, string and char literals blanked (newlines kept, so line numbers hold)."""
    out, i, n = [], 0, len(source)
    while i < n:
        c = source[i]
        if source.startswith("//", i):
            end = source.find("\n", i)
            end = n if end < 0 else end
            out.append(" " * (end - i))
            i = end
        elif source.startswith("/*", i):
            depth, j = 1, i + 2
            while j < n and depth:
                if source.startswith("/*", j):
                    depth, j = depth + 1, j + 2
                elif source.startswith("*/", j):
                    depth, j = depth - 1, j + 2
                else:
                    j += 1
            out.append(re.sub(r"[^\n]", " ", source[i:j]))
            i = j
        elif (raw := re.match(r'b?r(#*)"', source[i:])) and (i == 0 or not source[i - 1].isalnum() and source[i - 1] != "_"):
            close = '"' + raw.group(1)
            j = source.find(close, i + raw.end())
            j = n if j < 0 else j + len(close)
            out.append(re.sub(r"[^\n]", " ", source[i:j]))
            i = j
        elif c == '"':
            j = i + 1
            while j < n and source[j] != '"':
                j += 2 if source[j] == "\\" else 1
            out.append(re.sub(r"[^\n]", " ", source[i : j + 1]))
            i = j + 1
        elif c == "'" and (char := re.match(r"'(?:\\.[^']*|[^\\'])'", source[i:])):
            out.append(" " * char.end())
            i += char.end()
        else:
            out.append(c)
            i += 1
    return "".join(out)


def without_inline_test_modules(code: str) -> str:
    """Inline `mod x { ... }` blocks blanked: their `super::` is the file's own module, so they add no edge."""
    while match := INLINE_MOD.search(code):
        depth, j = 1, match.end()
        while j < len(code) and depth:
            depth += {"{": 1, "}": -1}.get(code[j], 0)
            j += 1
        code = code[: match.start()] + re.sub(r"[^\n]", " ", code[match.start() : j]) + code[j:]
    return code


def use_tree(tree: str) -> list[tuple[list[str], str | None]]:
    """Each path a `use` tree names, with the name it binds (None for a glob)."""
    tree = re.sub(r"\s*([{},:*])\s*", r"\1", tree.strip())

    def split_top(text: str) -> list[str]:
        parts, depth, start = [], 0, 0
        for k, ch in enumerate(text):
            depth += {"{": 1, "}": -1}.get(ch, 0)
            if ch == "," and depth == 0:
                parts.append(text[start:k])
                start = k + 1
        parts.append(text[start:])
        return [p for p in parts if p]

    def walk(prefix: list[str], text: str):
        brace = text.find("{")
        if brace >= 0 and text.endswith("}"):
            head = [s for s in text[:brace].split("::") if s]
            for part in split_top(text[brace + 1 : -1]):
                yield from walk(prefix + head, part)
            return
        name, _, alias = text.partition(" as ")
        name, alias = name.strip(), alias.strip() or None
        # `{self, …}` names the module the tree is in, so the prefix counts before `self` is dropped.
        segments = prefix + [s for s in name.split("::") if s]
        if segments and segments[-1] == "self":
            segments = segments[:-1]
        if segments and segments[-1] == "*":
            yield segments[:-1], None
        elif segments:
            yield segments, alias or segments[-1]

    return list(walk([], tree))


@dataclass
class Module:
    path: str  # e.g. "crate::web::client"
    file: Path
    children: dict[str, "Module"] = field(default_factory=dict)
    parent: "Module | None" = None
    defines: set[str] = field(default_factory=set)
    imports: dict[str, list[str]] = field(default_factory=dict)
    globs: list[list[str]] = field(default_factory=list)
    uses: list[tuple[int, list[str]]] = field(default_factory=list)  # (line, path) of every use written

    @property
    def root(self) -> "Module":
        return self if self.parent is None else self.parent.root


def load(file: Path, path: str, parent: Module | None) -> Module:
    module = Module(path, file, parent=parent)
    code = without_inline_test_modules(strip(file.read_text()))
    module.defines = {m.group(1) or m.group(2) for m in ITEM.finditer(code)} - KEYWORDS
    directory = file.parent if file.name in ("mod.rs", *CRATE_ROOTS) else file.with_suffix("")
    for child in CHILD.findall(code):
        child_file = next((f for f in (directory / f"{child}.rs", directory / child / "mod.rs") if f.exists()), None)
        if child_file:
            module.children[child] = load(child_file, f"{path}::{child}", module)
    for match in USE.finditer(code):
        line = code.count("\n", 0, match.start()) + 1
        for segments, alias in use_tree(match.group(1)):
            module.uses.append((line, segments))
            if alias is None:
                module.globs.append(segments)
            elif alias != "_":
                module.imports[alias] = segments
    in_use = [(m.start(), m.end()) for m in USE.finditer(code)]
    for match in PATH.finditer(code):
        if any(a <= match.start() < b for a, b in in_use):
            continue
        segments = [s.strip() for s in match.group(1).split("::")]
        module.uses.append((code.count("\n", 0, match.start()) + 1, segments))
    return module


class Resolver:
    def __init__(self, library: Module):
        self.library = library

    def start(self, module: Module, first: str) -> Module | list[str] | None:
        if first == "crate":
            return module.root
        if first == "super":
            return module.parent
        if first == "self":
            return module
        if first == LIBRARY and module.root is not self.library:
            return self.library
        if first in module.children:
            return module.children[first]
        if first in module.imports:
            return module.imports[first]
        if first in module.defines:
            return module
        return None

    def resolve(self, module: Module, segments: list[str], depth: int = 0) -> Module | None:
        """The module that defines what `segments`, written in `module`, names; None outside the crate."""
        if depth > 20 or not segments:
            return None
        at = self.start(module, segments[0])
        if isinstance(at, list):
            target = self.resolve(module, at, depth + 1)
            return target if len(segments) == 1 else self.descend(target, segments[1:], depth)
        if at is None:
            return None
        if at is module and segments[0] not in ("self", "crate") and segments[0] in module.defines:
            return module
        return self.descend(at, segments[1:], depth)

    def descend(self, at: Module | None, rest: list[str], depth: int) -> Module | None:
        for k, name in enumerate(rest):
            if at is None:
                return None
            if name == "super":
                at = at.parent
            elif name in at.children:
                at = at.children[name]
            elif name in at.imports:
                return self.resolve(at, at.imports[name] + rest[k + 1 :], depth + 1)
            elif name in at.defines:
                return at
            else:
                for glob in at.globs:
                    target = self.resolve(at, glob, depth + 1)
                    if target is not None and target is not at and self.names(target, name):
                        return self.descend(target, rest[k:], depth + 1)
                return at
        return at

    def names(self, module: Module, name: str) -> bool:
        return name in module.defines or name in module.children or name in module.imports


def modules_of(root: Module):
    yield root
    for child in root.children.values():
        yield from modules_of(child)


def strongly_connected(graph: dict[str, set[str]]) -> list[list[str]]:
    """Tarjan's components of more than one module (iterative, so a deep tree does not overflow)."""
    index, low, on_stack, stack, found, counter = {}, {}, set(), [], [], [0]
    for start in graph:
        if start in index:
            continue
        work = [(start, iter(sorted(graph[start])))]
        index[start] = low[start] = counter[0]
        counter[0] += 1
        stack.append(start)
        on_stack.add(start)
        while work:
            node, successors = work[-1]
            advanced = False
            for nxt in successors:
                if nxt not in index:
                    index[nxt] = low[nxt] = counter[0]
                    counter[0] += 1
                    stack.append(nxt)
                    on_stack.add(nxt)
                    work.append((nxt, iter(sorted(graph.get(nxt, ())))))
                    advanced = True
                    break
                if nxt in on_stack:
                    low[node] = min(low[node], index[nxt])
            if advanced:
                continue
            work.pop()
            if work:
                low[work[-1][0]] = min(low[work[-1][0]], low[node])
            if low[node] == index[node]:
                component = []
                while True:
                    member = stack.pop()
                    on_stack.discard(member)
                    component.append(member)
                    if member == node:
                        break
                if len(component) > 1:
                    found.append(sorted(component))
    return found


def check(src: Path) -> list[str]:
    """What breaks the rules in the tree under `src`, one line each; none when it keeps them."""
    roots = {name: load(src / name, label, None) for name, label in CRATE_ROOTS.items() if (src / name).exists()}
    resolver = Resolver(roots["lib.rs"])
    graph: dict[str, set[str]] = {}
    why: dict[tuple[str, str], str] = {}
    every = [m for root in roots.values() for m in modules_of(root)]
    for module in every:
        graph.setdefault(module.path, set())
        for line, segments in module.uses:
            target = resolver.resolve(module, segments)
            if target is None or target is module:
                continue
            graph[module.path].add(target.path)
            why.setdefault((module.path, target.path), f"{module.file}:{line} {'::'.join(segments)}")
    found = []
    for component in strongly_connected(graph):
        members = set(component)
        uses = [f"  {a} -> {b}   ({why[(a, b)]})" for a in component for b in sorted(graph[a] & members)]
        found.append("\n".join([f"these modules use each other: {', '.join(component)}", *uses]))
    for module in every:
        text = module.file.read_text()
        lines = text.count("\n")
        if lines > MAX_LINES and not LONG_REASON.search(text):
            found.append(f"{module.file} has {lines} lines and no `//! Over 400 lines: ...` reason")
    return found


# Small trees the check must fail (with the words each finding must hold) or pass (None).
SELF_TESTS = {
    "a child that uses its parent's item, used by it": (
        {"lib.rs": "mod a;\npub struct Shared;\nfn f() { a::g(); }\n", "a.rs": "use super::Shared;\npub fn g() {}\n"},
        "crate, crate::a",
    ),
    "siblings that use each other through inline paths": (
        {"lib.rs": "mod a;\nmod b;\n", "a.rs": "pub fn f() { super::b::g() }\n", "b.rs": "pub fn g() { crate::a::f() }\n"},
        "crate::a, crate::b",
    ),
    "a glob import of the parent that uses the child": (
        {"lib.rs": "mod a;\npub use a::g;\npub struct T;\n", "a.rs": "use super::*;\npub fn g() -> T { T }\n"},
        "crate, crate::a",
    ),
    "a module named by `self` in a use tree": (
        {"lib.rs": "mod a;\nmod b;\n", "a.rs": "use crate::b::{self};\npub fn f() { b::g() }\n",
         "b.rs": "pub fn g() { crate::a::f() }\n"},
        "crate::a, crate::b",
    ),
    "a parent that re-exports what its children share from a leaf": (
        {
            "lib.rs": "mod a;\nmod leaf;\npub use leaf::Shared;\nfn f() { a::g(); }\n",
            "leaf.rs": "pub struct Shared;\n",
            "a.rs": "use super::Shared;\npub fn g() {}\n",
        },
        None,
    ),
    "paths in comments and strings": (
        {"lib.rs": "mod a;\nmod b;\n", "a.rs": "// super::b::g\npub fn f() { let _ = \"super::b::g\"; }\n",
         "b.rs": "pub fn g() { crate::a::f() }\n"},
        None,
    ),
    "a long file without its reason": ({"lib.rs": "fn f() {}\n" * 401}, "401 lines"),
    "a long file with its reason": ({"lib.rs": "//! Over 400 lines: one table.\n" + "fn f() {}\n" * 401}, None),
}


def self_test() -> int:
    import tempfile

    failed = 0
    for name, (files, expected) in SELF_TESTS.items():
        with tempfile.TemporaryDirectory() as folder:
            for file, text in files.items():
                (Path(folder) / file).write_text(text)
            found = "\n".join(check(Path(folder)))
        passed = expected in found if expected else not found
        failed += not passed
        print(f"check_modules self-test: {'ok  ' if passed else 'FAIL'} {name}" + ("" if passed else f": {found!r}"))
    return 1 if failed else 0


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--root", type=Path, default=Path(__file__).resolve().parent.parent / "src")
    parser.add_argument("--self-test", action="store_true")
    args = parser.parse_args()
    if args.self_test:
        return self_test()
    found = check(args.root)
    for finding in found:
        print(f"check_modules: {finding}")
    if found:
        return 1
    print(f"check_modules: no module uses one that uses it back; no file over {MAX_LINES} lines without its reason")
    return 0


if __name__ == "__main__":
    sys.exit(main())
