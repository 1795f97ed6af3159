// The Digit Code page (RULES-digit-code.md): six seven-segment displays lit by the public
// answers, the question picker and the guess form, the public questions and answers, each
// player's guesses, private notes, the turn clock and the end with its proof of fairness.
//
// It follows the game over its socket (live.js) and holds no rules: what may be asked is the
// view's ask offer, and the server judges every move; the page only spares the player a
// refusal it can see coming (a guess that breaks B2 or B3, or repeats one).
import { api } from "../../web/api.js";
import { addChat, createGameLog, followOpenTable, isMyTurn, renderChat, setUpChatForm, setUpResign, setUpTableButtons, showClock, tableText } from "../../web/game-common.js";
import { competitionRanks, seatLabel } from "../../web/wording.js";
import {
  LIT,
  POSITIONS,
  SEGMENTS,
  answerOf,
  guessProblem,
  knownLeds,
  ledState,
  questionKey,
  questionLeds,
  questionPositions,
  questionsOffered,
} from "./board.js";
import { verifyGame } from "./fairness.js";
import { GameLink } from "./live.js";
import {
  answerText,
  describe,
  format,
  gettext,
  kindName,
  ledName,
  lineName,
  ngettext,
  playerNamer,
  positionName,
  questionShort,
  questionText,
} from "./sentences.js";

const $ = (id) => document.getElementById(id);
const data = JSON.parse($("game-data").textContent);
const KINDS = ["count", "parity", "compare", "led"];
const api_url = data.urls.api || `/api/v1/games/${data.id}`;
const urls = {
  socket: data.urls.socket || `/ws/games/${data.id}/`,
  api: api_url,
  moves: data.urls.moves || `${api_url}/actions`,
  notes: data.urls.notes || `${api_url}/notes`, // the author's own (C2)
};

const state = {
  view: null,
  seat: data.you ?? null,
  status: data.status,
  clock: data.clock || null,
  names: new Map(data.seats.filter((s) => s.seat !== null).map((s) => [s.seat, s.name])),
  synced: false,
  seatPending: false,
  kind: null, // the question kind chosen in the picker
  selected: 1, // the position whose notes are open
  notes: emptyNotes(),
  notesLoaded: false,
  recent: null, // {question, seq}: the latest answer that came live, flashed on the displays
  lastMove: null, // "ask" | "guess" | "resign": where a refusal is shown
  verified: null, // the seed whose checks are shown
};

function emptyNotes() {
  return { digits: {}, leds: {} };
}

const link = new GameLink(urls, {
  hello(frame) {
    state.seat = frame.seat;
    if (frame.status) state.status = frame.status;
    if (frame.clock) state.clock = frame.clock;
    renderChat(frame.chat || []);
    $("log").setAttribute("aria-busy", "true");
  },
  entry(frame) {
    appendLog(frame.seq, frame.notifications);
    $("game").dataset.seq = String(frame.seq);
    if (frame.clock) state.clock = frame.clock;
    if (frame.notifications.some((n) => n.type === "game_started")) {
      state.status = "playing";
      if (state.seat === null && data.seated) state.seatPending = true;
    }
    if (link.synced) {
      // a live answer: its LEDs or positions flash on the displays, so no one misses it
      const asked = frame.notifications.filter((n) => n.type === "question_asked").pop();
      if (asked) state.recent = { question: asked.question, seq: frame.seq };
    }
    if (frame.view) {
      state.view = frame.view;
      state.status = frame.view.status;
    }
    if (link.synced) afterUpdate();
  },
  synced() {
    state.synced = true;
    $("log").setAttribute("aria-busy", "false");
    afterUpdate();
    refreshSummary();
  },
  connection(kind) {
    const words = {
      connecting: gettext("Connecting…"),
      reconnecting: gettext("Connection lost. Reconnecting…"),
      live: gettext("Live"),
      closed: gettext("This game cannot be followed from this account."),
      unauthenticated: gettext("Connection lost. Reconnecting…"),
    };
    const node = $("connection");
    node.dataset.state = kind === "unauthenticated" ? "closed" : kind;
    node.textContent = words[kind] || kind;
    if (kind !== "live") state.synced = false;
    render();
  },
  refused(frame) {
    const where = state.lastMove === "guess" ? $("guess-error") : state.lastMove === "resign" ? $("resign-error") : $("action-error");
    where.textContent = frame.code === "stale_version"
      ? gettext("The game moved on before your move arrived; here it is now.")
      : format(gettext("Refused: %(message)s (%(code)s)"), { message: frame.message, code: frame.code });
    render();
  },
  done() {
    render();
  },
  restart() {
    $("log-lines").replaceChildren();
  },
  chat: addChat,
  chatHidden(id) {
    document.querySelector(`#chat-messages li[data-id="${CSS.escape(String(id))}"]`)?.remove();
  },
  chatRefused(message) {
    const error = $("chat-error");
    if (error) error.textContent = message;
  },
});

