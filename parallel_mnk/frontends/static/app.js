// The analysis board of `parallel-mnk serve`: the game in the URL, clicks, and the
// answers of /api/analyze, /api/solve and /api/best drawn on the board. No library.
"use strict";

const $ = (id) => document.getElementById(id);
const PRESETS = {connect4: {cols: 7, rows: 6, k: 4, gravity: true}, tictactoe: {cols: 3, rows: 3, k: 3, gravity: false}};
const MAX_EXACT = 64;      // cells the exact solver takes; bigger boards get the depth-limited engine
const BEST_TIME = 3;       // seconds of the depth-limited engine per position
const client = Math.random().toString(36).slice(2, 12);   // this page: a new request stops its old search

const state = {
  preset: "connect4", spec: PRESETS.connect4, moves: [], redo: [], engine: 0,
  seq: 0,                  // the position's number: answers for older ones are dropped
  analysis: null, solution: null, best: null, busy: false, notice: "",
};

// ------------------------------------------------------------------ the game
function cellOf(spec, cells, move) {   // the cell a move fills (gravity: the lowest empty one of its column), or -1
  if (!spec.gravity) return cells[move] === 0 ? move : -1;
  for (let r = spec.rows - 1; r >= 0; r--) if (cells[r * spec.cols + move] === 0) return r * spec.cols + move;
  return -1;
}

function lineThrough(spec, cells, cell) {   // the cells of a k-line through `cell`, or null
  const who = cells[cell], r0 = Math.floor(cell / spec.cols), c0 = cell % spec.cols;
  for (const [dr, dc] of [[0, 1], [1, 0], [1, 1], [1, -1]]) {
    const run = [cell];
    for (const s of [1, -1]) {
      for (let r = r0 + s * dr, c = c0 + s * dc; r >= 0 && r < spec.rows && c >= 0 && c < spec.cols
           && cells[r * spec.cols + c] === who; r += s * dr, c += s * dc) run.push(r * spec.cols + c);
    }
    if (run.length >= spec.k) return run;
  }
  return null;
}

function replay(spec, moves) {   // {cells, win (the winning line or null), full, error}
  const cells = new Array(spec.cols * spec.rows).fill(0);
  let win = null;
  for (let i = 0; i < moves.length; i++) {
    const cell = win ? -1 : cellOf(spec, cells, moves[i]);
    if (cell < 0) return {cells, win, full: false, error: `move ${i + 1} (${moveText(spec, moves[i])}) is not legal`};
    cells[cell] = i % 2 + 1;
    win = lineThrough(spec, cells, cell);
  }
  return {cells, win, full: moves.length === cells.length, error: null};
}

function legal(spec, cells, over) {
  if (over) return [];
  const n = spec.gravity ? spec.cols : spec.cols * spec.rows;
  return [...Array(n).keys()].filter((m) => cellOf(spec, cells, m) >= 0);
}

function moveText(spec, m) {   // the notation of docs/design.md: column from 1, or a cell like b2 (a1 bottom-left)
  if (spec.gravity) return String(m + 1);
  return String.fromCharCode(97 + m % spec.cols) + (spec.rows - Math.floor(m / spec.cols));
}

function movesText(spec, moves) {
  const parts = moves.map((m) => moveText(spec, m));
  return spec.gravity && spec.cols <= 9 ? parts.join("") : parts.join(",");
}

function parseMoves(spec, text) {   // a move list of the URL, or null when it is not one
  const tokens = text.trim().split(/[,\s]+/).filter((t) => t);
  const list = spec.gravity && tokens.length === 1 && spec.cols <= 9 && /^\d+$/.test(tokens[0]) ? [...tokens[0]] : tokens;
  const out = [];
  for (const t of list) {
    const m = spec.gravity ? parseInt(t, 10) - 1 : cellIndex(spec, t.toLowerCase());
    if (!(m >= 0 && m < (spec.gravity ? spec.cols : spec.cols * spec.rows)) || (spec.gravity && !/^\d+$/.test(t))) return null;
    out.push(m);
  }
  return out;
}

function cellIndex(spec, t) {
  const m = /^([a-z])(\d+)$/.exec(t);
  if (!m) return -1;
  const col = m[1].charCodeAt(0) - 97, row = parseInt(m[2], 10);
  return col < spec.cols && row >= 1 && row <= spec.rows ? (spec.rows - row) * spec.cols + col : -1;
}

