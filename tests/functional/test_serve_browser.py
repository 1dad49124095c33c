"""`quiz serve` in a real browser: headless Chromium (Debian's `chromium` and
`chromium-driver`, installed by `.ci/run`) opens the page, waits for the home screen,
answers a drill question with its key, sees "Correct", and finds the attempt in
`quiz stats --json`. A screenshot is kept in `.artifacts/` (or `$QUIZ_ARTIFACTS`).

The terminal is drawn on a canvas, so the test reads the screen from the bytes the
server sends: a script installed before the page's own wraps `WebSocket` and keeps the
text of every frame.
"""

from __future__ import annotations

import json
import os
import re
import shutil
import signal
import socket
import subprocess
import sys
import time
from collections.abc import Callable, Iterator
from pathlib import Path
from typing import Any

import pytest

CHROMIUM = shutil.which("chromium") or "/usr/bin/chromium"
CHROMEDRIVER = shutil.which("chromedriver") or "/usr/bin/chromedriver"
ROOT = Path(__file__).resolve().parents[2]
ARTIFACTS = Path(os.environ.get("QUIZ_ARTIFACTS", ROOT / ".artifacts"))
WAIT_S = 90.0  # generous: CI machines are shared, and the first screen loads sympy

if not (os.path.exists(CHROMIUM) and os.path.exists(CHROMEDRIVER)):
    if os.environ.get("CI"):  # CI installs them: their absence there is a failure
        raise RuntimeError("chromium and chromedriver are missing; .ci/run installs them")
    pytest.skip("needs Debian's chromium and chromium-driver (.ci/run installs them)",
                allow_module_level=True)

webdriver = pytest.importorskip("selenium.webdriver")

# Installed before the page's scripts: keep the text of every frame the app sends.
CAPTURE = r"""
window.__quizScreen = "";
const NativeWebSocket = window.WebSocket;
window.WebSocket = function (url, protocols) {
  const ws = protocols === undefined ? new NativeWebSocket(url)
                                     : new NativeWebSocket(url, protocols);
  const decoder = new TextDecoder();
  ws.addEventListener("message", (event) => {
    if (typeof event.data !== "string") {
      window.__quizScreen += decoder.decode(new Uint8Array(event.data), {stream: true});
    }
  });
  return ws;
};
window.WebSocket.prototype = NativeWebSocket.prototype;
"""
_ESCAPES = re.compile(r"\x1b\[[0-9;?<>=]*[ -/]*[@-~]|\x1b\][^\x07\x1b]*(\x07|\x1b\\)|"
                      r"\x1b[()][A-Z0-9]|\x1b[=>78]")


def free_port() -> int:
    with socket.socket() as probe:
        probe.bind(("127.0.0.1", 0))
        return int(probe.getsockname()[1])


def quiz_cli(data: Path, *argv: str) -> subprocess.CompletedProcess[str]:
    return subprocess.run([sys.executable, "-m", "quiz.cli", "--data-dir", str(data), *argv],
                          capture_output=True, text=True, timeout=120)


@pytest.fixture
def server(tmp_path: Path) -> Iterator[tuple[int, Path, str]]:
    """`quiz serve` on a free port, in its own process group (killed whole at the end:
    textual-serve starts one app process per tab): its port, data folder and the launch
    token it printed."""
    data = tmp_path / "data"
    port = free_port()
    log = (tmp_path / "serve.log").open("w")
    proc = subprocess.Popen(
        [sys.executable, "-m", "quiz.cli", "--data-dir", str(data), "serve", "--port",
         str(port)], stdout=log, stderr=subprocess.STDOUT, start_new_session=True)
    try:
        deadline = time.monotonic() + WAIT_S
        while True:
            try:
                socket.create_connection(("127.0.0.1", port), timeout=1).close()
                break
            except OSError:
                if proc.poll() is not None or time.monotonic() > deadline:
                    raise AssertionError("quiz serve did not start: "
                                         + (tmp_path / "serve.log").read_text()) from None
                time.sleep(0.2)
        token = re.search(r"\?token=([A-Za-z0-9_-]+)", (tmp_path / "serve.log").read_text())
        assert token, (tmp_path / "serve.log").read_text()
        yield port, data, token[1]
    finally:
        for sig in (signal.SIGTERM, signal.SIGKILL):
            try:
                os.killpg(proc.pid, sig)
            except ProcessLookupError:
                break
            try:
                proc.wait(timeout=10)
                break
            except subprocess.TimeoutExpired:
                continue
        log.close()


@pytest.fixture
def browser() -> Iterator[Any]:
    from selenium.webdriver.chrome.service import Service

    options = webdriver.ChromeOptions()
    options.binary_location = CHROMIUM  # never let Selenium fetch a browser of its own
    for arg in ("--headless=new", "--no-sandbox", "--disable-gpu", "--disable-dev-shm-usage",
                "--window-size=1280,800", "--no-first-run"):
        options.add_argument(arg)
    options.page_load_strategy = "eager"
    driver = webdriver.Chrome(service=Service(CHROMEDRIVER), options=options)
    try:
        driver.set_page_load_timeout(WAIT_S)
        driver.set_script_timeout(30)
        driver.execute_cdp_cmd("Page.addScriptToEvaluateOnNewDocument", {"source": CAPTURE})
        yield driver
    finally:
        driver.quit()


