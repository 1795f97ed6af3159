"""Property tests: random tables, random seeds, random or autopilot play (RULES.md clause ids in
every test's name or docstring).

Every game is played through `invariants.play_checked`, which runs the referee (the rules
checked from the notifications alone) and the state checks after every single action. The
random policy draws from a `random.Random` seeded by Hypothesis, never from the global random,
so a failing example replays exactly.
"""

from __future__ import annotations

import json
import random
from dataclasses import fields

from hypothesis import HealthCheck, Phase, event, given, note, settings
from hypothesis import strategies as st

from games.engine import (
    ACTION_TYPES,
    AREAS,
    NEIGHBOURS,
    Deadline,
    Decline,
    EngineError,
    Game,
    IllegalAction,
    MalformedAction,
    Pass,
    Pickup,
    Resign,
    Restore,
    Setup,
    Step,
    Stop,
    Timeout,
    Turn,
    Undo,
    Zombify,
    autopilot_action,
    decode_action,
    encode_action,
    full_view,
    player_view,
    public_view,
    replay,
    replay_notifications,
    seed_commitment,
    start,
    verify,
)
from tests.engine.invariants import (
    COMBINATIONS,
    InvariantViolation,
    check_state,
    play_checked,
)
from tests.engines import assert_frozen_copy_plays_on

K4_TURNS = 3000

# Not derandomized: each run explores new games, and the database under .hypothesis/ replays
# any failure found. No shrinking: an example is a table and two seeds, so a "smaller" seed is
# not a simpler game, and shrinking whole games would take minutes.
_PHASES = (Phase.explicit, Phase.reuse, Phase.generate)
FAST = settings(deadline=None, max_examples=100, phases=_PHASES,
                suppress_health_check=[HealthCheck.too_slow])  # fmt: skip
SLOW = settings(deadline=None, max_examples=40, phases=_PHASES,
                suppress_health_check=[HealthCheck.too_slow])  # fmt: skip

seeds = st.integers(min_value=0, max_value=2**128 - 1)  # server seeds are 128 random bits
setups = st.builds(lambda table, seed: Setup(table[1], table[0], seed),
                   st.sampled_from(COMBINATIONS), seeds)  # fmt: skip
policies = st.sampled_from(["random", "autopilot"])
choice_seeds = st.integers(min_value=0, max_value=2**32 - 1)


# ---------------------------------------------------------------------- policies


def random_policy(rng: random.Random, *, undo: bool = True):
    """Uniform over `legal_actions()` (steps, undo, stop, pickups, decline, pass)."""

    def choose(game: Game):
        legal = game.legal_actions()
        if not undo:
            legal = [a for a in legal if not isinstance(a, Undo)]
        return legal[rng.randrange(len(legal))]

    return choose


def policy_for(name: str, rng: random.Random, *, undo: bool = True):
    return autopilot_action if name == "autopilot" else random_policy(rng, undo=undo)


def whole_turn(game: Game, choose) -> tuple[Turn, Game, list[dict]]:
    """Play the active seat's turn with `choose` on a clone, one action at a time; return the
    same turn as one `turn` action (T5 Decision), the clone and the notifications it made."""
    trial = game.clone()
    seat, turn = game.active, game.turn
    before, steps, after, out = [], [], [], []
    while not trial.over and trial.turn == turn:
        action = choose(trial)
        if isinstance(action, Pickup):
            (after if steps else before).append(action.destination)
        elif isinstance(action, Step):
            steps.append(action.to)
        elif isinstance(action, Undo):
            steps.pop()
        out.extend(trial.apply(action))
    return Turn(seat, tuple(steps), tuple(after), tuple(before)), trial, out


