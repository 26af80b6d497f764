// The Sheep Race at the table: the page of `sheepsim serve`.
// Plain JavaScript, no library. The state is the position string plus the bets; the
// page draws the board from the rules the server sends (/api/race/rules) and asks
// /api/race/ev and /api/race/advise (the same answers as the CLI) after every change.
"use strict";

const SIMULATED_GAMES = 40000; // races per odds/EV answer when the pace policy is simulated
const DEBOUNCE_MS = 60;
const TIE = 1e-9; // exact expected points closer than this are equal options
const COLOURS = ["red", "blue", "white"];
const PLACES = ["1st", "2nd", "3rd"];

let rules = null;
const state = {
  stage: "semifinal",
  lanes: [],          // six card names
  sheep: [],          // six {status, square, red, blue, white, place}
  supply: null,       // null: what the cards shown leave in the supply
  policy: "greedy",
  open: null,         // your open bet (lane 1-6)
  hidden: new Set(),  // your hidden bets
  rival: new Set(),   // lanes other players bet openly
  mover: null,        // the lane the dice chose (pace advice)
  text: "",           // the position string sent to the API
};
let seq = 0;          // answers to older questions are dropped
let changes = 0;      // body[data-ready] once the answer to the latest change is shown
let timer = null;

const $ = (id) => document.getElementById(id);
const el = (tag, attrs = {}, ...children) => {
  const e = document.createElement(tag);
  for (const [k, v] of Object.entries(attrs)) {
    if (k === "class") e.className = v;
    else if (k.startsWith("on")) e.addEventListener(k.slice(2), v);
    else if (v !== false && v !== null && v !== undefined) e.setAttribute(k, v === true ? "" : v);
  }
  for (const c of children) e.append(c);
  return e;
};
const svg = (tag, attrs = {}) => {
  const e = document.createElementNS("http://www.w3.org/2000/svg", tag);
  for (const [k, v] of Object.entries(attrs)) e.setAttribute(k, v);
  return e;
};
const pct = (p) => (100 * p).toFixed(p > 0 && p < 0.001 ? 2 : 1) + "%";
const num = (x, d = 2) => (x === null || x === undefined ? "–" : Number(x).toFixed(d));
const card = (name) => rules.cards.find((c) => c.name === name);
const lanesList = (set) => [...set].sort((a, b) => a - b).join(",");

// ------------------------------------------------------------------ position string
function sheepToken(s) {
  if (s.status === "finished") return "F" + s.place;
  if (s.status === "exhausted") return "X" + s.square;
  return `${s.square}.${s.red}${s.blue}${s.white}`;
}

function positionText() {
  const head = [state.stage];
  if (state.supply !== null) head.push("supply=" + state.supply);
  if (state.lanes.join(",") !== rules.default_lanes.join(",")) head.push("lanes=" + state.lanes.join(","));
  return head.concat(state.sheep.map(sheepToken)).join(" ");
}

// The same grammar as sheepsim.games.race.position; returns null when the text is not
// a whole position (the API then says what is wrong).
function parsePosition(text) {
  const tokens = text.split("#")[0].trim().split(/\s+/).filter(Boolean);
  const out = { stage: "semifinal", supply: null, lanes: null, sheep: [] };
  for (const tok of tokens) {
    const low = tok.toLowerCase();
    let m;
    if (low === "semifinal" || low === "final") out.stage = low;
    else if ((m = /^stage=(semifinal|final)$/.exec(low))) out.stage = m[1];
    else if ((m = /^supply=(\d+)$/.exec(low))) out.supply = Number(m[1]);
    else if (low.startsWith("lanes=")) out.lanes = tok.slice(6).split(",").map((n) => n.trim());
    else if ((m = /^(\d+)\.(\d)(\d)(\d)$/.exec(tok)))
      out.sheep.push({ status: "running", square: +m[1], red: +m[2], blue: +m[3], white: +m[4], place: 0 });
    else if ((m = /^[Ff]([1-9])$/.exec(tok)))
      out.sheep.push({ status: "finished", square: 0, red: 0, blue: 0, white: 0, place: +m[1] });
    else if ((m = /^[Xx](\d+)$/.exec(tok)))
      out.sheep.push({ status: "exhausted", square: +m[1], red: 0, blue: 0, white: 0, place: 0 });
    else return null;
  }
  if (out.sheep.length !== 6) return null;
  if (out.lanes) {
    const names = out.lanes.map((n) => rules.cards.find((c) => c.name.toLowerCase() === n.toLowerCase()));
    if (out.lanes.length !== 6 || names.some((c) => !c)) return null;
    out.lanes = names.map((c) => c.name);
  }
  return out;
}

function applyPosition(p) {
  state.stage = p.stage;
  state.supply = p.supply;
  state.lanes = p.lanes || rules.default_lanes.slice();
  state.sheep = p.sheep;
}

function startSheep(name) {
  const c = card(name);
  return { status: "running", square: 0, red: c.red, blue: c.blue, white: c.white, place: 0 };
}

function autoSupply() {
  let blue = 0;
  state.sheep.forEach((s, i) => { if (s.status !== "finished") blue += s.blue; });
  return rules.supply.blue - blue;
}

// ------------------------------------------------------------------ URL
function toURL() {
  const q = new URLSearchParams();
  q.set("position", state.text);
  if (state.policy !== "greedy") q.set("policy", state.policy);
  if (state.open) q.set("open", state.open);
  if (state.hidden.size) q.set("hidden", lanesList(state.hidden));
  if (state.rival.size) q.set("rival-open", lanesList(state.rival));
  if (state.mover) q.set("lane", state.mover);
  history.replaceState(null, "", "?" + q.toString());
}