function afterUpdate() {
  if (state.seatPending) {
    // This socket was opened before the seats were drawn, so it took us for a spectator; a
    // new one knows our seat (and sends what we may do).
    state.seatPending = false;
    refreshSummary();
    link.reconnect();
    return;
  }
  if (state.view && state.names.size < state.view.seats.length) refreshSummary();
  if (!state.notesLoaded && mySeat() !== null) loadNotes();
  render();
}

async function refreshSummary() {
  try {
    const summary = await api(urls.api);
    const game = summary.game && typeof summary.game === "object" ? summary.game : summary;
    if (game.clock_state) state.clock = game.clock_state;
    const known = state.names.size;
    for (const seat of game.seats || []) {
      if (seat.seat !== null) state.names.set(seat.seat, seat.user.display_name);
    }
    if (game.seats) {
      data.seats = game.seats.map((s) => ({ seat: s.seat, join_order: s.join_order, name: s.user.display_name, user: s.user.id, bot: s.bot }));
    }
    if (state.names.size !== known) renameLog();
    if (state.view === null && game.status) state.status = game.status;
    render();
  } catch {
    // names and clock stay as they were; the next sync asks again
  }
}

// ------------------------------------------------------------------------------ who and when

const nameOf = (seat) => playerNamer(state.names)(seat);

function mySeat() {
  const view = state.view;
  if (view && view.you !== null && view.you !== undefined) return view.you;
  return state.seat;
}

function myTurn() {
  return isMyTurn(state.view);
}

function canMove() {
  return myTurn() && link.synced && !link.busy();
}

function over() {
  return Boolean(state.view && state.view.status !== "playing");
}

function turnText() {
  const view = state.view;
  const before = tableText(state);
  if (before) return before;
  if (view.status === "aborted") return gettext("The game was stopped by a moderator.");
  if (view.status === "finished") {
    const winner = view.result?.winner;
    if (winner === null || winner === undefined) return gettext("The game is over: nobody found the code.");
    return winner === view.you
      ? gettext("You found the code: you win!")
      : format(gettext("The game is over: %(player)s found the code."), { player: nameOf(winner) });
  }
  const me = view.you !== null && view.you !== undefined ? view.seats[view.you] : null;
  if (link.busy()) return gettext("Sending your move…");
  if (myTurn()) return gettext("Your turn: ask a question or guess the code.");
  const waiting = format(gettext("%(player)s is playing."), { player: nameOf(view.active_seat) });
  if (me && me.eliminated) return `${gettext("You are out of the game; you can still follow it.")} ${waiting}`;
  return waiting;
}

// ------------------------------------------------------------------------------ the displays

const SEGMENT_SHAPES = {
  a: [[12, 10], [17, 5], [43, 5], [48, 10], [43, 15], [17, 15]],
  g: [[12, 50], [17, 45], [43, 45], [48, 50], [43, 55], [17, 55]],
  d: [[12, 90], [17, 85], [43, 85], [48, 90], [43, 95], [17, 95]],
  f: [[10, 12], [15, 17], [15, 43], [10, 48], [5, 43], [5, 17]],
  b: [[50, 12], [55, 17], [55, 43], [50, 48], [45, 43], [45, 17]],
  e: [[10, 52], [15, 57], [15, 83], [10, 88], [5, 83], [5, 57]],
  c: [[50, 52], [55, 57], [55, 83], [50, 88], [45, 83], [45, 57]],
};
const SVG = "http://www.w3.org/2000/svg";

function notesOn() {
  return mySeat() !== null && data.seated;
}

function buildDisplays() {
  const box = $("displays");
  box.replaceChildren();
  const interactive = notesOn();
  for (const position of POSITIONS) {
    const display = document.createElement(interactive ? "button" : "div");
    display.className = "dc-display";
    display.dataset.position = String(position);
    display.id = `display-${position}`;
    if (interactive) {
      display.type = "button";
      display.addEventListener("click", () => selectPosition(position, true));
    } else {
      display.setAttribute("role", "img");
    }
    const title = document.createElement("span");
    title.className = "dc-display-title";
    title.setAttribute("aria-hidden", "true");
    title.textContent = String(position);
    const svg = document.createElementNS(SVG, "svg");
    svg.setAttribute("viewBox", "0 0 60 100");
    svg.setAttribute("aria-hidden", "true");
    svg.setAttribute("focusable", "false");
    for (const segment of SEGMENTS) {
      const shape = document.createElementNS(SVG, "polygon");
      shape.setAttribute("points", SEGMENT_SHAPES[segment].map((p) => p.join(",")).join(" "));
      shape.classList.add("seg");
      shape.dataset.segment = segment;
      svg.appendChild(shape);
    }
    const strip = document.createElement("span");
    strip.className = "dc-strip";
    strip.setAttribute("aria-hidden", "true");
    for (let digit = 0; digit <= 9; digit += 1) {
      const d = document.createElement("span");
      d.dataset.digit = String(digit);
      d.textContent = String(digit);
      strip.appendChild(d);
    }
    const digit = document.createElement("span");
    digit.className = "dc-revealed";
    digit.setAttribute("aria-hidden", "true");
    const words = document.createElement("span");
    words.className = "visually-hidden dc-display-words";
    display.append(title, svg, digit, strip, words);
    box.appendChild(display);
  }
  box.dataset.interactive = String(interactive);
}

