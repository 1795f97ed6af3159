// The board in SVG, drawn from the board data the page carries (games/web.py: board_data, the
// same as /board.json): roads, the 52 areas, then what a view puts on them — taxis in seat
// colours, the active turn's path, waiting citizens (destination on the tag, in full on hover
// or tap), the destinations of your passengers, and the areas you may step to, which are
// buttons (click, or focus and Enter / Space).
import { areaLabel, format, gettext, ngettext, seatLabel } from "./wording.js";

const SVG = "http://www.w3.org/2000/svg";
// Citizens' tags sit inside their area's disc, under its label, one row each (two a row
// beyond two): a tag never covers another area (games/board_layout.py leaves a gap between
// discs wider than what a tag's corner may overhang).
// Every corner stays within the area's radius + 10 of its centre, and board_layout.py keeps
// 10 between discs, so no corner reaches another disc.
const TAG_WIDTH = 40;
const TAG_HEIGHT = 16;
const NARROW_TAG_WIDTH = 28; // three or four citizens on one area: two smaller tags a row
const NARROW_TAG_HEIGHT = 13;
// Smaller on the screen than MERGE_BELOW_PX (a phone, the board unzoomed), an area's tags merge
// into one tag READABLE_PX tall (drawCitizens), which may reach REACH beyond the disc: not as
// far as the gap board_layout.py keeps between discs.
const MERGE_BELOW_PX = 11;
const READABLE_PX = 12;
const REACH = 8; // board_layout.GAP is 10: two units spare for the strokes
const SHARED_TAG_RAISE = 2; // the shared tag starts this far above the centre, under the label
const SHARED_TAG_WIDTH = 72;

function el(name, attributes = {}, parent = null) {
  const node = document.createElementNS(SVG, name);
  for (const [key, value] of Object.entries(attributes)) node.setAttribute(key, String(value));
  if (parent) parent.appendChild(node);
  return node;
}

function titled(node, text) {
  el("title", {}, node).textContent = text;
  return node;
}

const round = (value) => Math.round(value * 10) / 10;

export function fareOf(distances, citizen) {
  return distances ? distances[citizen.origin]?.[citizen.destination] : undefined;
}

/** Distances between all areas (breadth-first over the roads): fares for the client. */
export function distanceTable(board) {
  const near = Object.fromEntries(board.areas.map((a) => [a.id, []]));
  for (const [a, b] of board.edges) {
    near[a].push(b);
    near[b].push(a);
  }
  const table = {};
  for (const start of Object.keys(near)) {
    const seen = { [start]: 0 };
    const queue = [start];
    while (queue.length) {
      const here = queue.shift();
      for (const next of near[here]) {
        if (!(next in seen)) {
          seen[next] = seen[here] + 1;
          queue.push(next);
        }
      }
    }
    table[start] = seen;
  }
  return table;
}

