// The game page: follows the game over its WebSocket (docs/websocket.md) and plays through it.
//
// hello → {"type": "sync", "after": <last seq we hold>} → `entry` frames in seq order (each
// once; the last of a sync and every live one carry our player `view`) → `synced`. Moves go
// over the same socket with the version we saw and a fresh idempotency key (over HTTP, same
// key, when the socket is closed or its answer is late); a stale_version answer makes us sync
// again. A lost connection shows "Reconnecting…", retries with exponential backoff, and
// resyncs from the last seq held, so the log never skips or repeats a line. The page holds no rules: what may be done is the view's `legal_actions`.
import { api, newKey } from "./api.js";
import { createBoard, fareOf, renderLegend } from "./board.js";
import { setUpBoardView } from "./board-view.js";
import { MOVE_ANSWER_WITHIN_MS, PING_EVERY_MS, PONG_WITHIN_MS, SOCKET_ANSWER_WITHIN_MS, addChat as addChatItem, chatItem as plainChatItem, createGameLog, followOpenTable, isMyTurn, openSocket, parseFrame, renderChat as renderChatItems, retryDelay, setUpChatForm, setUpResign, setUpTableButtons, showClock, tableText } from "./game-common.js";
import { drawMayOffer, newPlan, nextSteps, preview, roads, stepsLeft, turnAction, turnChain } from "./plan.js";
import { areaLabel, competitionRanks, describe, format, gettext, ngettext, playerNamer, seatLabel } from "./wording.js";

const $ = (id) => document.getElementById(id);
const data = JSON.parse($("game-data").textContent);
const boardData = JSON.parse($("board-data").textContent);

const MODE_KEY = "bahama-taxi:turn-mode";

const state = {
  seq: -1, // the last log entry we hold (the game's version as we know it)
  view: null,
  seat: data.you,
  status: data.status,
  clock: data.clock,
  names: new Map(data.seats.filter((s) => s.seat !== null).map((s) => [s.seat, s.name])),
  socket: null,
  synced: false,
  attempts: 0,
  reconnectTimer: null,
  clockInSync: false, // a live entry of this connection carried the clock
  seatPending: false, // the game started while this socket saw us as a spectator
  pending: null, // {ref, move, timer, seq}: a move sent and not yet seen in the log
  refs: 0,
  lastFrameAt: 0,
  pingTimer: null,
  pickedThisTurn: 0, // citizens picked up since the turn began: "no one" or "no one more"
  // "plan": the route is drawn on the board and sent once; "steps": one move per step
  mode: readMode(),
  plan: null, // {seq, steps, pickups}: the turn being planned, against log entry `seq`
  lastTurn: new Map(), // seat → the notifications of its latest turn, drawn as a trail
  queue: [], // the rest of a planned turn sent move by move (a draw may offer a choice)
};

function readMode() {
  try {
    return localStorage.getItem(MODE_KEY) === "steps" ? "steps" : "plan";
  } catch {
    return "plan";
  }
}

const game = $("game");
const logLines = $("log-lines");
const logBox = $("log");
const near = roads(boardData);
const board = createBoard($("board"), boardData, {
  colours: data.colours,
  playerOf: (seat) => playerOf(seat),
  onStep: (action) => (planning() ? planStep(action.to) : sendMove(action)),
  onCitizens: (sentences) => {
    delete $("board-info").dataset.route;
    $("board-info").textContent = sentences;
  },
});

setUpBoardView({
  frame: $("board-frame"),
  svg: $("board"),
  zoomIn: $("zoom-in"),
  zoomOut: $("zoom-out"),
  zoomReset: $("zoom-reset"),
  fourColours: $("four-colours"),
  twoColours: boardData.suit_colours,
});

// ------------------------------------------------------------------------------ the socket

function connect() {
  clearTimeout(state.reconnectTimer);
  state.reconnectTimer = null;
  setConnection("connecting", state.attempts ? gettext("Reconnecting…") : gettext("Connecting…"));
  state.socket = openSocket(data.urls.socket, {
    current: (socket) => socket === state.socket,
    onFrame: (text) => {
      state.lastFrameAt = Date.now();
      const frame = parseFrame(text);
      if (frame) handle(frame);
    },
    onLost: lost,
  });
}

function drop() {
  const socket = state.socket;
  state.socket = null;
  if (socket) socket.close();
}

