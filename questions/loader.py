"""Loading templates: the bundled bank, user folders, and located error messages.

Loading a template never runs its author's code: files are read with ``tomllib`` and
validated by the pydantic models of :mod:`questions.schema`, then checked against the
solver (quantities, keys and presets exist; expressions pass the whitelist). Every
problem is reported as ``FILE:LINE: FIELD: reason``.
"""

from __future__ import annotations

import difflib
import os
import re
from collections.abc import Iterable, Mapping, Sequence
from pathlib import Path
from typing import TYPE_CHECKING, Any, Protocol

from msgspec import Struct, field

from questions.errors import FieldError, TemplateError, UnknownTemplate
from questions.located import field_name, line_of

if TYPE_CHECKING:  # pydantic and the schema load only when a template is parsed
    from pydantic import ValidationError

    from questions.packs import Pack
    from questions.schema import Template

MAX_BYTES = 256 * 1024
"""Largest template file accepted (a question is a page of text, not a data set)."""


class Problem(Struct, frozen=True):
    """One thing wrong with a template file."""

    file: str
    line: int
    field: str
    reason: str

    def __str__(self) -> str:
        return f"{self.file}:{self.line}: {self.field}: {self.reason}"


class TemplateFileError(TemplateError):
    """A template file that cannot be used; carries every problem found."""

    def __init__(self, problems: list[Problem]) -> None:
        super().__init__("; ".join(str(p) for p in problems))
        self.problems = problems


# ---------------------------------------------------------------- loading one file


def read_template_text(path: Path | str) -> str:
    """The text of a template file, read defensively (see :func:`read_text_file`: regular
    files only, at most ``MAX_BYTES``, UTF-8 with or without a BOM).

    Raises:
        TemplateFileError: the file cannot be used, located at line 1.
    """
    from questions.textfile import TextFileError, read_text_file

    try:
        return read_text_file(path, MAX_BYTES)
    except (TextFileError, OSError) as exc:
        reason = str(exc) if isinstance(exc, TextFileError) else \
            f"cannot read: {exc.strerror or exc}"
        if "limit" in reason:
            reason += " for a template"
        raise TemplateFileError([Problem(str(path), 1, "(file)", reason)]) from None


def load_template(path: Path) -> Template:
    """Read, validate and check one template file.

    Raises:
        TemplateFileError: with every problem located as FILE:LINE: FIELD: reason.
    """
    return parse_template(read_template_text(path), str(path))


def parse_template(text: str, name: str = "<template>") -> Template:
    """Validate template text (see :func:`load_template`)."""
    from questions.textfile import MAX_KEY_DEPTH, too_deep

    deep = too_deep(text)
    if deep is not None:
        raise TemplateFileError([Problem(name, deep, "(toml)", f"keys nested more than "
                                         f"{MAX_KEY_DEPTH} deep are not read")])
    try:
        return _parse_template(text.removeprefix("\ufeff"), name)
    except RecursionError:
        raise TemplateFileError([Problem(name, 1, "(toml)", "nested too deeply to read "
                                         "(arrays or tables inside each other)")]) from None
    except MemoryError:
        raise TemplateFileError([Problem(name, 1, "(file)", "too large to read")]) from None


SOLVER_CHECKS_KEPT = 1024
"""Template bodies whose checks against the solver are remembered (a bank of copies
of a few hundred bodies; :data:`_SOLVER_CHECKED`)."""

_SOLVER_CHECKED: dict[str, list[tuple[list[str | int], str]]] = {}
"""A template's data but its id (repr: 1, 1.0 and True apart) -> what
:func:`questions.checks.check_against_solver` found of it."""


