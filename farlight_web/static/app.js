// The page: Play (a game against agents), Replay (any record, any seat), Leaderboard.
// Everything comes from the JSON API; the board is drawn by board.js from the API's view.
"use strict";

const $ = (sel) => document.querySelector(sel);
const params = new URLSearchParams(location.search);
const SPEED = params.has("speed") ? Number(params.get("speed")) : 350; // ms per opponent move
const POLL = params.has("poll") ? Number(params.get("poll")) : 1000; // ms between checks when waiting
const narrow = () => window.innerWidth < 900;

// Seat tokens, one per game this browser holds a seat in, kept in localStorage. Each request
// about a game sends its token (Authorization: Bearer); the list of games sends them all.
const TOKENS_KEY = "farlight:tokens";
function tokens() {
  try { return JSON.parse(localStorage.getItem(TOKENS_KEY) || "{}") || {}; } catch { return {}; }
}
function tokenFor(id) { return tokens()[id] || null; }
function keepToken(id, token) {
  const all = tokens();
  all[id] = token;
  localStorage.setItem(TOKENS_KEY, JSON.stringify(all));
}

async function api(method, path, body, raw, token) {
  const init = { method, headers: {} };
  if (body !== undefined) {
    init.body = raw ? body : JSON.stringify(body);
    init.headers["content-type"] = "application/json"; // every POST is JSON (uploads too)
  }
  if (token) init.headers.authorization = `Bearer ${token}`;
  const res = await fetch(path, init);
  const data = await res.json().catch(() => ({ error: `HTTP ${res.status}` }));
  if (!res.ok) throw new Error(data.error || `HTTP ${res.status}`);
  return data;
}
function status(id, message, isError) {
  const node = $(id);
  node.textContent = message;
  node.classList.toggle("error", !!isError);
}
function button(parent, label, onClick, cls) {
  const b = document.createElement("button");
  b.textContent = label;
  if (cls) b.className = cls;
  b.addEventListener("click", onClick);
  parent.appendChild(b);
  return b;
}

// ------------------------------------------------------------------------------ tabs
function showTab(name) {
  for (const t of document.querySelectorAll(".tab")) t.classList.toggle("active", t.dataset.tab === name);
  for (const p of document.querySelectorAll(".pane")) p.classList.toggle("hidden", p.id !== name);
  if (name === "replay") loadRecords();
  if (name === "leaderboard") loadLeaderboard();
}
for (const t of document.querySelectorAll(".tab")) t.addEventListener("click", () => showTab(t.dataset.tab));

// ------------------------------------------------------------------------------ play
const play = { game: null, busy: false, chosenSlot: null, poll: null };

// A form label from an option's name: "grid_size" -> "Grid size", as the page's own labels.
function labelText(name) {
  const words = name.replaceAll("_", " ");
  return words.charAt(0).toUpperCase() + words.slice(1);
}

// Another game than Farlight (#50): its board is the server's text for this seat, its
// decisions a list of buttons; a game chooser appears when the server knows more than one.
function isText(state) { return Boolean(state.game) && state.game !== "farlight"; }
function drawText(holder, text) {
  const pre = document.createElement("pre");
  pre.className = "game-text";
  pre.textContent = text; // text only, never markup
  holder.replaceChildren(pre);
  return pre;
}
function addGameChooser(games) {
  if (games.length < 2) return;
  const label = document.createElement("label");
  label.textContent = "Game";
  const sel = document.createElement("select");
  Object.assign(sel, { id: "game-name", name: "game" });
  for (const g of games) sel.appendChild(new Option(g.title, g.name));
  label.appendChild(sel);
  const opts = document.createElement("label");
  opts.textContent = "Its options";
  const input = document.createElement("input");
  Object.assign(input, { id: "game-options", name: "game_options", size: 18, placeholder: '{"name": value}' });
  opts.appendChild(input);
  sel.addEventListener("change", () => {
    const game = games.find((g) => g.name === sel.value);
    input.title = game.options.map((o) => `${o.name} (${o.default}): ${o.help}`).join("; ");
    $("#opponents").value = sel.value === "farlight" ? "heuristic" : game.agents[0];
  });
  $("#new-game").prepend(label, opts);
}

