"""The invariants every Bahama Taxi game keeps, checked from outside the engine.

`check_invariants` is the one check the property tests, the soak and the golden logs run
(after each action, or once over a whole log). It combines two checkers:

- `Referee` follows a game through its notifications alone, the way a client does, keeps its
  own copy of the table (taxis, passengers, waiting citizens, pile and discard counts, incomes,
  deadlines, the turn in progress) and checks every notification against RULES.md and the order
  CONTRACT.md promises. Because it only knows what it was told, `Referee.sync(game)` also proves
  the notifications are enough to follow the game (a client never needs a fresh fetch).
- `check_state(game)` checks the engine's own state after an action.

Both raise `InvariantViolation` naming the RULES.md clause (or "contract") that was broken. The
rule constants below are copied from RULES.md on purpose, not imported from the engine, so a
wrong constant in the engine cannot make its own test agree with it.
"""

from __future__ import annotations

from collections import Counter
from collections.abc import Callable, Iterable
from itertools import product

from games.engine import (
    AREAS,
    NEIGHBOURS,
    PLAYER_ACTIONS,
    Game,
    Options,
    Pass,
    Setup,
    distance,
    start,
)

DECK = 52  # S1
CAPACITY = 3  # P1
FEW_WAITING = 4  # P3, D2
INITIAL_CITIZENS = 8  # S7
SHIFT_PASSENGERS = 3  # S6
UNDO_LIMIT = 5  # T4
#: T1: the allowance by movement option and deadlines reached (0, 1, 2).
ALLOWANCE = {"normal": (1, 1, 1), "fast": (2, 3, 4), "faster": (3, 5, 7)}

#: Every table RULES.md allows: players 2–8 × options, 5–8 players only with
#: pickup_before_movement on.
COMBINATIONS: tuple[tuple[int, Options], ...] = tuple(
    (players, Options(shift_change=shift, pickup_before_movement=before, movement=movement))
    for players, shift, before, movement in product(
        range(2, 9), (False, True), (False, True), ("normal", "fast", "faster")
    )
    if players <= 4 or before
)


class InvariantViolation(AssertionError):
    pass


def fail(clause: str, message: str):
    raise InvariantViolation(f"{clause}: {message}")


def decks(players: int) -> int:
    return 2 if players >= 5 else 1  # S1


def ranking_of(incomes: list[int]) -> list[list[int]]:
    """G3: seats by income, highest first; equal incomes share a rank."""
    return [
        [seat for seat, income in enumerate(incomes) if income == value]
        for value in sorted(set(incomes), reverse=True)
    ]


def game_must_end(waiting: int, passengers: Iterable[int]) -> bool:
    """G1 (nobody waits) or G2 (one waits and every taxi is empty), read at a turn's end."""
    return waiting == 0 or (waiting == 1 and not any(passengers))


def _citizen(data: dict) -> tuple[str, str]:
    return data["origin"], data["destination"]


#: Notifications that only ever come as part of drawing (a replacement, T6) or right after it.
_DRAWING = frozenset({"citizen_added", "cards_discarded", "deadline_reached"})


