#!/usr/bin/env python3
"""Open latscope HTML reports in headless Debian Chromium and check them as a reader would.

For each report: no console error (JS errors, failed loads), nothing fetched (the page must
be self-contained), every chart (<svg>) has a visible size and at least one plotted element
(an element drawn in a chromatic colour: axes, grid and labels are pure greys), every table
has rows; then a full-page screenshot is saved next to the other outputs.

Usage: check_reports.py OUTDIR REPORT.html [REPORT.html ...]
Prints one line per report and a closing line "N passed, M failed" (adding PRIOR_PASSED and
PRIOR_FAILED from the environment: checks the calling script made); exit 1 on a failure.
"""

import os
import sys
import tempfile

from selenium import webdriver
from selenium.webdriver.chrome.service import Service

CHECK_JS = r"""
const grey = v => {
  const m = /^#([0-9a-f]{2})([0-9a-f]{2})([0-9a-f]{2})$/i.exec((v || '').trim());
  return !m || (m[1].toLowerCase() === m[2].toLowerCase() && m[2].toLowerCase() === m[3].toLowerCase());
};
const charts = [...document.querySelectorAll('svg')].map((s, i) => {
  const shapes = [...s.querySelectorAll('rect,path,polyline,polygon,circle,line')];
  const data = shapes.filter(e => !grey(e.getAttribute('fill')) || !grey(e.getAttribute('stroke')));
  const drawn = data.filter(e => { try { const b = e.getBBox(); return b.width > 0 || b.height > 0; } catch (x) { return false; } });
  const r = s.getBoundingClientRect();
  return {name: s.dataset.chart || ('svg #' + i), data: data.length, drawn: drawn.length,
          w: r.width, h: r.height, texts: s.querySelectorAll('text').length};
});
const tables = [...document.querySelectorAll('table')].map(t => t.querySelectorAll('tbody tr').length);
const fetched = performance.getEntriesByType('resource').map(e => e.name);
return {charts, tables, fetched, height: document.documentElement.scrollHeight,
        title: document.title};
"""


def make_driver(profile):
    opts = webdriver.ChromeOptions()
    opts.binary_location = os.environ.get("CHROMIUM", "/usr/bin/chromium")
    for a in [
        "--headless=new",
        "--no-sandbox",
        "--disable-gpu",
        "--disable-background-networking",
        "--disable-component-update",
        "--disable-sync",
        "--no-first-run",
        "--disable-dev-shm-usage",
        "--hide-scrollbars",
        f"--user-data-dir={profile}",
        "--window-size=1280,1000",
    ]:
        opts.add_argument(a)
    opts.set_capability("goog:loggingPrefs", {"browser": "ALL"})
    service = Service(executable_path=os.environ.get("CHROMEDRIVER", "/usr/bin/chromedriver"))
    return webdriver.Chrome(service=service, options=opts)


def check(driver, path, outdir):
    problems = []
    driver.set_window_size(1280, 1000)
    driver.get("file://" + os.path.abspath(path))
    info = driver.execute_script(CHECK_JS)
    for entry in driver.get_log("browser"):
        if entry.get("level") in ("SEVERE", "ERROR"):
            problems.append("console error: " + entry.get("message", "")[:200])
    if info["fetched"]:
        problems.append("fetched resources: " + ", ".join(info["fetched"][:3]))
    for c in info["charts"]:
        if c["data"] == 0 or c["drawn"] == 0:
            problems.append(f"empty chart: {c['name']} (no plotted element)")
        if c["w"] < 100 or c["h"] < 60:
            problems.append(f"chart {c['name']} rendered too small: {c['w']:.0f}x{c['h']:.0f}")
        if c["texts"] == 0:
            problems.append(f"chart {c['name']} has no axis labels")
    for i, rows in enumerate(info["tables"]):
        if rows == 0:
            problems.append(f"table #{i} has no rows")
    height = min(max(int(info["height"]), 600), 16000)
    driver.set_window_size(1280, height)
    shot = os.path.join(outdir, os.path.splitext(os.path.basename(path))[0] + ".png")
    driver.save_screenshot(shot)
    if os.path.getsize(shot) < 5000:
        problems.append("screenshot suspiciously small")
    return problems, info, shot


def main():
    if len(sys.argv) < 3:
        print(__doc__)
        return 2
    outdir = sys.argv[1]
    os.makedirs(outdir, exist_ok=True)
    # Checks done before the browser (report generation) by the calling script.
    passed = int(os.environ.get("PRIOR_PASSED", "0"))
    failed = int(os.environ.get("PRIOR_FAILED", "0"))
    with tempfile.TemporaryDirectory(prefix="latscope-chromium-") as profile:
        driver = make_driver(profile)
        try:
            for path in sys.argv[2:]:
                try:
                    problems, info, shot = check(driver, path, outdir)
                except Exception as e:  # a crash of one page is a failure of that page
                    problems, info, shot = [f"could not check: {e}"], {"charts": [], "tables": []}, "-"
                name = os.path.basename(path)
                if problems:
                    failed += 1
                    print(f"FAIL {name}")
                    for p in problems:
                        print(f"     {p}")
                else:
                    passed += 1
                    print(f"ok   {name}: {len(info['charts'])} charts, {len(info['tables'])} tables -> {shot}")
        finally:
            driver.quit()
    print(f"{passed} passed, {failed} failed")
    return 1 if failed else 0


if __name__ == "__main__":
    sys.exit(main())