async function loadOptions() {
  const opts = await api("GET", "/api/options");
  addGameChooser(opts.games || []);
  const choices = [...opts.agents, `ismcts@N (N <= ${opts.max_ismcts_iterations})`, ...opts.policies];
  $("#opponents").title = "comma-separated, one per seat or one for all: " + choices.join(", ");
  const holder = $("#rules");
  // Every game option the server declares gets a field (the page's own fields, such as
  // #max-rounds, stay); empty means the option's default.
  for (const opt of opts.game_options) {
    if (opt.kind === "group" || document.querySelector(`#new-game [name="${opt.name}"]`)) continue;
    const label = document.createElement("label");
    label.title = `${opt.rule}: ${opt.help}`;
    label.textContent = labelText(opt.name);
    let input;
    if (opt.kind === "int") {
      input = document.createElement("input");
      Object.assign(input, { type: "number", min: opt.low, max: opt.high, size: 4, placeholder: String(opt.default) });
      if (opt.odd) input.step = 2;
    } else {
      input = document.createElement("select");
      const values = opt.kind === "bool" ? [true, false] : opt.choices;
      input.appendChild(new Option(`(${opt.default})`, ""));
      for (const v of values) input.appendChild(new Option(String(v), String(v)));
    }
    input.name = opt.name;
    input.id = opt.name.replaceAll("_", "-");
    input.dataset.option = opt.kind;
    label.appendChild(input);
    holder.before(label);
  }
  for (const rule of opts.rule_options) {
    const label = document.createElement("label");
    label.title = `${rule.rule}: ${rule.doc}`;
    label.textContent = labelText(rule.name);
    const sel = document.createElement("select");
    sel.name = "rule:" + rule.name;
    for (const v of rule.values) { const o = document.createElement("option"); o.textContent = v; sel.appendChild(o); }
    label.appendChild(sel);
    holder.appendChild(label);
  }
}
function syncSeats() {
  const n = Number($("#players").value);
  const seat = $("#seat");
  const keep = Math.min(Number(seat.value) || 0, n - 1);
  seat.replaceChildren(...Array.from({ length: n }, (_, i) => new Option(String(i), String(i))));
  seat.value = String(keep);
}
$("#players").addEventListener("change", syncSeats);

function fillForm(state) {
  // The new-game form shows the game on the page (after a reload, a resume or an invite):
  // players, seat, opponents, the other people's seats, rounds and rule options.
  $("#players").value = String(state.players.length);
  if ($("#game-name")) $("#game-name").value = state.game || "farlight";
  syncSeats();
  if (state.seat !== null && state.seat !== undefined) $("#seat").value = String(state.seat);
  const me = Number($("#seat").value);
  const bots = state.players.filter((p) => p !== "human");
  if (bots.length) $("#opponents").value = bots.every((b) => b === bots[0]) ? bots[0] : bots.join(", ");
  $("#invite").value = state.humans.filter((s) => s !== me).join(",");
  const config = state.config || {};
  $("#max-rounds").value = config.max_rounds === undefined ? "" : String(config.max_rounds);
  for (const el of document.querySelectorAll("#new-game [data-option]")) {
    el.value = config[el.name] === undefined ? "" : String(config[el.name]);
  }
  // The seed comes once the game is over, as a string (the server's own have 128 bits, more
  // than a JavaScript number holds); only a seed a player may choose (below 2^63) is kept.
  const reusable = state.seed !== undefined && BigInt(state.seed) < 2n ** 63n;
  $("#seed").value = reusable ? state.seed : "";
  for (const [name, value] of Object.entries(config.rule_options || {})) {
    const sel = document.querySelector(`#rules select[name="rule:${name}"]`);
    if (sel) sel.value = String(value);
  }
}

function ruleValue(text) { return text === "true" ? true : text === "false" ? false : text; }
function seatList(text) {
  return String(text || "").split(",").map((s) => s.trim()).filter(Boolean).map(Number);
}

function showInvites(state) {
  // Links for the other human seats: whoever opens one takes that seat (once).
  const box = $("#invites");
  box.replaceChildren();
  for (const inv of state.invites || []) {
    const label = document.createElement("label");
    label.textContent = `Invite P${inv.seat}: `;
    const input = document.createElement("input");
    input.readOnly = true;
    input.size = 60;
    input.className = "invite-link";
    input.dataset.seat = String(inv.seat);
    input.value = new URL(inv.link, location.href).href;
    input.addEventListener("focus", () => input.select());
    label.appendChild(input);
    box.appendChild(label);
  }
}

