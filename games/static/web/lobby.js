// The lobby: open a table, join or leave one (through the JSON API), and keep the lists fresh
// from the user's socket (/ws/me/: `table` when a public table changes, `your_turn`).
import { api, showErrors, socketUrl } from "./api.js";
import { format, gettext } from "./wording.js";

const lists = document.getElementById("lobby-lists");
const status = document.getElementById("lobby-status");
const createForm = document.getElementById("create-form");
const inviteForm = document.getElementById("invite-form");

let refreshing = null;
let again = false;

/** Swap in the server-rendered lists, keeping focus on the same button if it is still there. */
async function refresh() {
  if (refreshing) {
    again = true;
    return refreshing;
  }
  refreshing = (async () => {
    try {
      const response = await fetch(lists.dataset.url, { credentials: "same-origin" });
      if (!response.ok || response.redirected) return; // signed out meanwhile: keep what we show
      const html = await response.text();
      const focused = document.activeElement && lists.contains(document.activeElement) ? document.activeElement : null;
      const key = focused ? focused.id || focused.dataset.join || focused.dataset.leave || focused.getAttribute("href") : null;
      lists.innerHTML = html;
      if (key) {
        const same = lists.querySelector(`[id="${CSS.escape(key)}"], [data-join="${CSS.escape(key)}"], [data-leave="${CSS.escape(key)}"], [href="${CSS.escape(key)}"]`);
        if (same) same.focus();
      }
    } finally {
      refreshing = null;
      if (again) {
        again = false;
        refresh();
      }
    }
  })();
  return refreshing;
}

lists.addEventListener("click", async (event) => {
  const button = event.target.closest("button[data-join], button[data-leave]");
  if (!button) return;
  button.disabled = true;
  const join = button.dataset.join;
  const id = join || button.dataset.leave;
  try {
    await api(`/api/v1/tables/${id}/${join ? "join" : "leave"}`, { method: "POST", body: {} });
    if (join) {
      window.location.assign(`/games/${id}`);
      return;
    }
    status.textContent = format(gettext("You left table %(id)s."), { id });
    await refresh();
  } catch (failure) {
    status.textContent = failure.message;
    button.disabled = false;
    refresh();
  }
});

function localToIso(value) {
  return value ? new Date(value).toISOString() : null; // datetime-local is the user's local time
}

const computer = document.getElementById("id_computer");
const players = document.getElementById("id_players");
const rated = document.getElementById("id_rated");
let ratedWanted = rated.checked; // what the player chose, given back when the computer leaves

/** The level selects of the places the computer takes: every place but the creator's. */
function botPlaces() {
  const count = Number(players.value) - 1;
  return [...createForm.querySelectorAll(".bot-place")]
    .filter((place) => Number(place.dataset.place) <= count)
    .map((place) => place.querySelector("select"));
}

/** One level select per computer place, shown while the computer plays; a game against the
 *  computer is never rated, so "Rated game" is unticked and disabled meanwhile. */
function syncOpponents() {
  const on = computer.checked;
  const count = Number(players.value) - 1;
  document.getElementById("bot-places").hidden = !on;
  for (const place of createForm.querySelectorAll(".bot-place")) {
    const used = on && Number(place.dataset.place) <= count;
    place.hidden = !used;
    place.querySelector("select").disabled = !used;
  }
  if (on && !rated.disabled) ratedWanted = rated.checked;
  rated.disabled = on;
  rated.checked = on ? false : ratedWanted;
}
/** The game chooser: the form shows the chosen game's own options only (its player range,
 *  its computer levels; Bahama Taxi's movement, shift change, pickup and deadlines only for
 *  it), and what is hidden is disabled, so it is not sent. */
function chosenGame() {
  return createForm.querySelector("input[name=game]:checked");
}

