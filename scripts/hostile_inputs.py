#!/usr/bin/env python3
"""Hostile inputs for Quire, made on the spot (no bomb is checked in), each run through the CLI with its
expected outcome: every format's bombs, amplifications, nesting and damage; files of many links, headings,
rows or columns; folders with links, pipes and hidden files; damaged snapshots; LLM streams that stall or
never end; a gzip bomb given to `quire eval`.

Every file and folder case runs through `quire check` and then `quire index`, the path users run: a good
file sits beside the bad one, and both runs must read the good one and name the bad one with its reason;
the index must be written. A case fails when the outcome differs, when a run is killed by a signal, or when
it passes the limits (`--seconds`, `--megabytes`: wall time and peak resident memory of the CLI and the
processes it waited for). An index run's seconds are judged without its embedding, which may take as long as
the file's distinct text needs, at the normal rate: no fewer word pieces a second than `--slowest-rate` of what
plain prose gets (the `markdown-prose` case, run first).

  python3 scripts/hostile_inputs.py QUIRE [--seconds 10] [--megabytes 1024] [--jobs 1] [--only NAME,...]
                                           [--embed-at-most TEXTS] [--list]
  python3 scripts/hostile_inputs.py QUIRE --write DIR NAME   # only make one case's files, to try by hand

Prints a Markdown table (docs/RELIABILITY.md has it, measured with the release build); exits 1 if any case
failed. The test command runs it with the debug build, limits that catch a hang, not a slow machine, and
`--embed-at-most`: a case whose `quire check` counts more texts to embed than that runs through check alone,
since the debug build embeds a few texts a second and the index run would measure only that.
"""
import argparse
import concurrent.futures
import gzip
import io
import json
import os
import random
import re
import shutil
import signal
import subprocess
import sys
import tempfile
import threading
import time
import zipfile
import zlib

ROOT = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
GOOD = "# Lighthouses\n\nA lighthouse keeper trims the wick every evening and logs passing ships.\n"
PROSE_SENTENCE = ("The package manager installs programs from the archives, resolves their dependencies and keeps "
                  "the system up to date without the user having to step in. ")
CASES = []


def case(name, what):
    def register(make):
        CASES.append((name, what, make))
        return make
    return register


# ---------------------------------------------------------------------------------------------- formats

def pdf(objects, root=1, info=None):
    """A PDF with `objects` (1-based, bytes bodies) and a correct cross-reference table."""
    out = io.BytesIO()
    out.write(b"%PDF-1.7\n")
    offsets = []
    for number, body in enumerate(objects, 1):
        offsets.append(out.tell())
        out.write(b"%d 0 obj\n" % number + body + b"\nendobj\n")
    xref = out.tell()
    out.write(b"xref\n0 %d\n0000000000 65535 f \n" % (len(objects) + 1))
    for offset in offsets:
        out.write(b"%010d 00000 n \n" % offset)
    trailer = b"trailer\n<< /Size %d /Root %d 0 R" % (len(objects) + 1, root)
    if info:
        trailer += b" /Info %d 0 R" % info
    out.write(trailer + b" >>\nstartxref\n%d\n%%%%EOF\n" % xref)
    return out.getvalue()


def stream(content, compressed=None):
    data = compressed if compressed is not None else content
    filter_ = b" /Filter /FlateDecode" if compressed is not None else b""
    return b"<< /Length %d%s >>\nstream\n" % (len(data), filter_) + data + b"\nendstream"


def pdf_pages(content, extra_catalog=b"", extra=()):
    """Catalog, pages, one page with `content` (a stream body), a font, and `extra` objects from 6 on."""
    return [
        b"<< /Type /Catalog /Pages 2 0 R" + extra_catalog + b" >>",
        b"<< /Type /Pages /Kids [3 0 R] /Count 1 >>",
        b"<< /Type /Page /Parent 2 0 R /MediaBox [0 0 612 792] /Contents 4 0 R "
        b"/Resources << /Font << /F1 5 0 R >> >> >>",
        content,
        b"<< /Type /Font /Subtype /Type1 /BaseFont /Helvetica >>",
        *extra,
    ]


TEXT_PAGE = b"BT /F1 12 Tf 72 700 Td (Tide tables for the northern harbour) Tj ET"


def deflate_zeros(gibibytes_16):
    """`gibibytes_16` × 16 MiB of zeros, deflated (zlib framing) in one stream."""
    compressor = zlib.compressobj(9)
    zeros = bytes(1 << 24)
    return b"".join(compressor.compress(zeros) for _ in range(gibibytes_16)) + compressor.flush()


def zipped(parts, compress=zipfile.ZIP_DEFLATED):
    out = io.BytesIO()
    with zipfile.ZipFile(out, "w", compress) as archive:
        for name, data in parts.items():
            archive.writestr(name, data)
    return out.getvalue()


W = 'xmlns:w="http://schemas.openxmlformats.org/wordprocessingml/2006/main"'
R_NS = 'xmlns:r="http://schemas.openxmlformats.org/officeDocument/2006/relationships"'


