#!/usr/bin/env python3
"""Checks that every figure the README states is one the docs state: a figure is said once, with one value,
and the README never drifts from the docs.

- The headline figures are the rows of the table between `<!-- headline figures -->` and
  `<!-- /headline figures -->`: `| figure | value | [where](docs/FILE.md#current-figures) |`. The figure's
  name must be the first cell of a row of FILE's "Current figures" table, and the README's value must be
  found in that row's value cell (the docs may say more: the cores busy beside a time).
- Every other figure of the README's prose (a number with a unit of time, size or share, or a score such as
  0.95) must be stated by a document its paragraph links to (`docs/FILE.md`): the same number, or one that
  rounds to it (the README says 0.83 where the docs say 0.829). A paragraph with a figure and no such link
  fails, so every figure can be traced to the table and command behind it.
- Every row of the "Current figures" tables of docs/BENCHMARKS.md and docs/QUALITY.md names the commit it
  was measured at and the command that measures it.
"""

import re
import sys
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent


def cells(line: str) -> list[str]:
    return [cell.strip() for cell in line.strip().strip("|").split("|")]


def current_table(text: str, name: str) -> list[list[str]]:
    """The cells of each line of the first table of `text`'s "## Current figures" section, its header first."""
    section = re.search(r"^## Current figures\n(.*?)(?=^## |\Z)", text, re.S | re.M)
    if section is None:
        sys.exit(f"{name} has no '## Current figures' section")
    table = re.search(r"^\|.*?(?=^[^|]|\Z)", section.group(1), re.S | re.M)
    return [cells(line) for line in table.group(0).splitlines()] if table else []


def current_figures(document: Path) -> dict[str, str]:
    """The first and second cells of each row of `document`'s "## Current figures" table."""
    rows = current_table(document.read_text(encoding="utf-8"), str(document.relative_to(ROOT)))
    return {row[0]: row[1] for row in rows[2:] if len(row) >= 2}


COMMIT = re.compile(r"\b[0-9a-f]{7,40}\b")


def unsourced_rows(text: str, name: str) -> list[str]:
    """The current figures of a document without the commit they were measured at or the command."""
    rows = current_table(text, name)
    if not rows or "commit" not in rows[0] or "command" not in rows[0]:
        return [f"{name}: its current figures have no commit and command columns"]
    commit, command = rows[0].index("commit"), rows[0].index("command")
    return [
        f"{name}: {row[0]!r} names no {'commit' if not COMMIT.search(row[commit]) else 'command'}"
        for row in rows[2:]
        if len(row) <= max(commit, command) or not COMMIT.search(row[commit]) or row[command] in ("", "—")
    ]


# A figure: a number with a unit of time, size or share, or a score (0.95; a range 0.83–0.91 is two).
FIGURE = re.compile(
    r"(?<![\w.])(\d+(?:[.,]\d+)*)(?:\s*(?:–|-|to)\s*(\d+(?:[.,]\d+)*))?\s*"
    r"(ms|s|min|minutes|MB|GB|kB|KiB|MiB|GiB|%|texts/s)(?![\w])"
    r"|(?<![\w.])(0\.\d{2,3})(?:–(0\.\d{2,3}))?(?!\.?\d)"
)
DOC_LINK = re.compile(r"\((docs/[A-Z]+\.md)")


def prose_paragraphs(readme: str) -> list[str]:
    """The README's paragraphs and list items outside code blocks and the headline table."""
    readme = re.sub(r"```.*?```", "", readme, flags=re.S)
    readme = re.sub(r"<!-- headline figures -->.*?<!-- /headline figures -->", "", readme, flags=re.S)
    paragraphs, current = [], []
    for line in readme.splitlines():
        starts_item = line.startswith(("- ", "* ", "#", "|"))
        if not line.strip() or starts_item:
            if current:
                paragraphs.append(" ".join(current))
            current = [] if not line.strip() or line.startswith(("#", "|")) else [line]
        else:
            current.append(line.strip())
    if current:
        paragraphs.append(" ".join(current))
    return paragraphs


def numbers(text: str, unit: str | None) -> list[str]:
    """The numbers of `text`; with a unit, only those it follows, directly or after a list or range of
    numbers (`14 to 18 texts/s`, `2.2 / 2.5 / 6.9 s`)."""
    number = r"\d+(?:[.,]\d+)*"
    pattern = r"(?<![\w.])" + number
    if unit:
        pattern += r"(?=(?:\s*(?:–|-|/|to|,|and)\s*" + number + r")*\s*" + re.escape(unit) + r"(?![\w]))"
    return re.findall(pattern, re.sub(r"\s+", " ", text))


