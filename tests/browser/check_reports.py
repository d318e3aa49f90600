#!/usr/bin/env python3
"""Open latscope HTML reports in headless Debian Chromium and check them as a reader would.

For each report, at 1920 px wide: no console error (JS errors, failed loads), nothing fetched
(the page must be self-contained), every chart (<svg>) has a visible size and at least one
plotted element (an element drawn in a chromatic colour: axes, grid and labels are pure
greys), no two texts of a chart overlap (bounding boxes), every table has rows and fits the
page without a scrollbar, no two sections share a title, microseconds are written µs; every
zoomable chart (series, timelines) changes its visible range when dragged across and shows
data in the zoomed view, and a hover gives a read-out; then a full-page screenshot is saved
next to the other outputs.

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
const charts = [...document.querySelectorAll('svg.chart')].map((s, i) => {
  const shapes = [...s.querySelectorAll('rect,path,polyline,polygon,circle,line')];
  const data = shapes.filter(e => !grey(e.getAttribute('fill')) || !grey(e.getAttribute('stroke')));
  const drawn = data.filter(e => { try { const b = e.getBBox(); return b.width > 0 || b.height > 0; } catch (x) { return false; } });
  const r = s.getBoundingClientRect();
  return {name: s.dataset.chart || ('svg #' + i), data: data.length, drawn: drawn.length,
          w: r.width, h: r.height, texts: s.querySelectorAll('text').length};
});
const tables = [...document.querySelectorAll('table')].map(t => t.querySelectorAll('tbody tr').length);
// Text boxes of each chart that overlap another (more than 2 px each way).
const overlaps = [];
document.querySelectorAll('svg.chart').forEach((s, si) => {
  const boxes = [...s.querySelectorAll('text')].filter(t => t.textContent.trim())
    .map(t => ({t: t.textContent.trim(), r: t.getBoundingClientRect()}));
  for (let i = 0; i < boxes.length; i++) for (let j = i + 1; j < boxes.length; j++) {
    const a = boxes[i].r, b = boxes[j].r;
    const w = Math.min(a.right, b.right) - Math.max(a.left, b.left);
    const h = Math.min(a.bottom, b.bottom) - Math.max(a.top, b.top);
    if (w > 2 && h > 2) overlaps.push((s.dataset.chart || 'svg') + ' #' + si + ': "' + boxes[i].t + '" / "' + boxes[j].t + '"');
  }
});
const wide = [...document.querySelectorAll('.tbl')].filter(d => d.scrollWidth > d.clientWidth + 1)
  .map(d => [...d.querySelectorAll('th')].map(h => h.textContent).join(','));
const heads = [...document.querySelectorAll('h2,h3')].map(h => h.textContent.trim());
const dupHeads = heads.filter((h, i) => heads.indexOf(h) !== i);
const body = document.body.innerText;
const us = (body.match(/\d\s?us\b/g) || []).slice(0, 3);
const fetched = performance.getEntriesByType('resource').map(e => e.name);
return {charts, tables, fetched, overlaps, wide, dupHeads, us,
        height: document.documentElement.scrollHeight, title: document.title};
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
        "--window-size=1920,1080",
    ]:
        opts.add_argument(a)
    opts.set_capability("goog:loggingPrefs", {"browser": "ALL"})
    service = Service(executable_path=os.environ.get("CHROMEDRIVER", "/usr/bin/chromedriver"))
    return webdriver.Chrome(service=service, options=opts)


ZOOM_JS = r"""
const out = [];
for (const f of document.querySelectorAll('figure.zoomable')) {
  out.push({id: f.id, view: f.getAttribute('data-view')});
}
return out;
"""

AFTER_JS = r"""
const f = document.getElementById(arguments[0]);
const ov = f.querySelector('svg.overlay');
const drawn = ov ? ov.querySelectorAll('polyline,rect').length : 0;
const labels = ov ? [...ov.querySelectorAll('text')].map(t => t.textContent) : [];
return {view: f.getAttribute('data-view'), drawn, labels, readout: f.querySelector('.readout').textContent};
"""


def check_zoom(driver, problems):
    """Drags across the middle of every zoomable chart: the visible range must shrink to the
    dragged stretch, the zoomed view must show data and distinct labels; a hover must give a
    read-out; a double-click must restore the full range."""
    from selenium.webdriver.common.action_chains import ActionChains
    from selenium.webdriver.common.by import By
    checked = 0
    for z in driver.execute_script(ZOOM_JS)[:6]:
        fig = driver.find_element(By.ID, z["id"])
        driver.execute_script("arguments[0].scrollIntoView({block: 'center'})", fig)
        plot = fig.find_element(By.CSS_SELECTOR, ".plot")
        w = plot.size["width"]
        a0, a1 = (float(v) for v in z["view"].split())
        ActionChains(driver).move_to_element_with_offset(plot, int(-w * 0.15), 0).click_and_hold() \
            .move_by_offset(int(w * 0.25), 0).release().perform()
        after = driver.execute_script(AFTER_JS, z["id"])
        b0, b1 = (float(v) for v in after["view"].split())
        if not (b1 - b0 < 0.6 * (a1 - a0) and b0 >= a0 - 1 and b1 <= a1 + 1):
            problems.append(f"zoom did not change the visible range of {z['id']}: {z['view']} -> {after['view']}")
        if after["drawn"] < 3:
            problems.append(f"zoomed view of {z['id']} is empty")
        labels = [l for l in after["labels"] if l.strip()]
        if len(set(labels)) != len(labels):
            problems.append(f"zoomed axis of {z['id']} repeats a label: {labels}")
        ActionChains(driver).move_to_element_with_offset(plot, int(w * 0.05), 0).perform()
        if not driver.execute_script(AFTER_JS, z["id"])["readout"].strip():
            problems.append(f"no hover read-out on {z['id']}")
        ActionChains(driver).double_click(plot).perform()
        back = driver.execute_script(AFTER_JS, z["id"])["view"]
        if back != z["view"]:
            problems.append(f"double-click did not reset {z['id']}: {back}")
        checked += 1
    return checked


def check(driver, path, outdir):
    problems = []
    driver.set_window_size(1920, 1080)
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
    for o in info["overlaps"][:5]:
        problems.append("overlapping text: " + o)
    for t in info["wide"][:3]:
        problems.append("table wider than the page at 1920 px: " + t[:120])
    for h in info["dupHeads"][:3]:
        problems.append("two sections titled " + repr(h))
    if info["us"]:
        problems.append("'us' written for µs: " + ", ".join(info["us"]))
    info["zoomed"] = check_zoom(driver, problems)
    for entry in driver.get_log("browser"):
        if entry.get("level") in ("SEVERE", "ERROR"):
            problems.append("console error after zoom/hover: " + entry.get("message", "")[:200])
    driver.get("file://" + os.path.abspath(path))
    height = min(max(int(info["height"]), 600), 16000)
    driver.set_window_size(1920, height)
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
                    print(f"ok   {name}: {len(info['charts'])} charts, {len(info['tables'])} tables, "
                          f"{info.get('zoomed', 0)} zoomed -> {shot}")
        finally:
            driver.quit()
    print(f"{passed} passed, {failed} failed")
    return 1 if failed else 0


if __name__ == "__main__":
    sys.exit(main())
