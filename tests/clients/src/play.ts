// A client generated from the served schema (openapi-typescript + openapi-fetch) plays a whole
// game of each game the server hosts against a live server, knowing nothing but the schema.
// Bahama Taxi: two players sign up, one opens a table with only the required field (no `game`:
// the default game), the other joins, and each move is one of the legal actions of the
// player's typed view. Digit Code: they open a table naming `game`, ask questions from the
// typed offers and narrow the codes from the public answers (RULES-digit-code.md B4, B5) until
// one is left, then guess it. Meanwhile each game's NDJSON stream is followed and, at the end,
// checked to hold every entry once, in order. Every answer is narrowed by the schema's own
// tags (`game`, `type`, `kind`). Type-checked strict (`tsc --noEmit`): a schema a generator
// cannot type fails the build. Usage: node build/src/play.js <base URL>

import createClient, { type Client } from "openapi-fetch";
import type { components, paths } from "../generated/schema.js";

type Schemas = components["schemas"];
type View = Schemas["GameView"];
type Offered = Schemas["PlayerAction"];
type Entry = Schemas["Entry"];
type CodeView = Schemas["DigitCodeView"];
type CodeEntry = Schemas["DigitCodeEntry"];
type Question = Schemas["DigitCodeQuestion"];
type AnyEntry = Entry | CodeEntry;
type StreamLine = AnyEntry | { keepalive: string }; // the stream's x-ndjson-line
type Api = Client<paths>;

const base: string = process.argv[2] ?? "";
if (!base) throw new Error("usage: play.js <base URL>");
const MAX_REQUESTS = 6000;

function fail(what: string, error: unknown): never {
  throw new Error(`${what}: ${JSON.stringify(error)}`);
}

async function signUp(name: string): Promise<Api> {
  const anonymous = createClient<paths>({ baseUrl: base });
  const { data, error } = await anonymous.POST("/api/v1/auth/signup", {
    body: { username: name, password: `pw-${name}-long-enough`, device: "TypeScript" },
  });
  if (!data) fail("signup", error);
  return createClient<paths>({ baseUrl: base, headers: { Authorization: `Token ${data.token}` } });
}

function distances(edges: Schemas["Area"][][]): Map<string, Map<string, number>> {
  const next = new Map<string, string[]>();
  for (const [a, b] of edges) {
    if (!a || !b) continue;
    next.set(a, [...(next.get(a) ?? []), b]);
    next.set(b, [...(next.get(b) ?? []), a]);
  }
  const all = new Map<string, Map<string, number>>();
  for (const start of next.keys()) {
    const seen = new Map([[start, 0]]);
    const queue = [start];
    for (let here = queue.shift(); here !== undefined; here = queue.shift()) {
      for (const there of next.get(here) ?? []) {
        if (!seen.has(there)) {
          seen.set(there, (seen.get(here) ?? 0) + 1);
          queue.push(there);
        }
      }
    }
    all.set(start, seen);
  }
  return all;
}

// A sensible action among those offered: pick up, pass, drive towards the nearest target.
function choose(view: View, distance: Map<string, Map<string, number>>): Offered {
  const offered = view.legal_actions;
  const first = (type: Offered["type"]) => offered.find((action) => action.type === type);
  const forced = first("pickup") ?? first("pass") ?? first("decline");
  if (forced) return forced;
  const me = view.you === null ? undefined : view.seats[view.you];
  if (!me) throw new Error("no seat of mine in my view");
  const targets = new Set<string>(me.passengers.map((p) => p.destination));
  const room = me.passengers.length < (view.pile_exhausted ? 2 : 3);
  if (room && (view.waiting.length > 4 || me.passengers.length === 0)) {
    for (const citizen of view.waiting) targets.add(citizen.origin);
  }
  const steps = offered.filter((a): a is Schemas["StepAction"] => a.type === "step");
  const stop = first("stop");
  if (stop && (targets.has(me.area) || steps.length === 0)) return stop;
  const nearness = (to: string) =>
    Math.min(...[...targets].map((t) => distance.get(to)?.get(t) ?? 99), 99);
  const best = steps.sort((a, b) => nearness(a.to) - nearness(b.to))[0];
  if (best) return best;
  if (stop) return stop;
  const any = offered.find((action) => action.type !== "resign");
  if (!any) throw new Error(`nothing to do: ${JSON.stringify(offered)}`);
  return any;
}

