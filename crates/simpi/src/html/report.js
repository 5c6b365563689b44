// simpi's HTML report: draws the per-rank breakdown and the timeline from the JSON in
// #simpi-data, and sorts a sweep's table. Data from inputs is only ever set as text (textContent, fillText).
(function () {
  'use strict';

  var errorBox = document.getElementById('script-error');
  window.addEventListener('error', function (e) {
    errorBox.hidden = false;
    errorBox.textContent = 'The page\'s script failed: ' + e.message;
  });

  var data = JSON.parse(document.getElementById('simpi-data').textContent);
  var PARTS = ['compute', 'communication', 'waiting', 'idle'];

  // Picoseconds as simpi prints them.
  function fmtTime(ps) {
    var s = ps / 1e12;
    if (s >= 1) return s.toFixed(6) + ' s';
    if (s >= 1e-3) return (s * 1e3).toFixed(6) + ' ms';
    if (s >= 1e-6) return (s * 1e6).toFixed(6) + ' us';
    return (s * 1e9).toFixed(3) + ' ns';
  }

  // A tick label: in the unit of the step, with the decimals the step needs.
  function fmtTick(ps, step) {
    var units = [[1e12, 's'], [1e9, 'ms'], [1e6, 'us'], [1e3, 'ns'], [1, 'ps']];
    for (var i = 0; i < units.length; i++) {
      if (step >= units[i][0] || i === units.length - 1) {
        var v = ps / units[i][0];
        var digits = Math.max(0, Math.min(6, -Math.floor(Math.log10(step / units[i][0]) + 1e-9)));
        return v.toFixed(digits) + ' ' + units[i][1];
      }
    }
    return String(ps);
  }

  function el(tag, cls, text) {
    var e = document.createElement(tag);
    if (cls) e.className = cls;
    if (text !== undefined) e.textContent = text;
    return e;
  }

  // The per-rank table, a stacked bar each (widths: shares of the makespan).
  function initBreakdown(d, section) {
    var tbody = section.querySelector('#breakdown-ranks tbody');
    var rows = d.rows;
    var whole = Math.max(d.makespan, 1);
    var frag = document.createDocumentFragment();
    for (var i = 0; i + 5 < rows.length; i += 6) {
      var tr = el('tr');
      tr.appendChild(el('td', null, String(rows[i])));
      for (var k = 1; k < 6; k++) tr.appendChild(el('td', null, fmtTime(rows[i + k])));
      var bar = el('div', 'bar');
      for (var p = 0; p < 4; p++) {
        var part = el('span', 'part' + p);
        part.style.width = (100 * rows[i + 2 + p] / whole) + '%';
        part.title = PARTS[p] + ': ' + fmtTime(rows[i + 2 + p]);
        bar.appendChild(part);
      }
      var td = el('td', 'barcol');
      td.appendChild(bar);
      tr.appendChild(td);
      frag.appendChild(tr);
    }
    tbody.appendChild(frag);
  }

  // The timeline: a lane row per lane of each rank shown, spans coloured by call,
  // messages as lines, the critical path outlined and joined in red. Wheel zooms around
  // the pointer, drag pans (both ways), double-click resets.
  function initTimeline(d, section) {
    var canvas = section.querySelector('#timeline-canvas');
    var ctx = canvas.getContext('2d');
    var tip = section.querySelector('#timeline-tip');
    var unit = d.unit;
    // Spans as [rank, lane, label, start, end] (the data gives each rank's count).
    var nSpans = d.spans.length / 4, S = new Float64Array(5 * nSpans);
    for (var q = 0, n0 = 0; q < d.ranks.length; q++) {
      for (var m = 0; m < d.counts[q]; m++, n0++) {
        S[5 * n0] = d.ranks[q];
        for (var f0 = 0; f0 < 4; f0++) S[5 * n0 + 1 + f0] = d.spans[4 * n0 + f0];
      }
    }
    var C = d.critical, nCrit = C.length / 5;
    var F = d.flows, nFlows = F.length / 2;
    var nRanks = d.ranks.length;
    var GUTTER = 72, AXIS = 22, PAD = 12, GAP = 1, MAX_LINES = 4000;

    // Lane rows: rank i's lanes start at row laneBase[i].
    var indexOf = {}, laneBase = [], rows = 0;
    for (var i = 0; i < nRanks; i++) {
      indexOf[d.ranks[i]] = i;
      laneBase.push(rows);
      rows += d.lanes[i];
    }
    var rankOfRow = new Int32Array(rows);
    for (i = 0; i < nRanks; i++) {
      for (var l = 0; l < d.lanes[i]; l++) rankOfRow[laneBase[i] + l] = i;
    }
    function rowOfSpan(k) {
      return laneBase[indexOf[S[5 * k]]] + S[5 * k + 1];
    }
    // The spans of each lane row, by start (a lane's spans do not overlap, so their ends
    // are in the same order).
    var byRow = [];
    for (i = 0; i < rows; i++) byRow.push([]);
    for (var k = 0; k < nSpans; k++) byRow[rowOfSpan(k)].push(k);
    var onPath = new Uint8Array(nSpans);
    for (i = 0; i < nCrit; i++) if (C[5 * i + 1] >= 0) onPath[C[5 * i + 1]] = 1;
    function colourOf(label) {
      return label < d.labels.length ? d.colours[label % d.colours.length] : '#999999';
    }

    var W = 800, H = 200, laneH = 8, contentH = 0, viewH = 0;
    var full = Math.max(d.makespan, 1) * 1.02;
    var view = { t0: 0, t1: full, y: 0 };
    var showMessages = true;

    function layout() {
      W = Math.max(canvas.parentNode.clientWidth || 800, 300);
      laneH = Math.max(3, Math.min(16, Math.floor(520 / Math.max(rows, 1))));
      contentH = rows * laneH + nRanks * GAP;
      viewH = Math.min(contentH, 560);
      H = viewH + AXIS + 4;
      var dpr = window.devicePixelRatio || 1;
      canvas.style.width = W + 'px';
      canvas.style.height = H + 'px';
      canvas.width = Math.round(W * dpr);
      canvas.height = Math.round(H * dpr);
      ctx.setTransform(dpr, 0, 0, dpr, 0, 0);
      clampView();
    }
    function clampView() {
      view.y = Math.max(0, Math.min(view.y, contentH - viewH));
    }
    function plotW() {
      return W - GUTTER - PAD;
    }
    function xOf(t) {
      return GUTTER + (t - view.t0) * plotW() / (view.t1 - view.t0);
    }
    function tOf(x) {
      return view.t0 + (x - GUTTER) * (view.t1 - view.t0) / plotW();
    }
    function rowTop(row) {
      return AXIS + row * laneH + rankOfRow[row] * GAP - view.y;
    }

    // The first span of `list` (indices by start) that ends at or after t.
    function firstEnding(list, t) {
      var lo = 0, hi = list.length;
      while (lo < hi) {
        var mid = (lo + hi) >> 1;
        if (S[5 * list[mid] + 4] < t) lo = mid + 1; else hi = mid;
      }
      return lo;
    }

    function draw() {
      ctx.clearRect(0, 0, W, H);
      ctx.save();
      ctx.beginPath();
      ctx.rect(GUTTER, AXIS, W - GUTTER, H - AXIS);
      ctx.clip();
      var first = 0;
      while (first < rows && rowTop(first) + laneH < AXIS) first++;
      // Bands: every other rank shaded.
      for (var i = 0; i < nRanks; i++) {
        var top = rowTop(laneBase[i]), h = d.lanes[i] * laneH;
        if (top > H || top + h < AXIS || i % 2 === 0) continue;
        ctx.fillStyle = '#f1f3f6';
        ctx.fillRect(GUTTER, top, W - GUTTER, h);
      }
      var drawn = 0;
      var gapH = laneH > 4 ? 1 : 0;
      for (var row = first; row < rows; row++) {
        var y = rowTop(row);
        if (y > H) break;
        var list = byRow[row];
        var lastX = -1;
        for (var j = firstEnding(list, view.t0); j < list.length; j++) {
          var k = list[j];
          var s = S[5 * k + 3], e = S[5 * k + 4];
          if (s > view.t1) break;
          var x0 = Math.max(xOf(s), GUTTER - 1), x1 = Math.min(xOf(e), W + 1);
          // Spans narrower than a pixel share it: one is drawn per pixel.
          if (x1 - x0 < 1) {
            if (Math.floor(x0) <= lastX) continue;
            x1 = x0 + 1;
          }
          lastX = Math.floor(x1);
          ctx.fillStyle = colourOf(S[5 * k + 2]);
          ctx.fillRect(x0, y, x1 - x0, laneH - gapH);
          drawn++;
        }
      }
      // Messages: from the send's start to the receive's end; fainter when many.
      var lines = 0;
      if (showMessages && nFlows > 0) {
        var seen = [];
        for (var f = 0; f < nFlows && seen.length < MAX_LINES; f++) {
          var a = F[2 * f], b = F[2 * f + 1];
          var ta = S[5 * a + 3], tb = S[5 * b + 4];
          if (Math.max(ta, tb) < view.t0 || Math.min(ta, tb) > view.t1) continue;
          var ya = rowTop(rowOfSpan(a)) + laneH / 2, yb = rowTop(rowOfSpan(b)) + laneH / 2;
          if (Math.max(ya, yb) < AXIS || Math.min(ya, yb) > H) continue;
          seen.push(xOf(ta), ya, xOf(tb), yb);
        }
        lines = seen.length / 4;
        ctx.strokeStyle = lines > 300 ? 'rgba(40, 40, 40, 0.16)' : 'rgba(40, 40, 40, 0.5)';
        ctx.lineWidth = 1;
        ctx.beginPath();
        for (var g = 0; g < seen.length; g += 4) {
          ctx.moveTo(seen[g], seen[g + 1]);
          ctx.lineTo(seen[g + 2], seen[g + 3]);
        }
        ctx.stroke();
      }
      // The critical path: each step outlined from where it joins the path to its end,
      // joined to the step before it.
      ctx.strokeStyle = '#d62728';
      ctx.lineWidth = 2;
      var prev = null;
      for (var c = 0; c < nCrit; c++) {
        var rank = C[5 * c], span = C[5 * c + 1], at = C[5 * c + 2], end = C[5 * c + 3];
        var r = span >= 0 ? rowOfSpan(span) : (indexOf[rank] !== undefined ? laneBase[indexOf[rank]] : -1);
        if (r < 0) { prev = null; continue; }
        var top2 = rowTop(r);
        var xa = xOf(at), xb = Math.max(xOf(end), xa + 1);
        ctx.lineWidth = 2;
        if (!(xb < GUTTER || xa > W || top2 > H || top2 + laneH < AXIS)) {
          ctx.strokeRect(xa, top2 + 0.5, xb - xa, Math.max(laneH - 1, 2));
        }
        if (prev) {
          ctx.lineWidth = 1.25;
          ctx.beginPath();
          ctx.moveTo(prev.x, prev.y);
          ctx.lineTo(xa, top2 + laneH / 2);
          ctx.stroke();
        }
        prev = { x: xb, y: top2 + laneH / 2 };
      }
      ctx.restore();
      drawGutter();
      drawAxis();
      rangeText.textContent = 'Shown: ' + fmtTime(Math.max(view.t0, 0) * unit) + ' to ' + fmtTime(view.t1 * unit)
        + (contentH > viewH ? '; drag up and down for more ranks' : '');
      return drawn + lines;
    }

    function drawGutter() {
      ctx.fillStyle = '#ffffff';
      ctx.fillRect(0, AXIS, GUTTER, H - AXIS);
      ctx.fillStyle = '#333333';
      ctx.font = '11px sans-serif';
      ctx.textBaseline = 'middle';
      var lastY = -100;
      for (var i = 0; i < nRanks; i++) {
        var top = rowTop(laneBase[i]), h = d.lanes[i] * laneH;
        var y = top + Math.min(h, 14) / 2;
        if (y < AXIS + 6 || top > H || y - lastY < 12) continue;
        ctx.fillText('rank ' + d.ranks[i], 6, y);
        lastY = y;
      }
    }

    function drawAxis() {
      ctx.fillStyle = '#ffffff';
      ctx.fillRect(0, 0, W, AXIS);
      var span = (view.t1 - view.t0) * unit;
      var rough = span / Math.max(plotW() / 110, 1);
      var p = Math.pow(10, Math.floor(Math.log10(rough)));
      var step = p * (rough / p > 5 ? 10 : rough / p > 2 ? 5 : rough / p > 1 ? 2 : 1);
      ctx.strokeStyle = '#999999';
      ctx.fillStyle = '#333333';
      ctx.font = '11px sans-serif';
      ctx.textBaseline = 'top';
      ctx.lineWidth = 1;
      ctx.beginPath();
      var t = Math.ceil(view.t0 * unit / step) * step;
      for (var n = 0; t <= view.t1 * unit && n < 100; t += step, n++) {
        var x = Math.round(xOf(t / unit)) + 0.5;
        ctx.moveTo(x, AXIS - 6);
        ctx.lineTo(x, AXIS);
        ctx.fillText(fmtTick(t, step), x + 3, 4);
      }
      ctx.moveTo(GUTTER, AXIS - 0.5);
      ctx.lineTo(W, AXIS - 0.5);
      ctx.stroke();
    }

    // One draw per frame however many events come; a timer as well, for browsers that
    // give a page no frames (a background tab, a headless run).
    var pending = false;
    function redraw() {
      if (pending) return;
      pending = true;
      var go = function () {
        if (!pending) return;
        pending = false;
        draw();
      };
      window.requestAnimationFrame(go);
      window.setTimeout(go, 50);
    }
    function reset() {
      view.t0 = 0;
      view.t1 = full;
      view.y = 0;
      redraw();
    }
    function zoomTo(t0, t1, row) {
      var w = Math.max(t1 - t0, full * 1e-6, 1);
      view.t0 = t0 - w * 0.6;
      view.t1 = t1 + w * 0.6;
      if (row !== undefined) {
        view.y = row * laneH - viewH / 2;
        clampView();
      }
      redraw();
    }

    // The span under a point, or -1.
    function spanAt(x, y) {
      if (x < GUTTER || y < AXIS) return -1;
      var yy = y - AXIS + view.y;
      var lo = 0, hi = rows - 1;
      while (lo < hi) {
        var mid = (lo + hi + 1) >> 1;
        if (mid * laneH + rankOfRow[mid] * GAP <= yy) lo = mid; else hi = mid - 1;
      }
      if (rows === 0 || yy - (lo * laneH + rankOfRow[lo] * GAP) >= laneH) return -1;
      var list = byRow[lo], t = tOf(x), tol = 3 * (view.t1 - view.t0) / plotW();
      var j = firstEnding(list, t - tol);
      if (j < list.length && S[5 * list[j] + 3] <= t + tol) return list[j];
      return -1;
    }

    var drag = null;
    function local(e) {
      var b = canvas.getBoundingClientRect();
      return { x: e.clientX - b.left, y: e.clientY - b.top };
    }
    canvas.addEventListener('wheel', function (e) {
      e.preventDefault();
      if (e.shiftKey) {
        view.y += e.deltaY;
        clampView();
      } else {
        var p = local(e);
        var t = tOf(Math.max(GUTTER, Math.min(p.x, W - PAD)));
        var w = (view.t1 - view.t0) * Math.exp(e.deltaY * 0.002);
        w = Math.max(Math.min(w, full * 4), Math.max(full * 1e-9, 1e-3));
        view.t0 = t - (t - view.t0) * w / (view.t1 - view.t0);
        view.t1 = view.t0 + w;
      }
      redraw();
    }, { passive: false });
    canvas.addEventListener('mousedown', function (e) {
      drag = { x: e.clientX, y: e.clientY, t0: view.t0, t1: view.t1, vy: view.y };
      tip.hidden = true;
      e.preventDefault();
    });
    window.addEventListener('mouseup', function () {
      drag = null;
    });
    window.addEventListener('mousemove', function (e) {
      if (!drag) return;
      var dt = (e.clientX - drag.x) * (drag.t1 - drag.t0) / plotW();
      view.t0 = drag.t0 - dt;
      view.t1 = drag.t1 - dt;
      view.y = drag.vy - (e.clientY - drag.y);
      clampView();
      redraw();
    });
    canvas.addEventListener('mousemove', function (e) {
      if (drag) return;
      var p = local(e);
      var k = spanAt(p.x, p.y);
      if (k < 0) {
        tip.hidden = true;
        return;
      }
      var label = S[5 * k + 2] < d.labels.length ? d.labels[S[5 * k + 2]] : '?';
      var s = S[5 * k + 3] * unit, en = S[5 * k + 4] * unit;
      tip.textContent = label + ' on rank ' + S[5 * k] + '\n' + fmtTime(s) + ' to ' + fmtTime(en)
        + ' (' + fmtTime(en - s) + ')' + (onPath[k] ? '\non the critical path' : '');
      tip.hidden = false;
      tip.style.left = Math.min(p.x + 14, W - 220) + 'px';
      tip.style.top = (p.y + 14) + 'px';
    });
    canvas.addEventListener('mouseleave', function () {
      tip.hidden = true;
    });
    canvas.addEventListener('dblclick', reset);
    section.querySelector('#timeline-reset').addEventListener('click', reset);
    section.querySelector('#timeline-messages').addEventListener('change', function (e) {
      showMessages = e.target.checked;
      redraw();
    });
    window.addEventListener('resize', function () {
      layout();
      redraw();
    });
    // Clicking a step of the critical path's list shows it.
    var steps = document.querySelectorAll('#critical-steps li[data-step]');
    Array.prototype.forEach.call(steps, function (li) {
      li.addEventListener('click', function () {
        var c = Number(li.getAttribute('data-step'));
        if (!(c >= 0 && c < nCrit)) return;
        var span = C[5 * c + 1], rank = C[5 * c];
        var row = span >= 0 ? rowOfSpan(span) : (indexOf[rank] !== undefined ? laneBase[indexOf[rank]] : undefined);
        zoomTo(C[5 * c + 2], C[5 * c + 3], row);
        canvas.scrollIntoView({ block: 'center' });
      });
    });

    // The legend: the calls drawn, messages, the critical path.
    var legend = section.querySelector('#timeline-legend');
    var used = new Uint8Array(d.labels.length + 1);
    for (k = 0; k < nSpans; k++) used[Math.min(S[5 * k + 2], d.labels.length)] = 1;
    for (i = 0; i <= d.labels.length; i++) {
      if (!used[i]) continue;
      var item = el('span', 'item');
      var sw = el('span', 'swatch');
      sw.style.background = colourOf(i);
      item.appendChild(sw);
      item.appendChild(document.createTextNode(i < d.labels.length ? d.labels[i] : 'other'));
      legend.appendChild(item);
    }
    var msg = el('span', 'item');
    msg.appendChild(el('span', 'line message'));
    msg.appendChild(document.createTextNode('message'));
    legend.appendChild(msg);
    var cp = el('span', 'item');
    cp.appendChild(el('span', 'line critical'));
    cp.appendChild(document.createTextNode('critical path'));
    legend.appendChild(cp);

    var rangeText = section.querySelector('#timeline-range');
    layout();
    var shapes = draw();
    section.querySelector('#timeline-status').textContent = nSpans + ' spans on ' + nRanks + ' ranks ('
      + rows + ' lanes), ' + nFlows + ' messages and ' + nCrit + ' critical-path steps loaded; '
      + shapes + ' shapes in the first view.';
  }

  // A sweep's table of points: a click on a heading sorts the rows by that column
  // (numbers as numbers, other values as text; a second click reverses the order).
  function initSortable(d, section) {
    var table = section.querySelector('table');
    var body = table.tBodies[0];
    var heads = table.tHead.rows[0].cells;
    var sortedBy = -1;
    var ascending = true;
    function key(row, col) {
      var v = row.cells[col].getAttribute('data-v');
      var x = Number(v);
      return v !== '' && isFinite(x) ? { num: true, v: x } : { num: false, v: v };
    }
    function compare(col) {
      return function (a, b) {
        var ka = key(a, col);
        var kb = key(b, col);
        var c;
        if (ka.num && kb.num) c = ka.v - kb.v;
        else if (ka.num !== kb.num) c = ka.num ? -1 : 1;
        else c = ka.v < kb.v ? -1 : (ka.v > kb.v ? 1 : 0);
        // Equal keys keep the grid's order.
        if (c === 0) c = Number(a.cells[0].getAttribute('data-v')) - Number(b.cells[0].getAttribute('data-v'));
        return ascending ? c : -c;
      };
    }
    Array.prototype.forEach.call(heads, function (th, col) {
      th.classList.add('sortable');
      th.addEventListener('click', function () {
        ascending = sortedBy === col ? !ascending : true;
        sortedBy = col;
        var rows = Array.prototype.slice.call(body.rows);
        rows.sort(compare(col));
        rows.forEach(function (r) { body.appendChild(r); });
        Array.prototype.forEach.call(heads, function (h, i) {
          h.setAttribute('aria-sort', i === col ? (ascending ? 'ascending' : 'descending') : 'none');
        });
      });
    });
    section.setAttribute('data-rows', String(d.rows));
  }

  // Sections the script draws, by id; a new kind of section adds its initialiser here.
  var initialisers = { breakdown: initBreakdown, timeline: initTimeline, 'sweep-table': initSortable };
  Object.keys(initialisers).forEach(function (id) {
    var section = document.getElementById(id);
    if (data[id] && section) initialisers[id](data[id], section);
  });
  document.documentElement.setAttribute('data-simpi-ready', 'yes');
})();
