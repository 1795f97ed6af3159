// What every game's page does the same way, whatever the game: following its socket
// (docs/websocket.md), the turn clock, the table chat, the open table's join/leave and its
// follow-up until the game starts, and the resign dialog. Bahama Taxi's page (game.js) and
// Digit Code's (digit_code/page.js and live.js) import it; each keeps what is its own.
import { api, socketUrl } from "./api.js";
import { format, gettext } from "./wording.js";

const $ = (id) => document.getElementById(id);

export const BACKOFF_FIRST_MS = 500;
export const BACKOFF_MAX_MS = 15000;
export const PING_EVERY_MS = 25000;
export const PONG_WITHIN_MS = 10000;
export const MOVE_ANSWER_WITHIN_MS = 15000;
export const SOCKET_ANSWER_WITHIN_MS = 3000; // then the same move (same key) goes over HTTP

// ------------------------------------------------------------------------------ the socket

/** Open the game socket. `current()` says whether it is still the one in use (one replaced on
 *  purpose speaks no more); `onFrame(frame)` gets each frame that parses, `onLost(code)` the
 *  close code. */
export function openSocket(path, { current, onFrame, onLost }) {
  const socket = new WebSocket(socketUrl(path));
  socket.addEventListener("message", (event) => {
    if (!current(socket)) return;
    onFrame(event.data);
  });
  socket.addEventListener("close", (event) => {
    if (!current(socket)) return; // replaced on purpose
    onLost(event.code);
  });
  return socket;
}

/** The frame in a socket message, or null when it does not parse. */
export function parseFrame(text) {
  try {
    return JSON.parse(text);
  } catch {
    return null;
  }
}

/** How long to wait before the next attempt: exponential backoff with some jitter. */
export function retryDelay(attempts) {
  const delay = Math.min(BACKOFF_MAX_MS, BACKOFF_FIRST_MS * 2 ** attempts);
  return delay * (0.75 + Math.random() / 2);
}

// ------------------------------------------------------------------------------ the turn

/** Whether the view says the reader is to move. */
export function isMyTurn(view) {
  return Boolean(view && view.status === "playing" && view.you !== null && view.you === view.active_seat);
}

/** The turn line while there is no game to speak of yet (open, cancelled, loading), else null. */
export function tableText(state) {
  if (state.status === "open") return gettext("Waiting for players to join.");
  if (state.status === "cancelled") return gettext("This table was cancelled.");
  if (!state.view) return gettext("Loading the game…");
  return null;
}

// ------------------------------------------------------------------------------ the log

/** The game log (#log, #log-lines), each notification a line in the reader's words:
 *  `describe(notification, names)`; `skip(notification)` says which have no line. */
export function createGameLog(describe, skip = () => false) {
  const logged = new WeakMap(); // log line → its notification, to name players once known
  return {
    append(seq, notifications, names) {
      const box = $("log");
      const nearBottom = box.scrollHeight - box.scrollTop - box.clientHeight < 40;
      const fragment = document.createDocumentFragment();
      for (const notification of notifications) {
        if (skip(notification)) continue;
        const li = document.createElement("li");
        li.dataset.seq = String(seq);
        li.dataset.type = notification.type;
        li.textContent = describe(notification, names);
        logged.set(li, notification);
        fragment.appendChild(li);
      }
      $("log-lines").appendChild(fragment);
      if (nearBottom) box.scrollTop = box.scrollHeight;
    },
    /** The log in players' names: lines written before the seats were drawn said "Seat N". */
    rename(names) {
      for (const li of $("log-lines").children) {
        const notification = logged.get(li);
        if (notification) li.textContent = describe(notification, names);
      }
    },
  };
}

// ------------------------------------------------------------------------------ the clock

export function remaining(ms) {
  const total = Math.max(0, Math.ceil(ms / 1000));
  const days = Math.floor(total / 86400);
  const hours = Math.floor((total % 86400) / 3600);
  const minutes = Math.floor((total % 3600) / 60);
  const seconds = String(total % 60).padStart(2, "0");
  if (days) return format(gettext("%(days)s d %(hours)s h"), { days, hours });
  if (hours) return `${hours}:${String(minutes).padStart(2, "0")}:${seconds}`;
  return `${minutes}:${seconds}`;
}