def _parse_template(text: str, name: str) -> Template:
    import tomllib  # here, not at the top: a warm bank never parses TOML

    from pydantic import ValidationError

    from questions.checks import check_against_solver
    from questions.schema import Template

    try:
        data = tomllib.loads(text)
    except tomllib.TOMLDecodeError as exc:
        m = re.search(r"line (\d+)", str(exc))
        raise TemplateFileError([Problem(name, int(m.group(1)) if m else 1, "(toml)",
                                         f"not valid TOML: {exc}")]) from exc
    try:
        template = Template.model_validate(data)
        template.all_parts()  # a single-part template's Part is validated only here
    except ValidationError as exc:
        raise TemplateFileError(schema_problems(exc, data, text, name)) from exc
    # A template equal to one checked before but for its id (a copy under a new id)
    # gets that one's findings: the checks never read the id.
    key = repr([(k, v) for k, v in data.items() if k != "id"])
    found = _SOLVER_CHECKED.get(key)
    if found is None:
        found = check_against_solver(template)
        if len(_SOLVER_CHECKED) >= SOLVER_CHECKS_KEPT:
            _SOLVER_CHECKED.clear()
        _SOLVER_CHECKED[key] = found
    problems = [Problem(name, line_of(text, loc), field_name(loc), reason)
                for loc, reason in found]
    if problems:
        raise TemplateFileError(problems)
    return template


_UNION_MEMBERS = frozenset({"str", "int", "float", "bool"})


def schema_problems(exc: ValidationError, data: dict[str, Any], text: str,
                    name: str) -> list[Problem]:
    """Pydantic's errors as located problems, one per field, in words an author knows."""
    from questions.schema import Template

    problems: list[Problem] = []
    seen: set[tuple[str | int, ...]] = set()
    top_level = {("schema" if k == "schema_" else k) for k in Template.model_fields}
    for err in exc.errors():
        loc = [p for p in err["loc"] if not (isinstance(p, str) and "[" in p)]
        reason = err["msg"].removeprefix("Value error, ")
        if loc and loc[-1] in _UNION_MEMBERS and err["type"].endswith("_type"):
            # A value that may be text, a number or true/false fails once per member.
            loc.pop()
            reason = "should be text, a number or true/false"
        if err["type"].endswith(("_type", "_parsing")) and isinstance(
                err["input"], str | int | float | bool):
            reason += f" (got {err['input']!r})"
        if err["type"] == "extra_forbidden":
            reason = _unknown_field(loc, data)
        elif err["type"] == "string_pattern_mismatch" and loc == ["id"]:
            reason = (f"{err['input']!r} is not an id: use topic/name in lower case "
                      "(letters, digits, - and _), e.g. \"memory/model-state\"")
        cause = (err.get("ctx") or {}).get("error")
        if isinstance(cause, FieldError):  # a whole-model check names its field
            loc += list(cause.field)
        if (len(loc) > 1 and loc[-1] in top_level and loc[0] != "parts"
                and (err["type"] == "extra_forbidden" or loc[0] == "fixed")):
            reason += (f"; {loc[-1]} is a top-level field: move it above the first [table] "
                       f"header (in TOML, a line below [{loc[0]}] belongs to that table)")
        if tuple(loc) in seen:
            continue
        seen.add(tuple(loc))
        # A missing field has no line of its own: point at the prompt it belongs with.
        at = ["prompt"] if loc and loc[0] not in data and "prompt" in data else loc
        problems.append(Problem(name, line_of(text, at), field_name(loc), reason))
    return problems