// ------------------------------------------------------------------ the URL
function gameParams() {
  const s = state.spec;
  return state.preset !== "custom" ? {game: state.preset}
    : {cols: s.cols, rows: s.rows, k: s.k, ...(s.gravity ? {gravity: 1} : {})};
}

function writeUrl() {
  const q = new URLSearchParams({...gameParams(), moves: movesText(state.spec, state.moves)});
  if (state.engine) q.set("engine", state.engine === 1 ? "x" : "o");
  history.replaceState(null, "", "?" + q.toString());
}

function readUrl() {
  const q = new URLSearchParams(location.search);
  const game = q.get("game");
  if (game && !PRESETS[game]) state.notice = `unknown game ${game} in the address (connect4 or tictactoe)`;
  if (game && PRESETS[game]) {
    state.preset = game;
    state.spec = PRESETS[game];
  } else if (q.has("cols") || q.has("rows") || q.has("k")) {
    const n = (name, d) => (/^\d+$/.test(q.get(name) || "") ? parseInt(q.get(name), 10) : d);
    state.preset = "custom";
    state.spec = {cols: n("cols", 7), rows: n("rows", 6), k: n("k", 4), gravity: ["1", "true", "yes", "on", ""].includes(q.get("gravity") ?? "0")};
  }
  state.engine = {x: 1, o: 2}[(q.get("engine") || "").toLowerCase()] || 0;
  const moves = parseMoves(state.spec, q.get("moves") || "");
  if (moves === null) state.notice = `the moves in the address are not a move list of this game: ${q.get("moves")}`;
  state.moves = moves || [];
}

// ------------------------------------------------------------------ the API
let poll = null;

async function api(kind, params) {   // the JSON answer, or null when a newer request replaced this one
  const q = new URLSearchParams({...gameParams(), moves: movesText(state.spec, state.moves), ...params, client});
  startStatus();
  try {
    const response = await fetch(`/api/${kind}?${q}`);
    const body = await response.json();
    if (response.status === 409) return null;
    if (!response.ok) throw new Error(body.error || response.statusText);
    return body;
  } finally {
    stopStatus();
  }
}

function startStatus() {
  stopStatus();
  state.busy = true;
  poll = setInterval(async () => {
    try {
      const s = await (await fetch(`/api/status?client=${client}`)).json();
      if (!state.busy || s.state === "idle") return;
      $("status").textContent = s.state === "waiting" ? `waiting for the pool (${s.waiting} in the queue)...`
        : `searching (${s.kind}): ${(s.nodes / 1e6).toFixed(1)} M nodes, ${s.elapsed_s.toFixed(1)} s`;
    } catch (e) { /* the next poll tries again */ }
  }, 200);
}

function stopStatus() {
  if (poll) clearInterval(poll);
  poll = null;
  state.busy = false;
  $("status").textContent = "";
}

function showError(text) { $("error").textContent = text || ""; }

// ------------------------------------------------------------------ a position
async function refresh() {
  const seq = ++state.seq;
  state.analysis = state.solution = state.best = null;
  showError(state.notice);
  state.notice = "";
  writeUrl();
  render();
  const game = replay(state.spec, state.moves);
  if (game.error || game.win || game.full) return;
  const limit = {time_limit: parseFloat($("time").value) > 0 ? $("time").value : 10};
  try {
    if (state.spec.cols * state.spec.rows <= MAX_EXACT) {
      const a = await api("analyze", limit);
      if (a === null || seq !== state.seq) return;
      state.analysis = a;
      render(true);
      if (a.value === "unknown") {       // out of the exact solver's reach in time: ask the engine
        state.best = await api("best", {time_limit: Math.min(BEST_TIME, limit.time_limit)});
        if (seq !== state.seq) return;
        render(true);
      }
      if (await engineMove(seq) || a.value === "unknown") return;
      const s = await api("solve", limit);
      if (s === null || seq !== state.seq) return;
      state.solution = s;
    } else {
      const b = await api("best", {time_limit: Math.min(BEST_TIME, limit.time_limit)});
      if (b === null || seq !== state.seq) return;
      state.best = b;
      render(true);
      if (await engineMove(seq)) return;
    }
  } catch (e) {
    if (seq === state.seq) showError(e.message);
  }
  if (seq === state.seq) render(true);
}

