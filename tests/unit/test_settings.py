"""Behaviour of the settings file (quiz.core.settings) and of quiz.locations."""

from __future__ import annotations

import os
import subprocess
import sys
import tomllib
from pathlib import Path

import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st
from pydantic import ValidationError

from quiz import locations
from quiz.core.settings import Settings, load_settings, save_settings

# ----------------------------------------------------------------------- settings


def test_defaults() -> None:
    s = Settings()
    assert s.new_per_day == 10
    assert s.reviews_per_day == 100
    assert s.mock_minutes == 30
    assert s.mock_questions == 8
    assert s.theme == "textual-dark"
    assert s.tolerance_scale == 1.0


def test_every_field_is_documented() -> None:
    from questions.fielddocs import field_doc

    for name in Settings.model_fields:
        assert field_doc(Settings, name), name


def test_missing_file_gives_defaults_without_warnings(tmp_path: Path) -> None:
    assert load_settings(tmp_path / "nope.toml") == (Settings(), [])


def test_valid_file_is_read(tmp_path: Path) -> None:
    path = tmp_path / "config.toml"
    path.write_text('new_per_day = 3\ntheme = "nord"\ntolerance_scale = 2\n')
    loaded, warnings = load_settings(path)
    assert warnings == []
    assert (loaded.new_per_day, loaded.theme, loaded.tolerance_scale) == (3, "nord", 2.0)


@pytest.mark.parametrize(
    ("line", "field"),
    [
        ("new_per_day = -1", "new_per_day"),
        ('new_per_day = "10"', "new_per_day"),  # a string is not an int in TOML
        ("mock_minutes = 0", "mock_minutes"),
        ("mock_minutes = 241", "mock_minutes"),
        ("mock_questions = 51", "mock_questions"),
        ("theme = 5", "theme"),
        ('theme = ""', "theme"),
        ("tolerance_scale = 0.0", "tolerance_scale"),
        ("tolerance_scale = nan", "tolerance_scale"),
        ("reviews_per_day = [1, 2]", "reviews_per_day"),
    ],
)
def test_bad_field_falls_back_to_its_default_with_a_message(
    tmp_path: Path, line: str, field: str
) -> None:
    path = tmp_path / "config.toml"
    path.write_text(f'theme = "kept"\n{line}\n' if field != "theme" else f"{line}\n")
    loaded, warnings = load_settings(path)
    assert getattr(loaded, field) == Settings.model_fields[field].default
    assert len(warnings) == 1
    assert warnings[0].startswith(f"{path}:")
    assert f": {field}: " in warnings[0]
    if field != "theme":
        assert loaded.theme == "kept"  # the good fields survive
        assert warnings[0].startswith(f"{path}:2: {field}: ")


def test_unknown_field_is_rejected(tmp_path: Path) -> None:
    with pytest.raises(ValidationError):
        Settings.model_validate({"new_per_dya": 5})
    path = tmp_path / "config.toml"
    path.write_text("new_per_dya = 5\nmock_minutes = 45\n")
    loaded, warnings = load_settings(path)
    assert loaded.mock_minutes == 45
    assert loaded.new_per_day == 10
    assert warnings == [f"{path}:1: new_per_dya: unknown setting; ignored"]


def test_invalid_toml_gives_defaults_and_names_the_file(tmp_path: Path) -> None:
    path = tmp_path / "config.toml"
    path.write_text("new_per_day = = 3\n")
    loaded, warnings = load_settings(path)
    assert loaded == Settings()
    assert len(warnings) == 1
    assert str(path) in warnings[0]
    assert "TOML" in warnings[0]


def test_unreadable_file_gives_defaults_and_a_warning(tmp_path: Path) -> None:
    path = tmp_path / "config.toml"
    path.write_bytes(b'theme = "\xff\xfe"\n')  # not UTF-8
    loaded, warnings = load_settings(path)
    assert loaded == Settings()
    assert len(warnings) == 1
    assert str(path) in warnings[0]


def test_several_problems_are_all_reported(tmp_path: Path) -> None:
    path = tmp_path / "config.toml"
    path.write_text("new_per_day = -3\nbogus = 1\nmock_questions = 0\nmock_minutes = 20\n")
    loaded, warnings = load_settings(path)
    assert loaded.mock_minutes == 20
    assert sorted(w.split(": ")[1] for w in warnings) == ["bogus", "mock_questions", "new_per_day"]