/** What a display shows of one LED: the public answer, else the player's own note. */
function ledLook(known, position, segment, code) {
  if (code) return LIT[code[position - 1]].includes(segment) ? "lit" : "unlit";
  const fact = ledState(known, position, segment);
  if (fact !== "unknown") return fact;
  const note = notesOn() ? state.notes.leds[position]?.[segment] : undefined;
  return note ? `note-${note}` : "unknown";
}

function renderDisplays() {
  const view = state.view;
  const interactive = notesOn();
  if ($("displays").dataset.interactive !== String(interactive) || !$("displays").children.length) buildDisplays();
  const known = knownLeds(view ? view.questions : []);
  const code = view && over() && Array.isArray(view.code) ? view.code : null;
  const preview = new Set(currentQuestion() && canMove() ? questionLeds(currentQuestion()).map(([p, s]) => `${p}${s}`) : []);
  const previewPositions = new Set(currentQuestion() && canMove() && ["parity", "compare"].includes(currentQuestion().kind)
    ? (currentQuestion().kind === "compare" ? [currentQuestion().position - 1, currentQuestion().position] : [currentQuestion().position])
    : []);
  const recent = state.recent ? state.recent.question : null;
  const recentLeds = new Set(recent ? questionLeds(recent).map(([p, s]) => `${p}${s}`) : []);
  const recentPositions = new Set(recent && ["parity", "compare"].includes(recent.kind) ? questionPositions(recent) : []);
  for (const position of POSITIONS) {
    const display = $(`display-${position}`);
    const lit = [];
    const unlit = [];
    const open = [];
    const notedLit = [];
    const notedUnlit = [];
    for (const shape of display.querySelectorAll(".seg")) {
      const segment = shape.dataset.segment;
      const look = ledLook(known, position, segment, code);
      const marks = `${preview.has(`${position}${segment}`) ? " asked" : ""}${recentLeds.has(`${position}${segment}`) ? " recent" : ""}`;
      shape.setAttribute("class", `seg ${look}${marks}`);
      shape.dataset.state = look;
      ({ lit, unlit, unknown: open, "note-lit": notedLit, "note-unlit": notedUnlit })[look].push(segment);
    }
    display.classList.toggle("asked", previewPositions.has(position));
    display.classList.toggle("recent", recentPositions.has(position));
    display.dataset.recent = state.recent ? String(state.recent.seq) : "";
    const ruled = interactive ? state.notes.digits[position] || [] : [];
    for (const d of display.querySelectorAll(".dc-strip span")) {
      d.classList.toggle("out", ruled.includes(Number(d.dataset.digit)));
    }
    display.querySelector(".dc-strip").hidden = !interactive || Boolean(code);
    display.querySelector(".dc-revealed").textContent = code ? String(code[position - 1]) : "";
    if (interactive) {
      display.setAttribute("aria-pressed", String(state.selected === position));
      display.classList.toggle("selected", state.selected === position);
    }
    const parts = [positionName(position)];
    if (code) parts.push(format(gettext("the digit %(digit)s"), { digit: code[position - 1] }));
    const list = (letters) => letters.join(", ");
    if (lit.length) parts.push(format(gettext("lit: %(leds)s"), { leds: list(lit) }));
    if (unlit.length) parts.push(format(gettext("unlit: %(leds)s"), { leds: list(unlit) }));
    if (open.length) parts.push(format(gettext("not known: %(leds)s"), { leds: list(open) }));
    if (notedLit.length) parts.push(format(gettext("lit in your notes: %(leds)s"), { leds: list(notedLit) }));
    if (notedUnlit.length) parts.push(format(gettext("unlit in your notes: %(leds)s"), { leds: list(notedUnlit) }));
    if (ruled.length) parts.push(format(gettext("digits you ruled out: %(digits)s"), { digits: [...ruled].sort().join(", ") }));
    const words = parts.join(". ");
    display.querySelector(".dc-display-words").textContent = words;
    if (!interactive) display.setAttribute("aria-label", words);
  }
}

// ------------------------------------------------------------------------------ notes (C2)

function selectPosition(position, focusNotes) {
  state.selected = position;
  render();
  if (focusNotes) $("note-digits").querySelector("button")?.focus();
}

