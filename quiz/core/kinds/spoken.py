"""Spoken answers (the 30-second answer): a paragraph graded as a checklist.

The rubric (:mod:`questions.kinds.spoken`) lists figures, claims and order rules, each
with a weight. Grading finds the figures the paragraph states (:func:`quiz.core.rubric.
mentions`, the number reader applied to spans of the text) and the claims it makes
(:func:`quiz.core.rubric.find_phrase`), then ticks each item:

* a figure is *right* when a number read in its unit is within its tolerance; else a
  *known mistake* when a number matches one of the figure's mistakes (its feedback and
  credit); else *wrong* when a number in its unit that nothing else explains lies
  within a factor of :data:`WRONG_FACTOR` of it (the nearest pairs first); else
  *missing*. Numbers the prompt itself gives never count as a wrong figure.
* a claim is *present* when one of its phrases is said (not negated), *contradicted*
  when one of its ``against`` phrases is, else *missing*.
* an order rule is *kept* when both items are stated and the first comes first.

The score is the weighted share of the items ticked; the feedback says that this is a
checklist of figures and phrases, not a judge of the prose.
"""

from __future__ import annotations

import math
import re
from dataclasses import dataclass, field, replace
from functools import cached_property, lru_cache
from typing import Any, Final

from questions.kinds.spoken import answer, known
from questions.variants import FigureKey, PartVariant
from quiz.core.kinds.base import Grade, Read, by_credit, invalid, relative_error
from quiz.core.reading import Reading, Unreadable
from quiz.core.rubric import (
    HONEST,
    MAX_MENTIONS,
    MAX_SPOKEN_CHARS,
    Checklist,
    Item,
    Mention,
    denied_scopes,
    find_phrase,
    mentions,
    normalize,
)

__all__ = ["CORRECT_SHARE", "WRONG_FACTOR", "Checklist", "Item", "SpokenReading",
           "check_key", "checklist", "grade", "json_fields", "prompt_lines", "read"]

DENIED_SHARE: Final = 0.5
"""An answer whose sentences denied as a whole ("it is not true that ...") make up this
share of it denies the model answer: it scores at most :data:`DENIED_CAP`."""
DENIED_CAP: Final = 0.5
CORRECT_SHARE: Final = 0.9
"""The share of the rubric an answer needs to be correct (and no figure stated wrong:
a wrong number said with confidence is what an interviewer remembers)."""
WRONG_FACTOR: Final = 5.0
"""A number within this factor of a figure (and explained by nothing else) is taken as
that figure stated wrong; further off, the figure is missing."""
_PLAIN_COUNTS: Final = frozenset({"1", "param"})
"""Units whose figures are said as bare numbers ("about 16 GPUs", "TP 8"); for every
other unit only a number said with its unit is taken as that figure stated wrong."""
_EXAMPLE: Final = ("sentences that give each figure with its unit and say each choice, "
                   "like 'the state needs so many TB, so TP inside the node, then ...'")
"""Says the form, never a figure: a reference figure here would hand out a key."""


@dataclass(frozen=True)
class SpokenReading:
    """A spoken answer as read: its text and the numbers in it.

    Attributes:
        text: the answer.
        pieces: the numbers of each piece of the text (see :func:`pieces`), each with
            where the piece starts; :attr:`numbers` puts them together.
    """

    text: str
    pieces: tuple[tuple[int, Piece], ...] = field(repr=False)

    @cached_property
    def numbers(self) -> tuple[Mention, ...]:
        """Every number in the text (up to :data:`MAX_MENTIONS`), in order, as
        :func:`quiz.core.rubric.mentions` finds them in the whole text."""
        out = [m if offset == 0 else Mention(offset + m.start, m.candidates)
               for offset, piece in self.pieces for m in piece.numbers]
        return tuple(out[:MAX_MENTIONS])