function lost(code) {
  state.socket = null;
  state.synced = false;
  if (state.pending && state.pending.seq === undefined && state.pending.move) {
    overHttp(state.pending.move); // sent, unanswered: the same key over HTTP makes it once
  } else {
    clearPending();
  }
  clearInterval(state.pingTimer);
  if (code === 4401) {
    window.location.assign(`/login?next=${encodeURIComponent(window.location.pathname)}`);
    return;
  }
  if (code === 4403 || code === 4404) {
    setConnection("closed", gettext("This game cannot be followed from this account."));
    render();
    return;
  }
  const delay = retryDelay(state.attempts);
  state.attempts += 1;
  setConnection("reconnecting", gettext("Connection lost. Reconnecting…"));
  render();
  clearTimeout(state.reconnectTimer);
  state.reconnectTimer = setTimeout(connect, delay);
}

function send(frame) {
  if (!state.socket || state.socket.readyState !== WebSocket.OPEN) return false;
  state.socket.send(JSON.stringify(frame));
  return true;
}

function requestSync() {
  state.synced = false;
  state.clockInSync = false;
  logBox.setAttribute("aria-busy", "true");
  send({ type: "sync", after: state.seq });
}

function heartbeat() {
  clearInterval(state.pingTimer);
  state.pingTimer = setInterval(() => {
    const asked = Date.now();
    if (!send({ type: "ping", ref: `p${++state.refs}` })) return;
    setTimeout(() => {
      if (state.lastFrameAt < asked && state.socket) {
        drop(); // silent for too long: the connection is dead even if nobody said so
        lost(1006);
      }
    }, PONG_WITHIN_MS);
  }, PING_EVERY_MS);
}

window.addEventListener("offline", () => {
  if (state.socket) {
    drop();
    lost(1006);
  }
});
window.addEventListener("online", () => {
  // Back on the network: try now rather than when the backoff says (an attempt made while
  // offline is bound to fail, so it is replaced).
  if (!state.socket || state.socket.readyState !== WebSocket.OPEN) {
    state.attempts = Math.min(state.attempts, 1);
    drop();
    connect();
  }
});

// ------------------------------------------------------------------------------ frames

function handle(frame) {
  switch (frame.type) {
    case "hello":
      state.attempts = 0;
      state.seat = frame.seat;
      if (frame.status) state.status = frame.status;
      renderChat(frame.chat || []);
      heartbeat();
      requestSync();
      break;
    case "entry":
      entry(frame);
      break;
    case "synced":
      synced();
      break;
    case "move_accepted":
      if (state.pending && state.pending.ref === frame.ref) {
        clearTimeout(state.pending.timer);
        state.pending.timer = setTimeout(() => {
          clearPending();
          requestSync(); // accepted, but its entry never came: ask for the log
        }, MOVE_ANSWER_WITHIN_MS);
        state.pending.seq = frame.seq;
        if (state.seq >= frame.seq) moveDone();
      }
      break;
    case "chat":
      addChat(frame.message);
      break;
    case "chat_hidden":
      document.querySelector(`#chat-messages li[data-id="${CSS.escape(String(frame.id))}"]`)?.remove();
      break;
    case "error":
      refused(frame);
      break;
    default:
      break; // pong, and frames a newer server may add
  }
}

function entry(frame) {
  if (frame.seq <= state.seq) return; // already held: a resync overlaps what came live
  if (frame.seq !== state.seq + 1) {
    requestSync(); // a hole: ask from the last seq we hold
    return;
  }
  appendLog(frame.seq, frame.notifications);
  for (const n of frame.notifications) {
    if (n.type === "turn_started") {
      state.pickedThisTurn = 0;
      state.lastTurn.set(n.seat, []);
    }
    if (n.type === "citizen_picked_up") state.pickedThisTurn += 1;
    if (Number.isInteger(n.seat) && n.type !== "turn_started") state.lastTurn.get(n.seat)?.push(n);
  }
  state.seq = frame.seq;
  game.dataset.seq = String(frame.seq);
  if (frame.clock) {
    state.clock = frame.clock;
    state.clockInSync = true;
  }
  if (frame.notifications.some((n) => n.type === "game_started")) {
    state.status = "playing";
    if (state.seat === null && data.seated) state.seatPending = true;
  }
  if (frame.view) {
    state.view = frame.view;
    state.status = frame.view.status;
  }
  if (state.pending && state.pending.seq !== undefined && state.seq >= state.pending.seq) moveDone();
  if (state.synced) afterUpdate();
}

function synced() {
  state.synced = true;
  logBox.setAttribute("aria-busy", "false");
  setConnection("live", gettext("Live"));
  afterUpdate();
  if (!state.clockInSync) refreshSummary(); // entries of a sync carry no clock
}