function buildNotes() {
  const digits = $("note-digits");
  if (!digits.children.length) {
    for (let digit = 0; digit <= 9; digit += 1) {
      const button = document.createElement("button");
      button.type = "button";
      button.className = "dc-note-digit";
      button.dataset.digit = String(digit);
      button.textContent = String(digit);
      button.addEventListener("click", () => toggleDigit(digit));
      digits.appendChild(button);
    }
    for (const segment of SEGMENTS) {
      const button = document.createElement("button");
      button.type = "button";
      button.className = "dc-note-led";
      button.dataset.segment = segment;
      button.addEventListener("click", () => cycleLed(segment));
      $("note-leds").appendChild(button);
    }
  }
}

function renderNotes() {
  const section = $("notes");
  section.hidden = !notesOn();
  document.querySelectorAll(".dc-for-notes").forEach((li) => {
    li.hidden = !notesOn();
  });
  if (section.hidden) return;
  buildNotes();
  const position = state.selected;
  $("notes-heading").textContent = format(gettext("Your notes: position %(position)s"), { position });
  $("digits-legend").textContent = format(gettext("Digits you ruled out at position %(position)s"), { position });
  const ruled = state.notes.digits[position] || [];
  for (const button of $("note-digits").children) {
    const digit = Number(button.dataset.digit);
    const out = ruled.includes(digit);
    button.setAttribute("aria-pressed", String(out));
    button.setAttribute("aria-label", out
      ? format(gettext("%(digit)s: ruled out"), { digit })
      : format(gettext("%(digit)s: still possible"), { digit }));
  }
  const known = knownLeds(state.view ? state.view.questions : []);
  for (const button of $("note-leds").children) {
    const segment = button.dataset.segment;
    const fact = ledState(known, position, segment);
    const note = state.notes.leds[position]?.[segment];
    let word;
    if (fact === "lit") word = gettext("lit (answered)");
    else if (fact === "unlit") word = gettext("unlit (answered)");
    else if (note === "lit") word = gettext("lit (your note)");
    else if (note === "unlit") word = gettext("unlit (your note)");
    else word = gettext("not known");
    button.textContent = `${ledName(segment)}: ${word}`;
    button.dataset.state = fact !== "unknown" ? fact : note ? `note-${note}` : "unknown";
    button.disabled = fact !== "unknown";
  }
  $("notes-clear").textContent = format(gettext("Clear the notes of position %(position)s"), { position });
}

function toggleDigit(digit) {
  const position = state.selected;
  const ruled = new Set(state.notes.digits[position] || []);
  if (ruled.has(digit)) ruled.delete(digit);
  else ruled.add(digit);
  state.notes.digits[position] = [...ruled].sort((a, b) => a - b);
  if (!ruled.size) delete state.notes.digits[position];
  notesChanged();
}

function cycleLed(segment) {
  const position = state.selected;
  const leds = { ...(state.notes.leds[position] || {}) };
  const next = { undefined: "lit", lit: "unlit", unlit: undefined }[leds[segment]];
  if (next) leds[segment] = next;
  else delete leds[segment];
  state.notes.leds[position] = leds;
  if (!Object.keys(leds).length) delete state.notes.leds[position];
  notesChanged();
}

$("notes-clear").addEventListener("click", () => {
  delete state.notes.digits[state.selected];
  delete state.notes.leds[state.selected];
  notesChanged();
});

/** The notes as the notes endpoint stores them: per position the digits ruled out, per LED
 *  its state (an LED not listed is not known). */
function notesBody() {
  return { notes: state.notes };
}

function readNotes(body) {
  const notes = body && typeof body === "object" && "notes" in body ? body.notes : body;
  const clean = emptyNotes();
  if (!notes || typeof notes !== "object") return clean;
  for (const [position, digits] of Object.entries(notes.digits || {})) {
    if (POSITIONS.includes(Number(position)) && Array.isArray(digits)) {
      clean.digits[position] = digits.filter((d) => Number.isInteger(d) && d >= 0 && d <= 9);
    }
  }
  for (const [position, leds] of Object.entries(notes.leds || {})) {
    if (!POSITIONS.includes(Number(position)) || !leds || typeof leds !== "object") continue;
    for (const [segment, value] of Object.entries(leds)) {
      if (SEGMENTS.includes(segment) && (value === "lit" || value === "unlit")) {
        clean.leds[position] = { ...(clean.leds[position] || {}), [segment]: value };
      }
    }
  }
  return clean;
}

const SAVE_AFTER_MS = 300; // quick clicks in a row make one save
const RETRY_AFTER_MS = 3000; // a save refused for going too fast is tried again
const saving = { inFlight: false, again: false, timer: null };

function notesChanged() {
  $("notes").dataset.saved = "false";
  render();
  clearTimeout(saving.timer);
  saving.timer = setTimeout(saveNotes, SAVE_AFTER_MS);
}

