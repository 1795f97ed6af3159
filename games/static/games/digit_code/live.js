// Following a game over its WebSocket and moving through it (docs/websocket.md), as the Bahama
// Taxi page does (games/static/web/game.js), for a page that only needs the log and its view.
//
// hello → {"type": "sync", "after": <last seq held>} → `entry` frames in seq order (the last of
// a sync and every live one carry our player `view`) → `synced`. A move goes over the socket
// with the version we saw and a fresh idempotency key, and over HTTP with the same key when
// the socket is closed or its answer is late; `stale_version` makes us sync again. A lost
// connection retries with exponential backoff and resyncs from the last seq held, so the log
// never skips or repeats an entry.
import { api, newKey } from "../../web/api.js";
import { MOVE_ANSWER_WITHIN_MS, PING_EVERY_MS, PONG_WITHIN_MS, SOCKET_ANSWER_WITHIN_MS, openSocket, parseFrame, retryDelay } from "../../web/game-common.js";

/**
 * `urls`: {socket, moves}. `on`: callbacks — `hello(frame)`, `entry(frame)` (each log entry
 * once, in order), `synced()`, `connection(state)` ("connecting" | "reconnecting" | "live" |
 * "closed" | "unauthenticated"), `refused({code, message, ...})` for our move, `done()` when
 * our move is in the log, `chat(message)`, `chatHidden(id)`, `chatRefused(message)`.
 */
export class GameLink {
  constructor(urls, on) {
    this.urls = urls;
    this.on = on;
    this.seq = -1;
    this.socket = null;
    this.synced = false;
    this.attempts = 0;
    this.reconnectTimer = null;
    this.pending = null; // {ref, move, timer, seq}
    this.refs = 0;
    this.lastFrameAt = 0;
    this.pingTimer = null;
    window.addEventListener("offline", () => {
      if (this.socket) {
        this.drop();
        this.lost(1006);
      }
    });
    window.addEventListener("online", () => {
      if (!this.socket || this.socket.readyState !== WebSocket.OPEN) {
        this.attempts = Math.min(this.attempts, 1);
        this.drop();
        this.connect();
      }
    });
  }

  connect() {
    clearTimeout(this.reconnectTimer);
    this.reconnectTimer = null;
    this.on.connection(this.attempts ? "reconnecting" : "connecting");
    this.socket = openSocket(this.urls.socket, {
      current: (socket) => socket === this.socket,
      onFrame: (text) => {
        this.lastFrameAt = Date.now();
        const frame = parseFrame(text);
        if (frame) this.handle(frame);
      },
      onLost: (code) => this.lost(code),
    });
  }

  /** Open a fresh socket: one opened on a waiting table took us for a spectator. */
  reconnect() {
    this.drop();
    this.connect();
  }

  drop() {
    const socket = this.socket;
    this.socket = null;
    if (socket) socket.close();
  }

  lost(code) {
    this.socket = null;
    this.synced = false;
    if (this.pending && this.pending.seq === undefined && this.pending.move) {
      this.overHttp(this.pending.move); // sent, unanswered: the same key over HTTP makes it once
    } else {
      this.clearPending();
    }
    clearInterval(this.pingTimer);
    if (code === 4401) {
      this.on.connection("unauthenticated");
      window.location.assign(`/login?next=${encodeURIComponent(window.location.pathname)}`);
      return;
    }
    if (code === 4403 || code === 4404) {
      this.on.connection("closed");
      return;
    }
    const delay = retryDelay(this.attempts);
    this.attempts += 1;
    this.on.connection("reconnecting");
    clearTimeout(this.reconnectTimer);
    this.reconnectTimer = setTimeout(() => this.connect(), delay);
  }

  send(frame) {
    if (!this.socket || this.socket.readyState !== WebSocket.OPEN) return false;
    this.socket.send(JSON.stringify(frame));
    return true;
  }

  requestSync() {
    this.synced = false;
    this.send({ type: "sync", after: this.seq });
  }

