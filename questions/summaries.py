"""A template file's summary read without compiling it: what listing needs.

Listing a bank needs each file's id, title, topic, tags, difficulty and answer kind, not
its validation: compiling a template (TOML, pydantic, the solver checks) costs about a
millisecond and a half of CPU, so the first ``quiz templates list`` of 6,500 templates
took seconds. :func:`summarize` reads those six fields with a few regular expressions
(about 0.05 ms a file) from the common, plain spelling of them: ``key = "text"``,
``key = 2``, ``key = ["a", "b"]`` at the top level (and the first ``[[parts]]``'s
``answer_kind`` for a scenario). Anything else (an escape in a string, a literal or
multi-line string, a dotted key, an inline table, a key given twice) gives None, and
the file is compiled as before: a summary never guesses.

A summary says nothing of the rest of the file: its problems are found when it is
compiled (see :func:`questions.catalog.build`).
"""

from __future__ import annotations

import re

from questions.entry import Entry  # the record a summary makes

_HEADER = re.compile(r"^[ \t]*\[", re.M)
"""A table header: the top level ends at the first."""

_KEY = re.compile(r"^[ \t]*(id|title|topic|tags|difficulty|answer_kind|parts)[ \t]*=[ \t]*"
                  r"([^\n]*)$", re.M)
"""A ``key = value`` line of a wanted key (or ``parts``)."""

_ODD_KEY = re.compile(r"^[ \t]*(?:[\"'][^\"'\n]*[\"']|[\w-]+[ \t]*\.[^=\n]*)[ \t]*=", re.M)
"""A quoted or dotted key, which could spell a wanted one another way."""

_PARTS = re.compile(r"^[ \t]*\[\[[ \t]*parts[ \t]*\]\][ \t]*$", re.M)
_OTHER_PARTS = re.compile(r"^[ \t]*\[[ \t]*\[?[ \t]*[\"']?parts\b", re.M)
_TEXT = re.compile(r'"([^"\\\n]*)"')
_INT = re.compile(r"[+]?[0-9]+")
_LIST = re.compile(r'\[[ \t]*((?:"[^"\\\n]*"[ \t]*,[ \t]*)*(?:"[^"\\\n]*")?)[ \t]*,?[ \t]*\]')
_KIND = re.compile(r"[a-z]+")
_ID = re.compile(r"[a-z0-9][a-z0-9_-]*(/[a-z0-9][a-z0-9_-]*)+")


def summarize(text: str, file: str = "") -> Entry | None:
    """The entry of the template file ``file`` from its text, or None when it is not
    spelled plainly enough to read without TOML (then compile the file).

    >>> e = summarize('id = "a/b"\\ntitle = "T t"\\ntopic = "a"\\ntags = ["x", "y"]\\n', "b.toml")
    >>> e.file, e.id, e.title, e.tags, e.difficulty, e.kind, e.pack
    ('b.toml', 'a/b', 'T t', ('x', 'y'), 1, 'number', None)
    >>> summarize('id = "a/b"\\ntitle = "T \\\\"t\\\\""\\ntopic = "a"\\n') is None
    True
    """
    if '\\"' in text:  # an escaped quote (or a string ending in a backslash): TOML decides
        return None
    flat = _flatten(text)
    if flat is None:
        return None
    first = _HEADER.search(flat)
    top = flat if first is None else flat[:first.start()]
    if _ODD_KEY.search(top):
        return None
    found = _keys(top)
    if found is None or "parts" in found:
        return None
    if first is not None and "parts" in flat:
        parts, other = _parts_header(flat, first.start())
        if parts is not None:
            if "answer_kind" in found:  # the first part's kind is the one listed
                return None
            end = _HEADER.search(flat, parts.end())
            inside = flat[parts.end():end.start() if end else len(flat)]
            if _ODD_KEY.search(inside):
                return None
            kinds = _keys(inside)
            if kinds is None:
                return None
            found["answer_kind"] = kinds.get("answer_kind", '"number"')
        elif other:
            return None  # parts spelled some other way
    return _summary(found, file)


def _parts_header(flat: str, start: int) -> tuple[re.Match[str] | None, bool]:
    """The first ``[[parts]]`` header line from `start` (a line's start) on, and whether
    a line there names parts in a header some other way. Only the lines with the word
    are looked at: a multi-line pattern tried at every position of the text was a third
    of summarizing a file."""
    other = False
    at = flat.find("parts", start)
    while at >= 0:
        line = flat.rfind("\n", 0, at) + 1
        found = _PARTS.match(flat, line)
        if found is not None:
            return found, True
        other = other or _OTHER_PARTS.match(flat, line) is not None
        at = flat.find("parts", at + 5)
    return None, other


def _flatten(text: str) -> str | None:
    """The text with each multi-line string emptied (its lines could look like keys or
    table headers); None: one is not closed."""
    out: list[str] = []
    at = 0
    while True:
        basic, literal = text.find('"""', at), text.find("\'\'\'", at)
        if basic < 0 and literal < 0:
            out.append(text[at:])
            return "".join(out)
        start, quote = (basic, '"""') if literal < 0 or 0 <= basic < literal else \
            (literal, "\'\'\'")
        end = text.find(quote, start + 3)
        if end < 0:
            return None
        while text.startswith(quote[0], end + 3):  # up to two quotes end the string
            end += 1
        out.append(text[at:start])
        out.append('""')
        at = end + 3


def _keys(section: str) -> dict[str, str] | None:
    """The wanted keys of a section, as written (None: one is written twice)."""
    out: dict[str, str] = {}
    for key, value in _KEY.findall(section):
        if key in out:
            return None
        out[key] = value.rstrip()
    return out


def _summary(found: dict[str, str], file: str) -> Entry | None:
    texts = {}
    for key in ("id", "title", "topic", "answer_kind"):
        raw = found.get(key)
        if raw is None:
            continue
        m = _TEXT.fullmatch(_uncommented(raw))
        if m is None:
            return None
        texts[key] = m.group(1)
    if "id" not in texts or "title" not in texts or "topic" not in texts:
        return None
    if _ID.fullmatch(texts["id"]) is None:
        return None
    kind = texts.get("answer_kind", "number")
    if _KIND.fullmatch(kind) is None:
        return None
    difficulty = 1
    if "difficulty" in found:
        raw = _uncommented(found["difficulty"])
        if _INT.fullmatch(raw) is None:
            return None
        difficulty = int(raw)
        if not 1 <= difficulty <= 3:
            return None
    tags: tuple[str, ...] = ()
    if "tags" in found:
        m = _LIST.fullmatch(_uncommented(found["tags"]))
        if m is None:
            return None
        tags = tuple(_TEXT.findall(m.group(1)))
    return Entry(file, texts["id"], texts["title"], texts["topic"], tags, difficulty, kind)


def _uncommented(value: str) -> str:
    """A value without a trailing comment (a ``#`` inside a string stays: then the value
    does not read, and the file is compiled)."""
    return value.split("#", 1)[0].rstrip() if "#" in value else value
