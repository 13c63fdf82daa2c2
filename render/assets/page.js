"use strict";
// detsim render: the page's only script. It reads the JSON blob in
// #detsim-data and draws it; nothing from the data is ever parsed as
// HTML (text goes in through textContent), and nothing is fetched.
(function () {
  const D = JSON.parse(document.getElementById("detsim-data").textContent);
  const H = D.hosts, NL = H.length, RUNS = D.runs, NR = RUNS.length;
  const ARROW_LIMIT = 15000; // more arrows than this in view: density instead
  const MARK_LIMIT = 20000;
  const LM = 96, RM = 12, AXIS = 24;
  const KIND_COLOURS = {
    ping: "#1f77b4", ack: "#2ca02c", ping_req: "#9467bd", indirect_ack: "#17becf",
    join_request: "#8c564b", join_response: "#e377c2", pong: "#ff7f0e",
  };
  const PALETTE = ["#bcbd22", "#7f7f7f", "#d62728", "#aec7e8", "#98df8a", "#c5b0d5"];
  const RUN_COLOURS = ["#1f6feb", "#e8590c"];
  const KEY_COLOURS = ["#1f77b4", "#d62728", "#2ca02c", "#9467bd", "#ff7f0e", "#17becf", "#8c564b", "#e377c2"];
  const CHART_ALL = "#9aa0a6", CHART_LIMIT = "#cf222e", CHART_H = 110;
  // A declared state's tone (hosts.Tone: plain, dim, changed, good, warn, bad) as a lane shading.
  const TONE_COLOURS = ["#d0d7de", "#eed9a0", "#0969da", "#2da44e", "#f0a000", "#cf222e"];
  const RESULT_COLOURS = { ok: "#2da44e", fail: "#cf222e", unknown: "#d4a72c", pending: "#8c959f" };
  const VIOL_COLOUR = "rgba(207,34,46,0.16)";
  const STATE_COLOURS = { alive: "#4caf50", suspect: "#f0a000", dead: "#d32f2f", left: "#888" };
  const MARK_COLOURS = {
    probe_timed_out: "#d32f2f", self_incarnation_bump: "#6f42c1", drop_on_send: "#b00020",
    drop_on_delivery: "#b00020", view_suspect: "#f0a000", view_dead: "#d32f2f", view_alive: "#4caf50",
    probe_sent: "#9ab", probe_acked: "#9c9", cache_state_change: "#bbb", dial_start: "#bbb",
    dial_outcome: "#999", decode_error: "#000",
  };

  // ---- decode the columnar blob -------------------------------------------
  function undelta(a) { let s = 0; const o = new Float64Array(a.length); for (let i = 0; i < a.length; i++) { s += a[i]; o[i] = s; } return o; }
  const kindColour = {};
  let pal = 0;
  for (const R of RUNS) {
    const m = R.msg;
    m.n = m.st.length;
    m.st = undelta(m.st);
    m.rt = new Float64Array(m.n);
    for (let i = 0; i < m.n; i++) m.rt[i] = m.st[i] + m.dt[i];
    m.maxDt = 0;
    for (let i = 0; i < m.n; i++) if (m.dt[i] > m.maxDt) m.maxDt = m.dt[i];
    const k = R.marks; k.n = k.t.length; k.t = undelta(k.t);
    const b = R.memb; b.n = b.t.length; b.t = undelta(b.t);
    R.rec.l = undelta(R.rec.l);
    for (const ki of R.kinds) { const name = R.strs[ki]; if (!kindColour[name]) kindColour[name] = KIND_COLOURS[name] || PALETTE[pal++ % PALETTE.length]; }
    // density: one prefix-sum array per lane
    R.dens = new Array(NL).fill(null);
    for (const [lane, runs] of R.density) {
      const c = new Float64Array(R.densityBuckets + 1); let j = 0;
      for (const v of runs) { if (v < 0) { for (let z = 0; z < -v; z++) { c[j + 1] = c[j]; j++; } } else { c[j + 1] = c[j] + v; j++; } }
      R.dens[lane] = c;
    }
    R.delivered = 0;
    for (let i = 0; i < m.n; i++) if (m.x[i] === 0) R.delivered++;
    for (const C of R.charts || []) { for (const ln of C.lines) ln.b = undelta(ln.b); if (C.all) C.all.b = undelta(C.all.b); }
    if (R.band) { R.band.t = undelta(R.band.t); R.band.n = R.band.t.length; }
    if (R.hist) { R.hist.t0 = undelta(R.hist.t0); R.hist.n = R.hist.t0.length; }
  }
  // A client history (raft's) only where a kind declares one and drew it.
  const HAS_HIST = RUNS.some(R => R.hist);
  const T0 = Math.min(...RUNS.map(r => r.from)), T1 = Math.max(...RUNS.map(r => r.to), T0 + 1);
  // What the runs hold decides what the page explains: the mark types on
  // the lanes (drawn or elided), and whether any kind's views changed. A
  // raft or agent run has no membership, and its legend says nothing of
  // swim's probes (issue 33).
  const MARK_TYPES = new Set();
  for (const R of RUNS) {
    for (let i = 0; i < R.marks.n; i++) MARK_TYPES.add(R.strs[R.marks.y[i]]);
    for (const [typ] of R.marksElidedByType) MARK_TYPES.add(R.strs[typ]);
  }
  const VIEWS = RUNS.some(R => R.memb.n > 0 || R.membElidedPairs > 0) || [...MARK_TYPES].some(t => t.startsWith("view_"));

  // partners[l]: lanes l exchanged any message with
  const partners = Array.from({ length: NL }, () => new Set());
  for (const R of RUNS) { const m = R.msg; for (let i = 0; i < m.n; i++) { partners[m.f[i]].add(m.t[i]); partners[m.t[i]].add(m.f[i]); } }

  // ---- state ----------------------------------------------------------------
  const S = { v0: T0, v1: T1, hidden: new Set(), focus: -1, hl: null, mode: "arrows", drawnArrows: 0, drawnDelivered: 0, drawnMarks: 0, drawnArrowsPerRun: [], notices: [], cursor: T0, recRun: 0 };
  if (D.mark) { const span = (T1 - T0) / 20; S.v0 = Math.max(T0, D.mark.ns - span / 2); S.v1 = Math.min(T1, S.v0 + span); S.cursor = D.mark.ns; }
  function visibleLanes() {
    const out = [];
    for (let l = 0; l < NL; l++) {
      if (S.hidden.has(l)) continue;
      if (S.focus >= 0 && l !== S.focus && !partners[S.focus].has(l)) continue;
      out.push(l);
    }
    return out;
  }

  // ---- DOM ------------------------------------------------------------------
  const el = (tag, props, ...kids) => { const e = document.createElement(tag); Object.assign(e, props || {}); for (const k of kids) e.append(k); return e; };
  const body = document.body;
  const info = el("div", { id: "info" });
  const notices = el("ul", { id: "notices" });
  const toolbar = el("div", { id: "toolbar" });
  const legend = el("div", { id: "legend" });
  const lanesBox = el("div", { id: "lanes" });
  const plots = el("div", { id: "plots" });
  const cv = el("canvas", { id: "diagram" });
  const mcv = el("canvas", { id: "membership" });
  const tip = el("div", { id: "tip" });
  const verdictsBox = el("div", { id: "verdicts" });
  const recTabs = el("div", { id: "rectabs" });
  const records = el("div", { id: "records" });
  const viewNote = el("div", { id: "viewnote" });
  const chartsBox = el("div", { id: "charts" });
  const hcv = el("canvas", { id: "history" });
  const histNote = el("div", { id: "histnote" });
  plots.append(cv, viewNote);
  if (HAS_HIST) plots.append(el("h2", { textContent: "Client history: each client's operations, invoke to answer" }), histNote, hcv);
  plots.append(chartsBox);
  if (VIEWS) plots.append(el("h2", { textContent: "Membership: each observer's view of each subject" }), mcv);
  body.append(info, notices, toolbar, legend, el("div", { id: "wrap" }, lanesBox, plots), el("h2", { textContent: "Verdicts" }), verdictsBox,
    el("h2", { textContent: "Records (events.ndjson)" }), recTabs, records, tip);

  const fmtT = ns => (ns / 1e9).toFixed(9).replace(/\.?0+$/, "") + "s";
  const fmtN = n => n.toLocaleString("en-US");
  info.textContent = RUNS.map((R, i) => (NR > 1 ? "run " + "AB"[i] + ": " : "") + R.name + " seed " + R.seed + ", " + fmtN(R.records) + " records, " + fmtT(R.duration_ns) + " virtual, digest " + R.digest.slice(0, 12) + (R.truncated ? " — TRUNCATED: " + R.truncated : "")).join(" | ");

  // Every aggregation or omission the Go side made, stated once.
  function staticNotices() {
    const out = [];
    RUNS.forEach((R, i) => {
      const p = NR > 1 ? "run " + "AB"[i] + ": " : "";
      const mc = R.msgCounts, tot = mc.delivered + mc.droppedOnSend + mc.droppedOnDelivery + mc.inFlight + mc.receiveOnly;
      out.push(p + fmtN(tot) + " messages: " + fmtN(mc.delivered) + " delivered, " + fmtN(mc.droppedOnSend) + " dropped on send, " + fmtN(mc.droppedOnDelivery) + " dropped on delivery, " + fmtN(mc.inFlight) + " with no receive recorded" + (mc.receiveOnly ? ", " + fmtN(mc.receiveOnly) + " receives with no matching send" : "") + ".");
      const ae = tot - mc.kept;
      if (ae > 0) out.push(p + fmtN(ae) + " of " + fmtN(tot) + " messages are not inlined as arrows (over " + fmtN(D.caps.tileArrows) + " per time tile of " + fmtT((R.to - R.from) / D.caps.tiles) + "); they are counted in the density view.");
      let me = 0; for (const [, c] of R.marksElidedByType) me += c;
      if (me > 0) out.push(p + fmtN(me) + " marks are not inlined (over " + fmtN(D.caps.tileHighMarks) + " timeouts, drops and view changes or " + fmtN(D.caps.tileLowMarks) + " probe sends, acks, dials and cache changes per tile): " + R.marksElidedByType.map(([t, c]) => R.strs[t] + " " + fmtN(c)).join(", ") + ".");
      if (R.membElidedPairs > 0) out.push(p + fmtN(R.membElidedPairs) + " observer×subject pairs stayed Alive at one incarnation from their first view to the end; their " + fmtN(R.membElidedRecords) + " state_transition records are not drawn as rows.");
      if (R.recElided > 0) out.push(p + "the full text of " + fmtN(R.recElided) + " of " + fmtN(R.records) + " records is not inlined; hovering an element without it shows its decoded fields.");
      if (R.outside > 0) out.push(p + fmtN(R.outside) + " records lie outside the window " + fmtT(R.from) + "–" + fmtT(R.to) + " and are left out.");
      if (R.other.length) out.push(p + "records drawn as nothing: " + R.other.map(([t, c]) => t + " " + fmtN(c)).join(", ") + ".");
    });
    return out;
  }
  const STATIC_NOTICES = staticNotices();
  for (const n of STATIC_NOTICES) notices.append(el("li", { textContent: n }));

  // toolbar
  const btn = (label, fn, id) => { const b = el("button", { textContent: label, id: id || "" }); b.addEventListener("click", fn); toolbar.append(b); return b; };
  btn("zoom in", () => zoomAt((S.v0 + S.v1) / 2, 0.5), "zoomin");
  btn("zoom out", () => zoomAt((S.v0 + S.v1) / 2, 2), "zoomout");
  btn("whole run", () => setView(T0, T1), "reset");
  const focusSel = el("select", { id: "focus" });
  focusSel.append(el("option", { value: "-1", textContent: "all hosts" }));
  H.forEach((h, i) => focusSel.append(el("option", { value: String(i), textContent: "talks to " + h })));
  focusSel.addEventListener("change", () => api.focus(+focusSel.value >= 0 ? H[+focusSel.value] : null));
  toolbar.append(el("span", { textContent: "lanes:" }), focusSel);
  btn("show all lanes", () => { S.hidden.clear(); syncLaneBoxes(); draw(); });
  if (VIEWS) {
    btn("next Suspect", () => api.next("suspect"), "nextsuspect");
    btn("next Dead", () => api.next("dead"), "nextdead");
    btn("next incarnation bump", () => api.next("incarnation"), "nextinc");
  }
  if (HAS_HIST) btn("next violation", () => api.nextViolation(), "nextviol");
  const viewLabel = el("span", { id: "viewlabel" });
  toolbar.append(viewLabel);

  // The legend: every colour and shape the page draws, in words.
  const swatch = (col, label, style) => el("span", {}, el("i", { style: "background:" + col + (style || "") }), label);
  const legendRow = (title, ...items) => { const d = el("div", { className: "legrow" }, el("b", { textContent: title + ": " })); for (const it of items) d.append(it); legend.append(d); };
  if (NR > 1) legendRow("runs (arrows and chart lines)", ...RUNS.map((R, i) => swatch(RUN_COLOURS[i], "run " + "AB"[i] + ": " + R.name + " (" + R.dir + ")")));
  else legendRow("arrows, by message kind", ...Object.keys(kindColour).sort().map(k => swatch(kindColour[k], k)));
  legendRow("arrow ends", el("span", { textContent: "▸ delivered · ✕ (red) dropped, on send at the sender, in flight or at arrival on the receiver · dashed to the right edge: no receive by the end" }));
  // Each mark type the runs hold, in this order; any other is "other record".
  const MARK_LEGEND = [
    [["probe_timed_out"], "▲ probe timeout"], [["self_incarnation_bump"], "◆ incarnation bump"], [["drop_on_send", "drop_on_delivery"], "✕ drop"],
    [["view_suspect"], "| view turned suspect"], [["view_dead"], "| dead"], [["view_alive"], "| refuted (alive)"],
    [["probe_sent"], "probe sent"], [["probe_acked"], "probe acked"], [["cache_state_change", "dial_start", "dial_outcome"], "dial / cache change"], [["decode_error"], "decode error"],
  ];
  if (VIEWS) {
    const markItems = MARK_LEGEND.filter(([ts]) => ts.some(t => MARK_TYPES.has(t))).map(([ts, label]) => swatch(MARK_COLOURS[ts[0]], label));
    if ([...MARK_TYPES].some(t => !(t in MARK_COLOURS))) markItems.push(swatch("#444", "other record"));
    if (markItems.length) legendRow("marks on a lane", ...markItems);
  } else if (MARK_TYPES.size) {
    // A kind without views: its own record types, each a tick in its colour.
    legendRow("marks on a lane (a tick; hover for the record)", ...Array.from(MARK_TYPES).sort().map(t => t === "drop_on_send" || t === "drop_on_delivery" ? swatch(MARK_COLOURS[t], "✕ " + t) : swatch(MARK_COLOURS[t] || "#444", t)));
  }
  legendRow("bands", swatch("rgba(130,80,223,0.35)", "mutation in force (labelled with its kind)"), swatch("#0969da", "the stepper's step"), swatch("#b08800", "the selected record"), swatch("rgb(35,35,255)", "density: darker = more messages per pixel (zoomed out)"));
  if (VIEWS) legendRow("membership", ...Object.keys(STATE_COLOURS).map(k => swatch(STATE_COLOURS[k], k)), el("span", { textContent: "(i<n>: the incarnation)" }));
  const BAND = (RUNS.find(R => R.band) || {}).band;
  if (BAND) legendRow(BAND.title + " (the lane's shading)", ...BAND.states.map((st, i) => swatch(TONE_COLOURS[BAND.tones[i]], st)));
  if (HAS_HIST) legendRow("client history", swatch(RESULT_COLOURS.ok, "answered ok"), swatch(RESULT_COLOURS.fail, "failed"), swatch(RESULT_COLOURS.unknown, "unknown outcome"), swatch(RESULT_COLOURS.pending, "never answered (to the end)"),
    swatch(VIOL_COLOUR, "a failing verdict's window and the operations it cites (outlined)", ";opacity:0.5"));
  legendRow("charts", el("span", { textContent: "one colour per host or link (named over each chart) · solid: the interval's largest value · dashed: its median · " }),
    swatch(CHART_ALL, "all hosts or links (when only the largest are drawn)"), swatch(CHART_LIMIT, "threshold: the assertion's limit, or the link's bandwidth (dashed in the link's colour)", ";height:2px"),
    el("span", { textContent: " · a dot is a record: hover for its values, click to select it" }));

  const laneBoxes = [];
  H.forEach((h, i) => {
    const c = el("input", { type: "checkbox", checked: true });
    c.dataset.lane = String(i);
    c.addEventListener("change", () => { if (c.checked) S.hidden.delete(i); else S.hidden.add(i); draw(); });
    laneBoxes.push(c);
    lanesBox.append(el("label", { title: h }, c, " " + h));
  });
  function syncLaneBoxes() { laneBoxes.forEach((c, i) => { c.checked = !S.hidden.has(i); }); }

  // ---- geometry ---------------------------------------------------------------
  let W = 800, laneH = 20, vis = [], laneY = new Float64Array(NL).fill(-1);
  const xOf = t => LM + (t - S.v0) / (S.v1 - S.v0) * (W - LM - RM);
  const tOf = x => S.v0 + (x - LM) / (W - LM - RM) * (S.v1 - S.v0);
  function layout() {
    W = Math.max(400, plots.clientWidth - 4);
    vis = visibleLanes();
    laneH = Math.max(1.5, Math.min(28, 560 / Math.max(1, vis.length)));
    laneY.fill(-1);
    vis.forEach((l, i) => { laneY[l] = AXIS + laneH * (i + 0.5); });
  }
  function sizeCanvas(c, w, h) {
    const dpr = window.devicePixelRatio || 1;
    c.width = Math.round(w * dpr); c.height = Math.round(h * dpr);
    c.style.width = w + "px"; c.style.height = h + "px";
    const g = c.getContext("2d"); g.setTransform(dpr, 0, 0, dpr, 0, 0); return g;
  }
  function lowerBound(a, n, v) { let lo = 0, hi = n; while (lo < hi) { const mid = (lo + hi) >> 1; if (a[mid] < v) lo = mid + 1; else hi = mid; } return lo; }

  // ---- drawing: the space-time diagram ----------------------------------------
  let hits = []; // {x1,y1,x2,y2,run,kind:'msg'|'mark'|'mut',i}
  function draw() {
    layout();
    const Hc = AXIS + laneH * vis.length + 8;
    const g = sizeCanvas(cv, W, Hc);
    g.fillStyle = "#fff"; g.fillRect(0, 0, W, Hc);
    hits = [];
    S.notices = [];
    // axis
    g.fillStyle = "#1b1f24"; g.font = "11px system-ui, sans-serif"; g.strokeStyle = "#d0d7de";
    const span = S.v1 - S.v0, step = niceStep(span / 8);
    for (let t = Math.ceil(S.v0 / step) * step; t <= S.v1; t += step) {
      const x = xOf(t); g.beginPath(); g.moveTo(x, AXIS - 4); g.lineTo(x, Hc); g.stroke(); g.fillText(fmtT(t), x + 2, 12);
    }
    // lanes and labels
    g.strokeStyle = "#8c959f";
    g.textBaseline = "middle";
    for (const l of vis) {
      const y = laneY[l];
      g.beginPath(); g.moveTo(LM, y); g.lineTo(W - RM, y); g.stroke();
      if (laneH >= 8) { g.fillStyle = "#1b1f24"; g.font = Math.min(12, laneH - 2) + "px system-ui, sans-serif"; g.fillText(H[l].length > 14 ? H[l].slice(0, 13) + "…" : H[l], 4, y); }
    }
    if (laneH < 8) { g.fillStyle = "#57606a"; g.fillText(vis.length + " lanes (labels hidden: hover a lane, or filter)", 4, AXIS + 6); }
    g.textBaseline = "alphabetic";
    // everything on the time axis stays right of the labels
    g.save(); g.beginPath(); g.rect(LM, 0, W - LM - RM, Hc); g.clip();
    // mutations
    RUNS.forEach((R, r) => {
      for (let i = 0; i < R.muts.length; i++) {
        const mu = R.muts[i]; if (mu.end < S.v0 || mu.t > S.v1) continue;
        const x1 = Math.max(LM, xOf(mu.t)), x2 = Math.min(W - RM, Math.max(xOf(mu.end), xOf(mu.t) + 2));
        g.fillStyle = r ? "rgba(232,89,12,0.10)" : "rgba(130,80,223,0.12)";
        const ls = mu.lanes.length ? mu.lanes : vis;
        for (const l of ls) { if (laneY[l] < 0) continue; g.fillRect(x1, laneY[l] - laneH / 2, x2 - x1, laneH); }
        g.fillStyle = "#6639ba"; g.fillText(mu.kind, x1 + 2, AXIS + 10 + 12 * r);
        hits.push({ x1: x1, y1: AXIS, x2: x2, y2: AXIS + 14, run: r, kind: "mut", i: i });
      }
    });
    // arrows, or density when too many are in view
    let inView = 0;
    // In view: sent before the view's end and received (or still in
    // flight) after its start. One very late message must not make every
    // send of the span before it count (a thin link's queue is seconds).
    const ranges = RUNS.map(R => {
      const m = R.msg; const a = lowerBound(m.st, m.n, S.v0 - m.maxDt), b = lowerBound(m.st, m.n, S.v1 + 1);
      for (let i = a; i < b; i++) if (m.rt[i] >= S.v0 || m.x[i] === 3) inView++;
      return [a, b];
    });
    S.drawnArrows = 0; S.drawnDelivered = 0; S.drawnArrowsPerRun = RUNS.map(() => 0);
    if (inView > ARROW_LIMIT) {
      S.mode = "density";
      drawDensity(g);
      S.notices.push("Zoomed out: " + fmtN(inView) + " arrows in view are aggregated into per-lane density (darker = more sends and receives per pixel column); zoom in below " + fmtN(ARROW_LIMIT) + " to see individual arrows.");
    } else {
      S.mode = "arrows";
      RUNS.forEach((R, r) => drawArrows(g, R, r, ranges[r][0], ranges[r][1]));
    }
    // elided per tile in view
    RUNS.forEach((R, r) => {
      const NT = D.caps.tiles, tw = (R.to - R.from + 1) / NT; let a = 0, mk = 0;
      for (let k = 0; k < NT; k++) { const ts = R.from + k * tw; if (ts + tw < S.v0 || ts > S.v1) continue; a += R.tileArrowsElided[k]; mk += R.tileMarksElided[k]; }
      if (a || mk) S.notices.push((NR > 1 ? "run " + "AB"[r] + ": " : "") + "in this view " + fmtN(a) + " arrows and " + fmtN(mk) + " marks were left out of the page by the per-tile caps (counted in the notes above).");
    });
    drawBands(g);
    drawMarks(g);
    g.restore();
    // the stepper's mark and the highlighted record
    if (D.mark) vline(g, D.mark.ns, "#0969da", "step " + D.mark.step + " @ " + fmtT(D.mark.ns), Hc);
    if (S.hl) vline(g, S.hl.t, "#b08800", "L" + S.hl.line, Hc);
    viewNote.textContent = S.notices.join(" ");
    viewLabel.textContent = "view " + fmtT(S.v0) + " – " + fmtT(S.v1) + " · " + vis.length + "/" + NL + " lanes · " + S.mode;
    drawCharts();
    if (VIEWS) drawMembership();
    if (HAS_HIST) drawHistory();
  }
  // drawBands draws a strip along the foot of each lane in the colour of
  // the state its kind's Band records set (raft's role), from each change
  // to the next, over the arrows or density so it always shows; with two
  // runs each has a strip.
  function drawBands(g) {
    S.bandSegments = {};
    RUNS.forEach((R, r) => {
      const B = R.band; if (!B) return;
      const tone = {}; B.states.forEach((st, i) => { tone[st] = B.tones[i]; });
      const at = new Map(); // lane → [t, state] of its open segment
      const seg = (l, t0, t1, st) => {
        if (laneY[l] < 0 || t1 < S.v0 || t0 > S.v1) return;
        const x1 = Math.max(LM, xOf(t0)), x2 = Math.min(W - RM, xOf(t1));
        const h = Math.max(1.5, laneH * (NR > 1 ? 0.14 : 0.25)), y = laneY[l] + laneH / 2 - h * (NR - r) - 0.5;
        g.fillStyle = TONE_COLOURS[tone[st] || 0]; g.fillRect(x1, y, Math.max(1, x2 - x1), h);
        S.bandSegments[st] = (S.bandSegments[st] || 0) + 1;
      };
      for (let i = 0; i < B.n; i++) {
        const l = B.h[i], prev = at.get(l);
        if (prev) seg(l, prev[0], B.t[i], prev[1]);
        at.set(l, [B.t[i], R.strs[B.s[i]], B.l[i]]);
      }
      for (const [l, prev] of at) seg(l, prev[0], R.to, prev[1]);
    });
  }
  function vline(g, t, col, label, Hc) {
    if (t < S.v0 || t > S.v1) return;
    const x = xOf(t); g.strokeStyle = col; g.setLineDash([4, 3]); g.lineWidth = 1.5;
    g.beginPath(); g.moveTo(x, AXIS - 6); g.lineTo(x, Hc); g.stroke(); g.setLineDash([]); g.lineWidth = 1;
    g.fillStyle = col; g.fillText(label, x + 3, AXIS - 2);
  }
  function niceStep(s) { const p = Math.pow(10, Math.floor(Math.log10(Math.max(s, 1)))); for (const f of [1, 2, 5, 10]) if (p * f >= s) return p * f; return p * 10; }

  function drawArrows(g, R, r, a, b) {
    const m = R.msg;
    for (let i = a; i < b; i++) {
      const f = m.f[i], t = m.t[i], x = m.x[i];
      if (laneY[f] < 0 || laneY[t] < 0) continue;
      if (m.rt[i] < S.v0 && x !== 3) continue;
      const col = NR > 1 ? RUN_COLOURS[r] : kindColour[R.strs[m.k[i]]];
      const x1 = xOf(m.st[i]), y1 = laneY[f];
      let x2, y2;
      if (x === 1) { x2 = x1 + 6; y2 = y1 + (laneY[t] > y1 ? 1 : -1) * Math.min(laneH, 8); }
      else if (x === 3) { x2 = W - RM; y2 = laneY[t]; }
      else { x2 = xOf(m.rt[i]); y2 = laneY[t]; }
      g.strokeStyle = col; g.lineWidth = 1;
      if (x === 3) g.setLineDash([3, 3]);
      g.beginPath(); g.moveTo(x1, y1); g.lineTo(x2, y2); g.stroke();
      if (x === 3) g.setLineDash([]);
      if (x === 0 || x === 4) arrowHead(g, x1, y1, x2, y2, col);
      else if (x === 1 || x === 2) cross(g, x2, y2, "#b00020");
      hits.push({ x1: x1, y1: y1, x2: x2, y2: y2, run: r, kind: "msg", i: i });
      S.drawnArrows++; S.drawnArrowsPerRun[r]++;
      if (x === 0) S.drawnDelivered++;
    }
  }
  function arrowHead(g, x1, y1, x2, y2, col) {
    const a = Math.atan2(y2 - y1, x2 - x1), s = 5;
    g.fillStyle = col; g.beginPath(); g.moveTo(x2, y2);
    g.lineTo(x2 - s * Math.cos(a - 0.4), y2 - s * Math.sin(a - 0.4)); g.lineTo(x2 - s * Math.cos(a + 0.4), y2 - s * Math.sin(a + 0.4)); g.fill();
  }
  function cross(g, x, y, col) { g.strokeStyle = col; g.lineWidth = 1.5; g.beginPath(); g.moveTo(x - 3, y - 3); g.lineTo(x + 3, y + 3); g.moveTo(x + 3, y - 3); g.lineTo(x - 3, y + 3); g.stroke(); g.lineWidth = 1; }

  function drawDensity(g) {
    const dpr = window.devicePixelRatio || 1;
    const pw = Math.max(1, Math.floor((W - LM - RM) * dpr));
    const top = Math.floor(AXIS * dpr), ph = Math.max(1, Math.ceil(laneH * vis.length * dpr));
    const img = g.createImageData(pw, ph), px = img.data;
    const cols = new Float64Array(pw);
    let maxv = 0;
    const rows = [];
    for (const l of vis) {
      const c = new Float64Array(pw);
      for (let r = 0; r < NR; r++) {
        const R = RUNS[r], P = R.dens[l]; if (!P) continue;
        const nb = R.densityBuckets, span = R.to - R.from + 1;
        for (let x = 0; x < pw; x++) {
          const ta = S.v0 + x / pw * (S.v1 - S.v0), tb = S.v0 + (x + 1) / pw * (S.v1 - S.v0);
          const ba = Math.max(0, Math.min(nb, (ta - R.from) / span * nb)), bb = Math.max(0, Math.min(nb, (tb - R.from) / span * nb));
          c[x] += interp(P, bb) - interp(P, ba);
        }
      }
      for (let x = 0; x < pw; x++) if (c[x] > maxv) maxv = c[x];
      rows.push(c);
    }
    cols.fill(0);
    vis.forEach((l, i) => {
      const c = rows[i], y0 = Math.floor(i * laneH * dpr), y1 = Math.max(y0 + 1, Math.floor((i + 1) * laneH * dpr));
      for (let x = 0; x < pw; x++) {
        if (c[x] <= 0) continue;
        const v = Math.sqrt(c[x] / maxv), shade = 235 - Math.round(200 * v);
        for (let y = y0; y < y1 && y < ph; y++) { const o = (y * pw + x) * 4; px[o] = shade; px[o + 1] = shade; px[o + 2] = 255; px[o + 3] = 255; }
      }
    });
    g.putImageData(img, Math.round(LM * dpr), top);
  }
  // interp reads a prefix-sum array at a fractional bucket position.
  function interp(P, b) { const i = Math.floor(b); if (i >= P.length - 1) return P[P.length - 1]; return P[i] + (P[i + 1] - P[i]) * (b - i); }

  function drawMarks(g) {
    S.drawnMarks = 0;
    let skipped = 0;
    RUNS.forEach((R, r) => {
      const k = R.marks, a = lowerBound(k.t, k.n, S.v0), b = lowerBound(k.t, k.n, S.v1 + 1);
      for (let i = a; i < b; i++) {
        const y = laneY[k.h[i]]; if (y < 0) continue;
        if (S.drawnMarks >= MARK_LIMIT) { skipped++; continue; }
        const x = xOf(k.t[i]), typ = R.strs[k.y[i]], col = MARK_COLOURS[typ] || "#444";
        g.fillStyle = col; g.strokeStyle = col;
        const s = Math.min(5, Math.max(2, laneH / 3));
        if (typ === "probe_timed_out") { g.beginPath(); g.moveTo(x, y - s); g.lineTo(x + s, y + s); g.lineTo(x - s, y + s); g.fill(); }
        else if (typ === "self_incarnation_bump") { g.beginPath(); g.moveTo(x, y - s); g.lineTo(x + s, y); g.lineTo(x, y + s); g.lineTo(x - s, y); g.fill(); }
        else if (typ === "drop_on_send" || typ === "drop_on_delivery") cross(g, x, y, col);
        else if (typ.startsWith("view_")) { g.fillRect(x - 1, y - laneH / 2, 2, laneH); }
        else g.fillRect(x - 1, y - s / 2, 2, s);
        hits.push({ x1: x, y1: y, x2: x, y2: y, run: r, kind: "mark", i: i });
        S.drawnMarks++;
      }
    });
    if (skipped) S.notices.push(fmtN(skipped) + " marks in view not drawn (over " + fmtN(MARK_LIMIT) + " per frame): zoom in.");
  }


  // ---- the client history: each client's operations as intervals ----------
  // One row per client (per run), each operation a bar from its invoke
  // to its answer coloured by the answer; a failing verdict of the
  // history's assertion shades the window its evidence spans and
  // outlines the operations it cites.
  const HROWS = [];
  RUNS.forEach((R, r) => { if (R.hist) R.hist.clients.forEach((c, j) => HROWS.push({ run: r, client: j, name: (NR > 1 ? "AB"[r] + " " : "") + c })); });
  const HROW_H = 14;
  let hhits = [];
  const VIOLS = [];
  RUNS.forEach((R, r) => { if (R.hist) for (const v of R.hist.viols) VIOLS.push({ run: r, name: v.name, t0: v.t0, t1: v.t1, ops: v.ops }); });
  VIOLS.sort((a, b) => a.t0 - b.t0 || a.run - b.run);
  if (HAS_HIST) {
    const parts = [];
    RUNS.forEach((R, r) => {
      if (!R.hist) return;
      const p = NR > 1 ? "run " + "AB"[r] + ": " : "";
      parts.push(p + fmtN(R.hist.n) + " operations of " + fmtN(R.hist.clients.length) + " clients" + (R.hist.elided ? " (" + fmtN(R.hist.elided) + " more left out: a page draws the first " + fmtN(R.hist.n) + " and every one a verdict cites)" : "") + ".");
      if (!R.hist.viols.length) parts.push(p + "no failing " + R.hist.assertion + " verdict: no window to mark.");
      for (const v of R.hist.viols) parts.push(p + v.name + " fails: the " + v.ops.length + " operations its evidence cites span " + fmtT(v.t0) + "–" + fmtT(v.t1) + " (shaded red, outlined).");
    });
    histNote.textContent = parts.join(" ");
  }
  function drawHistory() {
    const Hh = AXIS + Math.max(1, HROWS.length) * HROW_H + 6;
    const g = sizeCanvas(hcv, W, Hh);
    g.fillStyle = "#fff"; g.fillRect(0, 0, W, Hh);
    hhits = [];
    S.drawnOps = 0;
    g.font = "11px system-ui, sans-serif"; g.textBaseline = "middle";
    HROWS.forEach((row, j) => { g.fillStyle = "#1b1f24"; g.fillText(row.name.length > 14 ? row.name.slice(0, 13) + "…" : row.name, 4, AXIS + j * HROW_H + HROW_H / 2); });
    g.textBaseline = "alphabetic";
    g.save(); g.beginPath(); g.rect(LM, 0, W - LM - RM, Hh); g.clip();
    const rowOf = new Map(); HROWS.forEach((row, j) => rowOf.set(row.run + ":" + row.client, j));
    for (const v of VIOLS) {
      if (v.t1 < S.v0 || v.t0 > S.v1) continue;
      const x1 = xOf(v.t0), x2 = Math.max(xOf(v.t1), x1 + 2);
      g.fillStyle = VIOL_COLOUR; g.fillRect(x1, AXIS - 10, x2 - x1, Hh - AXIS + 10);
      g.fillStyle = RESULT_COLOURS.fail; g.fillText(v.name + " fails", x1 + 2, AXIS - 12);
    }
    RUNS.forEach((R, r) => {
      const X = R.hist; if (!X) return;
      const cited = new Set(); for (const v of X.viols) for (const i of v.ops) cited.add(i);
      for (let i = 0; i < X.n; i++) {
        const end = X.t1[i] < 0 ? R.to : X.t1[i];
        if (end < S.v0 || X.t0[i] > S.v1) continue;
        const j = rowOf.get(r + ":" + X.c[i]), y = AXIS + j * HROW_H + 3, h = HROW_H - 6;
        const x1 = xOf(X.t0[i]), x2 = Math.max(xOf(end), x1 + 2);
        const res = X.res[i] < 0 ? "" : R.strs[X.res[i]];
        const col = X.t1[i] < 0 ? RESULT_COLOURS.pending : res === X.ok ? RESULT_COLOURS.ok : res === X.unknown ? RESULT_COLOURS.unknown : RESULT_COLOURS.fail;
        g.fillStyle = col; g.fillRect(x1, y, x2 - x1, h);
        if (cited.has(i)) { g.strokeStyle = RESULT_COLOURS.fail; g.lineWidth = 2; g.strokeRect(x1 - 1, y - 2, x2 - x1 + 2, h + 4); g.lineWidth = 1; }
        hhits.push({ x1: x1, x2: x2, y1: y, y2: y + h, run: r, i: i, cited: cited.has(i) });
        S.drawnOps++;
      }
    });
    g.restore();
    if (S.hl) { const x = xOf(S.hl.t); if (S.hl.t >= S.v0 && S.hl.t <= S.v1) { g.strokeStyle = "#b08800"; g.setLineDash([4, 3]); g.beginPath(); g.moveTo(x, AXIS - 6); g.lineTo(x, Hh); g.stroke(); g.setLineDash([]); } }
  }
  function histAt(ev) {
    const rc = hcv.getBoundingClientRect(), x = ev.clientX - rc.left, y = ev.clientY - rc.top;
    let best = null;
    for (const h of hhits) if (y >= h.y1 - 2 && y <= h.y2 + 2 && x >= h.x1 - 3 && x <= h.x2 + 3) best = h;
    return best;
  }
  function describeOp(h) {
    const R = RUNS[h.run], X = R.hist, i = h.i;
    const res = X.res[i] < 0 ? "never answered" : R.strs[X.res[i]] + (R.strs[X.ans[i]] ? " → " + JSON.stringify(R.strs[X.ans[i]]) : "");
    let s = (NR > 1 ? "run " + "AB"[h.run] + "\n" : "") + X.clients[X.c[i]] + " " + R.strs[X.lab[i]] + ": " + res + "\n" + fmtT(X.t0[i]) + " – " + (X.t1[i] < 0 ? "the end" : fmtT(X.t1[i])) + (h.cited ? "\ncited by a failing verdict" : "");
    for (const l of [X.il[i], X.rl[i]]) if (l > 0) s += "\nL" + l + ": " + (recText(h.run, l) || "(record text not inlined)");
    return s;
  }
  if (HAS_HIST) {
    hcv.addEventListener("mousemove", ev => {
      const h = histAt(ev); if (!h) { tip.style.display = "none"; return; }
      tip.textContent = describeOp(h); tip.style.display = "block";
      tip.style.left = Math.min(ev.clientX + 14, window.innerWidth - 740) + "px"; tip.style.top = (ev.clientY + 14) + "px";
    });
    hcv.addEventListener("mouseleave", () => { tip.style.display = "none"; });
    hcv.addEventListener("click", ev => { const h = histAt(ev); if (h) api.gotoLine(RUNS[h.run].hist.il[h.i], h.run, true); });
  }

  // ---- charts: what the kinds declare chartable, on the diagram's time axis ----
  // One entry per declared series with data, in the order of the first
  // run that has it; each holds its runs' lines.
  const CHARTS = [];
  RUNS.forEach((R, r) => {
    for (const C of R.charts || []) {
      if (!C.keysTotal) continue;
      let e = CHARTS.find(x => x.id === C.id);
      if (!e) { e = { id: C.id, title: C.title, unit: C.unit, doc: C.doc, agg: C.agg, perLink: C.perLink, runs: [] }; CHARTS.push(e); }
      e.runs.push({ r: r, C: C });
    }
  });
  const keyLabel = (C, j) => C.perLink ? H[C.h[j]] + "→" + H[C.p[j]] : H[C.h[j]];
  const fmtV = (v, unit) => (Math.abs(v) >= 1000 ? fmtN(Math.round(v)) : String(Math.round(v * 100) / 100)) + (unit ? " " + unit : "");
  for (const ch of CHARTS) {
    const head = el("div", { className: "charthead" }, el("b", { textContent: ch.title }), " — " + ch.doc);
    const keys = el("div", { className: "chartkeys" });
    for (const { r, C } of ch.runs) {
      const pre = NR > 1 ? "run " + "AB"[r] + ": " : "";
      C.h.forEach((_, j) => keys.append(swatch(KEY_COLOURS[j % KEY_COLOURS.length], pre + keyLabel(C, j), NR > 1 && r ? ";opacity:0.6" : "")));
      if (C.all) keys.append(swatch(CHART_ALL, pre + "all " + fmtN(C.keysTotal) + (C.perLink ? " links" : " hosts") + (ch.agg === "count" || ch.agg === "rate" ? ", summed, on the right-hand scale" : "") + " (only the " + C.h.length + " largest drawn one by one)"));
      if (C.limit >= 0) keys.append(swatch(CHART_LIMIT, "limit " + fmtV(C.limit, ch.unit), ";height:2px"));
    }
    ch.canvas = el("canvas", { className: "chart" });
    ch.canvas.dataset.chart = ch.id;
    chartsBox.append(el("div", { className: "chartbox" }, head, keys, ch.canvas));
    ch.canvas.addEventListener("mousemove", ev => chartHover(ev, ch));
    ch.canvas.addEventListener("mouseleave", () => { tip.style.display = "none"; });
    ch.canvas.addEventListener("click", ev => { const h = chartHit(ev, ch); if (h) api.gotoLine(h.line, h.run, true); });
  }
  // bucket geometry of run R's chart C: its start time and width.
  const bucketT = (R, C, b) => R.from + b * (R.to - R.from + 1) / C.buckets;
  function chartValue(R, C, ln, i) { return C.agg === "rate" ? ln.v[i] / ((R.to - R.from + 1) / C.buckets / 1e9) : ln.v[i]; }
  function drawCharts() {
    for (const ch of CHARTS) {
      const g = sizeCanvas(ch.canvas, W, CHART_H);
      g.fillStyle = "#fff"; g.fillRect(0, 0, W, CHART_H);
      ch.hits = [];
      const top = 12, bot = CHART_H - 14, yr = bot - top;
      // A count or a rate summed over every host or link dwarfs any one
      // of them: its "all" line gets a scale of its own (right axis).
      const ownAll = ch.agg === "count" || ch.agg === "rate";
      let ymax = 0, amax = 0;
      for (const { r, C } of ch.runs) {
        const R = RUNS[r];
        for (const ln of C.lines.concat(C.all ? [C.all] : [])) for (let i = 0; i < ln.b.length; i++) {
          const t = bucketT(R, C, ln.b[i]); if (t > S.v1 || bucketT(R, C, ln.b[i] + 1) < S.v0) continue;
          if (ownAll && ln === C.all) amax = Math.max(amax, chartValue(R, C, ln, i));
          else ymax = Math.max(ymax, chartValue(R, C, ln, i));
        }
        if (C.limit >= 0) ymax = Math.max(ymax, C.limit);
        for (const bw of C.bw) if (bw > 0 && bw < ymax * 20) ymax = Math.max(ymax, bw);
      }
      if (ymax <= 0) ymax = 1;
      if (amax <= 0) amax = 1;
      const yOf = v => bot - v / ymax * yr, yAll = v => bot - v / amax * yr;
      g.font = "10px system-ui, sans-serif"; g.fillStyle = "#57606a";
      g.fillText(fmtV(ymax, ch.unit), 2, top - 2); g.fillText("0", 2, bot);
      if (ownAll && ch.runs.some(x => x.C.all)) { g.fillStyle = CHART_ALL; const lab = "all: " + fmtV(amax, ch.unit); g.fillText(lab, W - RM - g.measureText(lab).width - 2, top - 2); }
      g.strokeStyle = "#d0d7de"; g.beginPath(); g.moveTo(LM, bot + 0.5); g.lineTo(W - RM, bot + 0.5); g.stroke();
      g.save(); g.beginPath(); g.rect(LM, 0, W - LM - RM, CHART_H); g.clip();
      for (const { r, C } of ch.runs) {
        const R = RUNS[r], bw = (R.to - R.from + 1) / C.buckets;
        const lines = C.lines.map((ln, j) => [ln, KEY_COLOURS[j % KEY_COLOURS.length], j]);
        if (C.all) lines.unshift([C.all, CHART_ALL, -1]);
        for (const [ln, col, j] of lines) {
          g.strokeStyle = col; g.fillStyle = col; g.lineWidth = j < 0 ? 1 : 1.5; g.globalAlpha = NR > 1 && r ? 0.6 : 1;
          const yv = j < 0 && ownAll ? yAll : yOf;
          const pts = [];
          for (let i = 0; i < ln.b.length; i++) {
            const t0 = bucketT(R, C, ln.b[i]);
            if (t0 > S.v1 || t0 + bw < S.v0) continue;
            pts.push([i, xOf(t0 + bw / 2), yv(chartValue(R, C, ln, i)), t0]);
          }
          if (C.agg === "count" || C.agg === "rate") {
            const pw = Math.max(1, xOf(S.v0 + bw) - xOf(S.v0) - 1);
            if (j < 0) { g.beginPath(); pts.forEach(([, x, y], q) => { if (q) g.lineTo(x, y); else g.moveTo(x, y); }); g.stroke(); }
            else for (const [, x, y] of pts) g.fillRect(x - pw / 2, y, pw, bot - y);
          } else {
            g.beginPath();
            pts.forEach(([, x, y], q) => {
              if (C.agg === "last" && q > 0) g.lineTo(x, pts[q - 1][2]);
              if (q) g.lineTo(x, y); else g.moveTo(x, y);
            });
            if (C.agg === "last" && pts.length) g.lineTo(W - RM, pts[pts.length - 1][2]);
            g.stroke();
            if (C.agg === "maxmed") {
              g.setLineDash([3, 3]); g.beginPath();
              let q = 0;
              for (let i = 0; i < ln.b.length; i++) {
                const t0 = bucketT(R, C, ln.b[i]); if (t0 > S.v1 || t0 + bw < S.v0) continue;
                const x = xOf(t0 + bw / 2), y = yOf(ln.m[i]); if (q++) g.lineTo(x, y); else g.moveTo(x, y);
              }
              g.stroke(); g.setLineDash([]);
            }
          }
          if (pts.length <= 600) for (const [, x, y] of pts) { g.beginPath(); g.arc(x, y, 2, 0, 7); g.fill(); }
          for (const [i, x, y, t0] of pts) ch.hits.push({ x: x, y: y, run: r, C: C, ln: ln, i: i, j: j, t0: t0, t1: t0 + bw, line: ln.l[i] });
          if (j >= 0 && C.bw[j] > 0) { g.setLineDash([6, 3]); g.beginPath(); g.moveTo(LM, yOf(C.bw[j])); g.lineTo(W - RM, yOf(C.bw[j])); g.stroke(); g.setLineDash([]); }
        }
        g.globalAlpha = 1;
        if (C.limit >= 0) {
          g.strokeStyle = CHART_LIMIT; g.setLineDash([6, 3]); g.beginPath(); g.moveTo(LM, yOf(C.limit)); g.lineTo(W - RM, yOf(C.limit)); g.stroke(); g.setLineDash([]);
          g.fillStyle = CHART_LIMIT; g.fillText("limit " + fmtV(C.limit, ch.unit), LM + 4, yOf(C.limit) - 2);
        }
      }
      g.restore();
      if (D.mark && D.mark.ns >= S.v0 && D.mark.ns <= S.v1) { g.fillStyle = "#0969da"; g.fillRect(xOf(D.mark.ns), 0, 1.5, CHART_H); }
      if (S.hl && S.hl.t >= S.v0 && S.hl.t <= S.v1) { g.fillStyle = "#b08800"; g.fillRect(xOf(S.hl.t), 0, 1.5, CHART_H); }
    }
  }
  function chartHit(ev, ch) {
    const rc = ch.canvas.getBoundingClientRect(), x = ev.clientX - rc.left, y = ev.clientY - rc.top;
    let best = null, bd = 8;
    for (const h of ch.hits) { const d = Math.hypot(h.x - x, h.y - y); if (d < bd) { bd = d; best = h; } }
    return best;
  }
  function chartText(ch, h) {
    const R = RUNS[h.run], C = h.C, p = NR > 1 ? "run " + "AB"[h.run] + " " : "";
    const who = h.j < 0 ? "all " + fmtN(C.keysTotal) + (C.perLink ? " links" : " hosts") : keyLabel(C, h.j);
    let s = p + ch.title + " — " + who + ", " + fmtT(h.t0) + "–" + fmtT(h.t1) + "\n";
    const v = chartValue(R, C, h.ln, h.i);
    if (C.agg === "maxmed") s += "largest " + fmtV(v, ch.unit) + ", median " + fmtV(h.ln.m[h.i], ch.unit);
    else if (C.agg === "count") s += fmtN(v) + " records";
    else if (C.agg === "rate") s += fmtV(v, ch.unit) + (h.j >= 0 && C.bw[h.j] > 0 ? " of " + fmtV(C.bw[h.j], ch.unit) + " bandwidth (" + Math.round(100 * v / C.bw[h.j]) + "%)" : "");
    else s += fmtV(v, ch.unit);
    if (C.limit >= 0) s += " (limit " + fmtV(C.limit, ch.unit) + ")";
    if (h.line > 0) s += "\nL" + h.line + ": " + (recText(h.run, h.line) || "(record text not inlined)") + "\nclick: select this record";
    else s += "\n(from a snapshot file: no record)";
    return s;
  }
  function chartHover(ev, ch) {
    const h = chartHit(ev, ch);
    if (!h) { tip.style.display = "none"; return; }
    tip.textContent = chartText(ch, h); tip.style.display = "block";
    tip.style.left = Math.min(ev.clientX + 14, window.innerWidth - 740) + "px"; tip.style.top = (ev.clientY + 14) + "px";
  }

  // ---- membership timeline ------------------------------------------------------
  let mrows = [], mrowH = 12;
  function buildMembRows() {
    const rows = new Map();
    RUNS.forEach((R, r) => {
      const b = R.memb;
      for (let i = 0; i < b.n; i++) {
        const key = r + ":" + b.o[i] + ":" + b.s[i];
        let row = rows.get(key);
        if (!row) { row = { run: r, o: b.o[i], s: b.s[i], idx: [] }; rows.set(key, row); }
        row.idx.push(i);
      }
    });
    return Array.from(rows.values()).sort((a, b) => a.o - b.o || a.s - b.s || a.run - b.run);
  }
  const MROWS = buildMembRows();
  function drawMembership() {
    mrows = MROWS.filter(r => laneY[r.o] >= 0 && laneY[r.s] >= 0);
    mrowH = mrows.length > 120 ? 4 : 12;
    const Hm = Math.max(20, mrows.length * mrowH + 4);
    const g = sizeCanvas(mcv, W, Hm);
    g.fillStyle = "#fff"; g.fillRect(0, 0, W, Hm);
    g.font = "10px system-ui, sans-serif"; g.textBaseline = "middle";
    if (!mrows.length) { g.fillStyle = "#57606a"; g.fillText("no membership rows to draw (see the notes above)", 4, 10); }
    mrows.forEach((row, j) => {
      const R = RUNS[row.run], b = R.memb, y = 2 + j * mrowH;
      if (mrowH >= 10) { g.fillStyle = "#1b1f24"; g.fillText((NR > 1 ? "AB"[row.run] + " " : "") + H[row.o].slice(0, 6) + "→" + H[row.s].slice(0, 6), 2, y + mrowH / 2); }
      for (let q = 0; q < row.idx.length; q++) {
        const i = row.idx[q], t = b.t[i], tn = q + 1 < row.idx.length ? b.t[row.idx[q + 1]] : R.to;
        if (tn < S.v0 || t > S.v1) continue;
        const x1 = Math.max(LM, xOf(t)), x2 = Math.min(W - RM, xOf(tn));
        const st = R.strs[b.st[i]];
        g.fillStyle = STATE_COLOURS[st] || "#999";
        g.fillRect(x1, y, Math.max(1, x2 - x1), mrowH - 1);
        if (NR > 1) { g.fillStyle = RUN_COLOURS[row.run]; g.fillRect(x1, y, Math.max(1, x2 - x1), 2); }
        if (mrowH >= 10 && x2 - x1 > 26) { g.fillStyle = "#fff"; g.fillText("i" + b.inc[i], x1 + 2, y + mrowH / 2); }
      }
    });
    if (D.mark && D.mark.ns >= S.v0 && D.mark.ns <= S.v1) { g.fillStyle = "#0969da"; g.fillRect(xOf(D.mark.ns), 0, 1.5, Hm); }
    if (S.hl && S.hl.t >= S.v0 && S.hl.t <= S.v1) { g.fillStyle = "#b08800"; g.fillRect(xOf(S.hl.t), 0, 1.5, Hm); }
  }

  // ---- records panel ---------------------------------------------------------------
  const ROWH = 16;
  function buildRecRows(R) {
    const rows = []; let prev = 0;
    for (let i = 0; i < R.rec.l.length; i++) {
      const l = R.rec.l[i];
      if (l > prev + 1) rows.push({ gap: l - prev - 1, from: prev + 1, to: l - 1 });
      rows.push({ line: l, text: R.rec.s[i] });
      prev = l;
    }
    if (R.records > prev) rows.push({ gap: R.records - prev, from: prev + 1, to: R.records });
    return rows;
  }
  const REC_ROWS = RUNS.map(buildRecRows);
  const recInner = el("div", {});
  records.append(recInner);
  if (NR > 1) RUNS.forEach((R, r) => { const b = el("button", { className: "runtab", textContent: "run " + "AB"[r] + " records" }); b.addEventListener("click", () => { S.recRun = r; renderRecords(true); }); recTabs.append(b); });
  let recRendered = "";
  function renderRecords(force) {
    const rows = REC_ROWS[S.recRun];
    recInner.style.height = rows.length * ROWH + "px";
    const a = Math.max(0, Math.floor(records.scrollTop / ROWH) - 20), b = Math.min(rows.length, a + Math.ceil(records.clientHeight / ROWH) + 40);
    const key = S.recRun + ":" + a + ":" + b + ":" + (S.hl ? S.hl.run + "/" + S.hl.line : "");
    if (!force && key === recRendered) return;
    recRendered = key;
    recInner.textContent = "";
    for (let i = a; i < b; i++) {
      const row = rows[i], d = el("div", { className: "row" });
      d.style.top = i * ROWH + "px";
      if (row.gap) { d.classList.add("gap"); d.textContent = "… " + fmtN(row.gap) + " records not inlined (L" + row.from + "–L" + row.to + ")"; }
      else {
        d.dataset.line = String(row.line);
        d.append(el("span", { className: "ln", textContent: "L" + row.line }), row.text);
        if (S.hl && S.hl.run === S.recRun && S.hl.line === row.line) d.classList.add("hl");
      }
      recInner.append(d);
    }
    RUNS.length > 1 && recTabs.querySelectorAll(".runtab").forEach((b, r) => b.classList.toggle("on", r === S.recRun));
  }
  records.addEventListener("scroll", () => renderRecords(false));

  function recIndex(r, line) { const rows = REC_ROWS[r]; let lo = 0, hi = rows.length; while (lo < hi) { const mid = (lo + hi) >> 1; const rl = rows[mid].gap ? rows[mid].to : rows[mid].line; if (rl < line) lo = mid + 1; else hi = mid; } return lo; }
  function recText(r, line) { const R = RUNS[r]; const i = lowerBound(R.rec.l, R.rec.l.length, line); return i < R.rec.l.length && R.rec.l[i] === line ? R.rec.s[i] : null; }
  function lineTime(r, line, fallback) {
    const s = recText(r, line); if (s) { const m = /^\{"virtual_time_ns":(\d+)/.exec(s); if (m) return +m[1]; }
    return fallback;
  }

  // ---- verdicts --------------------------------------------------------------------
  RUNS.forEach((R, r) => {
    if (NR > 1) verdictsBox.append(el("h3", { textContent: "run " + "AB"[r] + ": " + R.name }));
    if (!R.verdicts.length) verdictsBox.append(el("div", { textContent: "no assertions declared" }));
    for (const v of R.verdicts) {
      const d = el("div", { className: "verdict " + (["Pass", "Fail", "Inconclusive"].includes(v.outcome) ? v.outcome : "") });
      d.dataset.name = v.name;
      d.append(el("span", { className: "outcome", textContent: v.outcome }), el("b", { textContent: v.name }), " (" + v.kind + ") — " + v.reason, el("br"));
      for (const e of v.evidence || []) {
        const m = /^events\.ndjson#L(\d+)$/.exec(e.event_or_snapshot_ref);
        if (m) {
          const a = el("a", { href: "#" + (r ? "2" : "") + "L" + m[1], textContent: e.event_or_snapshot_ref, className: "evidence" });
          a.dataset.line = m[1]; a.dataset.run = String(r); a.dataset.t = String(e.virtual_time_ns);
          a.addEventListener("click", ev => { ev.preventDefault(); history.replaceState(null, "", a.getAttribute("href")); api.gotoLine(+a.dataset.line, r); });
          d.append(a);
        } else d.append(el("span", { textContent: e.event_or_snapshot_ref + " " }));
      }
      verdictsBox.append(d);
    }
  });

  // ---- view control --------------------------------------------------------------------
  function setView(a, b) {
    const minSpan = 1000;
    if (b - a < minSpan) { const c = (a + b) / 2; a = c - minSpan / 2; b = c + minSpan / 2; }
    if (b - a > T1 - T0) { a = T0; b = T1; }
    if (a < T0) { b += T0 - a; a = T0; }
    if (b > T1) { a -= b - T1; b = T1; }
    S.v0 = a; S.v1 = b; draw();
  }
  function zoomAt(t, f) { setView(t - (t - S.v0) * f, t + (S.v1 - t) * f); }
  function centreOn(t) {
    let span = S.v1 - S.v0; if (span >= (T1 - T0) * 0.99) span = (T1 - T0) / 20;
    setView(t - span / 2, t + span / 2);
  }
  cv.addEventListener("wheel", ev => { ev.preventDefault(); const r = cv.getBoundingClientRect(); zoomAt(tOf(ev.clientX - r.left), ev.deltaY > 0 ? 1.25 : 0.8); }, { passive: false });
  let drag = null;
  cv.addEventListener("mousedown", ev => { drag = { x: ev.clientX, v0: S.v0, v1: S.v1, moved: false }; });
  window.addEventListener("mouseup", ev => { if (drag && !drag.moved) clickAt(ev); drag = null; });
  window.addEventListener("mousemove", ev => {
    if (drag) {
      const dx = ev.clientX - drag.x; if (Math.abs(dx) > 2) drag.moved = true;
      if (drag.moved) { const dt = dx / (W - LM - RM) * (drag.v1 - drag.v0); S.v0 = drag.v0 - dt; S.v1 = drag.v1 - dt; setView(S.v0, S.v1); }
      return;
    }
    if (ev.target && ev.target.classList && ev.target.classList.contains("chart")) return; // the chart's own hover
    if (ev.target === hcv) return; // the history's own hover
    hover(ev);
  });
  cv.addEventListener("dblclick", () => setView(T0, T1));

  // ---- hover and click --------------------------------------------------------------------
  // nearest is every element within 6 px of the pointer that is as
  // close as the closest (co-located marks all count), closest first.
  function nearest(px, py, list) {
    let bd = 6; const found = [];
    for (const h of list) { const d = segDist(px, py, h.x1, h.y1, h.x2, h.y2); if (d <= 6) { found.push([d, h]); if (d < bd) bd = d; } }
    return found.filter(([d]) => d <= bd + 0.5).sort((a, b) => a[0] - b[0]).map(([, h]) => h);
  }
  function segDist(px, py, x1, y1, x2, y2) {
    const dx = x2 - x1, dy = y2 - y1, l2 = dx * dx + dy * dy;
    let t = l2 ? ((px - x1) * dx + (py - y1) * dy) / l2 : 0; t = Math.max(0, Math.min(1, t));
    return Math.hypot(px - (x1 + t * dx), py - (y1 + t * dy));
  }
  function describe(h) {
    const R = RUNS[h.run], p = NR > 1 ? "run " + "AB"[h.run] + "\n" : "";
    if (h.kind === "msg") {
      const m = R.msg, i = h.i, st = ["delivered", "dropped on send", "dropped on delivery", "no receive recorded", "receive with no matching send"][m.x[i]];
      let s = p + R.strs[m.k[i]] + " " + H[m.f[i]] + " → " + H[m.t[i]] + ": " + st + (m.r[i] >= 0 ? " (" + R.strs[m.r[i]] + ")" : "") + "\nsent " + fmtT(m.st[i]) + (m.x[i] === 0 ? ", received " + fmtT(m.rt[i]) + ", latency " + fmtT(m.rt[i] - m.st[i]) : "") + ", " + m.b[i] + " bytes, " + m.u[i] + " updates";
      for (const l of [m.sl[i], m.el[i]]) if (l > 0) s += "\nL" + l + ": " + (recText(h.run, l) || "(record text not inlined)");
      return s;
    }
    if (h.kind === "mark") { const k = R.marks, i = h.i; return p + R.strs[k.lab[i]] + " @ " + fmtT(k.t[i]) + " on " + H[k.h[i]] + "\nL" + k.l[i] + ": " + (recText(h.run, k.l[i]) || "(record text not inlined)"); }
    if (h.kind === "mut") { const mu = R.muts[h.i]; return p + "mutation " + mu.kind + " " + fmtT(mu.t) + "–" + fmtT(mu.end) + "\nL" + mu.line + ": " + (recText(h.run, mu.line) || ""); }
    if (h.kind === "memb") { const b = R.memb, i = h.i; return p + H[b.o[i]] + " sees " + H[b.s[i]] + " " + R.strs[b.st[i]] + " inc " + b.inc[i] + " (" + R.strs[b.r[i]] + ") from " + fmtT(b.t[i]) + "\nL" + b.l[i] + ": " + (recText(h.run, b.l[i]) || "(record text not inlined)"); }
    return "";
  }
  function hitAt(ev) {
    const rc = cv.getBoundingClientRect();
    if (ev.clientX >= rc.left && ev.clientX <= rc.right && ev.clientY >= rc.top && ev.clientY <= rc.bottom) {
      const x = ev.clientX - rc.left, y = ev.clientY - rc.top;
      const hs = nearest(x, y, hits); if (hs.length) return { kind: "many", list: hs };
      if (x < LM) { for (const l of vis) if (Math.abs(laneY[l] - y) <= Math.max(3, laneH / 2)) return { kind: "lane", lane: l }; }
      return null;
    }
    if (!VIEWS) return null;
    const rm = mcv.getBoundingClientRect();
    if (ev.clientX >= rm.left && ev.clientX <= rm.right && ev.clientY >= rm.top && ev.clientY <= rm.bottom) {
      const j = Math.floor((ev.clientY - rm.top - 2) / mrowH), row = mrows[j]; if (!row) return null;
      const t = tOf(ev.clientX - rm.left), b = RUNS[row.run].memb;
      let found = -1; for (const i of row.idx) if (b.t[i] <= t) found = i;
      if (found < 0) return null;
      return { kind: "memb", run: row.run, i: found };
    }
    return null;
  }
  function hover(ev) {
    const h = hitAt(ev);
    if (!h) { tip.style.display = "none"; return; }
    const MAXTIP = 8;
    let text;
    if (h.kind === "lane") text = "lane " + H[h.lane] + " (" + partners[h.lane].size + " partners)";
    else if (h.kind === "many") text = h.list.slice(0, MAXTIP).map(describe).join("\n—\n") + (h.list.length > MAXTIP ? "\n— and " + (h.list.length - MAXTIP) + " more here: zoom in" : "");
    else text = describe(h);
    tip.textContent = text;
    tip.style.display = "block";
    tip.style.left = Math.min(ev.clientX + 14, window.innerWidth - 740) + "px"; tip.style.top = (ev.clientY + 14) + "px";
  }
  function clickAt(ev) {
    let h = hitAt(ev); if (!h) return;
    if (h.kind === "many") h = h.list[0];
    const R = RUNS[h.run];
    if (h.kind === "msg") api.gotoLine(R.msg.sl[h.i] || R.msg.el[h.i], h.run, true);
    else if (h.kind === "mark") api.gotoLine(R.marks.l[h.i], h.run, true);
    else if (h.kind === "mut") api.gotoLine(R.muts[h.i].line, h.run, true);
    else if (h.kind === "memb") api.gotoLine(R.memb.l[h.i], h.run, true);
  }

  // ---- jumps: next Suspect, Dead, incarnation bump ------------------------------------------
  const JUMPS = { suspect: [], dead: [], incarnation: [] };
  RUNS.forEach((R, r) => {
    const b = R.memb, last = new Map();
    for (let i = 0; i < b.n; i++) {
      const st = R.strs[b.st[i]], key = b.o[i] * NL + b.s[i];
      if (st === "suspect") JUMPS.suspect.push({ t: b.t[i], line: b.l[i], run: r });
      if (st === "dead") JUMPS.dead.push({ t: b.t[i], line: b.l[i], run: r });
      if (last.has(key) && b.inc[i] > last.get(key)) JUMPS.incarnation.push({ t: b.t[i], line: b.l[i], run: r });
      last.set(key, b.inc[i]);
    }
    const k = R.marks;
    for (let i = 0; i < k.n; i++) if (R.strs[k.y[i]] === "self_incarnation_bump") JUMPS.incarnation.push({ t: k.t[i], line: k.l[i], run: r });
  });
  for (const k in JUMPS) JUMPS[k].sort((a, b) => a.t - b.t || a.run - b.run || a.line - b.line);

  // ---- the API tests (and curious users) use -------------------------------------------
  const api = {
    state() {
      return {
        hosts: NL, lanes: vis.length, visibleLanes: vis.map(l => H[l]), laneY: vis.map(l => laneY[l]), laneH: laneH, labelWidth: LM,
        runs: NR, deliveredArrows: RUNS.reduce((s, R) => s + R.delivered, 0), arrows: RUNS.reduce((s, R) => s + R.msg.n, 0),
        drawnArrows: S.drawnArrows, drawnDelivered: S.drawnDelivered, drawnArrowsPerRun: S.drawnArrowsPerRun.slice(), drawnMarks: S.drawnMarks, mode: S.mode,
        view: [S.v0, S.v1], range: [T0, T1], hidden: Array.from(S.hidden).map(l => H[l]).sort(), focus: S.focus >= 0 ? H[S.focus] : null,
        verdicts: document.querySelectorAll("#verdicts .verdict").length, highlighted: S.hl ? { run: S.hl.run, line: S.hl.line, t: S.hl.t } : null,
        membershipRows: mrows.length, notices: STATIC_NOTICES.concat(S.notices), mark: D.mark,
        charts: CHARTS.map(ch => ({ id: ch.id, title: ch.title, keys: ch.runs.reduce((n, x) => n + x.C.h.length, 0), all: ch.runs.some(x => !!x.C.all), points: (ch.hits || []).length, limit: ch.runs.map(x => x.C.limit), linked: (ch.hits || []).filter(h => h.line > 0).length })),
        legend: legend.textContent,
        controls: Array.from(toolbar.querySelectorAll("button")).map(b => b.textContent),
        bandSegments: Object.assign({}, S.bandSegments),
        history: HAS_HIST ? { rows: HROWS.length, ops: RUNS.reduce((n, R) => n + (R.hist ? R.hist.n : 0), 0), drawnOps: S.drawnOps, violations: VIOLS.map(v => ({ run: v.run, name: v.name, t0: v.t0, t1: v.t1, ops: v.ops.length })), note: histNote.textContent } : null,
      };
    },
    // chartPoint(id) is where, in client coordinates, the largest point
    // drawn on chart id lies, its record line and run, and the tooltip
    // text hovering it shows: a test moves the mouse there.
    chartPoint(id) {
      const ch = CHARTS.find(c => c.id === id); if (!ch || !ch.hits || !ch.hits.length) return null;
      let best = ch.hits[0];
      for (const h of ch.hits) if (h.y < best.y) best = h;
      const rc = ch.canvas.getBoundingClientRect();
      return { x: rc.left + best.x, y: rc.top + best.y, line: best.line, run: best.run, text: chartText(ch, best) };
    },
    hideLane(id, hide) { const l = H.indexOf(id); if (l < 0) return false; if (hide === false) S.hidden.delete(l); else S.hidden.add(l); syncLaneBoxes(); draw(); return true; },
    focus(id) { S.focus = id == null ? -1 : H.indexOf(id); focusSel.value = String(S.focus); draw(); return S.focus >= 0 || id == null; },
    view(a, b) { setView(a, b); return [S.v0, S.v1]; },
    gotoLine(line, run, keepView) {
      run = run || 0;
      const idx = recIndex(run, line), rows = REC_ROWS[run], row = rows[idx];
      const t = lineTime(run, line, null);
      S.hl = { run: run, line: line, t: t == null ? S.cursor : t };
      S.cursor = S.hl.t;
      S.recRun = run;
      records.scrollTop = Math.max(0, idx * ROWH - records.clientHeight / 2);
      if (!keepView && t != null) centreOn(t); else draw();
      renderRecords(true);
      return !!(row && row.line === line);
    },
    // probe(kind) is where, in client coordinates, the first drawn
    // element of kind ("msg", "mark", "mut") lies, and the record lines
    // it stands for: a test moves the mouse there to hover it.
    probe(kind) {
      const h = hits.find(h => h.kind === kind); if (!h) return null;
      const rc = cv.getBoundingClientRect(), R = RUNS[h.run];
      const lines = kind === "msg" ? [R.msg.sl[h.i], R.msg.el[h.i]] : kind === "mark" ? [R.marks.l[h.i]] : [R.muts[h.i].line];
      return { x: rc.left + (h.x1 + h.x2) / 2, y: rc.top + (h.y1 + h.y2) / 2, lines: lines.filter(l => l > 0), run: h.run };
    },
    tip() { return tip.style.display === "none" ? "" : tip.textContent; },
    // histOp(k) is where, in client coordinates, the k-th operation a
    // failing verdict cites is drawn in the client history, and its record lines.
    histOp(k) {
      const hs = hhits.filter(h => h.cited); const h = hs[k || 0]; if (!h) return null;
      const rc = hcv.getBoundingClientRect(), X = RUNS[h.run].hist;
      return { x: rc.left + (h.x1 + h.x2) / 2, y: rc.top + (h.y1 + h.y2) / 2, lines: [X.il[h.i], X.rl[h.i]].filter(l => l > 0), run: h.run };
    },
    // nextViolation centres the view on the next failing verdict's window.
    nextViolation() {
      const v = VIOLS.find(v => v.t0 > S.cursor + 0.5) || VIOLS[0]; if (!v) return null;
      S.cursor = v.t0;
      const pad = Math.max(1e6, (v.t1 - v.t0) * 0.25);
      setView(v.t0 - pad, v.t1 + pad);
      return { name: v.name, t0: v.t0, t1: v.t1, run: v.run };
    },
    next(kind) {
      const js = JUMPS[kind] || []; const j = js.find(x => x.t > S.cursor || (x.t === S.cursor && S.hl && x.line > S.hl.line && x.run === S.hl.run));
      if (!j) return null;
      api.gotoLine(j.line, j.run); return { t: j.t, line: j.line, run: j.run };
    },
  };
  window.detsim = api;

  function fromHash() {
    const m = /^#(2?)L(\d+)$/.exec(location.hash);
    if (m && (m[1] === "" || NR > 1)) api.gotoLine(+m[2], m[1] ? 1 : 0);
  }
  window.addEventListener("hashchange", fromHash);
  window.addEventListener("resize", () => draw());
  draw();
  renderRecords(true);
  fromHash();
  api.loadMs = performance.now(); // from navigation start to first draw
  document.documentElement.dataset.ready = "1";
})();