def test_round_trip_save_load(tmp_path: Path) -> None:
    path = tmp_path / "deep" / "config.toml"
    original = Settings(
        new_per_day=0,
        reviews_per_day=250,
        mock_minutes=45,
        mock_questions=12,
        theme="gruvbox",
        tolerance_scale=1.5,
    )
    save_settings(original, path)
    assert load_settings(path) == (original, [])
    text = path.read_text()
    assert "# New questions (templates never seen before)" in text  # docs become comments
    assert list(tmp_path.glob("deep/.*tmp")) == []  # no temporary file left behind


@settings(max_examples=60, suppress_health_check=[HealthCheck.function_scoped_fixture])
@given(
    theme=st.text(min_size=1, max_size=100),
    scale=st.floats(min_value=1e-6, max_value=100),
)
def test_any_valid_settings_round_trip(tmp_path: Path, theme: str, scale: float) -> None:
    original = Settings(theme=theme, tolerance_scale=scale)
    path = tmp_path / "config.toml"
    save_settings(original, path)
    tomllib.loads(path.read_text(encoding="utf-8"))  # always valid TOML
    assert load_settings(path) == (original, [])


def test_assignment_is_validated() -> None:
    s = Settings()
    with pytest.raises(ValidationError):
        s.mock_minutes = 0


# ----------------------------------------------------------------------- locations


def test_data_dir_precedence_flag_then_env_then_platform(tmp_path: Path) -> None:
    env = {"QUIZ_DATA_DIR": str(tmp_path / "from-env")}
    assert locations.data_dir(tmp_path / "flag", env=env) == tmp_path / "flag"
    assert locations.data_dir(None, env=env) == tmp_path / "from-env"
    platform_dir = locations.data_dir(None, env={})
    assert platform_dir.is_absolute()
    assert "quiz" in platform_dir.parts[-1].lower()


def test_data_dir_is_created_only_when_asked(tmp_path: Path) -> None:
    target = tmp_path / "a" / "b"
    assert locations.data_dir(target) == target
    assert not target.exists()
    assert locations.data_dir(target, ensure=True) == target
    assert target.is_dir()


def test_data_dir_expands_home(monkeypatch: pytest.MonkeyPatch, tmp_path: Path) -> None:
    monkeypatch.setenv("HOME", str(tmp_path))
    assert locations.data_dir("~/quizdata", env={}) == tmp_path / "quizdata"


def test_files_live_in_the_data_dir(tmp_path: Path) -> None:
    assert locations.db_path(tmp_path) == tmp_path / "history.db"
    assert locations.config_path(tmp_path) == tmp_path / "config.toml"
    assert locations.user_templates_dir(tmp_path) == tmp_path / "templates"
    assert locations.backups_dir(tmp_path) == tmp_path / "backups"


def test_extra_template_dirs_from_flag_then_env(tmp_path: Path) -> None:
    a, b, c = (str(tmp_path / name) for name in "abc")
    env = {"QUIZ_TEMPLATES": os.pathsep.join([b, "", c, a])}
    assert locations.extra_template_dirs([a, b], env=env) == [
        Path(a),
        Path(b),
        Path(c),
    ]
    assert locations.extra_template_dirs(env={}) == []


def test_importing_core_modules_does_no_work(tmp_path: Path) -> None:
    """No folder created, no database opened, no Textual imported at import time."""
    code = (
        "import sys\n"
        "import quiz.locations, quiz.core.store, quiz.core.schedule, quiz.core.settings\n"
        "assert 'textual' not in sys.modules, 'quiz.core imported textual'\n"
    )
    env = {
        **os.environ,
        "HOME": str(tmp_path / "home"),
        "XDG_DATA_HOME": str(tmp_path / "xdg"),
        "QUIZ_DATA_DIR": str(tmp_path / "data"),
    }
    subprocess.run([sys.executable, "-c", code], env=env, check=True, cwd=tmp_path)
    assert sorted(p.name for p in tmp_path.iterdir()) == []