/** The turn clock (#clock) for `state.view` and `state.clock`; `nameOf(seat)` names the seat. */
export function showClock(state, nameOf) {
  const clock = $("clock");
  const view = state.view;
  if (!view || view.status !== "playing") {
    clock.textContent = "";
    return;
  }
  const deadline = state.clock && state.clock.turn_deadline_at;
  if (!deadline) {
    clock.textContent = gettext("No time limit per turn.");
    clock.dataset.left = "";
    return;
  }
  const left = new Date(deadline).getTime() - Date.now();
  clock.dataset.left = String(Math.max(0, Math.round(left / 1000)));
  clock.classList.toggle("urgent", left < 10000);
  clock.textContent = left > 0
    ? format(gettext("Time left for %(seat)s: %(time)s"), { seat: nameOf(view.active_seat), time: remaining(left) })
    : format(gettext("%(seat)s is out of time; the autopilot will play."), { seat: nameOf(view.active_seat) });
}

// ------------------------------------------------------------------------------ chat

export function chatItem(message) {
  const li = document.createElement("li");
  li.dataset.id = String(message.id);
  const who = document.createElement("strong");
  who.textContent = message.author.display_name;
  const when = document.createElement("time");
  when.dateTime = message.created_at;
  when.textContent = new Date(message.created_at).toLocaleTimeString([], { hour: "2-digit", minute: "2-digit" });
  li.append(when, " ", who, ": ", message.text);
  return li;
}

/** The chat as the socket's hello gives it; `item` draws one message. */
export function renderChat(messages, item = chatItem) {
  $("chat-messages").replaceChildren(...messages.map(item));
  $("chat").scrollTop = $("chat").scrollHeight;
}

/** One message more (once, however often it comes). */
export function addChat(message, item = chatItem) {
  const list = $("chat-messages");
  if (list.querySelector(`li[data-id="${CSS.escape(String(message.id))}"]`)) return;
  list.appendChild(item(message));
  $("chat").scrollTop = $("chat").scrollHeight;
}

/** The chat form: `send(text)` says whether the message went out. */
export function setUpChatForm(send) {
  $("chat-form")?.addEventListener("submit", (event) => {
    event.preventDefault();
    const input = $("chat-text");
    const text = input.value.trim();
    $("chat-error").textContent = "";
    if (!text) return;
    if (!send(text)) {
      $("chat-error").textContent = gettext("Not connected; try again in a moment.");
      return;
    }
    input.value = "";
  });
}

// ------------------------------------------------------------------------------ open tables

async function tableAction(url) {
  try {
    await api(url, { method: "POST", body: {} });
    window.location.reload();
  } catch (failure) {
    $("waiting-error").textContent = failure.message;
  }
}

/** The waiting room's join and leave buttons. */
export function setUpTableButtons(urls) {
  $("join-button").addEventListener("click", () => tableAction(urls.join));
  $("leave-button").addEventListener("click", () => tableAction(urls.leave));
}

/** While the table fills up: who joined comes over the user's socket (public tables: invite-only
 *  ones are not announced), with a slow poll (`poll()` gives the table) beside it; each news
 *  updates `data.seats` and `render()`s. Once the game starts, `started()` opens the game socket
 *  anew: one opened on an open table takes the start for already sent and us for a spectator,
 *  so a fresh one syncs from the beginning. */
export function followOpenTable(state, data, { poll, started, render }) {
  if (state.status !== "open") return;
  const socket = new WebSocket(socketUrl("/ws/me/"));
  let timer = null;
  const changed = (table) => {
    if (state.status !== "open") return;
    data.seats = table.seats.map((s) => ({ seat: s.seat, join_order: s.join_order, name: s.user.display_name, user: s.user.id, bot: s.bot }));
    if (table.status !== "open") {
      state.status = table.status;
      clearInterval(timer);
      socket.close();
      if (table.status === "playing") started();
    }
    render();
  };
  socket.addEventListener("message", (event) => {
    const frame = JSON.parse(event.data);
    if (frame.type === "table" && frame.table.id === data.id) changed(frame.table);
  });
  timer = setInterval(async () => {
    try {
      changed(await poll());
    } catch {
      // try again at the next tick
    }
  }, 5000);
}

// ------------------------------------------------------------------------------ resign

/** The resign button and its dialog: `ready()` says whether a move can go now, `resign()`
 *  sends it. */
export function setUpResign(ready, resign) {
  $("resign-button").addEventListener("click", () => {
    $("resign-error").textContent = "";
    $("resign-dialog").showModal();
    $("resign-cancel").focus(); // the safe choice first
  });
  $("resign-cancel").addEventListener("click", () => $("resign-dialog").close());
  $("resign-confirm").addEventListener("click", () => {
    $("resign-dialog").close();
    if (!ready()) {
      $("resign-error").textContent = gettext("Not connected; try again in a moment.");
      return;
    }
    resign();
  });
}
