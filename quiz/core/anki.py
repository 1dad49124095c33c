"""Anki export: seeded variants of the bank as an ``.apkg`` deck, for review on a phone.

Each note is one part of one variant. The front shows the prompt, the drawn parameters
and ``TEMPLATE_ID#SEED`` (so any card can be reproduced with ``quiz ask``); the back
shows the key, the range the grader accepts, the worked derivation and the named
mistakes with their feedback. Tags are the topic (``topic::memory``) and the template's
tags (``rapid-fire-3``).

Anki recognises a note it already has by its GUID: here the GUID is a function of the
template id, its version, the seed and the part, so re-importing a newer export updates
the cards (and keeps their review history) instead of adding duplicates, while a new
template version gives new notes. The deck and note type ids are fixed for the same
reason.

Variants are drawn at seeds ``0 … n-1``: the same command on another machine builds the
same deck.
"""

from __future__ import annotations

import hashlib
import html
from collections.abc import Iterable, Sequence
from dataclasses import dataclass
from pathlib import Path
from typing import TYPE_CHECKING, Any, BinaryIO, Final

from questions.derivation import derivation_of
from quiz.core.errors import NoQuestions
from quiz.core.outputs import OutputError, replacing

if TYPE_CHECKING:
    from questions.derivation import Derivation, Step
    from questions.loader import Bank
    from questions.variants import PartVariant, Variant

__all__ = [
    "DECK_ID",
    "DECK_NAME",
    "FIELDS",
    "MODEL_ID",
    "AnkiNote",
    "Skipped",
    "build_notes",
    "derivation_html",
    "note_guid",
    "select_templates",
    "write_apkg",
    "write_apkg_to",
]


def _stable_id(name: str) -> int:
    # Anki ids are 64-bit; genanki recommends ids in [1 << 30, 1 << 31) for models/decks.
    return (1 << 30) + int.from_bytes(hashlib.sha256(name.encode()).digest()[:4], "big") % (
        1 << 30)


DECK_NAME: Final = "quiz: distributed training arithmetic"
DECK_ID: Final = _stable_id("quiz deck")
MODEL_ID: Final = _stable_id("quiz note type v1")
FIELDS: Final = ("Variant", "Prompt", "Parameters", "Answer", "Accepted", "Derivation",
                 "Mistakes")
"""The note type's fields, in order (``Variant`` is the sort field)."""

_CSS: Final = """
.card { font-family: sans-serif; font-size: 18px; text-align: left; }
.variant { color: #888; font-size: 13px; margin-top: 1em; }
.params { font-size: 15px; margin-top: 0.6em; }
.answer { font-size: 22px; font-weight: bold; }
.derivation { font-size: 14px; }
.derivation .formula { font-family: monospace; color: #555; }
.mistakes { font-size: 15px; }
"""
_FRONT: Final = ('<div class="prompt">{{Prompt}}</div>'
                 '{{#Parameters}}<div class="params">{{Parameters}}</div>{{/Parameters}}'
                 '<div class="variant">{{Variant}}</div>')
_BACK: Final = ('{{FrontSide}}<hr id="answer"><div class="answer">{{Answer}}</div>'
                '{{#Accepted}}<div class="accepted">{{Accepted}}</div>{{/Accepted}}'
                '<div class="derivation">{{Derivation}}</div>'
                '{{#Mistakes}}<div class="mistakes">{{Mistakes}}</div>{{/Mistakes}}')


@dataclass(frozen=True, slots=True)
class AnkiNote:
    """One note: field values (HTML), tags and the GUID Anki identifies it by."""

    guid: str
    """Stable identity: template id, version, seed and part."""
    fields: tuple[str, ...]
    """Values for :data:`FIELDS`, HTML-escaped."""
    tags: tuple[str, ...]
    """``topic::TOPIC`` and the template's tags."""