async function engineMove(seq) {   // the engine's move when it is its turn; true if it moved
  const toMove = state.moves.length % 2 + 1;
  if (state.engine !== toMove) return false;
  const a = state.analysis;
  const text = a && a.best_moves.length ? a.best_moves[0] : state.best && state.best.best_move;
  if (!text) return false;
  await new Promise((done) => setTimeout(done, 300));   // the scores stay in sight a moment
  if (seq !== state.seq) return true;
  play(parseMoves(state.spec, text)[0]);
  return true;
}

function play(move) {
  state.moves.push(move);
  if (state.redo.length && state.redo[state.redo.length - 1] === move) state.redo.pop();
  else state.redo = [];
  refresh();
}

// ------------------------------------------------------------------ drawing
function colour(score, worst) {   // green for a win, red for a loss, stronger the sooner it comes
  const t = Math.min(1, Math.abs(score) / Math.max(1, worst));
  if (score > 0) return `hsl(130, 55%, ${62 - 28 * t}%)`;
  if (score < 0) return `hsl(2, 70%, ${66 - 26 * t}%)`;
  return "hsl(210, 12%, 72%)";
}

function scoreText(m) {
  if (m.value === "unknown") return "?";
  if (m.score === null) return m.value;
  return m.score > 0 ? `+${m.score}` : String(m.score);
}

function render(ready) {
  const spec = state.spec, game = replay(spec, state.moves), board = $("board");
  const over = Boolean(game.win || game.full || game.error);
  const moves = legal(spec, game.cells, over);
  const entries = new Map((state.analysis ? state.analysis.moves : []).map((m) => [m.move, m]));
  const exact = state.analysis ? state.analysis.best_moves : [];
  const best = new Set(exact.length ? exact : state.best ? [state.best.best_move] : []);
  const landing = new Map(moves.map((m) => [cellOf(spec, game.cells, m), m]));
  const side = Math.max(22, Math.min(64, Math.floor(600 / Math.max(spec.cols, spec.rows))));
  $("frame").style.setProperty("--cell", `${side}px`);
  board.style.gridTemplateColumns = `repeat(${spec.cols}, var(--cell))`;
  board.className = spec.gravity ? "gravity" : "free";
  board.replaceChildren();
  for (let cell = 0; cell < game.cells.length; cell++) {
    const div = document.createElement("div");
    div.className = "cell";
    const who = game.cells[cell];
    if (who) {
      div.classList.add(who === 1 ? "x" : "o");
      if (game.win && game.win.includes(cell)) div.classList.add("won");
      if (!spec.gravity) div.textContent = who === 1 ? "X" : "O";
    } else if (landing.has(cell)) {
      const move = landing.get(cell), text = moveText(spec, move), m = entries.get(text);
      if (m || best.has(text)) {   // its score, or the depth-limited engine's choice
        const label = document.createElement("span");
        label.className = "score";
        label.dataset.move = text;
        if (m) {
          label.textContent = label.dataset.score = scoreText(m);
          if (m.score !== null) label.style.background = colour(m.score, Math.floor(game.cells.length / 2));
          label.classList.add(m.value);
        } else {
          label.textContent = "best";
          label.classList.add("suggested");
        }
        if (best.has(text)) label.classList.add("best");
        div.append(label);
      }
    }
    const col = cell % spec.cols;
    const target = spec.gravity ? (moves.includes(col) ? col : -1) : (landing.has(cell) ? cell : -1);
    if (target >= 0) {
      div.classList.add("playable");
      div.dataset.col = col;
      div.addEventListener("click", () => play(target));
    }
    board.append(div);
  }
  drawCoordinates(spec);
  board.dataset.position = movesText(spec, state.moves);
  board.dataset.ready = ready && (state.analysis || state.best) ? movesText(spec, state.moves) : "";
  describe(game, over);
}

function drawCoordinates(spec) {   // column numbers (gravity) or letters under the board, row numbers beside it
  const files = $("files"), ranks = $("ranks");
  files.style.gridTemplateColumns = `repeat(${spec.cols}, var(--cell))`;
  files.replaceChildren(...[...Array(spec.cols).keys()].map((c) => {
    const span = document.createElement("span");
    span.textContent = spec.gravity ? String(c + 1) : String.fromCharCode(97 + c);
    return span;
  }));
  ranks.style.gridTemplateRows = `repeat(${spec.rows}, var(--cell))`;
  ranks.replaceChildren(...(spec.gravity ? [] : [...Array(spec.rows).keys()].map((r) => {
    const span = document.createElement("span");
    span.textContent = String(spec.rows - r);
    return span;
  })));
}