function afterUpdate() {
  if (state.seatPending) {
    // This socket was opened before the seats were drawn, so it took us for a spectator;
    // a new one knows our seat (and sends our legal actions).
    state.seatPending = false;
    refreshSummary();
    drop();
    connect();
    return;
  }
  const over = state.view && state.view.status !== "playing";
  if (state.names.size < (state.view ? state.view.seats.length : 0) || (over && !state.seed)) {
    refreshSummary();
  }
  render();
}

function refused(frame) {
  const error = $("action-error");
  if (state.pending && frame.ref === state.pending.ref) {
    clearPending();
    state.queue = []; // the rest of a planned chain is dropped: the player decides again
    if (frame.code === "stale_version") {
      error.textContent = gettext("The game moved on before your move arrived; here it is now.");
      requestSync();
    } else {
      error.textContent = frame.message;
    }
    render();
  } else if (String(frame.ref || "").startsWith("c")) {
    $("chat-error").textContent = frame.message;
  } else if (frame.code === "invalid_sync") {
    state.seq = -1; // our log is not this game's: start over
    logLines.replaceChildren();
    requestSync();
  } else if (frame.code) {
    error.textContent = frame.message;
  }
}

async function refreshSummary() {
  try {
    const summary = await api(data.urls.api);
    state.clock = summary.clock_state;
    // The seed as the summary's string: the view's JSON number has 128 bits, more than a
    // JavaScript number holds exactly.
    if (summary.seed) state.seed = summary.seed;
    const known = state.names.size;
    for (const seat of summary.seats) {
      if (seat.seat !== null) state.names.set(seat.seat, seat.user.display_name);
    }
    if (state.names.size !== known) renameLog();
    data.seats = summary.seats.map((s) => ({ seat: s.seat, join_order: s.join_order, name: s.user.display_name, user: s.user.id, bot: s.bot }));
    if (state.view === null) state.status = summary.status;
    render();
  } catch {
    // the clock and names stay as they were; the next sync asks again
  }
}

// ------------------------------------------------------------------------------ moves

function myTurn() {
  return isMyTurn(state.view);
}

function legal() {
  // resign (offered at any time) has no button here: one click must not end a player's game
  return myTurn() && state.synced && !state.pending ? state.view.legal_actions.filter((a) => a.type !== "resign") : [];
}

function sendMove(action) {
  if (!state.synced || state.pending || !legal().includes(action)) return;
  submit(action);
}

function submit(action) {
  const ref = `m${++state.refs}`;
  const move = { type: "move", action, version: state.seq, idempotency_key: newKey(), ref };
  $("action-error").textContent = "";
  state.pending = { ref, move, timer: null };
  if (send(move)) {
    state.pending.timer = setTimeout(() => overHttp(move), SOCKET_ANSWER_WITHIN_MS);
  } else {
    overHttp(move); // no open socket
  }
  render();
}

/** The move over HTTP, with the same idempotency key: the server makes it once however many
 *  ways it arrives, and answers a repeat with the move already made (docs/websocket.md). */
async function overHttp(move) {
  const ours = () => state.pending && state.pending.ref === move.ref;
  if (!ours()) return;
  clearTimeout(state.pending.timer);
  state.pending.timer = setTimeout(() => {
    clearPending();
    requestSync(); // no answer either way: the log will tell whether the move was made
  }, MOVE_ANSWER_WITHIN_MS);
  const body = { action: move.action, version: move.version, idempotency_key: move.idempotency_key };
  let answer;
  try {
    answer = await api(`${data.urls.api}/actions`, { method: "POST", body });
  } catch (failure) {
    if (!ours()) return;
    if (failure.status === 0) return; // unreachable: the timer resyncs once the page is back
    refused({ ref: move.ref, code: failure.code, message: failure.message });
    return;
  }
  if (!ours()) return;
  state.pending.seq = answer.seq; // done once the log shows it, as for `move_accepted`
  if (state.seq >= answer.seq) moveDone();
}

/** A move of ours is in the log: send the next one of a planned chain, if any. */
function moveDone() {
  clearPending();
  const next = state.queue.shift();
  if (next && myTurn()) submit(next);
  else state.queue = [];
}

function clearPending() {
  if (state.pending) clearTimeout(state.pending.timer);
  state.pending = null;
}

// ------------------------------------------------------------------------------ planning

function planning() {
  return state.mode === "plan" && legal().some((a) => a.type === "step" || a.type === "stop");
}

