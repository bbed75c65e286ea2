"""`xlssd report DIR`: one self-contained HTML file, checked in headless Chromium."""

import json
import re
import shutil
from pathlib import Path

import pytest
from experiments_helpers import GC_OP_SPEC, write_spec

from conftest import REPO

SCREENSHOTS = REPO / "out" / "test-screenshots"


@pytest.fixture(scope="module")
def folders(tmp_path_factory):
    """A quick reproduction and a small sweep, each with its report written."""
    from conftest import run_cli

    root = tmp_path_factory.mktemp("reports")
    repro, sweep = root / "repro", root / "sweep"
    p = run_cli("reproduce", "tecs15-ecc", "--quick", "--out", str(repro), "--jobs", "2", "--quiet")
    assert p.returncode == 0, p.stderr
    p = run_cli("sweep", str(write_spec(root, GC_OP_SPEC)), "--out", str(sweep), "--jobs", "2", "--quiet")
    assert p.returncode == 0, p.stderr
    for folder in (repro, sweep):
        p = run_cli("report", str(folder))
        assert p.returncode == 0, p.stderr
        assert p.stdout.strip() == str(folder / "report.html")
    return {"repro": repro, "sweep": sweep}


def test_report_is_self_contained(folders):
    for folder in folders.values():
        html = (folder / "report.html").read_text()
        # Nothing fetched from anywhere: every src/href is inline data or a fragment.
        refs = re.findall(r'(?:src|href)\s*=\s*"([^"]*)"', html)
        assert refs and all(r.startswith("data:image/png;base64,") for r in refs), refs
        assert "<link" not in html and "<script" not in html and "@import" not in html
    repro = (folders["repro"] / "report.html").read_text()
    assert 'id="comparison"' in repro and "Bertozzi" in repro
    assert "<th>source</th><th>kind</th><th>quantity</th>" in repro
    # tecs15-ecc --quick: 2 program times and 9 RBERs given to the model; 45 t cells, the
    # decoder's slope ratio, ISPP-DV's program time, Figs. 5, 6, 7 and 11 (10) and Fig. 10 on
    # random requests (7, their closed form) computed; 43 measured (Fig. 10 on the
    # Filebench-like runs, Figs. 13-19).
    kinds = re.findall(r"<td>[^<]*</td><td>(input|computed|simulated)</td>", repro)
    assert (kinds.count("input"), kinds.count("computed"), kinds.count("simulated")) == (11, 64, 43)
    assert repro.count("data:image/png;base64,") == 12


def _browser():
    chromium = shutil.which("chromium") or shutil.which("chromium-browser")
    if chromium is None:
        pytest.fail("chromium is not installed; `make test` installs it from Debian's packages")
    from playwright.sync_api import sync_playwright

    return chromium, sync_playwright


def _open(folder: Path, screenshot: str):
    """Loads the report in headless Chromium with the network cut off; returns what the
    page shows: per table its row count, per image its decoded size."""
    chromium, sync_playwright = _browser()
    requests = []
    with sync_playwright() as pw:
        browser = pw.chromium.launch(executable_path=chromium, args=["--no-sandbox"])
        try:
            page = browser.new_page(viewport={"width": 1280, "height": 900})
            page.on("request", lambda r: requests.append(r.url))
            page.route(re.compile(r"^https?://"), lambda route: route.abort())
            page.goto((folder / "report.html").as_uri(), wait_until="load")
            tables = page.evaluate(
                "() => Object.fromEntries([...document.querySelectorAll('table')].map("
                "t => [t.id, t.querySelectorAll('tbody tr').length]))")
            images = page.evaluate(
                "() => [...document.images].map(i => ({complete: i.complete, w: i.naturalWidth, "
                "h: i.naturalHeight, shown: i.getBoundingClientRect().width}))")
            cells = page.evaluate("() => [...document.querySelectorAll('#points tbody tr:first-child td')]"
                                  ".map(td => td.innerText)")
            SCREENSHOTS.mkdir(parents=True, exist_ok=True)
            shot = SCREENSHOTS / screenshot
            page.screenshot(path=str(shot), full_page=True)
        finally:
            browser.close()
    fetched = [u for u in requests if not u.startswith(("file:", "data:"))]
    return tables, images, cells, shot, fetched


def _check_images(images, count):
    assert len(images) == count
    for img in images:
        assert img["complete"] and img["w"] > 300 and img["h"] > 200 and img["shown"] > 100, img


def _check_screenshot(shot: Path):
    data = shot.read_bytes()
    assert data[:8] == b"\x89PNG\r\n\x1a\n"
    assert int.from_bytes(data[20:24], "big") > 2000  # a full page: tables and figures
    assert len(data) > 100_000


def test_reproduction_report_renders_in_chromium(folders):
    folder = folders["repro"]
    tables, images, cells, shot, fetched = _open(folder, "reproduction-report.png")
    assert fetched == []
    comparison = json.loads((folder / "comparison.json").read_text())
    assert tables == {"comparison": len(comparison), "points": 177}
    _check_images(images, 12)
    assert cells[0] in {"ISPP-SV fixed t", "ISPP-RV prog. t", "ISPP-SV prog. t", "ISPP-DV prog. t"}
    _check_screenshot(shot)


def test_sweep_report_renders_in_chromium(folders):
    tables, images, cells, shot, fetched = _open(folders["sweep"], "sweep-report.png")
    assert fetched == []
    assert tables == {"points": 4}
    # Each headline metric against over-provisioning, and the write latency distribution.
    assert len(images) >= 4
    _check_images(images, len(images))
    assert cells[:2] == ["greedy", "0.07"]
    _check_screenshot(shot)