/** Saved as they are made (C2): one request at a time, the latest notes after it. */
async function saveNotes() {
  if (saving.inFlight) {
    saving.again = true;
    return;
  }
  saving.inFlight = true;
  $("notes-status").textContent = gettext("Saving your notes…");
  try {
    await api(urls.notes, { method: "PUT", body: notesBody() });
    $("notes-status").textContent = saving.again ? gettext("Saving your notes…") : gettext("Notes saved.");
    $("notes").dataset.saved = saving.again ? "false" : "true";
  } catch (failure) {
    $("notes-status").textContent = format(gettext("Your notes could not be saved: %(message)s"), { message: failure.message || String(failure) });
    $("notes").dataset.saved = "false";
    if (failure.status === 429 || failure.status === 0) {
      clearTimeout(saving.timer);
      saving.timer = setTimeout(saveNotes, RETRY_AFTER_MS);
    }
  } finally {
    saving.inFlight = false;
    if (saving.again) {
      saving.again = false;
      saveNotes();
    }
  }
}

async function loadNotes() {
  state.notesLoaded = true;
  try {
    state.notes = readNotes(await api(urls.notes));
    $("notes").dataset.loaded = "true";
  } catch (failure) {
    state.notesLoaded = false;
    $("notes-status").textContent = format(gettext("Your notes could not be loaded: %(message)s"), { message: failure.message || String(failure) });
  }
  render();
}

// ------------------------------------------------------------------------------ asking

function offeredQuestions() {
  return canMove() ? questionsOffered(state.view) : [];
}

/** The question the picker describes now, or null when its choices name none. */
function currentQuestion() {
  const offered = offeredQuestions();
  if (!state.kind) return null;
  let wanted;
  if (state.kind === "count") {
    const [line, index] = ($("ask-line").value || ":").split(":");
    wanted = { kind: "count", line, index: Number(index) };
  } else if (state.kind === "led") {
    wanted = { kind: "led", position: Number($("ask-position").value), segment: $("ask-segment").value };
  } else {
    wanted = { kind: state.kind, position: Number($("ask-position").value) };
  }
  const key = questionKey(wanted);
  return offered.find((q) => questionKey(q) === key) || null;
}

/** Fill a select with these options, keeping its choice when it is still there (and leaving
 *  it alone when nothing changed, so a focused select keeps its place). */
function fillSelect(select, options) {
  const signature = options.map(([value, text]) => `${value}=${text}`).join("|");
  if (select.dataset.signature === signature) return;
  const keep = select.value;
  select.replaceChildren(...options.map(([value, text]) => new Option(text, value)));
  select.dataset.signature = signature;
  if (options.some(([value]) => value === keep)) select.value = keep;
}

function buildKinds() {
  const box = $("ask-kinds");
  if (box.children.length) return;
  for (const kind of KINDS) {
    const label = document.createElement("label");
    label.className = "choice";
    const input = document.createElement("input");
    input.type = "radio";
    input.name = "kind";
    input.value = kind;
    input.id = `ask-kind-${kind}`;
    input.addEventListener("change", () => {
      state.kind = kind;
      render();
    });
    const text = document.createElement("span");
    text.dataset.kindName = kind;
    label.append(input, text);
    box.appendChild(label);
  }
}

function renderAsk() {
  const form = $("ask-form");
  const offered = offeredQuestions();
  form.hidden = !myTurn() || !questionsOffered(state.view).length;
  if (form.hidden) return;
  buildKinds();
  const byKind = Object.fromEntries(KINDS.map((kind) => [kind, offered.filter((q) => q.kind === kind)]));
  if (!state.kind || !byKind[state.kind].length) state.kind = KINDS.find((kind) => byKind[kind].length) || null;
  for (const input of form.querySelectorAll("input[name=kind]")) {
    const left = byKind[input.value].length;
    input.disabled = !left || !canMove();
    input.checked = input.value === state.kind;
    input.nextElementSibling.textContent = `${kindName(input.value)} (${format(ngettext("%(count)s left", "%(count)s left", left), { count: left })})`;
  }
  const kind = state.kind;
  $("ask-line-field").hidden = kind !== "count";
  $("ask-position-field").hidden = !["parity", "compare", "led"].includes(kind);
  $("ask-segment-field").hidden = kind !== "led";
  if (kind === "count") {
    fillSelect($("ask-line"), byKind.count.map((q) => [`${q.line}:${q.index}`, lineName(q.line, q.index)]));
  } else if (kind) {
    const positions = [...new Set(byKind[kind].map((q) => q.position))];
    fillSelect($("ask-position"), positions.map((p) => [String(p), kind === "compare"
      ? format(gettext("Position %(position)s against position %(left)s"), { position: p, left: p - 1 })
      : positionName(p)]));
    if (kind === "led") {
      const position = Number($("ask-position").value);
      fillSelect($("ask-segment"), byKind.led.filter((q) => q.position === position).map((q) => [q.segment, ledName(q.segment)]));
    }
  }
  for (const select of form.querySelectorAll("select")) select.disabled = !canMove();
  const question = currentQuestion();
  $("ask-preview").textContent = question ? questionText(question) : "";
  $("ask-button").disabled = !question || !canMove();
}

