"""Reading free text for a rubric: the figures it states and the phrases it uses.

A spoken answer (the 30-second answer) is a paragraph. Its figures are found with the
same number reader as number answers (:func:`quiz.core.reading.read_number`), applied
to short spans of the text that start at a number: the number with the words that
follow it, longest first, so "1.13 TB of model state" reads as 1.13 TB and "16 H100s"
as the count 16. Phrases are found in a normalized copy of the text (lower case, every
run of punctuation and spaces one space, letters and digits apart: "TP=8" and "tp 8"
are the same; clause ends kept), whole words only; "..." in a phrase stands for up to
four words of the same clause, and a phrase right after a negation ("not", "no",
"never", "without", "n't") does not count.

Nothing here evaluates anything: the reader is the hardened one, spans are at most a
few words long, and the text, the number of spans and the hits per phrase are capped,
so a reply comes back in milliseconds whatever is typed.
"""

from __future__ import annotations

import re
from collections.abc import Iterable, Sequence
from dataclasses import dataclass, field
from functools import lru_cache
from typing import Any, Final

from quiz.core.reading import Unreadable, read_number
from solver.units import BASE_UNITS, UNITS

__all__ = ["HONEST", "MAX_MENTIONS", "MAX_SPOKEN_CHARS", "Checklist", "Item", "Mention",
           "Normalized", "denied_scopes", "find_phrase", "mentions", "normalize"]

MAX_SPOKEN_CHARS: Final = 4000
"""Longest spoken answer read (a 30-second answer is 80 to 150 words)."""
MAX_MENTIONS: Final = 200
"""Numbers read from one answer; the rest are ignored."""
MAX_PHRASE_HITS: Final = 20
"""Occurrences of one phrase looked at (for negations) before giving up."""
NEEDS_UNIT: Final = frozenset({"B", "FLOP", "s", "B/s", "FLOP/s"})
"""Base units whose figures count only when a unit is said: a bare 2.2 is not 2.2 GB."""
NEGATIONS: Final = frozenset({"not", "no", "never", "nor", "without", "avoid", "t",
                              "cannot", "instead"})
"""Words that cancel the phrase right after them ("t" is what is left of "don't")."""

_NUMBER: Final = re.compile(
    r"(?<![\w.])(?:\d(?:[\d,_']*\d)?(?:\.\d+)?|\.\d+)"  # 1,130 · 1.13 · .5
    r"(?:[eE][-+]?\d{1,4}"  # 6.3e24
    r"|\s*[x×*·]\s*10\s*(?:(?:\^|\*\*)\s*[-+]?\d{1,4}|[⁻⁺]?[⁰¹²³⁴⁵⁶⁷⁸⁹]{1,4})"  # ×10^24
    r")?"
    r"(?P<suffix>[A-Za-z%]{0,6})"  # 8K, 1.13TB, 40%
)
_WORD: Final = re.compile(r"\s{1,3}(?P<word>[A-Za-z%µ][A-Za-z/%µ]{0,15})")
_MAX_WORDS: Final = 3


@dataclass(frozen=True)
class Mention:
    """A number in the text, with the words that may be its unit.

    Attributes:
        start: where it starts in the text.
        candidates: the spans to read, longest first ("1.13 TB of", "1.13 TB", "1.13").
    """

    start: int
    candidates: tuple[str, ...]
    _read: dict[str, tuple[float, str] | None] = field(default_factory=dict, compare=False,
                                                      repr=False)

    def reading(self, unit: str) -> tuple[float, str] | None:
        """The value in base unit ``unit`` and the span read, or None.

        The span is the longest that reads at all, in any unit: "16 bytes" is bytes,
        so its 16 is no count of GPUs; a bare number never reads where a unit is
        needed (a bare 2.2 is not 2.2 GB); and a named count reads only as itself
        ("300 requests" is no batch size).
        """
        if unit not in self._read:
            span = self.span()
            value = None
            noun = _noun_unit(span) if span is not None else None
            if span is not None and not (unit in NEEDS_UNIT and
                                         not re.search(r"[A-Za-z%]", span)) and \
                    (noun is None or noun == unit):
                number = _value(span, unit)
                value = None if number is None else (number, span)
            self._read[unit] = value
        return self._read[unit]

    def span(self) -> str | None:
        """The longest candidate that reads in some base unit (None: none does)."""
        return _longest_read(self.candidates)


NAMED_COUNTS: Final = frozenset({"tokens", "requests", "tokens/s", "requests/s"})
"""Count units whose noun is part of the figure: "300 requests" is no batch size and no
count of tokens, although the reader converts counts freely."""