export function createBoard(svg, board, { colours, onStep = null, onCitizens = null, playerOf = seatLabel } = {}) {
  const areas = Object.fromEntries(board.areas.map((a) => [a.id, a]));
  const distances = distanceTable(board);
  const layer = (name) => el("g", { class: name }, svg);
  const roads = layer("roads");
  const trail = layer("trail");
  const recentLayer = layer("recent");
  const planLayer = layer("plan");
  const areaLayer = layer("areas");
  const marks = layer("marks");
  const arrows = layer("arrows");
  const taxis = layer("taxis");
  const citizens = layer("citizens");
  const areaNodes = {};
  let stepActions = new Map();

  for (const [a, b] of board.edges) {
    el("line", { x1: areas[a].x, y1: areas[a].y, x2: areas[b].x, y2: areas[b].y }, roads);
  }
  for (const area of board.areas) {
    const colour = board.suit_colours[area.suit];
    const g = el("g", { class: "area", "data-area": area.id, "data-suit": area.suit }, areaLayer);
    el("circle", { class: "focus-ring", cx: area.x, cy: area.y, r: round(area.r + 7) }, g);
    el("circle", { class: "legal-ring", cx: area.x, cy: area.y, r: round(area.r + 4) }, g);
    el("circle", {
      class: "area-disc",
      cx: area.x,
      cy: area.y,
      r: area.r,
      fill: area.downtown ? "#FFF4E0" : "#FFFFFF",
      stroke: colour,
    }, g);
    const label = el("text", {
      x: area.x,
      y: round(area.y - area.r * 0.3),
      dy: 0,
      "text-anchor": "middle",
      "dominant-baseline": "middle",
      "font-size": area.rank === "A" ? 18 : 21,
      fill: colour,
    }, g);
    label.textContent = areaLabel(area.id);
    titled(g, areaLabel(area.id));
    areaNodes[area.id] = g;
    const act = () => {
      const action = stepActions.get(area.id);
      if (action && onStep) onStep(action);
    };
    g.addEventListener("click", act);
    g.addEventListener("keydown", (event) => {
      if (event.key === "Enter" || event.key === " ") {
        event.preventDefault();
        act();
      }
    });
  }

  function colourOf(seat) {
    return colours[seat % colours.length];
  }

  function setSteps(actions) {
    stepActions = new Map(actions.map((action) => [action.to, action]));
    for (const [id, g] of Object.entries(areaNodes)) {
      const action = stepActions.get(id);
      g.classList.toggle("legal", Boolean(action));
      if (action) {
        g.setAttribute("tabindex", "0");
        g.setAttribute("role", "button");
        g.setAttribute("aria-label", format(gettext("Step to %(area)s"), { area: areaLabel(id) }));
      } else {
        g.removeAttribute("tabindex");
        g.removeAttribute("role");
        g.removeAttribute("aria-label");
      }
    }
  }

  function drawTrail(view) {
    trail.replaceChildren();
    if (view.active_seat === null || view.active_seat === undefined || !view.path.length) return;
    const points = [view.turn_start, ...view.path].map((id) => `${areas[id].x},${areas[id].y}`);
    el("polyline", {
      points: points.join(" "),
      stroke: colourOf(view.active_seat).fill,
      "data-seat": view.active_seat,
    }, trail);
  }

  function drawTaxis(view) {
    taxis.replaceChildren();
    for (const seat of view.seats) {
      const area = areas[seat.area];
      const { fill, ink } = colourOf(seat.seat);
      const active = seat.seat === view.active_seat;
      const g = el("g", {
        class: `taxi${active ? " active" : ""}`,
        id: `taxi-${seat.seat}`,
        "data-seat": seat.seat,
        "data-area": seat.area,
      }, taxis);
      titled(g, format(
        ngettext(
          "Taxi of %(seat)s on %(area)s, %(count)s passenger",
          "Taxi of %(seat)s on %(area)s, %(count)s passengers",
          seat.passengers.length,
        ),
        { seat: playerOf(seat.seat), area: areaLabel(seat.area), count: seat.passengers.length },
      ));
      el("circle", {
        cx: area.x, cy: area.y, r: round(area.r + 5), fill: "none", stroke: fill,
        "stroke-width": active ? 10 : 7,
      }, g);
      const bx = round(area.x + area.r * 0.78);
      const by = round(area.y - area.r * 0.78);
      el("circle", { cx: bx, cy: by, r: 15, fill, stroke: "#000", "stroke-width": active ? 3 : 1.5 }, g);
      const number = el("text", {
        x: bx, y: by, dy: 1, "text-anchor": "middle", "dominant-baseline": "middle",
        "font-size": 18, "font-weight": "bold", fill: ink,
      }, g);
      number.textContent = String(seat.seat + 1);
    }
  }

  /** Board units per CSS pixel: how large a tag must be to be read. */
  function unitsPerPixel() {
    const scale = svg.getScreenCTM()?.a;
    return scale > 0 ? 1 / scale : 1;
  }

  function highlight(group, on) {
    for (const citizen of group) areaNodes[citizen.destination]?.classList.toggle("destination", on);
  }

  function drawTag(origin, group, { x, y, width, height, text }) {
    const g = el("g", {
      class: "citizen",
      "data-origin": origin,
      "data-destination": group.map((c) => c.destination).join(" "),
      "data-count": group.length,
    }, citizens);
    const sentences = group.map((c) => citizenSentence(c, fareOf(distances, c)));
    titled(g, sentences.join(" "));
    el("rect", { x: round(x - width / 2), y: round(y - height / 2), width: round(width), height: round(height), rx: 3 }, g);
    const size = round(height * 0.8);
    const label = el("text", {
      x: round(x), y: round(y + size * 0.36), "text-anchor": "middle", "font-size": size, "font-weight": "bold",
    }, g);
    label.textContent = text;
    // a label wider than its tag (a narrow font missing, an Ace's small disc) is squeezed in
    const room = width - 4;
    if (label.getComputedTextLength && label.getComputedTextLength() > room) {
      label.setAttribute("textLength", round(room));
      label.setAttribute("lengthAdjust", "spacingAndGlyphs");
    }
    g.addEventListener("pointerenter", () => highlight(group, true));
    g.addEventListener("pointerleave", () => highlight(group, false));
    g.addEventListener("click", () => {
      // drawn over its area, the tag would swallow the taps meant for it: on an area you may
      // step to, a tap plans the step (as on the disc); who waits there stays in the tag's
      // title, the "Citizens waiting" list, and a tap once the area is no longer a step
      const step = stepActions.get(origin);
      if (step && onStep) {
        onStep(step);
        return;
      }
      for (const node of Object.values(areaNodes)) node.classList.remove("destination");
      highlight(group, true);
      if (onCitizens) onCitizens(sentences.join(" "));
    });
  }

  let lastWaiting = [];
  /** One tag per citizen, with its destination, while those tags are at least MERGE_BELOW_PX
   *  tall on the screen; on a small board (a phone, unzoomed) an area's citizens share one tag
   *  that is: the destination of a lone citizen, else how many wait (tap: who goes where). */
  function drawCitizens(waiting) {
    lastWaiting = waiting;
    citizens.replaceChildren();
    const perPixel = unitsPerPixel();
    const byArea = new Map();
    for (const citizen of waiting) {
      if (!byArea.has(citizen.origin)) byArea.set(citizen.origin, []);
      byArea.get(citizen.origin).push(citizen);
    }
    for (const [origin, group] of byArea) {
      const area = areas[origin];
      const perRow = group.length > 2 ? 2 : 1;
      const width = perRow === 1 ? TAG_WIDTH : NARROW_TAG_WIDTH;
      const height = perRow === 1 ? TAG_HEIGHT : NARROW_TAG_HEIGHT;
      if (height / perPixel < MERGE_BELOW_PX) {
        drawTag(origin, group, shared(area, perPixel, group.length === 1 ? areaLabel(group[0].destination) : `×${group.length}`));
        continue;
      }
      group.forEach((citizen, index) => {
        const row = Math.floor(index / perRow);
        const column = index % perRow;
        drawTag(origin, [citizen], {
          x: area.x + (perRow === 1 ? 0 : (column - 0.5) * (width + 1)),
          y: area.y + 2 + height / 2 + row * (height + 1),
          width,
          height,
          text: areaLabel(citizen.destination),
        });
      });
    }
  }

  /** The one tag of an area on a small board: as tall as READABLE_PX asks, up to what fits
   *  under the area's label with every corner within REACH of its centre (never on another
   *  area), and as wide as that height leaves. */
  function shared(area, perPixel, text) {
    const top = area.y - SHARED_TAG_RAISE;
    const reach = area.r + REACH;
    const tallest = reach * 0.8 - SHARED_TAG_RAISE;
    const height = Math.min(Math.max(TAG_HEIGHT, Math.ceil(READABLE_PX * perPixel * 10) / 10), tallest);
    const bottom = top + height - area.y;
    const width = Math.min(2 * Math.sqrt(reach * reach - bottom * bottom), SHARED_TAG_WIDTH);
    return { x: area.x, y: top + height / 2, width, height, text };
  }

  function drawMarks(view, you) {
    marks.replaceChildren();
    if (you === null || you === undefined) return;
    const mine = view.seats.find((s) => s.seat === you);
    if (!mine) return;
    const { fill } = colourOf(you);
    const seen = new Set();
    for (const passenger of mine.passengers) {
      if (seen.has(passenger.destination)) continue;
      seen.add(passenger.destination);
      const area = areas[passenger.destination];
      const x = round(area.x - area.r * 0.78);
      const y = round(area.y - area.r * 0.78);
      const g = el("g", { class: "mark", "data-area": passenger.destination }, marks);
      titled(g, format(gettext("A passenger of yours goes to %(area)s"), { area: areaLabel(passenger.destination) }));
      // a ring around the area itself: it cannot be read as the neighbour's, nor hide under a tag
      el("circle", { class: "destination-ring", cx: area.x, cy: area.y, r: round(area.r + 3), fill: "none", stroke: fill, "stroke-width": 6, "stroke-dasharray": "6 5" }, g);
      el("rect", { x: x - 10, y: y - 10, width: 20, height: 20, transform: `rotate(45 ${x} ${y})`, fill, stroke: "#000", "stroke-width": 1.5 }, g);
    }
  }

  function drawPlan(plan) {
    planLayer.replaceChildren();
    if (!plan || !plan.steps.length) return;
    const route = [plan.from, ...plan.steps].map((id) => areas[id]);
    el("polyline", { points: route.map((a) => `${a.x},${a.y}`).join(" ") }, planLayer);
    route.slice(1).forEach((area, index) => {
      const g = el("g", { class: "plan-stop", "data-area": plan.steps[index] }, planLayer);
      el("circle", { cx: area.x, cy: round(area.y - area.r - 6), r: 13 }, g);
      el("text", { x: area.x, y: round(area.y - area.r - 6), dy: 1, "text-anchor": "middle", "dominant-baseline": "middle", "font-size": 16, "font-weight": "bold" }, g).textContent = String(index + 1);
    });
  }

  let recentKey = "";
  /** Other players' latest turns: their moves as arrows, fares and pickups as badges. Drawn
   *  again only when they change, so the fading (CSS) runs once per new move. */
  function drawRecent(notes) {
    const key = JSON.stringify(notes || []);
    if (key === recentKey) return;
    recentKey = key;
    recentLayer.replaceChildren();
    for (const note of notes || []) {
      const { fill } = colourOf(note.seat ?? 0);
      if (note.type === "taxi_moved") {
        const [start, end] = [areas[note.from], areas[note.to]];
        if (!start || !end) continue;
        const g = el("g", { class: "recent-move", "data-seat": note.seat, "data-to": note.to }, recentLayer);
        el("line", { x1: start.x, y1: start.y, x2: end.x, y2: end.y, stroke: fill }, g);
      } else if (note.type === "passenger_dropped_off" || note.type === "citizen_picked_up") {
        const area = areas[note.area ?? note.destination ?? note.origin];
        if (!area) continue;
        const dropped = note.type === "passenger_dropped_off";
        const g = el("g", { class: `recent-${dropped ? "fare" : "pickup"}`, "data-seat": note.seat }, recentLayer);
        const x = round(area.x + (dropped ? area.r : -area.r));
        const y = round(area.y + area.r);
        el("rect", { x: x - 22, y: y - 12, width: 44, height: 24, rx: 12, fill, stroke: "#000", "stroke-width": 1.5 }, g);
        el("text", { x, y, dy: 1, "text-anchor": "middle", "dominant-baseline": "middle", "font-size": 15, "font-weight": "bold", fill: colourOf(note.seat).ink }, g).textContent = dropped ? `+${note.fare}` : `↑${areaLabel(note.destination)}`;
        titled(g, dropped
          ? format(gettext("%(seat)s dropped off a passenger here: fare %(fare)s"), { seat: playerOf(note.seat), fare: note.fare })
          : format(gettext("%(seat)s picked up a citizen here going to %(destination)s"), { seat: playerOf(note.seat), destination: areaLabel(note.destination) }));
      }
    }
  }

  function drawArrows(notifications) {
    arrows.replaceChildren();
    for (const note of notifications || []) {
      if (note.type !== "taxi_moved" && note.type !== "move_undone") continue;
      const start = areas[note.from];
      const end = areas[note.to];
      if (!start || !end) continue;
      const dx = end.x - start.x;
      const dy = end.y - start.y;
      const length = Math.hypot(dx, dy) || 1;
      const [ux, uy] = [dx / length, dy / length];
      const [x1, y1] = [start.x + ux * 14, start.y + uy * 14];
      const [x2, y2] = [end.x - ux * 18, end.y - uy * 18];
      const { fill } = colourOf(note.seat);
      const g = el("g", { class: "move", "data-seat": note.seat }, arrows);
      el("line", {
        x1: round(x1), y1: round(y1), x2: round(x2), y2: round(y2), stroke: fill, "stroke-width": 6,
        "stroke-dasharray": note.type === "move_undone" ? "4 6" : "12 6", "stroke-linecap": "round",
      }, g);
      const head = [
        [x2 + ux * 12, y2 + uy * 12],
        [x2 - uy * 8, y2 + ux * 8],
        [x2 + uy * 8, y2 - ux * 8],
      ];
      el("polygon", { points: head.map(([x, y]) => `${round(x)},${round(y)}`).join(" "), fill, stroke: "#000", "stroke-width": 1 }, g);
    }
  }

  // zoomed in or out, turned, resized: tags are laid out again for their size on the screen
  if (typeof ResizeObserver === "function") {
    let drawnWidth = svg.getBoundingClientRect().width;
    new ResizeObserver(() => {
      const width = svg.getBoundingClientRect().width;
      if (Math.abs(width - drawnWidth) < 1) return;
      drawnWidth = width;
      drawCitizens(lastWaiting);
    }).observe(svg);
  }

  return {
    distances,
    /** Draw `view` (an engine public/player view). `steps`: the step actions to offer;
     *  `plan`: a route being planned ({from, steps}); `recent`: other players' latest moves;
     *  `notifications`: this step's moves as arrows (the replay). */
    render(view, { you = null, steps = [], notifications = null, plan = null, recent = null } = {}) {
      drawTrail(view);
      drawRecent(recent);
      drawPlan(plan);
      drawMarks(view, you);
      drawTaxis(view);
      drawCitizens(view.waiting);
      drawArrows(notifications);
      setSteps(steps);
    },
  };
}

export function citizenSentence(citizen, fare) {
  return format(gettext("A citizen waits at %(origin)s to go to %(destination)s (fare %(fare)s)."), {
    origin: areaLabel(citizen.origin),
    destination: areaLabel(citizen.destination),
    fare: fare ?? "?",
  });
}

/** The colour key under the board. */
export function renderLegend(list, seats, colours, names) {
  list.replaceChildren();
  for (const seat of seats) {
    const li = document.createElement("li");
    const swatch = document.createElement("span");
    swatch.className = "swatch";
    swatch.style.background = colours[seat.seat % colours.length].fill;
    li.append(swatch, `${seatLabel(seat.seat)} — ${names.get(seat.seat) ?? "?"} (${colours[seat.seat % colours.length].name})`);
    list.appendChild(li);
  }
  const tag = document.createElement("li");
  const sample = document.createElement("span");
  sample.className = "citizen-swatch";
  sample.textContent = areaLabel("10H");
  tag.append(sample, " ", gettext("a waiting citizen and where it goes"));
  list.appendChild(tag);
}