@dataclass(frozen=True, slots=True)
class Skipped:
    """A variant that could not be drawn (reported, not fatal)."""

    variant: str
    """``TEMPLATE_ID#SEED``."""
    reason: str
    """Why."""


def note_guid(template_id: str, version: int, seed: int, part: int) -> str:
    """The note's GUID: same template, version, seed and part → same GUID.

    >>> note_guid("memory/model-state", 1, 7, 1) == note_guid("memory/model-state", 1, 7, 1)
    True
    """
    digest = hashlib.sha256(f"quiz|{template_id}|{version}|{seed}|{part}".encode()).hexdigest()
    return f"quiz-{digest[:20]}"


def select_templates(bank: Bank, *, topics: Sequence[str] = (), tags: Sequence[str] = (),
                     templates: Sequence[str] = ()) -> list[str]:
    """Template ids matching every filter given (any value within one filter).

    Args:
        bank: The loaded templates.
        topics: Keep templates with one of these topics.
        tags: Keep templates with one of these tags (e.g. ``rapid-fire-3``).
        templates: Keep these ids, or ids under these prefixes (``memory/``).

    Raises:
        NoQuestions: nothing matches (the message names the filters).
    """
    out = []
    for tid, t in sorted(bank.templates.items()):
        if topics and t.topic not in topics:
            continue
        if tags and not set(t.tags) & set(tags):
            continue
        if templates and not any(tid == p or tid.startswith(f"{p.rstrip('/')}/")
                                 for p in templates):
            continue
        out.append(tid)
    if not out:
        given = [*(f"topic {x}" for x in topics), *(f"tag {x}" for x in tags),
                 *(f"template {x}" for x in templates)]
        raise NoQuestions(f"no template matches {' and '.join(given)}; see quiz templates "
                          "list")
    return out


def _html(text: str) -> str:
    return html.escape(text).replace("\n", "<br>")


def _accepted(pv: PartVariant) -> str:
    from quiz.core.kinds import kind_of

    return _html(kind_of(pv.kind).accepted_text(pv))


def _answer(pv: PartVariant) -> str:
    from quiz.core.kinds import key_text

    return _html(key_text(pv))


def _front(variant: Variant, pv: PartVariant) -> str:
    prompt = pv.prompt
    if len(variant.parts) > 1:
        prompt = f"{variant.intro}\n\nPart {pv.index} of {len(variant.parts)}: {pv.prompt}"
    from quiz.core.kinds import kind_of

    # What the kind shows under the prompt: the choices, or a table's rows and columns.
    lines = [line.strip() for line in kind_of(pv.kind).prompt_lines(pv)]
    if lines:
        prompt += "\n" + "\n".join(lines)
    return _html(prompt)


def _parameters(variant: Variant) -> str:
    from questions.variants import describe

    return "<br>".join(f"{html.escape(name)} = {html.escape(describe(name, value))}"
                       for name, value in sorted(variant.params.items()))


def _step_html(step: Step) -> str:
    out = html.escape(step.why)
    if step.formula:
        lines = [step.formula, f"= {step.substitution}", f"= {step.result}"]
        out += "<br>" + "<br>".join(f'<span class="formula">{html.escape(line)}</span>'
                                    for line in lines)
    return out


def derivation_html(d: Derivation) -> str:
    """The worked solution as HTML for the back of a card, from the structured
    derivation (the same one the app and ``quiz ask`` render as text)."""
    from questions.derivation import sentence_case

    parts: list[str] = []
    if d.intro:
        parts.append(f"<p>{_html(d.intro)}</p>")
    for sec in d.sections:
        steps = "".join(f"<li>{_step_html(step)}</li>" for step in sec.steps)
        parts.append(f"<p><b>{html.escape(sentence_case(sec.meaning))}</b> "
                     f"({html.escape(sec.quantity)})</p><ol>{steps}</ol>")
        if sec.conventions:
            parts.append(f"<p>Conventions: {html.escape('; '.join(sec.conventions))}.</p>")
    if d.combination:
        parts.append(f"<p>{_step_html(d.combination)}</p>")
    if d.answer:
        parts.append(f"<p><b>Answer: {html.escape(d.answer)}</b></p>")
    return "".join(parts)


