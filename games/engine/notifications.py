"""The shapes of what the engine says: notifications (CONTRACT.md's vocabulary, and the server
actions' own types) and the JSON of a citizen, a result and the options.

Types only: `Game.apply` and `new_game` build plain dicts, which these describe (a
`Notification` is one of the dicts below, told apart by its `type`).
"""

from __future__ import annotations

from typing import Literal, TypedDict


class CitizenJson(TypedDict):
    origin: str
    destination: str


class Result(TypedDict):
    """G3: each seat's income, and the seats by rank (best first, ties share a rank): the
    JSON of a game's `Outcome` (`Outcome.to_json()`)."""

    incomes: list[int]
    ranking: list[list[int]]


class OptionsJson(TypedDict):
    shift_change: bool
    pickup_before_movement: bool
    movement: str


class StartingSeat(TypedDict):
    seat: int
    area: str
    player: int  # index of the seat's player in joining order (S3)


class GameStarted(TypedDict):
    type: Literal["game_started"]
    seats: list[StartingSeat]
    passengers: list[list[CitizenJson]]  # per seat
    waiting: list[CitizenJson]
    pile: int


class TurnStarted(TypedDict):
    type: Literal["turn_started"]
    seat: int
    allowance: int


TaxiMoved = TypedDict(
    "TaxiMoved", {"type": Literal["taxi_moved"], "seat": int, "from": str, "to": str}
)
#: `to`: the area the taxi is back on
MoveUndone = TypedDict(
    "MoveUndone", {"type": Literal["move_undone"], "seat": int, "from": str, "to": str}
)


class PassengerDroppedOff(TypedDict):
    type: Literal["passenger_dropped_off"]
    seat: int
    area: str
    origin: str
    destination: str
    fare: int


class CitizenPickedUp(TypedDict):
    type: Literal["citizen_picked_up"]
    seat: int
    area: str
    origin: str
    destination: str


class CitizenAdded(TypedDict):
    type: Literal["citizen_added"]
    origin: str
    destination: str
    pile: int  # cards left after the draw


class DeadlineReached(TypedDict):
    type: Literal["deadline_reached"]
    number: int  # 1 or 2
    cause: Literal["pile", "waiting", "clock"]


class TurnPassed(TypedDict):
    type: Literal["turn_passed"]
    seat: int


class TurnEnded(TypedDict):
    type: Literal["turn_ended"]
    seat: int


class CardsDiscarded(TypedDict):
    type: Literal["cards_discarded"]
    cards: list[str]
    reason: Literal["three_players", "identical_pair"]
    pile: int


class GameEnded(TypedDict):
    type: Literal["game_ended"]
    incomes: list[int]
    ranking: list[list[int]]


class TurnTimedOut(TypedDict):
    type: Literal["turn_timed_out"]
    seat: int
    count: int  # timeouts in a row (K3)


class SeatZombified(TypedDict):
    type: Literal["seat_zombified"]
    seat: int
    reason: Literal["timeouts", "moderator", "resigned"]


class SeatRestored(TypedDict):
    type: Literal["seat_restored"]
    seat: int


class GameAborted(TypedDict):
    type: Literal["game_aborted"]
    reason: str


Notification = (
    GameStarted
    | TurnStarted
    | TaxiMoved
    | MoveUndone
    | PassengerDroppedOff
    | CitizenPickedUp
    | CitizenAdded
    | DeadlineReached
    | TurnPassed
    | TurnEnded
    | CardsDiscarded
    | GameEnded
    | TurnTimedOut
    | SeatZombified
    | SeatRestored
    | GameAborted
)
