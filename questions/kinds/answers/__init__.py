"""The `[answer]` table of each answer kind, and how its `[[mistakes]]` are recognised:
one module per kind's models.

Apart from the kinds' modules one level up, which a one-shot draw imports without
pydantic (it draws from the compiled bank's views): a kind's entry names its models
through ``answer_fields`` and ``mistake_fields``, imported only when a template of that
kind is validated. Every `[answer]` model derives from
:class:`questions.fields.AnswerFields` and every mistake model from
:class:`questions.fields.MistakeFields` (the fields all kinds share); each refuses what
it does not know, so a field of another kind is an error.
"""