for (const id of ["ask-line", "ask-position", "ask-segment"]) {
  $(id).addEventListener("change", () => render());
}

$("ask-form").addEventListener("submit", (event) => {
  event.preventDefault();
  const question = currentQuestion();
  if (!question || !canMove()) return;
  clearErrors();
  state.lastMove = "ask";
  link.submit({ type: "ask", seat: state.view.you, question });
  render();
});

// ------------------------------------------------------------------------------ guessing

const guessInputs = POSITIONS.map((p) => $(`guess-${p}`));

function clearErrors() {
  $("action-error").textContent = "";
  $("guess-error").textContent = "";
  for (const input of guessInputs) input.removeAttribute("aria-invalid");
}

guessInputs.forEach((input, index) => {
  input.addEventListener("input", () => {
    const digits = input.value.replace(/[^0-9]/g, "");
    if (digits.length > 1) {
      // a whole code typed or pasted into one box: spread it over this box and the next ones
      [...digits].slice(0, guessInputs.length - index).forEach((digit, offset) => {
        guessInputs[index + offset].value = digit;
      });
      guessInputs[Math.min(index + digits.length, guessInputs.length) - 1].focus();
      return;
    }
    input.value = digits;
    input.removeAttribute("aria-invalid");
    if (input.value && index < guessInputs.length - 1) guessInputs[index + 1].focus();
  });
  input.addEventListener("focus", () => input.select()); // a digit typed replaces the one there
  input.addEventListener("keydown", (event) => {
    if (event.key === "Backspace" && !input.value && index > 0) {
      guessInputs[index - 1].focus();
    }
  });
});

function guessCode() {
  return guessInputs.map((input) => (/^[0-9]$/.test(input.value) ? Number(input.value) : null));
}

function problemText(problem) {
  if (problem.code === "malformed_action") return gettext("Write one digit, 0 to 9, at each of the six positions.");
  if (problem.code === "guess_repeated") return format(gettext("This code was already guessed (%(code)s)."), { code: problem.code });
  if (problem.clause === "B2") {
    return format(gettext("Positions %(first)s and %(second)s are neighbours: they cannot hold the same digit (B2, %(code)s)."), {
      first: problem.positions[0],
      second: problem.positions[1],
      code: problem.code,
    });
  }
  return format(gettext("The digit %(digit)s appears more than twice (B3, %(code)s)."), { digit: problem.digit, code: problem.code });
}

$("guess-form").addEventListener("submit", (event) => {
  event.preventDefault();
  if (!canMove()) return;
  clearErrors();
  const code = guessCode();
  const problem = guessProblem(code, state.view.guesses);
  if (problem) {
    $("guess-error").textContent = problemText(problem);
    for (const p of problem.positions) guessInputs[p - 1].setAttribute("aria-invalid", "true");
    (problem.positions.length ? guessInputs[problem.positions[0] - 1] : guessInputs[0]).focus();
    return;
  }
  const wrong = state.view.seats[state.view.you].wrong_guesses;
  $("guess-dialog-code").textContent = `${code.slice(0, 3).join("")} ${code.slice(3).join("")}`;
  $("guess-dialog-warning").textContent = wrong >= 1
    ? gettext("This is your last chance: a second wrong guess puts you out of the game.")
    : gettext("A wrong guess counts against you; a second one puts you out of the game.");
  $("guess-dialog").showModal();
  $("guess-cancel").focus(); // the safe choice first
});

$("guess-cancel").addEventListener("click", () => $("guess-dialog").close());
$("guess-confirm").addEventListener("click", () => {
  $("guess-dialog").close();
  const code = guessCode();
  if (!canMove() || guessProblem(code, state.view.guesses)) return;
  state.lastMove = "guess";
  link.submit({ type: "guess", seat: state.view.you, code });
  render();
});

function renderGuess() {
  const form = $("guess-form");
  const offered = myTurn() && state.view.legal_actions.some((a) => a.type === "guess");
  form.hidden = !offered;
  if (!offered) return;
  const wrong = state.view.seats[state.view.you].wrong_guesses;
  $("guess-hint").textContent = `${gettext("Neighbours differ, and no digit appears more than twice.")} ${format(
    ngettext("You have %(count)s wrong guess; at 2 you are out.", "You have %(count)s wrong guesses; at 2 you are out.", wrong),
    { count: wrong },
  )}`;
  for (const input of guessInputs) input.disabled = !canMove();
  $("guess-button").disabled = !canMove();
}

// ------------------------------------------------------------------------------ players

