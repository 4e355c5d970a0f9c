"""The spec site in a real browser: headless Chromium over a local HTTP server.

Builds the site (strict) into a temporary folder, serves it from a thread on
127.0.0.1 (ephemeral port), and drives Debian's Chromium through the DevTools
protocol on a pipe (``--remote-debugging-pipe``: no network port, no extra
package). Each check waits for a condition in the rendered page with a
deadline, so nothing can hang; screenshots go to ``.artifacts/screenshots/``.

Chromium is installed with apt-get when ``/usr/bin/chromium`` is missing; if it
cannot be installed the test fails (it never skips).
"""

from __future__ import annotations

import base64
import contextlib
import functools
import http.server
import json
import os
import re
import select
import shutil
import signal
import subprocess
import sys
import tempfile
import threading
import time
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest

ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(Path(__file__).resolve().parent))

from test_docs_build import build_site, write_fixture_reports  # noqa: E402

CHROMIUM = "/usr/bin/chromium"
SCREENSHOTS = ROOT / ".artifacts" / "screenshots"
STEP_TIMEOUT = 30.0
NAVIGATING = ("navigated or closed", "context was destroyed", "Cannot find context")
"""What Chromium answers an evaluation whose page is being replaced (a redirect)."""
CHROMIUM_FLAGS = [
    "--headless",
    "--no-sandbox",
    "--disable-gpu",
    "--disable-quic",
    "--no-first-run",
    "--disable-background-networking",
    "--disable-component-update",
    "--disable-sync",
    "--window-size=1280,900",
]


def ensure_chromium() -> str:
    """Chromium's path; installs Debian's package when missing, fails loudly if it can't."""
    if Path(CHROMIUM).exists():
        return CHROMIUM
    log = []
    for command in (["apt-get", "update"], ["apt-get", "install", "-y", "chromium"]):
        try:
            done = subprocess.run(
                command,
                capture_output=True,
                text=True,
                timeout=600,
                env={**os.environ, "DEBIAN_FRONTEND": "noninteractive"},
            )
        except (OSError, subprocess.TimeoutExpired) as error:
            pytest.fail(f"cannot install chromium: {' '.join(command)}: {error}")
        log.append(done.stdout[-2000:] + done.stderr[-2000:])
        if done.returncode != 0:
            pytest.fail(
                f"cannot install chromium: {' '.join(command)} exited {done.returncode}\n"
                + "\n".join(log)
            )
    if not Path(CHROMIUM).exists():
        pytest.fail("apt-get installed chromium but /usr/bin/chromium is missing")
    return CHROMIUM


