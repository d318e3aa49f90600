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


# Pointer moves take no time. Selenium's default is 250 ms a move, which the page does not
# need (its handlers read the events, not their timing), and with ~20 moves per report
# that was ~5 s of waiting per report, most of this step's time (docs/testing.md, CI time).
MOVE_MS = 0


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


HOVER_JS = r"""
return [...document.querySelectorAll('figure.fig')].filter(f => f.querySelector('svg.chart[data-plot]'))
  .slice(0, 12).map(f => f.id);
"""


def check_hover(driver, problems):
    """Points at the middle of each chart's plot area: a read-out must appear under it."""
    from selenium.webdriver.common.action_chains import ActionChains
    from selenium.webdriver.common.by import By
    n = 0
    for fid in driver.execute_script(HOVER_JS):
        fig = driver.find_element(By.ID, fid)
        driver.execute_script("arguments[0].scrollIntoView({block: 'center'})", fig)
        svg = fig.find_element(By.CSS_SELECTOR, "svg.chart")
        x0, y0, x1, y1 = (float(v) for v in svg.get_attribute("data-plot").split())
        vw = float(svg.get_attribute("width"))
        k = svg.size["width"] / vw
        # Offsets from the element's centre, in CSS pixels.
        cx = ((x0 + x1) / 2 - vw / 2) * k
        cy = ((y0 + y1) / 2 - float(svg.get_attribute("height")) / 2) * k
        ActionChains(driver, duration=MOVE_MS).move_to_element_with_offset(svg, int(cx), int(cy)).perform()
        text = fig.find_element(By.CSS_SELECTOR, ".readout").text.strip()
        if not text:
            problems.append(f"no hover read-out on {fid} ({svg.get_attribute('data-chart')})")
        n += 1
    return n


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
        ActionChains(driver, duration=MOVE_MS).move_to_element_with_offset(plot, int(-w * 0.15), 0).click_and_hold() \
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
        ActionChains(driver, duration=MOVE_MS).move_to_element_with_offset(plot, int(w * 0.05), 0).perform()
        if not driver.execute_script(AFTER_JS, z["id"])["readout"].strip():
            problems.append(f"no hover read-out on {z['id']}")
        ActionChains(driver, duration=MOVE_MS).double_click(plot).perform()
        back = driver.execute_script(AFTER_JS, z["id"])["view"]
        if back != z["view"]:
            problems.append(f"double-click did not reset {z['id']}: {back}")
        checked += 1
    return checked


LINKS_JS = r"""
return [...document.querySelectorAll('table.linked')].map(t => ({
  link: t.getAttribute('data-link'),
  rows: [...t.querySelectorAll('tr[data-t]')].slice(0, 3).map(r => +r.getAttribute('data-t')),
  figs: [...document.querySelectorAll('figure.fig')].filter(f => f.getAttribute('data-link') === t.getAttribute('data-link')).map(f => f.id),
}));
"""

MARK_JS = r"""
const f = document.getElementById(arguments[0]);
const m = f.querySelector('svg.overlay line.row-mark');
let pts = [];
try { pts = JSON.parse(f.querySelector('script.chart-data').textContent).sets.flatMap(s => s.points.map(p => p[0])); } catch (e) {}
return {mark: m ? +m.getAttribute('data-t') : null, pts};
"""

WORST_JS = r"""
// The trace's worst instant (its first screen) and each timeline's marker and intervals.
const w = [...document.querySelectorAll('div.answer p.worst[data-at]')].map(p => +p.getAttribute('data-at'));
const tl = [...document.querySelectorAll('figure.fig')].map(f => {
  try { const j = JSON.parse(f.querySelector('script.chart-data').textContent);
        if (j.type !== 'timeline') return null;
        let title = '';
        try { title = JSON.parse(f.querySelector('svg.chart').getAttribute('data-x')).title || ''; } catch (e) {}
        return {id: f.id, marker: j.marker, starts: j.tracks.flatMap(t => t.intervals.map(i => i[0])), title};
  } catch (e) { return null; }
}).filter(x => x);
return {worst: w, timelines: tl};
"""


def check_links(driver, problems):
    """Every worst-instance table is linked to a drawn chart, and pointing at a row marks
    that row's instant on it, at an instant the chart draws."""
    from selenium.webdriver.common.action_chains import ActionChains
    from selenium.webdriver.common.by import By
    n = 0
    for t in driver.execute_script(LINKS_JS):
        if not t["figs"]:
            problems.append(f"table {t['link']} names instants but no chart is linked to it")
            continue
        rows = driver.find_elements(By.CSS_SELECTOR, f"table.linked[data-link='{t['link']}'] tr[data-t]")
        for i, want in enumerate(t["rows"]):
            driver.execute_script("arguments[0].scrollIntoView({block: 'center'})", rows[i])
            ActionChains(driver, duration=MOVE_MS).move_to_element(rows[i]).perform()
            got = driver.execute_script(MARK_JS, t["figs"][0])
            if got["mark"] is None or abs(got["mark"] - want) > 1e-6 * max(1.0, abs(want)):
                problems.append(f"hovering row {i + 1} of {t['link']} marks {got['mark']}, not {want}")
            elif not any(abs(p - want) <= 1e-6 * max(1.0, abs(want)) for p in got["pts"]):
                problems.append(f"row {i + 1} of {t['link']} names {want}, which the chart does not draw")
            n += 1
    return n


def check_worst_origin(driver, problems):
    """A timeline beside a trace result opens on the trace's worst instant (max_at), and a bar
    of the capture begins there: both count from the capture's start, and the axis says so."""
    info = driver.execute_script(WORST_JS)
    n = 0
    if not info["worst"]:
        return 0
    for tl in info["timelines"]:
        if "capture start" not in tl["title"]:
            continue
        want = info["worst"][0]
        if tl["marker"] is None or abs(tl["marker"] - want) > 1e-3:
            problems.append(f"timeline {tl['id']} marks {tl['marker']}, the trace's worst is at {want}")
        elif not any(abs(a - want) <= 1e-3 for a in tl["starts"]):
            problems.append(f"timeline {tl['id']}: no bar begins at the trace's worst {want} (another origin?)")
        n += 1
    return n


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
    info["linked"] = check_links(driver, problems)
    info["origins"] = check_worst_origin(driver, problems)
    if os.path.basename(path).startswith("trace-offset") and info["origins"] == 0:
        problems.append("no timeline counted from the capture start beside the trace")
    driver.get("file://" + os.path.abspath(path))
    info["zoomed"] = check_zoom(driver, problems)
    info["hovered"] = check_hover(driver, problems)
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
                          f"{info.get('zoomed', 0)} zoomed, {info.get('hovered', 0)} hovered, "
                          f"{info.get('linked', 0)} rows linked, {info.get('origins', 0)} origins -> {shot}")
        finally:
            driver.quit()
    print(f"{passed} passed, {failed} failed")
    return 1 if failed else 0


if __name__ == "__main__":
    sys.exit(main())
