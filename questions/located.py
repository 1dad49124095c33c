"""Where a problem is in a template file: a field path's line and its name.

Kept apart from the loader and the checks so that both place problems the same way
(neither imports the other's job to do it).
"""

from __future__ import annotations

import re
from collections.abc import Sequence

AT = "\x00"
"""Put before a text as the last item of a field path, it places a problem on the line
that holds that text (a placeholder in a long text field), from the field's line on."""

_AT = AT



def line_of(text: str, loc: Sequence[str | int]) -> int:
    """Best-effort line of a field path such as ('parts', 1, 'answer', 'quantity')."""
    lines = text.splitlines()
    start = 0
    for i, part in enumerate(loc):
        if isinstance(part, int):
            continue
        if part.startswith(_AT):  # the line that holds this text, from the field's line on
            needle = part[len(_AT):]
            start = next((n for n in range(start, len(lines)) if needle in lines[n]), start)
            continue
        nth = loc[i + 1] if i + 1 < len(loc) and isinstance(loc[i + 1], int) else 0
        pattern = re.compile(rf"^\s*(\[\[?[\w.]*\b{re.escape(part)}\]\]?|{re.escape(part)}"
                             rf"\s*=|\"?{re.escape(part)}\"?\s*=)")
        seen = -1
        for n in range(start, len(lines)):
            if pattern.search(lines[n]):
                seen += 1
                if seen == nth:
                    start = n
                    break
    return start + 1 if lines else 1


def locate(text: str, loc: Sequence[str | int]) -> tuple[int, str]:
    """The line of a field path in template text, and the path as a field name.

    >>> locate('id = "a/b"\\n[answer]\\nquantity = "params"\\n', ["answer", "quantity"])
    (3, 'answer.quantity')
    """
    return line_of(text, loc), field_name(loc)


def field_name(loc: Sequence[str | int]) -> str:
    out = ""
    for part in loc:
        if isinstance(part, str) and part.startswith(_AT):
            continue
        out += f"[{part}]" if isinstance(part, int) else (f".{part}" if out else str(part))
    return out or "(file)"