class Browser:
    """Just enough of the Chrome DevTools protocol, over --remote-debugging-pipe."""

    def __init__(self, chromium: str, profile: Path) -> None:
        to_chrome_read, self._to_chrome = os.pipe()
        self._from_chrome, from_chrome_write = os.pipe()

        def child_fds() -> None:  # runs in the child: the pipe ends become fds 3 and 4
            read_end, write_end = os.dup(to_chrome_read), os.dup(from_chrome_write)
            os.dup2(read_end, 3)
            os.dup2(write_end, 4)

        self.process = subprocess.Popen(
            [chromium, *CHROMIUM_FLAGS, f"--user-data-dir={profile}", "--remote-debugging-pipe"],
            stdin=subprocess.DEVNULL,
            stdout=subprocess.DEVNULL,
            stderr=subprocess.DEVNULL,
            preexec_fn=child_fds,
            close_fds=False,
            start_new_session=True,  # its own process group: close() can end all of it
        )
        os.close(to_chrome_read)
        os.close(from_chrome_write)
        self._buffer = b""
        self._next_id = 0
        self.session: str | None = None

    def call(
        self, method: str, params: dict[str, Any] | None = None, *, browser: bool = False
    ) -> Any:
        self._next_id += 1
        message: dict[str, Any] = {"id": self._next_id, "method": method, "params": params or {}}
        if self.session is not None and not browser:
            message["sessionId"] = self.session
        os.write(self._to_chrome, json.dumps(message).encode() + b"\0")
        deadline = time.monotonic() + STEP_TIMEOUT
        while True:
            reply = self._read(deadline)
            if reply.get("id") == self._next_id:
                if "error" in reply:
                    raise RuntimeError(f"{method}: {reply['error']}")
                return reply.get("result", {})

    def _read(self, deadline: float) -> dict[str, Any]:
        while b"\0" not in self._buffer:
            left = deadline - time.monotonic()
            if left <= 0:
                raise TimeoutError("chromium did not answer in time")
            ready, _, _ = select.select([self._from_chrome], [], [], left)
            if ready:
                chunk = os.read(self._from_chrome, 1 << 20)
                if not chunk:
                    raise RuntimeError("chromium closed the DevTools pipe")
                self._buffer += chunk
        raw, self._buffer = self._buffer.split(b"\0", 1)
        message: dict[str, Any] = json.loads(raw)
        return message

    def open_tab(self) -> None:
        target = self.call("Target.createTarget", {"url": "about:blank"}, browser=True)
        attached = self.call(
            "Target.attachToTarget", {"targetId": target["targetId"], "flatten": True}, browser=True
        )
        self.session = attached["sessionId"]
        self.call("Page.enable")
        self.viewport(1280, 900)

    def viewport(self, width: int, height: int, mobile: bool = False) -> None:
        """The window's size (a phone's: ``mobile``, which also sets the meta viewport)."""
        self.call(
            "Emulation.setDeviceMetricsOverride",
            {"width": width, "height": height, "deviceScaleFactor": 1, "mobile": mobile},
        )

    def goto(self, url: str) -> None:
        self.call("Page.navigate", {"url": url})
        self.wait("document.readyState === 'complete' && location.href === " + json.dumps(url))

    def evaluate(self, expression: str) -> Any:
        result = self.call(
            "Runtime.evaluate",
            {"expression": expression, "returnByValue": True, "awaitPromise": True},
        )
        if "exceptionDetails" in result:
            raise RuntimeError(f"{expression}: {result['exceptionDetails']}")
        return result["result"].get("value")

    def wait(self, expression: str, timeout: float = STEP_TIMEOUT) -> Any:
        """Poll a JS expression until it is truthy; its value, or a test failure."""
        deadline = time.monotonic() + timeout
        value = None
        while time.monotonic() < deadline:
            try:
                value = self.evaluate(expression)
            except RuntimeError as error:  # polled while the page navigates: not yet
                if not any(sign in str(error) for sign in NAVIGATING):
                    raise
                value = None
            if value:
                return value
            time.sleep(0.1)
        pytest.fail(f"timed out waiting for {expression!r} (last value {value!r})")

    def screenshot(self, name: str) -> Path:
        data = self.call("Page.captureScreenshot", {"format": "png"})["data"]
        SCREENSHOTS.mkdir(parents=True, exist_ok=True)
        path = SCREENSHOTS / name
        path.write_bytes(base64.b64decode(data))
        return path

    def close(self) -> None:
        with contextlib.suppress(Exception):
            self.call("Browser.close", browser=True)
        try:
            self.process.wait(timeout=10)
        except subprocess.TimeoutExpired:
            with contextlib.suppress(ProcessLookupError):
                os.killpg(self.process.pid, signal.SIGKILL)
            self.process.wait(timeout=10)
        for fd in (self._to_chrome, self._from_chrome):
            with contextlib.suppress(OSError):
                os.close(fd)


class _QuietHandler(http.server.SimpleHTTPRequestHandler):
    def log_message(self, format: str, *args: Any) -> None:
        pass


@pytest.fixture(scope="module")
def site(tmp_path_factory: pytest.TempPathFactory) -> Path:
    reports = tmp_path_factory.mktemp("reports")
    write_fixture_reports(reports)
    site_dir = tmp_path_factory.mktemp("site")
    build_site(site_dir, reports)
    return site_dir


