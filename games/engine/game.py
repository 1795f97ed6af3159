"""The rules of Bahama Taxi (RULES.md) as a state machine.

`new_game` sets a game up (S1–S7); `Game.apply` plays one action, mutating the game in place and
returning the notifications it caused (CONTRACT.md vocabulary); `Game.clone` copies it. Like
OpenSpiel's states and python-chess's board, a game is mutable for speed: replay applies hundreds
of actions and must not copy the state for each.

Every action either applies completely or raises before changing anything. Things that need no
decision happen inside the action that leads to them: a blocked taxi's pass (T7) and the turns of
zombie seats (K3) are played at once, so after `apply` returns, the game waits on a real player
or is over.
"""

from __future__ import annotations

from collections.abc import Callable, Mapping
from dataclasses import dataclass
from typing import Any, Literal

from .actions import (
    Abort,
    Action,
    Deadline,
    Decline,
    Pass,
    Pickup,
    Resign,
    Restore,
    Step,
    Stop,
    Timeout,
    Turn,
    Undo,
    Zombify,
    decode_action,
)
from .autopilot import autopilot_action
from .board import AREA_INDEX, AREAS, DISTANCE, NEIGHBOURS
from .errors import Code, IllegalAction, InvalidSetup
from .notifications import CitizenJson, Notification, Result
from .options import ALLOWANCE, Options, check_players
from .rng import Rng, seat_order

RULES_VERSION = "1"

MOVE, PICKUP, OVER = "move", "pickup", "over"
UNDO_LIMIT = 5  # T4
TIMEOUTS_TO_ZOMBIE = 3  # K3
INITIAL_CITIZENS = 8  # S7
SHIFT_PASSENGERS = 3  # S6
CAPACITY = 3  # P1
FEW_WAITING = 4  # P3, D2
#: K4 safety net: a game of zombies only that has not ended after this many automatic turns is
#: aborted rather than looping for ever. Property tests show the autopilot never gets near it.
ZOMBIE_TURN_LIMIT = 10_000

Citizen = tuple[str, str]  # (origin, destination)


@dataclass(frozen=True, slots=True)
class Outcome:
    """How a game ended (G3): each seat's income, and the seats by rank, best first, seats
    that tie sharing a rank (each rank's seats ascending). None on an aborted game."""

    incomes: tuple[int, ...]
    ranking: tuple[tuple[int, ...], ...]

    def to_json(self) -> Result:
        """The shape the API, the frames, the export and the logs carry."""
        return {"incomes": list(self.incomes), "ranking": [list(rank) for rank in self.ranking]}


#: what a game plays on, besides `passengers` (a list of lists): `Game.frozen` keeps them as tuples
_LISTS = ("pile", "discard", "taxis", "income", "waiting", "path", "zombies", "timeouts", "history")


def citizen_json(citizen: Citizen) -> CitizenJson:
    return {"origin": citizen[0], "destination": citizen[1]}


def _area_order(area: str) -> int:
    return AREA_INDEX[area]


