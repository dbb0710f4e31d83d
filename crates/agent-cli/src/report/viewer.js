// Deft trace report viewer: reads the JSON island and builds the page with createElement
// and textContent only. No string of the trace is ever parsed as HTML, so text any app
// put on screen cannot become markup or script here.
"use strict";
(function () {
  const data = JSON.parse(document.getElementById("deft-trace").textContent);
  const app = document.getElementById("app");

  function el(tag, cls, text) {
    const e = document.createElement(tag);
    if (cls) e.className = cls;
    if (text !== undefined && text !== null) e.textContent = String(text);
    return e;
  }
  function add(parent, child) { parent.appendChild(child); return child; }
  function ms(n) { return n >= 10000 ? (n / 1000).toFixed(1) + " s" : n + " ms"; }
  function kv(parent, rows) {
    const dl = add(parent, el("dl", "kv"));
    for (const [k, v] of rows) {
      if (v === undefined || v === null || v === "") continue;
      add(dl, el("dt", null, k));
      add(dl, el("dd", null, typeof v === "string" ? v : JSON.stringify(v)));
    }
    return dl;
  }
  function card(parent, label, value, cls) {
    const c = add(parent, el("div", "card" + (cls ? " " + cls : "")));
    add(c, el("b", null, value));
    add(c, el("span", "muted", label));
  }
  function words(v) { return String(v).replace(/_/g, " "); }

  // ---- summary
  const s = data.summary;
  document.title = "Deft trace report: " + data.source;
  add(app, el("h1", null, "Deft trace report"));
  add(app, el("div", "muted", data.source));
  const cards = add(app, el("div", "cards"));
  card(cards, "actions", s.actions);
  card(cards, "verified", s.verified, "good");
  card(cards, "received", s.received);
  if (s.sent) card(cards, "sent (not verified)", s.sent);
  card(cards, "retried", s.retried, s.retried ? "warn" : "");
  card(cards, "failed", s.failed, s.failed ? "bad" : "");
  if (s.unfinished) card(cards, "unfinished", s.unfinished, "bad");
  if (s.waits) card(cards, "waits met", s.waits_met + " / " + s.waits, s.waits_met < s.waits ? "bad" : "good");
  card(cards, "total time", ms(s.total_ms));
  if (s.agent_steps) {
    card(cards, "agent steps", s.agent_steps);
    card(cards, "model calls", s.model_calls);
    card(cards, "tokens (prompt + output)", s.prompt_tokens + " + " + s.output_tokens);
  }
  card(cards, "frames", s.frames + " (" + (s.frame_bytes / 1e6).toFixed(2) + " MB)");
  if (s.frames_skipped) card(cards, "frames not saved", s.frames_skipped, "warn");

  // ---- frames with their markers
  function shot(parent, f, caption) {
    const fig = add(parent, el("figure"));
    if (!f.file || !data.frames[f.file] || data.frames[f.file].indexOf("data:image/png;base64,") !== 0) {
      add(fig, el("div", "diag", caption + ": no frame (" + (f.skipped || "not recorded") + ")"));
      return;
    }
    const box = add(fig, el("div", "shot"));
    const img = add(box, el("img"));
    img.alt = caption;
    img.src = data.frames[f.file];
    const [rx, ry, rw, rh] = f.region;
    function place(cls, r, title) {
      const m = add(box, el("div", "mark " + cls));
      m.style.left = ((r[0] - rx) / rw * 100) + "%";
      m.style.top = ((r[1] - ry) / rh * 100) + "%";
      m.style.width = (r[2] / rw * 100) + "%";
      m.style.height = (r[3] / rh * 100) + "%";
      m.title = title;
    }
    for (const r of f.masked || []) place("masked-box", r, "secret field, painted over");
    for (const r of f.changed || []) place("changed-box", r, "changed region");
    if (f.target) place("target-box", f.target, "the target's bounds");
    if (f.point) {
      const m = add(box, el("div", "mark click-marker"));
      m.style.left = ((f.point.x - rx) / rw * 100) + "%";
      m.style.top = ((f.point.y - ry) / rh * 100) + "%";
      m.title = "click point (" + f.point.x + ", " + f.point.y + ")";
    }
    add(fig, el("figcaption", null, caption + " · +" + f.at_ms + " ms" + (f.factor > 1 ? " · 1/" + f.factor + " scale" : "")));
    if (f.note) add(fig, el("div", "diag", f.note));
  }

  function outcome(body, o, kind) {
    if (!o) { add(body, el("div", "diag", "no outcome: the operation did not finish (the process stopped?)")); return; }
    if (kind === "wait") {
      kv(body, [["met", String(o.met)], ["channel", o.channel && words(o.channel)], ["last observed", o.last_observed]]);
    } else {
      kv(body, [
        ["expected", o.expected],
        ["observed", o.observed],
        ["target", o.target && ((o.target.role || "") + " " + JSON.stringify(o.target.name) + (o.target.window ? " in " + JSON.stringify(o.target.window) : ""))],
        ["retry reason", o.retry_reason],
        ["failure", o.failure && words(o.failure.kind)],
        ["suggested", o.suggested_action && words(o.suggested_action)],
      ]);
      if (o.blocking) {
        const b = add(body, el("div", "diag"));
        b.textContent = "blocked by " + o.blocking.role + " " + JSON.stringify(o.blocking.name) +
          (o.blocking.texts && o.blocking.texts.length ? ": " + o.blocking.texts.join(" · ") : "");
      }
      if (o.attempts && o.attempts.length) {
        add(body, el("h4", null, "attempts"));
        const t = add(body, el("table"));
        const h = add(t, el("tr"));
        for (const c of ["#", "method", "result", "time", "observed"]) add(h, el("th", null, c));
        o.attempts.forEach((a, i) => {
          const r = add(t, el("tr"));
          const result = typeof a.result === "string" ? a.result : Object.keys(a.result)[0];
          const d = typeof a.result === "string" ? null : a.result[result];
          const detail = !d ? "" : d.class ? " (" + words(d.class) + "): " + (d.message || "") : " " + String(d);
          add(r, el("td", null, i + 1));
          add(r, el("td", null, words(a.method)));
          add(r, el("td", "result-" + result, words(result) + detail));
          add(r, el("td", null, a.elapsed_ms + " ms"));
          add(r, el("td", null, a.observed || ""));
        });
      }
      if (o.failure && o.failure.candidates && o.failure.candidates.length) {
        add(body, el("h4", null, "candidates"));
        const ul = add(body, el("ul"));
        for (const c of o.failure.candidates) {
          add(ul, el("li", null, c.role + " " + JSON.stringify(c.name) + " in " + JSON.stringify(c.app) +
            (c.window ? " window " + JSON.stringify(c.window) : "") + " — select with: " + c.selector));
        }
      }
    }
    if (o.evidence && o.evidence.length) {
      add(body, el("h4", null, "evidence"));
      const t = add(body, el("table"));
      for (const e of o.evidence) {
        const r = add(t, el("tr"));
        add(r, el("td", null, words(e.channel)));
        add(r, el("td", null, e.what));
        add(r, el("td", null, "+" + e.after_ms + " ms"));
      }
    }
  }

  function op(parent, o, runMs) {
    const status = o.status;
    const d = add(parent, el("details", "op " + status + (o.retried && status !== "failed" ? " retried" : "")));
    d.open = status === "failed" || status === "timed_out" || status === "unfinished" || o.retried;
    const sum = add(d, el("summary"));
    add(sum, el("span", "badge " + status, words(status)));
    if (o.retried) add(sum, el("span", "badge retried", "retried"));
    add(sum, el("span", null, o.asked));
    const bar = add(sum, el("span", "bar"));
    const fill = add(bar, el("span"));
    fill.style.left = (runMs ? o.at_ms / runMs * 100 : 0) + "%";
    fill.style.width = (runMs ? Math.max(o.duration_ms / runMs * 100, 0.5) : 100) + "%";
    add(sum, el("span", "muted", ms(o.duration_ms)));
    const body = add(d, el("div", "body"));
    if (o.frames.length) {
      const shots = add(body, el("div", "shots"));
      for (const f of o.frames) shot(shots, f, (f.phase === "before" ? "before attempt " + f.attempt : "after the verdict"));
      const lg = add(body, el("div", "legend muted"));
      for (const t of ["● click point", "▭ target (blue)", "▭ changed regions (orange)", "▭ secret field, painted over (grey)"]) add(lg, el("span", null, t));
    }
    outcome(body, o.outcome, o.kind);
    if (o.events.length) {
      const ev = add(body, el("details"));
      add(ev, el("summary", null, "executor events (" + o.events.length + ")"));
      const t = add(ev, el("table", "events"));
      for (const e of o.events) {
        const r = add(t, el("tr"));
        add(r, el("td", null, e.at_ms === null ? "" : "+" + e.at_ms + " ms"));
        add(r, el("td", null, e.kind));
        add(r, el("td", null, e.text));
      }
    }
  }

  function step(parent, st, run, runMs) {
    const failed = st.ok === false || st.policy_blocked;
    const d = add(parent, el("details", "step " + (failed ? "failed" : st.ok ? "verified" : "")));
    d.open = true;
    const sum = add(d, el("summary"));
    add(sum, el("span", "badge", "step " + st.step));
    add(sum, el("span", null, (st.tool || "think") + (st.target ? " " + st.target : "")));
    if (st.question) add(sum, el("span", "badge retried", "asked"));
    if (failed) add(sum, el("span", "badge failed", st.policy_blocked ? "blocked" : "failed"));
    add(sum, el("span", "muted", ms(st.duration_ms)));
    const body = add(d, el("div", "body"));
    if (st.thought) add(body, el("div", "thought", st.thought));
    const c = st.confidence;
    kv(body, [
      ["arguments", st.args],
      ["confidence", c && (c.score.toFixed(2) + (c.score >= c.threshold ? " ≥ " : " < ") + c.threshold.toFixed(2) + " (" + c.method + ", " + c.candidates + " candidate(s))")],
      ["policy", st.policy_blocked],
      ["question", st.question && (st.question + " (" + words(st.question_reason) + ")")],
      ["answer", st.answer],
      ["observation", st.observation],
      ["divergence", st.divergence],
      ["model", st.stats && (st.stats.model_calls + " call(s), " + st.stats.prompt_tokens + " + " + st.stats.output_tokens + " tokens, " + st.stats.model_ms + " ms")],
    ]);
    for (const n of st.ops) {
      const o = run.ops.find((x) => x.op === n);
      if (o) op(body, o, runMs);
    }
  }

  function flowStep(parent, st, run, runMs) {
    const good = st.status === "done" || st.repaired === true;
    const cls = good ? "verified" : st.status === "skipped" ? "" : "failed";
    const d = add(parent, el("details", "step " + cls));
    d.open = !good;
    const sum = add(d, el("summary"));
    add(sum, el("span", "badge", "step " + st.step));
    add(sum, el("span", null, (st.name ? st.name + ": " : "") + st.tool + (st.asked ? " " + st.asked : "")));
    if (st.question) add(sum, el("span", "badge retried", "asked"));
    add(sum, el("span", "badge " + (good ? "verified" : st.status === "skipped" ? "retried" : "failed"),
      st.repaired === true ? "repaired" : words(st.status)));
    add(sum, el("span", "muted", ms(st.duration_ms)));
    const body = add(d, el("div", "body"));
    kv(body, [
      ["line", st.line === null ? null : String(st.line)],
      ["expectation", st.expect],
      ["on failure", st.on_fail],
      ["failure", st.failure],
      ["repaired", st.repaired === null ? null : (st.repaired ? "yes, by the agent" : "no: the agent's repair did not make it hold")],
      ["question", st.question],
      ["answers", st.answers.length ? st.answers.join(" · ") : null],
      ["carried out", st.choice && (st.choice + (st.on_their_word ? " (on the person's word: no expectation to check)" : ""))],
      ["no answer", st.unanswered],
    ]);
    for (const n of st.ops) {
      const o = run.ops.find((x) => x.op === n);
      if (o) op(body, o, runMs);
    }
  }

  for (const run of data.runs) {
    add(app, el("h2", null, run.name));
    add(app, el("div", "muted", new Date(run.started_unix_ms).toISOString() + " · " + ms(run.duration_ms) + " · " + run.files.join(", ")));
    for (const dg of run.diagnostics) add(app, el("div", "diag", dg));
    if (run.goal) kv(app, [["goal", run.goal], ["model", run.model], ["status", run.status && words(run.status)], ["summary", run.summary]]);
    const shown = new Set();
    if (run.flow) {
      const f = run.flow;
      const end = f.ok === null ? "unfinished (the process stopped?)" : f.ok ? "done" : "stopped";
      kv(app, [["flow", f.name || "(unnamed)"], ["steps", (f.from_step > 1 ? "from step " + f.from_step + " of " : "") + f.steps_total],
        ["end", end + (f.skipped ? ", " + f.skipped + " skipped by the person" : "")]]);
      for (const st of f.steps) {
        flowStep(app, st, run, run.duration_ms);
        for (const n of st.ops) shown.add(n);
      }
    }
    for (const st of run.steps) {
      step(app, st, run, run.duration_ms);
      for (const n of st.ops) shown.add(n);
    }
    for (const o of run.ops) if (!shown.has(o.op)) op(app, o, run.duration_ms);
  }
})();