class Referee:
    """Follows one game through its notifications and checks each against the rules."""

    def __init__(self, players: int, options: Options, *, actions_known: bool = False):
        self.players = players
        #: Told each action (`acted`), the referee also counts timeouts in a row (K3); from the
        #: notifications alone it cannot see the player actions that reset the count.
        self.actions_known = actions_known
        self.timeouts = [0] * players
        self.options = options
        self.cards = DECK * decks(players)
        self.allowances = ALLOWANCE[options.movement]
        self.count = 0  # notifications seen
        self.started = False
        self.over = False
        self.aborted = False
        self.result: dict | None = None
        # S4 comes before any notification: each seat drew its starting card, then discarded it.
        self.pile = self.cards - players
        self.discarded = players
        self.taxis: list[str] = []
        self.passengers: list[list[tuple[str, str]]] = []
        self.waiting: list[tuple[str, str]] = []
        self.income = [0] * players
        self.fares: list[list[int]] = [[] for _ in range(players)]
        self.zombies = [False] * players
        self.deadline = 0
        self.turn = 0
        self.in_turn = False
        self.active: int | None = None
        self.next_seat = 0
        self.turn_start: str | None = None
        self.path: list[str] = []
        self.stepped = False
        self.undos = 0
        self.passed = False
        self.stopped = False
        self.picked_at_stop = False
        self.pending_replacement = False
        #: what this game went through, for coverage reports: {"T7 blocked taxi passed": 2, …}
        self.events: Counter[str] = Counter()
        self.current: dict | None = None  # the notification being checked
        #: a notification that must come next: (type, {field: value}) and the clause that says so
        self.expect: tuple[str, dict, str] | None = None

    # ------------------------------------------------------------------ feeding

    def feed_all(self, notifications: Iterable[dict]) -> None:
        for notification in notifications:
            self.feed(notification)

    def feed(self, n: dict) -> None:
        kind = n.get("type")
        self.current = n
        if self.over:
            fail("G1", f"{self.where()} comes after the game ended")
        if self.expect is not None:
            want_kind, want_fields, clause = self.expect
            if kind != want_kind or any(n.get(k) != v for k, v in want_fields.items()):
                fail(clause, f"{self.where()}: expected {want_kind} {want_fields} next")
            self.expect = None
        if self.pending_replacement and kind not in ("citizen_added", "cards_discarded"):
            fail("T6", f"{self.where()}: a picked-up citizen must be replaced at once")
        handler = getattr(self, "_on_" + str(kind), None)
        if handler is None:
            fail("contract", f"{self.where()}: unknown notification type")
        try:
            handler(n)
        except (KeyError, TypeError, ValueError) as error:
            fail("contract", f"{self.where()}: malformed ({error!r})")
        self.count += 1
        if self.started:
            self._check_table(kind)

    def acted(self, action) -> None:
        """After the notifications of `action`: a player's own action ends its run of
        timeouts (K3)."""
        if action.type in PLAYER_ACTIONS:
            self.timeouts[action.seat] = 0

    def finish(self) -> None:
        """The stream ended (game over, or cut off while a player is to move)."""
        if self.expect is not None:
            fail(self.expect[2], f"the log ends while {self.expect[0]} is due")
        if self.pending_replacement:
            fail("T6", "the log ends before a replacement citizen")
        if not self.over and not self.in_turn:
            fail("contract", "a running game must wait inside a turn (turn_started, no turn_ended)")

    # ------------------------------------------------------------------ table invariants

    def where(self) -> str:
        """The notification being checked, for error messages (built only on failure)."""
        return f"notification #{self.count} {self.current!r}"

    def _check_table(self, kind: str) -> None:
        if len(set(self.taxis)) != len(self.taxis):
            fail("T3", f"after {self.where()}: two taxis share an area: {self.taxis}")
        for seat, riding in enumerate(self.passengers):
            if len(riding) > CAPACITY:
                fail("P1", f"after {self.where()}: seat {seat} carries {len(riding)} passengers")
        citizens = len(self.waiting) + sum(len(r) for r in self.passengers)
        if self.pile + self.discarded + 2 * citizens != self.cards:
            fail(
                "S1",
                f"after {self.where()}: cards not conserved: pile {self.pile} + discard "
                f"{self.discarded} + 2×{citizens} citizens != {self.cards}",
            )
        if self.pile < 2 and self.deadline < 1:
            if kind in ("citizen_added", "cards_discarded"):
                self.expect = ("deadline_reached", {"number": 1}, "D1")
            else:
                fail("D1", f"after {self.where()}: the pile is exhausted, deadline 1 unannounced")
        if (
            kind not in _DRAWING
            and kind != "citizen_picked_up"
            and len(self.waiting) <= FEW_WAITING
            and self.deadline < 2
        ):
            fail("D2", f"after {self.where()}: {len(self.waiting)} waiting, deadline 2 unannounced")

    # ------------------------------------------------------------------ the turn

    def _seat_to_move(self, n: dict, clause: str = "T8") -> int:
        seat = n["seat"]
        if not self.in_turn:
            fail("contract", f"{n['type']} outside a turn (no turn_started before it)")
        if seat != self.active:
            fail(clause, f"{n['type']} for seat {seat} during seat {self.active}'s turn")
        return seat

    def _drop_offs_done(self, seat: int, clause: str) -> None:
        """T5, P4: at the stop every passenger for this area gets off before anything else."""
        here = self.taxis[seat]
        left = [c for c in self.passengers[seat] if c[1] == here]
        if left:
            fail(clause, f"seat {seat} stopped on {here} without dropping off {left}")

    # ------------------------------------------------------------------ handlers

    def _on_cards_discarded(self, n: dict) -> None:
        cards, reason = n["cards"], n["reason"]
        if not all(card in NEIGHBOURS for card in cards):
            fail("contract", f"cards_discarded names unknown areas {cards}")
        if reason == "three_players":
            if self.players != 3 or self.count != 0 or len(cards) != 1:
                fail("S5", f"three_players discard {n} (players {self.players}, #{self.count})")
        elif reason == "identical_pair":
            if decks(self.players) != 2 or len(cards) != 2 or cards[0] != cards[1]:
                fail("C1", f"identical_pair discard {n} with {decks(self.players)} deck(s)")
            if self.started and not self.pending_replacement:
                fail("C1", f"a pair was drawn while no citizen was being drawn: {n}")
            self.events["C1 identical pair discarded" + (" in play" if self.started else "")] += 1
        else:
            fail("contract", f"unknown discard reason {reason!r}")
        self.pile -= len(cards)
        self.discarded += len(cards)
        # Setup draws its citizens silently (game_started lists them), so the pile is known
        # only from game_started on.
        if self.started and n["pile"] != self.pile:
            fail("contract", f"cards_discarded says pile {n['pile']}, expected {self.pile}")
        if self.pile < 2:
            self.pending_replacement = False  # C1: no citizen from an exhausted pile

    def _on_citizen_added(self, n: dict) -> None:
        citizen = _citizen(n)
        if not self.started or not self.pending_replacement:
            fail("T6", f"a citizen was drawn but nobody was picked up: {n}")
        if citizen[0] == citizen[1] or citizen[0] not in NEIGHBOURS or citizen[1] not in NEIGHBOURS:
            fail("C1", f"a citizen must go from one area to another: {n}")
        if self.pile < 2:
            fail("C1", f"a citizen was drawn from an exhausted pile: {n}")
        self.pile -= 2
        if n["pile"] != self.pile:
            fail("contract", f"citizen_added says pile {n['pile']}, expected {self.pile}")
        self.waiting.append(citizen)
        self.pending_replacement = False
        if self.in_turn and citizen[0] == self.taxis[self.active]:
            self.events["T5 replacement drawn onto the taxi's own area"] += 1
        if sum(1 for c in self.waiting if c[0] == citizen[0]) > 1:
            self.events["P4 two citizens wait on one area"] += 1

    def _on_game_started(self, n: dict) -> None:
        if self.started:
            fail("contract", "game_started twice")
        seats = n["seats"]
        if [s["seat"] for s in seats] != list(range(self.players)):
            fail("S3", f"seats {seats} are not 0..{self.players - 1} in order")
        if "player" in seats[0] and sorted(s["player"] for s in seats) != list(range(self.players)):
            fail("S3", f"seat order {seats} is not a permutation of the players")
        self.taxis = [s["area"] for s in seats]
        if not all(area in NEIGHBOURS for area in self.taxis):
            fail("S4", f"unknown starting areas {self.taxis}")
        self.passengers = [[_citizen(c) for c in riding] for riding in n["passengers"]]
        if len(self.passengers) != self.players:
            fail("contract", "game_started lists passengers for a wrong number of seats")
        want = SHIFT_PASSENGERS if self.options.shift_change else 0
        for seat, riding in enumerate(self.passengers):
            if len(riding) != want:
                fail("S6", f"seat {seat} starts with {len(riding)} passengers, not {want}")
        self.waiting = [_citizen(c) for c in n["waiting"]]
        if len(self.waiting) != INITIAL_CITIZENS:
            fail("S7", f"{len(self.waiting)} citizens wait at the start, not {INITIAL_CITIZENS}")
        for citizen in self.waiting + [c for r in self.passengers for c in r]:
            if citizen[0] == citizen[1]:
                fail("C1", f"citizen {citizen} goes nowhere")
        citizens = len(self.waiting) + sum(map(len, self.passengers))
        self.pile = self.cards - self.discarded - 2 * citizens
        if n["pile"] != self.pile:
            fail("S4", f"game_started says pile {n['pile']}, the cards say {self.pile}")
        self.started = True
        self.expect = ("turn_started", {"seat": 0}, "S3")

    def _on_turn_started(self, n: dict) -> None:
        if not self.started or self.in_turn:
            fail("contract", "turn_started inside a turn or before game_started")
        seat = n["seat"]
        if seat != self.next_seat:
            fail("T8", f"seat {seat} plays, but it is seat {self.next_seat}'s turn")
        if n["allowance"] != self.allowances[self.deadline]:
            fail(
                "T1",
                f"turn_started allowance {n['allowance']}, expected "
                f"{self.allowances[self.deadline]} ({self.options.movement}, "
                f"{self.deadline} deadline(s))",
            )
        self.turn += 1
        self.in_turn = True
        self.active = seat
        self.turn_start = self.taxis[seat]
        self.path = []
        self.stepped = self.passed = self.stopped = self.picked_at_stop = False
        self.undos = 0

    def _on_taxi_moved(self, n: dict) -> None:
        seat = self._seat_to_move(n)
        here, to = n["from"], n["to"]
        if self.passed or self.stopped:
            fail("T5", f"seat {seat} moved after its stop or pass: {n}")
        if here != self.taxis[seat]:
            fail("contract", f"taxi_moved from {here}, but the taxi is on {self.taxis[seat]}")
        if to not in NEIGHBOURS[here]:
            fail("T3", f"{to} is not next to {here}")
        if to == self.turn_start:
            fail("T3", f"seat {seat} stepped back onto {to}, where its turn began")
        if to in self.taxis:
            fail("T3", f"seat {seat} stepped onto {to}, which holds a taxi")
        allowance = self.allowances[self.deadline]
        if len(self.path) >= allowance:
            fail("T1", f"step {len(self.path) + 1} with an allowance of {allowance}")
        self.path.append(to)
        self.taxis[seat] = to
        self.stepped = True

    def _on_move_undone(self, n: dict) -> None:
        seat = self._seat_to_move(n)
        if self.passed or self.stopped:
            fail("T4", f"an undo after the stop: {n}")
        if not self.path:
            fail("T4", f"an undo with no step to take back: {n}")
        if self.undos >= UNDO_LIMIT:
            fail("T4", f"undo number {self.undos + 1} in one turn")
        left = self.path.pop()
        back = self.path[-1] if self.path else self.turn_start
        if n["from"] != left or self.taxis[seat] != left or n["to"] != back:
            fail("T4", f"undo {n} does not take back the last step (expected {left} → {back})")
        self.taxis[seat] = back
        self.undos += 1
        self.events["T4 undo"] += 1
        if self.undos == UNDO_LIMIT:
            self.events["T4 fifth undo of a turn"] += 1

    def _on_passenger_dropped_off(self, n: dict) -> None:
        seat = self._seat_to_move(n)
        if not (self.stepped and self.path):
            fail("T5", f"a drop-off before the taxi moved (drop-offs happen at the stop): {n}")
        if self.picked_at_stop:
            fail("T5", f"a drop-off after a pickup at the same stop: {n}")
        here = self.taxis[seat]
        citizen = _citizen(n)
        if n["area"] != here or citizen[1] != here:
            fail("T5", f"drop-off {n} away from the taxi ({here}) or from the destination")
        if citizen not in self.passengers[seat]:
            fail("T5", f"seat {seat} dropped off {citizen}, who was not riding with it")
        fare = distance(*citizen)
        if n["fare"] != fare:
            fail("T5", f"fare {n['fare']} for {citizen}, but the distance is {fare}")
        self.passengers[seat].remove(citizen)
        self.income[seat] += fare
        self.fares[seat].append(fare)
        self.discarded += 2
        self.stopped = True

    def _on_citizen_picked_up(self, n: dict) -> None:
        seat = self._seat_to_move(n)
        here = self.taxis[seat]
        citizen = _citizen(n)
        if n["area"] != here or citizen[0] != here:
            fail("T5", f"pickup {n} is not where the taxi is ({here})")
        if citizen not in self.waiting:
            fail("P4", f"seat {seat} picked up {citizen}, who was not waiting")
        if self.passed:
            fail("T7", f"a pickup after the turn was passed: {n}")
        if not self.stepped:
            if not self.options.pickup_before_movement:
                fail("T5", f"a pickup before movement without the option: {n}")
            if self.pile < 2:
                fail("T2", f"a pre-movement pickup from an exhausted pile: {n}")
            self.events["T2 pre-movement pickup"] += 1
        else:
            if not self.path:
                fail("T2", f"a pickup after a step, with the step undone: {n}")
            if not self.picked_at_stop:
                self._drop_offs_done(seat, "T5")
            self.stopped = self.picked_at_stop = True
        carrying = len(self.passengers[seat])  # the state just before this pickup
        if carrying >= CAPACITY:
            fail("P1", f"seat {seat} picked up a 4th passenger: {n}")
        if carrying >= 2 and self.pile < 2:
            fail("P2", f"seat {seat} carrying {carrying} picked up from an exhausted pile")
        if carrying >= 1 and len(self.waiting) <= FEW_WAITING:
            fail(
                "P3", f"seat {seat} carrying {carrying} picked up with {len(self.waiting)} waiting"
            )
        self.waiting.remove(citizen)
        self.passengers[seat].append(citizen)
        self.pending_replacement = self.pile >= 2  # T6, C1

    def _on_deadline_reached(self, n: dict) -> None:
        number, cause = n["number"], n.get("cause")
        if number != self.deadline + 1:
            fail("D3", f"deadline {number} announced after deadline {self.deadline}")
        if cause == "pile" and not (number == 1 and self.pile < 2):
            fail("D1", f"deadline {number} for the pile with {self.pile} cards left")
        if cause == "waiting" and not (number == 2 and len(self.waiting) <= FEW_WAITING):
            fail("D2", f"deadline {number} for {len(self.waiting)} waiting citizens")
        if cause not in (None, "pile", "waiting", "clock"):
            fail("contract", f"unknown deadline cause {cause!r}")
        self.deadline = number
        self.events[f"D{number} by {cause}"] += 1

    def _on_turn_passed(self, n: dict) -> None:
        seat = self._seat_to_move(n)
        if self.stepped or self.passed:
            fail("T7", f"a pass after moving or passing: {n}")
        free = [a for a in NEIGHBOURS[self.taxis[seat]] if a not in self.taxis]
        if free:
            fail("T7", f"seat {seat} passed although it could step to {free}")
        self.passed = True
        self.events["T7 blocked taxi passed"] += 1

    def _on_turn_ended(self, n: dict) -> None:
        seat = self._seat_to_move(n)
        if self.passed:
            pass
        elif self.stepped and self.path:
            self._drop_offs_done(seat, "T5")
            self._note_refusals(seat)
        elif self.waiting:
            fail("T3", f"seat {seat}'s turn ended without a step, a pass or the game's end")
        else:
            self.events["G1 game ended before the first step"] += 1
        self.in_turn = False
        if game_must_end(len(self.waiting), map(len, self.passengers)):
            self.expect = ("game_ended", {}, "G1" if not self.waiting else "G2")
        else:
            self.next_seat = (seat + 1) % self.players
            self.expect = ("turn_started", {"seat": self.next_seat}, "T8")

    def _note_refusals(self, seat: int) -> None:
        """Coverage: a stop next to waiting citizens that a pickup limit kept waiting."""
        here = self.taxis[seat]
        if any(c[0] == here for c in self.waiting):
            carrying = len(self.passengers[seat])
            if carrying >= CAPACITY:
                self.events["P1 full taxi stopped by a citizen"] += 1
            elif carrying >= 2 and self.pile < 2:
                self.events["P2 stopped by a citizen, may not take a third"] += 1
            elif carrying >= 1 and len(self.waiting) <= FEW_WAITING:
                self.events["P3 stopped by a citizen, may not take a second"] += 1

    def _on_game_ended(self, n: dict) -> None:
        if self.in_turn or not self.started:
            fail("contract", "game_ended inside a turn (every turn has its turn_ended)")
        if not game_must_end(len(self.waiting), map(len, self.passengers)):
            fail("G1", f"the game ended with {len(self.waiting)} waiting and passengers riding")
        if n["incomes"] != self.income:
            fail("G3", f"final incomes {n['incomes']}, the fares paid {self.income}")
        if n["ranking"] != ranking_of(self.income):
            fail("G3", f"ranking {n['ranking']} does not follow incomes {self.income}")
        self.result = {"incomes": n["incomes"], "ranking": n["ranking"]}
        self.over = True
        self.events["G1 ended: nobody waits" if not self.waiting else "G2 ended: one waits"] += 1
        if len(n["ranking"]) < self.players:
            self.events["G3 shared rank"] += 1

    def _on_game_aborted(self, n: dict) -> None:
        if not isinstance(n["reason"], str):
            fail("contract", f"game_aborted without a reason: {n}")
        self.over = self.aborted = True
        self.in_turn = False

    def _on_turn_timed_out(self, n: dict) -> None:
        seat = self._seat_to_move(n, clause="K2")
        if self.zombies[seat]:
            fail("K3", f"a zombie seat timed out: {n}")
        if self.actions_known and n["count"] != self.timeouts[seat] + 1:
            fail("K3", f"{n} but seat {seat} had {self.timeouts[seat]} timeouts in a row")
        self.timeouts[seat] = n["count"]
        if n["count"] >= 3:
            self.expect = ("seat_zombified", {"seat": seat, "reason": "timeouts"}, "K3")
        self.events["K2 timeout"] += 1

    def _on_seat_zombified(self, n: dict) -> None:
        if self.zombies[n["seat"]]:
            fail("K3", f"seat {n['seat']} was already a zombie")
        self.zombies[n["seat"]] = True
        self.events[f"K3 zombie ({n.get('reason')})"] += 1

    def _on_seat_restored(self, n: dict) -> None:
        if not self.zombies[n["seat"]]:
            fail("K3", f"seat {n['seat']} restored but was not a zombie")
        self.zombies[n["seat"]] = False
        self.timeouts[n["seat"]] = 0

    # ------------------------------------------------------------------ against the engine

    def sync(self, game: Game) -> None:
        """The table as told by the notifications is the engine's table (incomes = Σ fares)."""

        def same(clause: str, what: str, told, actual) -> None:
            if told != actual:
                fail(clause, f"{what}: the notifications say {told!r}, the game has {actual!r}")

        same("S4", "taxis", self.taxis, game.taxis)
        same("P1", "passengers", [sorted(r) for r in self.passengers],
             [sorted(r) for r in game.passengers])  # fmt: skip
        same("T6", "waiting citizens", sorted(self.waiting), sorted(game.waiting))
        same("C1", "pile size", self.pile, len(game.pile))
        same("C1", "discard size", self.discarded, len(game.discard))
        same("T5", "incomes (Σ fares of passenger_dropped_off)", self.income, game.income)
        same("D3", "deadlines reached", self.deadline, game.deadline)
        same("T8", "turns", self.turn, game.turn)
        same("K3", "zombies", self.zombies, game.zombies)
        if self.actions_known:
            same("K3", "timeouts in a row", self.timeouts, game.timeouts)
        same("G1", "game over", self.over, game.over)
        if self.over:
            same("G3", "result", self.result, game.result and game.result.to_json())
        else:
            same("T8", "active seat", self.active, game.active)
            same("T3", "turn start", self.turn_start, game.turn_start)
            same("T3", "path", self.path, game.path)
            same("T4", "undos", self.undos, game.undos)