class Game:
    """One game of Bahama Taxi. Seats are 0-based in play order."""

    __slots__ = (
        "rules_version", "options", "players", "seed", "seat_players",
        "pile", "discard", "taxis", "passengers", "income", "waiting",
        "deadline", "active", "phase", "turn_start", "path", "stepped", "undos", "turn",
        "zombies", "timeouts", "result", "aborted", "history", "_out", "_allowances",
    )  # fmt: skip

    rules_version: str
    options: Options
    players: int
    seed: int
    seat_players: tuple[int, ...]  # seat -> index of its player in joining order (S3)
    pile: list[str]  # the end of the list is the top of the pile
    discard: list[str]
    taxis: list[str]  # per seat, the area its taxi is on
    passengers: list[list[Citizen]]  # per seat
    income: list[int]  # per seat
    waiting: list[Citizen]
    deadline: int  # deadlines reached: 0, 1 or 2
    active: int  # the seat to play
    phase: str  # MOVE, PICKUP or OVER
    turn_start: str  # where the active taxi began its turn
    path: list[str]  # the areas stepped to this turn
    stepped: bool
    undos: int  # this turn
    turn: int
    zombies: list[bool]  # per seat: played by the autopilot (K3)
    timeouts: list[int]  # per seat: timed-out turns in a row (K3)
    result: Outcome | None
    aborted: str | None  # the reason, if the game was aborted
    history: list[Action]
    #: What the action being applied says. Outside `apply` it is None, so that a notification
    #: made outside an action fails loudly; typed as the handlers, which run inside, see it.
    _out: list[Notification]
    _allowances: tuple[int, int, int]  # T1, by deadlines reached

    # ------------------------------------------------------------------ reading the state

    @property
    def over(self) -> bool:
        return self.phase == OVER

    @property
    def pile_exhausted(self) -> bool:
        """Fewer than 2 cards remain: no citizen can be drawn."""
        return len(self.pile) < 2

    def allowance(self) -> int:
        """T1: steps allowed this turn, read now (a deadline reached mid-turn counts at once)."""
        return self._allowances[self.deadline]

    def current_player(self) -> int | None:
        return None if self.phase == OVER else self.active

    def may_pick_up(self, seat: int) -> str | None:
        """The clause (P1–P3) that forbids this taxi a pickup now, or None if it may."""
        carrying = len(self.passengers[seat])
        if carrying >= CAPACITY:
            return "P1"
        if carrying >= 2 and len(self.pile) < 2:
            return "P2"
        if carrying >= 1 and len(self.waiting) <= FEW_WAITING:
            return "P3"
        return None

    def pickup_choices(self) -> list[str]:
        """Destinations the active taxi may pick up now, in board order (T2, T5, P1–P4)."""
        if self.phase == MOVE:
            if self.stepped or not self.options.pickup_before_movement or len(self.pile) < 2:
                return []
        elif self.phase != PICKUP:
            return []
        seat = self.active
        if self.may_pick_up(seat) is not None:
            return []
        here = self.taxis[seat]
        found = {c[1] for c in self.waiting if c[0] == here}
        return sorted(found, key=_area_order) if len(found) > 1 else list(found)

    def step_choices(self) -> list[str]:
        """Areas the active taxi may step to now (T1, T3), in board order."""
        if self.phase != MOVE or len(self.path) >= self._allowances[self.deadline]:
            return []
        taxis = self.taxis
        start = self.turn_start
        return [a for a in NEIGHBOURS[taxis[self.active]] if a != start and a not in taxis]

    def _blocked(self) -> bool:
        """T7: no first step is possible (every neighbour holds a taxi)."""
        taxis = self.taxis
        for area in NEIGHBOURS[taxis[self.active]]:
            if area not in taxis:
                return False
        return True

    def legal_actions(self) -> list[Action]:
        """Every player action the active seat may take now, in a fixed order."""
        if self.phase == OVER:
            return []
        seat = self.active
        actions: list[Action] = [Pickup(seat, d) for d in self.pickup_choices()]
        if self.phase == PICKUP:
            actions.append(Decline(seat))
            return actions
        steps = self.step_choices()
        actions.extend(Step(seat, to) for to in steps)
        if self.path:
            if self.undos < UNDO_LIMIT:
                actions.append(Undo(seat))
            actions.append(Stop(seat))
        elif not steps:
            actions.append(Pass(seat))
        return actions

    def offered_actions(self, seat: int | None) -> list[Action]:
        """What seat `seat` may do now, as offered to its player: the legal actions when it is
        the seat's turn, then `resign` (K3) while the game runs and the seat is not already
        played by the autopilot, on its turn or not. Not for policies: `legal_actions` is."""
        if seat is None or self.phase == OVER or not 0 <= seat < self.players:
            return []
        actions = self.legal_actions() if seat == self.active else []
        if not self.zombies[seat]:
            actions.append(Resign(seat))
        return actions

    # ------------------------------------------------------------------ playing

    def apply(self, action: Action | Mapping[str, object]) -> list[Notification]:
        """Play one action; return its notifications. Raises EngineError and changes nothing
        if the action is malformed or illegal."""
        handler = _HANDLERS.get(type(action))
        if handler is None:  # JSON from a client or the log (anything else is malformed)
            action = decode_action(action)
            handler = _HANDLERS[type(action)]
        if self.phase == OVER:
            raise IllegalAction(Code.GAME_OVER, "the game is over", clause="G1")
        out: list[Notification] = []
        self._out = out
        # `action` is an Action from here on (its type has a handler, or it was decoded): mypy
        # cannot follow that through the table, hence two ignores rather than a check per action
        try:
            handler(self, action)
            if type(action) in _PLAYER_TYPES:
                self.timeouts[action.seat] = 0  # type: ignore[union-attr]  # K3: in a row
            self._play_automatic()
        finally:
            self._out = None  # type: ignore[assignment]
        self.history.append(action)  # type: ignore[arg-type]
        return out

    def clone(self) -> Game:
        """A copy to play on, of a game or of a frozen copy."""
        other = Game.__new__(Game)
        for name in Game.__slots__:
            setattr(other, name, getattr(self, name))
        other.pile = list(self.pile)
        other.discard = list(self.discard)
        other.taxis = list(self.taxis)
        other.passengers = [list(p) for p in self.passengers]
        other.income = list(self.income)
        other.waiting = list(self.waiting)
        other.path = list(self.path)
        other.zombies = list(self.zombies)
        other.timeouts = list(self.timeouts)
        other.history = list(self.history)
        return other

    def frozen(self) -> Game:
        """A copy to keep, not to play on: its lists are tuples, of strings, numbers and
        actions shared by every game (games/engine/actions.py), which the garbage collector
        stops walking once it has seen them, so a process keeping many games (a server's
        cache of states) pays little for them in each full collection. `clone` makes a game
        to play on from it."""
        other = Game.__new__(Game)
        for name in Game.__slots__:
            setattr(other, name, getattr(self, name))
        for name in _LISTS:
            setattr(other, name, tuple(getattr(self, name)))
        other.passengers = tuple(tuple(p) for p in self.passengers)  # type: ignore[assignment]
        return other

    def state_key(self) -> tuple[object, ...]:
        """Everything that makes up the game, for comparing two games (replay == live)."""
        return tuple(
            getattr(self, name) for name in Game.__slots__ if name not in ("history", "_out")
        )

    def __eq__(self, other: object) -> bool:
        return isinstance(other, Game) and self.state_key() == other.state_key()

    __hash__ = None  # type: ignore[assignment]  # mutable

    # ------------------------------------------------------------------ action handlers

    def _check_turn(self, seat: int) -> None:
        if seat >= self.players:
            raise IllegalAction(Code.NO_SUCH_SEAT, f"this game has no seat {seat}")
        if seat != self.active:
            raise IllegalAction(
                Code.NOT_YOUR_TURN,
                f"it is seat {self.active}'s turn, not seat {seat}'s",
                clause="T8",
            )

    def _step(self, action: Step) -> None:
        seat = action.seat
        self._check_turn(seat)
        if self.phase != MOVE:
            raise IllegalAction(Code.MOVEMENT_OVER, "the taxi has stopped", clause="T5")
        here = self.taxis[seat]
        to = action.to
        if len(self.path) >= self._allowances[self.deadline]:
            raise IllegalAction(
                Code.ALLOWANCE_EXCEEDED, f"only {self.allowance()} steps this turn", clause="T1"
            )
        if to not in NEIGHBOURS[here]:
            raise IllegalAction(Code.NOT_ADJACENT, f"{to} is not next to {here}", clause="T3")
        if to == self.turn_start:
            raise IllegalAction(Code.START_AREA, f"the taxi began this turn on {to}", clause="T3")
        if to in self.taxis:
            raise IllegalAction(Code.AREA_OCCUPIED, f"another taxi is on {to}", clause="T3")
        self.taxis[seat] = to
        self.path.append(to)
        self.stepped = True
        self._out.append({"type": "taxi_moved", "seat": seat, "from": here, "to": to})

    def _undo(self, action: Undo) -> None:
        seat = action.seat
        self._check_turn(seat)
        if self.phase != MOVE:
            raise IllegalAction(
                Code.MOVEMENT_OVER, "nothing after the stop can be undone", clause="T4"
            )
        if not self.path:
            raise IllegalAction(Code.NOTHING_TO_UNDO, "no step to take back", clause="T4")
        if self.undos >= UNDO_LIMIT:
            raise IllegalAction(
                Code.UNDO_LIMIT, f"at most {UNDO_LIMIT} undos per turn", clause="T4"
            )
        left = self.path.pop()
        back = self.path[-1] if self.path else self.turn_start
        self.taxis[seat] = back
        self.undos += 1
        self._out.append({"type": "move_undone", "seat": seat, "from": left, "to": back})

    def _stop(self, action: Stop) -> None:
        seat = action.seat
        self._check_turn(seat)
        if self.phase != MOVE:
            raise IllegalAction(Code.MOVEMENT_OVER, "the taxi has already stopped", clause="T5")
        if not self.path:
            raise IllegalAction(
                Code.STEP_REQUIRED, "the first step of a turn is mandatory", clause="T3"
            )
        here = self.taxis[seat]
        riding = self.passengers[seat]
        if any(c[1] == here for c in riding):
            staying: list[Citizen] = []
            for citizen in riding:
                if citizen[1] == here:
                    fare = DISTANCE[citizen[0]][here]
                    self.income[seat] += fare
                    self.discard.extend(citizen)
                    self._out.append(
                        {
                            "type": "passenger_dropped_off",
                            "seat": seat,
                            "area": here,
                            "origin": citizen[0],
                            "destination": here,
                            "fare": fare,
                        }
                    )
                else:
                    staying.append(citizen)
            self.passengers[seat] = staying
        self.phase = PICKUP
        if not self.pickup_choices():
            self._end_turn()

    def _pickup(self, action: Pickup) -> None:
        seat = action.seat
        self._check_turn(seat)
        if self.phase == MOVE:
            if not self.options.pickup_before_movement:
                raise IllegalAction(
                    Code.PICKUP_NOT_ALLOWED, "pickups happen at the stop", clause="T5"
                )
            if self.stepped:
                raise IllegalAction(
                    Code.PICKUP_NOT_ALLOWED,
                    "no pre-movement pickup once the taxi has moved this turn",
                    clause="T2",
                )
            if len(self.pile) < 2:
                raise IllegalAction(
                    Code.PICKUP_NOT_ALLOWED,
                    "no pre-movement pickup once the draw pile is exhausted",
                    clause="T2",
                )
        here = self.taxis[seat]
        destination = action.destination
        waiting = self.waiting
        for index, citizen in enumerate(waiting):  # noqa: B007 - used after the loop
            if citizen[0] == here and citizen[1] == destination:
                break
        else:
            raise IllegalAction(
                Code.NO_SUCH_CITIZEN,
                f"nobody waits on {here} to go to {destination}",
                clause="T5",
            )
        refused = self.may_pick_up(seat)
        if refused is not None:
            raise IllegalAction(Code.PICKUP_NOT_ALLOWED, _PICKUP_LIMITS[refused], clause=refused)
        del waiting[index]
        self.passengers[seat].append(citizen)
        self._out.append(
            {
                "type": "citizen_picked_up",
                "seat": seat,
                "area": here,
                "origin": here,
                "destination": destination,
            }
        )
        self._draw_citizen()  # T6
        if len(waiting) <= FEW_WAITING and self.deadline < 2:
            self._reach_deadline(2, "waiting")
        if not waiting:
            self._end_turn()  # G1: nothing more is played
        elif self.phase == PICKUP and not self.pickup_choices():
            self._end_turn()

    def _decline(self, action: Decline) -> None:
        self._check_turn(action.seat)
        if self.phase != PICKUP:
            raise IllegalAction(
                Code.NOT_PICKING_UP, "there is nothing to decline before the stop", clause="P4"
            )
        self._end_turn()

    def _pass(self, action: Pass) -> None:
        self._check_turn(action.seat)
        if self.phase != MOVE or self.stepped or not self._blocked():
            raise IllegalAction(Code.NOT_BLOCKED, "the taxi can move", clause="T7")
        self._pass_turn()

    def _turn(self, action: Turn) -> None:
        self._check_turn(action.seat)
        trial = self.clone()  # all or nothing
        trial._out = []
        seat, turn = action.seat, self.turn
        for destination in action.pickups_before:
            trial._pickup(Pickup(seat, destination))
        if action.steps:
            for to in action.steps:
                trial._step(Step(seat, to))
            trial._stop(Stop(seat))
        elif trial.phase != OVER:
            trial._pass(Pass(seat))
        leftover = list(action.pickups)
        while leftover and trial.turn == turn and trial.phase == PICKUP:
            trial._pickup(Pickup(seat, leftover.pop(0)))
        if leftover:
            raise IllegalAction(
                Code.PICKUP_NOT_ALLOWED, "the turn ended before these pickups", clause="T5"
            )
        if trial.turn == turn and trial.phase == PICKUP:
            trial._decline(Decline(seat))
        if trial.turn == turn and trial.phase == MOVE:
            raise IllegalAction(Code.STEP_REQUIRED, "the turn is not complete", clause="T3")
        self._adopt(trial)

    def _adopt(self, trial: Game) -> None:
        out = self._out
        out.extend(trial._out)
        for name in Game.__slots__:
            if name not in ("history", "_out"):
                setattr(self, name, getattr(trial, name))

    def _timeout(self, action: Timeout) -> None:
        seat = action.seat
        self._check_turn(seat)
        self.timeouts[seat] += 1
        self._out.append({"type": "turn_timed_out", "seat": seat, "count": self.timeouts[seat]})
        if self.timeouts[seat] >= TIMEOUTS_TO_ZOMBIE:
            self._make_zombie(seat, "timeouts")  # the automatic play finishes the turn
            return
        turn = self.turn
        while self.turn == turn and self.phase != OVER:
            _HANDLERS[type(a := autopilot_action(self))](self, a)

    def _zombify(self, action: Zombify) -> None:
        self._check_seat(action.seat)
        if self.zombies[action.seat]:
            raise IllegalAction(Code.ALREADY_ZOMBIE, "the autopilot already plays this seat")
        self._make_zombie(action.seat, "moderator")

    def _resign(self, action: Resign) -> None:
        self._check_seat(action.seat)
        if self.zombies[action.seat]:
            raise IllegalAction(Code.ALREADY_ZOMBIE, "the autopilot already plays this seat")
        self._make_zombie(action.seat, "resigned")

    def _restore(self, action: Restore) -> None:
        seat = action.seat
        self._check_seat(seat)
        if not self.zombies[seat]:
            raise IllegalAction(Code.NOT_ZOMBIE, "this seat is not played by the autopilot")
        self.zombies[seat] = False
        self.timeouts[seat] = 0
        self._out.append({"type": "seat_restored", "seat": seat})

    def _deadline(self, action: Deadline) -> None:
        if self.deadline >= action.number:
            raise IllegalAction(
                Code.DEADLINE_ALREADY_REACHED,
                f"deadline {action.number} has already been reached",
                clause="D3",
            )
        self._reach_deadline(action.number, "clock")

    def _abort(self, action: Abort) -> None:
        self.phase = OVER
        self.aborted = action.reason
        self._out.append({"type": "game_aborted", "reason": action.reason})

    # ------------------------------------------------------------------ rule machinery

    def _check_seat(self, seat: int) -> None:
        if seat >= self.players:
            raise IllegalAction(Code.NO_SUCH_SEAT, f"this game has no seat {seat}")

    def _make_zombie(self, seat: int, reason: Literal["timeouts", "moderator", "resigned"]) -> None:
        self.zombies[seat] = True
        self._out.append({"type": "seat_zombified", "seat": seat, "reason": reason})

    def _draw_citizen(self, *, announce: bool = True) -> Citizen | None:
        """C1: draw a citizen (discarding identical pairs); None if the pile is exhausted."""
        pile = self.pile
        out = self._out
        while len(pile) >= 2:
            origin = pile.pop()
            destination = pile.pop()
            if origin == destination:
                self.discard.append(origin)
                self.discard.append(destination)
                out.append(
                    {
                        "type": "cards_discarded",
                        "cards": [origin, destination],
                        "reason": "identical_pair",
                        "pile": len(pile),
                    }
                )
                if len(pile) < 2 and self.deadline < 1:
                    self._reach_deadline(1, "pile")
                continue
            citizen = (origin, destination)
            if announce:
                self.waiting.append(citizen)
                out.append(
                    {
                        "type": "citizen_added",
                        "origin": origin,
                        "destination": destination,
                        "pile": len(pile),
                    }
                )
            if len(pile) < 2 and self.deadline < 1:
                self._reach_deadline(1, "pile")
            return citizen
        return None

    def _reach_deadline(self, number: int, cause: Literal["pile", "waiting", "clock"]) -> None:
        """D1–D4: latch deadlines up to `number`, recording each as it is reached."""
        for reached in range(self.deadline + 1, number + 1):
            self.deadline = reached
            self._out.append({"type": "deadline_reached", "number": reached, "cause": cause})

    def _start_turn(self) -> None:
        seat = self.active
        self.turn += 1
        self.phase = MOVE
        self.turn_start = self.taxis[seat]
        self.path = []
        self.stepped = False
        self.undos = 0
        self._out.append({"type": "turn_started", "seat": seat, "allowance": self.allowance()})

    def _pass_turn(self) -> None:
        self._out.append({"type": "turn_passed", "seat": self.active})
        self._end_turn()

    def _end_turn(self) -> None:
        seat = self.active
        self._out.append({"type": "turn_ended", "seat": seat})
        waiting = self.waiting
        if not waiting or (len(waiting) == 1 and not any(self.passengers)):  # G1, G2
            self._end_game()
            return
        self.active = (seat + 1) % self.players
        self._start_turn()

    def _end_game(self) -> None:
        """G3: rank by income; equal incomes share a rank."""
        self.phase = OVER
        incomes = tuple(self.income)
        ranking = tuple(
            tuple(seat for seat, income in enumerate(incomes) if income == value)
            for value in sorted(set(incomes), reverse=True)
        )
        self.result = Outcome(incomes, ranking)
        self._out.append({"type": "game_ended", **self.result.to_json()})

    def _play_automatic(self) -> None:
        """Play what needs no decision: blocked taxis pass (T7), zombies' turns (K3)."""
        automatic_turns = 0
        while self.phase != OVER:
            seat = self.active
            if self.zombies[seat]:
                if all(self.zombies):
                    automatic_turns += 1
                    if automatic_turns > ZOMBIE_TURN_LIMIT:
                        self._abort(Abort("the autopilot made no progress"))
                        return
                turn = self.turn
                while self.turn == turn and self.phase != OVER:
                    _HANDLERS[type(a := autopilot_action(self))](self, a)
            elif (
                self.phase == MOVE
                and not self.stepped
                and self._blocked()
                and not self.pickup_choices()
            ):
                self._pass_turn()
            else:
                return