def _unknown_field(loc: Sequence[str | int], data: dict[str, Any]) -> str:
    from questions import schema

    owner: type[Any] = schema.Template
    walk: list[str | int] = list(loc[:-1])
    models = {"parts": schema.Part, "hints": schema.Hint, "examples": schema.Example,
              "params": schema.ParamSpec}
    by_kind: dict[str, tuple[Any, type[Any], str, str]] = {
        "answer": (schema.answer_models, schema.AnswerFields, "answers", "[answer] has"),
        "mistakes": (schema.mistake_models, schema.MistakeFields, "mistakes",
                     "[[mistakes]] have")}
    kind = table = None
    for i, part in enumerate(walk):
        if isinstance(part, str) and part in by_kind:  # the model of the kind beside it
            beside = _at(data, walk[:i])
            kind = beside.get("answer_kind", "number") if isinstance(beside, dict) else None
            table = part
            owner = by_kind[part][0]().get(str(kind), by_kind[part][1])
        elif isinstance(part, str) and part in models:
            owner = models[part]
        elif isinstance(part, str) and part in owner.model_fields:  # a nested table
            nested = [m for m in _models_in(owner.model_fields[part].annotation)]
            owner = nested[0] if nested else owner
    if walk and walk[0] == "params" and len(walk) == 2:
        owner = schema.ParamSpec
    known = list(owner.model_fields)
    known = [("schema" if k == "schema_" else k) for k in known]
    bad = str(loc[-1])
    close = difflib.get_close_matches(bad, known, n=1, cutoff=0.6)
    if table is not None and kind is not None and (
            walk[-1] == table or walk[-2:-1] == [table]):
        # a field of another kind: say whose it is and what this kind's table has
        models_of, _, plural, has = by_kind[table]
        others = sorted(name for name, model in models_of().items()
                        if bad in model.model_fields)
        if others:
            whose = "answer" if table == "answer" else "answer's mistake"
            return (f"{bad!r} is a field of {' and '.join(others)} {plural}, not of a "
                    f"{kind} {whose} (answer_kind = \"{kind}\"), whose {has} "
                    f"{', '.join(known)}")
    return f"unknown field {bad!r}" + (f" (did you mean {close[0]}?)" if close else "")


def _at(data: Any, path: Sequence[str | int]) -> Any:
    """The value at ``path`` in the parsed TOML (None where there is none)."""
    for step in path:
        try:
            data = data[step]
        except (LookupError, TypeError):
            return None
    return data


def _models_in(annotation: Any) -> list[type[Any]]:
    """The pydantic models an annotation names (``list[Figure]``: Figure)."""
    from typing import get_args

    from pydantic import BaseModel

    if isinstance(annotation, type) and issubclass(annotation, BaseModel):
        return [annotation]
    return [m for arg in get_args(annotation) for m in _models_in(arg)]


# ---------------------------------------------------------------- the bank


class Summary(Protocol):
    """What lists, menus and plans read of a template: a :class:`~questions.schema.Template`
    has these, and so has a compiled-bank entry (:class:`questions.catalog.Entry`),
    which costs no validation."""

    @property
    def id(self) -> str: ...
    @property
    def title(self) -> str: ...
    @property
    def topic(self) -> str: ...
    @property
    def tags(self) -> Sequence[str]: ...
    @property
    def difficulty(self) -> int: ...
    @property
    def kind(self) -> str: ...


class Bank(Struct):
    """Every loaded template, and what went wrong with the ones that did not load.

    Attributes:
        templates: id -> template (bundled first; a user template may not reuse an id).
            From the compiled-bank cache, each template is validated when first read
            (:class:`questions.catalog.Templates`), so a bank of thousands costs nothing
            until a question is drawn.
        sources: id -> file it came from (every id in the bank, loaded or not).
        problems: broken files and duplicate ids, as located messages.
        packs: id -> name of the template pack it came from (bundled and user
            templates are not listed).
        pack_labels: pack name -> ``pack NAME (DIST VERSION)`` for messages.
        listed: id -> summary, for the same ids as ``templates`` (None: the templates
            themselves); see :attr:`summaries`.
    """

    templates: Mapping[str, Template] = field(default_factory=dict)
    sources: dict[str, str] = field(default_factory=dict)
    problems: list[Problem] = field(default_factory=list)
    packs: dict[str, str] = field(default_factory=dict)
    pack_labels: dict[str, str] = field(default_factory=dict)
    listed: Mapping[str, Summary] | None = None

    @property
    def summaries(self) -> Mapping[str, Summary]:
        """id -> id, title, topic, tags, difficulty and kind of every template, without
        validating any: what lists, filters and plans over the whole bank read."""
        return self.templates if self.listed is None else self.listed

    def _in(self, pack_name: str | None) -> str:
        return f" in {self.pack_labels[pack_name]}" if pack_name else ""

    def get(self, template_id: str) -> Template:
        """The template with this id.

        Raises:
            UnknownTemplate: a ``LookupError`` (and a ``QuizError``) with a one-line
                message and a suggestion.
        """
        t = self.templates.get(template_id)
        if t is None:
            raise unknown_template(template_id, self.sources)
        return t