// The request's action: what was offered, without the seat (the server fills in the caller's).
function request(action: Offered): Schemas["PlayerActionRequest"] {
  const { seat: _seat, ...rest } = action;
  return rest;
}

// A move's answer or a seat's view is its game's own (AnyMoveResponse, AnyGameDetail): told
// apart by what only Bahama Taxi's view holds.
function taxiView(view: View | CodeView): view is View {
  return "phase" in view;
}

async function follow<E extends AnyEntry>(api: Api, gameId: number): Promise<E[]> {
  const { data, error } = await api.GET("/api/v1/games/{game_id}/stream", {
    params: { path: { game_id: gameId } },
    parseAs: "stream",
  });
  if (!data) fail("stream", error);
  const entries: E[] = [];
  let buffered = "";
  const decoder = new TextDecoder();
  for await (const chunk of data as unknown as AsyncIterable<Uint8Array>) {
    buffered += decoder.decode(chunk, { stream: true });
    let newline = buffered.indexOf("\n");
    while (newline >= 0) {
      const line = JSON.parse(buffered.slice(0, newline)) as StreamLine;
      buffered = buffered.slice(newline + 1);
      if ("seq" in line) entries.push(line as E); // the game's own (x-ndjson-line-by-game)
      newline = buffered.indexOf("\n");
    }
  }
  return entries;
}

// A page of my games, one a page, by cursor ("": the first page).
async function myGames(api: Api, cursor: string): Promise<Schemas["GameSummaryPage"]> {
  const query = cursor === "" ? { limit: 1 } : { limit: 1, cursor };
  const { data, error } = await api.GET("/api/v1/me/games", { params: { query } });
  if (!data) fail("me_games", error);
  return data;
}

async function playBahamaTaxi(players: readonly [Api, Api], tag: string) {
  const board = await createClient<paths>({ baseUrl: base }).GET("/api/v1/board");
  if (!board.data) fail("board", board.error);
  const distance = distances(board.data.edges);

  const created = await players[0].POST("/api/v1/tables", {
    body: { players: 2, movement: "faster" }, // every other option has its default
  });
  if (created.data?.game !== "bahama-taxi") fail("tables_create", created.error);
  const gameId = created.data.id;
  const joined = await players[1].POST("/api/v1/tables/{game_id}/join", {
    params: { path: { game_id: gameId } },
    body: {},
  });
  if (!joined.data) fail("tables_join", joined.error);
  const streamed = follow<Entry>(players[1], gameId);

  const bySeat = new Map<number, Api>();
  let view: View | null = null;
  let version = 0;
  let etag = "";
  for (const api of players) {
    const detail = await api.GET("/api/v1/games/{game_id}", {
      params: { path: { game_id: gameId } },
    });
    if (detail.data?.game !== "bahama-taxi" || !detail.data.view || detail.data.your_seat == null) {
      fail("games_retrieve", detail.error);
    }
    bySeat.set(detail.data.your_seat, api);
    view = detail.data.view;
    version = detail.data.version;
    etag = detail.response.headers.get("ETag") ?? "";
  }
  const unchanged = await players[1].GET("/api/v1/games/{game_id}", {
    params: { path: { game_id: gameId }, header: { "If-None-Match": etag } },
  });
  if (unchanged.response.status !== 304) fail("If-None-Match", unchanged.response.status);

  const moves = new Map<string, number>();
  let requests = 0;
  while (view && view.status === "playing") {
    if (++requests > MAX_REQUESTS) throw new Error("the game did not end");
    const seat = view.active_seat;
    const mover = seat === null ? undefined : bySeat.get(seat);
    if (!mover) throw new Error(`no player at seat ${seat}`);
    if (view.you !== seat) {
      const mine = await mover.GET("/api/v1/games/{game_id}", {
        params: { path: { game_id: gameId } },
      });
      if (mine.data?.game !== "bahama-taxi" || !mine.data.view) fail("games_retrieve", mine.error);
      view = mine.data.view;
      version = mine.data.version;
      continue;
    }
    const action = choose(view, distance);
    const answer = await mover.POST("/api/v1/games/{game_id}/actions", {
      params: { path: { game_id: gameId } },
      body: { action: request(action), version, idempotency_key: `${tag}-${requests}` },
    });
    if (!answer.data || !taxiView(answer.data.view)) fail(`move ${JSON.stringify(action)}`, answer.error);
    moves.set(action.type, (moves.get(action.type) ?? 0) + 1);
    view = answer.data.view;
    version = answer.data.version;
  }

  const entries = await streamed;
  const seqs = entries.map((entry) => entry.seq);
  if (seqs.join() !== [...Array(version + 1).keys()].join()) {
    throw new Error(`the stream's seqs ${seqs.join()} are not 0..${version}`);
  }
  const last = entries.at(-1)?.notifications.map((note) => note.type) ?? [];
  if (!last.includes("game_ended")) throw new Error(`the stream ended on ${last.join()}`);

  return { game: gameId, version, requests, moves: Object.fromEntries(moves) };
}