def test_a_retired_setting_in_an_old_file_is_ignored_quietly(tmp_path: Path) -> None:
    # Older versions wrote expected_seconds into every settings file; it did nothing
    # (each template says how long it takes), and it must not warn on every start.
    path = tmp_path / "config.toml"
    path.write_text("expected_seconds = 90.0\nmock_minutes = 20\n")
    settings, warnings = load_settings(path)
    assert warnings == [] and settings.mock_minutes == 20


# ----------------------------------------------------------------------- editing in place


USER_FILE = """\
# my settings: lighter drills while travelling
new_per_day = 5   # back to 10 in March

tolerance_scale = 1     # written as an int on purpose
mock_minutes = 45
"""


def test_saving_keeps_the_users_comments_layout_and_spelling(tmp_path: Path) -> None:
    path = tmp_path / "config.toml"
    path.write_text(USER_FILE)
    loaded, _ = load_settings(path)
    loaded.mock_minutes = 60
    save_settings(loaded, path)
    text = path.read_text()
    lines = text.splitlines()
    assert lines[:4] == USER_FILE.splitlines()[:4]  # comments, blank line, "1" for 1.0
    assert lines[4] == "mock_minutes = 60"  # the one changed line
    # Settings the file lacked are appended, each under its description.
    assert "# Most reviews (questions due again)" in text
    assert text.index("reviews_per_day = 100") > text.index("mock_minutes = 60")
    assert load_settings(path) == (loaded, [])


def test_saving_keeps_keys_the_app_does_not_know(tmp_path: Path) -> None:
    path = tmp_path / "config.toml"
    path.write_text('expected_seconds = 90\ncolour = "blue"  # typo of mine\n')
    save_settings(Settings(new_per_day=3), path)
    text = path.read_text()
    assert 'colour = "blue"  # typo of mine' in text
    assert "expected_seconds = 90" in text
    assert tomllib.loads(text)["new_per_day"] == 3


def test_saving_twice_changes_nothing_the_second_time(tmp_path: Path) -> None:
    path = tmp_path / "config.toml"
    save_settings(Settings(theme="nord", mock_hints=True), path)
    first = path.read_text()
    save_settings(Settings(theme="nord", mock_hints=True), path)
    assert path.read_text() == first
    assert first.startswith("# quiz settings.")


def test_a_table_in_the_file_does_not_swallow_added_settings(tmp_path: Path) -> None:
    path = tmp_path / "config.toml"
    path.write_text('theme = "nord"\n\n[stray]\nx = 1\n')
    save_settings(Settings(theme="nord", new_per_day=4), path)
    data = tomllib.loads(path.read_text())
    assert data["new_per_day"] == 4 and data["stray"] == {"x": 1}


def test_a_file_that_is_not_toml_is_kept_aside_not_lost(tmp_path: Path) -> None:
    path = tmp_path / "config.toml"
    path.write_text("new_per_day = = 5\n# my notes\n")
    save_settings(Settings(new_per_day=6), path)
    assert (tmp_path / "config.toml.bak").read_text() == "new_per_day = = 5\n# my notes\n"
    assert load_settings(path) == (Settings(new_per_day=6), [])


def test_saving_one_setting_changes_only_that_key_of_the_file_as_it_is_now(
        tmp_path: Path) -> None:
    """Issue 26: the settings screen wrote back every value it had read (and every
    default), reverting a hand edit made while the app ran."""

    path = tmp_path / "config.toml"
    path.write_text("# mine\nnew_per_day = 5\n")
    settings = Settings(new_per_day=5, mock_minutes=45)
    path.write_text("# mine\nnew_per_day = 9  # edited by hand meanwhile\n")
    save_settings(settings, path, only=("mock_minutes",))
    text = path.read_text()
    assert text.startswith("# mine\nnew_per_day = 9  # edited by hand meanwhile\n")
    assert tomllib.loads(text) == {"new_per_day": 9, "mock_minutes": 45}


def test_saving_follows_a_link_to_the_settings_and_keeps_the_link(tmp_path: Path) -> None:
    real = tmp_path / "dotfiles" / "quiz.toml"
    real.parent.mkdir()
    real.write_text("new_per_day = 5\n")
    link = tmp_path / "data" / "config.toml"
    link.parent.mkdir()
    link.symlink_to(real)
    save_settings(Settings(new_per_day=6), link, only=("new_per_day",))
    assert link.is_symlink() and real.read_text() == "new_per_day = 6\n"