def _mistakes(pv: PartVariant) -> str:
    return "<br>".join(
        f"<b>{html.escape(m.name)}</b> ({m.credit:.0%} credit): {html.escape(m.feedback)}"
        for m in pv.mistakes)


def _note(variant: Variant, pv: PartVariant) -> AnkiNote:
    t = variant.template
    label = variant.id if len(variant.parts) == 1 else f"{variant.id} part {pv.index}"
    return AnkiNote(
        guid=note_guid(t.id, t.version, variant.seed, pv.index),
        fields=(html.escape(label), _front(variant, pv), _parameters(variant), _answer(pv),
                _accepted(pv), derivation_html(derivation_of(pv)), _mistakes(pv)),
        tags=(f"topic::{t.topic}", *(tag.replace(" ", "_") for tag in t.tags)),
    )


def build_notes(bank: Bank, template_ids: Iterable[str], seeds: int = 5
                ) -> tuple[list[AnkiNote], list[Skipped]]:
    """Draw ``seeds`` variants (seeds 0 … seeds-1) of each template into notes.

    Returns:
        The notes, in template then seed order, and the variants that could not be drawn.
    """
    from questions.variants import make_variant

    notes: list[AnkiNote] = []
    skipped: list[Skipped] = []
    for tid in template_ids:
        for seed in range(seeds):
            try:
                variant = make_variant(bank.get(tid), seed)
            except (ValueError, LookupError) as exc:
                skipped.append(Skipped(f"{tid}#{seed}", str(exc)))
                continue
            notes.extend(_note(variant, pv) for pv in variant.parts)
    return notes, skipped


def _package(notes: Sequence[AnkiNote]) -> Any:
    import genanki

    model = genanki.Model(
        MODEL_ID, "quiz question", fields=[{"name": name} for name in FIELDS],
        templates=[{"name": "Question", "qfmt": _FRONT, "afmt": _BACK}], css=_CSS)
    deck = genanki.Deck(DECK_ID, DECK_NAME)
    for note in notes:
        deck.add_note(genanki.Note(model=model, fields=list(note.fields),
                                   tags=list(note.tags), guid=note.guid))
    return genanki.Package(deck)


def _write_package(notes: Sequence[AnkiNote], path: Path, shown: Path) -> None:
    """genanki builds the collection in an SQLite file in the temporary folder, then
    zips it to ``path``: a full disk there is an ``sqlite3.Error``, a file size limit an
    ``OSError``; either is one line naming the deck."""
    import sqlite3

    try:
        _package(notes).write_to_file(str(path))
    except (OSError, sqlite3.Error) as exc:
        reason = exc.strerror if isinstance(exc, OSError) and exc.strerror else exc
        raise OutputError(f"{shown}: cannot write the deck: {reason}") from None


def write_apkg(notes: Sequence[AnkiNote], path: Path) -> Path:
    """Write the notes as one deck to an ``.apkg`` file, written whole beside it and
    renamed over it only if it is a regular file or new (:mod:`quiz.core.outputs`).

    Raises:
        OutputError: the path holds something else, or the deck could not be written.
    """
    with replacing(path) as partial:
        _write_package(notes, partial, path)
    return path


def write_apkg_to(notes: Sequence[AnkiNote], stream: BinaryIO) -> None:
    """Write the deck to a binary stream (standard output): built in a temporary file
    first, so a failed build writes nothing."""
    import tempfile

    with tempfile.TemporaryDirectory(prefix="quiz-apkg-") as folder:
        deck = Path(folder) / "quiz.apkg"
        _write_package(notes, deck, Path("<stdout>"))
        with deck.open("rb") as handle:
            while chunk := handle.read(1 << 16):
                stream.write(chunk)
