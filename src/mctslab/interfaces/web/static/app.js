// mctslab web page: plain JavaScript over the JSON API of mctslab.interfaces.web.app.
"use strict";

const $ = (sel) => document.querySelector(sel);
let catalog = null;
let view = null;        // the latest session view shown
let events = null;      // the EventSource of the session
let opening = 0;        // counts requests that open a session: only the latest one's answer is shown
let treeBusy = false;
const LAST_SESSION = "mctslab-last-session"; // localStorage key: the id of the last game played
// Starting a game makes its agents, which compiles their search on an agent's first game after
// installing or upgrading (a minute or two; `mctslab compile` does it ahead of time): said when a
// start takes longer than SLOW_START_MS.
const SLOW_START_MS = 4000;
const SLOW_START = "Starting… an agent's first game after installing or upgrading mctslab " +
  "compiles its search: up to two minutes, once (`mctslab compile` does it ahead of time)";

async function api(method, url, body) {
  const opts = { method, headers: {} };
  if (body !== undefined) {
    opts.headers["Content-Type"] = "application/json";
    opts.body = JSON.stringify(body);
  }
  const r = await fetch(url, opts);
  const data = await r.json().catch(() => ({ error: `HTTP ${r.status}` }));
  if (!r.ok) throw new Error(data.error || `HTTP ${r.status}`);
  return data;
}

