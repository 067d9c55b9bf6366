/* lab report dashboard: draws the charts described by the JSON in #lab-data with Chart.js and
 * chartjs-chart-error-bars (embedded before this script), then records on <body> how it went,
 * for people and for tests that load the page headless:
 *   data-status        "ok" when every chart was drawn and no script error happened, else "error"
 *   data-charts        how many charts the data describes to draw (a spec with "table" is
 *                      shown as a table by the page, not drawn)
 *   data-charts-drawn  how many were drawn: one canvas element per point, at finite pixel
 *                      positions, and paint on the canvas
 *   data-charts-folded how many wait in a folded section: drawn when it is opened
 *                      (a canvas in a closed <details> has no size); the page's address
 *                      ending in #all opens every folded section first
 *   data-overflow      how many elements are wider than their box at this window size (a
 *                      layout fault: the page is made to fit 1400 px); data-overflow-what
 *                      names the first few
 *   data-render-ms     time spent in this script
 *   data-errors        script errors and console.error messages, " | "-separated
 * Every string shown comes from the JSON and reaches the page only through Chart.js canvas text,
 * never as HTML. */
(function () {
  'use strict';
  var t0 = performance.now();
  var body = document.body;
  var errors = [];
  var palette = ['#1f77b4', '#d62728', '#2ca02c', '#ff7f0e', '#9467bd', '#8c564b', '#e377c2',
    '#7f7f7f', '#bcbd22', '#17becf'];

  function fail(msg) {
    errors.push(String(msg));
    body.setAttribute('data-errors', errors.join(' | '));
    body.setAttribute('data-status', 'error');
  }
  window.addEventListener('error', function (e) { fail(e.message); });
  var consoleError = console.error;
  console.error = function () {
    fail(Array.prototype.join.call(arguments, ' '));
    consoleError.apply(console, arguments);
  };

  function fmt(v) {
    return typeof v === 'number' && isFinite(v) ? String(Number(v.toPrecision(4))) : '-';
  }
  function isoMinute(ms) {
    return new Date(ms).toISOString().replace('T', ' ').slice(0, 16);
  }

  // Scaling: a colour per variant.  Trend: a colour per task count, solid for the first
  // variant and dashed for the others, so A and B of one task count sit side by side.
  function style(spec, line, i) {
    if (spec.kind === 'nightly')
      return { color: line.marks ? '#d62728' : palette[0], dash: [] };
    // A scaling fit is drawn dashed, in its variant's colour, beside that variant's points.
    // A projection is dotted: never mistaken for a measured line.
    if (spec.kind !== 'trend')
      return { color: palette[(line.variant === undefined ? i : line.variant) % palette.length],
               dash: line.fit ? [4, 4] : line.projection ? [1, 3] : [] };
    var tasks = [];
    spec.lines.forEach(function (l) { if (tasks.indexOf(l.tasks) < 0) tasks.push(l.tasks); });
    return { color: palette[tasks.indexOf(line.tasks) % palette.length],
             dash: line.variant === spec.lines[0].variant ? [] : [6, 3] };
  }

  function dataset(spec, line, i) {
    var st = style(spec, line, i);
    var color = st.color;
    return {
      label: line.label,
      data: line.points.map(function (p) {
        return {
          x: p.x, y: p.y, n: p.n, lo: p.lo, hi: p.hi, report: p.report,
          // No bar where there is no interval (one sample) or no upper bound.
          yMin: p.lo === null ? p.y : p.lo,
          yMax: p.hi === null ? p.y : p.hi
        };
      }),
      borderColor: color,
      backgroundColor: color,
      errorBarColor: color,
      errorBarWhiskerColor: color,
      borderDash: st.dash,
      projection: !!line.projection,
      pointRadius: line.marks ? 8 : line.fit ? 0 : line.projection ? 2 : 3,
      pointStyle: line.marks ? 'triangle' : 'circle',
      showLine: !line.marks,
      tension: 0,
      fill: false
    };
  }

  // Nightly: x is the night's position; its tick is the night's name and commit.
  function nightTick(spec) {
    return function (v) {
      return Number.isInteger(v) && v >= 0 && v < spec.nights.length ? spec.nights[v] : '';
    };
  }

  function tooltipLabel(spec) {
    return function (ctx) {
      var p = ctx.raw;
      var s = ctx.dataset.label + ': ' + fmt(p.y) + ' ' + spec.unit;
      if (p.lo !== null && ctx.dataset.projection)
        s += ' (PROJECTION, 5-95% band ' + fmt(p.lo) + ' to ' + fmt(p.hi) + ')';
      else if (p.lo !== null)
        s += ' (95% CI ' + fmt(p.lo) + ' to ' + (p.hi === null ? 'unbounded' : fmt(p.hi)) + ')';
      if (p.n)
        s += ', n=' + p.n;
      if (p.report)
        s += ', ' + p.report;
      return s;
    };
  }

  // CPU counts on a log axis: 1, 2, 4, ... within the axis.
  function powersOfTwo(axis) {
    var ticks = [];
    for (var v = 1; v <= axis.max; v *= 2)
      if (v >= axis.min)
        ticks.push({ value: v });
    axis.ticks = ticks;
  }

  function config(spec) {
    var trend = spec.kind === 'trend', nightly = spec.kind === 'nightly';
    return {
      type: 'lineWithErrorBars',
      data: { datasets: spec.lines.map(function (l, i) { return dataset(spec, l, i); }) },
      options: {
        animation: false,
        responsive: true,
        maintainAspectRatio: false,
        scales: {
          x: {
            // A projection reaches the target's size: a log axis keeps the measured counts
            // apart.
            type: spec.projected ? 'logarithmic' : 'linear',
            title: { display: true,
                     text: nightly ? 'night' : trend ? 'report created (UTC)'
                       : spec.projected ? 'tasks (the projection: CPUs)' : 'tasks' },
            ticks: nightly ? { callback: nightTick(spec), stepSize: 1, maxRotation: 30 }
              : trend ? { callback: isoMinute, maxRotation: 30 }
              : spec.projected ? { autoSkip: false, callback: String } : { precision: 0 },
            afterBuildTicks: spec.projected ? powersOfTwo : undefined
          },
          y: { title: { display: true, text: spec.unit + ' (' + spec.better + ' is better)' } }
        },
        plugins: {
          legend: { position: 'bottom' },
          tooltip: { callbacks: { label: tooltipLabel(spec) } }
        }
      }
    };
  }

  function painted(canvas) {
    var ctx = canvas.getContext('2d');
    if (!canvas.width || !canvas.height)
      return false;
    var px = ctx.getImageData(0, 0, canvas.width, canvas.height).data;
    for (var i = 3; i < px.length; i += 4)
      if (px[i] !== 0)
        return true;
    return false;
  }

  function drawn(chart, spec) {
    for (var i = 0; i < spec.lines.length; i++) {
      var els = chart.getDatasetMeta(i).data;
      if (els.length !== spec.lines[i].points.length)
        return false;
      for (var k = 0; k < els.length; k++)
        if (!isFinite(els[k].x) || !isFinite(els[k].y))
          return false;
    }
    return painted(chart.canvas);
  }

  var specs = [];
  var done = 0, folded = 0;

  function draw(spec, canvas) {
    try {
      var chart = new Chart(canvas, config(spec));
      if (drawn(chart, spec))
        done++;
      else
        fail('chart ' + spec.id + ' (' + spec.title + ') was not drawn');
    } catch (e) {
      fail('chart ' + spec.id + ': ' + e.message);
    }
  }

  function record() {
    var n = specs.filter(function (s) { return !s.table; }).length;
    body.setAttribute('data-charts', String(n));
    body.setAttribute('data-charts-drawn', String(done));
    body.setAttribute('data-charts-folded', String(folded));
    body.setAttribute('data-status', errors.length === 0 && done + folded === n ? 'ok' : 'error');
  }

  // Drawn when its section opens: once.
  function later(spec, canvas, fold) {
    folded++;
    fold.addEventListener('toggle', function open() {
      if (!fold.open)
        return;
      fold.removeEventListener('toggle', open);
      folded--;
      draw(spec, canvas);
      record();
    });
  }

  try {
    specs = JSON.parse(document.getElementById('lab-data').textContent).charts;
    if (typeof Chart === 'undefined' || typeof ChartErrorBars === 'undefined')
      throw new Error('the embedded chart library did not load');
    if (location.hash === '#all')
      document.querySelectorAll('details').forEach(function (d) { d.open = true; });
    specs.forEach(function (spec) {
      if (spec.table)
        return;
      var canvas = document.getElementById(spec.id);
      if (!canvas)
        return fail('no canvas for chart ' + spec.id);
      var fold = canvas.closest('details');
      if (fold && !fold.open)
        later(spec, canvas, fold);
      else
        draw(spec, canvas);
    });
  } catch (e) {
    fail(e.message);
  }
  // A canvas is sized by its box; the rest must fit the window's width.
  function overflow() {
    var bad = [];
    [document.documentElement].concat(Array.prototype.slice.call(
      document.body.querySelectorAll('*'))).forEach(function (el) {
      if (el.clientWidth > 0 && el.scrollWidth > el.clientWidth + 1)
        bad.push(el.tagName.toLowerCase() + (el.id ? '#' + el.id : '') +
                 (el.className ? '.' + String(el.className).split(' ')[0] : '') + ' ' +
                 el.scrollWidth + '>' + el.clientWidth);
    });
    body.setAttribute('data-overflow', String(bad.length));
    if (bad.length)
      body.setAttribute('data-overflow-what', bad.slice(0, 5).join(', '));
  }

  body.setAttribute('data-render-ms', (performance.now() - t0).toFixed(1));
  overflow();
  record();
})();