function currentPlan() {
  if (!state.plan || state.plan.seq !== state.seq) state.plan = newPlan(state.seq);
  return state.plan;
}

function planStep(to) {
  const plan = currentPlan();
  if (!nextSteps(state.view, plan, near).includes(to)) return;
  plan.steps.push(to);
  plan.pickups = [];
  $("action-error").textContent = "";
  render();
  announceRoute(plan);
}

/** Screen readers hear the route as it grows (the actions box is redrawn, so it cannot). */
function announceRoute(plan) {
  const left = stepsLeft(state.view, plan);
  const route = [state.view.seats[state.view.you].area, ...plan.steps].map(areaLabel).join(" → ");
  const info = $("board-info");
  info.dataset.route = String(state.seq);
  info.textContent = plan.steps.length
    ? format(ngettext("Route: %(route)s (%(count)s step left).", "Route: %(route)s (%(count)s steps left).", left), { route, count: left })
    : "";
}

function planUndo() {
  const plan = currentPlan();
  plan.steps.pop();
  plan.pickups = [];
  render();
  announceRoute(plan);
}

function confirmTurn() {
  const plan = currentPlan();
  if (!plan.steps.length || state.pending) return;
  const outcome = preview(state.view, plan, board.distances);
  if (!drawMayOffer(state.view, plan, outcome)) {
    submit(turnAction(plan)); // one request: the whole turn, all or nothing
    return;
  }
  // A pickup draws a replacement citizen (T6), who may appear right here: the turn is sent
  // move by move, so that the page can ask about that citizen when the draw reveals them.
  const [first, ...rest] = turnChain(plan);
  state.queue = rest;
  submit(first);
}

function setMode(mode) {
  state.mode = mode;
  try {
    localStorage.setItem(MODE_KEY, mode);
  } catch {
    // private windows may refuse; the choice then lasts as long as the page
  }
  render();
  $("mode-button")?.focus();
}

function modeButton() {
  const b = document.createElement("button");
  b.type = "button";
  b.id = "mode-button";
  b.className = "link-button";
  b.dataset.mode = state.mode;
  b.textContent = state.mode === "plan" ? gettext("Play step by step instead") : gettext("Plan the whole turn instead");
  b.addEventListener("click", () => setMode(state.mode === "plan" ? "steps" : "plan"));
  return b;
}

function renderPlan(box) {
  const view = state.view;
  const plan = currentPlan();
  const me = view.seats[view.you];
  const left = stepsLeft(view, plan);
  const route = [me.area, ...plan.steps].map(areaLabel).join(" → ");
  const summary = document.createElement("p");
  summary.id = "plan-route";
  summary.dataset.steps = plan.steps.join(" ");
  summary.textContent = plan.steps.length
    ? format(ngettext("Route: %(route)s (%(count)s step left).", "Route: %(route)s (%(count)s steps left).", left), { route, count: left })
    : gettext("Choose the areas of your route on the board, then confirm the turn.");
  box.appendChild(summary);

  const row = document.createElement("div");
  row.className = "button-row plan-confirm";
  const confirm = document.createElement("button");
  confirm.type = "button";
  confirm.id = "confirm-turn";
  confirm.className = "primary";
  confirm.textContent = gettext("Confirm turn");
  confirm.disabled = !plan.steps.length || Boolean(state.pending);
  confirm.addEventListener("click", confirmTurn);
  const back = document.createElement("button");
  back.type = "button";
  back.id = "plan-undo";
  back.className = "secondary";
  back.textContent = gettext("Take back the last planned step");
  back.disabled = !plan.steps.length;
  back.addEventListener("click", planUndo);
  row.append(confirm, back);
  box.appendChild(row);

  const next = nextSteps(view, plan, near);
  if (next.length) {
    const row = document.createElement("div");
    row.className = "button-row steps";
    for (const to of next) {
      const b = document.createElement("button");
      b.type = "button";
      b.className = "step";
      b.dataset.type = "plan-step";
      b.dataset.to = to;
      b.textContent = format(gettext("Via %(area)s"), { area: areaLabel(to) });
      b.addEventListener("click", () => planStep(to));
      row.appendChild(b);
    }
    box.appendChild(row);
  }

  if (plan.steps.length) {
    const outcome = preview(view, plan, board.distances);
    const list = document.createElement("ul");
    list.id = "plan-preview";
    for (const p of outcome.dropped) {
      const li = document.createElement("li");
      li.dataset.kind = "drop";
      li.textContent = format(gettext("Drop off the passenger from %(origin)s: fare %(fare)s"), { origin: areaLabel(p.origin), fare: p.fare });
      list.appendChild(li);
    }
    if (!outcome.dropped.length) {
      list.appendChild(Object.assign(document.createElement("li"), { textContent: format(gettext("No passenger of yours gets off at %(area)s."), { area: areaLabel(outcome.end) }) }));
    }
    box.appendChild(list);
    if (outcome.waiting.length && outcome.room) {
      const set = document.createElement("fieldset");
      set.className = "field plan-pickups";
      const legend = document.createElement("legend");
      legend.textContent = format(gettext("Pick up at %(area)s (room for %(count)s):"), { area: areaLabel(outcome.end), count: outcome.room });
      set.appendChild(legend);
      outcome.waiting.forEach((citizen, index) => {
        const id = `plan-pickup-${index}`;
        const label = document.createElement("label");
        label.className = "choice";
        label.htmlFor = id;
        const tick = document.createElement("input");
        tick.type = "checkbox";
        tick.id = id;
        tick.dataset.destination = citizen.destination;
        const chosen = plan.pickups.filter((d) => d === citizen.destination).length;
        const earlier = outcome.waiting.slice(0, index).filter((c) => c.destination === citizen.destination).length;
        tick.checked = chosen > earlier;
        tick.disabled = !tick.checked && plan.pickups.length >= outcome.room;
        tick.addEventListener("change", () => {
          if (tick.checked) plan.pickups.push(citizen.destination);
          else plan.pickups.splice(plan.pickups.lastIndexOf(citizen.destination), 1);
          render();
          $(id)?.focus();
        });
        label.append(tick, format(gettext("to %(destination)s (fare %(fare)s)"), { destination: areaLabel(citizen.destination), fare: fareOf(board.distances, citizen) }));
        set.appendChild(label);
      });
      box.appendChild(set);
    }
    if (drawMayOffer(view, plan, outcome)) {
      const note = document.createElement("p");
      note.id = "plan-draw-note";
      note.className = "quiet";
      note.textContent = gettext("Each pickup draws a new citizen, who may appear right here: if one does, you will be asked whether to take them too.");
      box.appendChild(note);
    }
  }

  return next;
}

