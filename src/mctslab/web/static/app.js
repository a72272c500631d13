// mctslab web page: plain JavaScript over the JSON API of mctslab.web.app.
"use strict";

const $ = (sel) => document.querySelector(sel);
let catalog = null;
let view = null;        // the latest session view shown
let events = null;      // the EventSource of the session
let treeBusy = false;

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
  try {
    const v = await api("POST", "/api/sessions", body);
    view = null;
    $("#tree").innerHTML = "";
    show(v);
    say("");
    listen(v.id);
  } catch (e) {
    say(e.message, true);
  }
}

function listen(id) {
  if (events) events.close();
  events = new EventSource(`/api/sessions/${id}/events`);
  events.addEventListener("view", (ev) => show(JSON.parse(ev.data)));
}

// -- the game ---------------------------------------------------------------------------------
function show(v) {
  if (view && v.id === view.id && v.version < view.version) return; // an older message
  view = v;
  $("#board").innerHTML = v.board_svg;
  $("#board").dataset.version = v.version;
  let status = v.status;
  if (v.thinking) status += " — thinking…";
  else if (v.paused && !v.terminal) status += " — paused";
  $("#status").textContent = status;
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
  if (v.message) say(v.message, true);
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
  if (s.proven) rows.push(["proven", s.proven > 0 ? "win" : "loss"]);
  stats.innerHTML = rows.map(([k, val]) => `<dt>${k}</dt><dd class="stat-${k.replace(/\W/g, "")}">${esc(val)}</dd>`).join("");
  $("#pv").textContent = s.pv.length ? `PV: ${s.pv.join(" ")}` : "";
  const top = Math.max(1, ...s.moves.map((m) => m.visits));
  body.innerHTML = s.moves.map((m) =>
    `<tr><td>${esc(m.move)}</td><td><span class="bar" style="width:${(3 * m.visits / top).toFixed(2)}em"></span>${m.visits.toLocaleString()}</td><td>${(100 * m.value).toFixed(1)}%</td></tr>`
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
async function showResults() {
  const box = $("#results-body");
  try {
    const r = await api("GET", "/api/results");
    box.innerHTML = window.renderResults ? window.renderResults(r) : `<pre>${esc(JSON.stringify(r, null, 2))}</pre>`;
  } catch (e) {
    box.textContent = e.message;
  }
}

// -- wiring -----------------------------------------------------------------------------------
function switchTab(name) {
  for (const t of document.querySelectorAll(".tab")) t.classList.toggle("active", t.dataset.tab === name);
  for (const p of document.querySelectorAll(".page")) p.hidden = p.id !== name;
  if (name === "results") showResults();
}

async function init() {
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
  for (const t of document.querySelectorAll(".tab")) t.addEventListener("click", () => switchTab(t.dataset.tab));
}

init().catch((e) => say(`could not load the page: ${e.message}`, true));
