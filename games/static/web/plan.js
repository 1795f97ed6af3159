// A turn planned on the board before it is sent: the route, what it would do at its end, and
// the one `turn` action that plays it (games/engine/actions.py: Turn, applied all or nothing).
//
// The server stays the judge: the first step offered is the view's own legal steps; the next
// ones follow the roads from the planned end, minus the area the turn began on and the areas
// other taxis hold (T3), within the steps left (T1). If the plan turns out illegal the server
// refuses the whole turn and the page says why; nothing was played.

export const CAPACITY = 3; // P1
const FEW_WAITING = 4; // P3

/** Neighbours of every area, from the board's roads. */
export function roads(board) {
  const near = Object.fromEntries(board.areas.map((a) => [a.id, []]));
  for (const [a, b] of board.edges) {
    near[a].push(b);
    near[b].push(a);
  }
  return near;
}

export function newPlan(seq) {
  return { seq, steps: [], pickups: [] };
}

/** Where the taxi would be at the end of the planned route. */
export function planEnd(view, plan) {
  return plan.steps.length ? plan.steps[plan.steps.length - 1] : view.seats[view.you].area;
}

export function stepsLeft(view, plan) {
  return view.allowance - view.path.length - plan.steps.length;
}

/** The areas the next planned step may go to. */
export function nextSteps(view, plan, near) {
  if (stepsLeft(view, plan) <= 0) return [];
  if (!plan.steps.length) {
    return view.legal_actions.filter((a) => a.type === "step").map((a) => a.to);
  }
  const taken = new Set(view.seats.filter((s) => s.seat !== view.you).map((s) => s.area));
  return near[planEnd(view, plan)].filter((to) => to !== view.turn_start && !taken.has(to)).sort();
}

/** What stopping at the planned end would do: the passengers dropped off (with their fares),
 *  the citizens waiting there, and how many of them the taxi may still take (P1–P3, as far as
 *  the page can tell before the draws). */
export function preview(view, plan, distances) {
  const end = planEnd(view, plan);
  const me = view.seats[view.you];
  const dropped = me.passengers
    .filter((p) => p.destination === end)
    .map((p) => ({ ...p, fare: distances[p.origin][end] }));
  const carrying = me.passengers.length - dropped.length;
  const waiting = view.waiting.filter((c) => c.origin === end);
  let capacity = 0; // how many the taxi could take here, were there citizens enough
  for (let taking = carrying; ; taking += 1) {
    const pileLeft = view.pile - 2 * capacity; // each pickup draws a replacement (T6)
    if (taking >= CAPACITY) break; // P1
    if (taking >= 2 && pileLeft < 2) break; // P2
    if (taking >= 1 && view.waiting.length <= FEW_WAITING) break; // P3
    capacity += 1;
  }
  const room = Math.min(capacity, waiting.length);
  const income = dropped.reduce((sum, p) => sum + p.fare, 0);
  return { end, dropped, waiting, room, capacity, income };
}

/** The `turn` action that plays the plan (the pickups chosen, in order; the rest declined). */
export function turnAction(plan) {
  return { type: "turn", steps: [...plan.steps], pickups: [...plan.pickups], pickups_before: [] };
}

/** Whether a draw during this turn could offer one more pickup the plan cannot name yet: a
 *  planned pickup draws a replacement citizen (T6), who may appear on the taxi's own area
 *  while it still has room. */
export function drawMayOffer(view, plan, outcome) {
  const pickups = plan.pickups.length;
  return pickups > 0 && pickups < outcome.capacity && view.pile - 2 * pickups >= 2;
}

/** The plan as single moves: the steps, the stop, the chosen pickups (the turn then waits for
 *  the player's word on what the draws brought). */
export function turnChain(plan) {
  return [
    ...plan.steps.map((to) => ({ type: "step", to })),
    { type: "stop" },
    ...plan.pickups.map((destination) => ({ type: "pickup", destination })),
  ];
}
