"""User settings: a pydantic model read from and written to a small TOML file.

The file lives in the data folder (``quiz.locations.config_path``) and holds flat
``key = value`` lines. Reading it never crashes the app: a missing file gives the
defaults, and every problem (bad TOML, a value of the wrong type or out of range, an
unknown key) becomes a warning line ``FILE[:LINE]: FIELD: reason`` while the offending
field falls back to its default. The other, valid fields are kept, so one typo does
not silently reset everything else.
"""

from __future__ import annotations

import contextlib
import os
import re
import tempfile
import tomllib
from collections.abc import Collection
from pathlib import Path
from typing import TYPE_CHECKING, Any

from pydantic import BaseModel, ConfigDict, Field, ValidationError

from questions.private import private_folder
from quiz.core.outputs import check_target
from quiz.core.settings_cache import MAX_SETTINGS_BYTES, remember

if TYPE_CHECKING:
    import tomlkit

__all__ = ["MAX_SETTINGS_BYTES", "Settings", "load_settings", "save_settings"]


class Settings(BaseModel):
    """Everything the user can tune. Unknown keys are rejected (``extra="forbid"``)."""

    # strict: TOML values are already typed, so "10" for an int is a mistake worth a
    # warning rather than a silent coercion. The docstring under each field is its
    # description, which save_settings writes as a comment above the key (read by
    # questions.fielddocs when saving, not by pydantic at every start).
    model_config = ConfigDict(
        extra="forbid", strict=True, validate_assignment=True
    )

    new_per_day: int = Field(default=10, ge=0, le=10_000)
    """New questions (templates never seen before) the daily drill brings in per day."""

    reviews_per_day: int = Field(default=100, ge=0, le=100_000)
    """Most reviews (questions due again) the daily drill shows per day."""

    mock_minutes: int = Field(default=30, ge=1, le=240)
    """Length of a mock interview, in minutes."""

    mock_questions: int = Field(default=8, ge=1, le=50)
    """Number of questions in a mock interview."""

    mock_hints: bool = False
    """Whether hints can be revealed in a mock interview (real interviews give none)."""

    theme: str = Field(default="textual-dark", min_length=1, max_length=100)
    """The colour theme: any Textual theme (the command palette also picks one)."""

    tolerance_scale: float = Field(default=1.0, gt=0, le=100, allow_inf_nan=False)
    """Multiplies every template's relative tolerance (2.0 grades twice as leniently)."""

    desired_retention: float = Field(default=0.9, ge=0.80, le=0.97, allow_inf_nan=False)
    """The chance of recall the daily drill schedules reviews for (higher: more reviews)."""



def _line_of(text: str, key: str) -> int | None:
    # Only for pointing the user at the right line: a flat file has one `key =` line
    # per key, so a regex is enough (tomllib does not report positions of values).
    pattern = re.compile(rf"^\s*[\"']?{re.escape(key)}[\"']?\s*=", re.MULTILINE)
    match = pattern.search(text)
    if match is None:
        return None
    return text.count("\n", 0, match.start()) + 1


def _where(path: Path, text: str, key: str) -> str:
    line = _line_of(text, key)
    return f"{path}:{line}" if line is not None else str(path)


RETIRED = frozenset({"expected_seconds"})
"""Settings older versions wrote that are now ignored (expected_seconds: each template
says how long it takes, and the scheduler uses that)."""


def load_settings(path: Path, cache: Path | None = None) -> tuple[Settings, list[str]]:
    """Read the settings file, falling back to defaults field by field.

    Args:
        path: The TOML file; it need not exist.
        cache: Where to store the values read (:mod:`quiz.core.settings_cache`, which
            lets the next start show today's counts before this model is imported);
            None stores nothing.

    Returns:
        The settings and a list of human-readable warnings, one per problem found,
        each naming the file (with the line where it can be found), the field and the
        reason. The list is empty when the file is missing or fully valid.
    """
    from questions.textfile import TextFileError, read_text_file

    try:
        text: str | None = read_text_file(path, MAX_SETTINGS_BYTES)
    except FileNotFoundError:
        text = None
    except (OSError, TextFileError) as exc:
        reason = exc if isinstance(exc, TextFileError) else exc.strerror or exc
        return Settings(), [f"{path}: cannot read settings ({reason}); using defaults"]
    settings, warnings = _validate(path, text)
    if cache is not None:
        remember(cache, text, settings.model_dump())
    return settings, warnings


def _validate(path: Path, text: str | None) -> tuple[Settings, list[str]]:
    """What :func:`load_settings` makes of the file's text (None: no file)."""
    from questions.textfile import MAX_KEY_DEPTH, too_deep

    if text is None:
        return Settings(), []
    deep = too_deep(text)
    if deep is not None:
        return Settings(), [f"{path}:{deep}: keys nested more than {MAX_KEY_DEPTH} deep; "
                            "using defaults"]
    try:
        data: dict[str, Any] = tomllib.loads(text)
    except tomllib.TOMLDecodeError as exc:
        return Settings(), [f"{path}: not valid TOML ({exc}); using defaults"]
    except (RecursionError, MemoryError):
        return Settings(), [f"{path}: nested too deeply to read; using defaults"]

    # Settings this version no longer has are dropped without a warning: older
    # versions wrote every field, so every existing file still names them.
    data = {k: v for k, v in data.items() if k not in RETIRED}
    warnings: list[str] = []
    # Each round drops the top-level keys pydantic complained about; it ends because
    # every round removes at least one key, and an empty dict is always valid.
    while True:
        try:
            return Settings.model_validate(data), warnings
        except ValidationError as exc:
            bad: set[str] = set()
            for error in exc.errors():
                key = str(error["loc"][0]) if error["loc"] else ""
                if key in bad:
                    continue
                bad.add(key)
                where = _where(path, text, key)
                if error["type"] == "extra_forbidden":
                    warnings.append(f"{where}: {key}: unknown setting; ignored")
                else:
                    default = Settings.model_fields[key].default
                    warnings.append(
                        f"{where}: {key}: {error['msg']} (got {error['input']!r}); "
                        f"using the default {default!r}"
                    )
            if not bad & data.keys():
                # Cannot happen with a flat model; stop rather than loop forever.
                return Settings(), warnings
            data = {k: v for k, v in data.items() if k not in bad}