function lanesParam(text) {
  return new Set((text || "").split(",").map(Number).filter((x) => x >= 1 && x <= 6));
}

function fromURL() {
  const q = new URLSearchParams(location.search);
  const p = q.get("position");
  const parsed = p ? parsePosition(p) : null;
  if (parsed) applyPosition(parsed);
  state.text = p || positionText();
  state.policy = q.get("policy") || "greedy";
  const open = Number(q.get("open"));
  state.open = open >= 1 && open <= 6 ? open : null;
  state.hidden = lanesParam(q.get("hidden"));
  state.rival = lanesParam(q.get("rival-open"));
  const lane = Number(q.get("lane"));
  state.mover = lane >= 1 && lane <= 6 ? lane : null;
}

// ------------------------------------------------------------------ the board (SVG)
// Wide screens: lanes are rows, squares columns (a square 40 units wide). Where a square
// would be narrower than MIN_TARGET px (a phone) the board stands up: lanes are columns,
// squares rows V_ROW px high, drawn in screen pixels.
const CELL = 40, LABEL = 44, TOP = 22, FINGER = 34; // FINGER: px of a lane's row on screen
const MIN_TARGET = 24, V_ROW = 28, V_LABEL = 34, V_HEAD = 22;
let geo = null; // the board's geometry: cell(lane 0-5, square) -> {x, y, w, h}
const cursor = { lane: 1, square: 0 }; // the keyboard's square

function boardGeometry(board) {
  const n = rules.track_length, cols = n + 2; // squares 0..n and the Finish Line
  const screen = board.clientWidth || LABEL + cols * CELL;
  if (screen / (LABEL / CELL + cols) >= MIN_TARGET) {
    const width = LABEL + cols * CELL;
    const k = Math.max(1, width / screen); // viewBox units per screen px
    // on a narrow screen taller rows keep each lane a finger high
    const row = Math.max(CELL, Math.round(FINGER * k));
    const top = Math.round(TOP * Math.min(k, 1.8));
    return { vertical: false, k, width, height: top + 6 * row + 4, top,
             cell: (lane, sq) => ({ x: LABEL + sq * CELL, y: top + lane * row, w: CELL, h: row }),
             at: (x, y) => ({ lane: Math.floor((y - top) / row), square: Math.floor((x - LABEL) / CELL) }) };
  }
  const colW = (screen - V_LABEL) / 6;
  return { vertical: true, k: 1, width: screen, height: V_HEAD + cols * V_ROW + 2, top: V_HEAD,
           cell: (lane, sq) => ({ x: V_LABEL + lane * colW, y: V_HEAD + sq * V_ROW, w: colW, h: V_ROW }),
           at: (x, y) => ({ lane: Math.floor((x - V_LABEL) / colW), square: Math.floor((y - V_HEAD) / V_ROW) }) };
}

function drawBoard() {
  const board = $("board");
  const n = rules.track_length;
  geo = boardGeometry(board);
  const { k, vertical } = geo;
  board.classList.toggle("vertical", vertical);
  board.setAttribute("viewBox", `0 0 ${geo.width} ${geo.height}`);
  board.replaceChildren();
  const narrow = vertical || k > 1.5; // the words would overlap the next square
  for (let sq = 0; sq <= n + 1; sq++) {
    const c = geo.cell(0, sq);
    const label = vertical
      ? svg("text", { x: V_LABEL - 4, y: c.y + c.h / 2 + 4, class: "sq-label right", "font-size": 11 })
      : svg("text", { x: c.x + CELL / 2, y: geo.top - 7, class: "sq-label", "font-size": Math.min(12 * k, 19) });
    label.textContent = sq > n ? (narrow ? "fin" : "finish") : sq === 0 ? "start" : sq;
    board.append(label);
  }
  state.sheep.forEach((s, lane) => {
    const c0 = geo.cell(lane, 0);
    const name = vertical
      ? svg("text", { x: c0.x + c0.w / 2, y: V_HEAD - 6, class: "lane-label mid", "font-size": 15 })
      : svg("text", { x: 4, y: c0.y + c0.h / 2 + 5, class: "lane-label", "font-size": Math.min(16 * k, 34) });
    name.textContent = lane + 1;
    board.append(name);
    for (let sq = 0; sq <= n + 1; sq++) {
      const cls = sq > n ? "finish" : sq >= rules.end_zone_first ? "endzone" : sq === 0 ? "start" : "square";
      const c = geo.cell(lane, sq);
      board.append(svg("rect", {
        x: c.x + 1, y: c.y + 1, width: c.w - 2, height: c.h - 2, rx: 4,
        class: `cell ${cls}`, "data-lane": lane + 1, "data-square": sq,
      }));
    }
    const c = geo.cell(lane, s.status === "finished" ? n + 1 : s.square);
    const g = svg("g", { class: `sheep ${s.status}${state.mover === lane + 1 ? " moving" : ""}`,
                          "data-lane": lane + 1 });
    const label = s.status === "finished" ? PLACES[s.place - 1] || "F" + s.place : s.status === "exhausted" ? "X" : lane + 1;
    if (vertical) {
      const rx = Math.min(14, c.w * 0.3), cx = c.x + 2 + rx, cy = c.y + c.h / 2;
      g.append(svg("ellipse", { cx, cy, rx, ry: c.h / 2 - 3 }));
      const t = svg("text", { x: cx, y: cy + 4, class: "sheep-label", "font-size": 11 });
      t.textContent = label;
      g.append(t);
      let m = 0;
      COLOURS.forEach((col) => {
        for (let i = 0; i < s[col]; i++, m++)
          g.append(svg("rect", { x: cx + rx + 2, y: c.y + 2 + m * 8, width: 7, height: 7, class: "cube " + col }));
      });
    } else {
      const cx = c.x + c.w / 2, cy = c.y + c.h / 2;
      g.append(svg("ellipse", { cx, cy: cy - 3, rx: 17, ry: Math.max(11, c.h * 0.3) }));
      const t = svg("text", { x: cx, y: cy + 1, class: "sheep-label", "font-size": Math.min(12 * k, 17) });
      t.textContent = label;
      g.append(t);
      let m = 0;
      COLOURS.forEach((col) => {
        for (let i = 0; i < s[col]; i++, m++)
          g.append(svg("rect", { x: cx - 13 + m * 9, y: cy + c.h * 0.22, width: 7, height: 7 * Math.min(k, 2), class: "cube " + col }));
      });
    }
    board.append(g);
  });
  if (document.activeElement === board) {
    const c = geo.cell(cursor.lane - 1, cursor.square);
    board.append(svg("rect", { x: c.x + 1, y: c.y + 1, width: c.w - 2, height: c.h - 2, rx: 4, class: "cursor" }));
  }
  board.setAttribute("aria-label", `The board. Keyboard: arrow keys choose a square (now lane ${cursor.lane}, ` +
    `${cursor.square > n ? "the finish" : "square " + cursor.square}), Enter or Space puts that lane's sheep there.`);
}