def stated(value: str, unit: str | None, document: str) -> bool:
    """Whether `document` states `value` (with `unit`), or a number that rounds to it at `value`'s precision."""
    plain = value.replace(",", "")
    decimals = len(plain.split(".")[1]) if "." in plain else 0
    for number in numbers(document, unit):
        try:
            if round(float(number.replace(",", "")), decimals) == float(plain):
                return True
        except ValueError:
            continue
    return False


def read_doc(path: str) -> str:
    return (ROOT / path).read_text(encoding="utf-8") if (ROOT / path).exists() else ""


def prose_problems(readme: str, read=read_doc) -> list[str]:
    problems = []
    for paragraph in prose_paragraphs(readme):
        figures = [
            (value, match.group(3))
            for match in FIGURE.finditer(paragraph)
            for value in match.groups()[:2] + match.groups()[3:]
            if value
        ]
        if not figures:
            continue
        linked = sorted(set(DOC_LINK.findall(paragraph)))
        if not linked:
            shown = ", ".join(f"{value} {unit or ''}".strip() for value, unit in figures)
            problems.append(f"README: {shown} stated where no doc is linked: {paragraph[:70]}…")
            continue
        text = " ".join(read(path) for path in linked)
        for value, unit in figures:
            if not stated(value, unit, text):
                shown = f"{value} {unit or ''}".strip()
                problems.append(f"README: {shown} is not stated by {', '.join(linked)}: {paragraph[:70]}…")
    return problems


def self_test() -> int:
    """The prose check on small READMEs it must pass and fail, against one doc."""
    doc = {"docs/A.md": "| x | 0.829 / 0.91 | 25 min 46 s wall, 18.0\ntexts/s; 6.9 s |"}.get
    link = " ([a](docs/A.md))"
    cases = [
        ("took 25 min 46 s" + link, 0),
        ("MRR@10 0.83–0.91" + link, 0),
        ("18.0 texts/s and 6.9 s" + link, 0),
        ("Trunk 0.21.14, wasm-bindgen 0.2.130" + link, 0),
        ("MRR@10 0.84" + link, 1),
        ("took 25 s" + link, 1),
        ("About 7 GB of disk.", 1),
        ("- a list item of 0.829\n- another of 0.5" + link, 1),
    ]
    failed = 0
    for readme, expected in cases:
        found = len(prose_problems(readme, lambda path: doc(path, "")))
        if found != expected:
            print(f"check_figures --self-test: {readme!r}: {found} problems, expected {expected}", file=sys.stderr)
            failed += 1
    table = "## Current figures\n\n| figure | value | commit | command |\n|---|---|---|---|\n"
    sourced = [
        (table + "| a | 1 s | 5257a3f | `x` |\n\nprose\n\n| other | table |\n", 0),
        (table + "| a | 1 s | — | `x` |\n| b | 2 s | 5257a3f | — |\n", 2),
        ("## Current figures\n\n| figure | value |\n|---|---|\n| a | 1 s |\n", 1),
    ]
    for text, expected in sourced:
        found = len(unsourced_rows(text, "A.md"))
        if found != expected:
            print(f"check_figures --self-test: {text!r}: {found} unsourced rows, expected {expected}", file=sys.stderr)
            failed += 1
    cases += sourced
    print(f"check_figures --self-test: {len(cases) - failed} of {len(cases)} cases as expected")
    return 1 if failed else 0


def main() -> int:
    readme = (ROOT / "README.md").read_text(encoding="utf-8")
    block = re.search(r"<!-- headline figures -->\n(.*?)<!-- /headline figures -->", readme, re.S)
    if block is None:
        sys.exit("README.md has no headline figures table")
    rows = [cells(line) for line in block.group(1).splitlines() if line.startswith("|")][2:]
    problems = []
    for figure, value, where in rows:
        link = re.search(r"\((docs/[^)#]+)", where)
        if link is None:
            problems.append(f"{figure}: no link to the document that states it")
            continue
        stated = current_figures(ROOT / link.group(1))
        if figure not in stated:
            problems.append(f"{figure}: not a row of {link.group(1)}'s current figures")
        elif value not in stated[figure]:
            problems.append(f"{figure}: the README says {value!r}, {link.group(1)} says {stated[figure]!r}")
    problems += prose_problems(readme)
    for doc in ("docs/BENCHMARKS.md", "docs/QUALITY.md"):
        problems += unsourced_rows((ROOT / doc).read_text(encoding="utf-8"), doc)
    for problem in problems:
        print(f"check_figures: {problem}", file=sys.stderr)
    if not problems:
        print(f"check_figures: the README's {len(rows)} headline figures equal the docs' current figures, and"
              " every figure of its prose is stated by a doc it links to; every current figure of BENCHMARKS.md"
              " and QUALITY.md names its commit and command")
    return 1 if problems or not rows else 0


if __name__ == "__main__":
    sys.exit(self_test() if sys.argv[1:] == ["--self-test"] else main())