_PICKUP_LIMITS: dict[str, str] = {
    "P1": "a taxi carries at most 3 passengers",
    "P2": "once the draw pile is exhausted, a taxi carrying 2 may not pick up a third",
    "P3": "while at most 4 citizens wait, only an empty taxi may pick up",
}

_PLAYER_TYPES = frozenset({Step, Undo, Stop, Pickup, Decline, Pass, Turn})

#: Each action type's handler (each takes its own type: the table's key says which)
_HANDLERS: dict[type, Callable[[Game, Any], None]] = {
    Step: Game._step,
    Undo: Game._undo,
    Stop: Game._stop,
    Pickup: Game._pickup,
    Decline: Game._decline,
    Pass: Game._pass,
    Turn: Game._turn,
    Timeout: Game._timeout,
    Zombify: Game._zombify,
    Resign: Game._resign,
    Restore: Game._restore,
    Deadline: Game._deadline,
    Abort: Game._abort,
}


def new_game(
    options: Options, players: int, seed: int, *, rules_version: str = RULES_VERSION
) -> tuple[Game, list[Notification]]:
    """Set a game up (S1–S7) and start the first turn; return it and its notifications."""
    check_players(options, players)
    if rules_version != RULES_VERSION:
        raise InvalidSetup(
            Code.UNSUPPORTED_RULES_VERSION,
            f"rules version {rules_version!r} is not supported; this engine plays "
            f"{RULES_VERSION!r}",
        )
    rng = Rng(seed)
    game = Game.__new__(Game)
    game.rules_version = rules_version
    game.options = options
    game.players = players
    game.seed = seed
    out: list[Notification] = []
    game._out = out
    game._allowances = ALLOWANCE[options.movement]

    game.seat_players = seat_players = seat_order(rng, players)  # S3

    pile = list(AREAS) * (2 if players >= 5 else 1)  # S1
    rng.shuffle(pile)  # S4; the end of the list is the top of the pile
    game.pile = pile
    game.discard = []
    game.deadline = 0
    taxis: list[str] = []
    for _ in range(players):  # S4
        set_aside: list[str] = []
        card = pile.pop()
        while card in taxis:  # only possible with two decks
            set_aside.append(card)
            card = pile.pop()
        taxis.append(card)
        game.discard.append(card)
        if set_aside:
            pile.extend(set_aside)
            rng.shuffle(pile)
    game.taxis = taxis
    if players == 3:  # S5
        card = pile.pop()
        game.discard.append(card)
        out.append(
            {
                "type": "cards_discarded",
                "cards": [card],
                "reason": "three_players",
                "pile": len(pile),
            }
        )
    game.waiting = []
    game.passengers = [[] for _ in range(players)]
    if options.shift_change:  # S6
        for seat in range(players):
            for _ in range(SHIFT_PASSENGERS):
                citizen = game._draw_citizen(announce=False)
                if citizen is not None:
                    game.passengers[seat].append(citizen)
    for _ in range(INITIAL_CITIZENS):  # S7
        citizen = game._draw_citizen(announce=False)
        if citizen is not None:
            game.waiting.append(citizen)
    game.income = [0] * players
    game.zombies = [False] * players
    game.timeouts = [0] * players
    game.result = None
    game.aborted = None
    game.history = []
    game.turn = 0
    game.active = 0
    out.append(
        {
            "type": "game_started",
            "seats": [
                {"seat": s, "area": taxis[s], "player": seat_players[s]} for s in range(players)
            ],
            "passengers": [[citizen_json(c) for c in riding] for riding in game.passengers],
            "waiting": [citizen_json(c) for c in game.waiting],
            "pile": len(pile),
        }
    )
    game._start_turn()
    game._play_automatic()
    game._out = None  # type: ignore[assignment]
    return game, out
