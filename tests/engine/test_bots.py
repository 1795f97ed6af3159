"""Computer opponents: legal play over every option, no peeking at the pile (H1),
the same decision for the same bot seed, and `easy` = the autopilot (K2)."""

import ast
import itertools
import json
import subprocess
import sys
from pathlib import Path

import pytest

from games.engine import (
    AREAS,
    DISTANCE,
    Options,
    Setup,
    Step,
    Turn,
    autopilot_action,
    bots,
    full_view,
    player_view,
    public_view,
    start,
)
from games.engine.bots import LEVELS, STALL_TURNS_PER_PLAYER, choose, default_budget
from games.engine.bots.plans import plans, reachable
from games.engine.bots.worlds import unseen_cards, world
from games.engine.rng import Rng

OPTION_SETS = [
    Options(shift_change=shift, pickup_before_movement=before, movement=movement)
    for shift, before, movement in itertools.product(
        (False, True), (False, True), ("normal", "fast", "faster")
    )
]
#: The soak's strong bot plays with a tiny budget: legality does not depend on the budget.
SOAK_BUDGET = 2


def games_in_play(options, players, seed, every=7):
    """Positions of one autopilot game, every `every` actions, mid-turn ones included."""
    game, _ = start(Setup(options, players, seed))
    count = 0
    while not game.over:
        if count % every == 0:
            yield game
        game.apply(autopilot_action(game))
        count += 1


def plain(view):
    """The view as the server would send it: JSON, no reference back to the game."""
    return json.loads(json.dumps(view))


def test_the_bots_import_alone_and_read_no_clock_and_no_global_random():
    code = (
        "import sys, games.engine.bots\n"
        "bad = {'django', 'rest_framework', 'channels', 'celery', 'redis', 'openskill'}\n"
        "print(sorted(bad & {m.split('.')[0] for m in sys.modules}))\n"
    )
    out = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, check=True)
    assert out.stdout.strip() == "[]"
    allowed = {"__future__", "collections", "collections.abc", "dataclasses"}
    for source in Path(bots.__file__).parent.glob("*.py"):
        for node in ast.walk(ast.parse(source.read_text())):
            if isinstance(node, ast.Import):
                assert {alias.name for alias in node.names} <= allowed, source
            elif isinstance(node, ast.ImportFrom) and node.level == 0:
                assert node.module in allowed, source


@pytest.mark.parametrize("options", OPTION_SETS, ids=str)
def test_H1_a_world_rebuilt_from_a_view_equals_the_game_in_everything_public(options):
    players = 5 if options.pickup_before_movement else 3
    for game in games_in_play(options, players, seed=11):
        view = plain(player_view(game, game.active))
        assert unseen_cards(view) == sorted(game.pile)
        rebuilt = world(view, game.pile)
        expected = public_view(game)
        got = public_view(rebuilt)
        for name in ("seed_commitment",):  # a world has no seed: it is for searching only
            expected.pop(name), got.pop(name)
        assert got == expected
        assert rebuilt.legal_actions() == game.legal_actions()
        assert rebuilt.stepped == game.stepped


def test_H1_a_bot_refuses_the_full_view():
    game, _ = start(Setup(Options(), 2, 5))
    view = full_view(game)
    view["you"] = game.active
    with pytest.raises(ValueError):
        choose(view, seed=1, level="easy")


@pytest.mark.parametrize("level", LEVELS)
def test_H1_games_differing_only_in_the_hidden_pile_get_the_same_decision(level):
    """The decision receives no pile order and no seed: reorder the pile (the views stay equal)
    and the bot with the same seed decides the same; the rest of its decisions would follow the
    pile only through cards drawn in the open."""
    for players, options in ((2, Options()), (5, Options(pickup_before_movement=True))):
        for game in itertools.islice(games_in_play(options, players, seed=41, every=13), 5):
            other = game.clone()
            Rng(7, "test").shuffle(other.pile)
            seat = game.active
            assert other.pile != game.pile
            view, other_view = player_view(game, seat), player_view(other, seat)
            assert view == other_view and "secret" not in view and "seed" not in view
            for bot_seed in (1, 2):
                mine = choose(plain(view), seed=bot_seed, level=level, budget=4)
                theirs = choose(plain(other_view), seed=bot_seed, level=level, budget=4)
                assert mine == theirs
                other.clone().apply(theirs)  # and it is legal in both games
                game.clone().apply(mine)