@dataclass(frozen=True)
class Piece:
    """The numbers of one piece of an answer, read once for every text it is part of.

    Attributes:
        numbers: its numbers, with starts in the piece.
        said: for each number read in one of the units asked for, (its index in
            ``numbers``, the span read).
    """

    numbers: tuple[Mention, ...]
    said: tuple[tuple[int, str], ...]


_PIECE_END: Final = re.compile(r"[.,;:!?]\s")
"""Where a piece of an answer ends: a clause's punctuation and the space after it. No
number or unit word reaches across one (a number holds no space after a comma or a
point, and a unit word is letters), so reading the pieces apart finds what reading the
whole finds; a key changes the numbers of its own piece only."""

PIECES_KEPT: Final = 2048
"""Pieces whose reading is remembered (a few answers' worth of clauses)."""


def pieces(text: str) -> list[tuple[int, str]]:
    """The text cut after each clause's punctuation and space, with where each starts.

    >>> pieces("TP 8, then 1.13 TB. FSDP")
    [(0, 'TP 8, '), (6, 'then 1.13 TB. '), (20, 'FSDP')]
    """
    out: list[tuple[int, str]] = []
    start = 0
    for m in _PIECE_END.finditer(text):
        out.append((start, text[start:m.end()]))
        start = m.end()
    if start < len(text) or not out:
        out.append((start, text[start:]))
    return out


@lru_cache(maxsize=PIECES_KEPT)
def read_piece(piece: str, units: tuple[str, ...]) -> Piece:
    """The numbers of one piece, and what each reads as in the first of ``units`` it
    reads in (remembered: typing changes one piece, the others are read already)."""
    found = tuple(mentions(piece))
    said = []
    for i, m in enumerate(found):
        for unit in units:
            r = m.reading(unit)
            if r is not None:
                said.append((i, r[1]))
                break
    return Piece(found, tuple(said))


def read(pv: PartVariant, text: str) -> Read:
    """Read a paragraph: the numbers in it (any text with words or figures reads).

    Raises:
        Unreadable: empty, too long, control characters, or no word or figure at all.
    """
    from solver.formula import clean_text

    cleaned = clean_text(text, MAX_SPOKEN_CHARS, _EXAMPLE)
    if not cleaned.strip():
        raise Unreadable("the answer is empty", _EXAMPLE)
    if not re.search(r"[A-Za-z0-9]", cleaned):
        raise Unreadable("write the answer in words and figures", _EXAMPLE)
    units = tuple(dict.fromkeys(f.unit for f in pv.key.figures))
    parts = tuple((start, read_piece(piece, units)) for start, piece in pieces(text))
    said: list[str] = []
    counted = 0  # numbers before this piece: the first MAX_MENTIONS of them count
    for _, piece in parts:
        said += [span for i, span in piece.said if counted + i < MAX_MENTIONS]
        counted += len(piece.numbers)
    read_as = ("figures read: " + " · ".join(said)) if said else "no figure read yet"
    return Read(SpokenReading(text, parts), read_as)


def _given(pv: PartVariant) -> list[tuple[float, str]]:
    """The values the prompt gives, with their base units."""
    from questions.text import _placeholders
    from solver.keys import KEYS
    from solver.quantities import QUANTITIES

    out = []
    for name in _placeholders(pv.spec.prompt):
        if name in pv.env:
            unit = KEYS[name].unit if name in KEYS else (
                QUANTITIES[name].unit if name in QUANTITIES else "1")
            out.append((pv.env[name], unit))
    return out


TYPED_TOLERANCE: Final = 0.03
"""The tolerance of a typed number answer (the schema's default): a figure said is held
to it, widened only by the rounding the speaker used (:func:`said_rounding`)."""


def _tolerance(f: FigureKey, scale: float) -> float:
    """The figure's relative tolerance before the speaker's rounding: a typed answer's
    (or the figure's own, if tighter), none for a count that is a whole number."""
    from questions.kinds.number import WHOLE_QUANTITIES
    from quiz.core.kinds.number import MAX_TOLERANCE

    if f.quantity in WHOLE_QUANTITIES:
        return 0.0
    return min(min(f.tolerance, TYPED_TOLERANCE) * scale, MAX_TOLERANCE)