$("#new-game").addEventListener("submit", async (ev) => {
  ev.preventDefault();
  const form = new FormData(ev.target);
  const game = form.get("game") || "farlight";
  let body = {
    players: Number(form.get("players")),
    seat: Number(form.get("seat")),
    opponents: String(form.get("opponents")).split(",").map((s) => s.trim()).filter(Boolean),
    rule_options: {},
  };
  const invited = seatList(form.get("invite"));
  if (invited.length) body.humans = [body.seat, ...invited];
  if (form.get("seed") !== "") body.seed = Number(form.get("seed"));
  if (form.get("max_rounds") !== "") body.max_rounds = Number(form.get("max_rounds"));
  for (const el of document.querySelectorAll("#new-game [data-option]")) {
    if (el.value === "") continue;
    const kind = el.dataset.option;
    body[el.name] = kind === "int" ? Number(el.value) : kind === "bool" ? el.value === "true" : el.value;
  }
  for (const [k, v] of form.entries()) if (k.startsWith("rule:")) body.rule_options[k.slice(5)] = ruleValue(v);
  if (game !== "farlight") {
    const { players, seat, opponents, humans, seed } = body;
    body = { game, players, seat, opponents, humans, seed };
    try {
      if (form.get("game_options")) body.options = JSON.parse(form.get("game_options"));
    } catch (err) { status("#play-status", `Its options: not JSON (${err.message})`, true); return; }
  }
  try {
    status("#play-status", "Starting…");
    stopPolling();
    $("#intro").open = false; // the board needs the room; the summary line opens it again
    const state = await api("POST", "/api/games", body);
    keepToken(state.id, state.token);
    $("#log").replaceChildren();
    history.replaceState(null, "", `#game=${state.id}`);
    showInvites(state);
    await showMoves(state);
  } catch (err) { status("#play-status", err.message, true); }
});

async function resumeGame(id) {
  // A reload, a resume or an invite: the moves the server still keeps go into the log (with
  // what they set off), the form shows the game, then its decision.
  try {
    stopPolling();
    const state = await api("GET", `/api/games/${id}?since=0&views=0`, undefined, false, tokenFor(id));
    $("#log").replaceChildren();
    $("#invites").replaceChildren();
    $("#intro").open = false;
    history.replaceState(null, "", `#game=${id}`);
    showTab("play");
    const moves = state.moves || [];
    const earlier = moves.length ? moves[0].version - 1 : state.version;
    if (earlier > 0) {
      const li = document.createElement("li");
      li.className = "earlier";
      li.textContent = `${earlier} earlier move${earlier === 1 ? "" : "s"}: see the replay`;
      $("#log").appendChild(li);
    }
    for (const move of moves) logMove(move, state.seat);
    await optionsReady;
    fillForm(state);
    renderPlay(state);
  } catch (err) { status("#play-status", err.message, true); }
}

async function claimSeat(id, invite) {
  // An invite link: take the seat it opens, keep its token, then play as that seat.
  if (tokenFor(id)) {
    status("#play-status", "This browser already holds a seat in that game: open the invite link in another browser.", true);
    return resumeGame(id);
  }
  try {
    const state = await api("POST", `/api/games/${id}/claim`, { invite });
    keepToken(id, state.token);
    history.replaceState(null, "", `#game=${id}`);
    await resumeGame(id);
  } catch (err) {
    history.replaceState(null, "", `#game=${id}`);
    status("#play-status", err.message, true);
  }
}

async function loadSavedGames() {
  const holder = $("#saved-games");
  try {
    const held = Object.values(tokens()).join(" ");
    const games = await api("GET", "/api/games", undefined, false, held);
    holder.replaceChildren();
    const open = games.filter((g) => g.finished === false);
    if (!open.length) return;
    holder.append("Resume one of your unfinished games: ");
    for (const g of open.slice(-8)) {
      button(holder, `${g.id} (${(g.players || []).join(" v ")})`, () => resumeGame(g.id), "resume");
    }
  } catch (err) { holder.textContent = err.message; }
}

function stopPolling() {
  if (play.poll) clearTimeout(play.poll);
  play.poll = null;
}
function startPolling() {
  // Waiting for another human or for the bots: ask again (GET also lets the bots go on).
  stopPolling();
  play.poll = setTimeout(async () => {
    play.poll = null;
    const state = play.game;
    if (!state || state.over || state.your_turn || play.busy) return;
    try {
      const next = await api("GET", `/api/games/${state.id}?since=${state.version}`, undefined,
        false, tokenFor(state.id));
      if (play.game && play.game.id === state.id && !play.busy) await showMoves(next);
    } catch (err) {
      status("#play-status", err.message, true);
      startPolling();
    }
  }, POLL);
}

function sleep(ms) { return new Promise((r) => setTimeout(r, ms)); }

function eventList(events, cls) {
  // What a move set off (bid results with the price, automatic discards, the tiebreak).
  const ul = document.createElement("ul");
  ul.className = cls;
  for (const e of events) {
    const item = document.createElement("li");
    item.className = `event ${e.type}${e.you ? " you" : ""}`;
    item.textContent = e.text;
    ul.appendChild(item);
  }
  return ul;
}

function logMove(move, you) {
  const li = document.createElement("li");
  li.textContent = move.label;
  li.dataset.version = String(move.version);
  if (move.seat === you) li.className = "you";
  if (move.events && move.events.length) li.appendChild(eventList(move.events, "events"));
  const log = $("#log");
  log.appendChild(li);
  log.scrollTop = log.scrollHeight; // scroll the log box only, never the page
}