function syncGame() {
  const game = chosenGame();
  if (!game) return;
  for (const part of createForm.querySelectorAll("[data-game]")) {
    const ours = part.dataset.game === game.value;
    part.hidden = !ours;
    for (const input of part.querySelectorAll("input, select")) input.disabled = !ours;
  }
  const min = Number(game.dataset.minPlayers);
  const max = Number(game.dataset.maxPlayers);
  for (const option of players.options) {
    const fits = Number(option.value) >= min && Number(option.value) <= max;
    option.hidden = !fits;
    option.disabled = !fits;
  }
  if (players.selectedOptions[0]?.disabled) players.value = String(Math.max(min, Math.min(max, 2)));
  const levels = game.dataset.botLevels.split(" ");
  for (const select of createForm.querySelectorAll(".bot-place select")) {
    for (const option of select.options) {
      option.hidden = option.disabled = !levels.includes(option.value);
    }
    if (select.selectedOptions[0]?.disabled) select.value = levels[0];
  }
  syncOpponents();
}

for (const radio of createForm.querySelectorAll("input[name=game]")) radio.addEventListener("change", syncGame);
computer.addEventListener("change", syncOpponents);
players.addEventListener("change", syncOpponents);
rated.addEventListener("change", () => {
  ratedWanted = rated.checked;
});
syncOpponents();
syncGame();

createForm.addEventListener("submit", async (event) => {
  event.preventDefault();
  const form = new FormData(createForm);
  const button = document.getElementById("create-button");
  button.disabled = true;
  showErrors(createForm, null, "create-error");
  const game = chosenGame();
  const body = {
    ...(game ? { game: game.value } : {}),
    players: Number(form.get("players")),
    visibility: form.get("visibility"),
    clock: form.get("clock"),
    // "Play against the computer": a bot of its own chosen level in every other place, in the
    // order of the form ("Computer 1", "Computer 2", …: the names they get at the table)
    bots: form.get("computer") === "on" ? botPlaces().map((select) => select.value) : [],
    rated: form.get("rated") === "on",
  };
  // Bahama Taxi's own options, sent only for it (a disabled field is not in the form data)
  if (form.has("movement")) {
    Object.assign(body, {
      movement: form.get("movement"),
      shift_change: form.get("shift_change") === "on",
      pickup_before_movement: form.get("pickup_before_movement") === "on",
      deadline1_at: localToIso(form.get("deadline1_at")),
      deadline2_at: localToIso(form.get("deadline2_at")),
    });
  }
  try {
    const table = await api(createForm.dataset.api, { method: "POST", body });
    window.location.assign(`/games/${table.id}`);
  } catch (failure) {
    if (failure.code === "pickup_before_movement_required") {
      failure.errors = { pickup_before_movement: [failure.message] };
    } else if (failure.code === "invalid_players") {
      failure.errors = { players: [failure.message] };
    }
    showErrors(createForm, failure, "create-error");
    button.disabled = false;
  }
});

inviteForm.addEventListener("submit", async (event) => {
  event.preventDefault();
  const form = new FormData(inviteForm);
  const id = String(form.get("table") || "").trim();
  const error = document.getElementById("invite-error");
  if (!/^\d+$/.test(id)) {
    error.textContent = gettext("Enter the table's number.");
    return;
  }
  try {
    await api(`/api/v1/tables/${id}/join`, { method: "POST", body: { invite_code: String(form.get("invite_code") || "").trim() } });
    window.location.assign(`/games/${id}`);
  } catch (failure) {
    // A wrong code and a wrong number get one answer: which private tables exist is no one's
    // business (the server answers 403 invite_required or 404, depending on its version).
    const unknown = ["invite_required", "game_not_found", "not_found"].includes(failure.code);
    error.textContent = unknown ? gettext("No open table has this number and invite code.") : failure.message;
  }
});

// live lists: reconnect with backoff; any frame that changes the lobby refreshes the lists
let attempts = 0;
function follow() {
  const socket = new WebSocket(socketUrl(lists.dataset.socket));
  socket.addEventListener("message", (event) => {
    const frame = JSON.parse(event.data);
    if (frame.type === "hello") {
      if (attempts) refresh(); // we may have missed changes while away
      attempts = 0;
    } else if (frame.type === "table" || frame.type === "your_turn") {
      refresh();
    }
  });
  socket.addEventListener("close", (event) => {
    if (event.code === 4401 || event.code === 4403) return;
    attempts += 1;
    setTimeout(follow, Math.min(15000, 500 * 2 ** attempts));
  });
}
follow();