class Interrupting:
    """A policy that now and then does what the server does (K2 timeouts, K3 zombies and
    resignations, D4 clock deadlines) or submits the whole turn as one `turn` action (T5),
    checking that the turn action gives exactly the game and notifications of its parts."""

    def __init__(self, base, builder, rng: random.Random, *, server_rate=0.02, turn_rate=0.2):
        self.base, self.builder, self.rng = base, builder, rng
        self.server_rate, self.turn_rate = server_rate, turn_rate
        self.expected: tuple[Game, list[dict]] | None = None

    def __call__(self, game: Game):
        rng = self.rng
        if rng.random() < self.server_rate:
            return self._server_action(game)
        if not game.stepped and game.phase == "move" and rng.random() < self.turn_rate:
            action, trial, out = whole_turn(game, self.builder)
            self.expected = (trial, out)
            return action
        return self.base(game)

    def _server_action(self, game: Game):
        rng = self.rng
        roll = rng.random()
        zombies = [s for s in range(game.players) if game.zombies[s]]
        humans = [s for s in range(game.players) if not game.zombies[s]]
        if roll < 0.5:
            return Timeout(game.active)
        if roll < 0.65 and game.deadline < 2:
            return Deadline(rng.randint(game.deadline + 1, 2))
        if roll < 0.9 and zombies:
            return Restore(rng.choice(zombies))
        if roll < 0.95:
            return Zombify(rng.choice(humans))
        return Resign(rng.choice(humans))

    def check(self, game: Game, action, out: list[dict]) -> None:
        if self.expected is None:
            return
        trial, expected_out = self.expected
        self.expected = None
        if out != expected_out:
            raise InvariantViolation(
                f"T5: the turn action {action} made other notifications than its parts"
            )
        if game != trial:
            raise InvariantViolation(f"T5: the turn action {action} left another game")


def make_player(policy: str, choice_seed: int, interrupt: bool):
    rng = random.Random(choice_seed)
    base = policy_for(policy, rng)
    if not interrupt:
        return base, None
    player = Interrupting(base, policy_for(policy, rng, undo=False), rng)
    return player, player.check


def play(setup, policy, choice_seed, interrupt=False, *, max_turns=2000, after_action=None):
    choose, check = make_player(policy, choice_seed, interrupt)

    def after(game, action, out):
        if check is not None:
            check(game, action, out)
        if after_action is not None:
            after_action(game, action, out)

    note(f"setup={setup} policy={policy} choice_seed={choice_seed} interrupt={interrupt}")
    game, log, referee = play_checked(setup, choose, max_turns=max_turns, after_action=after)
    for situation in referee.events:  # --hypothesis-show-statistics lists what was reached
        event(situation)
    event("finished" if game.over else "cut off")
    return game, log, referee


# ---------------------------------------------------------------------- the rules, action by action


@SLOW
@given(setup=setups, policy=policies, choice_seed=choice_seeds, interrupt=st.booleans())
def test_every_action_keeps_the_rules_S1_S7_C1_T1_T8_P1_P4_D1_D4_G1_G3_K2_K3(
    setup, policy, choice_seed, interrupt
):
    """After every action: taxis on distinct areas (T3), at most 3 passengers (P1), the cards
    conserved (S1), incomes = Σ fares = Σ distances (T5), each pickup within P1–P3 on the state
    just before it and pre-movement pickups only before the first step (T2), the contract's
    order (turn_started … turn_ended, one game_ended, last), the ranking by incomes (G3).
    With `interrupt`, timeouts, zombies, clock deadlines and whole-turn actions are mixed in."""
    game, log, referee = play(setup, policy, choice_seed, interrupt)
    if game.over and game.aborted is None:
        assert referee.result == game.result.to_json()
        assert tuple(sum(f) for f in referee.fares) == game.result.incomes


@FAST
@given(setup=setups, zombies=st.booleans())
def test_autopilot_games_always_end_K4(setup, zombies):
    """K4: a game played by the autopilot alone ends within 3000 turns, also as a game of
    zombies played inside a single action (and is never cut off by the engine's safety net)."""
    if zombies:
        game, log, _ = play_checked(setup, _zombify_everyone, max_turns=K4_TURNS)
        assert len(game.history) == setup.players
    else:
        game, log, _ = play_checked(setup, autopilot_action, max_turns=K4_TURNS)
    assert game.over, f"K4: still running after {game.turn} turns"
    assert game.aborted is None, f"K4: aborted: {game.aborted}"
    assert game.turn <= K4_TURNS
    assert log[-1][-1]["type"] == "game_ended"


def _zombify_everyone(game: Game):
    return Zombify(next(s for s in range(game.players) if not game.zombies[s]))