@pytest.mark.parametrize("level", LEVELS)
def test_the_same_view_and_bot_seed_give_the_same_action(level):
    for game in itertools.islice(games_in_play(Options(movement="fast"), 3, seed=8), 10):
        view = plain(player_view(game, game.active))
        first = choose(view, seed=99, level=level, budget=4)
        assert all(choose(view, seed=99, level=level, budget=4) == first for _ in range(2))


def test_K2_easy_is_the_autopilot():
    for options in OPTION_SETS:
        players = 5 if options.pickup_before_movement else 2
        for game in games_in_play(options, players, seed=3, every=3):
            view = player_view(game, game.active)
            assert choose(view, seed=0, level="easy") == autopilot_action(game)


def test_K4_a_bot_that_has_played_too_long_plays_the_autopilot():
    game = next(itertools.islice(games_in_play(Options(), 2, seed=4), 3, None))
    view = plain(player_view(game, game.active))
    view["turn"] = STALL_TURNS_PER_PLAYER * 2 + 1
    assert choose(view, seed=1, level="strong") == autopilot_action(game)


def test_a_bot_chooses_only_for_the_seat_to_move():
    game, _ = start(Setup(Options(), 2, 5))
    with pytest.raises(ValueError):
        choose(player_view(game, 1 - game.active), seed=1)
    with pytest.raises(ValueError):
        choose(player_view(game, None), seed=1)
    with pytest.raises(ValueError):
        choose(player_view(game, game.active), seed=1, level="grandmaster")


@pytest.mark.slow
@pytest.mark.parametrize("options", OPTION_SETS, ids=str)
def test_bots_only_ever_play_legal_actions(options):
    """A soak over every option set and player count: every seat a bot (levels mixed), now and
    then a random legal action of the seat instead, so bots also meet positions they would not
    make (mid-move, the pickup phase, after an undo). `apply` raises on anything illegal."""
    index = OPTION_SETS.index(options)
    counts = [2 + index % 3] + ([5 + index % 4] if options.pickup_before_movement else [])
    for players in counts:  # every count from 2 to 8 in some option set
        seed = 1000 * players + index
        game, _ = start(Setup(options, players, seed))
        chooser = Rng(seed, "soak")
        decisions = 0
        while not game.over:
            seat = game.active
            if chooser.below(6) == 0:
                legal = game.legal_actions()
                game.apply(legal[chooser.below(len(legal))])
                continue
            level = LEVELS[(seat + players) % 3]
            view = plain(player_view(game, seat))
            game.apply(choose(view, seed=decisions, level=level, budget=SOAK_BUDGET))
            decisions += 1
        assert game.result is not None


def stops_by_brute_force(game):
    """Every area where the active taxi can stop this turn, by trying every step sequence."""
    found = set()
    stack = [game]
    while stack:
        here = stack.pop()
        for action in here.legal_actions():
            if isinstance(action, Step):
                after = here.clone()
                after.apply(action)
                found.add(action.to)
                stack.append(after)
    return found


@pytest.mark.parametrize("movement", ["normal", "fast", "faster"])
def test_T1_T3_the_plans_stop_everywhere_the_rules_allow_and_nowhere_else(movement):
    options = Options(movement=movement)
    checked = 0
    for game in itertools.islice(games_in_play(options, 4, seed=17, every=5), 40):
        if game.phase != "move" or game.path:
            continue
        assert set(reachable(game)) == stops_by_brute_force(game)
        for plan in plans(game):
            game.clone().apply(plan.action)  # every plan's action is legal as it stands
        checked += 1
    assert checked >= 5


# ---------------------------------------------------------------------------- the end game


