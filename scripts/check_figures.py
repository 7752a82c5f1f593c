#!/usr/bin/env python3
"""Checks that every headline figure the README states equals the figure in the "Current figures" table of
the document it links to: a figure is said once, with one value, and the README never drifts from the docs.

The README's figures are the rows of the table between `<!-- headline figures -->` and
`<!-- /headline figures -->`: `| figure | value | [where](docs/FILE.md#current-figures) |`. The figure's
name must be the first cell of a row of FILE's "Current figures" table, and the README's value must be
found in that row's value cell (the docs may say more: the cores busy beside a time).
"""

import re
import sys
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent


def cells(line: str) -> list[str]:
    return [cell.strip() for cell in line.strip().strip("|").split("|")]


def current_figures(document: Path) -> dict[str, str]:
    """The first and second cells of each row of `document`'s "## Current figures" table."""
    text = document.read_text(encoding="utf-8")
    section = re.search(r"^## Current figures\n(.*?)(?=^## )", text, re.S | re.M)
    if section is None:
        sys.exit(f"{document.relative_to(ROOT)} has no '## Current figures' section")
    rows = [cells(line) for line in section.group(1).splitlines() if line.startswith("|")]
    return {row[0]: row[1] for row in rows[2:] if len(row) >= 2}


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
    for problem in problems:
        print(f"check_figures: {problem}", file=sys.stderr)
    if not problems:
        print(f"check_figures: the README's {len(rows)} headline figures equal the docs' current figures")
    return 1 if problems or not rows else 0


if __name__ == "__main__":
    sys.exit(main())
