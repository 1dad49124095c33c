"""`quiz export anki`: the produced .apkg opened as what it is (a zip holding an SQLite
collection), and its notes, fields, tags and ids checked."""

from __future__ import annotations

import json
import sqlite3
import zipfile
from pathlib import Path
from typing import Any

import pytest
from helpers import run_cli

from quiz.core.anki import DECK_ID, FIELDS, MODEL_ID, note_guid


def read_apkg(path: Path, tmp: Path) -> tuple[list[dict[str, object]], dict[str, Any]]:
    """The notes (fields by name, tags, guid) and the collection row of an .apkg."""
    with zipfile.ZipFile(path) as archive:
        assert "collection.anki2" in archive.namelist()
        archive.extract("collection.anki2", tmp)
    conn = sqlite3.connect(str(tmp / "collection.anki2"))
    notes = []
    for guid, mid, tags, flds in conn.execute("SELECT guid, mid, tags, flds FROM notes "
                                              "ORDER BY id"):
        assert mid == MODEL_ID
        notes.append({"guid": guid, "tags": tags.split(),
                      **dict(zip(FIELDS, flds.split("\x1f"), strict=True))})
    models, decks = conn.execute("SELECT models, decks FROM col").fetchone()
    conn.close()
    return notes, {"models": json.loads(models), "decks": json.loads(decks)}


def export(capsys: pytest.CaptureFixture[str], tmp_path: Path, *argv: str) -> tuple[int, str]:
    try:
        code, out, err = run_cli(capsys, "--data-dir", str(tmp_path / "data"), "export",
                                 "anki", *argv)
    except SystemExit as exc:  # a usage error, raised by argparse
        code = int(str(exc.code))
        out, err = capsys.readouterr()
    assert err == "" or code == 2
    return code, out + err


def test_deck_holds_seeded_variants_with_key_range_derivation_and_tags(
    tmp_path: Path, capsys: pytest.CaptureFixture[str],
) -> None:
    out = tmp_path / "deck.apkg"
    code, printed = export(capsys, tmp_path, "--template", "memory/model-state",
                           "--variants", "3", "--out", str(out))
    assert code == 0 and "Wrote 3 cards" in printed
    notes, col = read_apkg(out, tmp_path)
    assert [n["Variant"] for n in notes] == [f"memory/model-state#{s}" for s in range(3)]
    assert str(DECK_ID) in col["decks"] and str(MODEL_ID) in col["models"]
    for seed, note in enumerate(notes):
        code, asked, _ = run_cli(capsys, "ask", f"memory/model-state#{seed}", "--json")
        data = json.loads(asked)
        assert note["guid"] == note_guid("memory/model-state", data["version"], seed, 1)
        assert note["Answer"] == data["expected"]["display"]
        assert str(note["Accepted"]).startswith("Accepted: ") and "(±" in str(note["Accepted"])
        # The worked solution, from the structured derivation: numbered steps, the answer.
        assert "(model_state_bytes)</p><ol><li>" in str(note["Derivation"])
        assert f"<b>Answer: {data['expected']['display']}" in str(note["Derivation"])
        assert "<b>" in str(note["Mistakes"])  # the template's named mistakes
        assert str(note["Parameters"]).startswith("model = ")
        assert note["tags"] == ["topic::memory", "rapid-fire-1"]


def test_reexport_gives_the_same_note_ids_so_anki_updates_instead_of_duplicating(
    tmp_path: Path, capsys: pytest.CaptureFixture[str],
) -> None:
    first, second = tmp_path / "a.apkg", tmp_path / "b.apkg"
    export(capsys, tmp_path, "--tag", "rapid-fire-6", "--variants", "2", "--out", str(first))
    export(capsys, tmp_path, "--tag", "rapid-fire-6", "--variants", "2", "--out", str(second))
    (tmp_path / "a").mkdir()
    (tmp_path / "b").mkdir()
    notes_a, _ = read_apkg(first, tmp_path / "a")
    notes_b, _ = read_apkg(second, tmp_path / "b")
    assert notes_a and [n["guid"] for n in notes_a] == [n["guid"] for n in notes_b]
    assert len({n["guid"] for n in notes_a}) == len(notes_a)
    assert all("rapid-fire-6" in n["tags"] for n in notes_a)  # type: ignore[operator]


def test_note_ids_change_with_version_seed_and_part() -> None:
    base = note_guid("memory/model-state", 1, 7, 1)
    assert base == note_guid("memory/model-state", 1, 7, 1)
    assert len({base, note_guid("memory/model-state", 2, 7, 1),
                note_guid("memory/model-state", 1, 8, 1),
                note_guid("memory/model-state", 1, 7, 2)}) == 4


def test_scenarios_give_a_note_per_part_and_choices_show_their_options(
    tmp_path: Path, capsys: pytest.CaptureFixture[str],
) -> None:
    out = tmp_path / "deck.apkg"
    code, _ = export(capsys, tmp_path, "--template", "scenario/lay-it-out",
                     "--template", "memory/does-it-fit", "--variants", "1", "--out", str(out))
    assert code == 0
    notes, _ = read_apkg(out, tmp_path)
    parts = [n for n in notes if str(n["Variant"]).startswith("scenario/lay-it-out#0 part")]
    assert len(parts) >= 2
    [choice] = [n for n in notes if n["Variant"] == "memory/does-it-fit#0"]
    assert "a) " in str(choice["Prompt"]) and str(choice["Answer"])[1] == ")"


@pytest.mark.parametrize(("argv", "message"), [
    (["--topic", "no-such-topic"], "no template matches topic no-such-topic"),
    (["--variants", "0"], "expected a whole number from 1 to 1,000"),
    (["--out", "."], "is a folder"),
])
def test_bad_export_arguments_are_one_line_and_exit_2(
    tmp_path: Path, capsys: pytest.CaptureFixture[str], argv: list[str], message: str,
) -> None:
    code, printed = export(capsys, tmp_path, *argv)
    assert code == 2 and message in printed and printed.count("\n") == 1