def unknown_template(template_id: str, known: Iterable[str]) -> UnknownTemplate:
    """The error for an id no file has, suggesting the closest one that exists."""
    close = difflib.get_close_matches(template_id, list(known), n=1)
    hint = f" (did you mean {close[0]}?)" if close else ""
    return UnknownTemplate(f"unknown template {template_id!r}{hint}; see quiz templates list")


def bundled_files() -> list[Path]:
    """The bank that ships with the app."""
    return [Path(name) for name in _bundled_names()]


def _bundled_names() -> list[str]:
    # The package's own folder, as importlib.resources.files("questions") gives it for
    # a package on disk (without importing zipfile and the resource readers).
    return _scan(Path(__file__).parent / "bank", [])


def template_files(folder: Path) -> list[Path]:
    """The template files in a user folder (recursively), or [] when it does not exist."""
    return scan_folder(folder)[0]


def scan_folder(folder: Path) -> tuple[list[Path], list[Problem]]:
    """The ``*.toml`` files under `folder` (recursively, links to folders not followed),
    and a problem for the folder or any subfolder that cannot be read. A folder that does
    not exist has no files and no problem (the user folder is optional)."""
    problems: list[Problem] = []
    return [Path(name) for name in _scan(folder, problems)], problems


def _scan(folder: Path, problems: list[Problem]) -> list[str]:
    """:func:`scan_folder` as path strings, in the same order (a ``Path`` per file and
    sorting by ``Path`` took a quarter of a second for 6,500 files)."""
    if not folder.exists():
        return []
    if not folder.is_dir():
        problems.append(Problem(str(folder), 1, "(folder)", "not a folder"))
        return []

    def unreadable(exc: OSError) -> None:
        problems.append(Problem(str(exc.filename or folder), 1, "(folder)",
                                f"cannot read this folder: {exc.strerror or exc}"))

    files: list[str] = []
    for root, _dirs, names in os.walk(folder, onerror=unreadable):
        here = str(Path(root))  # as Path(root) / name would print: "./a" is "a"
        files += [here + os.sep + name if here != "." else name
                  for name in names if name.endswith(".toml")]
    # Path's order: part by part ("a/b" before "a-c"), case-folded where paths are.
    files.sort(key=lambda name: os.path.normcase(name).split(os.sep))
    return files


class BankFiles(Struct):
    """Where a bank's templates come from, in load order.

    Attributes:
        names: the bundled bank's files, then each pack's, then each user folder's.
        packs: file -> name of the template pack it belongs to.
        pack_labels: pack name -> ``pack NAME (DIST VERSION)`` for messages.
        problems: packs and folders that could not be read.
    """

    names: list[str] = field(default_factory=list)
    packs: dict[str, str] = field(default_factory=dict)
    pack_labels: dict[str, str] = field(default_factory=dict)
    problems: list[Problem] = field(default_factory=list)

    @property
    def files(self) -> list[Path]:
        """The files, in load order."""
        return [Path(name) for name in self.names]


def bank_files(extra_dirs: Sequence[Path] = (), *, bundled: bool = True,
               packs: Sequence[Pack] | None = None, cache: Path | None = None) -> BankFiles:
    """Every template file of a bank: the bundled bank, installed template packs and
    user folders, in that order.

    Args:
        extra_dirs: user template folders.
        bundled: whether to include the bank that ships with the app.
        packs: the template packs to include; None: every installed one
            (:func:`questions.packs.discover`).
        cache: the compiled-bank cache (:mod:`questions.catalog`); the installed packs
            are kept beside it (``packs.json``) while the same distributions are
            installed. None: look for packs every time.
    """
    from questions.packs import discover

    out = BankFiles(_bundled_names() if bundled else [])
    if packs is None:
        packs = discover(None if cache is None else cache.with_name("packs.json"))
    for pack in packs:
        if pack.folder is None:
            out.problems.append(Problem(pack.label, 0, "entry point", str(pack.problem)))
            continue
        found = _scan(pack.folder, out.problems)
        out.names += found
        out.packs.update((name, pack.name) for name in found)
        out.pack_labels[pack.name] = pack.label
    for d in extra_dirs:
        out.names += _scan(Path(d), out.problems)
    return out
