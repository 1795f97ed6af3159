// A client generated from the served schema (openapi-typescript + openapi-fetch) plays a whole
// game against a live server, knowing nothing but the schema: two players sign up, one opens a
// table with only the required field, the other joins, and each move is one of the legal
// actions of the player's typed view. Meanwhile it follows the game's NDJSON stream and, at the
// end, checks it got every entry once, in order. Type-checked strict (`tsc --noEmit`): a schema
// a generator cannot type fails the build. Usage: node build/src/play.js <base URL>

import createClient, { type Client } from "openapi-fetch";
import type { components, paths } from "../generated/schema.js";

type Schemas = components["schemas"];
type View = Schemas["GameView"];
type Offered = Schemas["PlayerAction"];
type Entry = Schemas["Entry"];
type StreamLine = Entry | { keepalive: string }; // the stream's x-ndjson-line
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

async function follow(api: Api, gameId: number): Promise<Entry[]> {
  const { data, error } = await api.GET("/api/v1/games/{game_id}/stream", {
    params: { path: { game_id: gameId } },
    parseAs: "stream",
  });
  if (!data) fail("stream", error);
  const entries: Entry[] = [];
  let buffered = "";
  const decoder = new TextDecoder();
  for await (const chunk of data as unknown as AsyncIterable<Uint8Array>) {
    buffered += decoder.decode(chunk, { stream: true });
    let newline = buffered.indexOf("\n");
    while (newline >= 0) {
      const line = JSON.parse(buffered.slice(0, newline)) as StreamLine;
      buffered = buffered.slice(newline + 1);
      if ("seq" in line) entries.push(line);
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

async function main(): Promise<void> {
  const tag = Math.random().toString(36).slice(2, 10);
  const players = [await signUp(`ts${tag}a`), await signUp(`ts${tag}b`)] as const;
  const board = await createClient<paths>({ baseUrl: base }).GET("/api/v1/board");
  if (!board.data) fail("board", board.error);
  const distance = distances(board.data.edges);

  const created = await players[0].POST("/api/v1/tables", {
    body: { players: 2, movement: "faster" }, // every other option has its default
  });
  if (!created.data) fail("tables_create", created.error);
  const gameId = created.data.id;
  const joined = await players[1].POST("/api/v1/tables/{game_id}/join", {
    params: { path: { game_id: gameId } },
    body: {},
  });
  if (!joined.data) fail("tables_join", joined.error);
  const streamed = follow(players[1], gameId);

  const bySeat = new Map<number, Api>();
  let view: View | null = null;
  let version = 0;
  let etag = "";
  for (const api of players) {
    const detail = await api.GET("/api/v1/games/{game_id}", {
      params: { path: { game_id: gameId } },
    });
    if (!detail.data?.view || detail.data.your_seat == null) fail("games_retrieve", detail.error);
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
      if (!mine.data?.view) fail("games_retrieve", mine.error);
      view = mine.data.view;
      version = mine.data.version;
      continue;
    }
    const action = choose(view, distance);
    const answer = await mover.POST("/api/v1/games/{game_id}/actions", {
      params: { path: { game_id: gameId } },
      body: { action: request(action), version, idempotency_key: `${tag}-${requests}` },
    });
    if (!answer.data) fail(`move ${JSON.stringify(action)}`, answer.error);
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

  const games: number[] = [];
  for (let cursor: string | null = ""; cursor !== null; ) {
    const page = await myGames(players[0], cursor);
    games.push(...page.results.map((game) => game.id));
    cursor = page.next === null ? null : new URL(page.next).searchParams.get("cursor");
  }
  if (games.join() !== String(gameId)) throw new Error(`my games: ${games.join()}`);

  console.log(JSON.stringify({ game: gameId, version, requests, moves: Object.fromEntries(moves) }));
}

main().catch((error: unknown) => {
  console.error(error);
  process.exit(1);
});
