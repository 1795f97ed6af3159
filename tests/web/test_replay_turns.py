"""Folding an entry's notifications onto the view before it gives the engine's own view after
it (games/replay_turns.py), for every entry of random games, including the entries in which the
autopilot plays many turns at once; and the replay pages step through such an entry turn by
turn."""

from __future__ import annotations

import random
import re

from django.test import Client

from games import engine
from games.engine import Options, Resign, Setup
from games.models import Game, GameEntry
from games.replay_turns import FOLLOWED_FIELDS, FOLLOWED_SEAT_FIELDS, fold, turn_groups
from tests.players import Player, seat_players, start_game


def followed(view: dict) -> dict:
    return {
        "seats": [{k: s[k] for k in FOLLOWED_SEAT_FIELDS} for s in view["seats"]],
        **{k: view[k] for k in FOLLOWED_FIELDS},
        "active_seat": view["active_seat"],
    }


def random_game(seed: int):
    """(view before, notifications, view after) for each action of a random game, in which
    every seat but one resigns early, so the last resignation hands the autopilot the rest."""
    rng = random.Random(seed)
    players = rng.randint(2, 5)
    movement = rng.choice(["normal", "fast", "faster"])
    options = Options(movement=movement, pickup_before_movement=players >= 5)
    state, notes = engine.start(Setup(options, players, seed))
    before = engine.public_view(state)
    steps = []
    resigning = list(range(players))
    rng.shuffle(resigning)
    while not state.over:
        if resigning and rng.random() < 0.05:
            action = Resign(resigning.pop())
        else:
            action = engine.autopilot_action(state)
        try:
            notes = state.apply(action)
        except engine.EngineError:
            continue  # a resignation of a seat already on autopilot
        after = engine.public_view(state)
        steps.append((before, notes, after))
        before = after
    return steps


def test_folding_notifications_gives_the_engines_view():
    longest = 0
    for seed in range(12):
        for before, notes, after in random_game(seed):
            assert followed(fold(before, notes)) == followed(after), (seed, notes[:3])
            longest = max(longest, len(turn_groups(notes)))
    assert longest > 3  # some entries held several turns (the autopilot playing on)


def test_turn_groups_cut_before_each_turn():
    notes = [
        {"type": "turn_ended", "seat": 0},
        {"type": "turn_started", "seat": 1},
        {"type": "taxi_moved", "seat": 1, "from": "2S", "to": "3S"},
        {"type": "turn_started", "seat": 0},
    ]
    assert turn_groups(notes) == [notes[:3], notes[3:]]  # the end of a turn goes with the next
    assert turn_groups(notes[:3]) == [notes[:3]]  # an ordinary entry: one group
    assert turn_groups([]) == []


def test_the_replay_steps_through_an_entry_turn_by_turn(make_player):
    ana, ben = make_player(), make_player()
    game_id = start_game([ana, ben], movement="faster")
    by_seat = seat_players(game_id, [ana, ben])
    for player in by_seat.values():  # both resign: the rest of the game is one entry
        game = Game.objects.get(pk=game_id)
        player.move(game_id, {"type": "resign"}, game.version)
    game = Game.objects.get(pk=game_id)
    assert game.status == "finished"
    entry = GameEntry.objects.get(game=game, seq=game.version)
    groups = turn_groups(entry.notifications)
    assert len(groups) > 3
    browser = Client()
    browser.force_login(ana.user)
    page = browser.get(f"/games/{game_id}/replay?seq={entry.seq}&turn=2").content.decode()
    assert f'id="replay-turn" data-turn="2" data-turns="{len(groups)}"' in page
    sentences = page.split('<ol id="replay-sentences">', 1)[1].split("</ol>", 1)[0]
    assert len(re.findall("<li>", sentences)) == len(groups[1])
    assert f'href="/games/{game_id}/replay?seq={entry.seq}&amp;turn=3"' in page
    # the admin viewer too
    staff = Client()
    staff.force_login(Player("mod").user.__class__.objects.create_superuser("root", "r@x.org", "x"))
    admin = staff.get(f"/admin/games/game/{game_id}/replay/?seq={entry.seq}&turn=2")
    assert 'id="replay-turn" data-turn="2"' in admin.content.decode()