function describe(game, over) {
  const spec = state.spec, side = state.moves.length % 2 ? "O" : "X";
  const a = state.analysis, s = state.solution, b = state.best;
  $("undo").disabled = !state.moves.length;
  $("redo").disabled = !state.redo.length;
  $("tomove").textContent = game.error ? game.error
    : game.win ? `game over: ${game.cells[game.win[0]] === 1 ? "X" : "O"} has won`
    : game.full ? "game over: a draw (the board is full)"
    : `${side}${spec.gravity ? (side === "X" ? " (red)" : " (yellow)") : ""} to move (${state.moves.length} stones)`;
  $("value").textContent = over ? "" : a && a.value !== "unknown"
    ? `value: ${a.value} for ${side}${a.score === null ? "" : `, score ${a.score > 0 ? "+" : ""}${a.score}`} (exact)`
    : a ? "value: unknown (not solved within the time limit; '?' on the board)" : "";
  $("best").textContent = over ? "" : a && a.best_moves.length ? `best moves: ${a.best_moves.join(" ")}`
    : b ? `depth-limited engine: ${b.best_move} (${b.win_in !== null ? `wins in ${Math.ceil(b.win_in / 2)}`
      : b.loss_in !== null ? `loses in ${Math.ceil(b.loss_in / 2)}` : `heuristic ${b.score}`}, depth ${b.depth}; not exact)` : "";
  $("line").textContent = over || !s || !s.pv.length ? "" : `perfect line: ${s.pv.join(" ")}`;
  const f = a || b;
  $("figures").textContent = f && !over ? `${f.nodes.toLocaleString()} nodes, ${f.time_s.toFixed(3)} s`
    + (a && a.proof === "book" ? " (from the opening book)" : "") : "";
  $("hint").textContent = spec.cols * spec.rows > MAX_EXACT
    ? `${spec.cols}x${spec.rows} has more than ${MAX_EXACT} cells: the exact solver does not take it, so the depth-limited engine suggests a move (not exact).`
    : spec.gravity ? "Click a column to drop a stone." : "Click an empty cell to put a stone.";
}

// ------------------------------------------------------------------ controls
function setGame(preset, spec) {
  state.preset = preset;
  state.spec = spec;
  state.moves = [];
  state.redo = [];
  syncForm();
  refresh();
}

function syncForm() {
  $("preset").value = state.preset;
  for (const name of ["cols", "rows", "k"]) $(name).value = state.spec[name];
  $("gravity").checked = state.spec.gravity;
  $("sizes").hidden = state.preset !== "custom";
  $("engine").value = String(state.engine);
}

$("preset").addEventListener("change", () => {
  const p = $("preset").value;
  if (p === "custom") { state.preset = "custom"; syncForm(); return; }
  setGame(p, PRESETS[p]);
});
$("game").addEventListener("submit", (e) => {
  e.preventDefault();
  if ($("preset").value !== "custom") { setGame($("preset").value, PRESETS[$("preset").value]); return; }
  const n = (id) => parseInt($(id).value, 10);
  const spec = {cols: n("cols"), rows: n("rows"), k: n("k"), gravity: $("gravity").checked};
  if (![spec.cols, spec.rows, spec.k].every((v) => v >= 1) || spec.cols > 26 || spec.cols * spec.rows > 676) {
    showError("cols and rows from 1 to 26, k at least 1");
    return;
  }
  setGame("custom", spec);
});
$("undo").addEventListener("click", () => {   // against the engine, back to your own turn
  if (!state.moves.length) return;
  do state.redo.push(state.moves.pop());
  while (state.moves.length && state.engine === state.moves.length % 2 + 1);
  refresh();
});
$("redo").addEventListener("click", () => { if (state.redo.length) { state.moves.push(state.redo.pop()); refresh(); } });
$("engine").addEventListener("change", () => { state.engine = parseInt($("engine").value, 10); refresh(); });
$("flip").addEventListener("click", () => {   // you take the engine's side; without an engine, it takes the side to move
  state.engine = state.engine ? 3 - state.engine : state.moves.length % 2 + 1;
  syncForm();
  refresh();
});
$("time").addEventListener("change", refresh);

readUrl();
syncForm();
refresh();
