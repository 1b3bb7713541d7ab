// ARTS rating interface. Texts are inserted with textContent (never as HTML).
// Every API call carries the token of the page's link (#token=...) as a bearer token.
"use strict";

const $ = (id) => document.getElementById(id);
const TOKEN_KEY = "arts-token";
const state = { config: null, token: null, rater: null, current: null, shownAt: 0, busy: false, order: [] };

async function request(path, body) {
  const headers = { Authorization: "Bearer " + state.token };
  const opts = body === undefined ? { headers } : {
    method: "POST", headers: { ...headers, "Content-Type": "application/json" }, body: JSON.stringify(body),
  };
  const res = await fetch(path, opts);
  if (!res.ok) {
    let msg = res.statusText;
    try { msg = (await res.json()).error || msg; } catch (e) { /* not JSON */ }
    const err = new Error(msg);
    err.status = res.status;
    throw err;
  }
  return res;
}

async function api(path, body) { return (await request(path, body)).json(); }

// Download a rater's history (a fetch with the token, then a local file: a plain link cannot carry it).
async function downloadHistory(rater, name) {
  const blob = await (await request("/api/history?rater=" + encodeURIComponent(rater))).blob();
  const a = document.createElement("a");
  a.href = URL.createObjectURL(blob);
  a.download = name.replace(/[^\w.-]+/g, "_") + ".jsonl";
  document.body.append(a);
  a.click();
  a.remove();
  setTimeout(() => URL.revokeObjectURL(a.href), 10000);
}

function linkFor(token) { return location.origin + "/#token=" + token; }

function show(view) {
  for (const id of ["noaccess-view", "login-view", "pair-view", "rank-view", "coord-view", "done-view"]) {
    $(id).hidden = id !== view;
  }
}

function setError(msg) { $("error").textContent = msg || ""; }

function renderGuideline(g) {
  $("guideline-title").textContent = g.title ? g.title + ":" : "";
  $("guideline-intro").textContent = g.intro || "";
  $("guideline-lead").textContent = g.lead || "";
  const ul = $("guideline-questions");
  ul.replaceChildren(...(g.questions || []).map((q) => {
    const li = document.createElement("li");
    li.textContent = q;
    return li;
  }));
}

function renderProgress(p) {
  $("stats").textContent = `(${p.done}/${p.total})`;
  $("stats").dataset.done = p.done;
  $("stats").dataset.total = p.total;
}

function render(p) {
  renderProgress(p);
  setError("");
  // Undo takes back the last decision in every mode: a pair, or a ranked and rated batch.
  $("undo").hidden = !(p.done > 0);
  $("undo").textContent = state.config.mode === "rank-rate" ? "Undo last batch" : "Undo last choice";
  if (p.finished) { state.current = null; show("done-view"); return; }
  state.shownAt = performance.now();
  if (state.config.mode === "rank-rate") return renderBatch(p.batch);
  const m = p.match;
  state.current = m;
  for (const side of ["a", "b"]) {
    const el = $("text-" + side);
    el.textContent = m[side].text;
    el.dataset.index = m[side].index;
    el.dataset.match = m.match;
    el.disabled = false;
  }
  show("pair-view");
}

// One decision per click: a click while the last one is on its way is ignored, and so is the
// second click of a double click (event.detail > 1), which would land on the next pair.
async function choose(side, ev) {
  if (state.busy || !state.current || (ev && ev.detail > 1)) return;
  state.busy = true;
  $("text-a").disabled = $("text-b").disabled = true;
  const m = state.current;
  try {
    // The rater clicks the EASIER text; the server records the other one as harder.
    const p = await api("/api/decide", {
      rater: state.rater, match: m.match, clicked: m[side].index,
      elapsed_ms: Math.round(performance.now() - state.shownAt),
    });
    render(p);
  } catch (e) {
    setError(e.message);
    $("text-a").disabled = $("text-b").disabled = false;
  } finally {
    state.busy = false;
  }
}

async function undo() {
  if (state.busy) return;
  state.busy = true;
  $("undo").disabled = true;
  try {
    render(await api("/api/undo", { rater: state.rater }));
  } catch (e) {
    setError(e.message);
  } finally {
    state.busy = false;
    $("undo").disabled = false;
  }
}

// ---- rank-and-rate
function renderBatch(batch) {
  state.current = batch;
  state.order = [];
  const ol = $("rank-list");
  ol.replaceChildren(...batch.texts.map((t) => {
    const li = document.createElement("li");
    li.className = "rank-item";
    li.dataset.index = t.index;
    const badge = document.createElement("span");
    badge.className = "rank-badge";
    const text = document.createElement("span");
    text.className = "rank-text";
    text.textContent = t.text;
    const sel = document.createElement("select");
    sel.className = "cefr";
    sel.setAttribute("aria-label", "CEFR level");
    sel.append(new Option("CEFR level", ""), ...state.config.cefr_levels.map((l) => new Option(l, l)));
    sel.addEventListener("click", (ev) => ev.stopPropagation());
    sel.addEventListener("change", updateRankSubmit);
    li.append(badge, text, sel);
    li.addEventListener("click", () => rankClick(li));
    return li;
  }));
  updateRankSubmit();
  show("rank-view");
}