@SLOW
@given(setup=setups, choice_seed=choice_seeds)
def test_a_turn_action_equals_its_parts_T5(setup, choice_seed):
    """T5 Decision: a whole turn submitted at once gives exactly the notifications and the game
    of the same turn played action by action (pickups not listed are declined)."""
    rng = random.Random(choice_seed)
    player = Interrupting(
        random_policy(rng), random_policy(rng, undo=False), rng, server_rate=0, turn_rate=0.5
    )
    play_checked(setup, player, max_turns=300, after_action=player.check)


# ---------------------------------------------------------------------- replay and verification


@SLOW
@given(
    setup=setups, policy=policies, choice_seed=choice_seeds, interrupt=st.booleans(),
    max_turns=st.sampled_from([10, 200, 2000]),
)  # fmt: skip
def test_the_log_replays_to_the_same_game_S2_H2(setup, policy, choice_seed, interrupt, max_turns):
    """S2: (setup, log) replays to the same game — also through JSON — and to the same
    notifications; H2: the seed commitment and the log verify; the seed is revealed at the end."""
    game, log, _ = play(setup, policy, choice_seed, interrupt, max_turns=max_turns)
    history = list(game.history)

    assert replay(setup, history) == game
    stored = json.loads(json.dumps([encode_action(a) for a in history]))
    assert replay(setup, stored) == game
    assert replay(Setup.from_json(json.loads(json.dumps(setup.to_json()))), stored) == game
    assert replay_notifications(setup, stored) == log

    commitment = seed_commitment(setup.seed)
    assert verify(commitment, setup, stored, log)
    assert not verify(seed_commitment(setup.seed + 1), setup, stored, log)
    if len(log) > 1:
        tampered = [list(part) for part in log]
        tampered[-1] = tampered[-1][:-1] or [{"type": "turn_ended", "seat": -1}]
        assert not verify(commitment, setup, stored, tampered)

    if game.over:
        assert full_view(game)["seed"] == setup.seed
        assert full_view(game)["secret"]["seed"] == setup.seed
        assert public_view(game)["seed"] == setup.seed


@SLOW
@given(setup=setups, policy=policies, choice_seed=choice_seeds, cut=st.floats(0, 1))
def test_a_frozen_copy_plays_on_as_the_game_did_S2(setup, policy, choice_seed, cut):
    """S2 for what a server keeps of a game: a frozen copy (`frozen()`), taken at any point,
    cloned, plays the rest of the log to the same game and notifications; playing on the game
    or on a clone leaves the copy as it was."""
    game, log, _ = play(setup, policy, choice_seed, max_turns=200)
    assert_frozen_copy_plays_on(replay, setup, game, log, round(cut * len(game.history)))


# ---------------------------------------------------------------------- hidden information


def _keys(value):
    if isinstance(value, dict):
        for key, inner in value.items():
            yield key
            yield from _keys(inner)
    elif isinstance(value, list):
        for inner in value:
            yield from _keys(inner)


def _with_pile_permuted(game: Game, rng: random.Random) -> Game | None:
    """A clone that differs from `game` only in the order of the draw pile (None if no other
    order exists)."""
    if len(set(game.pile)) < 2:
        return None
    other = game.clone()
    while other.pile == game.pile:
        rng.shuffle(other.pile)
    assert sorted(other.pile) == sorted(game.pile)
    return other


def _check_views_hide_secrets(game: Game, rng: random.Random) -> None:
    seats = [*range(game.players), None]
    views = {seat: player_view(game, seat) for seat in seats}
    views["public"] = public_view(game)
    for seat, view in views.items():
        keys = set(_keys(view))
        assert not keys & {"seed", "secret", "pile_order"}, f"H1: view {seat} has {keys}"
        text = json.dumps(view)
        if game.seed >= 2**32:  # a long seed cannot appear in a view by chance
            assert str(game.seed) not in text, f"H1: view {seat} shows the seed"
    other = _with_pile_permuted(game, rng)
    if other is None:
        return
    for seat in seats:
        assert player_view(game, seat) == player_view(other, seat), f"H1: seat {seat}'s view"
    assert public_view(game) == public_view(other)
    # Errors too: refusing an action must not depend on the pile's order.
    for action in (Step(game.active, AREAS[0]), Pickup(game.active, AREAS[-1]),
                   Undo(game.active), Decline(game.active), Pass(game.active)):  # fmt: skip
        errors = []
        for table in (game.clone(), other.clone()):
            try:
                table.apply(action)
                errors.append(None)
            except IllegalAction as error:
                errors.append(error.as_dict())
        assert errors[0] == errors[1], f"H1: {action} is refused differently: {errors}"