async function showMoves(state) {
  // Opponents' moves one by one (each with the human's view after it), then the decision.
  play.busy = true;
  $("#choices").replaceChildren();
  for (const move of state.moves || []) {
    logMove(move, state.seat);
    if (move.seat !== state.seat && SPEED > 0 && isText(state) && move.text !== undefined) {
      status("#play-status", move.label);
      drawText($("#play-board"), move.text);
      await sleep(SPEED);
    } else if (move.seat !== state.seat && SPEED > 0 && move.view) {
      status("#play-status", move.label);
      drawBoard($("#play-board"), move.view, { narrow: narrow(), names: state.players });
      await sleep(SPEED);
    }
  }
  play.busy = false;
  renderPlay(state);
}

function renderPlay(state) {
  play.game = state;
  play.chosenSlot = null;
  drawPlay();
}

function drawPlay() {
  const state = play.game;
  if (!state) return;
  if (isText(state)) { drawTextPlay(state); return; }
  const actions = state.your_turn ? state.actions : [];
  const bidSlots = new Set(actions.filter((a) => a.kind === "bid").map((a) => a.slot));
  const installs = actions.filter((a) => a.kind === "install");
  drawBoard($("#play-board"), state.view, {
    narrow: narrow(), names: state.players, bidSlots, chosenSlot: play.chosenSlot, installs,
    onTarget: (slot) => { if (!play.busy) { play.chosenSlot = slot; drawPlay(); } },
    onAction: (index) => choose(index),
  });
  const box = $("#choices");
  box.replaceChildren();
  const svg = $("#play-board svg");
  svg.dataset.state = state.over ? "over" : state.your_turn ? "your-turn" : "waiting";
  svg.dataset.round = String(state.view.round);
  svg.dataset.seat = state.seat === null ? "" : String(state.seat);
  if (endOrWait(state, box)) return;
  if (bidSlots.size) {
    status("#play-status", play.chosenSlot === null
      ? "Your bid: click a highlighted target on the station or a mission."
      : "Choose the tile to place:");
    if (play.chosenSlot !== null) {
      for (const a of actions.filter((x) => x.slot === play.chosenSlot)) {
        button(box, `tile ${a.tile}${a.crew ? " + crew" : ""}`, () => choose(a.index), "bid-choice");
      }
    }
  } else if (installs.length) {
    status("#play-status", `${state.view.note}: click a highlighted cell on your ship, or choose below.`);
  } else {
    status("#play-status", `Your decision: ${state.view.note}.`);
  }
  for (const a of actions.filter((x) => x.kind !== "bid" && x.kind !== "install")) {
    button(box, a.label, () => choose(a.index), "action-btn");
  }
  const all = document.createElement("details");
  all.innerHTML = `<summary>All ${actions.length} legal actions</summary>`;
  for (const a of actions) button(all, a.label, () => choose(a.index), "any-action");
  box.appendChild(all);
}

function endOrWait(state, box) {
  // The line under the board when the game is over or someone else decides (true), else false.
  const errors = (state.bot_errors || []).map((e) => `P${e.seat} (${e.agent}) ${e.error}`);
  $("#bot-errors").textContent = errors.join("; ");
  if (state.over) {
    const w = state.winners.map((s) => `P${s}${s === state.seat ? " (you)" : ""}`).join(", ");
    const tie = state.tiebreak ? ` Tiebreak: ${state.tiebreak}` : "";
    status("#play-status", `Game over. Scores ${state.scores.join(" / ")}; winner ${w}.${tie}`);
    button(box, "Replay this game", () => openReplay(state.record, null), "open-replay");
    loadSavedGames();
    return true;
  }
  if (!state.your_turn) {
    const who = state.humans.includes(state.turn) ? "another player" : "a bot";
    const you = state.seat === null ? "You are watching" : `You are P${state.seat}`;
    status("#play-status", `${you}. Waiting for P${state.turn} (${who})${state.thinking ? ", thinking" : ""}…`);
    startPolling();
    return true;
  }
  return false;
}

function drawTextPlay(state) {
  const pre = drawText($("#play-board"), state.text);
  pre.dataset.state = state.over ? "over" : state.your_turn ? "your-turn" : "waiting";
  const box = $("#choices");
  box.replaceChildren();
  if (endOrWait(state, box)) return;
  status("#play-status", `Your decision (${state.title}):`);
  for (const a of state.actions) button(box, a.label, () => choose(a.index), "action-btn");
}

async function choose(index) {
  if (play.busy || !play.game) return;
  play.busy = true;
  const svg = $("#play-board svg");
  if (svg) svg.dataset.state = "waiting";
  $("#choices").replaceChildren();
  try {
    const { id, version } = play.game;
    const state = await api("POST", `/api/games/${id}/actions`, { index, version }, false, tokenFor(id));
    await showMoves(state);
  } catch (err) {
    play.busy = false;
    status("#play-status", err.message, true);
  }
}