def _noun_unit(span: str) -> str | None:
    """The named count unit a span ends in ("300 requests" → requests), else None."""
    m = re.search(r"([A-Za-z][A-Za-z/]*)\s*$", span)
    if m is None or re.search(r"\bper\s+\S+\s*$", span):
        return None  # "328 kB per token" is an amount per token, no count of tokens
    per = UNITS.get(m.group(1).rpartition("/")[2]) if "/" in m.group(1) else None
    if per is not None and per[1] != "s":
        return None  # "16 bytes/param" too
    found = UNITS.get(m.group(1)) or UNITS.get(m.group(1).casefold())
    return found[1] if found is not None and found[1] in NAMED_COUNTS else None


def _reads(span: str, unit: str) -> bool:
    return _value(span, unit) is not None


SPANS_KEPT: Final = 8192
"""Spans whose reading is remembered. A span is a number and at most three words, and
the same ones recur: the key is read again with one figure changed for every known
mistake, each figure is tried in every base unit, and variants share their wording."""


@lru_cache(maxsize=SPANS_KEPT)
def _longest_read(candidates: tuple[str, ...]) -> str | None:
    """The longest of a mention's candidates that reads in some base unit (None: none
    does). Remembered: the live preview reads the whole paragraph on every keystroke,
    and all but one of its mentions are the same as on the keystroke before."""
    return next((span for span in candidates
                 if any(_reads(span, u) for u in BASE_UNITS)), None)


@lru_cache(maxsize=SPANS_KEPT)
def _value(span: str, unit: str) -> float | None:
    """A span's value in base unit ``unit``, or None when it does not read as one."""
    try:
        return read_number(span, unit).value
    except Unreadable:
        return None


def mentions(text: str) -> list[Mention]:
    """Every number in ``text`` (up to :data:`MAX_MENTIONS`), in order.

    >>> [m.candidates[-1] for m in mentions("TP 8 in the node; 1.13 TB of state")]
    ['8', '1.13']
    >>> mentions("363 days")[0].reading("s")
    (31363200.0, '363 days')
    """
    out: list[Mention] = []
    for m in _NUMBER.finditer(text):
        if len(out) >= MAX_MENTIONS:
            break
        number = m.group(0)
        words: list[str] = []
        pos = m.end()
        while len(words) < _MAX_WORDS and (w := _WORD.match(text, pos)):
            words.append(w.group(0))
            pos = w.end()
        spans = ["".join([number, *words[:k]]).strip() for k in range(len(words), -1, -1)]
        if m["suffix"]:
            spans.append(number[: -len(m["suffix"])])  # "8x": the number alone
        out.append(Mention(m.start(), tuple(dict.fromkeys(spans))))
    return out


@dataclass(frozen=True)
class Normalized:
    """Text normalized for phrase matching, with where each character came from.

    Attributes:
        text: lower case words separated by single spaces, with a space at each end.
        origin: for each character of ``text``, its index in the original.
        original: the text as typed.
    """

    text: str
    origin: tuple[int, ...]
    original: str


_CLAUSE: Final = frozenset(",;:!?\n")
"""Characters that end a clause: a gap in a phrase never reaches across them."""


def normalize(text: str) -> Normalized:
    """Lower case; letters and digits apart; each run of spaces and other characters
    one space, except that clause ends (``, ; : ! ?``, a full stop, a new line) become
    ``|`` (brackets do not: "FSDP (ZeRO-3) across" is one clause).

    >>> normalize("TP=8, in-node. 1.13 TB").text
    ' tp 8 | in node | 1 13 tb '
    """
    chars: list[str] = [" "]
    origin: list[int] = [0]
    last = " "  # the kind of the last character kept: "a" letter, "d" digit, " ", "|"

    def space(i: int) -> None:
        if chars[-1] != " ":
            chars.append(" ")
            origin.append(i)

    for i, ch in enumerate(text):
        if ch in _CLAUSE or (ch == "." and not (
                text[i - 1:i].isdigit() and text[i + 1:i + 2].isdigit())):
            if last != "|":
                space(i)
                chars.append("|")
                origin.append(i)
                last = "|"
            continue
        for c in ch.lower():
            kind = "a" if c.isalpha() else "d" if c.isdigit() else " "
            if kind == " ":
                space(i)
                if last != "|":
                    last = " "
                continue
            if last != kind:
                space(i)
            chars.append(c)
            origin.append(i)
            last = kind
    space(len(text))
    return Normalized("".join(chars), tuple(origin), text)


MAX_GAP: Final = 4
"""Words that "..." in a phrase stands for, at most ("tp ... inside the node" matches
"TP 8 inside the node")."""


def phrase_pattern(phrase: str) -> re.Pattern[str] | None:
    """A phrase as a pattern over normalized text: its words, literally, with "..."
    matching up to :data:`MAX_GAP` words (None for a phrase with no words).

    >>> phrase_pattern("TP ... inside").pattern
    ' tp(?: [^ |]+){0,4} inside '
    """
    parts = [normalize(p).text.strip() for p in phrase.split("...")]
    if not all(parts):
        return None
    gap = rf"(?: [^ |]+){{0,{MAX_GAP}}} "
    return re.compile(" " + gap.join(re.escape(p) for p in parts) + " ")