#: The costly per-state checks below look at every state of a window of turns that starts
#: anywhere from the first turn to deep in the end game (the pile exhausted, few waiting).
WINDOW = 25
windows = st.integers(min_value=1, max_value=150)


@SLOW
@given(setup=setups, policy=policies, choice_seed=choice_seeds, interrupt=st.booleans(),
       window=windows)  # fmt: skip
def test_views_hide_the_pile_order_and_the_seed_while_the_game_runs_H1_H2(
    setup, policy, choice_seed, interrupt, window
):
    """H1: every player's and the spectator's view of a running game is the same whatever the
    order of the remaining pile, and no view has a seed or a secret; H2: the finished game's
    full view reveals the seed."""
    rng = random.Random(choice_seed ^ 0x5EED)

    def after(game, action, out):
        if not game.over and game.turn >= window:
            _check_views_hide_secrets(game, rng)

    game, _, _ = play(setup, policy, choice_seed, interrupt, max_turns=window + WINDOW,
                      after_action=after)  # fmt: skip
    if game.over:
        view = full_view(game)
        assert view["seed"] == view["secret"]["seed"] == setup.seed
        assert view["seed_commitment"] == seed_commitment(setup.seed)
    else:
        assert "secret" in full_view(game)  # moderators only, see views.py


# ---------------------------------------------------------------------- actions: codec and legality


@FAST
@given(setup=setups, policy=policies, choice_seed=choice_seeds,
       max_turns=st.integers(min_value=1, max_value=400))  # fmt: skip
def test_every_listed_action_survives_its_json_encoding(setup, policy, choice_seed, max_turns):
    """decode_action(encode_action(a)) == a for every action `legal_actions()` ever lists, also
    through a JSON string (the log and the API carry actions as JSON)."""
    seen = set()

    def after(game, action, out):
        for listed in [*game.legal_actions(), action]:
            if listed in seen:
                continue
            seen.add(listed)
            data = encode_action(listed)
            assert decode_action(data) == listed
            assert decode_action(json.loads(json.dumps(data))) == listed

    play(setup, policy, choice_seed, True, max_turns=max_turns, after_action=after)


_FIELDS = ("seat", "to", "destination", "steps", "pickups", "pickups_before", "number", "reason")
_json_scalars = (
    st.none() | st.booleans() | st.integers(-3, 9) | st.floats(allow_nan=False, width=32)
    | st.text(max_size=4) | st.sampled_from(AREAS) | st.sampled_from(sorted(ACTION_TYPES))
)  # fmt: skip
json_values = st.recursive(
    _json_scalars,
    lambda inner: (
        st.lists(inner, max_size=4)
        | st.dictionaries(st.sampled_from(_FIELDS) | st.text(max_size=4), inner, max_size=4)
    ),
    max_leaves=10,
)
#: Objects shaped like actions: a known type (or anything) and known fields with any value.
action_like = st.fixed_dictionaries(
    {"type": st.sampled_from(sorted(ACTION_TYPES)) | json_values},
    optional={
        name: st.integers(0, 8) | st.sampled_from([0.0, 1.0, 2.0]) | st.sampled_from(AREAS)
        | st.lists(st.sampled_from(AREAS)) | json_values
        for name in _FIELDS
    },
)  # fmt: skip
_areas = st.lists(st.sampled_from(AREAS), max_size=8).map(tuple)
#: Per field: the values a client should send, and near misses (1.0 for 1, True for 1, …).
_FIELD_VALUES = {
    "seat": st.integers(-1, 8) | st.sampled_from([0.0, 1.0, True]),
    "number": st.integers(0, 3) | st.sampled_from([1.0, 2.0, True]),
    "to": st.sampled_from(AREAS) | _json_scalars,
    "destination": st.sampled_from(AREAS) | _json_scalars,
    "steps": _areas | json_values,
    "pickups": _areas | json_values,
    "pickups_before": _areas | json_values,
    "reason": st.text(max_size=210) | _json_scalars,
}
#: Objects with exactly the fields of their type, each right or nearly right.
well_shaped = st.sampled_from(sorted(ACTION_TYPES)).flatmap(
    lambda kind: st.fixed_dictionaries(
        {"type": st.just(kind)}
        | {f.name: _FIELD_VALUES[f.name] for f in fields(ACTION_TYPES[kind])}
    )
)
any_json = well_shaped | action_like | json_values
FUZZ = settings(deadline=None, max_examples=400)  # cheap examples; shrinking kept