_SAID_NUMBER: Final = re.compile(r"(?P<int>\d[\d,_']*)(?:\.(?P<frac>\d+))?")


def said_rounding(span: str) -> float:
    """Half a unit of the last digit said, relative to the number said: "1.3 TB" is
    1.25 to 1.35 (3.8 %), "190 requests" 185 to 195, "185" exact to 0.5; the zeros of
    a whole number count as rounding only after two significant digits ("20" is 20).

    >>> round(said_rounding("1.3 TB"), 4), round(said_rounding("190 requests"), 4)
    (0.0385, 0.0263)
    """
    m = _SAID_NUMBER.search(span)
    if m is None:
        return 0.0
    whole = re.sub(r"[,_']", "", m["int"])
    frac = m["frac"] or ""
    number = float(f"{whole}.{frac}" if frac else whole)
    if number == 0:
        return 0.0
    place = -len(frac) if frac else len(whole) - len(whole.rstrip("0"))
    if not frac and len(whole.rstrip("0")) < 2:
        place = 0  # "20 bytes", "1000 GPUs": one significant digit is no rounding said
    if frac and len((whole + frac).lstrip("0")) < 2:
        return 0.0  # "0.2" likewise
    return 0.5 * 10.0 ** place / number


def _close(f: FigureKey, said: tuple[float, str], target: float, scale: float) -> bool:
    """The figure said (value, span) is ``target`` within the figure's tolerance and the
    speaker's rounding: |said - target| <= tol x target + half a unit of the last digit
    said."""
    value, span = said
    slack = _tolerance(f, scale) * abs(target) + said_rounding(span) * abs(value)
    return abs(value - target) <= slack * (1 + 1e-9) + 1e-12 * abs(target)


_NOT_CUES: Final = frozenset({"a", "an", "and", "are", "at", "by", "for", "in", "is", "it",
                              "its", "of", "on", "or", "per", "s", "that", "the", "this",
                              "to", "with"})
"""Words too common to tell one figure from another ("on the network": "network")."""
_CLAUSE_MARK: Final = re.compile(r"[,;:!?]|\.(?!\d)")
"""Where a clause ends: the words next to a number are looked for within its clause (a
new line is only where the text wraps)."""
CUE_WORDS: Final = 3
"""Words read on each side of a number: "0.2 s on the network", "the network takes
0.2 s"; further words qualify the figure ("33.6 MB per micro-batch with TP 8" is not
the TP figure)."""


def _tokens(text: str) -> list[str]:
    return re.findall(r"[a-z][a-z0-9]*", text.lower())


def _words(text: str) -> set[str]:
    return set(_tokens(text)) - _NOT_CUES


class _Cues:
    """Which figure the words next to a number name, when they name exactly one.

    A figure's cues are the words of its label that no other figure of its unit has in
    its label ("network" for "TP traffic time on the network" beside "... on NVLink").
    The words read are the :data:`CUE_WORDS` after the number, short of the next number
    and of the end of its clause ("0.2 s on the network"); only when no word follows
    it there, those before it, after the number before and the clause's start ("the
    network takes 0.2 s,"). Words that name two figures, or none, name nothing: the
    figure is then paired by its value alone.
    """

    def __init__(self, text: str, numbers: tuple[Mention, ...],
                 figures: tuple[FigureKey, ...]) -> None:
        self.text = text
        self.numbers = numbers
        self.figures = figures
        self.cues = {f.id: frozenset(_words(f.label) - set().union(
            *(_words(g.label) for g in figures if g.unit == f.unit and g.id != f.id)))
            for f in figures}
        self.marks = [m.start() for m in _CLAUSE_MARK.finditer(text)]
        self._named: dict[tuple[int, str], str | None] = {}

    def _end(self, i: int) -> int:
        m = self.numbers[i]
        return m.start + len(m.span() or m.candidates[-1])

    def _around(self, i: int) -> tuple[str, str]:
        start, end = self.numbers[i].start, self._end(i)
        after_end = self.numbers[i + 1].start if i + 1 < len(self.numbers) else len(self.text)
        after_end = min([after_end, *(p for p in self.marks if p >= end)])
        before_start = self._end(i - 1) if i > 0 else 0
        before_start = max([before_start, *(p + 1 for p in self.marks if p < start)])
        return self.text[end:after_end], self.text[before_start:start]

    def named(self, i: int, unit: str) -> str | None:
        """The figure of ``unit`` the words next to number ``i`` name, or None."""
        key = (i, unit)
        if key not in self._named:
            self._named[key] = None
            after, before = map(_tokens, self._around(i))
            words = set(after[:CUE_WORDS] if after else before[-CUE_WORDS:])
            hits = {f.id for f in self.figures if f.unit == unit and self.cues[f.id] & words}
            self._named[key] = hits.pop() if len(hits) == 1 else None
        return self._named[key]

    def elsewhere(self, i: int, f: FigureKey) -> bool:
        """The words next to number ``i`` name another figure of ``f``'s unit."""
        named = self.named(i, f.unit)
        return named is not None and named != f.id


