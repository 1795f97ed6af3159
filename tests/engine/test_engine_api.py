"""The engine's public API: actions and their JSON, errors, setup checks, purity, replay."""

import gc
import json
import subprocess
import sys

import pytest

from games.engine import (
    ACTION_TYPES,
    Code,
    IllegalAction,
    InvalidSetup,
    MalformedAction,
    Options,
    Setup,
    Step,
    Turn,
    autopilot_action,
    decode_action,
    encode_action,
    new_game,
    replay,
    start,
)


def test_the_engine_imports_alone_without_django_drf_channels_or_celery():
    code = (
        "import sys, games.engine\n"
        "games.engine.new_game(games.engine.Options(), 2, 1)\n"
        "bad = {'django', 'rest_framework', 'channels', 'celery', 'redis', 'kombu'}\n"
        "print(sorted(bad & {m.split('.')[0] for m in sys.modules}))\n"
    )
    out = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, check=True)
    assert out.stdout.strip() == "[]"


@pytest.mark.parametrize(
    "data",
    [
        None,
        [],
        "step",
        {},
        {"type": "fly"},
        {"type": 3},
        {"type": "step", "seat": 0},
        {"type": "step", "seat": 0, "to": "1Z"},
        {"type": "step", "seat": "0", "to": "9H"},
        {"type": "step", "seat": True, "to": "9H"},
        {"type": "step", "seat": -1, "to": "9H"},
        {"type": "step", "seat": 0, "to": ["9H"]},
        {"type": "step", "seat": 0, "to": "9H", "extra": 1},
        {"type": "turn", "seat": 0, "steps": "9H"},
        {"type": "turn", "seat": 0, "steps": ["9H"] * 8},
        {"type": "deadline", "number": 3},
        {"type": "abort", "reason": ""},
        {"type": "abort", "reason": "x" * 201},
    ],
)
def test_malformed_actions_are_refused_with_field_errors(data):
    with pytest.raises(MalformedAction) as error:
        decode_action(data)
    assert error.value.code == Code.MALFORMED_ACTION
    body = error.value.as_dict()
    assert body["code"] == "malformed_action" and body["errors"]


def test_malformed_and_illegal_are_different_errors():
    game, _ = new_game(Options(), 2, 1)
    before = game.clone()
    with pytest.raises(MalformedAction):
        game.apply({"type": "step", "seat": 0})
    with pytest.raises(IllegalAction) as error:
        game.apply({"type": "step", "seat": 1, "to": "9H"})
    assert error.value.as_dict() == {
        "code": "not_your_turn",
        "clause": "T8",
        "message": error.value.message,
    }
    assert game == before


def test_every_action_type_round_trips_through_json():
    game, _ = new_game(Options(pickup_before_movement=True), 5, 9)
    seen = set()
    while not game.over:
        for action in game.legal_actions():
            data = json.loads(json.dumps(encode_action(action)))
            assert decode_action(data) == action
            seen.add(action.type)
        game.apply(autopilot_action(game))
    samples = [
        {"type": "turn", "seat": 1, "steps": ["9H"], "pickups": ["5D"], "pickups_before": []},
        {"type": "timeout", "seat": 0},
        {"type": "pass", "seat": 3},
        {"type": "zombify", "seat": 2},
        {"type": "restore", "seat": 2},
        {"type": "resign", "seat": 1},
        {"type": "deadline", "number": 2},
        {"type": "abort", "reason": "cheating"},
    ]
    for data in samples:
        assert encode_action(decode_action(data)) == data
        seen.add(data["type"])
    assert seen == set(ACTION_TYPES)


def test_turn_lists_default_to_empty():
    assert decode_action({"type": "turn", "seat": 0, "steps": ["9H"]}) == Turn(0, ("9H",))


@pytest.mark.parametrize(
    ("options", "players", "code"),
    [
        (Options(), 1, Code.INVALID_PLAYERS),
        (Options(), 9, Code.INVALID_PLAYERS),
        (Options(), 5, Code.PICKUP_BEFORE_MOVEMENT_REQUIRED),
        (Options(), "4", Code.INVALID_PLAYERS),
    ],
)
def test_setup_refuses_bad_player_counts(options, players, code):
    with pytest.raises(InvalidSetup) as error:
        new_game(options, players, 1)
    assert error.value.code == code