def docx(body, rels=None):
    parts = {
        "[Content_Types].xml": '<?xml version="1.0"?><Types xmlns="http://schemas.openxmlformats.org/package/2006/'
                               'content-types"/>',
        "word/document.xml": f'<?xml version="1.0"?><w:document {W} {R_NS}><w:body>{body}</w:body></w:document>',
    }
    if rels:
        parts["word/_rels/document.xml.rels"] = rels
    return zipped(parts)


def odt(body):
    ns = ('xmlns:office="urn:oasis:names:tc:opendocument:xmlns:office:1.0" '
          'xmlns:text="urn:oasis:names:tc:opendocument:xmlns:text:1.0"')
    return zipped({
        "mimetype": "application/vnd.oasis.opendocument.text",
        "content.xml": f'<?xml version="1.0"?><office:document-content {ns}><office:body><office:text>{body}'
                       '</office:text></office:body></office:document-content>',
    })


def epub(chapters, spine=None):
    manifest = "".join(f'<item id="c{i}" href="c{i}.xhtml" media-type="application/xhtml+xml"/>'
                       for i in range(len(chapters)))
    spine = spine if spine is not None else [f"c{i}" for i in range(len(chapters))]
    itemrefs = "".join(f'<itemref idref="{idref}"/>' for idref in spine)
    parts = {
        "mimetype": "application/epub+zip",
        "META-INF/container.xml": '<?xml version="1.0"?><container version="1.0" xmlns="urn:oasis:names:tc:'
                                  'opendocument:xmlns:container"><rootfiles><rootfile full-path="book.opf" '
                                  'media-type="application/oebps-package+xml"/></rootfiles></container>',
        "book.opf": '<?xml version="1.0"?><package xmlns="http://www.idpf.org/2007/opf" version="3.0"><metadata '
                    'xmlns:dc="http://purl.org/dc/elements/1.1/"><dc:title>Harbour</dc:title></metadata>'
                    f'<manifest>{manifest}</manifest><spine>{itemrefs}</spine></package>',
    }
    for i, chapter in enumerate(chapters):
        parts[f"c{i}.xhtml"] = ('<?xml version="1.0"?><html xmlns="http://www.w3.org/1999/xhtml"><head><title>'
                                f'Chapter {i}</title></head><body>{chapter}</body></html>')
    return zipped(parts)


def words(count, seed=7):
    vocabulary = ("harbour tide keeper lamp ship rope anchor chart signal beacon storm coast pier wave "
                  "north south light fog bell mast").split()
    rng = random.Random(seed)
    return " ".join(rng.choice(vocabulary) for _ in range(count))


def wide_header(columns, cell=1000):
    return [("c%d-" % i) + "h" * cell for i in range(columns)]


BILLION_LAUGHS = ('<!DOCTYPE d [<!ENTITY a "aaaaaaaaaa"><!ENTITY b "&a;&a;&a;&a;&a;&a;&a;&a;&a;&a;">'
                  '<!ENTITY c "&b;&b;&b;&b;&b;&b;&b;&b;&b;&b;"><!ENTITY d "&c;&c;&c;&c;&c;&c;&c;&c;&c;&c;">'
                  '<!ENTITY e "&d;&d;&d;&d;&d;&d;&d;&d;&d;&d;"><!ENTITY f "&e;&e;&e;&e;&e;&e;&e;&e;&e;&e;">'
                  '<!ENTITY g "&f;&f;&f;&f;&f;&f;&f;&f;&f;&f;"><!ENTITY h "&g;&g;&g;&g;&g;&g;&g;&g;&g;&g;">]>')


# Each case makes files in `folder` and returns (arguments after the binary, expectation). An expectation is
# a dict: `exit` (the status), `out` (substrings of stdout+stderr, each required), `none` (substrings that
# must not appear).

def checked(folder, bad_name, reason, parsed=1, **extra):
    """`quire check`, then `quire index`, on the folder: the good file read (and the bad one too when `parsed`
    is 2), the bad one named with `reason` when one is given, and the index written."""
    out = [f"parsed {parsed} documents"] + ([f"{bad_name}: {reason}"] if reason is not None else [])
    return ["check", folder], {"exit": 0, "out": out + extra.pop("out", []),
                               "none": ["panicked", "overflowed"] + extra.pop("none", []), "index": folder}


def put(folder, name, data):
    path = os.path.join(folder, name)
    os.makedirs(os.path.dirname(path), exist_ok=True)
    with open(path, "wb") as out:
        out.write(data if isinstance(data, bytes) else data.encode())
    return path


def with_good(make):
    """A folder case: the good file, then the case's own files."""
    def wrapped(folder):
        put(folder, "good.md", GOOD)
        return make(folder)
    return wrapped


def file_case(name, what, file_name, content, reason=None, parsed=None):
    """A case of one file beside the good one: `content()` its bytes or text, `reason` the refusal expected
    (the file is read, as a second document, when there is none)."""
    @case(name, what)
    @with_good
    def _(folder):
        put(folder, file_name, content())
        return checked(folder, file_name, reason, parsed=parsed or (1 if reason is not None else 2))


