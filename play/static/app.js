// The page: draws the game the server sends (GET/POST /api/games...) and turns clicks and drags into moves.
//
// The server is the referee: it sends the position, the user's legal moves (start, path of landing
// squares, captured squares, PDN text) and the squares that must capture. This script only picks
// among those moves, leg by leg, and explains why a square is refused.
"use strict";

const FILES = "abcdefghij";
const VARIANT_TITLES = {
  american: "American / English checkers",
  russian: "Russian draughts",
  brazilian: "Brazilian draughts",
  spanish: "Spanish draughts",
  italian: "Italian draughts",
  czech: "Czech draughts",
  international: "International draughts (10x10)",
  pool: "Pool checkers",
};

const state = {
  variants: [],
  checkpoints: [], // [{name, variant, algo}] from GET /api/checkpoints
  pendingCheckpoint: null, // the checkpoint of a reopened game, chosen in the list once it arrives
  game: null,
  flipped: false,
  selected: null, // index of the picked piece
  legs: [], // landing squares chosen so far for the picked piece
  busy: false,
  drag: null,
  view: null, // plies shown while stepping through the moves (view only); null: the live position
};

const $ = (id) => document.getElementById(id);

async function api(method, url, body) {
  const options = { method, headers: {} };
  if (body !== undefined) {
    options.headers["Content-Type"] = "application/json";
    options.body = JSON.stringify(body);
  }
  const response = await fetch(url, options);
  let data = null;
  try {
    data = await response.json();
  } catch (_) {
    data = null;
  }
  if (!response.ok) {
    throw new Error((data && data.error) || `the server answered ${response.status}`);
  }
  return data;
}

// A line under the board: kind "error" (a refusal, in the error colour) or "hint" (what to do next, neutral).
function say(text, kind = "error") {
  const message = $("message");
  message.textContent = text || "";
  message.className = text ? kind : "";
}

function capitalize(word) {
  return word.charAt(0).toUpperCase() + word.slice(1);
}

// ------------------------------------------------------------------ set-up form

function currentVariant() {
  return state.variants.find((v) => v.name === $("variant").value);
}

function updateForm() {
  const variant = currentVariant();
  if (variant) {
    const forced = $("forced-capture");
    forced.disabled = !variant.house_rule_allowed;
    if (!variant.house_rule_allowed) forced.checked = true;
    for (const option of $("color").options) {
      const first = option.value === variant.first_player;
      option.textContent = capitalize(option.value) + (first ? " (moves first)" : "");
    }
  }
  const kind = $("opponent-kind").value;
  $("depth-label").hidden = kind !== "minimax";
  $("checkpoint-label").hidden = kind !== "checkpoint";
}

// Set the form to the settings of a game opened from the address, so that "New game" repeats them.
function showSettings(game) {
  $("variant").value = game.variant;
  $("forced-capture").checked = game.rules.forced_capture;
  $("color").value = game.user_color;
  const [kind, depth] = game.opponent.split(":");
  if (kind === "minimax" && /^\d+$/.test(depth || "")) {
    $("opponent-kind").value = "minimax";
    $("depth").value = depth;
  } else if (game.opponent === "random") {
    $("opponent-kind").value = "random";
  } else if (game.opponent.toLowerCase().endsWith(".pt")) {
    $("opponent-kind").value = "checkpoint";
    state.pendingCheckpoint = game.opponent; // chosen once the list has arrived
    $("checkpoint").value = game.opponent;
  }
  updateForm();
}

function opponentSpec() {
  const kind = $("opponent-kind").value;
  if (kind === "minimax") return `minimax:${$("depth").value}`;
  if (kind === "checkpoint") return $("checkpoint").value;
  return "random";
}