function cellAt(evt) {
  const board = $("board");
  const pt = board.createSVGPoint();
  pt.x = evt.clientX; pt.y = evt.clientY;
  const p = pt.matrixTransform(board.getScreenCTM().inverse());
  const at = geo.at(p.x, p.y);
  if (at.square < 0 || at.square > rules.track_length + 1 || at.lane < 0 || at.lane > 5) return null;
  return { lane: at.lane + 1, square: at.square };
}

function placeSheep(lane, square) {
  const s = state.sheep[lane - 1];
  const n = rules.track_length;
  if (square > n) {
    if (s.status === "finished") return false;
    const placed = state.sheep.filter((x) => x.status === "finished").length;
    Object.assign(s, { status: "finished", place: placed + 1, square: 0 });
    return true;
  }
  if (s.status === "finished") { // back on the track: the later places move up
    state.sheep.forEach((x) => { if (x.status === "finished" && x.place > s.place) x.place -= 1; });
    const c = card(state.lanes[lane - 1]);
    Object.assign(s, { red: 0, blue: Math.min(c.blue, rules.max_cubes), white: 0 });
  }
  if (s.status !== "finished" && s.square === square && s.status !== "exhausted") return false;
  s.square = square;
  s.place = 0;
  s.status = square >= rules.end_zone_first && s.red + s.blue + s.white === 0 ? "exhausted" : "running";
  return true;
}

function boardEvents() {
  const board = $("board");
  // a mouse or pen places and drags; a finger taps (a swipe scrolls the page, and moves no sheep)
  board.addEventListener("pointerdown", (evt) => {
    if (evt.pointerType === "touch") return;
    const at = cellAt(evt);
    if (!at) return;
    drag = at.lane;
    board.setPointerCapture(evt.pointerId);
    if (placeSheep(at.lane, at.square)) { drawBoard(); }
    evt.preventDefault();
  });
  board.addEventListener("pointermove", (evt) => {
    if (drag === null) return;
    const at = cellAt(evt);
    if (at && at.square <= rules.track_length && placeSheep(drag, at.square)) drawBoard();
  });
  const end = () => { if (drag !== null) { drag = null; changed(); } };
  board.addEventListener("pointerup", end);
  board.addEventListener("pointercancel", end);
  board.addEventListener("click", (evt) => {
    const touch = evt.pointerType === "touch" || touchTap;
    touchTap = false;
    if (!touch) return; // a mouse or pen was handled on pointerdown
    const at = cellAt(evt);
    if (at && placeSheep(at.lane, at.square)) changed();
  });
  board.addEventListener("touchstart", () => { touchTap = true; }, { passive: true });
  board.addEventListener("keydown", (evt) => {
    const n = rules.track_length + 1;
    const vertical = geo && geo.vertical;
    const moves = vertical
      ? { ArrowUp: [0, -1], ArrowDown: [0, 1], ArrowLeft: [-1, 0], ArrowRight: [1, 0] }
      : { ArrowUp: [-1, 0], ArrowDown: [1, 0], ArrowLeft: [0, -1], ArrowRight: [0, 1] };
    if (moves[evt.key]) {
      const [dl, ds] = moves[evt.key];
      cursor.lane = Math.min(6, Math.max(1, cursor.lane + dl));
      cursor.square = Math.min(n, Math.max(0, cursor.square + ds));
      drawBoard();
    } else if (evt.key === "Enter" || evt.key === " ") {
      if (placeSheep(cursor.lane, cursor.square)) changed();
    } else if (evt.key === "Home" || evt.key === "End") {
      cursor.square = evt.key === "Home" ? 0 : n;
      drawBoard();
    } else return;
    evt.preventDefault();
  });
  board.addEventListener("focus", () => {
    const s = state.sheep[cursor.lane - 1];
    if (s) cursor.square = s.status === "finished" ? rules.track_length + 1 : s.square;
    drawBoard();
  });
  board.addEventListener("blur", drawBoard);
  let resized = null;
  window.addEventListener("resize", () => { clearTimeout(resized); resized = setTimeout(drawBoard, 100); });
}
let touchTap = false;
let drag = null; // the lane whose sheep the mouse drags