@case("pdf-outline-loop", "an 800-byte PDF whose outline entries point at themselves")
@with_good
def _(folder):
    outline = [b"<< /Type /Outlines /First 7 0 R /Last 7 0 R /Count 1 >>",
               b"<< /Title (Tides) /Parent 6 0 R /First 7 0 R /Last 7 0 R /Next 7 0 R /Prev 7 0 R "
               b"/Dest [3 0 R /Fit] >>"]
    put(folder, "loop.pdf", pdf(pdf_pages(stream(TEXT_PAGE), b" /Outlines 6 0 R", outline)))
    return checked(folder, "loop.pdf", None, parsed=2)


file_case("pdf-deflate-bomb", "a 1 MB PDF whose page content inflates to 1 GiB", "bomb.pdf",
          lambda: pdf(pdf_pages(stream(None, deflate_zeros(64)))), "a compressed stream inflates past")


@case("pdf-operators", "a 4 MB PDF page of 200,000 text operators")
@with_good
def _(folder):
    content = b"\n".join(b"BT /F1 9 Tf %d %d Td (w%d) Tj ET" % (i % 500, i % 700, i) for i in range(200_000))
    put(folder, "operators.pdf", pdf(pdf_pages(stream(None, zlib.compress(content)))))
    return checked(folder, "operators.pdf", None, parsed=2)