function renderSeats() {
  const body = $("seats").querySelector("tbody");
  body.replaceChildren();
  const view = state.view;
  for (const seat of view.seats) {
    const tr = document.createElement("tr");
    tr.dataset.seat = String(seat.seat);
    if (seat.seat === view.active_seat && view.status === "playing") tr.className = "active-seat";
    if (seat.eliminated) tr.classList.add("eliminated");
    const cell = (...content) => {
      const td = document.createElement("td");
      td.append(...content);
      tr.appendChild(td);
      return td;
    };
    cell(seatLabel(seat.seat), ...(seat.seat === view.active_seat && view.status === "playing" ? [" ▶", hidden(gettext("(to move)"))] : []));
    const who = [nameOf(seat.seat)];
    if (seat.seat === view.you) who.push(" ", badge(gettext("you")));
    if (seat.eliminated) who.push(" ", badge(gettext("out"), "dc-out"));
    if (view.result && view.result.winner === seat.seat) who.push(" ", badge(gettext("winner"), "dc-win"));
    cell(...who);
    const wrong = cell(`${seat.wrong_guesses} / 2`);
    wrong.className = "dc-wrong";
    const guesses = view.guesses.filter((g) => g.seat === seat.seat);
    const list = document.createElement("ul");
    list.className = "dc-guess-list";
    for (const guess of guesses) {
      const li = document.createElement("li");
      li.className = guess.correct ? "right" : "wrong";
      const code = document.createElement("code");
      code.textContent = guess.code.join("");
      li.append(code, " ", guess.correct ? gettext("right") : gettext("wrong"));
      list.appendChild(li);
    }
    cell(guesses.length ? list : "—");
    body.appendChild(tr);
  }
}

function hidden(text) {
  const span = document.createElement("span");
  span.className = "visually-hidden";
  span.textContent = text;
  return span;
}

function badge(text, extra = "") {
  const node = document.createElement("strong");
  node.className = `you-badge ${extra}`.trim();
  node.textContent = text;
  return node;
}

// ------------------------------------------------------------------------------ answers, log

function renderAnswers() {
  const list = $("answers");
  const questions = state.view.questions;
  if (list.dataset.count === String(questions.length) && list.dataset.names === namesKey()) return;
  const box = $("answers-box");
  const nearBottom = box.scrollHeight - box.scrollTop - box.clientHeight < 40;
  list.replaceChildren(...questions.map(({ seat, question, answer }, index) => {
    const li = document.createElement("li");
    li.dataset.key = questionKey(question);
    li.dataset.seat = String(seat);
    const who = document.createElement("span");
    who.className = "dc-asker";
    who.textContent = nameOf(seat);
    const what = document.createElement("span");
    what.className = "dc-question";
    what.textContent = questionShort(question);
    what.title = questionText(question);
    const said = document.createElement("strong");
    said.className = "dc-answer";
    said.textContent = answerText(question, answer);
    li.append(`${index + 1}. `, who, " — ", what, " → ", said);
    if (index === questions.length - 1) li.className = "latest";
    return li;
  }));
  list.dataset.names = namesKey();
  list.dataset.count = String(questions.length);
  if (!questions.length) {
    const li = document.createElement("li");
    li.className = "quiet";
    li.textContent = gettext("No question asked yet.");
    list.appendChild(li);
  }
  if (nearBottom) box.scrollTop = box.scrollHeight;
}

const namesKey = () => [...state.names.entries()].map((e) => e.join("=")).join("|");

// a turn's end has no line of its own: the next turn's line says as much
const gameLog = createGameLog(describe, (notification) => notification.type === "turn_ended");

function appendLog(seq, notifications) {
  gameLog.append(seq, notifications, state.names);
}

function renameLog() {
  gameLog.rename(state.names);
}

// ------------------------------------------------------------------------------ the end

function renderResult() {
  const view = state.view;
  const section = $("result");
  section.hidden = !over();
  if (section.hidden) return;
  const result = view.result;
  const winner = result ? result.winner : null;
  $("winner").textContent = winner === null || winner === undefined
    ? gettext("Nobody found the code.")
    : format(gettext("%(player)s found the code and wins."), { player: nameOf(winner) });
  const ranking = $("ranking");
  ranking.replaceChildren();
  for (const [rank, group] of competitionRanks(result ? result.ranking : [])) {
    for (const seat of group) {
      const li = document.createElement("li");
      li.value = rank;
      li.dataset.seat = String(seat);
      const s = view.seats[seat];
      const note = seat === winner ? gettext("found the code") : s.eliminated ? gettext("out") : gettext("still in");
      li.textContent = `${nameOf(seat)} (${note})`;
      ranking.appendChild(li);
    }
  }
  if (Array.isArray(view.code)) {
    const line = $("code-line");
    const code = document.createElement("code");
    code.id = "revealed-code";
    code.className = "dc-code-big";
    code.textContent = view.code.join("");
    line.replaceChildren(gettext("The code (revealed)"), ": ", code);
  }
  if (view.seed && state.verified !== view.seed) {
    state.verified = view.seed;
    const seed = document.createElement("code");
    seed.id = "seed";
    seed.textContent = view.seed;
    const commitment = document.createElement("code");
    commitment.className = "commitment";
    commitment.textContent = view.seed_commitment;
    $("seed-line").replaceChildren(gettext("Seed (revealed)"), ": ", seed, " — ", gettext("commitment published at the start:"), " ", commitment);
    checkFairness(view);
  }
}