# ---------------------------------------------------------------------- the engine's state


def check_state(game: Game, *, thorough: bool = False) -> None:
    """Invariants of the engine's state after any action. `thorough` also compares the card
    multiset with the decks (every card exactly where one card can be)."""
    players = game.players
    cards = DECK * decks(players)
    if len(set(game.taxis)) != players:
        fail("T3", f"two taxis share an area: {game.taxis}")
    for seat, riding in enumerate(game.passengers):
        if len(riding) > CAPACITY:
            fail("P1", f"seat {seat} carries {len(riding)} passengers: {riding}")
    riding = sum(len(r) for r in game.passengers)
    total = len(game.pile) + len(game.discard) + 2 * len(game.waiting) + 2 * riding
    if total != cards:
        fail(
            "S1",
            f"cards not conserved: pile {len(game.pile)} + discard {len(game.discard)} + "
            f"2×{len(game.waiting)} waiting + 2×{riding} riding = {total} != {cards}",
        )
    if thorough:
        held = Counter(game.pile) + Counter(game.discard)
        for citizen in game.waiting + [c for r in game.passengers for c in r]:
            held.update(citizen)
        if held != Counter(AREAS * decks(players)):
            fail("S1", f"the cards are not the decks: {held - Counter(AREAS * decks(players))}")
    if len(game.pile) < 2 and game.deadline < 1:
        fail("D1", "the pile is exhausted but the 1st deadline is not reached")
    if len(game.waiting) <= FEW_WAITING and game.deadline < 2:
        fail("D2", f"{len(game.waiting)} citizens wait but the 2nd deadline is not reached")
    if game.over:
        if game.aborted is not None:
            return
        passengers = [len(r) for r in game.passengers]
        if not game_must_end(len(game.waiting), passengers):
            fail("G1", f"the game is over with {len(game.waiting)} waiting, riding {passengers}")
        if game.result is None or list(game.result.incomes) != game.income:
            fail("G3", f"result {game.result} does not hold the incomes {game.income}")
        if game.result.to_json()["ranking"] != ranking_of(game.income):
            fail("G3", f"ranking {game.result.ranking} does not follow incomes {game.income}")
        return
    seat = game.active
    if not game.waiting:
        fail("G1", "nobody waits but the game goes on")
    if game.zombies[seat]:
        fail("K3", f"the game waits on zombie seat {seat}; the autopilot plays zombies at once")
    legal = game.legal_actions()
    if not legal:
        fail("T7", f"seat {seat} has no legal action but the game waits on it")
    if not game.stepped and all(a in game.taxis for a in NEIGHBOURS[game.taxis[seat]]):
        if all(isinstance(a, Pass) for a in legal):
            fail("T7", f"seat {seat} is blocked with nothing to pick up: its turn passes at once")
    allowance = ALLOWANCE[game.options.movement][game.deadline]
    if len(game.path) > allowance:
        fail("T1", f"{len(game.path)} steps with an allowance of {allowance}")
    if game.taxis[seat] != (game.path[-1] if game.path else game.turn_start):
        fail("T3", f"seat {seat}'s taxi is on {game.taxis[seat]}, its path says otherwise")