function actionLabel(action) {
  const view = state.view;
  const here = view.seats[view.you].area;
  switch (action.type) {
    case "step":
      return format(gettext("Step to %(area)s"), { area: areaLabel(action.to) });
    case "undo":
      return format(ngettext("Undo the last step (%(count)s undo left)", "Undo the last step (%(count)s undos left)", view.undos_left), { count: view.undos_left });
    case "stop":
      return format(gettext("Stop at %(area)s"), { area: areaLabel(here) });
    case "pickup": {
      const fare = fareOf(board.distances, { origin: here, destination: action.destination });
      return format(gettext("Pick up the citizen going to %(destination)s (fare %(fare)s)"), {
        destination: areaLabel(action.destination),
        fare,
      });
    }
    case "decline":
      return state.pickedThisTurn
        ? gettext("Pick up no one more: end the turn")
        : gettext("Pick up no one: end the turn");
    case "pass":
      return gettext("Pass: the taxi is blocked");
    default:
      return action.type;
  }
}

function renderActions() {
  const box = $("actions");
  box.replaceChildren();
  const actions = legal();
  const moving = actions.some((a) => a.type === "step" || a.type === "stop");
  if (moving) box.appendChild(modeButton());
  if (planning()) {
    const plan = currentPlan();
    const next = renderPlan(box);
    // before the first planned step, what the view offers besides steps (a pre-movement
    // pickup, a stop after steps already sent, a pass) stays a button of its own
    const others = plan.steps.length ? [] : actions.filter((a) => a.type !== "step");
    if (others.length) {
      const row = document.createElement("div");
      row.className = "button-row";
      row.append(...others.map(actionButton));
      box.appendChild(row);
    }
    box.setAttribute("aria-busy", state.pending ? "true" : "false");
    board.render(state.view, {
      you: state.view.you,
      steps: next.map((to) => ({ type: "step", to })),
      plan: { from: state.view.seats[state.view.you].area, steps: plan.steps },
      recent: recentMoves(),
    });
    return;
  }
  const steps = actions.filter((a) => a.type === "step");
  const others = actions.filter((a) => a.type !== "step");
  const button = actionButton;
  if (steps.length) {
    const row = document.createElement("div");
    row.className = "button-row steps";
    row.append(...steps.map(button));
    box.appendChild(row);
  }
  if (others.length) {
    const row = document.createElement("div");
    row.className = "button-row";
    row.append(...others.map(button));
    box.appendChild(row);
  }
  box.setAttribute("aria-busy", state.pending ? "true" : "false");
  // once the game is over no passenger of mine goes anywhere: no destination marks
  const you = state.view.status === "playing" ? state.view.you : null;
  board.render(state.view, { you, steps, recent: recentMoves() });
}