@pytest.fixture(scope="module")
def base_url(site: Path) -> Iterator[str]:
    handler = functools.partial(_QuietHandler, directory=str(site))
    server = http.server.ThreadingHTTPServer(("127.0.0.1", 0), handler)
    thread = threading.Thread(target=server.serve_forever, daemon=True)
    thread.start()
    try:
        yield f"http://127.0.0.1:{server.server_address[1]}"
    finally:
        server.shutdown()
        server.server_close()
        thread.join(timeout=10)


@pytest.fixture(scope="module")
def browser() -> Iterator[Browser]:
    chromium = ensure_chromium()
    profile = Path(tempfile.mkdtemp(prefix="doomloop-chromium-"))
    instance = Browser(chromium, profile)
    try:
        instance.open_tab()
        yield instance
    finally:
        instance.close()
        shutil.rmtree(profile, ignore_errors=True)


def headings(browser: Browser) -> list[str]:
    value = browser.evaluate(
        "Array.from(document.querySelectorAll('article h1, article h2')).map(h => h.innerText)"
    )
    return [str(v).replace("¶", "").strip() for v in value]


def test_home_page(browser: Browser, base_url: str) -> None:
    browser.goto(base_url + "/")
    assert headings(browser)[:1] == ["Doom-loop conformance kit"]
    nav = browser.evaluate("document.querySelector('nav.md-nav--primary').innerText")
    for section in ("Specification", "Schemas", "Vector catalog", "Conformance"):
        assert section in nav
    browser.screenshot("home.png")


def test_spec_section_by_statement_anchor(browser: Browser, base_url: str) -> None:
    url = base_url + "/spec/09-monitor.html#MON-07"
    browser.goto(url)
    assert headings(browser)[0].startswith("9. Monitor")
    # The statement is the permalink to itself, and the browser scrolled to it.
    href = browser.evaluate("document.getElementById('MON-07').getAttribute('href')")
    assert href == "#MON-07"
    top = browser.wait(
        "(() => { const r = document.getElementById('MON-07').getBoundingClientRect();"
        " return r.top >= 0 && r.top < 400 ? r.top + 1 : 0; })()"
    )
    assert top
    browser.screenshot("spec-MON-07.png")


def test_dump_dom_renders_the_home_page_and_a_spec_section(base_url: str, tmp_path: Path) -> None:
    """The plain command-line way: ``chromium --headless --dump-dom URL``."""
    chromium = ensure_chromium()
    for path, heading in (
        ("/", "Doom-loop conformance kit"),
        ("/spec/09-monitor.html", "9. Monitor"),
    ):
        done = subprocess.run(
            [
                chromium,
                *CHROMIUM_FLAGS,
                f"--user-data-dir={tmp_path / 'profile'}",
                "--dump-dom",
                base_url + path,
            ],
            capture_output=True,
            text=True,
            timeout=60,
            stdin=subprocess.DEVNULL,
        )
        assert done.returncode == 0, done.stderr[-2000:]
        match = re.search(r"<h1[^>]*>(.*?)</h1>", done.stdout, re.S)
        assert match is not None, done.stdout[:500]
        text = re.sub(r"<a [^>]*headerlink[^>]*>.*?</a>", "", match.group(1))
        assert re.sub(r"<[^>]+>", "", text).strip() == heading


def test_spec_section_heading_anchor(browser: Browser, base_url: str) -> None:
    browser.goto(base_url + "/spec/09-monitor.html#mon-declare")
    text = browser.evaluate("document.getElementById('mon-declare').innerText")
    assert "declareRound" in text