// ------------------------------------------------------------------------------ Digit Code

// B4: the LEDs each digit lights; B5: the LEDs of each LED row and column, as (position, LED).
const LIT = ["abcdef", "bc", "abdeg", "abcdg", "bcfg", "acdfg", "acdefg", "abc", "abcdefg", "abcdfg"];
const ROWS: [number, string][][] = [1, 4].flatMap((first) =>
  ["a", "g", "d"].map((led) => [0, 1, 2].map((i): [number, string] => [first + i, led])),
);
const COLUMNS: [number, string][][] = [1, 2, 3].flatMap((top) =>
  [["f", "e"], ["b", "c"]].map((leds) => [top, top + 3].flatMap((p) => leds.map((led): [number, string] => [p, led]))),
);

function digitAt(code: number[], position: number): number {
  return code[position - 1] ?? -1;
}

function lit(code: number[], position: number, led: string): boolean {
  return (LIT[digitAt(code, position)] ?? "").includes(led);
}

// What the code answers to a question (RULES-digit-code.md Q1–Q4, B7).
function answerOf(question: Question, code: number[]): number | string {
  switch (question.kind) {
    case "count": {
      const leds = (question.line === "row" ? ROWS : COLUMNS)[question.index - 1] ?? [];
      return leds.filter(([position, led]) => lit(code, position, led)).length;
    }
    case "parity":
      return digitAt(code, question.position) % 2 ? "odd" : "even";
    case "compare":
      return digitAt(code, question.position) > digitAt(code, question.position - 1) ? "greater" : "less";
    case "led":
      return lit(code, question.position, question.segment) ? "lit" : "unlit";
  }
}

// B2, B3: every code: neighbours differ, no digit more than twice.
function everyCode(): number[][] {
  const neighbours = [[1, 2], [2, 3], [4, 5], [5, 6], [1, 4], [2, 5], [3, 6]];
  const codes: number[][] = [];
  for (let n = 0; n < 1_000_000; n++) {
    const code = String(n).padStart(6, "0").split("").map(Number);
    if (neighbours.some(([a, b]) => digitAt(code, a ?? 0) === digitAt(code, b ?? 0))) continue;
    if (code.some((digit) => code.filter((other) => other === digit).length > 2)) continue;
    codes.push(code);
  }
  return codes;
}

// The codes that agree with every public answer and wrong guess of the view.
function consistent(codes: number[][], view: CodeView): number[][] {
  const wrong = new Set(view.guesses.filter((g) => !g.correct).map((g) => g.code.join("")));
  return codes.filter(
    (code) =>
      !wrong.has(code.join("")) && view.questions.every((q) => answerOf(q.question, code) === q.answer),
  );
}

// The offered question that splits the codes left most evenly (its largest answer group smallest).
function bestQuestion(questions: Question[], codes: number[][]): Question | undefined {
  const sample = codes.filter((_, i) => i % Math.ceil(codes.length / 4000) === 0);
  let best: Question | undefined;
  let bestLargest = Infinity;
  for (const question of questions) {
    const groups = new Map<number | string, number>();
    for (const code of sample) {
      const answer = answerOf(question, code);
      groups.set(answer, (groups.get(answer) ?? 0) + 1);
    }
    const largest = Math.max(...groups.values());
    if (largest < bestLargest) [best, bestLargest] = [question, largest];
  }
  return best;
}

async function codeView(api: Api, gameId: number): Promise<{ view: CodeView; version: number; seat: number | null }> {
  const detail = await api.GET("/api/v1/games/{game_id}", { params: { path: { game_id: gameId } } });
  if (detail.data?.game !== "digit-code" || !detail.data.view) fail("games_retrieve", detail.error);
  return { view: detail.data.view, version: detail.data.version, seat: detail.data.your_seat ?? null };
}