function esc(text) {
  return String(text).replace(/[&<>"']/g, (c) => ({ "&": "&amp;", "<": "&lt;", ">": "&gt;", '"': "&quot;", "'": "&#39;" })[c]);
}

function say(text, isError) {
  const m = $("#message");
  m.textContent = text || "";
  m.className = isError ? "error" : "";
}

// -- new-game form ----------------------------------------------------------------------------
function gameInfo(name) { return catalog.games.find((g) => g.name === name); }

function buildParams() {
  const g = gameInfo($("#game-name").value);
  const box = $("#game-params");
  box.innerHTML = "";
  for (const [key, p] of Object.entries(g.params)) {
    const label = document.createElement("label");
    label.title = p.description || "";
    let input;
    if (p.type === "boolean") {
      input = document.createElement("input");
      input.type = "checkbox";
      input.checked = !!p.default;
    } else if (p.enum) {
      input = document.createElement("select");
      for (const v of p.enum) input.add(new Option(v, v, false, v === p.default));
    } else {
      input = document.createElement("input");
      input.type = p.type === "integer" || p.type === "number" ? "number" : "text";
      if (p.minimum !== undefined) input.min = p.minimum;
      if (p.maximum !== undefined) input.max = p.maximum;
      if (p.default !== undefined && p.default !== null) input.value = p.default;
    }
    input.dataset.key = key;
    input.className = "param";
    label.append(`${key} `, input);
    box.append(label);
  }
  const players = $("#players");
  const old = [...players.querySelectorAll("input")].map((i) => i.value);
  players.innerHTML = "";
  for (let i = 0; i < g.players; i++) {
    const label = document.createElement("label");
    const input = document.createElement("input");
    input.setAttribute("list", "player-choices");
    input.className = "player";
    input.value = old[i] || catalog.default_players[i] || "human";
    label.append(g.players === 1 ? "Player " : `Player ${i + 1}${i === 0 ? " (moves first)" : ""} `, input);
    players.append(label);
  }
}

function gameSpec() {
  const name = $("#game-name").value;
  const g = gameInfo(name);
  const parts = [];
  for (const input of document.querySelectorAll("#game-params .param")) {
    const key = input.dataset.key;
    const value = input.type === "checkbox" ? String(input.checked) : input.value.trim();
    if (value === "" || value === String(g.params[key].default)) continue;
    parts.push(`${key}=${value}`);
  }
  return parts.length ? `${name}(${parts.join(",")})` : name;
}

async function newGame(ev) {
  if (ev) ev.preventDefault();
  const body = {
    game: gameSpec(),
    players: [...document.querySelectorAll("#players .player")].map((i) => i.value.trim()),
  };
  const seed = $("#seed").value.trim();
  if (seed !== "") body.seed = Number(seed);
  say("Starting…");
  const ticket = ++opening;
  const slow = setTimeout(() => { if (ticket === opening) say(SLOW_START); }, SLOW_START_MS);
  try {
    const v = await api("POST", "/api/sessions", body);
    if (ticket !== opening) return; // a newer game was asked for while this one started
    adopt(v);
    say("");
    localStorage.setItem(LAST_SESSION, v.id);
  } catch (e) {
    if (ticket === opening) say(e.message, true);
  } finally {
    clearTimeout(slow);
  }
}

// Make `v`'s session the one this page shows and follows.
function adopt(v) {
  view = null; // show() then takes v, and from then on drops views of any other session
  $("#tree").innerHTML = "";
  show(v);
  listen(v.id);
}

// The page opens on a board ready to play: the last game played in this browser if the server
// still has it and it is not over, else a new game from the form's defaults (NoGo 9x9, you
// against the default agent).
async function openLastOrNew() {
  const last = localStorage.getItem(LAST_SESSION);
  if (last) {
    const ticket = ++opening;
    try {
      const v = await api("GET", `/api/sessions/${encodeURIComponent(last)}`);
      if (ticket !== opening) return; // the visitor started a game meanwhile
      if (!v.terminal) {
        adopt(v);
        return;
      }
    } catch (e) {
      localStorage.removeItem(LAST_SESSION);
    }
    if (ticket !== opening) return;
  }
  await newGame();
}

function listen(id) {
  if (events) events.close();
  events = new EventSource(`/api/sessions/${id}/events`);
  events.addEventListener("view", (ev) => show(JSON.parse(ev.data)));
}

// -- the game ---------------------------------------------------------------------------------
function show(v) {
  // an answer about a game this page has left, or an older message
  if (view && (v.id !== view.id || v.version < view.version)) return;
  view = v;
  $("#board").innerHTML = v.board_svg;
  $("#board").dataset.version = v.version;
  let status = v.status;
  if (v.thinking) status += " — thinking…";
  else if (v.paused && !v.terminal) status += " — paused";
  else if (v.human_to_move && !v.terminal) status += " — your move";
  $("#status").textContent = status;
  const info = gameInfo(v.game_name); // the rules in one line, for a visitor new to the game
  $("#rules").textContent = info ? info.description : "";
  const stats = v.search ? v.search.moves : [];
  const buttons = $("#buttons");
  buttons.innerHTML = "";
  for (const b of v.buttons) {
    const btn = document.createElement("button");
    btn.type = "button";
    btn.dataset.action = b.action;
    const s = stats.find((m) => m.action === b.action);
    btn.innerHTML = esc(b.move) + (s && v.search_shown_on_board ? ` <span class="stat">${s.visits} · ${(100 * s.value).toFixed(0)}%</span>` : "");
    buttons.append(btn);
  }
  if (v.message) say(v.message, v.resigned == null); // a resignation is news, not an error
  $("#undo").disabled = !v.can_undo;
  $("#stop").disabled = !v.thinking;
  $("#resume").disabled = v.thinking || v.terminal || v.human_to_move;
  const list = $("#move-list");
  list.innerHTML = v.moves.map((m) => `<li>${esc(m)}</li>`).join("");
  list.scrollTop = list.scrollHeight;
  showSearch(v.search);
  if ($("#tree-live").checked && v.search && v.search.has_tree) drawTree(true);
}

function showSearch(s) {
  const stats = $("#stats");
  const body = $("#moves tbody");
  if (!s) {
    stats.innerHTML = "";
    body.innerHTML = "";
    $("#pv").textContent = "";
    $("#search-state").textContent = "";
    return;
  }
  $("#search-state").textContent = s.running ? "running" : "finished";
  $("#search-state").className = s.running ? "running" : "";
  const rows = [
    ["agent", s.agent],
    ["simulations", s.simulations.toLocaleString()],
    ["sims/s", s.sims_per_second.toLocaleString()],
    ["tree nodes", s.nodes.toLocaleString()],
    ["max depth", s.depth_max],
    ["best move", `${s.move} (${(100 * s.win_ratio).toFixed(1)}%)`],
  ];
  if (s.network_value !== null && s.network_value !== undefined) {
    rows.push(["network value", `${(100 * s.network_value).toFixed(1)}%`]);
  }
  if (s.proven) {
    const verdict = { 1: "win", "-1": "loss" }[s.proven];
    rows.push(["proven", verdict || `exact value ${s.solved_value.toFixed(6)}`]);
  }
  stats.innerHTML = rows.map(([k, val]) => `<dt>${k}</dt><dd class="stat-${k.replace(/\W/g, "")}">${esc(val)}</dd>`).join("");
  $("#pv").textContent = s.pv.length ? `PV: ${s.pv.join(" ")}` : "";
  const top = Math.max(1, ...s.moves.map((m) => m.visits));
  const withPriors = s.moves.some((m) => m.prior !== undefined);
  $("#moves thead tr").innerHTML = "<th>move</th><th>visits</th><th>win rate</th>" + (withPriors ? "<th>prior</th>" : "");
  body.innerHTML = s.moves.map((m) =>
    `<tr><td>${esc(m.move)}</td><td><span class="bar" style="width:${(3 * m.visits / top).toFixed(2)}em"></span>${m.visits.toLocaleString()}</td><td>${(100 * m.value).toFixed(1)}%</td>` +
    (withPriors ? `<td class="prior">${m.prior === undefined ? "" : (100 * m.prior).toFixed(1) + "%"}</td>` : "") + "</tr>"
  ).join("");
}

async function play(body) {
  if (!view) return;
  try {
    show(await api("POST", `/api/sessions/${view.id}/move`, body));
    say("");
  } catch (e) {
    say(e.message, true);
  }
}

async function command(name) {
  if (!view) return;
  try {
    show(await api("POST", `/api/sessions/${view.id}/${name}`));
    if (name !== "stop") say("");
  } catch (e) {
    say(e.message, true);
  }
}

async function drawTree(quiet) {
  if (!view || treeBusy) return;
  treeBusy = true;
  const depth = $("#tree-depth").value, width = $("#tree-width").value;
  try {
    const r = await fetch(`/api/sessions/${view.id}/tree.svg?depth=${depth}&width=${width}`);
    if (r.ok) $("#tree").innerHTML = await r.text();
    else if (!quiet) $("#tree").textContent = (await r.json()).error;
  } catch (e) {
    if (!quiet) $("#tree").textContent = e.message;
  } finally {
    treeBusy = false;
  }
}

// -- results ----------------------------------------------------------------------------------
let replay = null;      // {db, run, index, step, total}
const enc = encodeURIComponent;
const pct = (x) => (x === null || x === undefined ? "–" : `${(100 * x).toFixed(1)}%`);

async function showResults() {
  const box = $("#results-body");
  try {
    const r = await api("GET", "/api/results");
    const dbs = r.databases.map((d) => `<li><a class="link db-link" data-db="${esc(d.name)}">${esc(d.name)}</a> <small>${(d.bytes / 1024).toFixed(0)} KiB</small></li>`).join("");
    const reps = r.reports.map((d) => `<li><a class="link report-link" data-report="${esc(d.name)}">${esc(d.name)}</a></li>`).join("");
    box.innerHTML = `<p>Folder <code>${esc(r.dir)}</code>${r.exists ? "" : " (does not exist)"}</p>
      <div class="results-grid">
        <div><h3>Databases</h3><ul id="results-dbs">${dbs || "<li>none</li>"}</ul></div>
        <div><h3>Reports</h3><ul id="results-reports">${reps || "<li>none</li>"}</ul></div>
      </div>
      <div id="results-detail"></div>
      <div id="results-games"></div>
      <div id="replay"></div>`;
  } catch (e) {
    box.textContent = e.message;
  }
}

function resultsError(where, e) { $(where).innerHTML = `<p class="error">${esc(e.message)}</p>`; }

async function showRuns(db) {
  $("#results-games").innerHTML = "";
  $("#replay").innerHTML = "";
  try {
    const r = await api("GET", `/api/results/${enc(db)}/runs`);
    const rows = r.runs.map((x) => `<tr><td>${x.id}</td><td>${esc(x.label)}</td><td>${esc(x.games.join(", "))}</td>
      <td class="spec">${esc(x.agent_a)}</td><td class="spec">${esc(x.agent_b)}</td><td>${x.played}</td>
      <td>${x.wins}/${x.draws}/${x.losses}</td><td>${x.agent_b ? `${pct(x.rate_a)} [${pct(x.wilson95[0])}, ${pct(x.wilson95[1])}]` : `mean score ${Math.round(x.mean_score ?? 0)}`}</td>
      <td><a class="link run-link" data-db="${esc(db)}" data-run="${x.id}">games</a></td></tr>`).join("");
    $("#results-detail").innerHTML = `<h3>${esc(db)}: runs</h3><table class="data" id="results-runs">
      <thead><tr><th>run</th><th>label</th><th>game</th><th>A</th><th>B</th><th>games</th><th>A W/D/L</th><th>A's score (Wilson 95%)</th><th></th></tr></thead>
      <tbody>${rows}</tbody></table>`;
  } catch (e) { resultsError("#results-detail", e); }
}

async function showGames(db, run) {
  $("#replay").innerHTML = "";
  try {
    const r = await api("GET", `/api/results/${enc(db)}/runs/${run}/games`);
    const rows = r.games.map((g) => `<tr><td>${g.index}</td><td>${esc(g.game)}</td><td>${g.seat_a === 0 ? "first" : "second"}</td>
      <td>${g.score_a}</td><td>${g.moves}</td><td><a class="link game-link" data-db="${esc(db)}" data-run="${run}" data-index="${g.index}">replay</a></td></tr>`).join("");
    $("#results-games").innerHTML = `<h3>Run ${run}: games</h3><table class="data" id="results-game-list">
      <thead><tr><th>#</th><th>game</th><th>A moved</th><th>A's score</th><th>moves</th><th></th></tr></thead><tbody>${rows}</tbody></table>`;
  } catch (e) { resultsError("#results-games", e); }
}

async function showReplay(step) {
  const { db, run, index } = replay;
  try {
    const q = step === undefined ? "?step=0" : `?step=${step}`;
    const g = await api("GET", `/api/results/${enc(db)}/games/${run}/${index}${q}`);
    replay.step = g.step;
    replay.total = g.moves.length;
    const moves = g.moves.map((m, i) => `<li class="${i < g.step ? "played" : ""}">${esc(m)}</li>`).join("");
    $("#replay").innerHTML = `<h3>Run ${run}, game ${index}: ${esc(g.game)}</h3>
      <p class="spec">${g.players.map((p, i) => `${i + 1}. ${esc(p)}`).join("<br>")}<br>returns ${esc(g.returns.join(", "))}</p>
      <div class="controls"><button type="button" id="replay-first">|◀</button><button type="button" id="replay-prev">◀</button>
      <span id="replay-step">${g.step} / ${g.moves.length}</span>
      <button type="button" id="replay-next">▶</button><button type="button" id="replay-last">▶|</button></div>
      <div id="replay-board" class="replay-board">${g.board_svg}</div>
      <ol id="replay-moves">${moves}</ol>`;
    $("#replay-first").disabled = $("#replay-prev").disabled = g.step === 0;
    $("#replay-next").disabled = $("#replay-last").disabled = g.step === g.moves.length;
  } catch (e) { resultsError("#replay", e); }
}

async function showReport(name) {
  $("#results-games").innerHTML = "";
  $("#replay").innerHTML = "";
  try {
    const r = await api("GET", `/api/results/reports/${enc(name)}`);
    $("#results-detail").innerHTML = `<article class="report" id="report">${r.html}</article>`;
  } catch (e) { resultsError("#results-detail", e); }
}

function resultsClick(ev) {
  const t = ev.target.closest("a, button");
  if (!t) return;
  if (t.classList.contains("db-link")) showRuns(t.dataset.db);
  else if (t.classList.contains("report-link")) showReport(t.dataset.report);
  else if (t.classList.contains("run-link")) showGames(t.dataset.db, Number(t.dataset.run));
  else if (t.classList.contains("game-link")) {
    replay = { db: t.dataset.db, run: Number(t.dataset.run), index: Number(t.dataset.index), step: 0 };
    showReplay(0);
  } else if (replay && t.id === "replay-next") showReplay(replay.step + 1);
  else if (replay && t.id === "replay-prev") showReplay(replay.step - 1);
  else if (replay && t.id === "replay-first") showReplay(0);
  else if (replay && t.id === "replay-last") showReplay(replay.total);
}

// -- wiring -----------------------------------------------------------------------------------
function switchTab(name) {
  for (const t of document.querySelectorAll(".tab")) t.classList.toggle("active", t.dataset.tab === name);
  for (const p of document.querySelectorAll(".page")) p.hidden = p.id !== name;
  if (name === "results") showResults();
}

async function init() {
  // the tabs and the results view need nothing from the server's catalog: they work from the
  // first click, even while the catalog is still on its way
  for (const t of document.querySelectorAll(".tab")) t.addEventListener("click", () => switchTab(t.dataset.tab));
  $("#results-body").addEventListener("click", resultsClick);
  catalog = await api("GET", "/api/catalog");
  const sel = $("#game-name");
  for (const g of catalog.games) sel.add(new Option(g.name, g.name));
  sel.value = catalog.games.some((g) => g.name === "nogo") ? "nogo" : catalog.games[0].name;
  $("#agent-help").textContent = catalog.agents;
  sel.addEventListener("change", buildParams);
  buildParams();
  $("#new-game").addEventListener("submit", newGame);
  $("#board").addEventListener("click", (ev) => {
    const t = ev.target.closest("[data-action]");
    if (t) play({ action: Number(t.dataset.action) });
  });
  $("#buttons").addEventListener("click", (ev) => {
    const t = ev.target.closest("[data-action]");
    if (t) play({ action: Number(t.dataset.action) });
  });
  document.addEventListener("keydown", (ev) => {
    const keys = { ArrowLeft: "left", ArrowRight: "right", ArrowUp: "up", ArrowDown: "down" };
    if (view && view.game_name === "2048" && keys[ev.key] && view.human_to_move) {
      ev.preventDefault();
      play({ move: keys[ev.key] });
    }
  });
  $("#undo").addEventListener("click", () => command("undo"));
  $("#stop").addEventListener("click", () => command("stop"));
  $("#resume").addEventListener("click", () => command("resume"));
  $("#draw-tree").addEventListener("click", () => drawTree(false));
  await openLastOrNew();
}

init().catch((e) => say(`could not load the page: ${e.message}`, true));