// Start a game with the form's settings; `setup` adds {fen} (a position) or {pdn} (a game to go on from).
async function newGame(event, setup = {}) {
  if (event) event.preventDefault();
  if ($("opponent-kind").value === "checkpoint" && !$("checkpoint").value) {
    say("Choose a checkpoint: this server has none to offer, or the list has not arrived yet.");
    return;
  }
  const body = {
    variant: $("variant").value,
    color: $("color").value,
    opponent: opponentSpec(),
  };
  if (!$("forced-capture").checked) body.rules = { forced_capture: false };
  Object.assign(body, setup);
  if (setup.pdn) delete body.variant; // a PDN game names its variant (GameType tag)
  state.busy = true;
  $("status").textContent = "Starting a new game…";
  say("");
  try {
    setGame(await api("POST", "/api/games", body));
    // White is drawn at the bottom; a user playing Black sees the board from their side.
    state.flipped = state.game.user_color === "black";
    if (setup.fen || setup.pdn) showSettings(state.game);
  } catch (error) {
    say(error.message);
  } finally {
    state.busy = false;
    render();
  }
}

function setGame(game) {
  state.game = game;
  state.selected = null;
  state.legs = [];
  state.view = null;
  history.replaceState(null, "", `#${game.id}`);
}

// The set-up box: a FEN position or a PDN game (typed, pasted or read from a file) to start from.
function setupText() {
  const text = $("setup-text").value.trim();
  if (!text) say("Paste a FEN position or a PDN game first (or choose a PDN file).");
  return text;
}

async function readSetupFile() {
  const file = $("setup-file").files[0];
  if (file) $("setup-text").value = await file.text();
}

// ------------------------------------------------------------------ moves

function pieceAt(index) {
  return state.game.pieces.find((p) => p.index === index) || null;
}

function isMine(index) {
  const piece = pieceAt(index);
  return piece !== null && piece.color === state.game.user_color;
}

function moveKey(move) {
  return [move.start, move.path[move.path.length - 1], [...move.captures].sort((a, b) => a - b).join(","), move.promotes].join("|");
}

function distinct(moves) {
  const seen = new Map();
  for (const move of moves) if (!seen.has(moveKey(move))) seen.set(moveKey(move), move);
  return [...seen.values()];
}

// The user's legal moves that start on the picked piece and follow the legs chosen so far.
function candidates() {
  if (state.selected === null) return [];
  return state.game.legal_moves.filter(
    (m) => m.start === state.selected && state.legs.every((sq, i) => m.path[i] === sq),
  );
}

function squareName(index) {
  return state.game.squares[index].name;
}

function mustCaptureText() {
  const names = state.game.must_capture.map(squareName);
  const who = names.length === 1 ? `the piece on ${names[0]} must capture` : `the pieces circled in red (${names.join(", ")}) can capture, and one of them must`;
  return `Capture is compulsory: ${who}.`;
}

function canPlay() {
  const game = state.game;
  return game && !state.busy && !game.outcome && game.user_to_move && state.view === null;
}

function pick(index) {
  const game = state.game;
  const moves = game.legal_moves.filter((m) => m.start === index);
  if (!moves.length) {
    state.selected = null;
    state.legs = [];
    if (game.must_capture.length) {
      say(mustCaptureText());
      flashMustCapture();
    } else {
      say(`The piece on ${squareName(index)} cannot move.`);
    }
    render();
    return false;
  }
  state.selected = index;
  state.legs = [];
  say("");
  render();
  return true;
}

function unpick() {
  state.selected = null;
  state.legs = [];
  render();
}

// A click (or a drop) on square `index` while a piece is picked.
function target(index) {
  const cands = candidates();
  const next = cands.filter((m) => m.path[state.legs.length] === index);
  if (next.length) {
    state.legs.push(index);
    const done = candidates().filter((m) => m.path.length === state.legs.length);
    if (done.length) {
      submit(done[0]);
    } else {
      say("Keep capturing: click the next landing square.", "hint");
      render();
    }
    return;
  }
  const ending = distinct(cands.filter((m) => m.path[m.path.length - 1] === index));
  if (ending.length === 1) {
    submit(ending[0]);
    return;
  }
  if (ending.length > 1) {
    say(`Several captures end on ${squareName(index)}: click the landing squares of the one you want, one by one.`, "hint");
    render();
    return;
  }
  if (!state.legs.length && isMine(index)) {
    pick(index);
    return;
  }
  if (state.game.must_capture.length) {
    say(mustCaptureText());
    flashMustCapture();
  } else {
    say(`The piece on ${squareName(state.selected)} cannot go to ${squareName(index)}.`);
  }
  render();
}

