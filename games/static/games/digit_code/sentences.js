// Digit Code in words, in the page's language: questions, answers and the log's notifications
// (RULES-digit-code.md, "Notifications"). Every msgid is a literal here, so `makemessages -d
// djangojs` finds it, and /jsi18n.js serves its translation.
import { format, gettext, ngettext, playerNamer } from "../../web/wording.js";

export { format, gettext, ngettext, playerNamer };

/** B4's LED names, as the rules page tells them. */
export function segmentName(segment) {
  switch (segment) {
    case "a":
      return gettext("top");
    case "b":
      return gettext("upper right");
    case "c":
      return gettext("lower right");
    case "d":
      return gettext("bottom");
    case "e":
      return gettext("lower left");
    case "f":
      return gettext("upper left");
    case "g":
      return gettext("middle");
    default:
      return String(segment);
  }
}

/** "LED a (top)". */
export function ledName(segment) {
  return format(gettext("LED %(segment)s (%(name)s)"), { segment, name: segmentName(segment) });
}

export function positionName(position) {
  return format(gettext("Position %(position)s"), { position });
}

/** A LED line of B5 and what it holds, e.g. "LED row 2 (middle LEDs of positions 1–3)". */
export function lineName(line, index) {
  if (line === "row") {
    const first = index <= 3 ? 1 : 4;
    const values = { index, first, last: first + 2 };
    switch ((index - 1) % 3) {
      case 0:
        return format(gettext("LED row %(index)s (top LEDs of positions %(first)s–%(last)s)"), values);
      case 1:
        return format(gettext("LED row %(index)s (middle LEDs of positions %(first)s–%(last)s)"), values);
      default:
        return format(gettext("LED row %(index)s (bottom LEDs of positions %(first)s–%(last)s)"), values);
    }
  }
  const top = Math.ceil(index / 2);
  const values = { index, top, bottom: top + 3 };
  return index % 2
    ? format(gettext("LED column %(index)s (left LEDs of positions %(top)s and %(bottom)s)"), values)
    : format(gettext("LED column %(index)s (right LEDs of positions %(top)s and %(bottom)s)"), values);
}

/** A question as the player reads it (Q1–Q4). */
export function questionText(question) {
  switch (question.kind) {
    case "count":
      return format(gettext("How many LEDs are lit in %(line)s?"), { line: lineName(question.line, question.index) });
    case "parity":
      return format(gettext("Is the digit at position %(position)s odd or even?"), { position: question.position });
    case "compare":
      return format(gettext("Is the digit at position %(position)s greater or less than the digit at position %(left)s?"), {
        position: question.position,
        left: question.position - 1,
      });
    case "led":
      return format(gettext("Is %(led)s at position %(position)s lit?"), { led: ledName(question.segment), position: question.position });
    default:
      return String(question.kind);
  }
}

/** A question in a few words, for the picker's choices and the log. */
export function questionShort(question) {
  switch (question.kind) {
    case "count":
      return question.line === "row"
        ? format(gettext("LEDs lit in LED row %(index)s"), { index: question.index })
        : format(gettext("LEDs lit in LED column %(index)s"), { index: question.index });
    case "parity":
      return format(gettext("parity of position %(position)s"), { position: question.position });
    case "compare":
      return format(gettext("position %(position)s against position %(left)s"), { position: question.position, left: question.position - 1 });
    case "led":
      return format(gettext("%(led)s at position %(position)s"), { led: ledName(question.segment), position: question.position });
    default:
      return String(question.kind);
  }
}

/** An answer in words (B7). */
export function answerText(question, answer) {
  if (question.kind === "count") return format(ngettext("%(count)s LED lit", "%(count)s LEDs lit", answer), { count: answer });
  if (question.kind === "compare") {
    const values = { position: question.position, left: question.position - 1 };
    return answer === "greater"
      ? format(gettext("greater: position %(position)s holds more than position %(left)s"), values)
      : format(gettext("less: position %(position)s holds less than position %(left)s"), values);
  }
  switch (answer) {
    case "odd":
      return gettext("odd");
    case "even":
      return gettext("even");
    case "lit":
      return gettext("lit");
    case "unlit":
      return gettext("unlit");
    default:
      return String(answer);
  }
}

export function kindName(kind) {
  switch (kind) {
    case "count":
      return gettext("Count the lit LEDs of a LED row or column");
    case "parity":
      return gettext("Odd or even: one position");
    case "compare":
      return gettext("Greater or less than its left neighbour");
    case "led":
      return gettext("Is one LED lit?");
    default:
      return String(kind);
  }
}

const code = (digits) => (Array.isArray(digits) ? digits.join("") : "");

function reasonText(reason) {
  switch (reason) {
    case "timeouts":
      return gettext("absent: three timed-out turns in a row");
    case "moderator":
      return gettext("made absent by a moderator");
    case "resigned":
      return gettext("resigned");
    default:
      return String(reason);
  }
}

/** One log notification in words; `names`: seat → the player's name. */
export function describe(n, names) {
  const who = playerNamer(names);
  switch (n.type) {
    case "game_started":
      return format(ngettext("The game started with %(count)s player. The code is hidden.", "The game started with %(count)s players. The code is hidden.", (n.seats || []).length), {
        count: (n.seats || []).length,
      });
    case "turn_started":
      return format(gettext("%(player)s: turn."), { player: who(n.seat) });
    case "turn_timed_out":
      return format(gettext("%(player)s ran out of time; the autopilot plays."), { player: who(n.seat) });
    case "question_asked":
      return format(gettext("%(player)s asked: %(question)s Answer: %(answer)s."), {
        player: who(n.seat),
        question: questionText(n.question),
        answer: answerText(n.question, n.answer),
      });
    case "guess_made":
      return n.correct
        ? format(gettext("%(player)s guessed %(code)s: right!"), { player: who(n.seat), code: code(n.code) })
        : format(ngettext("%(player)s guessed %(code)s: wrong (%(count)s wrong guess).", "%(player)s guessed %(code)s: wrong (%(count)s wrong guesses).", n.wrong_guesses), {
          player: who(n.seat),
          code: code(n.code),
          count: n.wrong_guesses,
        });
    case "player_eliminated":
      return format(gettext("%(player)s is eliminated."), { player: who(n.seat) });
    case "turn_ended":
      return format(gettext("%(player)s: end of turn."), { player: who(n.seat) });
    case "seat_zombified":
      return format(gettext("%(player)s left the game (%(reason)s)."), { player: who(n.seat), reason: reasonText(n.reason) });
    case "game_ended":
      return n.winner === null || n.winner === undefined
        ? format(gettext("The game is over with no winner. The code was %(code)s."), { code: code(n.code) })
        : format(gettext("The game is over: %(player)s wins. The code was %(code)s."), { player: who(n.winner), code: code(n.code) });
    case "game_aborted":
      return format(gettext("The game was stopped by a moderator. The code was %(code)s."), { code: code(n.code) });
    default:
      return String(n.type);
  }
}