# ---------------------------------------------------------------------- the one check


def check_invariants(
    referee: Referee,
    game: Game,
    notifications: Iterable[dict],
    *,
    action=None,
    finished: bool = False,
) -> None:
    """The invariant check every test uses, after each action or once over a whole log: the
    referee reads `notifications` (what `action`, if given, made), its table must be the
    game's, and the game's own state must hold. `finished`: the log is complete — nothing is
    due, and the cards are compared one by one. Raises InvariantViolation naming the clause."""
    referee.feed_all(notifications)
    if action is not None:
        referee.acted(action)
    if finished:
        referee.finish()
    referee.sync(game)
    check_state(game, thorough=finished)


# ---------------------------------------------------------------------- playing checked games

Policy = Callable[[Game], object]


def play_checked(
    setup: Setup,
    policy: Policy,
    *,
    max_turns: int = 2000,
    after_action: Callable[[Game, object, list[dict]], None] | None = None,
) -> tuple[Game, list[list[dict]], Referee]:
    """Play a game, checking every invariant after every action.

    Returns the game, the notifications of the setup and of each action (the shape of
    `replay_notifications`) and the referee. The referee is synced with the game after each
    action, so the state it checks each pickup against (passengers, pile, waiting) is the
    engine's state just before that pickup.
    """
    game, first = start(setup)
    referee = Referee(setup.players, setup.options, actions_known=True)
    check_invariants(referee, game, first)
    log = [first]
    while not game.over and game.turn <= max_turns:
        action = policy(game)
        out = game.apply(action)
        check_invariants(referee, game, out, action=action)
        log.append(out)
        if after_action is not None:
            after_action(game, action, out)
    check_invariants(referee, game, (), finished=True)
    return game, log, referee