async function submit(move) {
  const game = state.game;
  const ply = game.ply; // the server refuses the move (409) if the game moved on meanwhile
  state.busy = true;
  state.selected = null;
  state.legs = [];
  // Show the user's move at once; the server's answer (with the computer's reply) replaces it.
  const captured = new Set(move.captures);
  game.pieces = game.pieces
    .filter((p) => !captured.has(p.index))
    .map((p) => (p.index === move.start ? { ...p, index: move.path[move.path.length - 1], king: p.king || move.promotes } : p));
  game.legal_moves = [];
  game.must_capture = [];
  game.moves = [...game.moves, { ...move, color: game.user_color }];
  say("");
  render("The computer is thinking…");
  try {
    setGame(await api("POST", `/api/games/${game.id}/move`, { move: { start: move.start, path: move.path }, ply }));
  } catch (error) {
    say(error.message);
    try {
      setGame(await api("GET", `/api/games/${game.id}`));
    } catch (_) {
      /* the message above says what went wrong */
    }
  } finally {
    state.busy = false;
    render();
  }
}

async function undo() {
  if (!state.game || state.busy) return;
  state.busy = true;
  try {
    setGame(await api("POST", `/api/games/${state.game.id}/undo`, { ply: state.game.ply }));
    say("");
  } catch (error) {
    say(error.message);
  } finally {
    state.busy = false;
    render();
  }
}

// Resign takes two clicks (the first arms the button for a few seconds), so that a slip does not lose the game.
let resignArmed = null;

async function resign() {
  if (!state.game || state.busy) return;
  const button = $("resign");
  if (!resignArmed) {
    button.textContent = "Click again to resign";
    button.classList.add("armed");
    resignArmed = setTimeout(disarmResign, 4000);
    return;
  }
  disarmResign();
  state.busy = true;
  try {
    setGame(await api("POST", `/api/games/${state.game.id}/resign`, { ply: state.game.ply }));
    say("");
  } catch (error) {
    say(error.message);
  } finally {
    state.busy = false;
    render();
  }
}

function disarmResign() {
  clearTimeout(resignArmed);
  resignArmed = null;
  $("resign").textContent = "Resign";
  $("resign").classList.remove("armed");
}

// The computer accepts or declines by the server's documented rule (its evaluation); the answer is shown.
async function offerDraw() {
  if (!state.game || state.busy) return;
  state.busy = true;
  render("The computer considers your offer…");
  try {
    const data = await api("POST", `/api/games/${state.game.id}/draw`, { ply: state.game.ply });
    setGame(data);
    say(data.draw_offer.text, "hint");
  } catch (error) {
    say(error.message);
  } finally {
    state.busy = false;
    render();
  }
}

function flashMustCapture() {
  for (const el of document.querySelectorAll(".piece.must-capture")) {
    el.classList.remove("flash");
    void el.offsetWidth; // restart the animation
    el.classList.add("flash");
  }
}

// ------------------------------------------------------------------ pointer input

function squareIndexAt(x, y) {
  const el = document.elementFromPoint(x, y);
  const square = el && el.closest(".square.dark");
  return square ? Number(square.dataset.index) : null;
}