// ------------------------------------------------------------------------------ replay
const replay = { id: null, info: null, step: 0, viewer: null, asked: 0 };

async function loadRecords() {
  const sel = $("#record-file");
  try {
    const records = await api("GET", "/api/records");
    const current = sel.value;
    sel.replaceChildren(...records.map((r) => {
      const label = r.kind === "tournament"
        ? `${r.file} (tournament, ${r.games.length} games)` : `${r.file} (${(r.players || []).join(" v ")})`;
      return new Option(label, r.file);
    }));
    if (current) sel.value = current;
  } catch (err) { status("#replay-status", err.message, true); }
}
$("#open-record").addEventListener("click", () => {
  const game = $("#record-game").value;
  openReplay($("#record-file").value, game === "" ? null : Number(game));
});
$("#upload").addEventListener("change", async (ev) => {
  const file = ev.target.files[0];
  if (!file) return;
  const game = $("#record-game").value;
  try {
    const info = await api("POST", `/api/replays/upload${game === "" ? "" : "?game=" + game}`,
      await file.text(), true);
    startReplay(info);
  } catch (err) { status("#replay-status", err.message, true); }
});

async function openReplay(file, game) {
  showTab("replay");
  try {
    status("#replay-status", "Opening…");
    startReplay(await api("POST", "/api/replays", { file, game }));
  } catch (err) { status("#replay-status", err.message, true); }
}

function startReplay(info) {
  replay.id = info.id;
  replay.info = info;
  replay.step = 0;
  replay.viewer = null;
  $("#step").max = String(info.steps);
  $("#round").replaceChildren(...info.rounds.map((r) => new Option(`round ${r.round}`, String(r.step))));
  $("#viewer").replaceChildren(new Option("spectator", ""),
    ...info.players.map((p, s) => new Option(`P${s} ${p}`, String(s))));
  const who = info.players.map((p, s) => `P${s} ${p}`).join(", ");
  status("#replay-status", `${info.source}: ${who}; ${info.steps} decisions; ${info.scores ? "scores " + info.scores.join(" / ") : "unfinished"}`);
  showStep(0);
}
async function showStep(step) {
  if (!replay.id) return;
  replay.step = Math.max(0, Math.min(replay.info.steps, step));
  const viewer = replay.viewer === null ? "" : `&viewer=${replay.viewer}`;
  const asked = ++replay.asked; // answers may come back out of order: only the last one shows
  try {
    const data = await api("GET", `/api/replays/${replay.id}?step=${replay.step}${viewer}`);
    if (asked !== replay.asked) return;
    $("#step").value = String(data.step);
    $("#step-label").textContent = `${data.step}/${replay.info.steps}` + (data.move ? ` · ${data.move}` : " · start");
    $("#step-events").replaceChildren(...eventList(data.events || [], "").children);
    let round = replay.info.rounds[0];
    for (const r of replay.info.rounds) if (r.step <= data.step) round = r; // the round of this step
    if (round) $("#round").value = String(round.step);
    const svg = data.text !== undefined ? drawText($("#replay-board"), data.text)
      : drawBoard($("#replay-board"), data.view, { narrow: narrow(), names: replay.info.players });
    svg.dataset.step = String(data.step);
  } catch (err) { if (asked === replay.asked) status("#replay-status", err.message, true); }
}
$("#first").addEventListener("click", () => showStep(0));
$("#prev").addEventListener("click", () => showStep(replay.step - 1));
$("#next").addEventListener("click", () => showStep(replay.step + 1));
$("#last").addEventListener("click", () => showStep(replay.info ? replay.info.steps : 0));
$("#step").addEventListener("input", (ev) => showStep(Number(ev.target.value)));
$("#round").addEventListener("change", (ev) => showStep(Number(ev.target.value)));
$("#viewer").addEventListener("change", (ev) => {
  replay.viewer = ev.target.value === "" ? null : Number(ev.target.value);
  showStep(replay.step);
});
document.addEventListener("keydown", (ev) => {
  if ($("#replay").classList.contains("hidden") || ev.target.tagName === "INPUT") return;
  if (ev.key === "ArrowRight") showStep(replay.step + 1);
  if (ev.key === "ArrowLeft") showStep(replay.step - 1);
});

