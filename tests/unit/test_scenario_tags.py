"""A scenario's parts count under the tags they drill, not each under every tag
(issue 12: lay-it-out's parts were fifteen answers to three rapid-fire items)."""

from __future__ import annotations

from pathlib import Path

import pytest

from questions.catalog import load_bank
from questions.errors import TemplateError
from questions.loader import load_template
from quiz.core.session import attempt_tags

BANK = load_bank([], bundled=True)


def test_a_single_question_counts_under_all_its_tags() -> None:
    t = BANK.get("memory/model-state")
    assert attempt_tags(t, 1) == tuple(t.tags)


def test_lay_it_out_counts_each_rapid_fire_item_where_it_is_drilled() -> None:
    t = BANK.get("scenario/lay-it-out")
    tags = [attempt_tags(t, i) for i in range(1, len(t.parts) + 1)]
    assert tags[0] == ("rapid-fire-1", "lay-it-out")
    flat = [tag for part in tags for tag in part]
    assert flat.count("rapid-fire-2") == 1 and flat.count("rapid-fire-5") == 1
    assert flat.count("lay-it-out") == 1


@pytest.mark.parametrize("template_id", sorted(t for t in BANK.templates
                                               if len(BANK.get(t).parts) > 1))
def test_every_scenario_counts_each_unnamed_tag_once(template_id: str) -> None:
    t = BANK.get(template_id)
    flat = [tag for i in range(1, len(t.parts) + 1) for tag in attempt_tags(t, i)]
    named = {tag for p in t.parts for tag in p.tags}
    for tag in t.tags:
        if tag not in named:
            assert flat.count(tag) == 1, tag


def test_a_part_tag_must_be_a_template_tag(tmp_path: Path) -> None:
    source = Path(str(BANK.sources["scenario/network-bottleneck"])).read_text()
    path = tmp_path / "scenario" / "bad.toml"
    path.parent.mkdir()
    path.write_text(source.replace('id = "scenario/network-bottleneck"',
                                   'id = "scenario/bad"')
                    .replace("[[parts]]\n", '[[parts]]\ntags = ["rapid-fire-3"]\n', 1))
    with pytest.raises(TemplateError, match="rapid-fire-3"):
        load_template(path)
