// Checking a finished Digit Code game in the browser (docs/fairness.md, section 6): the revealed
// seed matches the commitment published at the start, and re-running the setup from it gives
// the same seat order and the same code. The same generator as the server's
// (games/engine/rng.py): SHA-256 in counter mode, 64-bit words, `below` without modulo bias.
import { NEIGHBOURS } from "./board.js";

const CODE_COUNT = 465120;
const WORD = 1n << 64n;

async function sha256(text) {
  return new Uint8Array(await crypto.subtle.digest("SHA-256", new TextEncoder().encode(text)));
}

const hex = (bytes) => Array.from(bytes, (b) => b.toString(16).padStart(2, "0")).join("");

/** hex(SHA-256("digit-code-seed:" + seed)), `seed` a decimal string. */
export async function commitmentOf(seed) {
  return hex(await sha256(`digit-code-seed:${seed}`));
}

class Generator {
  constructor(seed) {
    this.key = `digit-code/game/${seed}/`;
    this.counter = 0;
  }

  async word() {
    const digest = await sha256(this.key + String(this.counter));
    this.counter += 1;
    let value = 0n;
    for (const byte of digest.slice(0, 8)) value = (value << 8n) | BigInt(byte);
    return value;
  }

  async below(n) {
    const m = BigInt(n);
    const limit = WORD - (WORD % m);
    for (;;) {
      const word = await this.word();
      if (word < limit) return Number(word % m);
    }
  }
}

function valid(digits) {
  if (NEIGHBOURS.some(([a, b]) => digits[a - 1] === digits[b - 1])) return false;
  const counts = new Array(10).fill(0);
  for (const d of digits) counts[d] += 1;
  return counts.every((c) => c <= 2);
}

/** B6: the k-th valid code (0-based) in ascending order, the reference way: count them. */
export function kthCode(k) {
  let seen = 0;
  for (let number = 0; number < 1000000; number += 1) {
    const digits = [...String(number).padStart(6, "0")].map(Number);
    if (!valid(digits)) continue;
    if (seen === k) return digits;
    seen += 1;
  }
  throw new RangeError(`no code number ${k}`);
}

/** The setup of B6 from a seed: seat → join index, and the code. */
export async function setupOf(seed, players) {
  const generator = new Generator(seed);
  const seats = Array.from({ length: players }, (_, i) => i);
  for (let i = seats.length - 1; i > 0; i -= 1) {
    const j = await generator.below(i + 1);
    [seats[i], seats[j]] = [seats[j], seats[i]];
  }
  const k = await generator.below(CODE_COUNT);
  return { seats, code: kthCode(k) };
}

/** {commitment: bool, code: bool, seats: bool}: what the revealed seed proves about the game.
 *  `seatPlayers`: the join index of each seat's player (`view.seats[s].player`). */
export async function verifyGame({ seed, commitment, code, seatPlayers }) {
  const setup = await setupOf(seed, seatPlayers.length);
  return {
    commitment: (await commitmentOf(seed)) === commitment,
    code: setup.code.join("") === code.join(""),
    seats: setup.seats.join(",") === seatPlayers.join(","),
  };
}