// ------------------------------------------------------------------------------ leaderboard
function pct(x) { return x === null || x === undefined ? "–" : (100 * x).toFixed(1) + "%"; }
function num(x, d = 2) { return typeof x === "number" ? x.toFixed(d) : "–"; }
function table(parent, heads, rows) {
  const t = document.createElement("table");
  const head = t.createTHead().insertRow();
  for (const h of heads) { const th = document.createElement("th"); th.textContent = h; head.appendChild(th); }
  const body = t.createTBody();
  for (const row of rows) {
    const tr = body.insertRow();
    for (const cell of row) {
      const td = tr.insertCell();
      if (cell instanceof Node) td.appendChild(cell); else td.textContent = cell;
    }
  }
  parent.appendChild(t);
  return t;
}
function heading(parent, text, level = "h3") {
  const h = document.createElement(level); h.textContent = text; parent.appendChild(h);
}
// A chart drawn in the page (SVG), one row per entry: a bar from the axis' start to `value`
// (opts.bars) or a dot at it, a whisker from `low` to `high` (the interval), a dashed tick at
// `mark` (a fair share), the value written at the right. opts: title, min, max, percent,
// colour (a colour or a function of the row). Rows whose value is null are labelled only.
const SVG = "http://www.w3.org/2000/svg";
function svg(parent, tag, attrs, content) {
  const node = document.createElementNS(SVG, tag);
  for (const [k, v] of Object.entries(attrs)) node.setAttribute(k, v);
  if (content !== undefined) node.textContent = content; // text only, never markup
  parent.appendChild(node);
  return node;
}
function chart(parent, rows, opts) {
  const W = 520, labelW = 150, right = 56, rowH = 20, top = 24, axisH = 20;
  const H = top + rows.length * rowH + axisH;
  const x0 = labelW + 8, x1 = W - right;
  const span = opts.max - opts.min || 1;
  const sx = (v) => x0 + ((Math.min(opts.max, Math.max(opts.min, v)) - opts.min) / span) * (x1 - x0);
  const fmt = (v) => (opts.percent ? `${Math.round(100 * v)}%` : v.toFixed(1));
  const node = svg(parent, "svg", { class: "chart", width: W, height: H, viewBox: `0 0 ${W} ${H}`,
    role: "img", "aria-label": opts.title });
  svg(node, "text", { x: 8, y: 16, class: "chart-title" }, opts.title);
  // about four ticks a round step apart (1, 2 or 5 times a power of ten; 25% for shares)
  const raw = span / 4, unit = 10 ** Math.floor(Math.log10(raw));
  const step = opts.percent ? 0.25 : unit * ([1, 2, 5].find((m) => m * unit >= raw) || 10);
  for (let v = Math.ceil(opts.min / step) * step; v <= opts.max + 1e-9; v += step) {
    const x = sx(v);
    svg(node, "line", { x1: x, x2: x, y1: top - 4, y2: H - axisH, class: "grid" });
    svg(node, "text", { x, y: H - 6, "text-anchor": "middle", class: "tick" },
      opts.percent ? fmt(v) : String(Math.round(v * 1e6) / 1e6));
  }
  rows.forEach((r, i) => {
    const y = top + i * rowH, mid = y + rowH / 2;
    const g = svg(node, "g", { class: "chart-row" });
    svg(g, "title", {}, r.title || r.label);
    svg(g, "text", { x: labelW, y: mid + 4, "text-anchor": "end", class: "label" },
      r.label.length > 24 ? r.label.slice(0, 23) + "…" : r.label);
    if (typeof r.mark === "number") {
      svg(g, "line", { x1: sx(r.mark), x2: sx(r.mark), y1: y + 1, y2: y + rowH - 1, class: "mark" });
    }
    if (typeof r.value !== "number") return;
    const fill = typeof opts.colour === "function" ? opts.colour(r) : opts.colour;
    if (opts.bars) {
      const from = sx(Math.max(opts.min, 0));
      svg(g, "rect", { x: Math.min(from, sx(r.value)), y: y + 4, height: rowH - 8, fill,
        width: Math.max(1, Math.abs(sx(r.value) - from)), class: "bar" });
    } else {
      svg(g, "circle", { cx: sx(r.value), cy: mid, r: 4, fill, class: "dot" });
    }
    if (typeof r.low === "number" && typeof r.high === "number") {
      const a = sx(r.low), b = sx(r.high);
      svg(g, "path", { d: `M${a} ${mid - 4}v8M${a} ${mid}H${b}M${b} ${mid - 4}v8`, class: "whisker" });
    }
    svg(g, "text", { x: W - 6, y: mid + 4, "text-anchor": "end", class: "value" }, fmt(r.value));
  });
  return node;
}
const OPPONENT_COLOURS = { random: "#8C8C8C", heuristic: "#4C72B0", ismcts: "#C44E52" }; // as scorecard.png