PHRASES_KEPT: Final = 4096
"""Phrases whose pattern and words are remembered. A rubric's phrases are the same for
every answer graded against it (the self-test grades each variant's key and each
mistake against the same claims: normalizing the phrases again was a fifth of a spoken
answer's checklist)."""


@lru_cache(maxsize=PHRASES_KEPT)
def _phrase(phrase: str) -> tuple[re.Pattern[str] | None, frozenset[str]]:
    """A phrase's pattern (:func:`phrase_pattern`) and its own words."""
    return phrase_pattern(phrase), frozenset(normalize(phrase.replace("...", " ")).text.split())


def find_phrase(hay: Normalized, phrases: Iterable[str],
                scopes: Sequence[tuple[int, int]] = (), *,
                negated: bool = False) -> tuple[int, str] | None:
    """The first place (in the original text) where one of ``phrases`` is said and not
    negated, with the words said there; None when none is. With ``negated``, the first
    place where one is said *and* negated instead ("decode is not memory-bound").

    A phrase is negated by a negation among the two words before it in its clause,
    among the words a "..." gap stands for ("TP is not inside the node"), or by lying in
    one of ``scopes`` (sentences denied as a whole: "it is not true that ...", see
    :func:`denied_scopes`). A negation that is one of the phrase's own words ("cannot
    hide") is the phrase itself.

    >>> hay = normalize("Not TP across nodes: TP 8 inside the node.")
    >>> find_phrase(hay, ["tp ... across nodes"]) is None
    True
    >>> find_phrase(hay, ["tp inside the node", "tp ... inside"])
    (21, 'TP 8 inside')
    >>> find_phrase(hay, ["tp ... across nodes"], negated=True)
    (4, 'TP across nodes')
    """
    best: tuple[int, str] | None = None
    for phrase in phrases:
        pattern, own = _phrase(phrase)
        if pattern is None:
            continue
        start = 0
        for _ in range(MAX_PHRASE_HITS):
            m = pattern.search(hay.text, start)
            if m is None:
                break
            k = m.start()
            start = k + 1
            where, end = hay.origin[k + 1], hay.origin[m.end() - 2] + 1
            gap = set(m.group(0).split()) - own
            denied = _negated(hay.text, k) or bool(gap & NEGATIONS) or any(
                a <= where < b for a, b in scopes)
            if denied != negated:
                continue
            if best is None or where < best[0]:
                best = (where, hay.original[where:end])
            break
    return best


_DENIAL: Final = re.compile(
    r"\b(?:(?:is|it's|that's|this is|was)\s+(?:not|n't|never)|isn't|wasn't)\s+"
    r"(?:true|the case|correct|right|so)\b(?:\s+that\b)?\s*:?"
    r"|\b(?:it is|it's)\s+(?:false|wrong|untrue)\s+(?:to say\s+)?that\b\s*:?",
    re.IGNORECASE)
_SENTENCE_END: Final = re.compile(r"[.!?](?!\d)|\n\s*\n")


_DENIED_BEFORE: Final = re.compile(
    r"^\s*(?:none of (?:this|that|the following) is (?:true|right|correct)"
    r"|(?:the )?opposite (?:is true|holds)|all of (?:this|that|the following) is (?:false|wrong))"
    r"\b\s*[:,.-]?", re.IGNORECASE)
_DENIED_AFTER: Final = re.compile(
    r"(?:^|[.!?]\s+)(?:but\s+)?(?:(?:all|none) of (?:this|that|it|the above)|(?:this|that|it) all"
    r"|everything (?:above|i said))\s+(?:is|was)\s+(?:(?:not\s+)?(?:false|wrong|untrue|true|"
    r"right|correct))[.!]?\s*$|(?:^|[.!?]\s+)just kidding[.!]?\s*$", re.IGNORECASE)


def denied_scopes(text: str) -> list[tuple[int, int]]:
    """Stretches of ``text`` denied as a whole: from "it is not true that" (or "it is
    false that", "that is not the case") to the end of its sentence; a denial that
    ends in a colon, or is all its sentence says, denies what follows it to the end.

    >>> text = "It is NOT true that TP spans nodes. FSDP does."
    >>> [text[a:b] for a, b in denied_scopes(text)]
    ['It is NOT true that TP spans nodes']
    """
    out: list[tuple[int, int]] = []
    if m := _DENIED_BEFORE.match(text):
        return [(0, len(text))]  # "None of this is true: ..."
    if (m := _DENIED_AFTER.search(text)) and _denies(m.group(0)):
        return [(0, len(text))]  # "... All of that is wrong."
    for m in _DENIAL.finditer(text):
        start = text.rfind(".", 0, m.start()) + 1
        rest = text[m.end():]
        end_m = _SENTENCE_END.search(rest)
        head = rest[:end_m.start()] if end_m else rest
        if m.group(0).rstrip().endswith(":") or not re.search(r"[A-Za-z0-9]", head):
            out.append((start, len(text)))  # "It is not true that: ..." denies it all
        else:
            out.append((start, m.end() + len(head)))
    return out