async function checkFairness(view) {
  const list = $("fairness");
  list.dataset.state = "checking";
  list.replaceChildren(Object.assign(document.createElement("li"), { textContent: gettext("Checking the game against its seed…") }));
  if (!globalThis.crypto?.subtle || !Array.isArray(view.code)) {
    list.replaceChildren(Object.assign(document.createElement("li"), { textContent: gettext("This browser cannot check the seed (it needs a secure page).") }));
    list.dataset.state = "unchecked";
    return;
  }
  const checks = await verifyGame({
    seed: view.seed,
    commitment: view.seed_commitment,
    code: view.code,
    seatPlayers: view.seats.map((s) => s.player),
  });
  const answers = view.questions.every(({ question, answer }) => answerOf(question, view.code) === answer)
    && view.guesses.every((g) => (g.code.join("") === view.code.join("")) === g.correct);
  const line = (ok, yes, no, id) => {
    const li = document.createElement("li");
    li.id = id;
    li.dataset.ok = String(ok);
    li.textContent = `${ok ? "✓" : "✗"} ${ok ? yes : no}`;
    return li;
  };
  list.replaceChildren(
    line(checks.commitment, gettext("The seed matches the commitment published at the start."), gettext("The seed does NOT match the commitment published at the start."), "check-commitment"),
    line(checks.seats, gettext("The seed gives this seat order."), gettext("The seed does NOT give this seat order."), "check-seats"),
    line(checks.code, gettext("The seed gives this code."), gettext("The seed does NOT give this code."), "check-code"),
    line(answers, gettext("Every answer and every guess agrees with the code."), gettext("Some answer or guess does NOT agree with the code."), "check-answers"),
  );
  list.dataset.state = checks.commitment && checks.seats && checks.code && answers ? "verified" : "failed";
}

// ------------------------------------------------------------------------------ the clock

function tick() {
  showClock(state, nameOf);
}

setInterval(tick, 1000);

// ------------------------------------------------------------------------------ render

function renderWaitingRoom() {
  const room = $("waiting-room");
  room.hidden = state.status !== "open";
  if (room.hidden) return;
  $("waiting-count").textContent = format(gettext("%(count)s of %(players)s seated."), { count: data.seats.length, players: data.players });
  $("waiting-seats").replaceChildren(...data.seats.map((s) => Object.assign(document.createElement("li"), { textContent: s.name })));
  $("join-button").hidden = data.seated;
  $("leave-button").hidden = !data.seated;
  $("leave-button").textContent = data.creator ? gettext("Cancel this table") : gettext("Leave this table");
}

function renderLeave() {
  const view = state.view;
  const mine = view && view.you !== null && view.you !== undefined ? view.seats[view.you] : null;
  $("leave-game").hidden = !(view && view.status === "playing" && mine && view.legal_actions.some((a) => a.type === "resign"));
}

function render() {
  document.body.classList.toggle("my-turn", myTurn());
  $("turn-status").textContent = turnText();
  renderWaitingRoom();
  const game = $("game");
  game.dataset.status = state.status;
  game.dataset.myTurn = String(myTurn());
  document.title = `${myTurn() ? `${gettext("Your turn")} · ` : ""}${format(gettext("Digit Code, game %(id)s"), { id: data.id })}`;
  if (!state.view) {
    renderDisplays();
    renderNotes();
    return;
  }
  $("dc-move-panel").hidden = over(); // the end has its own card
  const left = state.view.questions_left;
  $("questions-left").textContent = state.view.status === "playing"
    ? format(ngettext("%(count)s question left to ask.", "%(count)s questions left to ask.", left), { count: left })
    : "";
  renderAsk();
  renderDisplays(); // after the picker: its question is highlighted on the displays
  renderNotes();
  renderGuess();
  renderSeats();
  renderAnswers();
  renderResult();
  renderLeave();
  tick();
}

// ------------------------------------------------------------------------------ chat

setUpChatForm((text) => link.chat(text));

// ------------------------------------------------------------------------------ the table

setUpTableButtons(data.urls);

function followTable() {
  followOpenTable(state, data, {
    poll: async () => {
      const summary = await api(urls.api);
      return summary.game && typeof summary.game === "object" ? summary.game : summary;
    },
    started: () => link.reconnect(),
    render,
  });
}

// ------------------------------------------------------------------------------ resign

setUpResign(
  () => link.synced && !link.busy(),
  () => {
    state.lastMove = "resign";
    link.submit({ type: "resign", seat: state.view.you });
    render();
  },
);

render();
link.connect();
followTable();