function rankClick(li) {
  const idx = Number(li.dataset.index);
  if (state.order.includes(idx)) return;
  state.order.push(idx);
  li.classList.add("ranked");
  li.querySelector(".rank-badge").textContent = String(state.order.length);
  updateRankSubmit();
}

function updateRankSubmit() {
  const items = [...document.querySelectorAll(".rank-item")];
  const rated = items.every((li) => li.querySelector("select").value);
  $("rank-submit").disabled = !(state.current && state.order.length === items.length && rated);
}

async function submitBatch() {
  if (state.busy) return;
  state.busy = true;
  const cefr = {};
  for (const li of document.querySelectorAll(".rank-item")) cefr[li.dataset.index] = li.querySelector("select").value;
  try {
    render(await api("/api/rank", {
      rater: state.rater, batch: state.current.batch, order: state.order, cefr,
      elapsed_ms: Math.round(performance.now() - state.shownAt),
    }));
  } catch (e) {
    setError(e.message);
  } finally {
    state.busy = false;
  }
}

// ---- session
function startRater(rater, name) {
  state.rater = rater;
  $("rater-name").textContent = name;
  $("rater-box").hidden = false;
}

async function signup(name) {
  const p = await api("/api/login", { name });
  // From now on this browser acts with the new personal token; the address bar shows the personal link.
  state.token = p.token;
  localStorage.setItem(TOKEN_KEY, p.token);
  history.replaceState(null, "", "/#token=" + p.token);
  $("my-link").value = linkFor(p.token);
  $("my-link-box").hidden = false;
  startRater(p.rater, name);
  render(p);
}

// ---- coordinator
async function refreshProgress() {
  const p = await api("/api/progress");
  $("coord-rows").replaceChildren(...p.raters.map((r) => {
    const tr = document.createElement("tr");
    tr.dataset.rater = r.name;
    const cells = [r.name, `${r.done}/${r.total}`, String(r.links)].map((t) => {
      const td = document.createElement("td");
      td.textContent = t;
      return td;
    });
    const actions = document.createElement("td");
    const dl = document.createElement("button");
    dl.type = "button";
    dl.className = "download";
    dl.textContent = "history";
    dl.addEventListener("click", () => downloadHistory(r.rater, r.name).catch((e) => { $("coord-error").textContent = e.message; }));
    const revoke = document.createElement("button");
    revoke.type = "button";
    revoke.className = "revoke";
    revoke.textContent = "revoke links";
    revoke.addEventListener("click", async () => {
      try { await api("/api/revoke", { name: r.name }); await refreshProgress(); } catch (e) { $("coord-error").textContent = e.message; }
    });
    actions.append(dl, revoke);
    tr.append(...cells, actions);
    return tr;
  }));
}

async function coordinator() {
  $("link-form").addEventListener("submit", async (ev) => {
    ev.preventDefault();
    $("coord-error").textContent = "";
    try {
      const p = await api("/api/links", { name: $("link-name").value.trim() });
      $("new-link-for").textContent = `Personal link of ${p.rater.replace(/^human:/, "")}:`;
      $("new-link").value = linkFor(p.token);
      $("new-link-for").hidden = $("new-link").hidden = false;
      await refreshProgress();
    } catch (e) { $("coord-error").textContent = e.message; }
  });
  await refreshProgress();
  show("coord-view");
}

function noAccess(msg) {
  $("noaccess-error").textContent = msg || "";
  show("noaccess-view");
}

async function main() {
  const fromLink = new URLSearchParams(location.hash.slice(1)).get("token");
  state.token = fromLink || localStorage.getItem(TOKEN_KEY);
  if (!state.token) return noAccess("");
  try {
    state.config = await api("/api/config");
  } catch (e) {
    if (e.status !== 403) throw e;
    if (!fromLink) localStorage.removeItem(TOKEN_KEY);
    return noAccess(e.message);
  }
  localStorage.setItem(TOKEN_KEY, state.token);
  $("title").textContent = state.config.title;
  $("instruction").textContent = state.config.instruction;
  renderGuideline(state.config.guideline);
  $("text-a").addEventListener("click", (ev) => choose("a", ev));
  $("text-b").addEventListener("click", (ev) => choose("b", ev));
  $("undo").addEventListener("click", undo);
  $("rank-reset").addEventListener("click", () => renderBatch(state.current));
  $("rank-submit").addEventListener("click", submitBatch);
  $("save-history").addEventListener("click", () => downloadHistory(state.rater, $("rater-name").textContent)
    .catch((e) => setError(e.message)));
  const access = state.config.access;
  if (access.role === "coordinator") return coordinator();
  if (access.role === "rater") {
    startRater(access.rater, access.name);
    return render(await api("/api/next"));
  }
  $("login-form").addEventListener("submit", async (ev) => {
    ev.preventDefault();
    $("login-error").textContent = "";
    try { await signup($("login-name").value.trim()); } catch (e) { $("login-error").textContent = e.message; }
  });
  show("login-view");
}

// Another link opened in this tab (only the #token= part differs): start again with it.
window.addEventListener("hashchange", () => location.reload());
main().catch((e) => setError(e.message));
