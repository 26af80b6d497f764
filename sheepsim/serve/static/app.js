// The Sheep Race at the table: the page of `sheepsim serve`.
// Plain JavaScript, no library. The state is the position string plus the bets; the
// page draws the board from the rules the server sends (/api/race/rules) and asks
// /api/race/ev and /api/race/advise (the same answers as the CLI) after every change.
"use strict";

const SIMULATED_GAMES = 40000; // races per odds/EV answer when the pace policy is simulated
const DEBOUNCE_MS = 60;
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
  seat: 1,            // your seat, without a game (a game holds its own)
  scores: null,       // scores before this race, seat order, without a game
  places: null,       // the lanes by place (1st first) when a move ended the race, without a game
  mc: false,          // simulate even where the exact answer is possible
};
let lastAdvice = null; // the latest pace advice answered
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
  if (state.mc) q.set("mc", "1");
  if (game) q.set("game", gameParam());
  else if (state.scores) { q.set("scores", state.scores.join(",")); q.set("seat", state.seat); }
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
  state.mc = q.get("mc") === "1";
  game = gameFromParam(q.get("game"));
  const scores = (q.get("scores") || "").split(",").filter(Boolean).map(Number);
  state.scores = scores.length >= 2 && scores.every((x) => Number.isInteger(x) && x >= 0) ? scores : null;
  const seat = Number(q.get("seat"));
  state.seat = Number.isInteger(seat) && seat >= 1 && seat <= 6 ? seat : 1;
  syncBets();
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
    // a finished sheep holds no cubes on the board (the position string shows none)
    Object.assign(s, { status: "finished", place: placed + 1, square: 0, red: 0, blue: 0, white: 0 });
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
      // a tap adds a cube up to this colour's limit, shown on the button (red and white:
      // the card's; any colour: max_cubes with the other colours' cubes), then back to 0
      const others = s.red + s.blue + s.white - s[colour];
      const most = Math.min(colour === "blue" ? rules.max_cubes : c[colour], rules.max_cubes - others);
      cubes.append(el("button", {
        type: "button", class: `cube-btn ${colour}`, "data-lane": lane, "data-colour": colour,
        disabled: s.status !== "running" || (most <= 0 && s[colour] === 0),
        "aria-label": `lane ${lane} ${colour} cubes: ${s[colour]} (tap to change)`,
        title: `${colour}: ${s[colour]} of at most ${Math.max(most, 0)} (` +
          (colour === "blue" ? "" : "the card's, and ") + `${rules.max_cubes} cubes in all); a tap adds one, then back to 0`,
        onclick: () => {
          s[colour] = s[colour] >= most ? 0 : s[colour] + 1;
          changed();
        },
      }, String(s[colour]), el("small", { class: "most" }, "/" + Math.max(most, 0))));
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
        toggle("exhausted", s.status === "exhausted", "exhaust",
          s.status === "finished" || s.square < rules.end_zone_first, () => {
            if (s.status === "exhausted") Object.assign(s, { status: "running", red: 0, blue: 1, white: 0 });
            else Object.assign(s, { status: "exhausted", red: 0, blue: 0, white: 0 });
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
           games: simulated() || state.mc ? SIMULATED_GAMES : "", ...standingsParams() };
}

function adviseParams() {
  const final = state.stage === "final";
  return { position: state.text, lane: state.mover, policy: state.policy,
           open: final ? "" : state.open, hidden: lanesList(state.hidden),
           "rival-open": final ? "" : lanesList(state.rival), mc: state.mc && !simulated() ? 1 : "",
           ...standingsParams() };
}