def last_citizen_position(bot_distance):
    """Two seats, normal movement, the pile exhausted and both deadlines reached: one citizen
    waits `bot_distance` steps from the empty taxi of seat 0 (the bot); seat 1 (a person) carries
    a passenger to a far destination. Every other card is discarded, so the view is whole."""
    from tests.engine.scenario import arrange

    bot = "2S"
    row = DISTANCE[bot]
    origin = next(a for a in AREAS if row[a] == bot_distance)
    person = max(AREAS, key=lambda a: (min(row[a], DISTANCE[origin][a]), a))
    destination = max(
        (a for a in AREAS if a not in (bot, origin, person)), key=lambda a: DISTANCE[person][a]
    )
    target = next(a for a in AREAS if a not in (bot, origin, person, destination))
    game = arrange(
        taxis=[bot, person],
        waiting=[f"{origin}>{target}"],
        passengers=[[], [f"{person}>{destination}"]],
        pile_size=0,
        deadline=2,
    )
    used = {origin, target, person, destination}
    game.discard = [card for card in AREAS if card not in used]
    return game, origin


def away_from(game, area):
    """The person's turn: one step that does not deliver, as far from `area` as possible."""
    seat = game.active
    riding = {d for _, d in game.passengers[seat]}
    steps = [a for a in game.step_choices() if a not in riding] or game.step_choices()
    return Turn(seat, (max(steps, key=lambda a: (DISTANCE[area][a], a)),))


@pytest.mark.parametrize("level", ["medium", "strong"])
def test_G1_a_bot_goes_for_the_last_citizen_and_ends_the_game(level):
    """With the pile exhausted and both deadlines reached, one citizen waiting that nobody can
    ever deliver and the bot's taxi empty, the bot drives to the citizen and picks it up (G1:
    the game ends), rather than waiting for a person to end it."""
    for distance in (1, 3, 5):
        game, origin = last_citizen_position(distance)
        view = plain(player_view(game, 0))
        assert view["pile_exhausted"] and view["deadlines_reached"] == 2
        for turn in range(distance):
            assert not game.over
            game.apply(choose(plain(player_view(game, 0)), seed=turn, level=level, budget=8))
            if not game.over:
                game.apply(away_from(game, origin))
        assert game.over, f"{level} bot {distance} steps away did not end the game"
        assert game.waiting == [] and len(game.passengers[0]) == 1  # it picked the citizen up


# ---------------------------------------------------------------------------- contract and strength


@pytest.mark.parametrize("level", LEVELS)
def test_H1_choose_reads_the_view_and_leaves_it_as_it_was(level):
    """The server hands `choose` the seat's player view and may use it again (re-planning,
    redelivery): the decision changes nothing in it, and it holds no secret to read."""
    for game in itertools.islice(games_in_play(Options(movement="faster"), 4, seed=23), 8):
        view = plain(player_view(game, game.active))
        before = json.dumps(view, sort_keys=True)
        action = choose(view, seed=5, level=level, budget=4)
        assert json.dumps(view, sort_keys=True) == before
        assert "secret" not in view and "seed" not in view
        game.clone().apply(action)


def test_strength_medium_beats_the_autopilot_on_fixed_seeds():
    """A small fixed-seed match, two seats, medium against the autopilot with each moving first
    equally often. A player that moved at random would win almost none of these games (it
    delivers a fare only by chance); the searching levels win nearly all (bench/bots.py plays
    hundreds against a greedy player)."""
    wins = 0.0
    games = 8
    for k in range(games):
        game, _ = start(Setup(Options(), 2, 500 + k))
        bot = k % 2
        decisions = 0
        while not game.over:
            if game.active == bot:
                view = plain(player_view(game, bot))
                game.apply(choose(view, seed=decisions, level="medium"))
                decisions += 1
            else:
                game.apply(autopilot_action(game))
        first = game.result.ranking[0]
        wins += 1 / len(first) if bot in first else 0.0
    assert wins >= 6, f"medium won {wins} of {games}"


def test_each_level_s_default_budget_follows_the_movement_option():
    """The documented budgets (docs/bots-and-ratings.md): fewer playouts where turns have more
    stops, and a decision without a budget is the decision with that budget."""
    assert [default_budget("strong", m) for m in ("normal", "fast", "faster")] == [160, 120, 96]
    assert [default_budget("medium", m) for m in ("normal", "fast", "faster")] == [16, 12, 10]
    game = next(itertools.islice(games_in_play(Options(movement="faster"), 2, seed=9), 4, None))
    view = plain(player_view(game, game.active))
    assert choose(view, seed=3, level="medium") == choose(view, seed=3, level="medium", budget=10)