function onPointerDown(event) {
  if (event.button === 0 && state.view !== null && event.target.closest(".square")) {
    say("This is an earlier position, to look at: go back to the game to play.", "hint");
    return;
  }
  if (event.button !== 0 || !canPlay()) return;
  const square = event.target.closest(".square.dark");
  if (!square) return;
  const index = Number(square.dataset.index);
  event.preventDefault();
  if (isMine(index) && !state.legs.length) {
    const wasSelected = state.selected === index;
    if (!wasSelected && !pick(index)) return;
    const piece = document.querySelector(`.square[data-index="${index}"] .piece`);
    state.drag = { index, piece, x: event.clientX, y: event.clientY, moved: false, wasSelected };
    return;
  }
  if (state.selected !== null) {
    target(index);
  } else if (pieceAt(index) === null && state.game.must_capture.length) {
    say(mustCaptureText());
    flashMustCapture();
  }
}

function onPointerMove(event) {
  const drag = state.drag;
  if (!drag || !drag.piece) return;
  const dx = event.clientX - drag.x;
  const dy = event.clientY - drag.y;
  if (!drag.moved && Math.hypot(dx, dy) < 5) return;
  drag.moved = true;
  drag.piece.classList.add("dragging");
  drag.piece.style.transform = `translate(${dx}px, ${dy}px)`;
}

function onPointerUp(event) {
  const drag = state.drag;
  if (!drag) return;
  state.drag = null;
  // Find the square under the pointer while the dragged piece still lets the pointer through.
  const index = drag.moved ? squareIndexAt(event.clientX, event.clientY) : null;
  if (drag.piece) {
    drag.piece.classList.remove("dragging");
    drag.piece.style.transform = "";
  }
  if (!drag.moved) {
    if (drag.wasSelected) unpick(); // a second click on the picked piece puts it down
    return;
  }
  if (index !== null && index !== drag.index && state.selected === drag.index) target(index);
}

// ------------------------------------------------------------------ drawing

// The squares strictly between two squares on one diagonal (board cells, not screen cells: flipping changes nothing).
function between(from, to) {
  const squares = state.game.squares;
  const a = squares[from];
  const b = squares[to];
  const dr = Math.sign(b.row - a.row);
  const dc = Math.sign(b.col - a.col);
  const byCell = new Map(squares.map((sq) => [`${sq.row},${sq.col}`, sq.index]));
  const found = [];
  for (let r = a.row + dr, c = a.col + dc; r !== b.row && c !== b.col; r += dr, c += dc) {
    const index = byCell.get(`${r},${c}`);
    if (index !== undefined) found.push(index);
  }
  return found;
}

// The opponent's pieces taken by the legs chosen so far of a multi-capture.
function jumpedSoFar() {
  const jumped = new Set();
  let at = state.selected;
  for (const land of state.legs) {
    for (const index of between(at, land)) {
      const piece = pieceAt(index);
      if (piece && piece.color !== state.game.user_color) jumped.add(index);
    }
    at = land;
  }
  return jumped;
}

// The pieces after the first `plies` moves: the start position with those moves played.
function piecesAfter(plies) {
  const pieces = new Map(state.game.initial_pieces.map((p) => [p.index, { ...p }]));
  for (const move of state.game.moves.slice(0, plies)) {
    const piece = pieces.get(move.start);
    pieces.delete(move.start);
    for (const index of move.captures) pieces.delete(index);
    const end = move.path[move.path.length - 1];
    pieces.set(end, { ...piece, index: end, king: piece.king || move.promotes });
  }
  return [...pieces.values()];
}

// Show the position after `plies` moves (view only); the live position when that is the last one.
function showPly(plies) {
  const game = state.game;
  if (!game || state.busy) return;
  const clamped = Math.max(0, Math.min(plies, game.moves.length));
  state.view = clamped === game.moves.length ? null : clamped;
  state.selected = null;
  state.legs = [];
  say("");
  render();
}

function cellOf(index) {
  const n = state.game.board_size;
  const sq = state.game.squares[index];
  return state.flipped ? [n - 1 - sq.row, n - 1 - sq.col] : [sq.row, sq.col];
}