def _denies(closing: str) -> bool:
    """Whether a closing remark about everything said before denies it ("none of this
    is true", "all of that is wrong", "just kidding"), rather than confirms it."""
    words = closing.casefold()
    if "kidding" in words:
        return True
    false = any(w in words for w in ("false", "wrong", "untrue"))
    negated = " not " in f" {words} " or words.lstrip(" .!?").startswith(("none", "but none"))
    return false != negated


def _negated(text: str, k: int) -> bool:
    """Whether one of the two words before position ``k`` (in the same clause) negates."""
    before = text[max(0, k - 40):k].split("|")[-1].split()[-2:]
    return any(w in NEGATIONS for w in before)


# ---------------------------------------------------------------- the checklist

HONEST: Final = ("This is a checklist of the figures and phrases a strong answer states, "
                 "not a judge of your prose: the score is the weighted share of the "
                 "items ticked.")
"""What the checklist says of itself (``quiz check --json``'s ``checklist.note``)."""


@dataclass(frozen=True)
class Item:
    """One line of the checklist.

    Attributes:
        kind: ``figure``, ``claim`` or ``order``.
        id: the rubric's id (for an order rule, ``before<after``).
        label: what the rubric calls it.
        status: figures ``right``, ``wrong``, ``mistake``, ``missing``; claims
            ``present``, ``contradicted``, ``missing``; order rules ``kept``, ``broken``.
        weight: its share of the rubric.
        earned: the part of ``weight`` earned.
        said: what the answer said for it (the figure's span, the phrase), or "".
        expected: the key's figure, or the claim's first phrase.
        note: the known mistake's feedback, or how the solver derives the figure.
        mistake: the known mistake matched, if any.
        value: the figure as said, in base units (None when not said).
        key_value: the figure's key in base units (figures only).
        unit: the base unit (figures only).
        position: where it is said in the text (None when not said).
    """

    kind: str
    id: str
    label: str
    status: str
    weight: float
    earned: float
    said: str = ""
    expected: str = ""
    note: str = ""
    mistake: str | None = None
    value: float | None = None
    key_value: float | None = None
    unit: str = ""
    position: int | None = None

    def line(self) -> str:
        """The item as one line of plain text."""
        mark = {"right": "✓", "present": "✓", "kept": "✓", "mistake": "✗", "wrong": "✗",
                "contradicted": "✗", "broken": "✗"}.get(self.status, "·")
        if self.kind == "figure":
            head = f"{mark} {self.label}: "
            if self.status == "right":
                return head + f"{self.said} (key {self.expected})"
            if self.status == "missing":
                return head + f"missing (key {self.expected})"
            what = "known mistake" if self.status == "mistake" else "wrong"
            return head + f"{self.said} is {what}; the key is {self.expected}"
        if self.kind == "claim":
            if self.status == "present":
                return f"✓ {self.label} (you said \"{self.said}\")"
            if self.status == "contradicted":
                return f"✗ {self.label}: you said the opposite (\"{self.said}\")"
            return f"· {self.label}: missing (say e.g. \"{self.expected}\")"
        return f"{mark} order: {self.label}" + ("" if self.status == "kept" else
                                               " (not in this order)")

    def to_json(self) -> dict[str, Any]:
        """The item as JSON."""
        return {"kind": self.kind, "id": self.id, "label": self.label,
                "status": self.status, "weight": self.weight, "earned": self.earned,
                "said": self.said, "expected": self.expected, "note": self.note,
                "mistake": self.mistake, "value": self.value, "key_value": self.key_value,
                "unit": self.unit}


@dataclass(frozen=True)
class Checklist:
    """A spoken answer's checklist: its items, the score, the model answer."""

    items: tuple[Item, ...]
    score: float
    model_answer: str

    def lines(self) -> list[str]:
        """The items as plain text, each with its note on the next line."""
        out: list[str] = []
        for item in self.items:
            out.append(item.line())
            if item.note and item.status in ("wrong", "mistake"):
                out.append(f"    {item.note}")
        return out

    def to_json(self) -> dict[str, Any]:
        """The ``checklist`` object of ``quiz check --json``."""
        return {"score": self.score, "items": [i.to_json() for i in self.items],
                "model_answer": self.model_answer, "note": HONEST}