async function playDigitCode(players: readonly [Api, Api], tag: string) {
  const created = await players[0].POST("/api/v1/tables", {
    body: { game: "digit-code", players: 2, clock: "24h" },
  });
  if (created.data?.game !== "digit-code" || JSON.stringify(created.data.options) !== "{}") {
    fail("tables_create digit-code", created.error ?? created.data);
  }
  const gameId = created.data.id;
  const joined = await players[1].POST("/api/v1/tables/{game_id}/join", {
    params: { path: { game_id: gameId } },
    body: {},
  });
  if (joined.data?.game !== "digit-code" || joined.data.status !== "playing") fail("tables_join", joined.error);
  const streamed = follow<CodeEntry>(players[1], gameId);

  const bySeat = new Map<number, Api>();
  let { view, version } = await codeView(players[0], gameId);
  for (const api of players) {
    const mine = await codeView(api, gameId);
    if (mine.seat === null) throw new Error("no seat of mine");
    bySeat.set(mine.seat, api);
  }
  let codes = everyCode();
  let [asked, guessed, requests] = [0, 0, 0];
  while (view.status === "playing") {
    if (++requests > 500) throw new Error("the Digit Code game did not end");
    const mover = view.active_seat === null ? undefined : bySeat.get(view.active_seat);
    if (!mover) throw new Error(`no player at seat ${view.active_seat}`);
    if (view.you !== view.active_seat) {
      ({ view, version } = await codeView(mover, gameId));
      continue;
    }
    codes = consistent(codes, view);
    const offers = view.legal_actions;
    const ask = offers.find((offer): offer is Schemas["DigitCodeAskOffer"] => offer.type === "ask");
    const question = codes.length > 1 && ask ? bestQuestion(ask.questions, codes) : undefined;
    const [first] = codes;
    let action: Schemas["AnyPlayerActionRequest"];
    if (question) {
      action = { type: "ask", question };
      asked++;
    } else if (first && offers.some((offer) => offer.type === "guess")) {
      action = { type: "guess", code: first };
      guessed++;
    } else {
      throw new Error(`nothing to do: ${JSON.stringify(offers)}, ${codes.length} codes left`);
    }
    const answer = await mover.POST("/api/v1/games/{game_id}/actions", {
      params: { path: { game_id: gameId } },
      body: { action, version, idempotency_key: `${tag}-dc-${requests}` },
    });
    if (!answer.data || taxiView(answer.data.view)) fail(`move ${JSON.stringify(action)}`, answer.error);
    view = answer.data.view;
    version = answer.data.version;
  }

  const entries = await streamed;
  const seqs = entries.map((entry) => entry.seq);
  if (seqs.join() !== [...Array(version + 1).keys()].join()) {
    throw new Error(`the stream's seqs ${seqs.join()} are not 0..${version}`);
  }
  const ended = entries.at(-1)?.notifications.find((note) => note.type === "game_ended");
  if (ended?.type !== "game_ended") throw new Error("the stream did not end with game_ended");
  const revealed = view.code;
  if (!revealed || ended.code.join() !== revealed.join()) {
    throw new Error(`the code: ${JSON.stringify(ended)} against the view's ${JSON.stringify(revealed)}`);
  }
  const before = entries.slice(0, -1).flatMap((entry) => entry.notifications);
  if (before.some((note) => note.type === "game_ended")) throw new Error("game_ended before the end");
  return { game: gameId, version, asked, guessed, winner: ended.winner, status: view.status };
}

async function main(): Promise<void> {
  const tag = Math.random().toString(36).slice(2, 10);
  const players = [await signUp(`ts${tag}a`), await signUp(`ts${tag}b`)] as const;
  const taxi = await playBahamaTaxi(players, tag);
  const digitCode = await playDigitCode(players, tag);

  const games: number[] = [];
  const kinds = new Set<string>();
  for (let cursor: string | null = ""; cursor !== null; ) {
    const page = await myGames(players[0], cursor);
    games.push(...page.results.map((game) => game.id));
    for (const game of page.results) kinds.add(game.game);
    cursor = page.next === null ? null : new URL(page.next).searchParams.get("cursor");
  }
  if (games.join() !== [digitCode.game, taxi.game].join()) throw new Error(`my games: ${games.join()}`);
  if (kinds.size !== 2) throw new Error(`my games' games: ${[...kinds].join()}`);

  console.log(JSON.stringify({ ...taxi, digit_code: digitCode }));
}

main().catch((error: unknown) => {
  console.error(error);
  process.exit(1);
});
