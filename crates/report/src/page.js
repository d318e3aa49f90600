// latscope report: zoom, pan and hover read-outs on the inline SVG charts, and the crosshair
// between a table of worst instances and its chart. No network, no library: every chart is a
// complete static SVG without this script; the script only adds an overlay.
(function () {
  'use strict';
  // The SVG namespace, taken from an inline chart (the page holds no URL at all).
  var anySvg = document.querySelector('svg');
  if (!anySvg) return;
  var NS = anySvg.namespaceURI;
  var UNITS = [[1e9, 's'], [1e6, 'ms'], [1e3, '\u00b5s'], [1, 'ns']];

  function unitFor(ns) {
    var a = Math.abs(ns);
    for (var i = 0; i < UNITS.length; i++) if (a >= UNITS[i][0]) return UNITS[i];
    return UNITS[3];
  }
  function sig(v, n) {
    if (!isFinite(v)) return String(v);
    if (v === 0) return '0';
    var s = Number(v.toPrecision(n)).toString();
    return s;
  }
  function dur(ns) {
    var u = unitFor(ns);
    return sig(ns / u[0], 4) + ' ' + u[1];
  }
  // Decimals a tick step needs (0.5 -> 1, 0.02 -> 2).
  function decimals(step) {
    return step > 0 && step < 1 ? Math.min(9, Math.ceil(-Math.log10(step) - 1e-9)) : 0;
  }
  function niceStep(span, target) {
    var raw = span / target, mag = Math.pow(10, Math.floor(Math.log10(raw))), n = raw / mag;
    return mag * (n < 1.5 ? 1 : n < 3 ? 2 : n < 7 ? 5 : 10);
  }
  // A time axis over [a, b] ns, as the Rust side draws it: unit by span; a window far from
  // zero is labelled relative to a round offset ("41.4 s + ms").
  function timeAxis(a, b, word) {
    var span = b - a, u = unitFor(span > 0 ? span : Math.max(Math.abs(a), Math.abs(b)));
    var stepNs = niceStep(span / u[0], 6) * u[0];
    var off = (a > 10 * span && span > 0) ? Math.floor(a / stepNs) * stepNs : 0;
    var step = stepNs / u[0], d = decimals(step), ticks = [];
    var first = Math.ceil((a - off) / stepNs - 1e-9);
    for (var k = first; (k * stepNs + off) <= b + 1e-9 * stepNs && ticks.length < 40; k++) {
      ticks.push({v: k * stepNs + off, label: (k * step).toFixed(d)});
    }
    var ou = unitFor(off);
    var offNum = (off / ou[0]).toFixed(decimals(stepNs / ou[0]));
    if (offNum.indexOf('.') >= 0) offNum = offNum.replace(/\.?0+$/, '');
    var offText = offNum + ' ' + ou[1];
    return {ticks: ticks, title: off ? word + ' (' + offText + ' + ' + u[1] + ')' : word + ' (' + u[1] + ')'};
  }

  function axisOf(svg, which) {
    try { return JSON.parse(svg.getAttribute('data-' + which)); } catch (e) { return null; }
  }
  // Value <-> pixel along an axis (pixels in the SVG's own coordinates).
  function toValue(ax, p0, p1, px) {
    var f = (px - p0) / (p1 - p0), c = ax.lo + f * (ax.hi - ax.lo);
    var v = ax.log ? Math.pow(10, c) : c;
    return v * ax.scale + ax.offset;
  }
  function toPlot(ax, v) {
    var x = (v - ax.offset) / ax.scale;
    return ax.log ? Math.log10(Math.max(x, 1e-300)) : x;
  }
  function fmtAxis(ax, v) {
    var k = ax.kind || '';
    if (k === 'time') return dur(v);
    if (k === 'percentile') return sig(100 * (1 - Math.pow(10, -v)), 6) + ' %';
    if (k === 'count') return sig(v, 4);
    if (k.indexOf('plain:') === 0) return sig(v, 4) + (k.length > 6 ? ' ' + k.slice(6) : '');
    return '';
  }
  function el(name, attrs, parent) {
    var e = document.createElementNS(NS, name);
    for (var k in attrs) e.setAttribute(k, attrs[k]);
    if (parent) parent.appendChild(e);
    return e;
  }
  function svgPoint(svg, ev) {
    var r = svg.getBoundingClientRect(), w = +svg.getAttribute('width'), h = +svg.getAttribute('height');
    return {x: (ev.clientX - r.left) * w / r.width, y: (ev.clientY - r.top) * h / r.height};
  }

  function setup(fig) {
    var svg = fig.querySelector('svg.chart');
    if (!svg || !svg.getAttribute('data-plot')) return;
    var P = svg.getAttribute('data-plot').split(' ').map(Number); // x0 y0 x1 y1
    var X = axisOf(svg, 'x'), Y = axisOf(svg, 'y');
    if (!X || !Y) return;
    var dataEl = fig.querySelector('script.chart-data'), data = null;
    try { data = dataEl ? JSON.parse(dataEl.textContent) : null; } catch (e) { data = null; }
    var W = +svg.getAttribute('width'), H = +svg.getAttribute('height');
    var readout = fig.querySelector('.readout');
    var overlay = el('svg', {'class': 'overlay', viewBox: '0 0 ' + W + ' ' + H, preserveAspectRatio: 'xMidYMid meet'});
    svg.parentNode.appendChild(overlay);
    var zoomLayer = el('g', {}, overlay), hover = el('g', {}, overlay);
    var zoomable = data && (data.type === 'series' || data.type === 'timeline') && X.kind === 'time' && !X.log;
    var full = [toValue(X, P[0], P[2], P[0]), toValue(X, P[0], P[2], P[2])];
    var view = full.slice();
    var mark = null; // crosshair instant from a table row
    fig.setAttribute('data-view', view[0] + ' ' + view[1]);
    if (zoomable) fig.classList.add('zoomable');

    function px(v) { return P[0] + (v - view[0]) / (view[1] - view[0]) * (P[2] - P[0]); }
    function py(v) { var p = toPlot(Y, v); return P[3] - (p - Y.lo) / (Y.hi - Y.lo) * (P[3] - P[1]); }

    function status(extra) {
      var txt = '';
      if (zoomable) {
        var z = view[0] !== full[0] || view[1] !== full[1];
        txt = 'showing ' + dur(view[0]) + ' \u2026 ' + dur(view[1]) + (z ? ' (zoomed)' : '');
      }
      return txt + (extra ? (txt ? ' \u00b7 ' : '') + extra : '');
    }
    function say(extra) {
      readout.textContent = status(extra);
      if (zoomable && (view[0] !== full[0] || view[1] !== full[1])) {
        var b = document.createElement('button');
        b.type = 'button'; b.textContent = 'reset zoom';
        b.onclick = function () { setView(full[0], full[1]); };
        readout.appendChild(b);
      }
    }

    // Redraws the plot area for the current view: a white cover over the static drawing
    // inside the frame and under the x axis, then grid, data and x labels of the view.
    function redraw() {
      while (zoomLayer.firstChild) zoomLayer.removeChild(zoomLayer.firstChild);
      fig.setAttribute('data-view', view[0] + ' ' + view[1]);
      var zoomed = view[0] !== full[0] || view[1] !== full[1];
      if (zoomed || mark !== null) {
        if (zoomed) {
          el('rect', {x: P[0] + 1, y: P[1], width: P[2] - P[0] - 1, height: P[3] - P[1], fill: '#ffffff'}, zoomLayer);
          el('rect', {x: P[0] - 30, y: P[3] + 1, width: P[2] - P[0] + 60, height: H - P[3] - 1, fill: '#ffffff'}, zoomLayer);
          var ax = timeAxis(view[0], view[1], (X.title || 'time').replace(/ \(.*$/, ''));
          ax.ticks.forEach(function (t) {
            var x = px(t.v);
            el('line', {x1: x, x2: x, y1: P[1], y2: P[3], stroke: '#E4E4E4'}, zoomLayer);
            el('line', {x1: x, x2: x, y1: P[3], y2: P[3] + 4, stroke: '#555555'}, zoomLayer);
            var tx = el('text', {x: x, y: P[3] + 18, 'text-anchor': 'middle', 'font-size': 11.5, fill: '#555555', 'font-family': 'system-ui, sans-serif'}, zoomLayer);
            tx.textContent = t.label;
          });
          var title = el('text', {x: (P[0] + P[2]) / 2, y: H - 10, 'text-anchor': 'middle', 'font-size': 12.5, fill: '#222222', 'font-family': 'system-ui, sans-serif'}, zoomLayer);
          title.textContent = ax.title;
          var clipId = 'clip-' + fig.id;
          var cp = el('clipPath', {id: clipId}, zoomLayer);
          el('rect', {x: P[0], y: P[1], width: P[2] - P[0], height: P[3] - P[1]}, cp);
          var g = el('g', {'clip-path': 'url(#' + clipId + ')'}, zoomLayer);
          if (data.type === 'series') drawSeries(g); else drawTimeline(g);
        }
        if (mark !== null && mark >= view[0] && mark <= view[1]) {
          el('line', {x1: px(mark), x2: px(mark), y1: P[1], y2: P[3], stroke: '#DC2626', 'stroke-dasharray': '5 3', 'stroke-width': 2, 'class': 'row-mark', 'data-t': mark}, zoomLayer);
        }
      }
      say('');
    }
    function drawSeries(g) {
      var cols = Math.max(1, Math.round(P[2] - P[0]));
      data.sets.forEach(function (s) {
        // Min and max of every pixel column of the view, over every embedded point.
        var lo = new Array(cols), hi = new Array(cols), w = (view[1] - view[0]) / cols;
        s.points.forEach(function (p) {
          if (p[0] < view[0] || p[0] > view[1]) return;
          var c = Math.min(cols - 1, Math.floor((p[0] - view[0]) / w));
          if (!lo[c] || p[1] < lo[c][1]) lo[c] = p;
          if (!hi[c] || p[1] > hi[c][1]) hi[c] = p;
        });
        var pts = [];
        for (var c = 0; c < cols; c++) {
          if (!lo[c]) continue;
          var a = lo[c], b = hi[c];
          if (a[0] > b[0]) { var t = a; a = b; b = t; }
          pts.push(px(a[0]).toFixed(1) + ',' + py(a[1]).toFixed(1));
          if (b !== a) pts.push(px(b[0]).toFixed(1) + ',' + py(b[1]).toFixed(1));
        }
        el('polyline', {points: pts.join(' '), fill: 'none', stroke: s.color, 'stroke-width': 1.2}, g);
        if (!s.exact) {
          say('');
        }
      });
      (data.marks || []).forEach(function (t) {
        if (t >= view[0] && t <= view[1]) el('line', {x1: px(t), x2: px(t), y1: P[1], y2: P[1] + 14, stroke: '#DC2626', 'stroke-width': 2}, g);
      });
      if (data.worst && data.worst[0] >= view[0] && data.worst[0] <= view[1]) {
        el('circle', {cx: px(data.worst[0]), cy: py(data.worst[1]), r: 6, fill: 'none', stroke: '#DC2626', 'stroke-width': 2}, g);
      }
    }
    function drawTimeline(g) {
      var n = data.tracks.length;
      data.tracks.forEach(function (t, ri) {
        var yc = n - 1 - ri;
        var y0 = py(yc + 0.78), y1 = py(yc + 0.22);
        t.intervals.forEach(function (iv) {
          if (iv[1] < view[0] || iv[0] > view[1]) return;
          var a = px(Math.max(iv[0], view[0])), b = px(Math.min(iv[1], view[1]));
          el('rect', {x: a, y: y0, width: Math.max(b - a, 1.5), height: y1 - y0, fill: t.color}, g);
        });
      });
      if (data.marker !== null && data.marker >= view[0] && data.marker <= view[1]) {
        el('line', {x1: px(data.marker), x2: px(data.marker), y1: P[1], y2: P[3], stroke: '#DC2626', 'stroke-width': 2}, g);
      }
    }
    function setView(a, b) {
      var minSpan = 10; // ns
      if (b - a < minSpan) { var m = (a + b) / 2; a = m - minSpan / 2; b = m + minSpan / 2; }
      view = [a, b];
      redraw();
    }
    fig.setView = setView;
    fig.getView = function () { return view.slice(); };
    fig.showMark = function (t, zoom) {
      mark = t;
      if (zoom && zoomable && (t < view[0] || t > view[1] || zoom === 'zoom')) {
        var span = (full[1] - full[0]) / 20;
        setView(t - span / 2, t + span / 2);
      } else redraw();
    };

    // Hover: the value under the pointer (the nearest point of a series, the bar of a
    // histogram, the interval of a timeline, the step of a percentile curve).
    var line = null;
    svg.parentNode.addEventListener('mousemove', function (ev) {
      var p = svgPoint(svg, ev);
      if (p.x < P[0] || p.x > P[2] || p.y < P[1] || p.y > P[3]) { hover.innerHTML = ''; say(''); return; }
      var xv = zoomable ? view[0] + (p.x - P[0]) / (P[2] - P[0]) * (view[1] - view[0]) : toValue(X, P[0], P[2], p.x);
      var yv = toValue(Y, P[3], P[1], p.y);
      var text = X.kind === 'time' ? 'at ' + dur(xv) : (X.kind === 'category' ? '' : fmtAxis(X, X.log ? Math.log10(xv) : xv));
      if (X.kind === 'percentile') text = 'percentile ' + fmtAxis(X, toPlot(X, xv));
      var yText = Y.kind === 'category' ? '' : fmtAxis(Y, Y.kind === 'percentile' ? toPlot(Y, yv) : yv);
      if (data && data.type === 'series') {
        var best = null, bd = Infinity;
        data.sets.forEach(function (s) {
          s.points.forEach(function (q) {
            var d = Math.abs(q[0] - xv);
            if (d < bd || (d === bd && best && q[1] > best.q[1])) { bd = d; best = {q: q, s: s}; }
          });
        });
        if (best) {
          var u = data.unit === 'ns' ? dur(best.q[1]) : sig(best.q[1], 4) + (data.unit ? ' ' + data.unit : '');
          text = best.s.name + ': ' + u + ' at ' + dur(best.q[0]) + (best.s.exact ? '' : ' (largest/smallest of its column)');
          yText = '';
          highlightRows(fig, best.q[0]);
        }
      } else if (data && data.type === 'histogram') {
        data.sets.forEach(function (s) {
          s.bars.forEach(function (b) {
            if (xv >= b[0] && xv <= b[1]) { text = s.name + ': ' + sig(b[2], 6) + ' in [' + dur(b[0]) + ', ' + dur(b[1]) + ')'; yText = ''; }
          });
        });
      } else if (data && data.type === 'cdf') {
        var xp = toPlot(X, xv);
        data.sets.forEach(function (s) {
          s.steps.forEach(function (st) {
            if (xp >= st[0] && xp <= st[1]) { text = s.name + ': ' + dur(st[2]) + ' at ' + fmtAxis(X, xp); yText = ''; }
          });
        });
      } else if (data && data.type === 'timeline') {
        var rows = data.tracks.length, ycat = toPlot(Y, yv), ri = rows - 1 - Math.floor(ycat);
        var tr = data.tracks[ri];
        if (tr) {
          text = tr.name + ' at ' + dur(xv);
          tr.intervals.forEach(function (iv) {
            if (xv >= iv[0] && xv <= iv[1]) text = tr.name + ': busy ' + dur(iv[0]) + ' \u2026 ' + dur(iv[1]) + ' (' + dur(iv[1] - iv[0]) + ')';
          });
          yText = '';
        }
      }
      hover.innerHTML = '';
      line = el('line', {x1: p.x, x2: p.x, y1: P[1], y2: P[3], stroke: '#888888', 'stroke-dasharray': '3 3'}, hover);
      el('line', {x1: P[0], x2: P[2], y1: p.y, y2: p.y, stroke: '#BBBBBB', 'stroke-dasharray': '3 3'}, hover);
      say([text, yText].filter(Boolean).join(' \u00b7 '));
    });
    svg.parentNode.addEventListener('mouseleave', function () { hover.innerHTML = ''; say(''); highlightRows(fig, null); });

    if (zoomable) {
      // Drag across to zoom into that stretch; shift+drag pans; wheel zooms about the
      // pointer; double-click resets.
      var drag = null, band = null;
      var plotEl = svg.parentNode;
      plotEl.addEventListener('mousedown', function (ev) {
        var p = svgPoint(svg, ev);
        if (p.x < P[0] || p.x > P[2]) return;
        drag = {x: p.x, view: view.slice(), pan: ev.shiftKey};
        ev.preventDefault();
      });
      window.addEventListener('mousemove', function (ev) {
        if (!drag) return;
        var p = svgPoint(svg, ev);
        if (drag.pan) {
          var dv = (p.x - drag.x) / (P[2] - P[0]) * (drag.view[1] - drag.view[0]);
          view = [drag.view[0] - dv, drag.view[1] - dv];
          redraw();
        } else {
          if (band) band.remove();
          band = el('rect', {x: Math.min(drag.x, p.x), y: P[1], width: Math.abs(p.x - drag.x), height: P[3] - P[1], fill: '#2563EB', 'fill-opacity': 0.12}, hover);
        }
      });
      window.addEventListener('mouseup', function (ev) {
        if (!drag) return;
        var p = svgPoint(svg, ev), d = drag;
        drag = null;
        if (band) { band.remove(); band = null; }
        if (!d.pan && Math.abs(p.x - d.x) > 4) {
          var a = Math.max(P[0], Math.min(p.x, d.x)), b = Math.min(P[2], Math.max(p.x, d.x));
          var f = function (x) { return d.view[0] + (x - P[0]) / (P[2] - P[0]) * (d.view[1] - d.view[0]); };
          setView(f(a), f(b));
        }
      });
      plotEl.addEventListener('wheel', function (ev) {
        var p = svgPoint(svg, ev);
        if (p.x < P[0] || p.x > P[2]) return;
        ev.preventDefault();
        var c = view[0] + (p.x - P[0]) / (P[2] - P[0]) * (view[1] - view[0]);
        var k = ev.deltaY < 0 ? 0.7 : 1 / 0.7;
        setView(c - (c - view[0]) * k, c + (view[1] - c) * k);
      }, {passive: false});
      plotEl.addEventListener('dblclick', function () { setView(full[0], full[1]); });
      plotEl.tabIndex = 0;
      plotEl.addEventListener('keydown', function (ev) {
        var s = (view[1] - view[0]) * 0.2;
        if (ev.key === 'ArrowLeft') setView(view[0] - s, view[1] - s);
        else if (ev.key === 'ArrowRight') setView(view[0] + s, view[1] + s);
        else if (ev.key === '+' || ev.key === '=') setView(view[0] + s, view[1] - s);
        else if (ev.key === '-') setView(view[0] - s, view[1] + s);
        else if (ev.key === '0' || ev.key === 'Escape') setView(full[0], full[1]);
      });
    }
    say('');
  }

  // Rows of linked tables whose instant falls in the same pixel column as `t`.
  function highlightRows(fig, t) {
    var link = fig.getAttribute('data-link');
    if (!link) return;
    var svg = fig.querySelector('svg.chart'), P = svg.getAttribute('data-plot').split(' ').map(Number);
    var v = fig.getView(), tol = (v[1] - v[0]) / (P[2] - P[0]);
    document.querySelectorAll('table.linked[data-link="' + link + '"] tr[data-t]').forEach(function (r) {
      r.classList.toggle('hit', t !== null && Math.abs(+r.getAttribute('data-t') - t) <= tol);
    });
  }

  var figs = document.querySelectorAll('figure.fig');
  figs.forEach(function (f) {
    var d = f.querySelector('script.chart-data');
    if (d) {
      try { var j = JSON.parse(d.textContent); if (j.link) f.setAttribute('data-link', j.link); } catch (e) { /* static chart */ }
    }
    setup(f);
  });
  // Table rows that name an instant: pointing marks it on the linked charts, clicking zooms.
  document.querySelectorAll('table.linked').forEach(function (tb) {
    var link = tb.getAttribute('data-link');
    var charts = function () { return document.querySelectorAll('figure.fig[data-link="' + link + '"]'); };
    tb.querySelectorAll('tr[data-t]').forEach(function (r) {
      var t = +r.getAttribute('data-t');
      r.addEventListener('mouseenter', function () { charts().forEach(function (f) { if (f.showMark) f.showMark(t, false); }); });
      r.addEventListener('click', function () {
        charts().forEach(function (f) { if (f.showMark) { f.showMark(t, 'zoom'); f.scrollIntoView({block: 'center'}); } });
      });
    });
  });
}());
