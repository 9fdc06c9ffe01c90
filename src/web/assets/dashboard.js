// servebench dashboard: draws what BuildDashboardData (src/web/dashboard_data.h)
// computed. Every value from the data goes into the page as text (textContent,
// attributes), never as markup.
"use strict";
(function () {
  const errors = document.getElementById("errors");
  function fail(message) {
    errors.hidden = false;
    errors.textContent += message + "\n";
  }
  window.addEventListener("error", (e) => fail("script error: " + e.message));

  const SVG = "http://www.w3.org/2000/svg";
  const COLORS = ["#1f77b4", "#d62728", "#2ca02c", "#9467bd", "#ff7f0e", "#17becf", "#8c564b", "#e377c2",
                  "#7f7f7f", "#bcbd22"];

  function el(tag, attrs, text) {
    const e = document.createElement(tag);
    for (const [k, v] of Object.entries(attrs || {})) e.setAttribute(k, v);
    if (text !== undefined && text !== null) e.textContent = String(text);
    return e;
  }
  function svg(tag, attrs) {
    const e = document.createElementNS(SVG, tag);
    for (const [k, v] of Object.entries(attrs || {})) e.setAttribute(k, v);
    return e;
  }
  function fmt(v, digits) {
    if (v === null || v === undefined || Number.isNaN(v)) return "–";
    if (typeof v !== "number") return String(v);
    const d = digits === undefined ? (Math.abs(v) >= 100 ? 0 : Math.abs(v) >= 10 ? 1 : 2) : digits;
    return v.toLocaleString("en-US", {minimumFractionDigits: d, maximumFractionDigits: d});
  }
  function badge(status) { return el("span", {class: "badge st-" + status}, status); }
  function niceTicks(lo, hi, n) {
    const span = hi - lo || Math.abs(hi) || 1;
    const step0 = span / n, mag = Math.pow(10, Math.floor(Math.log10(step0)));
    const step = [1, 2, 5, 10].map((m) => m * mag).find((s) => s >= step0);
    const ticks = [];
    for (let t = Math.ceil(lo / step) * step; t <= hi + step * 1e-9; t += step) ticks.push(t);
    return ticks;
  }

  let data;
  try {
    data = JSON.parse(document.getElementById("servebench-data").textContent);
  } catch (e) {
    fail("the embedded data is not JSON: " + e.message);
    return;
  }

  // ---- Header ----
  document.getElementById("meta").textContent =
      `${data.records.length} record(s) from ${data.source || "?"} · build dates ` +
      `${data.build_dates.length ? data.build_dates[data.build_dates.length - 1] + " … " + data.build_dates[0] : "–"}` +
      ` · generated ${data.generated_at} by servebench ${data.servebench_version}`;
  const counts = document.getElementById("counts");
  for (const [status, n] of Object.entries(data.counts)) {
    counts.append(badge(status), " " + n + "  ");
  }

  // Series the newest night's verdict calls a regression: drawn distinct on the charts.
  const regressed = new Set(data.nightly ? data.nightly.report.verdicts
      .filter((v) => v.kind === "point" && v.status === "regression").map((v) => v.series_id) : []);
  // "simulated" or "simulated, clock at time scale 0.1 (...)": the numbers are the
  // simulator's, in simulated time whatever the scale (docs/metrics.md); a rehearsal
  // names the engine it stands in for.
  function simText(p) {
    if (!p.simulated) return "";
    const as = p.stands_in_for ? `, standing in for ${p.stands_in_for}` : "";
    return typeof p.time_scale === "number"
        ? `simulated${as}, clock at time scale ${p.time_scale} (numbers in simulated time)`
        : `simulated${as}`;
  }

  // ---- Curves ----
  // Each workload's curves side by side, both against interactivity: throughput per GPU
  // (with the Pareto frontier) and output tokens per joule of GPU energy (docs/power.md).
  // A point without valid power has no tokens per joule and is left out of the second.
  const PLOTS = [
    {key: "tput_per_gpu", cls: "", label: "tput_per_gpu: total tok/s per GPU", unit: "tok/s/GPU",
     frontier: true},
    {key: "output_tokens_per_joule", cls: "tpj-", label: "output_tokens_per_joule: output tok per GPU joule",
     unit: "tok/J", frontier: false},
  ];
  const has = (p, key) => typeof p[key] === "number" && Number.isFinite(p[key]);
  // Tick labels with as many decimals as the tick step needs (tokens per joule are small).
  const tickDigits = (ticks) => ticks.length < 2 ? 0 : Math.max(0, Math.ceil(-Math.log10(ticks[1] - ticks[0]) - 1e-9));
  function drawPlot(chart, m) {
    const W = 560, H = 340, L = 76, R = 12, T = 12, B = 40;
    const all = chart.curves.flatMap((c) => c.points.concat(c.history.flatMap((h) => h.points)));
    const pts = all.filter((p) => has(p, m.key));
    const plot = el("div", {class: "plot", "data-metric": m.key});
    if (!pts.length) {
      plot.append(el("p", {class: "empty " + m.cls + "empty"},
                     `No point of this workload measured valid GPU power: no ${m.key} curve (docs/power.md).`));
      return plot;
    }
    const left = chart.curves.reduce((n, c) => n + c.points.filter((p) => !has(p, m.key)).length, 0);
    if (left) {
      plot.append(el("p", {class: "note " + m.cls + "left-out"},
                     `${left} point(s) of the newest night without valid GPU power left out of ${m.key}.`));
    }
    // One interactivity axis for both plots (every point's), so a point sits at the
    // same x in each.
    const xs = all.map((p) => p.median_intvty), ys = pts.map((p) => p[m.key]);
    const x0 = 0, x1 = Math.max(...xs) * 1.05, y0 = 0, y1 = Math.max(...ys) * 1.05;
    const sx = (x) => L + (x - x0) / (x1 - x0 || 1) * (W - L - R);
    const sy = (y) => H - B - (y - y0) / (y1 - y0 || 1) * (H - T - B);
    const s = svg("svg", {class: "chart-svg" + (m.cls ? " " + m.cls + "svg" : ""), "data-metric": m.key,
                          width: W, height: H, viewBox: `0 0 ${W} ${H}`});
    const xt = niceTicks(x0, x1, 5), yt = niceTicks(y0, y1, 5);
    for (const t of xt) {
      s.append(svg("line", {x1: sx(t), x2: sx(t), y1: T, y2: H - B, stroke: "#eef1f5"}));
      const lab = svg("text", {x: sx(t), y: H - B + 14, "text-anchor": "middle", "font-size": 11});
      lab.textContent = fmt(t, tickDigits(xt));
      s.append(lab);
    }
    for (const t of yt) {
      s.append(svg("line", {x1: L, x2: W - R, y1: sy(t), y2: sy(t), stroke: "#eef1f5"}));
      const lab = svg("text", {x: L - 6, y: sy(t) + 4, "text-anchor": "end", "font-size": 11});
      lab.textContent = fmt(t, tickDigits(yt));
      s.append(lab);
    }
    const xl = svg("text", {x: (L + W - R) / 2, y: H - 6, "text-anchor": "middle", "font-size": 12});
    xl.textContent = "median_intvty: tok/s/user (1000 / median TPOT)";
    const yl = svg("text", {x: 14, y: (T + H - B) / 2, "text-anchor": "middle", "font-size": 12,
                            transform: `rotate(-90 14 ${(T + H - B) / 2})`});
    yl.textContent = m.label;
    s.append(xl, yl);
    if (m.frontier && chart.frontier.length > 1) {
      s.append(svg("polyline", {class: "frontier", fill: "none", stroke: "#888", "stroke-dasharray": "4 3",
                                points: chart.frontier.map((p) => `${sx(p.median_intvty)},${sy(p[m.key])}`).join(" ")}));
    }
    const line = (points) => points.filter((p) => has(p, m.key))
                                   .map((p) => `${sx(p.median_intvty)},${sy(p[m.key])}`).join(" ");
    chart.curves.forEach((c, i) => {
      const color = COLORS[i % COLORS.length];
      // Earlier nights first, faint, so the newest is drawn over them.
      for (const h of c.history) {
        if (!h.points.some((p) => has(p, m.key))) continue;
        const old = svg("polyline", {class: m.cls + "curve history", fill: "none", stroke: color, "stroke-width": 1,
                                     "stroke-opacity": 0.3, "data-config": c.config, "data-build-date": h.build_date,
                                     points: line(h.points)});
        const tip = svg("title", {});
        tip.textContent = `${c.config} on ${h.build_date}`;
        old.append(tip);
        s.append(old);
      }
      const drawn = c.points.filter((p) => has(p, m.key));
      if (!drawn.length) return;
      // In concurrency order (the data's): the curve a sweep traces.
      s.append(svg("polyline", {class: m.cls + "curve", fill: "none", stroke: color, "stroke-width": 2,
                                "data-config": c.config, "data-build-date": c.build_date, points: line(drawn)}));
      for (const p of drawn) {
        const bad = regressed.has(p.series_id);
        // Simulated points are hollow; a regressed series is ringed in red and larger.
        const dot = svg("circle", {class: m.cls + (bad ? "pt regressed" : "pt"), cx: sx(p.median_intvty),
                                   cy: sy(p[m.key]), r: bad ? 6 : 3.5, fill: p.simulated ? "#fff" : color,
                                   stroke: bad ? "#b3261e" : color, "stroke-width": bad ? 3 : 1.5,
                                   "data-record": p.record_id, "data-series": p.series_id,
                                   "data-simulated": p.simulated ? "yes" : "no", "data-value": String(p[m.key])});
        const tip = svg("title", {});
        tip.textContent = `${c.config}, concurrency ${p.concurrency}: ${fmt(p.median_intvty)} tok/s/user (median_intvty), ` +
                          `${fmt(p[m.key], m.frontier ? undefined : 3)} ${m.unit} (${m.key}), TTFT p50 ${fmt(p.median_ttft_ms)} ms` +
                          (p.simulated ? "; " + simText(p) : "") + (bad ? "; REGRESSED tonight" : "");
        dot.append(tip);
        s.append(dot);
      }
    });
    plot.append(s);
    return plot;
  }
  function drawChart(chart) {
    const box = el("div", {class: "chart"});
    box.append(el("h3", {}, chart.workload));
    const pts = chart.curves.flatMap((c) => c.points.concat(c.history.flatMap((h) => h.points)));
    const sims = [...new Set(pts.map(simText).filter((t) => t))];
    if (sims.length) box.append(el("p", {class: "note sim-note"}, "Simulated engine: " + sims.join("; ")));
    const bad = chart.curves.flatMap((c) => c.points.filter((p) => regressed.has(p.series_id))
                                                     .map((p) => `${c.config} c${p.concurrency}`));
    if (bad.length) box.append(el("p", {class: "regressed-note"}, "Regressed tonight (ringed): " + bad.join(", ")));
    const plots = el("div", {class: "plots"});
    for (const m of PLOTS) plots.append(drawPlot(chart, m));
    const legend = el("div", {class: "legend"});
    chart.curves.forEach((c, i) => {
      const item = el("span", {});
      item.append(el("i", {style: "background:" + COLORS[i % COLORS.length]}), `${c.config} (${c.build_date})`);
      legend.append(item);
    });
    if (chart.curves.some((c) => c.history.length)) {
      const item = el("span", {class: "history"});
      item.append(el("i", {style: "background:#888"}), "faint: earlier nights");
      legend.append(item);
    }
    box.append(plots, legend);
    return box;
  }
  const chartList = document.getElementById("chart-list");
  if (!data.charts.length) chartList.append(el("p", {}, "No successful measurements to plot yet."));
  for (const chart of data.charts) chartList.append(drawChart(chart));

  // ---- Nightly ----
  function sparkline(nights, metric) {
    const vals = nights.map((n) => n[metric]).filter((v) => typeof v === "number");
    const s = svg("svg", {class: "spark", width: 120, height: 24});
    if (vals.length < 2) return s;
    const lo = Math.min(...vals), hi = Math.max(...vals);
    const pts = [];
    nights.forEach((n, i) => {
      if (typeof n[metric] !== "number") return;
      const x = 2 + i / (nights.length - 1) * 116, y = 22 - (n[metric] - lo) / (hi - lo || 1) * 20;
      pts.push(`${x},${y}`);
    });
    s.append(svg("polyline", {fill: "none", stroke: "#1f77b4", points: pts.join(" ")}));
    return s;
  }
  const nightly = document.getElementById("nightly-body");
  if (!data.nightly) {
    nightly.append(el("p", {}, "One build date in these records: nothing to compare yet."));
  } else {
    const report = data.nightly.report;
    const series = new Map(data.nightly.series.map((s) => [s.series_id, s]));
    const head = el("p", {});
    head.append(`Night ${report.date}: `);
    for (const [status, n] of Object.entries(report.counts)) {
      if (n > 0) head.append(badge(status), ` ${n}  `);
    }
    nightly.append(head);
    const table = el("table", {id: "verdict-table"});
    const hr = el("tr", {});
    for (const h of ["status", "series", "what changed", "tput_per_gpu by night", "note"]) hr.append(el("th", {}, h));
    table.append(el("thead", {}), el("tbody", {}));
    table.tHead.append(hr);
    for (const v of report.verdicts) {
      const tr = el("tr", {class: "verdict st-row-" + v.status, "data-series": v.series_id, "data-kind": v.kind});
      const worst = (v.metrics || []).filter((m) => m.counted && m.outcome !== "ok")
                                      .map((m) => `${m.metric} ${fmt(100 * m.change_rel, 1)}%`).join(", ");
      const s = series.get(v.series_id);
      const td = (x, cls) => { const c = el("td", cls ? {class: cls} : {}); c.append(x); return c; };
      tr.append(td(badge(v.status)), td(v.label, "wrap"), td(worst || "–", "wrap"),
                td(s ? sparkline(s.nights, "tput_per_gpu") : ""), td(v.note || "", "reason"));
      table.tBodies[0].append(tr);
    }
    nightly.append(table);
  }

  // ---- Records ----
  const COLUMNS = [
    ["status", "status"], ["build_date", "build"], ["recipe", "recipe"], ["engine", "engine"],
    ["model", "model"], ["hardware", "hardware"], ["config", "config"], ["concurrency", "conc", true],
    // Headline metrics under their one name (metrics/headline.h), as every report shows them.
    ["output_throughput", "output_throughput", true], ["tput_per_gpu", "tput_per_gpu", true],
    ["output_tput_per_gpu", "output_tput_per_gpu", true], ["median_intvty", "median_intvty", true],
    ["median_ttft_ms", "median_ttft_ms", true], ["p99_ttft_ms", "p99_ttft_ms", true],
    ["median_tpot_ms", "median_tpot_ms", true], ["acceptance_length", "acceptance_length", true],
    // GPU power (docs/power.md): empty without valid power.
    ["avg_power_w", "avg_power_w", true], ["joules_per_output_token", "joules_per_output_token", true],
    ["output_tokens_per_joule", "output_tokens_per_joule", true],
    ["failure_class", "failure"], ["failure_reason", "reason"],
  ];
  // Text columns that may wrap so the table fits the page.
  const WRAP = new Set(["recipe", "model", "config", "failure_class"]);
  const table = document.getElementById("record-table");
  const headRow = el("tr", {});
  let sortKey = null, sortDir = 1;
  for (const [key, title] of COLUMNS) {
    const th = el("th", {"data-key": key}, title);
    th.addEventListener("click", () => {
      sortDir = sortKey === key ? -sortDir : 1;
      sortKey = key;
      renderRows();
    });
    headRow.append(th);
  }
  table.tHead.append(headRow);
  const filter = document.getElementById("filter");
  filter.addEventListener("input", () => renderRows());
  function renderRows() {
    const q = filter.value.trim().toLowerCase();
    let rows = data.records.filter((r) => !q || COLUMNS.some(([k]) => String(r[k] ?? "").toLowerCase().includes(q)));
    if (sortKey) {
      rows = [...rows].sort((a, b) => {
        const x = a[sortKey], y = b[sortKey];
        if (x === y) return 0;
        if (x === null || x === undefined) return 1;
        if (y === null || y === undefined) return -1;
        return (x < y ? -1 : 1) * sortDir;
      });
    }
    // Grouped by configuration (workload, engine, config), in that order; the chosen
    // sort (default: newest first) applies inside each group.
    const groups = new Map();
    for (const r of rows) {
      const key = `${r.workload} · ${r.engine} · ${r.config}`;
      if (!groups.has(key)) groups.set(key, []);
      groups.get(key).push(r);
    }
    const body = table.tBodies[0];
    body.replaceChildren();
    for (const key of [...groups.keys()].sort()) {
      const members = groups.get(key);
      const head = el("tr", {class: "group-head", "data-group": key});
      head.append(el("td", {colspan: COLUMNS.length}, `${key} — ${members.length} record(s)`));
      body.append(head);
      for (const r of members) {
        const tr = el("tr", {"data-record": r.record_id});
        for (const [key, , numeric] of COLUMNS) {
          const cls = numeric ? "num" : key === "failure_reason" ? "reason" : WRAP.has(key) ? "wrap" : "";
          const td = el("td", cls ? {class: cls} : {});
          if (key === "status") td.append(badge(r.status));
          else td.textContent = numeric ? fmt(r[key], key === "concurrency" ? 0 : undefined) : (r[key] ?? "");
          if (key === "engine" && r.simulated) {
            td.append(el("span", {class: "badge sim", title: simText(r)},
                         (typeof r.time_scale === "number" ? `sim ×${r.time_scale}` : "sim") +
                             (r.stands_in_for ? ` as ${r.stands_in_for}` : "")));
          }
          tr.append(td);
        }
        body.append(tr);
      }
    }
    document.getElementById("shown").textContent = `${rows.length} of ${data.records.length} shown`;
  }
  renderRows();
  document.body.setAttribute("data-rendered", "yes");
})();