_AXIS_BEFORE: Final = re.compile(
    r"(?:\b(?:tp|pp|dp|ep|cp|fsdp|zero)|tensor[- ]parallel(?:ism)?|pipeline[- ]parallel(?:ism)?|"
    r"data[- ]parallel(?:ism)?|expert[- ]parallel(?:ism)?|context[- ]parallel(?:ism)?)"
    r"(?:\s+(?:of|degree|size|at|=|:))?\s*[=:x×]?\s*$", re.IGNORECASE)
_MODEL_BEFORE: Final = re.compile(
    r"(?:llama|qwen|mixtral|mistral|gpt|deepseek|gemma|falcon|grok|phi|olmo|bloom|opt)"
    r"[\w.\- ]{0,12}$", re.IGNORECASE)
_NO_THINGS: Final = frozenset({"x", "×", "times", "%", "percent", "pct"})


def _stem(word: str) -> str:
    word = word.casefold().replace("-", "")
    return word[:-3] + "y" if word.endswith("ies") else word.rstrip("s")


def _counts_for(text: str, m: Mention, f: FigureKey) -> bool:
    """Whether a number may be figure ``f`` by the words that name what it counts: a
    parallelism degree ("TP 8") only for a figure about that degree, and a count of
    named things ("80 layers", "8 GPUs") only for a figure whose label names them."""
    label = {_stem(w) for w in re.findall(r"[A-Za-z][A-Za-z-]*", f.label)}
    before = text[max(0, m.start - 30):m.start]
    if _MODEL_BEFORE.search(before) and re.fullmatch(r"[\d.]+[BbMT]", m.span() or ""):
        return False  # "Llama 3 70B" names a model: no 70 bytes, no 70 of anything
    if _AXIS_BEFORE.search(before):
        return bool(label & {"tp", "pp", "dp", "ep", "cp", "degree", "parallel",
                             "parallelism", "tensor", "pipeline", "expert", "context"})
    span = m.span()
    noun = re.search(r"\s([A-Za-z][A-Za-z-]*)$", span) if span else None
    if noun is None or noun.group(1) in _NO_THINGS:
        return True
    from solver.units import COUNT_FAMILY, UNITS

    meaning = UNITS.get(noun.group(1)) or UNITS.get(noun.group(1).casefold())
    if meaning is None or meaning[1] not in COUNT_FAMILY or (
            meaning[1] == f.unit and f.unit != "1"):
        return True  # a unit (GB, s), or the figure's own named count (requests)
    return _stem(noun.group(1)) in label or f.unit not in COUNT_FAMILY