@pytest.mark.parametrize(
    "data",
    [
        {"movement": "slow"},
        {"shift_change": 1},
        {"colour": "red"},
        [],
    ],
)
def test_setup_refuses_bad_options(data):
    with pytest.raises(InvalidSetup) as error:
        Options.from_json(data)
    assert error.value.code == Code.INVALID_OPTIONS


def test_options_round_trip():
    options = Options(shift_change=True, pickup_before_movement=True, movement="faster")
    assert Options.from_json(options.to_json()) == options


def test_rules_version_is_stored_and_unknown_versions_are_refused():
    game, _ = new_game(Options(), 2, 1)
    assert game.rules_version == "1"
    with pytest.raises(InvalidSetup) as error:
        start(Setup(Options(), 2, 1, rules_version="0"))
    assert error.value.code == Code.UNSUPPORTED_RULES_VERSION


def test_replay_rebuilds_the_same_game_from_json_actions():
    setup = Setup(Options(movement="fast", shift_change=True), 3, 42)
    game, _ = start(setup)
    while not game.over:
        game.apply(autopilot_action(game))
    stored = json.loads(json.dumps([encode_action(a) for a in game.history]))
    assert replay(setup, stored) == game
    assert Setup.from_json(json.loads(json.dumps(setup.to_json()))) == setup


def test_replayed_games_share_their_common_actions():
    """A replayed game's steps, stops, pickups, undos, declines and passes are objects made
    once and shared by every game (they are frozen): what a server keeps of a long game holds
    no object of its own per entry, so the garbage collector's walk does not grow with it."""
    setup = Setup(Options(), 4, 11)
    game, _ = start(setup)
    while not game.over:
        game.apply(autopilot_action(game))
    stored = json.loads(json.dumps([encode_action(a) for a in game.history]))
    one = replay(setup, stored)
    other = replay(setup, json.loads(json.dumps(stored)))
    assert one == game
    common = {"step", "stop", "pickup", "undo", "decline", "pass"}
    shared = [a is b for a, b in zip(one.history, other.history, strict=True) if a.type in common]
    assert len(shared) > 100 and all(shared)
    kept = {id(a) for a in one.history if a.type in common}
    assert len(kept) < len(shared) / 2  # a game repeats its actions: each is held once
    assert decode_action({"type": "step", "seat": 0, "to": "9H"}) == Step(0, "9H")


def test_a_frozen_copy_leaves_the_garbage_collector_almost_nothing_to_walk():
    """What a server keeps of each game it serves is a frozen copy: once the collector has seen
    it, it walks three objects of it (the game, its options and its history's tuple of shared
    actions), however long the game; lists would be walked in every full collection."""
    game, _ = new_game(Options(movement="fast"), 4, 5)
    while len(game.history) < 150:
        game.apply(autopilot_action(game))
    kept = game.frozen()
    gc.collect()
    gc.collect()  # a tuple of tuples is untracked once its items are
    walked = [o for o in gc.get_referents(kept) if gc.is_tracked(o) and not isinstance(o, type)]
    assert sorted(type(o).__name__ for o in walked) == ["Options", "tuple"]
    assert kept.clone() == game and kept.clone().history == game.history
    kept.clone().apply(autopilot_action(game))
    assert kept.clone() == game


def test_clone_is_independent():
    game, _ = new_game(Options(), 2, 3)
    copy = game.clone()
    game.apply(Step(0, game.step_choices()[0]))
    assert copy != game and copy.path == [] and copy.history == []


def test_legal_actions_come_in_a_fixed_order():
    game, _ = new_game(Options(movement="faster"), 4, 8)
    steps = [a.to for a in game.legal_actions() if isinstance(a, Step)]
    from games.engine.board import AREA_INDEX

    assert steps == sorted(steps, key=AREA_INDEX.__getitem__)