@case("pdf-truncated", "the first half of a valid PDF")
@with_good
def _(folder):
    whole = pdf(pdf_pages(stream(TEXT_PAGE)))
    put(folder, "half.pdf", whole[: len(whole) // 2])
    return checked(folder, "half.pdf", "unreadable PDF")


@case("pdf-broken-xref", "a PDF whose cross-reference offsets are all wrong")
@with_good
def _(folder):
    whole = pdf(pdf_pages(stream(TEXT_PAGE)))
    put(folder, "xref.pdf", whole.replace(b" 00000 n", b" 00000 n").replace(b"0000000009", b"0000000999"))
    return checked(folder, "xref.pdf", "")


def table_case(name, make_file, what):
    @case(name, what)
    @with_good
    def _(folder):
        file_name = make_file(folder)
        return checked(folder, file_name, None, parsed=2)


HEADER = wide_header(3000)  # 3 MB of header labels
table_case("csv-header-amplification",
           lambda f: put(f, "wide.csv", ",".join(HEADER) + "\n" + ("1," * 2999 + "1\n") * 2000) and "wide.csv",
           "a CSV whose 3 MB header row heads 2,000 rows")
table_case("markdown-header-amplification",
           lambda f: put(f, "wide.md", "|" + "|".join(HEADER) + "|\n|" + "-|" * 3000 + "\n"
                         + ("|" + "1|" * 3000 + "\n") * 300) and "wide.md",
           "a Markdown table whose 3 MB header row heads 300 rows")


file_case("markdown-many-cells", "a Markdown table of 3,000 columns by 2,000 rows (six million cells)", "cells.md",
          lambda: "|" + "h|" * 3000 + "\n|" + "-|" * 3000 + "\n" + ("|" + "1|" * 3000 + "\n") * 2000,
          "reading it needed more than 960 MiB of memory")
table_case("html-header-amplification",
           lambda f: put(f, "wide.html", "<table><tr>" + "".join(f"<th>{h}</th>" for h in HEADER) + "</tr>"
                         + ("<tr>" + "<td>1</td>" * 3000 + "</tr>") * 300 + "</table>") and "wide.html",
           "an HTML table whose 3 MB header row heads 300 rows")


file_case("html-many-elements", "an HTML table of 3,000 columns by 2,000 rows (six million elements, 20 MB)",
          "cells.html", lambda: "<table>" + ("<tr>" + "<td>1</td>" * 3000 + "</tr>") * 2000 + "</table>",
          "it has more than 1000000 elements")
table_case("docx-header-amplification",
           lambda f: put(f, "wide.docx", docx(
               "<w:tbl><w:tr>" + "".join(f"<w:tc><w:p><w:r><w:t>{h}</w:t></w:r></w:p></w:tc>" for h in HEADER)
               + "</w:tr>" + ("<w:tr>" + "<w:tc><w:p><w:r><w:t>1</w:t></w:r></w:p></w:tc>" * 3000 + "</w:tr>")
               * 300 + "</w:tbl>")) and "wide.docx",
           "a DOCX table whose 3 MB header row heads 300 rows (more would pass the 64 MiB part limit)")
table_case("csv-million-columns",
           lambda f: put(f, "columns.csv", ",".join("h%d" % i for i in range(1_000_000)) + "\n"
                         + ",".join("v%d" % i for i in range(1_000_000)) + "\n") and "columns.csv",
           "a CSV with 1,000,000 columns")
table_case("tsv-million-columns",
           lambda f: put(f, "columns.tsv", "\t".join("h%d" % i for i in range(1_000_000)) + "\n"
                         + "\t".join("v%d" % i for i in range(1_000_000)) + "\n") and "columns.tsv",
           "a TSV with 1,000,000 columns")


@case("csv-identical-rows", "a CSV whose 30,000 rows are the same")
@with_good
def _(folder):
    put(folder, "same.csv", "station,reading\n" + "north pier,calm\n" * 30_000)
    return checked(folder, "same.csv", None, parsed=2)


@case("markdown-yaml-aliases", "Markdown front matter whose YAML aliases expand exponentially (370 bytes)")
@with_good
def _(folder):
    lines = ['a: &a ["x","x","x","x","x","x","x","x","x"]']
    lines += [f'{chr(98 + i)}: &{chr(98 + i)} [{",".join(["*" + chr(97 + i)] * 9)}]' for i in range(8)]
    put(folder, "aliases.md", "---\n" + "\n".join(lines) + "\n---\n\n# Tides\n\nText.\n")
    return checked(folder, "aliases.md", "front matter ignored", parsed=2)


file_case("markdown-long-title", "a 1 MB heading over 300 paragraphs", "title.md",
          lambda: "# " + words(170_000) + "\n\n" + "\n\n".join(words(40, i) for i in range(300)))


file_case("markdown-deep-quotes", "1,000,000 nested block quotes", "quotes.md",
          lambda: ">" * 1_000_000 + " deep\n")


file_case("markdown-deep-lists", "5,000 nested list items (25 MB of indentation)", "lists.md",
          lambda: "".join("  " * i + "- item\n" for i in range(5_000)))


file_case("markdown-link-amplification", "a 1 MB link target used by 100,000 reference links", "links.md",
          lambda: "[t]: https://example.org/" + "x" * 1_000_000 + "\n\n" + "[a][t] " * 100_000)


file_case("html-deep-divs", "1,000,000 nested divs (5 MB)", "divs.html",
          lambda: "<div>" * 1_000_000 + "deep" + "</div>" * 1_000_000, "it nests block elements so deep")


file_case("html-invalid-utf8", "an HTML page with invalid UTF-8 and a NUL", "bytes.html",
          lambda: b"<h1>Tides \xff\xfe</h1><p>ship\x00s \xc3\x28 pass</p>", "binary content")


@case("docx-link-amplification", "a 3 KB DOCX: a 1 MB hyperlink target used by 100,000 links")
@with_good
def _(folder):
    rels = ('<?xml version="1.0"?><Relationships xmlns="http://schemas.openxmlformats.org/package/2006/'
            f'relationships"><Relationship Id="r1" Target="https://example.org/{"x" * 1_000_000}"/></Relationships>')
    body = "<w:p>" + '<w:hyperlink r:id="r1"><w:r><w:t>a</w:t></w:r></w:hyperlink>' * 100_000 + "</w:p>"
    put(folder, "links.docx", docx(body, rels))
    return checked(folder, "links.docx", None, parsed=2)


@case("docx-nested-cells", "a DOCX table nested 200 deep, each cell with text (quadratic re-reading)")
@with_good
def _(folder):
    inner = "<w:p><w:r><w:t>" + words(2000) + "</w:t></w:r></w:p>"
    for _ in range(200):
        inner = f"<w:tbl><w:tr><w:tc>{inner}<w:p><w:r><w:t>cell</w:t></w:r></w:p></w:tc></w:tr></w:tbl>"
    put(folder, "nested.docx", docx(inner * 20))
    return checked(folder, "nested.docx", None, parsed=2)


@case("docx-zip-bomb", "a DOCX whose document part inflates to 1 GiB")
@with_good
def _(folder):
    out = io.BytesIO()
    with zipfile.ZipFile(out, "w", zipfile.ZIP_DEFLATED) as archive:
        archive.writestr("[Content_Types].xml", "<Types/>")
        with archive.open("word/document.xml", "w", force_zip64=True) as part:
            zeros = b" " * (1 << 24)
            for _ in range(64):
                part.write(zeros)
    put(folder, "bomb.docx", out.getvalue())
    return checked(folder, "bomb.docx", "DOCX part word/document.xml inflates")


@case("docx-billion-laughs", "a DOCX whose XML declares exponentially expanding entities")
@with_good
def _(folder):
    xml = f'<?xml version="1.0"?>{BILLION_LAUGHS}<w:document {W}><w:body><w:p><w:r><w:t>&h;</w:t></w:r></w:p>' \
          '</w:body></w:document>'
    put(folder, "laughs.docx", zipped({"word/document.xml": xml}))
    return checked(folder, "laughs.docx", "word/document.xml is not well-formed XML")


@case("docx-truncated", "the first half of a DOCX")
@with_good
def _(folder):
    whole = docx("<w:p><w:r><w:t>" + words(5000) + "</w:t></w:r></w:p>")
    put(folder, "half.docx", whole[: len(whole) // 2])
    return checked(folder, "half.docx", "not a valid DOCX file")


@case("odt-deep-nesting", "an ODT with 1,000,000 nested spans")
@with_good
def _(folder):
    put(folder, "deep.odt", odt("<text:p>" + "<text:span>" * 1_000_000 + "x" + "</text:span>" * 1_000_000
                                + "</text:p>"))
    return checked(folder, "deep.odt", "")


@case("epub-repeated-spine", "an EPUB whose spine lists one 200 KB chapter 10,000 times")
@with_good
def _(folder):
    chapter = "<h1>Tides</h1>" + "".join(f"<p>{words(30, i)}</p>" for i in range(1000))
    put(folder, "spine.epub", epub([chapter], spine=["c0"] * 10_000))
    return checked(folder, "spine.epub", None, parsed=2)


file_case("epub-deep-divs", "an EPUB chapter of 100,000 nested divs", "deep.epub",
          lambda: epub(["<div>" * 100_000 + "x" + "</div>" * 100_000]),
          "chapter c0.xhtml: it nests block elements so deep")


file_case("text-60mb-paragraph", "a 60 MB text file of one paragraph without a sentence break", "long.txt",
          lambda: words(10_000_000), "its text passes 32 MiB: only the first 32 MiB are indexed", parsed=2)


file_case("text-binary", "a PNG named like a text file", "image.txt",
          lambda: b"\x89PNG\r\n\x1a\n" + bytes(range(256)) * 8, "binary content")


@case("text-oversized", "a 65 MiB file (sparse): refused before it is read")
@with_good
def _(folder):
    with open(os.path.join(folder, "huge.txt"), "wb") as out:
        out.truncate(65 << 20)
    return checked(folder, "huge.txt", "the file is 68157440 bytes, above the limit")


file_case("empty-file", "an empty Markdown file", "empty.md",
          lambda: b"", "the file is empty")


file_case("jsonl-deep-nesting", "a JSONL line of 1,000,000 nested arrays, and a good record", "records.jsonl",
          lambda: "[" * 1_000_000 + "\n" + json.dumps({"_id": "1", "text": words(50)}) + "\n")


# ------------------------------------------------------------------------- many links, headings, rows

def prose(sections):
    """Markdown prose as people write it: sections of ten paragraphs of 15 to 90 words."""
    rng = random.Random(11)
    return "# Harbour notes\n\n" + "".join(
        f"## Part {part}\n\n" + "\n\n".join(words(rng.randint(15, 90), part * 10 + i) + "." for i in range(10))
        + "\n\n" for part in range(sections))


file_case("markdown-prose", "900 KB of plain prose, for scale: 300 sections of ten paragraphs of 15 to 90 words; its "
          "embedding rate is the one every case is judged by", "prose.md", lambda: prose(300))
file_case("html-many-links", "an HTML page of 50,000 paragraphs each linking two pages (3.6 MB)", "links.html",
          lambda: "<html><head><title>Links</title></head><body>" + "".join(
              f'<p>Paragraph {i} links <a href="page{i % 97}.html">one page</a> and '
              f'<a href="other{i % 89}.html">another</a>.</p>' for i in range(50_000)) + "</body></html>")
file_case("csv-one-word-rows", "a CSV of 1,000,000 one-word rows, 5,000 of them distinct (7 MB)", "rows.csv",
          lambda: "word\n" + "".join(f"w{i % 5000}\n" for i in range(1_000_000)))
file_case("markdown-many-headings", "Markdown of 100,000 headings each over one line (2.4 MB)", "headings.md",
          lambda: "".join(f"# Heading {i}\n\nline {i}\n\n" for i in range(100_000)))
file_case("csv-million-ones", "a CSV of two rows of 1,000,000 columns of `1` (4 MB)", "ones.csv",
          lambda: (",".join(["1"] * 1_000_000) + "\n") * 2)
file_case("text-one-word", "one 10 MB word", "word.txt", lambda: "a" * 10_000_000)
file_case("text-one-cjk-run", "one 4 MB run of Japanese without a space or a stop (a repeated phrase)", "run.txt",
          lambda: "漢字かな交じり文" * 170_000)
file_case("text-mixed-scripts", "words that mix Latin, Cyrillic, Arabic, Hebrew, Han, Hangul, Thai, emoji, combining "
          "marks and joiners, 1 MB", "mixed.txt",
          lambda: "\n\n".join(" ".join(["pa\u0301ckage", "пакет", "حزمة", "חבילה", "套件包", "패키지", "แพ็กเกจ",
                                          "👩\u200d💻", "Ǆ\u0308x", "a\u200bb", f"w{i % 40}"] * 8) for i in range(1_400)))


@case("html-mislabelled-language", "an HTML page that says `lang=\"en\"` over German text, and one that says `ja` "
      "over English")
@with_good
def _(folder):
    german = ("Die Paketverwaltung installiert Programme aus den Archiven, löst ihre Abhängigkeiten auf und hält "
              "das System auf dem neuesten Stand, ohne dass der Benutzer eingreifen muss. ") * 20
    put(folder, "deutsch.html", f'<html lang="en"><body><h1>Pakete</h1><p>{german}</p></body></html>')
    put(folder, "english.html", f'<html lang="ja"><body><h1>Packages</h1><p>{PROSE_SENTENCE * 20}</p></body></html>')
    return checked(folder, "deutsch.html", None, parsed=3,
                   out=["Languages: English 2, German 1", "deutsch.html (German)"], none=["english.html (English)"])


file_case("markdown-table-of-x", "a Markdown table of 2,000 columns by 1,500 rows of `x` (6 MB)", "table.md",
          lambda: "|" + "x|" * 2000 + "\n|" + "-|" * 2000 + "\n" + ("|" + "x|" * 2000 + "\n") * 1500)
file_case("markdown-backticks", "4.5 MB of backtick runs of 1 to 3,000", "ticks.md",
          lambda: "".join("`" * random.Random(1).randint(1, 3000) + " a " for _ in range(3000))[:4_500_000])


# ---------------------------------------------------------------------------------------------- folders

@case("folder-links-and-pipes", "a folder with a link to /dev/zero, a FIFO, links to itself and out of it")
def _(folder):
    docs = os.path.join(folder, "docs")
    put(docs, "good.md", GOOD)
    os.symlink("/dev/zero", os.path.join(docs, "zero.txt"))
    os.mkfifo(os.path.join(docs, "pipe.md"))
    os.symlink(".", os.path.join(docs, "again"))
    os.symlink("..", os.path.join(docs, "up"))
    put(folder, "outside/secret.md", "# Secret\n\nNot in the folder.\n")
    os.symlink(os.path.join(folder, "outside", "secret.md"), os.path.join(docs, "secret.md"))
    put(docs, ".hidden.md", "# Hidden\n\nNot read.\n")
    return ["check", docs], {"exit": 0, "out": ["parsed 1 documents", "zero.txt: a link out of the folder",
                                                "pipe.md: not a regular file", "a link back to",
                                                "secret.md: a link out of the folder"],
                             "none": ["Hidden", "panicked"], "index": docs}


# ---------------------------------------------------------------------------------------------- snapshots

def snapshot_case(name, what, damage, reason):
    @case(name, what)
    def _(folder, quire):
        good = put(folder, "good.md", GOOD)
        target = os.path.join(folder, "index.quire")
        subprocess.run([quire, "index", good, "-o", target], check=True, capture_output=True)
        with open(target, "rb") as f:
            data = f.read()
        with open(target, "wb") as f:
            f.write(damage(data))
        return ["stats", target], {"exit": 1, "out": ["error:", reason], "none": ["panicked"]}
    _.needs_binary = True


snapshot_case("snapshot-truncated", "a snapshot cut in half", lambda d: d[: len(d) // 2], "index.quire")
snapshot_case("snapshot-trailing", "a snapshot with bytes after its end", lambda d: d + b"more", "index.quire")
snapshot_case("snapshot-version", "a snapshot from an unknown format version",
              lambda d: d[:8] + bytes([99]) + d[9:], "index.quire")
snapshot_case("snapshot-garbage", "random bytes named .quire",
              lambda d: random.Random(3).randbytes(len(d)), "index.quire")


# ---------------------------------------------------------------------------------------------- eval, LLM

@case("eval-gzip-bomb", "`quire eval` on a folder whose 7 MB queries.jsonl.gz inflates to 1.1 GiB of questions")
def _(folder):
    put(folder, "corpus/good.md", GOOD)
    put(folder, "qrels/test.tsv", "query-id\tcorpus-id\tscore\nq1\tgood.md\t1\n")
    compressor = zlib.compressobj(1, zlib.DEFLATED, 31)
    line = b'{"_id": "q1", "text": "what does the keeper do"}\n'
    block = line * ((1 << 20) // len(line))
    put(folder, "queries.jsonl.gz", b"".join(compressor.compress(block) for _ in range(1100)) + compressor.flush())
    return ["eval", folder], {"exit": 1, "out": ["queries.jsonl.gz: inflates past 256 MiB"], "none": ["panicked"]}


def llm_case(name, what, mode, reason):
    @case(name, what)
    def _(folder, quire, server):
        good = put(folder, "good.md", GOOD)
        target = os.path.join(folder, "index.quire")
        subprocess.run([quire, "index", good, "-o", target], check=True, capture_output=True)
        return ["ask", target, "what does a keeper do?", "--endpoint", f"{server}/{mode}/v1", "--model", "quire-test",
                "--timeout", "2"], {"exit": 1, "out": [reason], "none": ["panicked"]}
    _.needs_binary = True
    _.needs_server = True


llm_case("llm-stall", "an LLM endpoint that stops sending after two words", "stall", "stopped sending its answer")
llm_case("llm-endless", "an LLM endpoint whose answer never ends", "endless", "cut off at 100000 characters")


# ---------------------------------------------------------------------------------------------- sites

def site_case(name, what, flag, file_name, content, reason):
    """`quire site` given a hostile lesson or questions file: refused with `reason`, and no site written."""
    @case(name, what)
    def _(folder, quire):
        good = put(folder, "good.md", GOOD)
        index = os.path.join(folder, "index.quire")
        subprocess.run([quire, "index", good, "-o", index], check=True, capture_output=True)
        put(folder, "app/index.html", "<!doctype html><title>Quire</title>")
        put(folder, "app/corpora.json", '{"corpora": [{"key": "demo", "title": "Demo", "snapshot": "demo.quire"}]}')
        given = put(folder, file_name, content())
        return ["site", "--snapshot", index, "-o", os.path.join(folder, "site"), "--app", os.path.join(folder, "app"),
                flag, given], {"exit": 1, "out": [f"{file_name}: {reason}"], "none": ["panicked", "wrote"]}
    _.needs_binary = True


def laughs():
    lines = ['a: &a ["x","x","x","x","x","x","x","x","x"]']
    lines += [f'{chr(98 + i)}: &{chr(98 + i)} [{",".join(["*" + chr(97 + i)] * 9)}]' for i in range(8)]
    return "title: Tides\nsteps:\n  - question: When is high tide?\n    compare: [bm25]\n" + "\n".join(lines) + "\n"


site_case("lesson-yaml-aliases", "a lesson whose YAML aliases expand exponentially (420 bytes)", "--lesson",
          "lesson.yaml", laughs, "not a lesson in YAML: it repeats values by YAML aliases")
site_case("lesson-deep-nesting", "a lesson nested 200,000 lists deep", "--lesson", "lesson.yaml",
          lambda: "title: Tides\nsteps: " + "[" * 200_000 + "]" * 200_000 + "\n", "not a lesson in YAML")
site_case("questions-binary", "sample questions that are 64 KiB of random bytes", "--questions", "questions.txt",
          lambda: random.Random(5).randbytes(65_536), "stream did not contain valid UTF-8")


# ---------------------------------------------------------------------------------------------- running

def run_cli(quire, arguments, folder, hang):
    """Runs the CLI; (exit status, output, seconds, peak resident MB)."""
    started = time.monotonic()
    process = subprocess.Popen([quire, *arguments], stdout=subprocess.PIPE, stderr=subprocess.STDOUT,
                               cwd=folder, start_new_session=True)
    output = []
    reader = threading.Thread(target=lambda: output.append(process.stdout.read()))
    reader.start()
    timer = threading.Timer(hang, lambda: os.killpg(process.pid, signal.SIGKILL))
    timer.start()
    # wait4, not Popen.wait: its usage is this run's alone, with the children it waited for (the parse
    # worker) included.
    _, status, usage = os.wait4(process.pid, 0)
    timer.cancel()
    reader.join()
    seconds = time.monotonic() - started
    text = (output[0] if output else b"").decode(errors="replace")
    return os.waitstatus_to_exitcode(status), text, seconds, usage.ru_maxrss / 1024


STAGES = re.compile(r"structured in ([\d.]+)s\n.*\nindexed in ([\d.]+)s")
TO_EMBED = re.compile(r"indexing would embed (\d+) texts")
EMBEDDED = re.compile(r"embedded (\d+) new texts \((\d+) word pieces\), reused \d+ in ([\d.]+)s")


def run_case(quire, name, make, limits, server):
    """The case's run, then its index run where it has one: (check, index), each a dict of seconds, peak,
    problems and output; an index run also has the texts it embedded and the seconds that took."""
    folder = tempfile.mkdtemp(prefix=f"quire-hostile-{name}-")
    snapshot = folder + ".quire"
    try:
        # Made by another process: building a case takes memory, and a child started from a large process
        # would report the parent's peak as its own.
        made = subprocess.run([sys.executable, os.path.abspath(__file__), quire, "--write", folder, name,
                               "--server", server], check=True, capture_output=True, text=True)
        arguments, expect = json.loads(made.stdout)
        code, text, seconds, peak = run_cli(quire, arguments, folder, limits.hang)
        check = {"seconds": seconds, "peak": peak, "text": text,
                 "problems": judge(code, text, expect, seconds, peak, limits)}
        to_embed = TO_EMBED.search(text)
        check["to_embed"] = int(to_embed[1]) if to_embed else 0
        if "index" not in expect or check["to_embed"] > limits.embed_at_most:
            return check, None
        code, text, seconds, peak = run_cli(quire, ["index", expect["index"], "-o", snapshot], folder, limits.hang)
        embedded = EMBEDDED.search(text)
        texts, pieces, embedding = (int(embedded[1]), int(embedded[2]), float(embedded[3])) if embedded else (0, 0, 0.0)
        stages = STAGES.search(text)
        index_expect = {"exit": 0, "out": expect["out"] + ["wrote"], "none": expect["none"]}
        problems = judge(code, text, index_expect, seconds - embedding, peak, limits)
        return check, {"seconds": seconds, "peak": peak, "text": text, "problems": problems,
                       "texts": texts, "pieces": pieces, "embedding": embedding,
                       "stages": (float(stages[1]), float(stages[2])) if stages else None}
    finally:
        shutil.rmtree(folder, ignore_errors=True)
        if os.path.exists(snapshot):
            os.remove(snapshot)


def judge(code, text, expect, seconds, peak, limits):
    problems = []
    if code is None or code < 0:
        problems.append(f"killed by signal {-code if code else '?'}")
    elif code != expect["exit"]:
        problems.append(f"exit {code}, expected {expect['exit']}")
    problems += [f"missing `{s}`" for s in expect.get("out", []) if s not in text]
    problems += [f"unexpected `{s}`" for s in expect.get("none", []) if s in text]
    if seconds > limits.seconds:
        problems.append(f"{seconds:.1f} s > {limits.seconds} s")
    if peak > limits.megabytes:
        problems.append(f"{peak:.0f} MB > {limits.megabytes} MB")
    return problems


# Fewer texts than this are embedded in seconds, most of them loading the model: no rate to judge.
MIN_TEXTS_FOR_RATE = 500


def embedding_rate(index):
    """Word pieces embedded a second (texts of any length compare), where enough texts were embedded to tell."""
    return index["pieces"] / index["embedding"] if index and index["texts"] >= MIN_TEXTS_FOR_RATE else None


def report_case(name, what, check, index, prose_rate, slowest_rate):
    """Prints a case's row (and a failure's output); returns 1 if it failed."""
    problems = list(check["problems"])
    cells = [f"{check['seconds']:.1f}", f"{check['peak']:.0f}", "", "", "", ""]
    if not index and check.get("to_embed", 0) > 0:
        cells[5] = f"check alone: {check['to_embed']:,} to embed"
    if index:
        problems += ["index: " + problem for problem in index["problems"]]
        rate = embedding_rate(index)
        if rate and prose_rate and rate < slowest_rate * prose_rate:
            problems.append(f"index: embedded {rate:.0f} word pieces/s, under {slowest_rate:.0%} of prose's "
                            f"{prose_rate:.0f}")
        embedded = f"{index['texts']:,} in {index['embedding']:.1f} s" if index["texts"] else "0"
        if rate:
            embedded += f" ({rate:,.0f} word pieces/s)"
        stages = "{:.1f} / {:.1f}".format(*index["stages"]) if index["stages"] else ""
        cells[2:] = [f"{index['seconds']:.1f}", f"{index['peak']:.0f}", stages, embedded]
    verdict = "as expected" if not problems else "**" + "; ".join(problems) + "**"
    print(f"| {name} | {what} | {' | '.join(cells)} | {verdict} |", flush=True)
    if problems:
        print(check["text"][-3000:] + (index["text"][-3000:] if index else ""), file=sys.stderr)
    return 1 if problems else 0


def main():
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("quire")
    parser.add_argument("--seconds", type=float, default=10)
    parser.add_argument("--megabytes", type=float, default=1024)
    parser.add_argument("--hang", type=float, default=None, help="kill a case after this long (default: 3 × --seconds)")
    parser.add_argument("--only", default="")
    parser.add_argument("--embed-at-most", type=int, default=None,
                        help="run a case through `quire check` alone when it counts more texts to embed than this")
    parser.add_argument("--slowest-rate", type=float, default=0.8,
                        help="the slowest embedding allowed, as a share of prose's texts a second")
    parser.add_argument("--jobs", type=int, default=1,
                        help="cases run at once (default 1, so that each case's seconds are its own)")
    parser.add_argument("--list", action="store_true")
    parser.add_argument("--write", nargs=2, metavar=("DIR", "NAME"))
    parser.add_argument("--server", default="", help=argparse.SUPPRESS)
    limits = parser.parse_args()
    limits.hang = limits.hang or 3 * limits.seconds
    limits.embed_at_most = float("inf") if limits.embed_at_most is None else limits.embed_at_most
    quire = os.path.abspath(limits.quire)
    if limits.list:
        for name, what, _ in CASES:
            print(f"{name}: {what}")
        return 0
    if limits.write:
        folder, wanted = limits.write
        os.makedirs(folder, exist_ok=True)
        make = next(make for name, _, make in CASES if name == wanted)
        extra = ([quire] if getattr(make, "needs_binary", False) else []) + \
                ([limits.server] if getattr(make, "needs_server", False) else [])
        print(json.dumps(make(folder, *extra)))
        return 0
    only = set(filter(None, limits.only.split(",")))
    server = subprocess.Popen([sys.executable, os.path.join(ROOT, "tests", "llm_server.py"), "0"],
                              stdin=subprocess.PIPE, stdout=subprocess.PIPE, stderr=subprocess.DEVNULL, text=True)
    port = server.stdout.readline().split()[-1]
    failed = 0
    print("| case | input | check s | check MB | index s | index MB | structure / build s | texts embedded | outcome |\n"
          "|---|---|---|---|---|---|---|---|---|")
    chosen = [(name, what, make) for name, what, make in CASES if not only or name in only]
    # Prose first: its embedding rate is the one the others are judged by.
    chosen.sort(key=lambda case: case[0] != "markdown-prose")
    prose_rate = None
    with concurrent.futures.ThreadPoolExecutor(max_workers=limits.jobs) as pool:
        outcomes = pool.map(lambda case: run_case(quire, case[0], case[2], limits, f"http://127.0.0.1:{port}"), chosen)
        for (name, what, _), (check, index) in zip(chosen, outcomes):
            if name == "markdown-prose":
                prose_rate = embedding_rate(index)
            failed += report_case(name, what, check, index, prose_rate, limits.slowest_rate)
    server.stdin.close()
    server.wait()
    print(f"\n{failed} of {len(CASES) if not only else len(only)} cases failed" if failed else "\nevery case as expected")
    return 1 if failed else 0


if __name__ == "__main__":
    sys.exit(main())