  heartbeat() {
    clearInterval(this.pingTimer);
    this.pingTimer = setInterval(() => {
      const asked = Date.now();
      if (!this.send({ type: "ping", ref: `p${++this.refs}` })) return;
      setTimeout(() => {
        if (this.lastFrameAt < asked && this.socket) {
          this.drop(); // silent for too long: the connection is dead even if nobody said so
          this.lost(1006);
        }
      }, PONG_WITHIN_MS);
    }, PING_EVERY_MS);
  }

  handle(frame) {
    switch (frame.type) {
      case "hello":
        this.attempts = 0;
        this.on.hello(frame);
        this.heartbeat();
        this.requestSync();
        break;
      case "entry":
        this.entry(frame);
        break;
      case "synced":
        this.synced = true;
        this.on.connection("live");
        this.on.synced();
        break;
      case "move_accepted":
        if (this.pending && this.pending.ref === frame.ref) {
          clearTimeout(this.pending.timer);
          this.pending.timer = setTimeout(() => {
            this.clearPending();
            this.requestSync(); // accepted, but its entry never came: ask for the log
          }, MOVE_ANSWER_WITHIN_MS);
          this.pending.seq = frame.seq;
          if (this.seq >= frame.seq) this.moveDone();
        }
        break;
      case "chat":
        this.on.chat(frame.message);
        break;
      case "chat_hidden":
        this.on.chatHidden(frame.id);
        break;
      case "error":
        this.error(frame);
        break;
      default:
        break; // pong, and frames a newer server may add
    }
  }

  entry(frame) {
    if (frame.seq <= this.seq) return; // already held: a resync overlaps what came live
    if (frame.seq !== this.seq + 1) {
      this.requestSync(); // a hole: ask from the last seq we hold
      return;
    }
    this.seq = frame.seq;
    this.on.entry(frame);
    if (this.pending && this.pending.seq !== undefined && this.seq >= this.pending.seq) this.moveDone();
  }

  error(frame) {
    if (this.pending && frame.ref === this.pending.ref) {
      this.clearPending();
      if (frame.code === "stale_version") this.requestSync();
      this.on.refused(frame);
    } else if (String(frame.ref || "").startsWith("c")) {
      this.on.chatRefused(frame.message);
    } else if (frame.code === "invalid_sync") {
      this.seq = -1; // our log is not this game's: start over
      this.on.restart();
      this.requestSync();
    } else if (frame.code) {
      this.on.refused(frame);
    }
  }

  busy() {
    return Boolean(this.pending);
  }

  /** Send one action made against the version we hold. */
  submit(action) {
    if (this.pending) return false;
    const ref = `m${++this.refs}`;
    const move = { type: "move", action, version: this.seq, idempotency_key: newKey(), ref };
    this.pending = { ref, move, timer: null };
    if (this.send(move)) {
      this.pending.timer = setTimeout(() => this.overHttp(move), SOCKET_ANSWER_WITHIN_MS);
    } else {
      this.overHttp(move); // no open socket
    }
    return true;
  }

  /** The move over HTTP, with the same idempotency key: the server makes it once however many
   *  ways it arrives. */
  async overHttp(move) {
    const ours = () => this.pending && this.pending.ref === move.ref;
    if (!ours()) return;
    clearTimeout(this.pending.timer);
    this.pending.timer = setTimeout(() => {
      this.clearPending();
      this.requestSync(); // no answer either way: the log will tell whether the move was made
      this.on.done();
    }, MOVE_ANSWER_WITHIN_MS);
    const body = { action: move.action, version: move.version, idempotency_key: move.idempotency_key };
    let answer;
    try {
      answer = await api(this.urls.moves, { method: "POST", body });
    } catch (failure) {
      if (!ours()) return;
      if (failure.status === 0) return; // unreachable: the timer resyncs once the page is back
      this.error({ ref: move.ref, code: failure.code, message: failure.message, ...failure.body });
      return;
    }
    if (!ours()) return;
    this.pending.seq = answer.seq; // done once the log shows it, as for `move_accepted`
    if (this.seq >= answer.seq) this.moveDone();
  }

  moveDone() {
    this.clearPending();
    this.on.done();
  }

  clearPending() {
    if (this.pending) clearTimeout(this.pending.timer);
    this.pending = null;
  }

  chat(text) {
    return this.send({ type: "chat", text, ref: `c${++this.refs}` });
  }
}
