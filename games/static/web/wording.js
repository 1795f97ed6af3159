// Notifications in words: the mirror of games/wording.py, sentence for sentence, so the web
// client's log reads exactly as the moderators' replay viewer (tests/browser/test_web_client.py
// compares the page's log with `describe` line by line). The msgids are Python's, looked up
// through Django's JavaScript catalogue (/jsi18n.js, domain "django"), so one translation
// serves both; without the catalogue the English text is used as it is.

const SUIT_SYMBOLS = { S: "♠", H: "♥", C: "♣", D: "♦" };

export function gettext(text) {
  return typeof globalThis.gettext === "function" ? globalThis.gettext(text) : text;
}

export function ngettext(singular, plural, count) {
  if (typeof globalThis.ngettext === "function") return globalThis.ngettext(singular, plural, count);
  return count === 1 ? singular : plural;
}

/** Python's `"%(name)s" % values`. */
export function format(text, values) {
  return text.replace(/%\((\w+)\)s/g, (whole, name) =>
    Object.prototype.hasOwnProperty.call(values, name) ? String(values[name]) : whole,
  );
}

export function areaLabel(areaId) {
  const text = String(areaId);
  const symbol = SUIT_SYMBOLS[text.slice(-1)];
  return symbol && text.length > 1 ? text.slice(0, -1) + symbol : text;
}

export function seatLabel(seat) {
  const number = Number.isInteger(seat) ? seat + 1 : seat;
  return format(gettext("Seat %(number)s"), { number });
}

function required(n, ...names) {
  for (const name of names) {
    if (n[name] === undefined) throw new TypeError(`missing ${name}`);
  }
}

/** (rank, seats) per group of tied seats, as in sport: 1, 2, 2, 2, 5 (games/wording.py). */
export function competitionRanks(ranking) {
  let before = 0;
  return ranking.map((group) => {
    const rank = before + 1;
    before += group.length;
    return [rank, group];
  });
}

/** A seat as its player's name when `names` (a Map or an object, seat → name) knows it. */
export function playerNamer(names) {
  return (seat) => {
    const name = names instanceof Map ? names.get(seat) : names ? names[seat] : undefined;
    return name ? String(name) : seatLabel(seat);
  };
}

const seats = (list, who) => list.map(who).join(", ");
const cards = (list) => list.map(areaLabel).join(", ");
const len = (value) => (Array.isArray(value) ? value.length : 0);

