"""The report in a real browser: Chromium from the distribution (apt-get install -y chromium),
headless with --no-sandbox. The page's own script records, on load, how many figures it has
and how many the browser decoded, and any script error; we read that back from the DOM and
check a screenshot is not blank."""
from __future__ import annotations

import re
import shutil
import subprocess

import pytest

from nicsim.sweep.cli import main_sweep

BROWSERS = ("chromium", "chromium-browser", "google-chrome", "google-chrome-stable")


def _chromium() -> str:
    for name in BROWSERS:
        path = shutil.which(name)
        if path:
            return path
    msg = "no chromium binary found; install the distribution package: apt-get install -y chromium"
    print(msg)
    pytest.skip(msg)


def _run(browser: str, *args: str) -> subprocess.CompletedProcess:
    return subprocess.run([browser, "--headless", "--no-sandbox", "--disable-gpu", "--no-first-run",
                           "--disable-dev-shm-usage", *args], capture_output=True, text=True, timeout=120)


@pytest.fixture(scope="module")
def browser() -> str:
    return _chromium()


@pytest.fixture(scope="module")
def report_html(browser, netpipe_store, tmp_path_factory):
    out = tmp_path_factory.mktemp("browser")
    assert main_sweep(["report", str(netpipe_store), "--out", str(out)]) == 0
    return out / "report.html"


def test_report_loads_in_chromium_with_every_figure_decoded(browser, report_html):
    r = _run(browser, "--virtual-time-budget=10000", "--dump-dom", report_html.as_uri())
    assert r.returncode == 0, r.stderr[-2000:]
    body = re.search(r"<body([^>]*)>", r.stdout)
    assert body, r.stdout[:500]
    attrs = dict(re.findall(r'([\w-]+)="([^"]*)"', body.group(1)))
    assert "data-js-error" not in attrs, attrs
    assert int(attrs["data-figures"]) == 5
    assert attrs["data-figures-loaded"] == attrs["data-figures"]
    assert "NetPIPE signature graph" in r.stdout and "Runs of this store" in r.stdout


def test_report_screenshot_is_not_blank(browser, report_html, tmp_path):
    shot = tmp_path / "report.png"
    r = _run(browser, "--hide-scrollbars", "--window-size=1280,2000", f"--screenshot={shot}", report_html.as_uri())
    assert r.returncode == 0 and shot.exists(), r.stderr[-2000:]
    import matplotlib.image as mpimg

    img = mpimg.imread(shot)
    assert img.shape[0] >= 2000 and img.shape[1] >= 1280
    # a page of white would have one colour; the figures bring many
    assert img[..., :3].reshape(-1, 3).std(axis=0).mean() > 0.05