// ------------------------------------------------------------------ lane controls
function drawLanes() {
  const box = $("lanes");
  box.replaceChildren();
  const final = state.stage === "final";
  const over = phase() === "over";
  state.sheep.forEach((s, i) => {
    const lane = i + 1;
    const c = card(state.lanes[i]);
    const select = el("select", { "aria-label": `card in lane ${lane}`, "data-lane": lane,
      onchange: (e) => {
        const other = state.lanes.indexOf(e.target.value);
        if (other >= 0) state.lanes[other] = state.lanes[i]; // swap: six different cards
        state.lanes[i] = e.target.value;
        state.sheep[i] = startSheep(state.lanes[i]);
        if (other >= 0 && state.sheep[other].status === "running") state.sheep[other] = startSheep(state.lanes[other]);
        changed();
      } });
    for (const k of rules.cards) select.append(el("option", { value: k.name, selected: k.name === c.name }, k.name));
    const cubes = el("span", { class: "cubes" });
    COLOURS.forEach((colour) => {
      const most = colour === "blue" ? rules.max_cubes : c[colour];
      cubes.append(el("button", {
        type: "button", class: `cube-btn ${colour}`, "data-lane": lane, "data-colour": colour,
        disabled: s.status !== "running" || most === 0,
        "aria-label": `lane ${lane} ${colour} cubes: ${s[colour]} (tap to change)`,
        onclick: () => {
          s[colour] = (s[colour] + 1) % (most + 1);
          if (s.red + s.blue + s.white > rules.max_cubes) s[colour] = 0;
          changed();
        },
      }, String(s[colour])));
    });
    const status = s.status === "finished" ? `finished ${PLACES[s.place - 1] || s.place}`
      : s.status === "exhausted" ? `exhausted on ${s.square}` : `square ${s.square}`;
    const toggle = (label, on, cls, disabled, fn) => el("button", {
      type: "button", class: `toggle ${cls}${on ? " on" : ""}`, "aria-pressed": on ? "true" : "false",
      "data-lane": lane, disabled, onclick: () => { fn(); changed(); } }, label);
    box.append(el("div", { class: "lane-row" },
      el("span", { class: "lane-no" }, String(lane)), select, cubes,
      el("span", { class: "lane-status" }, status),
      el("span", { class: "bets" },
        toggle("open", state.open === lane, "open", final, () => {
          state.open = state.open === lane ? null : lane;
          state.hidden.delete(lane); state.rival.delete(lane);
        }),
        toggle("hidden", state.hidden.has(lane), "hidden", false, () => {
          if (state.hidden.has(lane)) state.hidden.delete(lane);
          else { state.hidden.add(lane); if (state.open === lane) state.open = null; }
        }),
        toggle("rival open", state.rival.has(lane), "rival", final, () => {
          if (state.rival.has(lane)) state.rival.delete(lane);
          else { state.rival.add(lane); if (state.open === lane) state.open = null; }
        }),
        toggle("moving", state.mover === lane, "mover", s.status !== "running" || over, () => {
          state.mover = state.mover === lane ? null : lane;
        }))));
  });
}

// ------------------------------------------------------------------ asking the API
function query(params) {
  const q = new URLSearchParams();
  for (const [k, v] of Object.entries(params)) if (v !== null && v !== undefined && v !== "") q.set(k, v);
  return q.toString();
}

function simulated() { return rules.policies.simulated.includes(state.policy); }

function evParams() {
  return { position: state.text, policy: state.policy,
           taken: state.stage === "final" ? "" : lanesList(state.rival),
           games: simulated() ? SIMULATED_GAMES : "" };
}

function adviseParams() {
  const final = state.stage === "final";
  return { position: state.text, lane: state.mover, policy: state.policy,
           open: final ? "" : state.open, hidden: lanesList(state.hidden),
           "rival-open": final ? "" : lanesList(state.rival) };
}

const sleep = (ms) => new Promise((ok) => setTimeout(ok, ms));
const BUSY_TRIES = 60; // 503s (each after the server's own wait) before the page gives up
const UNREACHABLE = "The server does not answer: is sheepsim serve still running? " +
  "(Start it again, then change anything to ask again.)";
class Superseded extends Error {}

// One question. A busy server (503: its queue is full or the question waited its limit)
// is asked again after its Retry-After, saying so on the page, until it answers or a
// newer question replaces this one; a server that cannot be reached is asked twice more.
async function ask(path, params, asked) {
  for (let busy = 0, lost = 0; ;) {
    let res;
    try {
      res = await fetch(`/api/race/${path}?${query(params)}`);
    } catch (_) { // no answer at all: stopped, or the network
      if (++lost > 2) throw new Error(UNREACHABLE);
      await sleep(1000);
      continue;
    }
    if (res.status === 503 && ++busy < BUSY_TRIES) {
      if (asked !== changes) throw new Superseded();
      const body = await res.json().catch(() => ({}));
      showBusy(`Server busy: ${body.error || "other players' questions come first"}. ` +
               `Asking again (${busy})…`);
      await sleep(1000 * (Number(res.headers.get("Retry-After")) || 1));
      if (asked !== changes) throw new Superseded();
      continue;
    }
    let body;
    try { body = await res.json(); } catch (_) { throw new Error(`The server answered HTTP ${res.status} without a message.`); }
    if (!res.ok) throw new Error(body.error || `HTTP ${res.status}`);
    return body;
  }
}

