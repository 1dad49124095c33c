"""Every text a learner reads renders its `{placeholders}`: choices, hints, feedback,
explanations and notes, with short preset names, number formats and lookups."""

from __future__ import annotations

from questions.derivation import explanation_of
from questions.loader import parse_template
from questions.variants import make_variant, short_name

TEMPLATE = '''
id = "pipeline/text-test"
title = "Placeholders everywhere"
topic = "pipeline"
answer_kind = "multi"
prompt = "On {gpu.short} with pp = {pp}, which hold? The bubble is {pp_bubble:.0%}."
choices = ["the bubble is {pp_bubble:.1%}", "{gpu.short} reads {hbm_bw} from HBM",
           "{gpu} is a {gpu.name}"]

[params.gpu]
choices = ["b200"]

[params.pp]
choices = [4]

[fixed]
microbatches = 12

[answer]
correct = ["a", "b"]
explanation = "With m = {microbatches:raw} micro-batches the bubble is {pp_bubble:.0%}."

[[hints]]
text = "(p - 1) / m with p = {pp}"

[[mistakes]]
name = "forgot the HBM"
choice = ["a"]
feedback = "The {gpu.short} also reads {hbm_bw:both}."
'''


def test_every_text_field_is_rendered() -> None:
    t = parse_template(TEMPLATE, "t.toml")
    pv = make_variant(t, 0).parts[0]
    assert pv.prompt == "On B200 with pp = 4, which hold? The bubble is 25%."
    # The options show in the variant's own order; pv.labels says where each went.
    a, b, c = (pv.spec.choices[ord(pv.labels[x]) - ord("a")] for x in "abc")
    assert a == "the bubble is 25.0%"
    assert b.startswith("B200 reads ") and "TB/s" in b
    assert c == "NVIDIA B200 (DGX B200) is a b200"
    assert pv.spec.hints[0].text == "(p - 1) / m with p = 4"
    assert pv.mistakes[0].feedback.startswith("The B200 also reads ")
    assert "{" not in pv.mistakes[0].feedback
    assert "With m = 12 micro-batches the bubble is 25%." in explanation_of(pv)


def test_short_names() -> None:
    assert short_name("gpu", "b200") == "B200"
    assert short_name("gpu", "a100") == "A100"
    assert short_name("gpu", "mi300x") == "MI300X"
    assert short_name("model", "llama3-70b") == "Llama 3 70B"