function actionButton(action) {
  const b = document.createElement("button");
  b.type = "button";
  b.textContent = actionLabel(action);
  b.dataset.type = action.type;
  if (action.to) b.dataset.to = action.to;
  if (action.destination) b.dataset.destination = action.destination;
  b.className = action.type === "step" ? "step" : action.type === "undo" ? "secondary" : "primary";
  b.addEventListener("click", () => sendMove(action));
  return b;
}

/** The latest turn of every other player, to draw as a fading trail: what they just did. */
function recentMoves() {
  const you = state.view ? state.view.you : null;
  return [...state.lastTurn].filter(([seat]) => seat !== you).flatMap(([, notes]) => notes);
}

// ------------------------------------------------------------------------------ rendering

function setConnection(kind, text) {
  const node = $("connection");
  node.dataset.state = kind;
  node.textContent = text;
}

function nameOf(seat) {
  return state.names.get(seat) ?? "?";
}

/** Who sits at `seat` in a sentence: the player's name once known, else "Seat N". */
function playerOf(seat) {
  return playerNamer(state.names)(seat);
}

function turnText() {
  const view = state.view;
  const before = tableText(state);
  if (before) return before;
  if (view.status === "finished") return gettext("The game is over.");
  if (view.status === "aborted") return gettext("The game was aborted.");
  const seat = view.active_seat;
  if (!myTurn()) {
    return format(gettext("%(player)s's turn."), { player: playerOf(seat) });
  }
  if (view.phase === "pickup") return gettext("Your turn: choose whom to pick up.");
  const left = view.allowance - view.path.length;
  return format(ngettext("Your turn: %(count)s step left.", "Your turn: %(count)s steps left.", left), { count: left });
}

function renderFacts() {
  const view = state.view;
  const facts = $("facts");
  facts.replaceChildren();
  const add = (name, value, key) => {
    const dt = document.createElement("dt");
    dt.textContent = name;
    const dd = document.createElement("dd");
    dd.textContent = String(value);
    dd.dataset.fact = key;
    facts.append(dt, dd);
  };
  const deadlines = view.deadlines_reached;
  if (view.status === "playing") {
    // a finished game has no turn: no allowance, steps or undos to show
    add(gettext("Allowance this turn"), view.allowance, "allowance");
    add(gettext("Steps left"), view.phase === "move" ? view.allowance - view.path.length : 0, "steps-left");
    add(gettext("Undos left"), view.undos_left, "undos-left");
  }
  add(gettext("Cards in the pile"), view.pile, "pile");
  add(gettext("Deadlines reached"), format(gettext("%(count)s of 2"), { count: deadlines }), "deadlines");
  add(gettext("Citizens waiting"), view.waiting.length, "waiting");
  for (const [number, at] of [[1, data.deadline1_at], [2, data.deadline2_at]]) {
    if (at && deadlines < number) {
      add(format(gettext("Deadline %(number)s at"), { number }), new Date(at).toLocaleString(), `deadline${number}-at`);
    }
  }
}

function renderSeats() {
  const view = state.view;
  const body = $("seats").querySelector("tbody");
  body.replaceChildren();
  for (const seat of view.seats) {
    const tr = document.createElement("tr");
    tr.dataset.seat = String(seat.seat);
    tr.dataset.area = seat.area;
    if (seat.seat === view.active_seat) tr.className = "active-seat";
    const cell = (content) => {
      const td = document.createElement("td");
      td.append(...[].concat(content));
      tr.appendChild(td);
      return td;
    };
    const swatch = swatchOf(seat.seat);
    const marker = seat.seat === view.active_seat ? [" ▶", hidden(gettext("(to move)"))] : [];
    cell([swatch, " ", seatLabel(seat.seat), ...marker]);
    const who = [nameOf(seat.seat)];
    if (seat.seat === view.you) who.push(" ", hidden(gettext("(you)")), strong(gettext("you")));
    if (seat.zombie) who.push(" ", em(gettext("(autopilot)")));
    const held = data.seats.find((s) => s.seat === seat.seat);
    const user = held?.user;
    // a computer opponent is nobody to report: its moves are the server's own code
    if (user !== undefined && user !== data.user.id && !held.bot) {
      who.push(" ", reportButton(format(gettext("Report %(player)s"), { player: nameOf(seat.seat) }), {
        reported_user: user,
        what: format(gettext("You are reporting the player %(player)s."), { player: nameOf(seat.seat) }),
      }));
    }
    cell(who);
    cell(areaLabel(seat.area));
    const riders = document.createElement("ul");
    riders.className = "passengers";
    for (const p of seat.passengers) {
      const li = document.createElement("li");
      li.className = "passenger";
      li.dataset.origin = p.origin;
      li.dataset.destination = p.destination;
      li.textContent = `${areaLabel(p.origin)}→${areaLabel(p.destination)} (${fareOf(board.distances, p)})`;
      riders.appendChild(li);
    }
    cell(seat.passengers.length ? riders : "—");
    cell(String(seat.income)).className = "income";
    body.appendChild(tr);
  }
}

