"""The `[answer]` table of each answer kind, one pydantic model per kind's module.

Apart from the kinds' modules one level up, which a one-shot draw imports without
pydantic (it draws from the compiled bank's views): a kind's entry names its model
through ``answer_fields``, imported only when a template of that kind is validated.
Every model derives from :class:`questions.fields.AnswerFields` (the fields all kinds
share) and refuses what it does not know, so a field of another kind is an error.
"""
