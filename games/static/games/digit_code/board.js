// Digit Code's board as the page needs it (RULES-digit-code.md B1–B5, Q1–Q5, G1), and what the
// public answers make certain about the LEDs. Pure: no DOM, no network, so a test can import it
// on any page and check it against the engine (tests/browser/test_digit_code_board.py).
//
// The page holds no rules of its own beyond these facts: what the player may ask is the view's
// `legal_actions` (the ask offer lists every question not yet asked); the client-side check of
// a guess only spares a refusal, the server decides.

export const POSITIONS = [1, 2, 3, 4, 5, 6];
export const SEGMENTS = ["a", "b", "c", "d", "e", "f", "g"];
/** B4: the LEDs each digit lights. */
export const LIT = ["abcdef", "bc", "abdeg", "abcdg", "bcfg", "acdfg", "acdefg", "abc", "abcdefg", "abcdfg"];
/** B2: neighbouring positions, horizontal then vertical. */
export const NEIGHBOURS = [[1, 2], [2, 3], [4, 5], [5, 6], [1, 4], [2, 5], [3, 6]];
/** Q3: the positions with a left neighbour. */
export const COMPARE_POSITIONS = [2, 3, 5, 6];
const MAX_REPEATS = 2; // B3

/** B5: LED rows 1–6 (three LEDs each) and columns 1–6 (four each), as [position, segment]. */
export const LED_ROWS = [1, 4].flatMap((first) =>
  ["a", "g", "d"].map((segment) => [0, 1, 2].map((offset) => [first + offset, segment])),
);
export const LED_COLUMNS = [1, 2, 3].flatMap((top) =>
  ["fe", "bc"].map((pair) => [top, top + 3].flatMap((position) => [...pair].map((segment) => [position, segment]))),
);

export function lineLeds(line, index) {
  return (line === "row" ? LED_ROWS : LED_COLUMNS)[index - 1];
}

/** The 64 questions (Q5) in C1's order, as the engine writes them (B7). */
export const QUESTIONS = [
  ...[1, 2, 3, 4, 5, 6].map((index) => ({ kind: "count", line: "row", index })),
  ...[1, 2, 3, 4, 5, 6].map((index) => ({ kind: "count", line: "column", index })),
  ...POSITIONS.map((position) => ({ kind: "parity", position })),
  ...COMPARE_POSITIONS.map((position) => ({ kind: "compare", position })),
  ...POSITIONS.flatMap((position) => SEGMENTS.map((segment) => ({ kind: "led", position, segment }))),
];

/** One string per question, the same for equal questions whatever the order of their fields. */
export function questionKey(question) {
  switch (question.kind) {
    case "count":
      return `count:${question.line}:${question.index}`;
    case "led":
      return `led:${question.position}:${question.segment}`;
    default:
      return `${question.kind}:${question.position}`;
  }
}

/** The LEDs a question is about (for highlighting them on the displays). */
export function questionLeds(question) {
  switch (question.kind) {
    case "count":
      return lineLeds(question.line, question.index);
    case "led":
      return [[question.position, question.segment]];
    default:
      return [];
  }
}

/** The positions a question is about. */
export function questionPositions(question) {
  if (question.kind === "compare") return [question.position - 1, question.position];
  if (question.kind === "count") return [...new Set(questionLeds(question).map(([p]) => p))];
  return [question.position];
}

/** What the player may ask now: the questions of the view's ask offer (none when it is not
 *  their turn or every question has been asked). */
export function questionsOffered(view) {
  const offer = (view?.legal_actions || []).find((action) => action.type === "ask");
  return offer ? offer.questions : [];
}

/** The answer a code gives to a question (Q1–Q4): what the engine answers, for tests and for
 *  checking a finished game's answers against its revealed code. */
export function answerOf(question, code) {
  switch (question.kind) {
    case "count":
      return lineLeds(question.line, question.index).filter(([p, s]) => LIT[code[p - 1]].includes(s)).length;
    case "parity":
      return code[question.position - 1] % 2 ? "odd" : "even";
    case "compare":
      return code[question.position - 1] > code[question.position - 2] ? "greater" : "less";
    default:
      return LIT[code[question.position - 1]].includes(question.segment) ? "lit" : "unlit";
  }
}

const ledKey = (position, segment) => `${position}${segment}`;

/**
 * The LEDs the public answers make certain: `Map("1a" → "lit" | "unlit")`; an LED not in the
 * map is unknown. An LED answer (Q4) fixes its LED; a count (Q1) fixes its line when every LED
 * of it not yet known must be lit (or unlit) to make the count, which is run again until
 * nothing changes, as one count's conclusion may settle another line. Nothing is guessed from
 * parity or comparisons: which digits fit is the players' deduction (their notes).
 */
export function knownLeds(questions) {
  const known = new Map();
  const counts = [];
  for (const { question, answer } of questions) {
    if (question.kind === "led") known.set(ledKey(question.position, question.segment), answer);
    if (question.kind === "count") counts.push([lineLeds(question.line, question.index), answer]);
  }
  let changed = true;
  while (changed) {
    changed = false;
    for (const [leds, count] of counts) {
      const keys = leds.map(([p, s]) => ledKey(p, s));
      const lit = keys.filter((k) => known.get(k) === "lit").length;
      const open = keys.filter((k) => !known.has(k));
      if (!open.length) continue;
      let fill = null;
      if (lit === count) fill = "unlit";
      else if (lit + open.length === count) fill = "lit";
      if (fill) {
        for (const k of open) known.set(k, fill);
        changed = true;
      }
    }
  }
  return known;
}

export function ledState(known, position, segment) {
  return known.get(ledKey(position, segment)) || "unknown";
}

/**
 * Why a code cannot be guessed, before it is sent (G1): `{code, positions}` with the server's
 * error code (`impossible_code` with clause B2 or B3, `guess_repeated`), or null when it may be.
 * `code`: six digits (numbers); `guesses`: the view's earlier guesses.
 */
export function guessProblem(code, guesses = []) {
  if (code.length !== 6 || code.some((d) => !Number.isInteger(d) || d < 0 || d > 9)) {
    return { code: "malformed_action", positions: POSITIONS.filter((p) => !Number.isInteger(code[p - 1])) };
  }
  for (const [left, right] of NEIGHBOURS) {
    if (code[left - 1] === code[right - 1]) return { code: "impossible_code", clause: "B2", positions: [left, right] };
  }
  for (let digit = 0; digit <= 9; digit += 1) {
    const at = POSITIONS.filter((p) => code[p - 1] === digit);
    if (at.length > MAX_REPEATS) return { code: "impossible_code", clause: "B3", positions: at, digit };
  }
  const text = code.join("");
  if (guesses.some((g) => g.code.join("") === text)) return { code: "guess_repeated", positions: [] };
  return null;
}

/** The digits whose LEDs agree with what is known at a position (the notes may show them). */
export function digitsFitting(known, position) {
  const digits = [];
  for (let digit = 0; digit <= 9; digit += 1) {
    if (SEGMENTS.every((s) => {
      const state = ledState(known, position, s);
      return state === "unknown" || (state === "lit") === LIT[digit].includes(s);
    })) digits.push(digit);
  }
  return digits;
}
