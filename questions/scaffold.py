"""The starting template that ``quiz templates new`` writes.

The scaffold is a complete, working question (the KV cache of an inference batch) whose
comments explain each field, so an author can change it step by step and check it after
every edit. It uses every common feature: parameters drawn from choices and from a range,
a constraint, fixed keys, an answer taken from a solver quantity, known mistakes of the
three numeric kinds (``scale``, ``expr``, ``set``), hints and examples.

Draws depend on the template id (the seed is ``"<id>#<seed>"``), so the one example that
types a concrete number is computed for the id being written.
"""

from __future__ import annotations

import re
import textwrap

from questions.errors import TemplateError
from questions.schema import TOPICS

ID_PATTERN = re.compile(r"^[a-z0-9][a-z0-9_-]*(/[a-z0-9][a-z0-9_-]*)+$")
"""The shape of a template id (the same pattern as the ``id`` field of the schema)."""

_MISTAKE = "counted keys only"

_TEXT = '''\
# A question template for quiz: <<ID>>
#
# Written by `quiz templates new`. It already works as it is; make it your own one edit at
# a time and check it after each edit:
#     quiz templates validate <<FILE>>
#     quiz templates test <<FILE>>
#     quiz templates preview <<FILE>>
# AUTHORING.md explains every field. A template is data: nothing in it is ever run as
# code. Conditions and expressions are read by a small whitelist (numbers, names,
# + - * / // % **, comparisons, and/or/not, min max ceil floor log2).

schema = 1                # format version of this file; leave it at 1
# topic/name. Your history and review schedule follow the id, so keep it once in use.
id = "<<ID>>"
version = 1               # bump it whenever you change what the question asks or expects
title = "<<TITLE>>"
<<TOPICS>>
topic = "<<TOPIC>>"
tags = ["kv-cache"]       # free words; "rapid-fire-N" (N = 1..7) marks an interview item
difficulty = 1            # 1 easy, 2 medium, 3 hard
expected_seconds = 60     # how long a prepared person needs; used by scheduling

# The prompt. {name} shows a parameter, a solver key or a solver quantity as people read
# it ("Llama 3 70B", "8,192", "2 B"); {name:raw} shows the bare value.
prompt = """
A server runs {model} for inference with a context of {seq} tokens and a batch of
{micro_batch} sequences. The KV cache is kept in BF16 ({kv_bytes} per element). How much
memory does the KV cache take, over all layers?
"""

# Conditions every variant meets; a draw that fails one is drawn again. (Like every plain
# `key = value` line, this must stand above the first [table] header: in TOML, a line
# below a header belongs to that table.)
constraints = ["seq * micro_batch <= 65536"]

# Parameters: every variant (template + seed) draws each of these from its seed.
# `model` and `gpu` pick presets (see `quiz solve --help`); any other name is a solver key.
[params.model]
choices = ["llama3-8b", "llama3-70b", "mixtral-8x7b"]

[params.seq]
choices = [4096, 8192, 16384, 32768]

[params.micro_batch]
range = [1, 16]           # drawn from [low, high]; also: step, log, sig (see AUTHORING.md)
integer = true            # rounded to a whole number before the answer is derived

[fixed]                   # solver keys set for every variant
kv_bytes = 2

[answer]
quantity = "kv_cache_bytes"   # a solver quantity (`quiz solve --list`) ...
# expr = "kv_cache_bytes / hbm_bytes"   # ... or an expression over quantities and keys
tolerance = 0.03              # within 3% grades correct

# Known mistakes, checked in order after the key. Each gives the wrong answer one way:
# `scale` (the key times a factor), `expr` (another expression) or `set` (the solver
# re-run with some keys changed). `credit` is the partial score (0 = none).
[[mistakes]]
name = "<<MISTAKE>>"
scale = 0.5
credit = 0.25
feedback = "Half the cache: each layer stores a key and a value per token, hence the 2."

[[mistakes]]
name = "one KV head per query head"
expr = "2 * layers * heads * head_dim * seq * micro_batch * kv_bytes"
feedback = "With grouped-query attention only kv_heads heads are cached, not one per query head."

[[mistakes]]
name = "FP32 cache"
set = { kv_bytes = 4 }
credit = 0.25
feedback = "The cache is BF16, 2 bytes per element, not 4."

# Hints, shown one at a time on request; each costs part of the score.
[[hints]]
text = "Each layer keeps a key and a value for every token, per KV head."
cost = 0.2

[[hints]]
text = "2 x layers x kv_heads x head_dim x seq x batch x bytes per element."
cost = 0.5

# Examples: answers a user might type and the verdict each must get. `quiz templates test`
# grades them. "{key}" stands for the key as displayed. The numbers below belong to seed 0
# of this id: draws depend on the id, so after renaming it, take the new figures from
# `quiz templates preview`.
[[examples]]
answer = "{key}"
verdict = "correct"

[[examples]]
answer = "<<MISTAKE_ANSWER>>"
verdict = "partial"
mistake = "<<MISTAKE>>"

[[examples]]
answer = "a lot"
verdict = "invalid"
'''


