#!/usr/bin/env python3
"""How often Quire reads a document's language right, by the document's length: the paragraphs of Debian
Reference in each language of datasets/debian-reference-<lang> (the corpora scripts/fetch_real_folders.sh
lays out), each saved as a text file of its own, in three lengths, read by `quire check` as a user's folder
is; the check's "Languages:" line counts what each paragraph was read as. A paragraph the English manual has
word for word is left out of the other languages: the translations leave whole passages in English.

  python3 scripts/language_detection.py QUIRE [--per-length 150]

Prints a Markdown table (docs/QUALITY.md has it): for each language and length, the share read as the
language the manual is written in, and what the others were read as.
"""
import argparse
import html
import os
import random
import re
import subprocess
import sys
import tempfile

ROOT = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
LANGUAGES = {"en": "English", "de": "German", "fr": "French", "es": "Spanish", "it": "Italian",
             "ja": "Japanese", "zh-cn": "Chinese"}
# Characters of text: a line or a title, a short paragraph, a paragraph or more.
LENGTHS = [("under 80", 20, 80), ("80 to 300", 80, 300), ("300 and more", 300, 100_000)]


def paragraphs(lang):
    """Every paragraph's text in the language's pages, tags stripped, whitespace collapsed."""
    corpus = os.path.join(ROOT, "datasets", f"debian-reference-{lang}", "corpus")
    if not os.path.isdir(corpus):
        sys.exit(f"{corpus} is missing: bash scripts/fetch_real_folders.sh lays it out")
    found = []
    for name in sorted(os.listdir(corpus)):
        with open(os.path.join(corpus, name), encoding="utf-8") as page:
            text = page.read()
        for body in re.findall(r"<p\b[^>]*>(.*?)</p>", text, flags=re.S):
            plain = " ".join(html.unescape(re.sub(r"<[^>]+>", " ", body)).split())
            if plain:
                found.append(plain)
    return found


def read_as(quire, texts):
    """What `quire check` reads each of `texts` as, counted: {language name: count}."""
    with tempfile.TemporaryDirectory(prefix="quire-languages-") as folder:
        for i, text in enumerate(texts):
            with open(os.path.join(folder, f"p{i:04}.txt"), "w", encoding="utf-8") as out:
                out.write(text + "\n")
        run = subprocess.run([quire, "check", folder], capture_output=True, text=True)
    line = next((l for l in (run.stdout + run.stderr).splitlines() if "Languages: " in l), None)
    if line is None:
        return {"English": len(texts)}
    counts = {}
    for part in line.split("Languages: ", 1)[1].split(", "):
        name, count = part.rsplit(" ", 1)
        counts[name] = int(count)
    return counts


def main():
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("quire")
    parser.add_argument("--per-length", type=int, default=150, help="paragraphs of each length and language")
    arguments = parser.parse_args()
    print("| language | " + " | ".join(f"{name} chars" for name, _, _ in LENGTHS) + " | read as, when wrong |")
    print("|---|" + "---|" * len(LENGTHS) + "---|")
    english = set(paragraphs("en"))
    for lang, expected in LANGUAGES.items():
        found = [p for p in paragraphs(lang) if lang == "en" or p not in english]
        cells, wrong = [], {}
        for _, shortest, longest in LENGTHS:
            fitting = [p for p in found if shortest <= len(p) < longest]
            chosen = random.Random(7).sample(fitting, min(arguments.per_length, len(fitting)))
            counts = read_as(arguments.quire, chosen)
            right = counts.pop(expected, 0)
            cells.append(f"{right / len(chosen):.2f} of {len(chosen)}" if chosen else "—")
            for name, count in counts.items():
                wrong[name] = wrong.get(name, 0) + count
        others = ", ".join(f"{name} {count}" for name, count in sorted(wrong.items(), key=lambda kv: -kv[1]))
        print(f"| {expected} | " + " | ".join(cells) + f" | {others or '—'} |", flush=True)


if __name__ == "__main__":
    main()