// A tournament's ratings as two charts, as ratings.png draws them: win rate with its 95%
// interval (fair share 1/N marked), and the OpenSkill rating mu ± sigma.
function tournamentCharts(parent, t, rows) {
  const box = document.createElement("div");
  box.className = "charts";
  const label = (r) => String(r.agent);
  const fair = t.num_players ? 1 / t.num_players : null;
  chart(box, rows.map((r) => ({ label: label(r), value: r.win_rate, low: r.win_low, high: r.win_high,
    mark: fair, title: `${label(r)}: win rate ${pct(r.win_rate)} (${pct(r.win_low)} – ${pct(r.win_high)})` })),
  { title: "win rate (95% interval; dashes: fair share)", min: 0, max: 1, percent: true, bars: true,
    colour: "#4C72B0" });
  const rated = rows.filter((r) => typeof r.mu === "number" && typeof r.sigma === "number");
  if (rated.length) {
    let lo = Math.min(...rated.map((r) => r.mu - r.sigma)), hi = Math.max(...rated.map((r) => r.mu + r.sigma));
    const pad = Math.max(1, (hi - lo) * 0.1);
    lo = Math.floor(lo - pad); hi = Math.ceil(hi + pad);
    chart(box, rows.map((r) => ({ label: label(r), value: r.mu,
      low: typeof r.sigma === "number" ? r.mu - r.sigma : null,
      high: typeof r.sigma === "number" ? r.mu + r.sigma : null,
      title: `${label(r)}: rating μ ${num(r.mu)} ± σ ${num(r.sigma)}` })),
    { title: "rating (OpenSkill μ ± σ)", min: lo, max: hi, colour: "#DD8452" });
  }
  parent.appendChild(box);
}

// A scorecard as scorecard.png draws it: the agent's win rate per player count and opponent
// with its 95% interval and the fair share, then the best response's, when there is one.
function scorecardChart(parent, s) {
  const box = document.createElement("div");
  box.className = "charts";
  const rows = [...s.cells].sort((a, b) => a.players - b.players).map((c) => ({
    label: `${c.players} players vs ${c.opponent}`, value: c.win_rate, low: c.ci_low,
    high: c.ci_high, mark: c.fair_share, opponent: c.opponent,
    title: `${c.players} players vs ${c.opponent}: ${pct(c.win_rate)} (${pct(c.ci_low)} – ${pct(c.ci_high)}) of ${c.games} games`,
  }));
  const e = s.exploitability;
  if (e) {
    rows.push({ label: `best response, ${e.players} players`, value: e.win_rate, low: e.ci_low,
      high: e.ci_high, mark: e.win_rate - e.gap, opponent: "best response",
      title: `a best response wins ${pct(e.win_rate)} (${pct(e.ci_low)} – ${pct(e.ci_high)}): gap ${pct(e.gap)}` });
  }
  chart(box, rows, { title: `${s.agent}: win rate (95% interval; dashes: fair share)`, min: 0,
    max: 1, percent: true, bars: true,
    colour: (r) => OPPONENT_COLOURS[r.opponent] || "#DD8452" });
  parent.appendChild(box);
}

// What a tournament played, as its title: "3-player tournament, 12 games, seed 7" (the words
// of ratings.png's title), then whether it was sealed or is still being played.
function tournamentTitle(t) {
  const games = `${t.total_games} game${t.total_games === 1 ? "" : "s"}`;
  const bits = [t.num_players ? `${t.num_players}-player tournament` : "tournament",
    t.kind === "journal" ? `${games} so far` : games];
  if (t.seed !== null && t.seed !== undefined) bits.push(`seed ${t.seed}`);
  if (t.sealed) bits.push("sealed");
  if (t.kind === "journal") bits.push("in progress");
  return bits.join(", ");
}