function render(statusOverride) {
  const game = state.game;
  const board = $("board");
  if (!game) {
    $("status").textContent = statusOverride || "Choose a variant and start a new game.";
    return;
  }
  const n = game.board_size;
  document.documentElement.style.setProperty("--n", n);
  board.dataset.variant = game.variant;
  board.dataset.flipped = state.flipped;

  const byCell = new Map();
  for (const sq of game.squares) {
    const [r, c] = cellOf(sq.index);
    byCell.set(r * n + c, sq.index);
  }
  const viewing = state.view !== null;
  const pieces = new Map((viewing ? piecesAfter(state.view) : game.pieces).map((p) => [p.index, p]));
  // Mid-capture the picked piece stands where its last leg landed, and the pieces it jumped are marked.
  const jumped = state.legs.length ? jumpedSoFar() : new Set();
  let pickedAt = state.selected;
  if (state.selected !== null && state.legs.length) {
    pickedAt = state.legs[state.legs.length - 1];
    pieces.set(pickedAt, { ...pieces.get(state.selected), index: pickedAt });
    pieces.delete(state.selected);
  }
  const cands = candidates();
  const targets = new Set(distinct(cands).map((m) => m.path[m.path.length - 1]));
  const legs = new Set(cands.filter((m) => m.path.length > state.legs.length + 1).map((m) => m.path[state.legs.length]));
  const shown = viewing ? state.view : game.moves.length;
  const last = shown ? game.moves[shown - 1] : null;
  const lastSquares = new Set(last ? [last.start, ...last.path] : []);
  const mustCapture = new Set(viewing ? [] : game.must_capture);
  const playable = canPlay();

  board.replaceChildren();
  for (let r = 0; r < n; r++) {
    for (let c = 0; c < n; c++) {
      const cell = document.createElement("div");
      cell.className = "square";
      const index = byCell.get(r * n + c);
      if (index !== undefined) {
        cell.classList.add("dark");
        cell.dataset.index = index;
        cell.dataset.name = game.squares[index].name;
        cell.setAttribute("role", "gridcell");
        cell.setAttribute("aria-label", game.squares[index].name);
        if (lastSquares.has(index)) cell.classList.add("last");
        if (targets.has(index) && !state.legs.includes(index)) cell.classList.add("target");
        if (legs.has(index) && !targets.has(index)) cell.classList.add("leg");
        if (state.legs.includes(index)) cell.classList.add("path");
        if (game.notation === "numeric") {
          const number = document.createElement("span");
          number.className = "number";
          number.textContent = game.squares[index].name;
          cell.appendChild(number);
        }
        const piece = pieces.get(index);
        if (piece) {
          const el = document.createElement("div");
          el.className = `piece ${piece.color}`;
          if (piece.king) el.classList.add("king");
          if (playable && piece.color === game.user_color) el.classList.add("mine");
          if (mustCapture.has(index)) el.classList.add("must-capture");
          if (pickedAt === index) el.classList.add("selected");
          if (jumped.has(index)) el.classList.add("jumped");
          el.title = `${capitalize(piece.color)} ${piece.king ? "king" : "man"} on ${game.squares[index].name}`;
          if (jumped.has(index)) el.title += " (jumped: taken when the capture is complete)";
          cell.appendChild(el);
        }
      }
      board.appendChild(cell);
    }
  }

  // Algebraic variants: coordinates of the real board, files from White's left, ranks from White's side.
  // Numeric variants are read by the numbers on the dark squares alone (1 top left from White's view, as
  // on an international board), so the edges stay blank rather than offer letters nobody reads them by.
  const algebraic = game.notation !== "numeric";
  board.classList.toggle("numeric", !algebraic);
  $("files").replaceChildren(
    ...Array.from({ length: n }, (_, c) => {
      const span = document.createElement("span");
      span.textContent = algebraic ? FILES[state.flipped ? n - 1 - c : c] : "";
      return span;
    }),
  );
  $("ranks").replaceChildren(
    ...Array.from({ length: n }, (_, r) => {
      const span = document.createElement("span");
      span.textContent = algebraic ? String(state.flipped ? r + 1 : n - r) : "";
      return span;
    }),
  );

  renderStatus(statusOverride);
  renderMoves();
  renderEngine();
  const hasUserMove = game.moves.some((m) => m.color === game.user_color);
  $("undo").disabled = state.busy || !hasUserMove || viewing;
  $("resign").disabled = state.busy || Boolean(game.outcome) || viewing;
  $("offer-draw").disabled = state.busy || Boolean(game.outcome) || viewing || !game.user_to_move;
  $("viewing").hidden = !viewing;
  $("prev").disabled = state.busy || shown === 0;
  $("next").disabled = state.busy || !viewing;
  const download = $("download");
  download.href = `/api/games/${game.id}/pdn`;
  download.classList.toggle("disabled", state.busy);
}

