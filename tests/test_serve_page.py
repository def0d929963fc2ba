"""The page of ``parallel-mnk serve`` in a real browser: Debian's Chromium
(``/usr/bin/chromium``, or ``$CHROMIUM``) driven by Playwright's Python package
(the ``browser`` extra; never a browser Playwright downloads). Load the page,
click moves, read the scores drawn on the board and compare them with
``analyze()``; undo, redo, the URL, the engine on either side, a board over 64
cells; a screenshot (``$SERVE_SCREENSHOT`` names where, else the test's tmp
folder). Prints the time from a click to the scores on the board.

Skips with the reason when Playwright or Chromium is missing (fails instead
when ``$REQUIRE_BROWSER`` is set, as CI does).
"""
from __future__ import annotations

import os
import re
import time
from pathlib import Path

import pytest

from checks import web_server
from parallel_mnk import GameSpec, Position, analyze

CHROMIUM = os.environ.get("CHROMIUM", "/usr/bin/chromium")
ARGS = ["--no-sandbox", "--disable-gpu", "--disable-background-networking", "--disable-component-update",
        "--disable-sync", "--no-first-run", "--disable-quic"]
TIMEOUT_MS = 30_000
# the test's stopwatch inside the page: when a click happens and when each position's scores are drawn
STOPWATCH = """
window.stopwatch = {ready: {}};
document.addEventListener("click", () => { window.stopwatch.click = performance.now(); }, true);
new MutationObserver(() => {
  const board = document.getElementById("board");
  if (board && board.dataset.ready) window.stopwatch.ready[board.dataset.ready] = performance.now();
}).observe(document, {subtree: true, attributes: true, attributeFilter: ["data-ready"]});
"""

MISSING = None
try:
    from playwright import sync_api
except ImportError:
    MISSING = "Playwright is not installed: pip install -e '.[browser]'"
if MISSING is None and not Path(CHROMIUM).exists():
    MISSING = f"no Chromium at {CHROMIUM}: apt-get install chromium (or set $CHROMIUM)"
if MISSING is not None:
    if os.environ.get("REQUIRE_BROWSER"):   # CI installs both: there a missing one is a failure
        pytest.fail(f"REQUIRE_BROWSER is set but {MISSING}", pytrace=False)
    pytest.skip(MISSING, allow_module_level=True)


@pytest.fixture(scope="module")
def browser_page():
    """``(server, page, errors)``: a server of the test and a Chromium page; ``errors``
    collects the page's script errors."""
    with web_server(max_time=30, tt_bits=None) as server, sync_api.sync_playwright() as p:   # the default table
        browser = p.chromium.launch(executable_path=CHROMIUM, args=ARGS)
        try:
            page = browser.new_page(viewport={"width": 1000, "height": 620})
            page.add_init_script(STOPWATCH)
            errors: list[str] = []
            page.on("pageerror", lambda e: errors.append(str(e)))
            yield server, page, errors
        finally:
            browser.close()


def open_page(server, page, query: str, position: str) -> None:
    page.goto(f"http://127.0.0.1:{server.server_address[1]}/?{query}")
    ready(page, position)


def ready(page, position: str) -> None:
    """Wait until the answers for ``position`` (its move list) are on the board."""
    page.wait_for_selector(f'#board[data-ready="{position}"]', timeout=TIMEOUT_MS)


def drawn_scores(page) -> dict[str, str]:
    """Move -> the score drawn on its cell (its label's text), for every legal move."""
    return {e.get_attribute("data-move"): e.inner_text() for e in page.query_selector_all("#board [data-move]")}


def expected_scores(pos: Position) -> dict[str, str]:
    a = analyze(pos)
    assert a.complete
    return {m.text: f"{m.score:+d}" if m.score else "0" for m in a.moves}


BASE, CLICK = "5374156773", 3    # a Connect Four position; the click's position is solved in about 0.6 s here
ROUNDS = 3