/** The seat's taxi colour, beside its name wherever the page lists players. */
function swatchOf(seat) {
  const swatch = document.createElement("span");
  swatch.className = "swatch";
  swatch.style.background = data.colours[seat % data.colours.length].fill;
  return swatch;
}

function hidden(text) {
  const span = document.createElement("span");
  span.className = "visually-hidden";
  span.textContent = text;
  return span;
}

function strong(text) {
  const node = document.createElement("strong");
  node.className = "you-badge";
  node.setAttribute("aria-hidden", "true");
  node.textContent = text;
  return node;
}

function em(text) {
  const node = document.createElement("em");
  node.textContent = text;
  return node;
}

function renderWaiting() {
  const list = $("waiting");
  list.replaceChildren();
  for (const citizen of state.view.waiting) {
    const li = document.createElement("li");
    li.dataset.origin = citizen.origin;
    li.dataset.destination = citizen.destination;
    const fare = fareOf(board.distances, citizen);
    li.textContent = `${areaLabel(citizen.origin)} → ${areaLabel(citizen.destination)} (${format(gettext("fare %(fare)s"), { fare })})`;
    list.appendChild(li);
  }
  if (!state.view.waiting.length) list.appendChild(Object.assign(document.createElement("li"), { textContent: "—" }));
}

async function renderResult() {
  const view = state.view;
  const section = $("result");
  const over = view.status === "finished" || view.status === "aborted";
  section.hidden = !over;
  if (!over) return;
  const ranking = $("ranking");
  ranking.replaceChildren();
  if (view.result) {
    competitionRanks(view.result.ranking).forEach(([rank, group]) => {
      for (const seat of group) {
        const li = document.createElement("li");
        li.value = rank;
        li.dataset.seat = String(seat);
        li.append(swatchOf(seat), " ", `${playerOf(seat)}: ${view.result.incomes[seat]}`);
        ranking.appendChild(li);
      }
    });
  }
  const line = $("seed-line");
  if (!state.seed) {
    line.textContent = "";
    return;
  }
  if (line.dataset.seed === state.seed) return;
  line.dataset.seed = state.seed;
  line.replaceChildren(gettext("Seed (revealed)"), ": ");
  const seed = document.createElement("code");
  seed.id = "seed";
  seed.textContent = state.seed;
  const verdict = document.createElement("span");
  verdict.id = "seed-verdict";
  const commitment = document.createElement("code");
  commitment.className = "commitment";
  commitment.textContent = view.seed_commitment;
  line.append(seed, " — ", verdict, " ", commitment);
  verdict.textContent = await seedVerdict(state.seed, view.seed_commitment);
}

async function seedVerdict(seed, commitment) {
  if (!globalThis.crypto?.subtle) return gettext("commitment published at the start:");
  const bytes = new TextEncoder().encode(`bahama-taxi-seed:${seed}`);
  const digest = new Uint8Array(await crypto.subtle.digest("SHA-256", bytes));
  const hex = Array.from(digest, (b) => b.toString(16).padStart(2, "0")).join("");
  return hex === commitment
    ? gettext("matches the commitment published at the start:")
    : gettext("does NOT match the commitment published at the start:");
}

function renderWaitingRoom() {
  const room = $("waiting-room");
  room.hidden = state.status !== "open";
  if (room.hidden) return;
  const seated = data.seats.length;
  $("waiting-count").textContent = format(gettext("%(count)s of %(players)s seated."), { count: seated, players: data.players });
  const list = $("waiting-seats");
  list.replaceChildren(...data.seats.map((s) => Object.assign(document.createElement("li"), { textContent: s.name })));
  const join = $("join-button");
  const leave = $("leave-button");
  join.hidden = data.seated;
  leave.hidden = !data.seated;
  leave.textContent = data.creator ? gettext("Cancel this table") : gettext("Leave this table");
}