function renderStatus(statusOverride) {
  const game = state.game;
  const status = $("status");
  const result = $("result");
  if (game.outcome) {
    status.textContent = "Game over";
    result.hidden = false;
    result.textContent = `${game.outcome.result}: ${game.outcome.text}`;
    return;
  }
  result.hidden = true;
  result.textContent = "";
  if (state.view !== null) {
    const move = game.moves[state.view - 1];
    status.textContent = move ? `Looking at the position after ${move.text}` : "Looking at the start position";
  } else if (statusOverride) {
    status.textContent = statusOverride;
  } else if (game.user_to_move) {
    const side = capitalize(game.user_color);
    status.textContent = game.must_capture.length ? `Your move (${side}): you must capture` : `Your move (${side})`;
  } else {
    status.textContent = "The computer is thinking…";
  }
}

// What the computer's search reported for one of its moves: depth, score (for the computer) and time.
function engineText(engine) {
  const parts = [];
  if (engine.depth !== undefined) parts.push(`depth ${engine.depth}`);
  if (engine.score_text !== undefined) parts.push(`score ${engine.score_text} for the computer`);
  if (engine.nodes !== undefined) parts.push(`${engine.nodes.toLocaleString("en")} nodes`);
  parts.push(`${engine.seconds.toFixed(2)} s`);
  return parts.join(", ");
}

// The engine line: for the move shown while stepping, else for the computer's latest move.
function renderEngine() {
  const game = state.game;
  const upto = state.view === null ? game.moves.length : state.view;
  const move = game.moves.slice(0, upto).reverse().find((m) => m.engine);
  $("engine").textContent = move ? `Computer, ${move.text}: ${engineText(move.engine)}` : "";
}

function renderMoves() {
  const game = state.game;
  const list = $("moves");
  const rows = [];
  let number = 1;
  game.moves.forEach((move, i) => {
    const first = move.color === game.first_player;
    if (first) rows.push({ number, plies: [move.text] });
    else if (i === 0) rows.push({ number, plies: ["…", move.text] });
    else rows[rows.length - 1].plies.push(move.text);
    if (!first) number += 1;
  });
  // Each move is a button to the position after it; the one shown is marked.
  const shown = state.view === null ? game.moves.length : state.view;
  let ply = 0;
  list.replaceChildren(
    ...rows.map((row) => {
      const li = document.createElement("li");
      li.value = row.number;
      row.plies.forEach((text, p) => {
        if (p) li.append(" ");
        const span = document.createElement("span");
        span.textContent = text;
        if (text !== "…") {
          ply += 1;
          const after = ply;
          span.className = "ply";
          span.dataset.ply = after;
          const engine = game.moves[after - 1].engine;
          span.title = "Show the position after this move" + (engine ? ` (computer: ${engineText(engine)})` : "");
          span.addEventListener("click", () => showPly(after));
          if (after === shown) span.classList.add("current");
        }
        li.appendChild(span);
      });
      return li;
    }),
  );
  if (state.view === null) list.scrollTop = list.scrollHeight;
}

// ------------------------------------------------------------------ checkpoints