// Whether a scorecard may rank a submitted agent: held-out deals, played sealed.
function comparisonTag(card) {
  const tag = document.createElement("span");
  const counts = card.seed_mode === "held-out" && card.sealed;
  tag.className = counts ? "counts" : "dev-only";
  tag.textContent = counts ? "held-out · sealed" : "development only";
  tag.title = counts
    ? "deals from a secret drawn at the start of the run, the policy in its own box: counts for comparison"
    : `${card.seed_mode === "held-out" ? "held-out deals" : "published deals"}, ` +
      `${card.sealed ? "sealed" : "not sealed"}: does not count for comparison between submitted agents`;
  return tag;
}
async function loadLeaderboard() {
  const box = $("#boards");
  box.textContent = "Loading…";
  let data;
  try { data = await api("GET", "/api/leaderboard"); } catch (err) { box.textContent = err.message; return; }
  box.replaceChildren();
  heading(box, "Tournaments", "h2");
  if (!data.tournaments.length) box.append("No results.json or tournament journal in the data folder.");
  for (const t of data.tournaments) {
    const section = document.createElement("section");
    section.className = "tournament";
    section.dataset.file = t.file;
    box.appendChild(section);
    if (t.error) {
      heading(section, `${t.file}${t.kind === "journal" ? " (in progress)" : ""}`);
      const p = document.createElement("p"); p.className = "flag"; p.textContent = `skipped: ${t.error}`; section.appendChild(p); continue;
    }
    heading(section, tournamentTitle(t));
    const file = document.createElement("span");
    file.className = "file";
    file.textContent = t.file;
    section.lastChild.append(" ", file);
    const rows = [...t.summary].sort((a, b) => (b.rating ?? -1e9) - (a.rating ?? -1e9));
    tournamentCharts(section, t, rows);
    table(section, ["agent", "seats", "wins", "win rate", "95% interval", "mean score", "rating μ ± σ", "ordinal"],
      rows.map((r) => [r.agent, r.seats_played, num(r.wins, 1), pct(r.win_rate),
        `${pct(r.win_low)} – ${pct(r.win_high)}`, num(r.mean_score, 1), `${num(r.mu)} ± ${num(r.sigma)}`,
        num(r.rating)]));
    const details = document.createElement("details");
    details.innerHTML = `<summary>${t.total_games} games</summary>`;
    table(details, ["game", "players", "scores", "winners", ""], t.games.map((g) => {
      const a = document.createElement("a");
      a.href = "#"; a.textContent = "replay"; a.className = "replay-link";
      a.addEventListener("click", (ev) => { ev.preventDefault(); openReplay(t.file, g.index); });
      return [g.index, (g.players || []).join(", "), (g.scores || []).join(" / "),
        (g.winners || []).map((s) => "P" + s).join(", "), a];
    }));
    section.appendChild(details);
  }
  heading(box, "Evaluation scorecards", "h2");
  const rule = document.createElement("p");
  rule.className = "comparison-rule";
  rule.textContent = "Only held-out sealed scorecards (farlight evaluate --held-out, with --sealed or --protocol v2) " +
    "compare agents submitted by others: published deals can be memorized, and an unsealed " +
    "policy can read the game.";
  box.appendChild(rule);
  if (!data.scorecards.length) box.append("No scorecard.json (farlight evaluate) in the data folder.");
  for (const s of data.scorecards) {
    const section = document.createElement("section");
    section.className = "scorecard";
    section.dataset.file = s.file;
    box.appendChild(section);
    heading(section, s.file);
    if (!s.error) section.lastChild.append(" ", comparisonTag(s));
    if (s.quick) {
      const tag = document.createElement("span");
      tag.className = "quick";
      tag.textContent = "quick";
      tag.title = "farlight evaluate --quick: a subset of the protocol, not the full evaluation";
      section.lastChild.append(" ", tag);
    }
    if (s.error) { const p = document.createElement("p"); p.className = "flag"; p.textContent = `skipped: ${s.error}`; section.appendChild(p); continue; }
    const p = document.createElement("p");
    p.textContent = `${s.agent} · protocol ${s.protocol}${s.quick ? " (quick subset)" : ""} · rating μ ${num(s.rating.mu)} ± σ ${num(s.rating.sigma)}`;
    section.appendChild(p);
    scorecardChart(section, s);
    table(section, ["players", "opponent", "games", "wins", "win rate", "95% interval", "fair share", "mean margin"],
      s.cells.map((c) => [c.players, c.opponent, c.games, num(c.wins, 1), pct(c.win_rate),
        `${pct(c.ci_low)} – ${pct(c.ci_high)}`, pct(c.fair_share), num(c.mean_margin, 1)]));
    const e = s.exploitability;
    if (e) {
      const line = document.createElement("p");
      line.className = "exploitability";
      line.textContent = `exploitability (${e.players} players): a best response trained ` +
        `${e.budget.toLocaleString("en")} steps from ${e.init_from} wins ${pct(e.win_rate)} ` +
        `(${pct(e.ci_low)} – ${pct(e.ci_high)}) of ${e.games} games: gap ` +
        `${e.gap >= 0 ? "+" : ""}${pct(e.gap)}, margin ${num(e.mean_margin, 1)}` +
        `${s.sealed ? " · sealed" : ""}`;
      section.appendChild(line);
    }
  }
}

// ------------------------------------------------------------------------------ start
window.addEventListener("resize", () => {
  if (play.game && !play.busy) drawPlay();
});
syncSeats();
const optionsReady = loadOptions().catch((err) => status("#play-status", err.message, true));
loadSavedGames();
const fromHash = location.hash.match(/^#game=([0-9a-f]{12})(?:&invite=([A-Za-z0-9_-]{1,100}))?$/);
if (fromHash && fromHash[2]) claimSeat(fromHash[1], fromHash[2]);
else if (fromHash) resumeGame(fromHash[1]);