class ScaffoldError(TemplateError):
    """An id that a new template cannot be written under; the message says why."""


def check_id(template_id: str) -> str:
    """Check that `template_id` can name a new template and return its topic.

    Raises:
        ScaffoldError: the id is not `topic/name` in lower case, or its first part is not
            a topic (with a suggestion for a near miss).
    """
    import difflib

    if not ID_PATTERN.fullmatch(template_id):  # match() would allow a final newline
        raise ScaffoldError(f"{template_id!r} is not a template id: use topic/name in lower "
                            "case (letters, digits, - and _), e.g. memory/my-question")
    topic = template_id.split("/", 1)[0]
    if topic not in TOPICS:
        close = difflib.get_close_matches(topic, TOPICS, n=1, cutoff=0.6)
        hint = f" (did you mean {close[0]}?)" if close else ""
        raise ScaffoldError(f"{topic!r} is not a topic{hint}; an id starts with one of "
                            f"{', '.join(TOPICS)}")
    return topic


def _title(template_id: str) -> str:
    name = template_id.rsplit("/", 1)[1]
    words = re.sub(r"[-_]+", " ", name).strip().capitalize()
    return f"{words} (draft)"[:80]


def scaffold(template_id: str, file: str = "FILE") -> str:
    """The text of a new, working template with id `template_id`.

    Args:
        template_id: `topic/name`; the topic must be one of the schema's topics.
        file: the path shown in the file's comments (where it will be written).

    Returns:
        TOML text that validates and whose examples and properties hold.

    Raises:
        ScaffoldError: a bad id (see :func:`check_id`).
    """
    from questions.kinds import kind_of
    from questions.loader import parse_template
    from questions.variants import make_variant
    from solver.units import format_value

    topic = check_id(template_id)
    text = (_TEXT.replace("<<ID>>", template_id).replace("<<FILE>>", file)
            .replace("<<TITLE>>", _title(template_id)).replace("<<TOPIC>>", topic)
            .replace("<<TOPICS>>", textwrap.fill(f"One of: {', '.join(TOPICS)}.", 88,
                                                 initial_indent="# ", subsequent_indent="# "))
            .replace("<<MISTAKE>>", _MISTAKE))
    # The partial example types the mistake's number at seed 0, which depends on the id.
    draft = parse_template(text.replace("<<MISTAKE_ANSWER>>", "{key}"), file)
    part = make_variant(draft, 0).parts[0]
    value = next(kind_of(part.kind).mistake_value(m) for m in part.mistakes
                 if m.name == _MISTAKE)
    assert value is not None and part.key.unit is not None
    return text.replace("<<MISTAKE_ANSWER>>", format_value(value, part.key.unit))
