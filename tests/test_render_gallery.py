"""The gallery in headless Chromium: every page's self-check script counts the ``<svg>`` elements with
a non-zero bounding box and the broken images and writes them into the title (read with
``--dump-dom``); one page is screenshotted and checked for the CuTe palette.

Pages checked: index, the PTX figures, the tcgen05 page, and one form page per layout group (all form pages with
``WARPSIM_GALLERY_ALL=1``). Skipped when Chromium is not installed (``apt-get install chromium``).
"""
from __future__ import annotations

import os
import re
import shutil
import subprocess
import tempfile
from concurrent.futures import ThreadPoolExecutor
from pathlib import Path

import numpy as np
import pytest

from isa.forms import FORMS
from warpsim.render.figure import representatives
from warpsim.render.gallery import gallery, page_name

CHROMIUM = next((shutil.which(n) for n in ("chromium", "chromium-browser", "google-chrome") if shutil.which(n)), None)
pytestmark = pytest.mark.skipif(CHROMIUM is None, reason="headless Chromium not installed (apt-get install chromium)")
FLAGS = ["--headless", "--no-sandbox", "--disable-gpu", "--disable-background-networking",
         "--disable-component-update", "--disable-sync", "--no-first-run"]


def chromium(*args, timeout=120) -> str:
    with tempfile.TemporaryDirectory() as profile:
        run = subprocess.run([CHROMIUM, *FLAGS, f"--user-data-dir={profile}", *args],
                             capture_output=True, text=True, timeout=timeout)
    return run.stdout


def page_title(path: Path) -> str:
    dom = chromium("--virtual-time-budget=5000", "--dump-dom", path.as_uri())
    found = re.search(r"<head>.*?<title>(.*?)</title>", dom, re.S)
    return found.group(1) if found else "(no title: page did not load)"


@pytest.fixture(scope="module")
def site(tmp_path_factory):
    out = tmp_path_factory.mktemp("gallery")
    gallery(out)
    return out


def _pages(site: Path) -> list[Path]:
    forms = FORMS if os.environ.get("WARPSIM_GALLERY_ALL") else list(representatives().values())
    return [site / "index.html", site / "seeds.html", site / "tcgen05.html"] + [site / page_name(f) for f in forms]


def test_every_picture_renders(site):
    pages = _pages(site)
    with ThreadPoolExecutor(max_workers=4) as pool:
        titles = list(pool.map(page_title, pages))
    for page, title in zip(pages, titles):
        n = page.read_text(encoding="utf-8").count("<svg ")
        assert title == f"rendered {n}/{n} svg, 0 broken img", f"{page.name}: {title}"
    assert all(int(re.match(r"rendered (\d+)", t).group(1)) > 0 for t in titles[1:])


def test_index_links_resolve(site):
    index = (site / "index.html").read_text(encoding="utf-8")
    links = re.findall(r'href="([^"]+)"', index)
    assert len(links) == len(FORMS) + 2
    assert all((site / link).exists() for link in links)


def test_screenshot_shows_the_palette(site):
    matplotlib_image = pytest.importorskip("matplotlib.image")
    shot = site / "shot.png"
    chromium(f"--screenshot={shot}", "--window-size=1400,1800", (site / page_name(FORMS[0])).as_uri())
    img = (matplotlib_image.imread(str(shot))[..., :3] * 255).round().astype(int)
    assert img.shape[:2] == (1800, 1400)
    colours = {tuple(c) for c in img.reshape(-1, 3)[::7]}
    assert {(175, 175, 255), (175, 255, 175), (255, 255, 175), (255, 175, 175)} <= colours  # CuTe lanes 0-3
    assert np.std(img) > 20  # not a blank page