def _figures(pv: PartVariant, text: str, numbers: tuple[Mention, ...], scale: float,
             derive: bool, phrased: list[tuple[int, int]]) -> list[Item]:
    figures = pv.key.figures
    used: set[int] = set()
    found: dict[str, Item] = {}
    cues = _Cues(text, numbers, tuple(figures))

    def said(i: int, unit: str) -> tuple[float, str] | None:
        return None if i in used else numbers[i].reading(unit)

    for f in figures:  # right: the numbers its words name first, then the others
        order = sorted(range(len(numbers)), key=lambda i: cues.named(i, f.unit) != f.id)
        for i in order:
            m = numbers[i]
            r = said(i, f.unit)
            if r is not None and _close(f, r, f.value, scale) and not cues.elsewhere(i, f) \
                    and _counts_for(text, m, f):
                used.add(i)
                found[f.id] = Item("figure", f.id, f.label, "right", f.weight, f.weight,
                                   r[1], f.display, value=r[0], key_value=f.value,
                                   unit=f.unit, position=m.start)
                break
    for f in figures:  # a known mistake
        if f.id in found:
            continue
        tol = _tolerance(f, scale)
        for km in known(pv):
            if km.figure != f.id or relative_error(km.value, f.value) <= max(tol, 0.005):
                continue
            value = km.value
            hit = next((i for i, _ in enumerate(numbers) if (r := said(i, f.unit))
                        and _close(f, r, value, scale) and _counts_for(text, numbers[i], f)),
                       None)
            if hit is not None:
                r = said(hit, f.unit)
                assert r is not None
                used.add(hit)
                found[f.id] = Item("figure", f.id, f.label, "mistake", f.weight,
                                   f.weight * km.credit, r[1], f.display, km.feedback,
                                   km.name, r[0], f.value, f.unit, numbers[hit].start)
                break
    given = _given(pv)
    pairs = []
    for f in figures:  # wrong: the number its words name (however far, if said with a
        if f.id in found:  # unit), else the nearest unexplained one within WRONG_FACTOR
            continue
        for i, _ in enumerate(numbers):
            r = said(i, f.unit)
            if r is None or r[0] <= 0 or any(
                    u == f.unit and relative_error(r[0], v) <= 0.005 for v, u in given):
                continue
            if f.unit not in _PLAIN_COUNTS and not re.search(r"[A-Za-z%]", r[1]):
                continue  # a bare 128 is no wrong count of requests or tokens/s
            if any(a <= numbers[i].start < b for a, b in phrased):
                continue  # the 4 of "4 all-reduces" belongs to a claim
            if not _counts_for(text, numbers[i], f):
                continue  # "80 layers" is no count of requests, "TP 8" no GPU count
            named = cues.named(i, f.unit)
            distance = abs(math.log(r[0] / f.value))
            if named == f.id and (distance <= math.log(WRONG_FACTOR)
                                  or f.unit not in _PLAIN_COUNTS):
                pairs.append((0, distance, f.id, i, r))  # "0.2 s on the network"
            elif named is None and distance <= math.log(WRONG_FACTOR):
                pairs.append((1, distance, f.id, i, r))
    by_id = {f.id: f for f in figures}
    for _, _, fid, i, r in sorted(pairs, key=lambda p: p[:2]):
        if fid in found or i in used:
            continue
        f = by_id[fid]
        used.add(i)
        note, mistake, credit = _slip(f, r, scale)
        found[fid] = Item("figure", fid, f.label, "wrong", f.weight, f.weight * credit,
                          r[1], f.display, note, mistake, r[0], f.value, f.unit,
                          numbers[i].start)
    for f in figures:  # far off: the one unpaired number in the unit of the one unfound figure
        if f.id in found or f.unit in _PLAIN_COUNTS or sum(
                1 for g in figures if g.unit == f.unit and g.id not in found) != 1:
            continue
        far = [(abs(math.log(r[0] / f.value)), i, r) for i, _ in enumerate(numbers)
               if (r := said(i, f.unit)) is not None and r[0] > 0
               and re.search(r"[A-Za-z%]", r[1])
               and not any(u == f.unit and relative_error(r[0], v) <= 0.005
                           for v, u in given)
               and not any(a <= numbers[i].start < b for a, b in phrased)
               and not cues.elsewhere(i, f) and _counts_for(text, numbers[i], f)]
        if len(far) == 1:
            _, i, r = far[0]
            used.add(i)
            found[f.id] = Item("figure", f.id, f.label, "wrong", f.weight, 0.0, r[1],
                               f.display, "", None, r[0], f.value, f.unit, numbers[i].start)
    out = []
    for f in figures:
        item = found.get(f.id) or Item("figure", f.id, f.label, "missing", f.weight, 0.0,
                                       expected=f.display, key_value=f.value, unit=f.unit)
        if derive and item.status in ("wrong", "missing") and not item.mistake:
            from questions.kinds.spoken import figure_derivation

            try:
                how = figure_derivation(pv, f)
            except (ValueError, LookupError) as exc:  # a template bug: say so, go on
                how = f"(the derivation could not be produced: {exc})"
            item = replace(item, note=(item.note + " " if item.note else "") + how)
        out.append(item)
    return out