// The scores before this race (the final only: a semifinal's chance of winning the game
// needs the races after it): the answers then play to win the game once scores differ
function standingsParams() {
  const scores = game ? game.scores : state.scores;
  if (!scores || state.stage !== "final") return {};
  return { scores: scores.join(","), seat: game ? game.me : state.seat,
           "tie-order": game ? game.stack.join(",") : "" };
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

// the same ev question twice in a row (a dice total tapped: the mover changes, the
// position does not) is answered from the last answer
let lastEv = { query: null, doc: null };
async function askEv(asked) {
  const q = query(evParams());
  if (lastEv.query === q) return lastEv.doc;
  const doc = await ask("ev", evParams(), asked);
  lastEv = { query: q, doc };
  return doc;
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

// A change asks its answer DEBOUNCE_MS later (the edits of a drag or of typing come as one
// question); a tap of the turn bar (`now`) asks at once: it is one step, and the next tap
// waits for its answer.
function changed(fromText = false, now = false) {
  changes += 1;
  delete document.body.dataset.ready;
  if (!fromText) state.text = positionText();
  if (pending && pending.position !== state.text) pending = null; // the position changed under it
  if (state.places && phase() !== "over") state.places = null;
  if (state.mover && state.sheep[state.mover - 1] && (state.sheep[state.mover - 1].status !== "running" || phase() === "over")) state.mover = null;
  render();
  clearTimeout(timer);
  timer = setTimeout(solve, now ? 0 : DEBOUNCE_MS);
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
    askEv(asked),
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
  lastAdvice = advice && advice.status === "fulfilled" && advice.value ? advice.value : null;
  drawPace(advice);
  drawAnswer(ev, advice);
  drawTurnBar();
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
  if (ph === "before" && $("advice") && !state.mover) {
    text($("advice").textContent);
    return;
  }
  if (state.mover && advice && advice.status === "rejected") {
    text(el("span", { class: "answer-error" }, `Pace advice for lane ${state.mover}: ${advice.reason.message}`));
    return;
  }
  if (state.mover && advice && advice.status === "fulfilled" && advice.value) {
    const doc = advice.value;
    const rows = doc.options;
    const win = doc.meta.goal === "win";
    const value = (r) => win ? `${pct(r.p_win)} chance to win the game` : `${num(r.expected_points, 3)} points expected`;
    const best = bestOptions(doc);
    const rest = rows.filter((r) => !best.includes(r));
    const name = (r) => optionName(r.option);
    if (statisticalTie(doc)) {
      text(`Lane ${state.mover}: no best option beyond the simulation's noise (`,
        el("span", { id: "answer-tie" }, rows.filter((r) => r.best || r.gap_to_best_hi >= 0).map(name).join(", ")),
        `, ${value(rows[0])}).`);
      return;
    }
    text(`Lane ${state.mover}: `, el("strong", { id: "answer-best" }, best.map(name).join(" or ")),
      best.length > 1 ? ` (equal, ${value(best[0])})` : ` (${value(best[0])}` +
      (rest.length ? `; next best: ${name(rest[0])}, ${win ? pct(rest[0].gap_to_best) : num(rest[0].gap_to_best, 3)})` : ")"),
      doc.meta.objectives_disagree ? `; for ${win ? "points" : "the win"}: ${(win ? doc.meta.best_for_points : doc.meta.best_for_win).map(optionName).join(" or ")}` : "");
    return;
  }
  if (held.length) {
    text(`Your bets are worth ${num(worth(), 3)} points now` + (ph === "over" ? "." : game
      ? ". Tap the dice total for the pace to choose." : ". Mark the sheep the dice chose (moving) for the pace to choose."));
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

// where an answer says "use Monte Carlo": the switch, next to the message
function offerMonteCarlo(box, message) {
  if (message && /use Monte Carlo/.test(message) && !state.mc)
    box.append(el("button", { type: "button", class: "fix use-mc",
      onclick: () => { state.mc = true; changed(); } }, "Simulate instead"));
}

function showError(message) {
  const box = $("error");
  box.hidden = !message;
  box.textContent = message || "";
  offerMonteCarlo(box, message);
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
  if (ph === "before" && (!game || game.step === "bets")) best.append(...betAdvice(doc));
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
  if (final && doc.game && doc.meta.goal === "win" && state.hidden.size < 2) {
    const top = doc.game[0], m = doc.meta;
    out.push(el("p", { class: "best", id: "advice" }, "To win the game bet on ",
      el("strong", {}, `lanes ${top.lanes} (${top.cards})`), ": ",
      el("span", { "data-p-win": String(top.p_win) }, pct(top.p_win)), " chance to win the game, ",
      num(top.ev, 2), " points expected",
      m.objectives_disagree ? `; for points: lanes ${m.best_for_points}` : " (the best for points too)",
      ` (scores ${m.scores.join(", ")}, you in seat ${m.seat}; rivals assumed on ${m.rival_bets.join(" / ")})`));
    return out;
  }
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
  if (advice.status === "rejected") {
    err.hidden = false;
    err.textContent = advice.reason.message;
    offerMonteCarlo(err, advice.reason.message);
    return;
  }
  const doc = advice.value;
  const exact = doc.meta.method === "exact";
  const win = doc.meta.goal === "win";
  const pts = (r, k = "") => r[(win ? "p_win" : "expected_points") + k];
  const best = bestOptions(doc);
  const tie = statisticalTie(doc);
  table.append(el("tr", {}, el("th", {}, ""), el("th", {}, "option"), el("th", {}, "sheep after"),
    el("th", {}, win ? "chance to win the game" : "expected points"),
    ...(win ? [el("th", {}, "expected points")] : []), el("th", {}, "vs best")));
  for (const r of doc.options) {
    const equal = best.includes(r);
    const ci = win ? "" : ciSpan(pts(r, "_lo"), pts(r, "_hi"));
    const star = equal && !tie;
    table.append(el("tr", { class: star ? "best" : "", "data-option": r.option },
      el("td", {}, star ? "★" : ""), el("td", {}, optionName(r.option)),
      el("td", {}, r.after), el("td", { class: "num" }, win ? pct(pts(r)) : num(pts(r), 3), ci),
      ...(win ? [el("td", { class: "num" }, num(r.expected_points, 3))] : []),
      el("td", { class: "num" }, equal ? (tie ? "tie" : best.length > 1 ? "equal" : "best")
        : win ? pct(r.gap_to_best) : num(r.gap_to_best, 3))));
  }
  const m = doc.meta;
  if (tie) assumes.append("No option is best beyond the simulation's noise (the 95% interval of each gap to the first holds 0): simulate more races or use an exact policy. ");
  if (m.objectives_disagree) assumes.append(`For ${win ? "expected points" : "the chance of winning the game"} the best would be ${(win ? m.best_for_points : m.best_for_win).map(optionName).join(" or ")}. `);
  const words = m.objective || `your expected points from this race (payoffs and bonus for your bets on lanes ${m.bets.join(", ")}), every later turn played by ${m.policy}`;
  assumes.append(`Ranked by ${words}` +
    (m.rival_open && m.rival_open.length ? `; rivals open on ${m.rival_open.join(", ")}` : "") +
    (exact ? " (exact)." : `; simulated, ${Number(m.games).toLocaleString("en")} races per option, seed ${m.seed}${m.note ? " (" + m.note + ")" : ""}.`));
}

const optionName = (o) => o.replace(/_/g, " ").toLowerCase().replace("blue2", "2 blue");

// The options as good as the best: the server's marks (exact: within its tie
// tolerance; simulated: equal in every race)
function bestOptions(doc) { return doc.options.filter((r) => r.best === true); }

// Simulated advice whose first option is not better than another beyond the noise: the
// 95% interval of that option's paired gap to the first reaches 0
function statisticalTie(doc) {
  if (doc.meta.method === "exact") return false;
  return doc.options.some((r) => r.best !== true && r.gap_to_best_hi !== undefined && r.gap_to_best_hi >= 0);
}

// ------------------------------------------------------------------ following a game
// A game is semifinal 1, semifinal 2 and the final. Seat 1 plays first in semifinal 1;
// semifinal 2 and the final start with the score leader (ties: the token on top of the
// stack). Before a race the page records the bets as they are placed (open bets in turn
// order, then yours hidden; the final: your two); each turn, the dice total and the pace
// played: the server's engine (/api/race/move: `race move`, the code `race advise` plays
// each option with) gives the next position, so the page and the CLI cannot disagree.
// When the race ends the rivals' hidden bets are revealed and every seat is paid.
const RACE_NAMES = ["semifinal 1", "semifinal 2", "the final"];
let game = null;    // null: one position, no game
let pending = null; // the dice total tapped this turn and /api/race/move's answer for it
const undoStack = [];

function newGame(n, me) {
  return { n, me, race: 0, first: 1, turn: 0, step: "bets",
           scores: Array(n).fill(0),
           stack: Array.from({ length: n }, (_, k) => k + 1), // seats, top of the stack first
           open: {}, hidden: {}, sf1: state.lanes.slice(), podium: [], places: null, points: null };
}

const turnSeat = (k) => ((game.first - 1 + k) % game.n) + 1;
const seatName = (seat) => `seat ${seat}` + (seat === game.me ? " (you)" : "");

// the leader: the most points, ties to the token higher in the stack
function leader() {
  return game.stack.reduce((best, seat) => game.scores[seat - 1] > game.scores[best - 1] ? seat : best, game.stack[0]);
}

// your bets and the rivals' open bets, as the advice asks them
function syncBets() {
  if (!game) return;
  const final = game.race === 2;
  state.open = final ? null : game.open[game.me] || null;
  state.hidden = new Set(game.hidden[game.me] || []);
  state.rival = new Set(final ? [] : Object.entries(game.open)
    .filter(([seat]) => Number(seat) !== game.me).map(([, lane]) => lane));
}

// the next bet to record: {seat, kind}, or null when every bet known before the race is in
function betPrompt() {
  if (game.race < 2) {
    for (let k = 0; k < game.n; k++) if (!game.open[turnSeat(k)]) return { seat: turnSeat(k), kind: "open" };
  }
  return (game.hidden[game.me] || []).length < 2 ? { seat: game.me, kind: "hidden" } : null;
}

// after the race: the next rival whose hidden bets are revealed
function revealPrompt() {
  for (let seat = 1; seat <= game.n; seat++)
    if (seat !== game.me && (game.hidden[seat] || []).length < 2) return { seat, kind: "hidden" };
  return null;
}

function laneAllowed(p, lane) {
  if (p.kind === "open") return !Object.values(game.open).includes(lane);
  return game.open[p.seat] !== lane && !(game.hidden[p.seat] || []).includes(lane);
}

// the points a seat's bets won in the race just over (the engine's score_race)
function racePoints(seat) {
  const final = game.race === 2;
  const lanes = [...(game.hidden[seat] || []), ...(!final && game.open[seat] ? [game.open[seat]] : [])];
  let points = 0, placed = 0;
  game.places.forEach((lane, k) => {
    if (!lanes.includes(lane)) return;
    if (final) { if (k === 0) points += rules.payoffs.final[lane - 1]; } else { points += rules.payoffs.semifinal[k][lane - 1]; placed += 1; }
  });
  if (!final) points += placed === 3 ? rules.bonus.three : placed === 2 ? rules.bonus.two : 0;
  return points;
}

// pay every seat in turn order from the race's first player: a token that moves goes on
// top of the stack
function scoreRace() {
  game.points = {};
  for (let k = 0; k < game.n; k++) {
    const seat = turnSeat(k), points = racePoints(seat);
    game.points[seat] = points;
    if (points > 0) {
      game.scores[seat - 1] += points;
      game.stack = [seat, ...game.stack.filter((x) => x !== seat)];
    }
  }
  if (game.race < 2) game.podium[game.race] = game.places.map((lane) => state.lanes[lane - 1]);
  game.step = game.race === 2 ? "done" : "scored";
}

// semifinal 2 on the six cards semifinal 1 did not use; the final on the semifinals'
// top three (lanes 6, 4, 2: 1st-3rd of semifinal 1; lanes 5, 3, 1: of semifinal 2)
function nextRace() {
  game.race += 1;
  Object.assign(game, { first: leader(), turn: 0, step: "bets", open: {}, hidden: {}, places: null, points: null });
  if (game.race === 1) {
    state.stage = "semifinal";
    state.lanes = rules.cards.map((c) => c.name).filter((name) => !game.sf1.includes(name)).slice(0, 6);
  } else {
    const [a, b] = game.podium;
    state.stage = "final";
    state.lanes = [b[2], a[2], b[1], a[1], b[0], a[0]];
  }
  state.sheep = state.lanes.map(startSheep);
  state.supply = null;
}

function snapshot() {
  return JSON.stringify({ text: state.text, stage: state.stage, lanes: state.lanes, sheep: state.sheep,
    supply: state.supply, open: state.open, hidden: [...state.hidden], rival: [...state.rival], game });
}

function record(action) { // every recorded step can be undone
  undoStack.push(snapshot());
  if (undoStack.length > 500) undoStack.shift();
  pending = null;
  state.mover = null;
  keepText = false;
  action();
  syncBets();
  changed(keepText, true);
}
let keepText = false; // the step set the position string itself (the server's, as it wrote it)

function undo() {
  const snap = undoStack.pop();
  if (!snap) return;
  const v = JSON.parse(snap);
  Object.assign(state, { text: v.text, stage: v.stage, lanes: v.lanes, sheep: v.sheep, supply: v.supply,
    open: v.open, hidden: new Set(v.hidden), rival: new Set(v.rival), mover: null });
  game = v.game;
  pending = null;
  changed(true, true);
}

async function tapTotal(total) {
  const asked = changes, position = state.text;
  pending = { total, position, options: null };
  // the answer shown is for the turn before this total: not ready until the move's is
  delete document.body.dataset.ready;
  $("answer-state").textContent = `total ${total}: asking…`;
  drawTurnBar();
  try {
    const doc = await ask("move", { position, total }, asked);
    if (!pending || pending.position !== position || pending.total !== total) return; // another tap since
    pending = { total, position, lane: doc.meta.lane, reason: doc.meta.reason, options: doc.options };
    state.mover = doc.meta.lane;
    changed(true, true);
  } catch (err) {
    if (err instanceof Superseded) return;
    pending = null;
    $("answer-state").textContent = "";
    showError(err.message);
    drawTurnBar();
    if (asked === changes) document.body.dataset.ready = "1"; // settled: the error is the answer
  }
}

function tapOption(row) {
  record(() => {
    const next = parsePosition(row.next);
    applyPosition(next);
    state.text = row.next;
    keepText = true;
    if (game) {
      game.turn += 1;
      if (game.race === 0) game.sf1 = state.lanes.slice();
      if (row.over) { game.places = row.lanes_by_place.slice(); game.step = "over"; }
    } else {
      state.places = row.over ? row.lanes_by_place.slice() : null;
    }
  });
}

function tapBetLane(lane) {
  const p = game.step === "bets" ? betPrompt() : revealPrompt();
  if (!p || !laneAllowed(p, lane)) return;
  record(() => {
    if (p.kind === "open") game.open[p.seat] = lane;
    else (game.hidden[p.seat] = game.hidden[p.seat] || []).push(lane);
    if (game.step === "bets" && !betPrompt()) game.step = "race";
    if (game.step === "over" && !revealPrompt()) scoreRace();
  });
}

const turnButton = (label, attrs, fn) => el("button", { type: "button", class: "turn-btn", ...attrs, onclick: fn }, label);

// The bar at the bottom: what to tap now (bets as they are placed, the dice total, the
// pace played, the revealed bets), always in view
// (redrawn only when what it shows changes: a button replaced under a finger loses its tap)
function drawTurnBar() {
  const prompt = el("p"), box = el("div");
  $("undo").disabled = undoStack.length === 0;
  fillTurnBar(prompt, box);
  if (prompt.innerHTML !== $("turn-prompt").innerHTML) $("turn-prompt").replaceChildren(...prompt.childNodes);
  if (box.innerHTML !== $("turn-buttons").innerHTML) $("turn-buttons").replaceChildren(...box.childNodes);
}

function fillTurnBar(prompt, box) {
  const over = phase() === "over" || (game && game.step !== "race" && game.step !== "bets");
  const step = game ? game.step : over ? "over" : "race";
  if (step === "bets" || (step === "over" && game)) {
    const p = step === "bets" ? betPrompt() : revealPrompt();
    if (!p) return;
    const mine = game.hidden[p.seat] || [];
    if (step === "over") prompt.append(`Race over: ${placesText(game.places)}. `);
    prompt.append(step === "over" ? `Reveal ${seatName(p.seat)}'s hidden bets: tap two lanes` :
      p.kind === "open" ? `${RACE_NAMES[game.race]}: ${seatName(p.seat)} bets openly: tap the lane`
        : game.race === 2 ? "The final: your two bets: tap two lanes" : "Your two hidden bets: tap two lanes",
      mine.length ? ` (lane ${mine.join(", ")} so far)` : "");
    for (let lane = 1; lane <= 6; lane++)
      box.append(turnButton(`${lane} ${state.lanes[lane - 1]}`, { "data-bet-lane": lane, disabled: !laneAllowed(p, lane) }, () => tapBetLane(lane)));
    return;
  }
  if (step === "scored" || step === "done") {
    const pts = Object.entries(game.points).map(([seat, x]) => `seat ${seat} +${x}`).join(", ");
    prompt.append(`${RACE_NAMES[game.race]} over: ${placesText(game.places)}. Points: ${pts}. Scores: ${game.scores.join(", ")}.`);
    if (step === "done") {
      const w = leader();
      prompt.append(" ", el("strong", { id: "game-winner" }, `${seatName(w)} wins the game with ${game.scores[w - 1]} points.`));
    } else {
      box.append(turnButton(`Start ${RACE_NAMES[game.race + 1]} (${seatName(leader())} first)`, { id: "next-race" }, () => record(nextRace)));
    }
    return;
  }
  if (step === "over") { prompt.append("The race is over" + (state.places ? `: ${placesText(state.places)}.` : ".")); return; }
  const who = game ? `Turn ${game.turn + 1}, ${seatName(turnSeat(game.turn))} rolls. ` : "";
  if (pending && pending.options) {
    const why = pending.reason === "dice" ? "" : `, the ${pending.reason},`;
    prompt.append(`${who}Total ${pending.total}: lane ${pending.lane} ${state.lanes[pending.lane - 1]}${why} moves. Tap the pace played:`);
    const adv = lastAdvice && lastAdvice.meta.position === state.text && lastAdvice.meta.lane === pending.lane ? lastAdvice : null;
    const best = adv && !statisticalTie(adv) ? bestOptions(adv).map((r) => r.option) : [];
    for (const row of pending.options)
      box.append(turnButton(`${best.includes(row.option) ? "★ " : ""}${optionName(row.option)} → ${row.after}`,
        { "data-option": row.option, class: `turn-btn${best.includes(row.option) ? " best" : ""}` }, () => tapOption(row)));
    box.append(turnButton("other total", { id: "other-total" }, () => { pending = null; state.mover = null; changed(true); }));
    return;
  }
  prompt.append(`${who}Tap the dice total` + (pending ? ` (${pending.total}: asking…)` : ":"));
  const totals = Object.keys(rules.dice[state.stage].totals).map(Number).sort((a, b) => a - b);
  for (const t of totals)
    box.append(turnButton(String(t), { "data-total": t, "aria-label": `dice total ${t}` + (t === 9 ? " (the Lazy Sheep)" : ""), disabled: Boolean(pending) }, () => tapTotal(t)));
}

function placesText(places) {
  return places.map((lane, k) => `${PLACES[k]} lane ${lane}`).join(", ");
}

// the game in the URL: a link shares or resumes it
function gameParam() {
  return game ? JSON.stringify(game) : null;
}

function gameFromParam(text) {
  if (!text) return null;
  try {
    const g = JSON.parse(text);
    const ok = Number.isInteger(g.n) && g.n >= 2 && g.n <= 6 && Number.isInteger(g.me) && g.me >= 1 && g.me <= g.n &&
      [0, 1, 2].includes(g.race) && Array.isArray(g.scores) && g.scores.length === g.n && Array.isArray(g.stack) &&
      g.stack.length === g.n && ["bets", "race", "over", "scored", "done"].includes(g.step);
    return ok ? g : null;
  } catch (_) { return null; }
}

function drawGame() {
  const inGame = Boolean(game);
  document.body.classList.toggle("in-game", inGame);
  $("stage").disabled = inGame; // the game sets the race
  $("game-setup").hidden = inGame;
  $("end-game").hidden = !inGame;
  const seat = $("seat");
  const n = inGame ? game.n : Number($("players").value);
  if (seat.options.length !== n) {
    seat.replaceChildren(...Array.from({ length: n }, (_, k) => el("option", { value: k + 1 }, String(k + 1))));
  }
  seat.value = inGame ? game.me : state.seat;
  const scores = $("scores");
  const shown = inGame ? game.scores : state.scores;
  if (document.activeElement !== scores) scores.value = shown ? shown.join(", ") : "";
  $("game-state").textContent = inGame
    ? `${RACE_NAMES[game.race]} · ${game.n} players · you are seat ${game.me} · ${seatName(game.first)} first · ` +
      (game.step === "scored" || game.step === "done" ? `scores after this race ${game.scores.join(", ")}`
        : `scores before this race ${game.scores.join(", ")}` + (game.race === 2 ? " (the advice plays to win the game once they differ)" : ""))
    : "";
}

function gameControls() {
  const players = $("players");
  for (let k = 2; k <= 6; k++) players.append(el("option", { value: k, selected: k === 4 }, String(k)));
  players.addEventListener("change", () => { state.seat = Math.min(state.seat, Number(players.value)); drawGame(); });
  $("seat").addEventListener("change", (e) => { state.seat = Number(e.target.value); if (!game) changed(); });
  $("start-game").addEventListener("click", () => record(() => {
    game = newGame(Number(players.value), state.seat);
    state.stage = "semifinal";
    state.sheep = state.lanes.map(startSheep);
    state.supply = null;
  }));
  $("end-game").addEventListener("click", () => record(() => { game = null; }));
  $("undo").addEventListener("click", undo);
  $("scores").addEventListener("change", (e) => {
    const text = e.target.value.trim();
    const parts = text === "" ? [] : text.split(/[\s,]+/).map(Number);
    const n = game ? game.n : parts.length;
    if (text !== "" && (parts.some((x) => !Number.isInteger(x) || x < 0) || parts.length !== n || n < 2 || n > 6)) {
      showError(`Scores: ${game ? game.n : "2-6"} whole numbers >= 0, one per seat in seat order (e.g. 12, 18, 7).`);
      return;
    }
    if (game) record(() => { game.scores = parts; });
    else { state.scores = parts.length ? parts : null; changed(); }
  });
  document.addEventListener("keydown", (e) => {
    if (e.target.closest && e.target.closest("input, select, textarea, #board")) return;
    if ((e.ctrlKey || e.metaKey) && e.key === "z") { e.preventDefault(); undo(); return; }
    if (e.ctrlKey || e.metaKey || e.altKey) return;
    const buttons = [...$("turn-buttons").querySelectorAll("button:not(:disabled)")];
    if (/^[1-9]$/.test(e.key)) { // a digit taps the total, the bet lane or the n-th pace
      const b = buttons.find((x) => x.dataset.total === e.key || x.dataset.betLane === e.key) ||
        (buttons[0] && buttons[0].dataset.option ? buttons[Number(e.key) - 1] : null);
      if (b) { e.preventDefault(); b.click(); }
    }
  });
}

// ------------------------------------------------------------------ the whole page
// what each pace policy does: every answer assumes every later turn is played by it
const POLICY_HELP = {
  greedy: "crosses the line when it can, else the farthest move that does not exhaust the sheep",
  saver: "greedy, but keeps white cubes for the End Zone",
  steady: "saver that rests at one cube outside the End Zone",
  random: "any legal option at random (simulated)",
  partisan: "pushes the sheep its player bet on, stalls and exhausts sheep only rivals' open bets are on (simulated)",
};

function render() {
  $("policy-help").textContent = `Every later turn played ${state.policy}: ${POLICY_HELP[state.policy] || "a built-in policy"}. The advice changes with it.`;
  $("stage").value = state.stage;
  $("policy").value = state.policy;
  $("mc").checked = state.mc;
  const supply = $("supply");
  supply.placeholder = `${autoSupply()} (auto)`;
  if (document.activeElement !== supply) supply.value = state.supply === null ? "" : state.supply;
  const pos = $("position");
  if (document.activeElement !== pos) pos.value = state.text;
  $("cli").textContent = cliLine("ev", { position: state.text, taken: state.stage === "final" ? "" : lanesList(state.rival), policy: state.policy }) +
    (state.mover && (state.open || state.hidden.size) ? "\n" + cliLine("advise", adviseParams()) : "");
  drawBoard();
  drawLanes();
  drawGame();
  drawTurnBar();
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
  policy.setAttribute("aria-describedby", "policy-help");
  $("mc").addEventListener("change", (e) => { state.mc = e.target.checked; changed(); });
  $("new-race").addEventListener("click", () => {
    state.sheep = state.lanes.map(startSheep);
    state.supply = null; state.open = null; state.mover = null;
    state.hidden.clear(); state.rival.clear();
    changed();
  });
  $("supply").addEventListener("change", (e) => {
    const v = e.target.value.trim();
    // the supply holds what the rules' blue cubes leave off the cards shown, at most
    const shown = state.sheep.reduce((t, x) => t + (x.status === "finished" ? 0 : x.blue), 0);
    const most = rules.supply.blue - shown;
    if (v !== "" && !(/^\d+$/.test(v) && Number(v) <= most)) {
      showError(`Blue supply ${v}: a whole number 0-${most} (the rules have ${rules.supply.blue} blue cubes, ${shown} on the cards shown).`);
      e.target.value = state.supply === null ? "" : state.supply;
      return;
    }
    state.supply = v === "" ? null : Number(v);
    changed();
  });
  const pos = $("position");
  const edited = () => {
    if (pos.value.trim() === state.text) return; // Enter, then the change event on leaving
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
  gameControls();
  render();
  solve();
}

main();