def screen_text(driver: Any) -> str:
    return _ESCAPES.sub("", str(driver.execute_script("return window.__quizScreen || ''")))


def wait_for(driver: Any, what: str, found: Callable[[str], bool], since: int = 0) -> str:
    """The text received after offset `since`, once `found` holds for it."""
    deadline = time.monotonic() + WAIT_S
    while True:
        text = screen_text(driver)[since:]
        if found(text):
            return text
        if time.monotonic() > deadline:
            shot(driver, "serve-browser-timeout.png")
            raise AssertionError(f"timed out waiting for {what}; the screen ended with: "
                                 f"{text[-600:]!r}")
        time.sleep(0.25)


def shot(driver: Any, name: str) -> Path:
    ARTIFACTS.mkdir(parents=True, exist_ok=True)
    path = ARTIFACTS / name
    driver.save_screenshot(str(path))
    return path


def type_keys(driver: Any, keys: str) -> None:
    """Type into the terminal as a person does: keys to the focused page. xterm.js
    reads them from its hidden helper textarea, which Chromium 150 refuses to type into
    as an element ("not interactable"), so it is focused and the keys go to the page."""
    from selenium.webdriver.common.action_chains import ActionChains
    from selenium.webdriver.common.by import By

    area = driver.find_element(By.CSS_SELECTOR, ".xterm-helper-textarea")
    driver.execute_script("arguments[0].focus();", area)
    ActionChains(driver).send_keys(keys).perform()


def test_drill_in_the_browser_records_a_correct_answer(
    server: tuple[int, Path, str], browser: Any,
) -> None:
    from selenium.webdriver.common.keys import Keys

    port, data, token = server
    browser.get(f"http://127.0.0.1:{port}/?token={token}")
    wait_for(browser, "the welcome screen", lambda t: "Press Enter to start" in t)
    # The mark comes before the key: a quick home screen can arrive whole before the
    # next read, and nothing after the mark would ever show it.
    mark = len(screen_text(browser))
    type_keys(browser, Keys.ENTER)
    # The home screen is ready when the drill has counted today's questions.
    wait_for(browser, "the home screen",
             lambda t: re.search(r"\d+ new, \d+ to review", t) is not None, mark)
    mark = len(screen_text(browser))
    type_keys(browser, "d")
    question = wait_for(browser, "a drill question",
                        lambda t: re.search(r"[a-z]+/[a-z0-9-]+#\d+", t) is not None, mark)
    variant = re.findall(r"([a-z]+/[a-z0-9-]+#\d+)", question)[-1]
    asked = quiz_cli(data, "ask", variant, "--json")
    assert asked.returncode == 0, asked.stderr
    key = json.loads(asked.stdout)["expected"]["display"]

    mark = len(screen_text(browser))
    type_keys(browser, key)
    type_keys(browser, Keys.ENTER)
    wait_for(browser, f"'Correct' after typing {key!r} for {variant}",
             lambda t: "Correct" in t, mark)
    picture = shot(browser, "serve-browser.png")
    assert picture.stat().st_size > 10_000  # a real page, not a blank one

    stats = quiz_cli(data, "stats", "--json")
    assert stats.returncode == 0, stats.stderr
    recorded = json.loads(stats.stdout)
    assert (recorded["attempts"], recorded["correct"]) == (1, 1)


# A page of another site (another port is another origin) that tries the socket, even
# with the launch token in hand, and reports what happened.
ATTACK = """<!doctype html><title>elsewhere</title><script>
window.__result = "pending";
const ws = new WebSocket("ws://127.0.0.1:PORT/ws/TOKEN?width=80&height=24");
ws.onopen = () => { window.__result = "opened"; };
ws.onerror = () => { window.__result = "refused"; };
</script>"""


def test_a_page_of_another_site_cannot_drive_the_app(
    server: tuple[int, Path, str], browser: Any,
) -> None:
    import http.server
    import threading

    port, _, token = server
    page = ATTACK.replace("PORT", str(port)).replace("TOKEN", token).encode()

    class Attacker(http.server.BaseHTTPRequestHandler):
        def do_GET(self) -> None:
            self.send_response(200)
            self.send_header("Content-Type", "text/html")
            self.end_headers()
            self.wfile.write(page)

        def log_message(self, *args: Any) -> None:
            pass

    site = http.server.ThreadingHTTPServer(("127.0.0.1", free_port()), Attacker)
    threading.Thread(target=site.serve_forever, daemon=True).start()
    try:
        browser.get(f"http://127.0.0.1:{site.server_address[1]}/")
        deadline = time.monotonic() + WAIT_S
        while (result := browser.execute_script("return window.__result")) == "pending":
            assert time.monotonic() < deadline, "the socket neither opened nor failed"
            time.sleep(0.2)
        assert result == "refused"
        assert screen_text(browser) == ""  # no frame of the app reached that page
    finally:
        site.shutdown()