def _slip(f: FigureKey, r: tuple[float, str], scale: float) -> tuple[str, str | None,
                                                                        float]:
    """A generic slip (GB vs GiB, bits vs bytes, off by a thousand) behind a wrong
    figure: (its feedback, its name, its credit), or ("", None, 0)."""
    from quiz.core.kinds.number import generic_slips

    slip = generic_slips(f.value, f.unit, Reading(r[0], f.unit, r[1], r[1]),
                         _tolerance(f, scale) + said_rounding(r[1]))
    if slip is None:
        return "", None, 0.0
    name, credit, feedback = slip
    return feedback, name, credit


def checklist(pv: PartVariant, reading: SpokenReading, scale: float = 1.0, *,
              derive: bool = True) -> Checklist:
    """Tick every item of the rubric for a read answer.

    Args:
        pv: the part.
        reading: the answer as read.
        scale: multiplies every figure's tolerance (a user setting).
        derive: add the solver's derivation to wrong and missing figures.
    """
    a = answer(pv.spec)
    hay = normalize(reading.text)
    scopes = denied_scopes(reading.text)
    found = []
    for c in a.claims:
        hit = find_phrase(hay, c.phrases, scopes)
        against = find_phrase(hay, c.against, scopes) if c.against else None
        if against is None and hit is None:  # "decode is not memory-bound"
            against = find_phrase(hay, c.phrases, scopes, negated=True)
        found.append((c, against, hit))
    phrased = [(m[0], m[0] + len(m[1])) for _, against, hit in found
               for m in (against, hit) if m is not None]
    # A figure in a sentence denied as a whole ("it is not true that ...") is not said.
    numbers = tuple(m for m in reading.numbers if not any(a <= m.start < b
                                                           for a, b in scopes))
    items = _figures(pv, reading.text, numbers, scale, derive, phrased)
    for c, against, hit in found:
        if against is not None:
            items.append(Item("claim", c.id, c.label, "contradicted", c.weight, 0.0,
                              against[1], c.phrases[0], position=against[0]))
        elif hit is not None:
            items.append(Item("claim", c.id, c.label, "present", c.weight, c.weight,
                              hit[1], c.phrases[0], position=hit[0]))
        else:
            items.append(Item("claim", c.id, c.label, "missing", c.weight, 0.0,
                              expected=" ".join(c.phrases[0].replace("...", " ").split())))
    where = {i.id: i.position for i in items
             if i.status in ("right", "wrong", "mistake", "present")}
    for o in a.order:
        first, then = where.get(o.before), where.get(o.after)
        kept = first is not None and then is not None and first < then
        items.append(Item("order", f"{o.before}<{o.after}", o.label,
                          "kept" if kept else "broken", o.weight, o.weight if kept else 0.0))
    total = sum(i.weight for i in items)
    score = round(sum(i.earned for i in items) / total, 4) if total else 0.0
    denied = sum(b - a for a, b in scopes)
    if denied >= DENIED_SHARE * len(reading.text.strip()):
        score = min(score, DENIED_CAP)  # the answer denies the model answer as a whole
    return Checklist(tuple(items), score, pv.key.display)