HEADER = "quiz settings. Unknown keys are rejected; bad values fall back to defaults."
"""The comment at the top of a settings file the app writes from scratch."""


def _document(path: Path) -> tomlkit.TOMLDocument:
    """The user's settings file as an editable document, or a fresh one.

    A file that cannot be read or is not TOML cannot be edited in place: it is kept
    beside the new one as ``<name>.bak`` (so nothing the user wrote is lost) and a
    fresh document is returned.
    """
    import tomlkit
    import tomlkit.exceptions

    from questions.textfile import TextFileError, read_text_file

    text: str | None
    try:
        text = read_text_file(path, MAX_SETTINGS_BYTES)
    except FileNotFoundError:
        text = None
    except (OSError, TextFileError):
        text = None
        _keep_aside(path)
    if text is not None:
        try:
            return tomlkit.parse(text)
        except (tomlkit.exceptions.TOMLKitError, RecursionError):
            _keep_aside(path)
    doc = tomlkit.document()
    doc.add(tomlkit.comment(HEADER))
    return doc


def _keep_aside(path: Path) -> None:
    with contextlib.suppress(OSError):
        os.replace(path, path.with_name(path.name + ".bak"))


def _same(item: object, value: object) -> bool:
    # A value the user wrote differently but equal (1 for 1.0, 1_000 for 1000) keeps
    # its spelling; bool is an int to Python, so types are compared too.
    import tomlkit.items

    plain = item.unwrap() if isinstance(item, tomlkit.items.Item) else item
    return (type(plain) is type(value) and plain == value) or (
        isinstance(plain, int) and not isinstance(plain, bool)
        and isinstance(value, float) and float(plain) == value)


def save_settings(settings: Settings, path: Path, cache: Path | None = None, *,
                  only: Collection[str] | None = None) -> None:
    """Write the settings to the TOML file, keeping what the user wrote there.

    The file is edited, not replaced: comments, blank lines, key order, the spelling
    of unchanged values and keys the app does not know survive (tomlkit). Only the
    lines of changed values change; a setting missing from the file is added at the
    end with its description as a comment above it, so the file documents what can
    be changed. A file that is not valid TOML is kept as ``<name>.bak`` and a fresh
    one written. The new text goes to a temporary file beside ``path`` that is
    renamed over it, so a crash never leaves a half-written file. Parent folders are
    created.

    The file is read again when saving, not when the settings were loaded: with
    ``only``, the keys named there are all that changes, so an edit made to the file by
    hand while the app runs is kept (the settings screen once wrote back every value it
    had read, and every default). A symbolic link (a dotfiles folder) is followed and
    kept.

    Args:
        settings: The settings to write.
        path: The TOML file to edit or create.
        cache: Where to store what the model makes of the new file (as
            :func:`load_settings` does), so that the next start needs no validation
            first; None stores nothing.
        only: The settings to write (the one just edited); None writes them all.
    """
    # tomlkit is imported here, not with the module: the app reads settings at every
    # start but writes them only when the user changes one.
    import tomlkit
    import tomlkit.items

    from questions.fielddocs import field_doc

    private_folder(path.parent)
    doc = _document(path)
    # Keys added after a [table] would land inside it: describe them only in a flat
    # file (a table is an unknown setting anyway, and load_settings warns about it).
    flat = not any(isinstance(v, tomlkit.items.Table | tomlkit.items.AoT)
                   for v in doc.values())
    for name in Settings.model_fields:
        if only is not None and name not in only:
            continue
        value = getattr(settings, name)
        if name in doc:
            if not _same(doc.item(name), value):
                doc[name] = value
            continue
        if flat:
            doc.add(tomlkit.nl())
            description = field_doc(Settings, name)
            if description:
                doc.add(tomlkit.comment(description))
        doc.add(name, value)
    text = tomlkit.dumps(doc)
    target = check_target(path)  # a regular file or none; a link's file, the link kept
    fd, tmp = tempfile.mkstemp(prefix=f".{target.name}.", suffix=".tmp", dir=target.parent)
    try:
        with os.fdopen(fd, "w", encoding="utf-8") as handle:
            handle.write(text)
            handle.flush()
            os.fsync(handle.fileno())
        os.replace(tmp, target)
    except BaseException:
        Path(tmp).unlink(missing_ok=True)
        raise
    if cache is not None:
        # What a start will read is the text written, not ``settings``: keys a file
        # with tables leaves out fall back to their defaults there.
        remember(cache, text, _validate(path, text)[0].model_dump())