@FUZZ
@given(data=any_json)
def test_any_json_decodes_to_an_action_or_is_refused_as_malformed(data):
    """STYLE 8 / CONTRACT: whatever JSON a client sends, decode_action returns an action (that
    encodes back to itself) or raises MalformedAction with its stable code — never another
    exception (that would be a 500 instead of a 400)."""
    try:
        action = decode_action(data)
    except MalformedAction as error:
        assert error.code == "malformed_action"
        return
    assert type(action) in ACTION_TYPES.values()
    _assert_well_typed(action)
    assert decode_action(json.loads(json.dumps(encode_action(action)))) == action


def _assert_well_typed(action) -> None:
    """A decoded action holds exactly the types the engine computes with (1.0 is not 1)."""
    for f in fields(action):
        value = getattr(action, f.name)
        if f.name in ("seat", "number"):
            ok = type(value) is int and 0 <= value < 8 and (f.name == "seat" or value in (1, 2))
        elif f.name in ("to", "destination"):
            ok = type(value) is str and value in NEIGHBOURS
        elif f.name in ("steps", "pickups", "pickups_before"):
            ok = type(value) is tuple and all(type(a) is str and a in NEIGHBOURS for a in value)
        else:
            ok = type(value) is str and value
        assert ok, f"{action} holds {f.name}={value!r}"


_FUZZ_GAME, _ = start(Setup(COMBINATIONS[-1][1], COMBINATIONS[-1][0], 2024))


@FUZZ
@given(data=any_json)
def test_apply_takes_any_json_or_refuses_it_and_changes_nothing(data):
    """Game.apply's contract: it plays the action, or raises an EngineError (MalformedAction,
    IllegalAction) and changes nothing — for any value, as replay applies stored log entries."""
    game = _FUZZ_GAME.clone()
    try:
        game.apply(data)
    except EngineError:
        assert game == _FUZZ_GAME and game.history == _FUZZ_GAME.history
    else:
        check_state(game)


def _candidates(game: Game, rng: random.Random) -> list:
    """Player actions worth trying now: every listed one for every seat, steps to the
    neighbours and to random areas, pickups of every waiting destination and random ones."""
    seat = game.active
    here = game.taxis[seat]
    areas = {*NEIGHBOURS[here], *rng.sample(AREAS, 6), game.turn_start}
    destinations = {c[1] for c in game.waiting} | set(rng.sample(AREAS, 4))
    actions = {Undo(seat), Stop(seat), Pass(seat), Decline(seat)}
    actions |= {Step(seat, a) for a in areas} | {Pickup(seat, d) for d in destinations}
    others = [s for s in range(8) if s != seat]
    for action in game.legal_actions():
        actions.add(type(action)(rng.choice(others), *_fields_after_seat(action)))
    return sorted(actions, key=repr)


def _fields_after_seat(action) -> tuple:
    return tuple(getattr(action, f.name) for f in fields(action) if f.name != "seat")


def _assert_refused(game: Game, action) -> None:
    before = game.clone()
    history = list(game.history)
    try:
        game.apply(action)
    except IllegalAction:
        pass
    else:
        raise AssertionError(f"{action} is not listed by legal_actions() but was accepted")
    assert game == before, f"{action} was refused but changed the game"
    assert game.history == history


def _random_turn(game: Game, rng: random.Random) -> Turn:
    """A whole-turn action that may or may not be legal: a short walk (now and then a jump),
    pickups at its end and before it."""
    here, steps = game.taxis[game.active], []
    for _ in range(rng.randint(0, 4)):
        here = rng.choice(AREAS) if rng.random() < 0.15 else rng.choice(NEIGHBOURS[here])
        steps.append(here)
    waiting = [c[1] for c in game.waiting]
    after = [d for d in waiting if rng.random() < 0.3] + rng.sample(AREAS, rng.randint(0, 1))
    before = [c[1] for c in game.waiting if c[0] == game.taxis[game.active] and rng.random() < 0.5]
    return Turn(game.active, tuple(steps), tuple(after[:3]), tuple(before[:3]))