def grade(pv: PartVariant, text: str, scale: float) -> Grade:
    """Grade a paragraph by its checklist."""
    try:
        reading = read(pv, text).value
    except Unreadable as exc:
        return invalid(pv, exc.message, exc.example)
    c = checklist(pv, reading, scale)
    figures = [i for i in c.items if i.kind == "figure"]
    right = sum(i.status == "right" for i in figures)
    claims = [i for i in c.items if i.kind == "claim"]
    present = sum(i.status == "present" for i in claims)
    read_as = f"{right} of {len(figures)} figures right" + (
        f", {present} of {len(claims)} claims" if claims else "")
    stated_wrong = any(i.status in ("wrong", "mistake") for i in figures)
    contradicted = [i for i in claims if i.status == "contradicted"]
    verdict = "correct" if c.score >= CORRECT_SHARE and not stated_wrong \
        and not contradicted else by_credit(c.score)
    if not any(i.status in ("right", "mistake") for i in figures) and not present:
        # Nothing the rubric looks for is said: order rules and slips are no substance.
        c = replace(c, score=0.0)
        verdict = "incorrect"
    mistake = next((i.mistake for i in figures if i.mistake), None)
    head = (f"Checklist: {c.score:.0%} of the rubric. " + HONEST)
    if contradicted:
        said = "; ".join(f'"{i.said}" contradicts "{i.label}"' for i in contradicted)
        head += f" You contradicted the rubric: {said}."
    feedback = "\n".join([head, "", *c.lines()])
    return Grade(verdict, c.score, read_as, mistake, feedback, pv.key, checklist=c)


def check_key(pv: PartVariant) -> str | None:
    """Every figure is finite and positive, the model answer earns every item, every
    known mistake lies outside its figure's tolerance, and the model answer with a
    mistake's value in place of its figure is recognized as that mistake."""
    from solver.units import format_value

    by_id = {f.id: f for f in pv.key.figures}
    for f in pv.key.figures:
        if not math.isfinite(f.value) or f.value <= 0:
            return f"figure {f.id!r} is not a finite positive number: {f.value}"
    whole = checklist(pv, read(pv, pv.key.display).value, derive=False)
    lost = [i.label for i in whole.items if i.earned < i.weight]
    if lost:
        return f"the model answer does not earn {lost[0]!r}: state it as the rubric reads it"
    for m in known(pv):
        f = by_id[m.figure]
        if relative_error(m.value, f.value) <= _tolerance(f, 1.0):
            return (f"mistake {m.name!r} gives {m.value!r}, within the tolerance of "
                    f"{f.id!r} ({f.display})")
        if f.display not in pv.key.display:
            continue
        typed = pv.key.display.replace(f.display, format_value(m.value, f.unit), 1)
        got = checklist(pv, read(pv, typed).value, derive=False)
        item = next(i for i in got.items if i.id == f.id)
        if item.mistake != m.name:
            return (f"the model answer with {format_value(m.value, f.unit)} for "
                    f"{f.id!r} is not recognized as {m.name!r} (got {item.status})")
    return None


def prompt_lines(pv: PartVariant) -> list[str]:
    """How the answer is graded (the rubric itself is not shown: saying which figures
    to state would answer half the question)."""
    return ["  Answer in a paragraph, figures with their units. It is graded as a "
            "checklist of the figures and choices a strong answer states."]


def json_fields(pv: PartVariant) -> dict[str, Any]:
    """The rubric's items, without their values."""
    a = answer(pv.spec)
    return {"rubric": {
        "figures": [{"id": f.id, "label": f.label, "unit": f.unit, "weight": f.weight}
                    for f in pv.key.figures],
        "claims": [{"id": c.id, "label": c.label, "weight": c.weight} for c in a.claims],
        "order": [{"before": o.before, "after": o.after, "label": o.label,
                   "weight": o.weight} for o in a.order]}}