function renderLeave() {
  const view = state.view;
  const mine = view && view.you !== null && view.seats[view.you];
  $("leave-game").hidden = !(view && view.status === "playing" && mine && !mine.zombie);
}

function render() {
  document.body.classList.toggle("my-turn", myTurn());
  $("turn-status").textContent = turnText();
  renderWaitingRoom();
  game.dataset.status = state.status;
  game.dataset.myTurn = String(myTurn());
  document.title = `${myTurn() ? `${gettext("Your turn")} · ` : ""}${format(gettext("Game %(id)s"), { id: data.id })} · Bahama Taxi`;
  if (!state.view) return;
  // a route announced for an earlier state (the turn was sent, or the game moved on) is stale
  const info = $("board-info");
  if (info.dataset.route && info.dataset.route !== String(state.seq)) {
    info.textContent = "";
    delete info.dataset.route;
  }
  renderActions();
  renderFacts();
  renderSeats();
  renderWaiting();
  renderLegend($("legend"), state.view.seats, data.colours, state.names);
  renderResult();
  renderLeave();
  tick();
}

// ------------------------------------------------------------------------------ the log

const gameLog = createGameLog(describe);

function appendLog(seq, notifications) {
  gameLog.append(seq, notifications, state.names);
}

// ------------------------------------------------------------------------------ the clock

function tick() {
  showClock(state, playerOf);
}

setInterval(tick, 1000);

// ------------------------------------------------------------------------------ chat

function chatItem(message) {
  const li = plainChatItem(message);
  if (message.author.id !== data.user.id) {
    li.append(" ", reportButton(format(gettext("Report this message from %(player)s"), { player: message.author.display_name }), {
      chat_message: message.id,
      what: format(gettext("You are reporting this message from %(player)s: “%(text)s”"), { player: message.author.display_name, text: message.text }),
    }));
  }
  return li;
}

function renderChat(messages) {
  renderChatItems(messages, chatItem);
}

function addChat(message) {
  addChatItem(message, chatItem);
}

setUpChatForm((text) => send({ type: "chat", text, ref: `c${++state.refs}` }));

// ------------------------------------------------------------------------------ open tables

setUpTableButtons(data.urls);

/** The log in players' names: lines written before the seats were drawn said "Seat N". */
function renameLog() {
  gameLog.rename(state.names);
}

function followTable() {
  followOpenTable(state, data, {
    poll: () => api(data.urls.api),
    started: () => {
      drop();
      connect();
    },
    render,
  });
}

// ------------------------------------------------------------------------------ resign, report

setUpResign(
  () => state.synced && !state.pending,
  () => submit({ type: "resign" }),
);

let reporting = null; // the report's target: {reported_user} or {chat_message}

function reportButton(label, target) {
  const b = document.createElement("button");
  b.type = "button";
  b.className = "link-button report-button";
  b.textContent = gettext("Report");
  b.setAttribute("aria-label", label);
  if (target.reported_user !== undefined) b.dataset.reportUser = String(target.reported_user);
  if (target.chat_message !== undefined) b.dataset.reportMessage = String(target.chat_message);
  b.addEventListener("click", () => {
    reporting = target;
    $("report-what").textContent = target.what;
    $("report-reason").value = "";
    $("report-error").textContent = "";
    $("report-dialog").showModal();
    $("report-reason").focus();
  });
  return b;
}

$("report-cancel").addEventListener("click", () => $("report-dialog").close());
$("report-form").addEventListener("submit", async (event) => {
  event.preventDefault();
  const reason = $("report-reason").value.trim();
  if (!reason) {
    $("report-error").textContent = gettext("Say what happened, in a few words.");
    $("report-reason").focus();
    return;
  }
  const body = { reason };
  if (reporting.reported_user !== undefined) body.reported_user = reporting.reported_user;
  if (reporting.chat_message !== undefined) body.chat_message = reporting.chat_message;
  $("report-send").disabled = true;
  try {
    await api(data.urls.reports, { method: "POST", body });
    $("report-dialog").close();
    $("report-done").textContent = gettext("Thank you: the moderators will look at your report.");
    $("report-done").className = "notice";
  } catch (failure) {
    $("report-error").textContent = failure.message;
  } finally {
    $("report-send").disabled = false;
  }
});

render();
connect();
followTable();