@SLOW
@given(setup=setups, policy=policies, choice_seed=choice_seeds, window=windows)
def test_listed_actions_apply_and_all_others_are_refused_unchanged_T1_T8(
    setup, policy, choice_seed, window
):
    """Every action `legal_actions()` lists applies on a clone and keeps the invariants; every
    other player action tried (steps anywhere, pickups of anyone, undo/stop/pass/decline out of
    place, any action for another seat — T1 T2 T3 T4 T5 T7 T8 P1–P4) raises IllegalAction and
    leaves the game exactly as it was. Server actions out of place are refused the same way;
    a random whole-turn action either applies or changes nothing (all or nothing)."""
    rng = random.Random(choice_seed ^ 0xC0FFEE)

    def after(game: Game, action, out):
        if game.over or game.turn < window:
            return
        legal = game.legal_actions()
        assert len(set(legal)) == len(legal), f"duplicates in {legal}"
        for listed in legal:
            trial = game.clone()
            trial.apply(listed)
            check_state(trial)
        for candidate in _candidates(game, rng):
            if candidate not in legal:
                _assert_refused(game, candidate)
        seat = game.active
        zombies = [s for s in range(game.players) if game.zombies[s]]
        humans = [s for s in range(game.players) if not game.zombies[s]]
        server = [Timeout((seat + 1) % game.players), Timeout(game.players),
                  Restore(rng.choice(humans))]  # fmt: skip
        server += [Deadline(n) for n in range(1, game.deadline + 1)]
        server += [Zombify(s) for s in zombies] + [Resign(s) for s in zombies]
        for action in server:
            _assert_refused(game, action)
        turn = _random_turn(game, rng)
        trial, before = game.clone(), game.clone()
        try:
            trial.apply(turn)
        except IllegalAction:
            assert trial == before, f"{turn} was refused but changed the game"
            assert trial.history == before.history
            event("a random turn action was refused")
        else:
            check_state(trial)
            event("a random turn action applied")

    play(setup, policy, choice_seed, True, max_turns=window + WINDOW, after_action=after)


# ---------------------------------------------------------------------- the checker can fail


def test_the_checker_catches_a_broken_game():
    """The invariant checks are not vacuous: a game with a taxi moved onto another's area, a
    fourth passenger, a lost card or a forged fare is caught."""
    from tests.engine.invariants import Referee

    setup = Setup(COMBINATIONS[0][1], COMBINATIONS[0][0], 1)
    game, log, _ = play_checked(setup, autopilot_action)

    broken = game.clone()
    broken.taxis[1] = broken.taxis[0]
    _assert_violation(lambda: check_state(broken), "T3")

    broken = game.clone()
    broken.passengers[0] = [("2S", "3S")] * 4
    _assert_violation(lambda: check_state(broken), "P1")

    broken = game.clone()
    broken.discard.pop()
    _assert_violation(lambda: check_state(broken), "S1")

    broken = game.clone()
    broken.discard[0], broken.discard[1] = broken.discard[1], "2S"  # a card forged, one lost
    if sorted(broken.discard) != sorted(game.discard):
        check_state(broken)  # the count alone still adds up ...
        _assert_violation(lambda: check_state(broken, thorough=True), "S1")  # ... not the cards

    forged = json.loads(json.dumps(log))
    for part in forged:
        for n in part:
            if n["type"] == "passenger_dropped_off":
                n["fare"] += 1
    forged = [n for part in forged for n in part]
    if any(n["type"] == "passenger_dropped_off" for n in forged):
        _assert_violation(lambda: Referee(setup.players, setup.options).feed_all(forged), "T5")
    swapped = [n for part in log for n in part]
    ended = next(i for i, n in enumerate(swapped) if n["type"] == "turn_ended")
    del swapped[ended]
    _assert_violation(lambda: Referee(setup.players, setup.options).feed_all(swapped), "contract")


def _assert_violation(run, clause: str) -> None:
    try:
        run()
    except InvariantViolation as error:
        assert str(error).startswith(clause), f"expected a {clause} violation, got {error}"
    else:
        raise AssertionError(f"a {clause} violation went unnoticed")