def test_clicks_show_the_scores_analyze_computes(browser_page, tmp_path):
    server, page, errors = browser_page
    c4 = GameSpec(7, 6, 4, True)
    after = BASE + str(CLICK)
    target = Position.from_moves(c4, after)
    a = analyze(target)
    settle = sorted(analyze(target).time_s for _ in range(ROUNDS))   # the solver alone, for the figure
    took, in_page, searched = [], [], []
    for _ in range(ROUNDS):
        open_page(server, page, f"game=connect4&moves={BASE}", BASE)
        page.wait_for_selector("#line:not(:empty)", timeout=TIMEOUT_MS)   # the page is at rest
        t0 = time.perf_counter()
        page.locator(f'#board .cell[data-col="{CLICK - 1}"]').first.click()
        ready(page, after)
        took.append(time.perf_counter() - t0)
        assert took[-1] < 10, "the scores never came (a hang)"
        figures = page.inner_text("#figures")   # "N nodes, T s" (+ " (from the opening book)")
        searched.append(float(re.search(r"([0-9.]+) s", figures).group(1)))
        in_page.append(page.evaluate(f"window.stopwatch.ready['{after}'] - window.stopwatch.click") / 1000)
        assert drawn_scores(page) == expected_scores(target)
    for times in (took, in_page, searched):
        times.sort()
    mid = ROUNDS // 2
    print(f"\nclick to scores on the board (Connect Four {after}, 1 worker, {ROUNDS} clicks): in the page (click "
          f"event to scores drawn) median {in_page[mid]:.3f} s, max {in_page[-1]:.3f} s; from the test (Playwright's "
          f"click to the scores seen) median {took[mid]:.3f} s, max {took[-1]:.3f} s; the server's analysis median "
          f"{searched[mid]:.3f} s; analyze() in the test's process median {settle[mid]:.3f} s")
    assert page.inner_text("#value") == f"value: {a.value} for O, score {a.score:+d} (exact)"
    assert page.inner_text("#best") == "best moves: " + " ".join(str(m + 1) for m in a.best_moves)
    page.wait_for_selector("#line:not(:empty)", timeout=TIMEOUT_MS)   # the perfect line comes after
    assert page.inner_text("#line").split()[2] in {str(m + 1) for m in a.best_moves}
    page.mouse.move(0, 0)
    shot = Path(os.environ.get("SERVE_SCREENSHOT") or tmp_path / "serve.png")
    page.screenshot(path=str(shot))
    print(f"screenshot: {shot} ({shot.stat().st_size} bytes)")
    assert shot.stat().st_size > 10_000
    assert f"moves={after}" in page.url and "game=connect4" in page.url
    assert not errors


def test_free_placement_undo_redo_and_the_url(browser_page):
    server, page, errors = browser_page
    spec = GameSpec(4, 4, 3)
    open_page(server, page, "cols=4&rows=4&k=3&moves=b2", "b2")
    assert drawn_scores(page) == expected_scores(Position.from_moves(spec, "b2"))
    page.locator("#board .cell").nth(12).click()          # a1: bottom-left
    ready(page, "b2,a1")
    assert drawn_scores(page) == expected_scores(Position.from_moves(spec, "b2,a1"))
    assert page.inner_text("#board .cell.x") == "X" and page.inner_text("#board .cell.o") == "O"
    page.click("#undo")
    ready(page, "b2")
    page.click("#redo")
    ready(page, "b2,a1")
    page.reload()                                          # the position lives in the URL
    ready(page, "b2,a1")
    assert drawn_scores(page) == expected_scores(Position.from_moves(spec, "b2,a1"))
    assert not errors


def test_the_engine_plays_either_side(browser_page):
    server, page, errors = browser_page
    spec = GameSpec(3, 3, 3)
    open_page(server, page, "game=tictactoe&moves=", "")
    page.select_option("#engine", "2")                     # the engine plays O
    page.locator("#board .cell").nth(4).click()            # X: b2
    page.wait_for_selector('#board[data-position^="b2,"]', timeout=TIMEOUT_MS)
    reply = page.get_attribute("#board", "data-position").split(",")[1]
    assert reply in [m.text for m in analyze(Position.from_moves(spec, "b2")).moves
                     if m.move in analyze(Position.from_moves(spec, "b2")).best_moves]
    page.click("#flip")                                    # now the engine plays X: it moves at once
    page.wait_for_selector(f'#board[data-position^="b2,{reply},"]', timeout=TIMEOUT_MS)
    assert page.input_value("#engine") == "1" and "engine=x" in page.url
    assert not errors


def test_boards_over_64_cells_get_the_depth_limited_engine_and_say_so(browser_page):
    server, page, errors = browser_page
    open_page(server, page, "cols=9&rows=9&k=5&moves=e5", "e5")
    assert "not exact" in page.inner_text("#best") and "more than 64 cells" in page.inner_text("#hint")
    suggested = page.query_selector_all("#board [data-move].best")
    assert len(suggested) == 1 and suggested[0].inner_text() == "best"
    assert suggested[0].get_attribute("data-move") in page.inner_text("#best")
    assert not errors


def test_the_connect_four_start_shows_its_seven_scores_from_the_book(browser_page):
    from parallel_mnk.engines.books import thill

    if thill.installed_path() is None:
        pytest.skip("bitbully-databases (the 'books' extra) is not installed")
    server, page, errors = browser_page
    t0 = time.perf_counter()
    page.goto(f"http://127.0.0.1:{server.server_address[1]}/?game=connect4&moves=")
    page.wait_for_selector("#figures:not(:empty)", timeout=TIMEOUT_MS)   # the analysis came
    seconds = time.perf_counter() - t0
    print(f"\nConnect Four start, page load to the seven scores drawn: {seconds:.3f} s")
    assert list(drawn_scores(page).values()) == ["-2", "-1", "0", "+1", "0", "-1", "-2"]
    assert page.inner_text("#figures").endswith("(from the opening book)")
    assert not errors