const SENTENCES = {
  game_started(n, who) {
    const pile = n.pile ?? 0;
    return format(
      ngettext(
        "The game started: %(taxis)s taxis, %(waiting)s citizens waiting, %(pile)s card in the pile.",
        "The game started: %(taxis)s taxis, %(waiting)s citizens waiting, %(pile)s cards in the pile.",
        pile,
      ),
      { taxis: len(n.seats), waiting: len(n.waiting), pile },
    );
  },
  turn_started(n, who) {
    required(n, "seat");
    const allowance = n.allowance ?? 0;
    return format(
      ngettext(
        "%(seat)s's turn begins: up to %(allowance)s step.",
        "%(seat)s's turn begins: up to %(allowance)s steps.",
        allowance,
      ),
      { seat: who(n.seat), allowance },
    );
  },
  taxi_moved(n, who) {
    required(n, "seat", "from", "to");
    return format(gettext("%(seat)s moved from %(from)s to %(to)s."), {
      seat: who(n.seat),
      from: areaLabel(n.from),
      to: areaLabel(n.to),
    });
  },
  move_undone(n, who) {
    required(n, "seat", "from", "to");
    return format(gettext("%(seat)s took back the step to %(from)s and is back on %(to)s."), {
      seat: who(n.seat),
      from: areaLabel(n.from),
      to: areaLabel(n.to),
    });
  },
  passenger_dropped_off(n, who) {
    required(n, "seat", "origin", "fare");
    return format(
      gettext("%(seat)s dropped off a passenger from %(origin)s at %(area)s, fare %(fare)s."),
      {
        seat: who(n.seat),
        origin: areaLabel(n.origin),
        area: areaLabel(n.area ?? n.destination),
        fare: n.fare,
      },
    );
  },
  citizen_picked_up(n, who) {
    required(n, "seat", "destination");
    return format(gettext("%(seat)s picked up a citizen at %(area)s going to %(destination)s."), {
      seat: who(n.seat),
      area: areaLabel(n.area ?? n.origin),
      destination: areaLabel(n.destination),
    });
  },
  citizen_added(n, who) {
    required(n, "origin", "destination");
    const pile = n.pile ?? 0;
    return format(
      ngettext(
        "A new citizen waits at %(origin)s to go to %(destination)s (%(pile)s card left).",
        "A new citizen waits at %(origin)s to go to %(destination)s (%(pile)s cards left).",
        pile,
      ),
      { origin: areaLabel(n.origin), destination: areaLabel(n.destination), pile },
    );
  },
  deadline_reached(n, who) {
    required(n, "number");
    const causes = {
      pile: gettext("the draw pile is exhausted"),
      waiting: gettext("at most 4 citizens are waiting"),
      clock: gettext("the table's time for it has passed"),
    };
    const cause = Object.prototype.hasOwnProperty.call(causes, n.cause) ? causes[n.cause] : null;
    if (cause === null) return format(gettext("Deadline %(number)s reached."), { number: n.number });
    return format(gettext("Deadline %(number)s reached: %(cause)s."), { number: n.number, cause });
  },
  turn_passed(n, who) {
    required(n, "seat");
    return format(gettext("%(seat)s is blocked and passes."), { seat: who(n.seat) });
  },
  turn_ended(n, who) {
    required(n, "seat");
    return format(gettext("%(seat)s's turn ended."), { seat: who(n.seat) });
  },
  cards_discarded(n, who) {
    const values = { cards: cards(n.cards ?? []), pile: n.pile ?? 0 };
    let text;
    if (n.reason === "three_players") {
      text = ngettext(
        "With three players, %(cards)s was discarded from the pile (%(pile)s card left).",
        "With three players, %(cards)s was discarded from the pile (%(pile)s cards left).",
        values.pile,
      );
    } else if (n.reason === "identical_pair") {
      text = ngettext(
        "An identical pair (%(cards)s) was discarded (%(pile)s card left).",
        "An identical pair (%(cards)s) was discarded (%(pile)s cards left).",
        values.pile,
      );
    } else {
      text = ngettext(
        "Discarded: %(cards)s (%(pile)s card left).",
        "Discarded: %(cards)s (%(pile)s cards left).",
        values.pile,
      );
    }
    return format(text, values);
  },
  game_ended(n, who) {
    const incomes = n.incomes ?? [];
    const places = competitionRanks(n.ranking ?? []).map(([rank, group]) => {
      const income = group.length && group[0] < incomes.length ? incomes[group[0]] : "?";
      return format(gettext("%(rank)s. %(seats)s (%(income)s)"), {
        rank,
        seats: seats(group, who),
        income,
      });
    });
    return format(gettext("The game ended. Ranking: %(ranking)s."), { ranking: places.join("; ") });
  },
  turn_timed_out(n, who) {
    required(n, "seat");
    return format(
      gettext("%(seat)s ran out of time (%(count)s in a row); the autopilot plays the turn."),
      { seat: who(n.seat), count: n.count ?? 1 },
    );
  },
  seat_zombified(n, who) {
    required(n, "seat");
    const seat = { seat: who(n.seat) };
    if (n.reason === "timeouts") {
      return format(gettext("%(seat)s timed out 3 times in a row; the autopilot plays it from now on."), seat);
    }
    if (n.reason === "moderator") return format(gettext("A moderator handed %(seat)s to the autopilot."), seat);
    if (n.reason === "resigned") {
      return format(gettext("%(seat)s resigned; the autopilot plays it from now on."), seat);
    }
    return format(gettext("The autopilot plays %(seat)s from now on."), seat);
  },
  seat_restored(n, who) {
    required(n, "seat");
    return format(gettext("%(seat)s is played by its player again."), { seat: who(n.seat) });
  },
  game_aborted(n, who) {
    const reason = String(n.reason ?? "").trim().replace(/\.+$/, "");
    if (!reason) return gettext("The game was aborted.");
    return format(gettext("The game was aborted: %(reason)s."), { reason });
  },
};

/** JSON as Python's json.dumps(sort_keys=True, ensure_ascii=False) writes it. */
function pythonJson(value) {
  if (Array.isArray(value)) return `[${value.map(pythonJson).join(", ")}]`;
  if (value && typeof value === "object") {
    const keys = Object.keys(value).sort();
    return `{${keys.map((k) => `${JSON.stringify(k)}: ${pythonJson(value[k])}`).join(", ")}}`;
  }
  return value === undefined ? "null" : JSON.stringify(value);
}

/** One sentence for a notification, naming players by `names` where given; an unknown one
 *  shows as its JSON, never throws. */
export function describe(notification, names = null) {
  const sentence =
    notification && typeof notification === "object" && Object.prototype.hasOwnProperty.call(SENTENCES, notification.type)
      ? SENTENCES[notification.type]
      : null;
  if (sentence !== null) {
    try {
      return sentence(notification, playerNamer(names));
    } catch {
      // fall through: shown as JSON, as the Python side does
    }
  }
  return format(gettext("Unrecognised notification: %(json)s"), { json: pythonJson(notification) });
}