def test_vector_catalog_pages(browser: Browser, base_url: str) -> None:
    manifest = json.loads((ROOT / "vectors" / "manifest.json").read_text(encoding="utf-8"))
    curated = next(f for f in manifest["files"] if f["kind"] == "curated")
    data = json.loads((ROOT / "vectors" / curated["path"]).read_text(encoding="utf-8"))
    first = data["vectors"][0]["id"]
    browser.goto(f"{base_url}/vectors/curated/{curated['family']}.html")
    names = headings(browser)
    assert names[0] == f"{curated['family']} (curated)"
    assert first in names
    browser.screenshot("vectors-curated.png")

    generated = next(f for f in manifest["files"] if f["kind"] == "generated")
    data = json.loads((ROOT / "vectors" / generated["path"]).read_text(encoding="utf-8"))
    target = data["vectors"][len(data["vectors"]) // 2]["id"]
    browser.goto(f"{base_url}/vectors/generated/{generated['family']}.html#{target}")
    assert headings(browser)[0] == f"{generated['family']} (generated)"
    # Following a link to a folded vector opens it and shows its steps.
    is_open = browser.wait(f"document.getElementById({json.dumps(target)}).open")
    assert is_open
    rows = browser.evaluate(
        f"document.getElementById({json.dumps(target)})"
        ".querySelectorAll('table.dl-steps tbody tr').length"
    )
    assert rows == len(data["vectors"][len(data["vectors"]) // 2]["steps"])
    browser.screenshot("vectors-generated-anchor.png")


def test_vector_lookup_by_id(browser: Browser, base_url: str) -> None:
    manifest = json.loads((ROOT / "vectors" / "manifest.json").read_text(encoding="utf-8"))
    generated = next(f for f in manifest["files"] if f["kind"] == "generated")
    data = json.loads((ROOT / "vectors" / generated["path"]).read_text(encoding="utf-8"))
    target = data["vectors"][1]["id"]
    # vectors/?id=<id> jumps to the vector's anchor on its family page, opened.
    browser.call("Page.navigate", {"url": f"{base_url}/vectors/index.html?id={target}"})
    expected = f"{base_url}/vectors/generated/{generated['family']}.html#{target}"
    browser.wait(f"location.href === {json.dumps(expected)} && document.readyState === 'complete'")
    assert browser.wait(f"document.getElementById({json.dumps(target)}).open")
    # A prefix shared by several ids lists them instead.
    browser.goto(f"{base_url}/vectors/index.html")
    browser.evaluate(
        f"document.getElementById('dl-vector-id').value = {json.dumps(generated['family'] + '/')};"
        " document.getElementById('dl-vector-lookup').requestSubmit(); true"
    )
    listed = browser.wait("document.getElementById('dl-lookup-result').innerText")
    prefix = generated["family"] + "/"
    count = sum(
        1
        for entry in manifest["files"]
        for vector in json.loads((ROOT / "vectors" / entry["path"]).read_text("utf-8"))["vectors"]
        if vector["id"].startswith(prefix)
    )
    assert f"{count} ids start with it" in listed, listed
    browser.screenshot("vectors-lookup.png")


def test_matrix_page(browser: Browser, base_url: str) -> None:
    browser.goto(base_url + "/matrix.html")
    names = headings(browser)
    assert names[0] == "Conformance matrix"
    assert "By family" in names and "By feature" in names
    text = browser.evaluate("document.querySelector('article').innerText")
    assert "fixture-complete" in text and "fixture-partial" in text
    browser.screenshot("matrix.png")


@pytest.mark.parametrize("query", ["MON-07", "CAN-03", "STATE-23", "OQ-01", "KEY-02"])
def test_search_finds_statement_id(browser: Browser, base_url: str, query: str) -> None:
    browser.goto(f"{base_url}/?q={query}")
    # The search runs in a web worker: wait for the first result to render.
    first = browser.wait(
        "(() => { const item = document.querySelector('.md-search-result__item');"
        " return item ? item.innerText : ''; })()"
    )
    assert query in first, first
    link = browser.evaluate(
        "Array.from(document.querySelectorAll('.md-search-result__item a'))"
        ".map(a => a.getAttribute('href'))"
    )
    assert any(str(h).endswith(f"#{query}") for h in link), link
    browser.screenshot(f"search-{query}.png")


def test_search_finds_vector_id(browser: Browser, base_url: str) -> None:
    manifest = json.loads((ROOT / "vectors" / "manifest.json").read_text(encoding="utf-8"))
    generated = next(f for f in manifest["files"] if f["kind"] == "generated")
    data = json.loads((ROOT / "vectors" / generated["path"]).read_text(encoding="utf-8"))
    target = data["vectors"][-1]["id"]
    browser.goto(f"{base_url}/?q={target}")
    links = browser.wait(
        "(() => { const a = Array.from(document.querySelectorAll('.md-search-result__item a'))"
        ".map(a => a.getAttribute('href')); return a.length ? a : null; })()"
    )
    assert any(str(h).endswith("#" + target) for h in links[:5]), links[:5]
    assert not any("undefined" in str(h) for h in links), links  # every result has a real page


# -- issue 33: readable at 1,400 px and on a phone, tables that render, file:// ----------

WINDOWS = {"wide": (1400, 900, False), "phone": (390, 844, True)}
PAGES = (
    "index.html",
    "matrix.html",
    "spec/protocol.html",
    "guide/replay.html",
    "guide/calibration.html",
    "mutation.html",
    "guide/write-a-harness.html",
)


@pytest.mark.parametrize("window", sorted(WINDOWS))
def test_no_page_is_wider_than_the_window(browser: Browser, base_url: str, window: str) -> None:
    """Nothing makes the page itself scroll sideways (a wide table or code block scrolls
    in its own box), and no code block's text runs out of its box."""
    width, height, mobile = WINDOWS[window]
    browser.viewport(width, height, mobile)
    try:
        for page in PAGES:
            browser.goto(f"{base_url}/{page}")
            sizes = browser.evaluate("[document.documentElement.scrollWidth, window.innerWidth]")
            assert sizes[0] <= sizes[1], (page, window, sizes)
            spilled = browser.evaluate(
                "Array.from(document.querySelectorAll('article pre')).filter(pre => "
                "getComputedStyle(pre).overflowX === 'visible' && pre.scrollWidth > "
                "pre.clientWidth + 1).length"
            )
            assert spilled == 0, (page, window)
            browser.screenshot(f"{window}-{page.replace('/', '-')}.png")
    finally:
        browser.viewport(1280, 900)


def test_code_spans_in_tables_show_no_backslash(browser: Browser, base_url: str) -> None:
    """spec/protocol.md writes `"key" \\| "fallback"` in a table cell (GitHub needs the
    backslash); the page shows the pipe alone."""
    browser.goto(f"{base_url}/spec/protocol.html")
    cells = browser.evaluate(
        "Array.from(document.querySelectorAll('article td code')).map(c => c.innerText)"
    )
    assert any('"key" | "fallback"' in cell for cell in cells), cells[:20]
    assert not any("\\|" in cell for cell in cells)


def test_the_matrix_has_the_implementations_as_columns(browser: Browser, base_url: str) -> None:
    browser.goto(f"{base_url}/matrix.html")
    header = browser.evaluate(
        "Array.from(document.querySelector('#by-family-curated ~ div table, "
        "#by-family-curated ~ table').querySelectorAll('thead th')).map(th => th.innerText)"
    )
    assert header[0] == "Family" and len(header) == 3, header  # the two fixture reports
    assert header[1].startswith("fixture-complete") and header[2].startswith("fixture-partial")


def test_the_site_works_opened_from_a_folder(browser: Browser, site: Path) -> None:
    """Opened from file://, a link to a folder shows a directory listing: every link
    between pages names a file (use_directory_urls: false)."""
    browser.goto((site / "index.html").as_uri())
    hrefs = browser.evaluate(
        "Array.from(document.querySelectorAll('a[href]')).map(a => a.href)"
        ".filter(h => h.startsWith('file:'))"
    )
    assert len(hrefs) > 10
    for href in hrefs:
        target = Path(href.split("#")[0].split("?")[0].removeprefix("file://"))
        assert target.is_file(), href
    matrix = next(h for h in hrefs if h.endswith("/matrix.html"))
    browser.goto(matrix)
    assert headings(browser)[0] == "Conformance matrix"
