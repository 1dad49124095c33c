"""Tags with a meaning: the interview's rapid-fire items (``rapid-fire-N``) and the areas
of the questions interviews ask next (:data:`AREAS`: decode, cost, moe ...).

A template's ``tags`` are free words, except ``rapid-fire-N``, which marks the
interview's rapid-fire item N that the template drills; :data:`RAPID_FIRE` names them.
"""

from __future__ import annotations

__all__ = ["AREAS", "RAPID_FIRE", "rapid_fire_number", "tag_label"]

RAPID_FIRE: dict[str, str] = {
    "rapid-fire-1": "model-state and activation bytes",
    "rapid-fire-2": "FLOPs of a training run",
    "rapid-fire-3": "the five axes and what each divides",
    "rapid-fire-4": "axes that leave activations alone",
    "rapid-fire-5": "why TP stays inside a node",
    "rapid-fire-6": "gradient all-reduce volume",
    "rapid-fire-7": "the cheapest axis on the wire",
}
"""Short names of the interview's rapid-fire items (tags ``rapid-fire-N``)."""

AREAS: dict[str, str] = {
    "decode": "decode is memory-bound",
    "prefill": "prefill and time to first token",
    "cost": "GPU-hours and dollars",
    "scaling-laws": "Chinchilla and compute-optimal runs",
    "batch-size": "how a global batch is made",
    "recompute": "recomputation: memory for FLOPs",
    "precision": "FP8 and quantized weights",
    "moe": "mixture of experts",
    "overlap": "hiding communication behind compute",
    "reliability": "checkpoints and failures",
    "long-context": "attention at long context",
    "topology": "fabrics and NVLink domains",
    "speculative-decoding": "speculative decoding",
    "lora": "LoRA and QLoRA memory",
    "logits": "the logits' memory",
}
"""The interview's next questions beyond the rapid-fire list, by tag, with short names."""


def tag_label(tag: str) -> str:
    """A tag as lists show it: rapid-fire items get their short name.

    >>> tag_label("rapid-fire-2"), tag_label("kv-cache"), tag_label("moe")
    ('#2 FLOPs of a training run', 'kv-cache', 'moe: mixture of experts')
    """
    name = RAPID_FIRE.get(tag)
    if name:
        return f"#{tag.rsplit('-', 1)[1]} {name}"
    area = AREAS.get(tag)
    return f"{tag}: {area}" if area else tag




def rapid_fire_number(tag: str) -> int | None:
    """The item number of a ``rapid-fire-N`` tag, or None for any other tag.

    >>> rapid_fire_number("rapid-fire-3"), rapid_fire_number("kv-cache")
    (3, None)
    """
    if not tag.startswith("rapid-fire-"):
        return None
    number = tag.removeprefix("rapid-fire-")
    return int(number) if number.isdigit() else None