function shellQuote(s) { return /^[\w.,=\/-]+$/.test(s) ? s : "'" + s.replace(/'/g, "'\\''") + "'"; }

function cliLine(cmd, params) {
  const parts = ["sheepsim", "race", cmd];
  for (const [k, v] of Object.entries(params)) {
    if (v === null || v === undefined || v === "" || (k === "policy" && v === "greedy")) continue;
    parts.push("--" + k, shellQuote(String(v)));
  }
  return parts.join(" ");
}

function changed(fromText = false) {
  changes += 1;
  delete document.body.dataset.ready;
  if (!fromText) state.text = positionText();
  if (state.mover && state.sheep[state.mover - 1] && (state.sheep[state.mover - 1].status !== "running" || phase() === "over")) state.mover = null;
  render();
  clearTimeout(timer);
  timer = setTimeout(solve, DEBOUNCE_MS);
}

let inflight = false, again = false; // one question at a time from this page

async function solve() {
  if (inflight) { again = true; return; }
  inflight = true;
  try { await solveNow(); } finally { inflight = false; }
  if (again) { again = false; solve(); }
}

async function solveNow() {
  const mine = ++seq, asked = changes;
  toURL();
  $("status").textContent = "solving…";
  document.body.classList.add("busy");
  const wantsAdvice = state.mover && (state.open || state.hidden.size) && phase() !== "over";
  const t0 = performance.now();
  const tick = () => {
    const secs = (performance.now() - t0) / 1000;
    $("answer-state").textContent = secs < 1 ? "solving…" : `solving… ${secs.toFixed(0)} s`;
  };
  tick();
  const ticker = setInterval(tick, 500);
  const [ev, advice] = await Promise.allSettled([
    ask("ev", evParams(), asked),
    wantsAdvice ? ask("advise", adviseParams(), asked) : Promise.resolve(null),
  ]);
  clearInterval(ticker);
  if (mine !== seq || [ev, advice].some((r) => r.status === "rejected" && r.reason instanceof Superseded))
    return; // a newer question is on its way
  document.body.classList.remove("busy");
  $("answer-state").textContent = "";
  showBusy(null);
  if (ev.status === "rejected") {
    showError(ev.reason.message);
    $("status").textContent = "";
  } else {
    showError(null);
    drawOdds(ev.value);
    drawBets(ev.value);
    const m = ev.value.meta;
    $("status").textContent = (m.method === "exact" ? `exact (${Number(m.joint_states).toLocaleString("en")} states)`
      : `simulated: ${Number(m.games).toLocaleString("en")} races, seed ${m.seed}`) +
      ` · answered in ${Math.round(performance.now() - t0)} ms`;
    $("provenance").textContent = `sheepsim ${m.sheepsim_version} · rules ${m.rules} (sha256 ${String(m.rules_sha256).slice(0, 12)}) · pace policy ${m.policy}`;
  }
  drawPace(advice);
  drawAnswer(ev, advice);
  fitAnswerBar();
  if (asked === changes) document.body.dataset.ready = "1";
}

// The bottom bar: the answer for the decision in front of you, in one or two lines.
function drawAnswer(ev, advice) {
  const box = $("answer-text");
  box.replaceChildren();
  if (ev.status === "rejected") return; // the error says why
  const doc = ev.value;
  const ph = phase();
  const held = heldBets();
  const worth = () => {
    const t = $("held") && $("held").querySelector("tr.total [data-ev]");
    return t ? Number(t.dataset.ev) : null;
  };
  const text = (...parts) => box.append(...parts);
  if (ph === "over") {
    const w = worth();
    text(held.length ? `Race over: your bets won ${num(w, 0)} points` +
      (held.length < (state.stage === "final" ? 2 : 3) ? " (bonus not counted)." : " with the bonus.")
      : "Race over. Mark your bets (open, hidden) to count your points.");
    return;
  }
  if (ph === "before" && $("advice")) {
    text($("advice").textContent);
    return;
  }
  if (state.mover && advice && advice.status === "rejected") {
    text(el("span", { class: "answer-error" }, `Pace advice for lane ${state.mover}: ${advice.reason.message}`));
    return;
  }
  if (state.mover && advice && advice.status === "fulfilled" && advice.value) {
    const rows = advice.value.options;
    const pts = (r) => r.expected_points !== undefined ? r.expected_points : r.ev;
    const top = Math.max(...rows.map(pts));
    const exact = advice.value.meta.method === "exact";
    const best = rows.filter((r) => r.best === true || (exact && Math.abs(pts(r) - top) <= TIE));
    const rest = rows.filter((r) => !best.includes(r));
    const name = (r) => r.option.replace(/_/g, " ").toLowerCase();
    text(`Lane ${state.mover}: `, el("strong", { id: "answer-best" }, best.map(name).join(" or ")),
      best.length > 1 ? ` (equal, ${num(top, 3)} points expected)` : ` (${num(top, 3)} points expected` +
      (rest.length ? `; next best: ${name(rest[0])}, ${num(rest[0].gap_to_best, 3)})` : ")"));
    return;
  }
  if (held.length) {
    text(`Your bets are worth ${num(worth(), 3)} points now` + (ph === "during"
      ? ". Mark the sheep the dice chose (moving) for the pace to choose." : "."));
    return;
  }
  text(ph === "before" ? "Mark the rivals' open bets to get the bet to take."
    : "Mark your bets (open, hidden) and the sheep the dice chose (moving).");
}

function fitAnswerBar() {
  document.body.style.paddingBottom = $("answer-bar").offsetHeight + 8 + "px";
}

function showBusy(message) {
  const box = $("busy");
  box.hidden = !message;
  box.textContent = message || "";
  fitAnswerBar();
}

function showError(message) {
  const box = $("error");
  box.hidden = !message;
  box.textContent = message || "";
  document.body.classList.toggle("has-error", Boolean(message));
  fitAnswerBar();
}

// ------------------------------------------------------------------ answers
function interval(row, key) {
  const lo = row[key + "_lo"], hi = row[key + "_hi"];
  return lo === undefined || lo === hi ? "" : ` (${pct(lo)}–${pct(hi)})`;
}

function drawOdds(doc) {
  const box = $("odds");
  box.replaceChildren();
  const exact = doc.meta.method === "exact";
  $("odds-method").textContent = exact ? "exact" : "simulated, 95% intervals";
  const keys = state.stage === "final" ? ["p_first"] : ["p_first", "p_second", "p_third"];
  for (const row of doc.lanes) {
    const bar = el("div", { class: "bar", role: "img",
      "aria-label": keys.map((k, i) => `${PLACES[i]} ${pct(row[k])}`).join(", ") });
    let before = 0; // the bar stacks 1st, 2nd, 3rd: each interval sits where its segment ends
    keys.forEach((k, i) => {
      const seg = el("span", { class: `seg p${i + 1}`, "data-lane": row.lane, "data-place": i + 1, "data-p": row[k] });
      seg.style.width = (100 * row[k]).toFixed(3) + "%";
      bar.append(seg);
      const lo = row[k + "_lo"], hi = row[k + "_hi"];
      if (lo !== undefined && lo !== hi) { // simulated: the 95% interval as a whisker
        const whisker = el("span", { class: "whisker" });
        whisker.style.left = (100 * (before + lo)).toFixed(3) + "%";
        whisker.style.width = Math.max(0.3, 100 * (hi - lo)).toFixed(3) + "%";
        bar.append(whisker);
      }
      before += row[k];
    });
    const text = keys.map((k, i) => `${PLACES[i]} ${pct(row[k])}${interval(row, k)}`).join(" · ");
    box.append(el("div", { class: "odds-row", "data-lane": row.lane },
      el("span", { class: "odds-name" }, `${row.lane} ${row.card}`), bar,
      el("span", { class: "odds-text" }, text)));
  }
}

// a simulated value's 95% interval, on its own line under the value ("" when exact)
function ciSpan(lo, hi) {
  return lo === undefined || lo === hi ? "" : el("span", { class: "ci" }, `${num(lo)}–${num(hi)}`);
}

// ------------------------------------------------------------------ the phase of the race
// "before": no turn played yet (every sheep on the starting line with its card's cubes):
// the bets are still to place. "over": the race has ended (a semifinal when 3 sheep have
// crossed or every other sheep is exhausted; the final when one has crossed or all are
// exhausted). "during": anything between.
function phase() {
  const s = state.sheep;
  const crossed = s.filter((x) => x.status === "finished").length;
  if (crossed >= (state.stage === "final" ? 1 : 3) || !s.some((x) => x.status === "running")) return "over";
  const fresh = s.every((x, i) => {
    const c = card(state.lanes[i]);
    return x.status === "running" && x.square === 0 && x.red === c.red && x.blue === c.blue && x.white === c.white;
  });
  return fresh ? "before" : "during";
}

// your bets: [{lane, kind}] in lane order (the final has no open bet)
function heldBets() {
  const held = [...state.hidden].map((lane) => ({ lane, kind: "hidden" }));
  if (state.open && state.stage !== "final") held.push({ lane: state.open, kind: "open" });
  return held.sort((a, b) => a.lane - b.lane);
}

const PHASE_TITLE = { before: "Bets: before the race", during: "Your bets now", over: "Race over: your points" };

function evCell(value, lo, hi, digits = 3) {
  return el("td", { class: "num", "data-ev": String(value) }, num(value, digits), ciSpan(lo, hi));
}

function drawBets(doc) {
  const final = state.stage === "final";
  const ph = phase();
  document.body.dataset.phase = ph;
  $("bets-title").textContent = PHASE_TITLE[ph];
  const evTable = $("bet-ev");
  evTable.replaceChildren(el("tr", {}, el("th", {}, "lane"), el("th", {}, "card"),
    el("th", {}, ph === "over" ? "points of one bet" : ph === "during" ? "EV of one bet now" : "EV of one bet"),
    el("th", {}, final ? "payoff" : "payoffs 1st/2nd/3rd")));
  const pay = rules.payoffs;
  for (const row of doc.lanes) {
    const i = row.lane - 1;
    evTable.append(el("tr", { "data-lane": row.lane }, el("td", {}, String(row.lane)), el("td", {}, row.card),
      evCell(row.ev, row.ev_lo, row.ev_hi),
      el("td", { class: "num" }, final ? String(pay.final[i]) : pay.semifinal.map((r) => r[i]).join("/"))));
  }
  const best = $("best-bet");
  best.replaceChildren();
  if (ph === "before") best.append(...betAdvice(doc));
  const held = heldBets();
  if (held.length) best.append(heldTable(doc, held, ph));
  else if (ph !== "before") best.append(el("p", { class: "hint" }, ph === "over"
    ? "Mark your bets (open, hidden) to see the points they won."
    : "Mark the bets you hold (open, hidden) to see what they are worth now."));
  // which bets to take is a question before the race only
  $("sets-box").hidden = ph !== "before";
  $("sets-title").textContent = final ? "Best pairs of final bets" : "Best sets of three (bonus included)";
  const sets = $("sets");
  sets.replaceChildren(el("tr", {}, el("th", {}, "#"), el("th", {}, "lanes"), el("th", {}, "cards"),
    el("th", {}, "EV"), el("th", {}, final ? "" : "bonus")));
  for (const row of doc.sets.slice(0, 6)) {
    const ci = ciSpan(row.ev_lo, row.ev_hi);
    sets.append(el("tr", { class: row.open_allowed === false ? "blocked" : "" },
      el("td", {}, String(row.rank)),
      el("td", {}, row.lanes, row.open_allowed === false ? el("span", { class: "ci" }, "no lane left to open") : ""),
      el("td", {}, row.cards),
      el("td", { class: "num" }, num(row.ev, 3), ci),
      el("td", { class: "num" }, final ? "" : num(row.bonus_ev, 2))));
  }
}

// Before the race: the bet to take next, given the bets placed (rivals' open bets,
// yours). Semifinal: the open bet, then the hidden pair that goes best with it; the
// final: the best pair of hidden bets.
function betAdvice(doc) {
  const final = state.stage === "final";
  const out = [];
  if (final) {
    const top = doc.sets.find((r) => r.rank === 1);
    const mine = [...state.hidden];
    const pair = mine.length === 1 ? doc.sets.find((r) => r.lanes.split(",").map(Number).includes(mine[0])) : top;
    if (mine.length < 2 && pair) out.push(el("p", { class: "best", id: "advice" },
      mine.length === 1 ? `With your bet on lane ${mine[0]}, bet also on ` : "Best pair of hidden bets: ",
      el("strong", {}, `lanes ${pair.lanes} (${pair.cards})`), ": ",
      el("span", { "data-ev": String(pair.ev) }, num(pair.ev, 2)), " points expected"));
    return out;
  }
  const rivals = state.rival.size ? ` (rivals opened on ${lanesList(state.rival)})` : "";
  if (!state.open) {
    const rec = doc.open_bet.find((r) => r.recommended);
    if (rec) out.push(el("p", { class: "best", id: "advice" }, "Best open bet: ",
      el("strong", {}, `lane ${rec.lane} (${rec.card})`),
      `, then hidden on lanes ${rec.hidden_lanes}: `,
      el("span", { "data-ev": String(rec.ev_set) }, num(rec.ev_set, 2)),
      " points expected with the bonus", rivals));
    return out;
  }
  const row = doc.open_bet.find((r) => r.lane === state.open);
  const mine = lanesList(state.hidden);
  if (row && (state.hidden.size < 2 || mine !== row.hidden_lanes)) {
    out.push(el("p", { class: "best", id: "advice" }, `With your open bet on lane ${state.open}, take the hidden bets on `,
      el("strong", {}, `lanes ${row.hidden_lanes}`), ": ",
      el("span", { "data-ev": String(row.ev_set) }, num(row.ev_set, 2)),
      " points expected with the bonus", rivals,
      row.taken ? ` (lane ${state.open} was opened by a rival: you cannot open on it)` : ""));
  } else if (row) {
    out.push(el("p", { class: "best", id: "advice" }, "Your three bets are the best set with your open bet."));
  }
  return out;
}

// The bets you hold, each worth its EV from this position (the points it won once the
// race is over), and the whole holding with the bonus when it is complete.
function heldTable(doc, held, ph) {
  const final = state.stage === "final";
  const over = ph === "over";
  const table = el("table", { id: "held" }, el("tr", {}, el("th", {}, "your bet"), el("th", {}, "card"),
    el("th", {}, over ? "points" : ph === "during" ? "EV now" : "EV")));
  for (const b of held) {
    const row = doc.lanes.find((r) => r.lane === b.lane);
    table.append(el("tr", { "data-lane": b.lane }, el("td", {}, `lane ${b.lane} (${b.kind})`),
      el("td", {}, row.card), evCell(row.ev, row.ev_lo, row.ev_hi, over ? 0 : 3)));
  }
  const lanes = held.map((b) => b.lane).join(",");
  const complete = new Set(held.map((b) => b.lane)).size === held.length && held.length === (final ? 2 : 3);
  const set = complete ? doc.sets.find((r) => r.lanes === lanes) : null;
  if (set) {
    table.append(el("tr", { class: "total", "data-lanes": lanes }, el("td", {}, "all together"),
      el("td", {}, final ? "" : `bonus ${num(set.bonus_ev, over ? 0 : 2)}`),
      evCell(set.ev, set.ev_lo, set.ev_hi, over ? 0 : 3)));
  } else {
    const sum = held.reduce((t, b) => t + doc.lanes.find((r) => r.lane === b.lane).ev, 0);
    table.append(el("tr", { class: "total partial" }, el("td", {}, "together"),
      el("td", {}, final ? "" : "bonus not counted"), evCell(sum, undefined, undefined, over ? 0 : 3)));
    table.append(el("tr", {}, el("td", { colspan: 3, class: "hint" },
      final ? "A final hand is two hidden bets on different lanes." :
        "A semifinal hand is three bets on different lanes (one open, two hidden): mark them all to count the bonus.")));
  }
  if (ph === "during") table.append(el("tr", {}, el("td", { colspan: 3, class: "hint" },
    `Worth now: from this position before the dice roll, every turn played by ${state.policy}. ` +
    "The pace table counts your choice for the sheep the dice chose.")));
  return table;
}

function drawPace(advice) {
  const table = $("pace"), assumes = $("pace-assumes"), err = $("pace-error");
  table.replaceChildren();
  assumes.textContent = "";
  err.hidden = true;
  $("pace-lane").textContent = state.mover ? `for lane ${state.mover}` : "";
  if (phase() === "over") { assumes.textContent = "The race is over: no sheep moves again."; return; }
  if (!state.mover) { assumes.textContent = "Mark the sheep the dice chose (moving) to compare its pace options."; return; }
  if (!state.open && !state.hidden.size) { assumes.textContent = "Mark your bets (open, hidden) to get pace advice: the options are ranked by your points."; return; }
  if (!advice || (advice.status === "fulfilled" && !advice.value)) return; // asked before the bets
  if (advice.status === "rejected") { err.hidden = false; err.textContent = advice.reason.message; return; }
  const doc = advice.value;
  const pts = (r, k = "") => r["expected_points" + k] !== undefined ? r["expected_points" + k] : r["ev" + k];
  const top = Math.max(...doc.options.map((r) => pts(r)));
  const exact = doc.meta.method === "exact";
  table.append(el("tr", {}, el("th", {}, ""), el("th", {}, "option"), el("th", {}, "sheep after"),
    el("th", {}, "expected points"), el("th", {}, "vs best")));
  for (const r of doc.options) {
    const equal = r.best === true || (exact && Math.abs(pts(r) - top) <= TIE);
    const ci = ciSpan(pts(r, "_lo"), pts(r, "_hi"));
    table.append(el("tr", { class: equal ? "best" : "", "data-option": r.option },
      el("td", {}, equal ? "★" : ""), el("td", {}, r.option.replace(/_/g, " ").toLowerCase()),
      el("td", {}, r.after), el("td", { class: "num" }, num(pts(r), 3), ci),
      el("td", { class: "num" }, equal ? (doc.options.filter((x) => x.best === true || (exact && Math.abs(pts(x) - top) <= TIE)).length > 1 ? "equal" : "best") : num(r.gap_to_best, 3))));
  }
  const m = doc.meta;
  const words = m.objective || `your expected points from this race (payoffs and bonus for your bets on lanes ${m.bets.join(", ")}), every later turn played by ${m.policy}`;
  assumes.textContent = `Ranked by ${words}` +
    (m.rival_open && m.rival_open.length ? `; rivals open on ${m.rival_open.join(", ")}` : "") +
    (exact ? " (exact)." : `; simulated, ${Number(m.games).toLocaleString("en")} races per option, seed ${m.seed}${m.note ? " (" + m.note + ")" : ""}.`);
}

// ------------------------------------------------------------------ the whole page
function render() {
  $("stage").value = state.stage;
  $("policy").value = state.policy;
  const supply = $("supply");
  supply.placeholder = `${autoSupply()} (auto)`;
  if (document.activeElement !== supply) supply.value = state.supply === null ? "" : state.supply;
  const pos = $("position");
  if (document.activeElement !== pos) pos.value = state.text;
  $("cli").textContent = cliLine("ev", { position: state.text, taken: state.stage === "final" ? "" : lanesList(state.rival), policy: state.policy }) +
    (state.mover && (state.open || state.hidden.size) ? "\n" + cliLine("advise", adviseParams()) : "");
  drawBoard();
  drawLanes();
}

function controls() {
  const policy = $("policy");
  for (const p of rules.policies.exact) policy.append(el("option", { value: p }, p));
  for (const p of rules.policies.simulated) policy.append(el("option", { value: p }, `${p} (simulated)`));
  $("stage").addEventListener("change", (e) => {
    state.stage = e.target.value;
    if (state.stage === "final") { state.open = null; state.rival.clear(); }
    changed();
  });
  policy.addEventListener("change", (e) => { state.policy = e.target.value; changed(); });
  $("new-race").addEventListener("click", () => {
    state.sheep = state.lanes.map(startSheep);
    state.supply = null; state.open = null; state.mover = null;
    state.hidden.clear(); state.rival.clear();
    changed();
  });
  $("supply").addEventListener("change", (e) => {
    const v = e.target.value.trim();
    state.supply = v === "" ? null : Number(v);
    changed();
  });
  const pos = $("position");
  const edited = () => {
    state.text = pos.value.trim();
    const parsed = parsePosition(state.text);
    if (parsed) applyPosition(parsed);
    changed(true);
  };
  pos.addEventListener("change", edited);
  pos.addEventListener("keydown", (e) => { if (e.key === "Enter") { e.preventDefault(); edited(); } });
  $("copy-link").addEventListener("click", async () => {
    try { await navigator.clipboard.writeText(location.href); $("copy-link").textContent = "Copied"; }
    catch (_) { $("copy-link").textContent = "Copy the address bar"; }
    setTimeout(() => { $("copy-link").textContent = "Copy link"; }, 1500);
  });
  boardEvents();
}

async function main() {
  const res = await fetch("/api/race/rules");
  rules = await res.json();
  state.lanes = rules.default_lanes.slice();
  state.sheep = state.lanes.map(startSheep);
  fromURL();
  if (![...rules.policies.exact, ...rules.policies.simulated].includes(state.policy)) state.policy = "greedy";
  controls();
  render();
  solve();
}

main();