// The trained checkpoints the server offers (only those can be chosen); a choice sets its variant.
async function loadCheckpoints() {
  const select = $("checkpoint");
  let data;
  try {
    data = await api("GET", "/api/checkpoints");
  } catch (error) {
    data = { checkpoints: [], problem: error.message };
  }
  state.checkpoints = data.checkpoints;
  const options = data.checkpoints.map((c) => {
    const option = document.createElement("option");
    option.value = c.name;
    option.textContent = `${c.name} (${VARIANT_TITLES[c.variant] || c.variant}, ${c.algo})`;
    return option;
  });
  if (!options.length) {
    const option = document.createElement("option");
    option.value = "";
    option.textContent = data.problem ? "No checkpoints: " + data.problem : "No checkpoints in the server's folder";
    options.push(option);
  }
  select.replaceChildren(...options);
  if (state.pendingCheckpoint) select.value = state.pendingCheckpoint;
}

function checkpointChosen() {
  const chosen = state.checkpoints.find((c) => c.name === $("checkpoint").value);
  if (chosen && chosen.variant !== $("variant").value) {
    $("variant").value = chosen.variant;
    updateForm();
    $("color").value = currentVariant().first_player;
  }
}

// ------------------------------------------------------------------ start

async function start() {
  const data = await api("GET", "/api/variants");
  state.variants = data.variants;
  const select = $("variant");
  for (const variant of data.variants) {
    const option = document.createElement("option");
    option.value = variant.name;
    option.textContent = VARIANT_TITLES[variant.name] || capitalize(variant.name);
    select.appendChild(option);
  }
  const [kind, depth] = data.default_opponent.split(":");
  $("opponent-kind").value = kind;
  if (depth) $("depth").value = depth;
  select.addEventListener("change", () => {
    updateForm();
    const variant = currentVariant();
    $("color").value = variant.first_player;
  });
  $("opponent-kind").addEventListener("change", () => {
    updateForm();
    if ($("opponent-kind").value === "checkpoint") checkpointChosen();
  });
  $("checkpoint").addEventListener("change", checkpointChosen);
  loadCheckpoints(); // not awaited: reading the files may take the server a moment
  $("new-game-form").addEventListener("submit", newGame);
  $("setup-file").addEventListener("change", readSetupFile);
  $("start-fen").addEventListener("click", () => {
    const fen = setupText();
    if (fen) newGame(null, { fen });
  });
  $("load-pdn").addEventListener("click", () => {
    const pdn = setupText();
    if (pdn) newGame(null, { pdn });
  });
  $("undo").addEventListener("click", undo);
  $("resign").addEventListener("click", resign);
  $("offer-draw").addEventListener("click", offerDraw);
  $("prev").addEventListener("click", () => showPly((state.view ?? state.game.moves.length) - 1));
  $("next").addEventListener("click", () => showPly((state.view ?? state.game.moves.length) + 1));
  $("live").addEventListener("click", () => showPly(Infinity));
  document.addEventListener("keydown", (event) => {
    if (!state.game || event.target.closest("input, select, textarea")) return;
    if (event.key === "ArrowLeft") showPly((state.view ?? state.game.moves.length) - 1);
    else if (event.key === "ArrowRight") showPly((state.view ?? state.game.moves.length) + 1);
    else if (event.key === "End") showPly(Infinity);
  });
  $("flip").addEventListener("click", () => {
    state.flipped = !state.flipped;
    render();
  });
  const board = $("board");
  board.addEventListener("pointerdown", onPointerDown);
  document.addEventListener("pointermove", onPointerMove);
  document.addEventListener("pointerup", onPointerUp);
  $("color").value = currentVariant().first_player;
  updateForm();

  // Reopen the game named in the address (a reload keeps the game), else start one.
  const id = location.hash.slice(1);
  if (id) {
    try {
      setGame(await api("GET", `/api/games/${id}`));
      state.flipped = state.game.user_color === "black";
      showSettings(state.game);
      render();
      return;
    } catch (_) {
      history.replaceState(null, "", location.pathname);
    }
  }
  await newGame();
}

start().catch((error) => say(`Cannot reach the server: ${error.message}`));
