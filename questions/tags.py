"""Tags with a meaning: the interview's rapid-fire items (``rapid-fire-N``).

A template's ``tags`` are free words, except ``rapid-fire-N``, which marks the
interview's rapid-fire item N that the template drills; :data:`RAPID_FIRE` names them.
"""

from __future__ import annotations

__all__ = ["RAPID_FIRE", "rapid_fire_number", "tag_label"]

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


def tag_label(tag: str) -> str:
    """A tag as lists show it: rapid-fire items get their short name.

    >>> tag_label("rapid-fire-2"), tag_label("kv-cache")
    ('#2 FLOPs of a training run', 'kv-cache')
    """
    name = RAPID_FIRE.get(tag)
    return f"#{tag.rsplit('-', 1)[1]} {name}" if name else tag




def rapid_fire_number(tag: str) -> int | None:
    """The item number of a ``rapid-fire-N`` tag, or None for any other tag.

    >>> rapid_fire_number("rapid-fire-3"), rapid_fire_number("kv-cache")
    (3, None)
    """
    if not tag.startswith("rapid-fire-"):
        return None
    number = tag.removeprefix("rapid-fire-")
    return int(number) if number.isdigit() else None
