#!/usr/bin/env python3
"""Writes a built static site of one page per document of labelled sets (BEIR layout), for measuring the
search `quire site --built` adds at the size of a large documentation site (issue 59: 10,000 pages).
SciFact's 5,183 abstracts and HotpotQA dev 500's 4,943 paragraphs give 10,126 pages, as a static site
generator lays them out: a header, a nav to the neighbouring pages, the document under <main>.

Beside the site it writes the questions a visitor asks (one per line, the sets' questions taken in turn)
and, for each, the pages that answer it (JSON), so that a measurement can say whether an answer was right.

    python3 scripts/make_labelled_site.py /tmp/labelled-site datasets/scifact datasets/hotpotqa-dev500
"""
import argparse
import gzip
import html
import json
import re
import shutil
from pathlib import Path


def read_jsonl(path):
    opener = gzip.open if path.suffix == ".gz" else open
    with opener(path, "rt", encoding="utf-8") as lines:
        return [json.loads(line) for line in lines if line.strip()]


def dataset_file(folder, name):
    for candidate in (folder / f"{name}.jsonl.gz", folder / f"{name}.jsonl"):
        if candidate.is_file():
            return candidate
    raise SystemExit(f"{folder}: has no {name}.jsonl(.gz)")


def slug(identifier, taken):
    """A file name for a document id: letters, digits and dashes, unique within its set."""
    base = re.sub(r"[^A-Za-z0-9]+", "-", identifier).strip("-").lower()[:80] or "page"
    name, n = base, 1
    while name in taken:
        n += 1
        name = f"{base}-{n}"
    taken.add(name)
    return name


def page(site_title, title, text, previous, following):
    links = [f'<a rel="prev" href="{html.escape(p)}">Previous</a>' for p in [previous] if p]
    links += [f'<a rel="next" href="{html.escape(n)}">Next</a>' for n in [following] if n]
    paragraphs = "".join(f"<p>{html.escape(p)}</p>" for p in text.split("\n") if p.strip())
    return (
        '<!DOCTYPE html><html lang="en"><head><meta charset="utf-8">'
        f"<title>{html.escape(title)} - {html.escape(site_title)}</title>"
        '<meta name="viewport" content="width=device-width, initial-scale=1"></head><body>'
        f'<header><a href="../index.html">{html.escape(site_title)}</a></header>'
        f'<nav aria-label="pages">{" ".join(links)}</nav>'
        f"<main><h1>{html.escape(title)}</h1>{paragraphs}</main>"
        "<footer>Generated from a labelled retrieval set.</footer></body></html>\n"
    )


def write_set(folder, site, site_title):
    documents = read_jsonl(dataset_file(folder, "corpus"))
    section = folder.name
    (site / section).mkdir(parents=True)
    taken, pages = set(), {}
    for document in documents:
        pages[document["_id"]] = f"{section}/{slug(document['_id'], taken)}.html"
    paths = [pages[d["_id"]] for d in documents]
    for i, document in enumerate(documents):
        previous = Path(paths[i - 1]).name if i > 0 else None
        following = Path(paths[i + 1]).name if i + 1 < len(paths) else None
        title = document.get("title") or document["_id"]
        body = page(site_title, title, document.get("text", ""), previous, following)
        (site / paths[i]).write_text(body, encoding="utf-8")
    return pages


def questions_of(folder, pages):
    """The set's questions that have answers, in order, each with the pages that answer it."""
    qrels = sorted((folder / "qrels").glob("*.tsv"))
    answers = {}
    for line in (qrels[-1] if any(q.name == "test.tsv" for q in qrels) else qrels[0]).read_text().splitlines()[1:]:
        query, document, score = line.split("\t")
        if int(score) > 0 and document in pages:
            answers.setdefault(query, []).append(pages[document])
    return [(q["text"], answers[q["_id"]]) for q in read_jsonl(dataset_file(folder, "queries")) if q["_id"] in answers]


def main():
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("output", type=Path)
    parser.add_argument("datasets", type=Path, nargs="+")
    parser.add_argument("--title", default="Labelled sets")
    args = parser.parse_args()
    site = args.output / "site"
    if args.output.exists():
        shutil.rmtree(args.output)
    site.mkdir(parents=True)
    sets = [(folder, write_set(folder, site, args.title)) for folder in args.datasets]
    listing = "".join(f'<li><a href="{f.name}/{Path(next(iter(p.values()))).name}">{f.name}</a></li>' for f, p in sets)
    (site / "index.html").write_text(
        f'<!DOCTYPE html><html lang="en"><head><meta charset="utf-8"><title>{html.escape(args.title)}</title></head>'
        f"<body><main><h1>{html.escape(args.title)}</h1><ul>{listing}</ul></main></body></html>\n",
        encoding="utf-8",
    )
    asked = [questions_of(folder, pages) for folder, pages in sets]
    interleaved = [q for turn in zip(*asked) for q in turn]
    (args.output / "questions.txt").write_text("".join(f"{text}\n" for text, _ in interleaved), encoding="utf-8")
    labels = {text: answers for text, answers in interleaved}
    (args.output / "answers.json").write_text(json.dumps(labels, indent=1), encoding="utf-8")
    count = sum(len(pages) for _, pages in sets)
    print(f"wrote {site}: {count} pages; {len(interleaved)} questions in {args.output / 'questions.txt'}")


if __name__ == "__main__":
    main()
