"""The moderators' replay viewer (games/admin_replay.py) and the notifications in words
(games/wording.py).

Games are played over the HTTP API (tests/players.py); the viewer's page must show, at every
step, what the engine's replay of the stored log makes of it.
"""

from __future__ import annotations

import html
import re

import pytest
from django.contrib.auth.models import Permission
from django.test import Client

from accounts.models import User
from games import engine, state
from games.admin_replay import SEAT_COLOURS
from games.models import Game, GameEntry
from games.wording import SENTENCES, area_label, describe
from tests.players import play_turn, seat_players, start_game

SECRET_BOX = "Moderators only — secret while the game runs"


def replay_url(game_id: int, seq=None) -> str:
    url = f"/admin/games/game/{game_id}/replay/"
    return url if seq is None else f"{url}?seq={seq}"


def page_text(response) -> str:
    assert response.status_code == 200, response.status_code
    return html.unescape(response.content.decode())


def taxi_areas(page: str) -> dict[int, str]:
    """Seat → area of every taxi drawn on the board."""
    found = re.findall(r'<g class="taxi" id="taxi-\d+" data-seat="(\d+)" data-area="(\w+)"', page)
    return {int(seat): area for seat, area in found}


def shown_seq(page: str) -> int:
    return int(re.search(r'id="replay-seq" data-seq="(\d+)"', page).group(1))


def replayed(game_id: int, seq: int) -> engine.Game:
    game = Game.objects.get(pk=game_id)
    actions = (
        GameEntry.objects.filter(game=game, seq__gte=1, seq__lte=seq)
        .order_by("seq")
        .values_list("action", flat=True)
    )
    return engine.replay(game.setup, list(actions))


def nav_href(page: str, key: str) -> str | None:
    match = re.search(rf'<a id="replay-{key}" href="([^"]+)"', page)
    return match.group(1) if match else None


@pytest.fixture(autouse=True)
def _quick_passwords(settings):
    """Users here only log in with force_login or a test password: hash them cheaply."""
    settings.PASSWORD_HASHERS = ["django.contrib.auth.hashers.MD5PasswordHasher"]


@pytest.fixture
def running_game(make_player):
    """A two-player game, a few turns in, still running."""
    players = [make_player(), make_player()]
    game_id = start_game(players, movement="fast")
    by_seat = seat_players(game_id, players)
    for _ in range(4):
        play_turn(game_id, by_seat)
    return game_id


def whole_turn(game_id: int) -> dict:
    """The autopilot's next turn as one `turn` action (T5): a request per turn, not per step."""
    trial = state.state_for(Game.objects.get(pk=game_id))
    turn, steps, pickups, pickups_before = trial.turn, [], [], []
    while trial.turn == turn and not trial.over:
        action = engine.autopilot_action(trial)
        if isinstance(action, engine.Step):
            steps.append(action.to)
        elif isinstance(action, engine.Pickup):
            (pickups if trial.phase == "pickup" else pickups_before).append(action.destination)
        trial.apply(action)
    return {"type": "turn", "steps": steps, "pickups": pickups, "pickups_before": pickups_before}


@pytest.fixture
def finished_game(make_player):
    """A two-player game played to its end, a whole turn per request ("faster" keeps it short)."""
    players = [make_player(), make_player()]
    game_id = start_game(players, movement="faster")
    by_seat = seat_players(game_id, players)
    game = Game.objects.get(pk=game_id)
    while game.status == Game.Status.PLAYING:
        moved = by_seat[game.active_seat].move(game_id, whole_turn(game_id), game.version)
        assert moved.status_code == 201, moved.json()
        game = Game.objects.get(pk=game_id)
    assert Game.objects.get(pk=game_id).status == Game.Status.FINISHED
    return game_id


def a_step_with(game_id: int, notification_type: str) -> GameEntry:
    for entry in GameEntry.objects.filter(game_id=game_id, seq__gte=1).order_by("seq"):
        if any(n["type"] == notification_type for n in entry.notifications):
            return entry
    raise AssertionError(f"no {notification_type} in game {game_id}")


# ------------------------------------------------------------------------------ the stepper


def test_step_zero_is_the_setup(running_game, admin_client):
    page = page_text(admin_client.get(replay_url(running_game, 0)))
    last = Game.objects.get(pk=running_game).version
    assert shown_seq(page) == 0 and f"Step 0 of {last}" in page
    setup = GameEntry.objects.get(game_id=running_game, seq=0)
    assert describe(setup.notifications[0]) in page  # game_started, in words
    assert "The setup (no action)." in page and "the server (setup)" in page
    assert taxi_areas(page) == dict(enumerate(replayed(running_game, 0).taxis))
    assert nav_href(page, "prev") is None and nav_href(page, "first") is None
    assert nav_href(page, "next") == replay_url(running_game, 1)
    assert nav_href(page, "last") == replay_url(running_game, last)
    assert engine.ATTRIBUTION in page


def test_a_middle_step_shows_its_move_in_words_and_the_taxis_where_the_replay_puts_them(
    running_game, admin_client
):
    entry = a_step_with(running_game, "taxi_moved")
    seq = entry.seq
    page = page_text(admin_client.get(replay_url(running_game, seq)))
    assert shown_seq(page) == seq
    moved = next(n for n in entry.notifications if n["type"] == "taxi_moved")
    sentence = (
        f"Seat {moved['seat'] + 1} moved from {area_label(moved['from'])} "
        f"to {area_label(moved['to'])}."
    )
    assert sentence in page
    for notification in entry.notifications:
        assert describe(notification) in page
    state = replayed(running_game, seq)
    assert taxi_areas(page) == dict(enumerate(state.taxis))
    assert taxi_areas(page)[moved["seat"]] == moved["to"]
    # the action of the step, and who took it
    assert f'id="replay-action-type">{entry.action["type"]}<' in page
    player = str(User.objects.get(pk=entry.actor_id))
    assert f"Seat {entry.seat + 1} ({player})" in page
    assert nav_href(page, "prev") == replay_url(running_game, seq - 1)
    assert nav_href(page, "next") == replay_url(running_game, seq + 1)
    # the side panel agrees with the engine's view
    view = engine.public_view(state)
    for seat in view["seats"]:
        row = re.search(
            rf'<tr class="seat-row[^"]*" data-seat="{seat["seat"]}"(.*?)</tr>', page, re.S
        )
        assert f'<td class="income">{seat["income"]}</td>' in row.group(1)
        for citizen in seat["passengers"]:
            origin, destination = citizen["origin"], citizen["destination"]
            fare = engine.distance(origin, destination)
            assert f"{area_label(origin)}→{area_label(destination)} ({fare})" in row.group(1)
    for citizen in view["waiting"]:
        assert (
            f'data-origin="{citizen["origin"]}" data-destination="{citizen["destination"]}"' in page
        )


def test_every_step_draws_the_taxis_of_the_replay(running_game, admin_client):
    last = Game.objects.get(pk=running_game).version
    for seq in range(last + 1):
        page = page_text(admin_client.get(replay_url(running_game, seq)))
        assert taxi_areas(page) == dict(enumerate(replayed(running_game, seq).taxis)), seq


def test_the_last_step_is_the_default(running_game, admin_client):
    game = Game.objects.get(pk=running_game)
    page = page_text(admin_client.get(replay_url(running_game)))
    assert shown_seq(page) == game.version
    assert f"Step {game.version} of {game.version}" in page
    assert nav_href(page, "next") is None and nav_href(page, "last") is None
    assert nav_href(page, "prev") == replay_url(running_game, game.version - 1)
    assert taxi_areas(page) == dict(enumerate(replayed(running_game, game.version).taxis))
    assert 'id="replay-message"' not in page


@pytest.mark.parametrize(
    ("seq", "shown", "message"),
    [
        ("99999", "last", "There is no step 99999: the log ends at step"),
        ("-3", 0, "There is no step -3; showing the setup, step 0."),
        ("abc", "last", "“abc” is not a step number; showing the last step"),
        ("1.5", "last", "“1.5” is not a step number"),
        ("9" * 5000, "last", "is not a step number"),
        ("", "last", None),
    ],
)
def test_a_step_out_of_range_or_malformed_is_clamped_with_a_message(
    running_game, admin_client, seq, shown, message
):
    last = Game.objects.get(pk=running_game).version
    page = page_text(admin_client.get(replay_url(running_game), {"seq": seq}))
    assert shown_seq(page) == (last if shown == "last" else shown)
    if message is None:
        assert 'id="replay-message"' not in page
    else:
        assert message in page


def test_a_running_game_shows_the_pile_order_as_a_moderators_secret(running_game, admin_client):
    game = Game.objects.get(pk=running_game)
    seq = 3
    page = page_text(admin_client.get(replay_url(running_game, seq)))
    assert SECRET_BOX in page
    order = engine.full_view(replayed(running_game, seq))["secret"]["pile_order"]
    shown = re.search(r'id="replay-pile-order">([^<]*)<', page).group(1).split()
    assert shown == [area_label(card) for card in order]
    assert "Seed: not revealed while the game runs." in page
    assert game.seed not in page  # H1: the seed stays hidden, even from moderators
    assert game.seed_commitment in page
    assert 'id="replay-result"' not in page


def test_a_finished_game_shows_its_result_the_seed_and_the_pile_not_as_a_secret(
    finished_game, admin_client
):
    game = Game.objects.get(pk=finished_game)
    page = page_text(admin_client.get(replay_url(finished_game)))
    assert SECRET_BOX not in page
    assert "Draw pile (public now that the game is over)" in page
    assert game.seed in page and "matches its commitment" in page
    last = GameEntry.objects.get(game=game, seq=game.version)
    ended = next(n for n in last.notifications if n["type"] == "game_ended")
    assert describe(ended) in page
    result = re.search(r'id="replay-result">(.*?)</div>', page, re.S).group(1)
    for seat, income in enumerate(game.result["incomes"]):
        assert f"<td>Seat {seat + 1}</td>" in result and f"<td>{income}</td>" in result
    # earlier steps of a finished game show the pile of that step, still not as a secret
    page = page_text(admin_client.get(replay_url(finished_game, 1)))
    assert SECRET_BOX not in page and 'id="replay-pile-order"' in page
    first = GameEntry.objects.get(game=game, seq=1).action
    assert 'id="replay-action-type">turn<' in page
    assert "steps = " + " → ".join(area_label(a) for a in first["steps"]) in page
    assert taxi_areas(page) == dict(enumerate(replayed(finished_game, 1).taxis))


def test_a_moderators_action_is_shown_with_the_moderator(running_game, admin_client):
    from games import moderation

    admin = User.objects.get(username="admin")
    moderation.seat_zombify(moderator=admin, game_id=running_game, seat=1, reason="away")
    game = Game.objects.get(pk=running_game)
    page = page_text(admin_client.get(replay_url(running_game)))
    assert shown_seq(page) == game.version
    assert f"moderator {admin}" in page
    assert "A moderator handed Seat 2 to the autopilot." in page
    assert 'id="replay-mismatch"' not in page  # the stored notifications are the replayed ones
    moderation.game_abort(moderator=admin, game_id=running_game, reason="Testing the viewer")
    page = page_text(admin_client.get(replay_url(running_game)))
    assert "The game was aborted: Testing the viewer." in page
    assert "Aborted: Testing the viewer" in page
    assert SECRET_BOX not in page and Game.objects.get(pk=running_game).seed in page


def test_a_log_that_does_not_replay_is_reported_not_a_server_error(running_game, admin_client):
    game = Game.objects.get(pk=running_game)
    GameEntry.objects.create(
        game=game, seq=game.version + 1, action={"type": "fly"}, notifications=[]
    )
    page = page_text(admin_client.get(replay_url(running_game)))
    assert f"The log of this game does not replay to step {game.version + 1}" in page
    page = page_text(admin_client.get(replay_url(running_game, game.version)))
    assert shown_seq(page) == game.version  # the steps before it still show
    GameEntry.objects.create(game=game, seq=game.version + 3, action=None, notifications=[])
    page = page_text(admin_client.get(replay_url(running_game)))
    assert "entries are missing before step" in page


def test_eight_seats_get_eight_different_colours():
    assert len({fill for fill, _ink, _name in SEAT_COLOURS}) == 8
    assert len({str(name) for _fill, _ink, name in SEAT_COLOURS}) == 8


def test_player_names_are_escaped(make_player, admin_client):
    players = [make_player(), make_player()]
    players[0].user.display_name = "<script>alert(1)</script>"
    players[0].user.save()
    game_id = start_game(players)
    content = admin_client.get(replay_url(game_id)).content.decode()
    assert "<script>alert(1)</script>" not in content
    assert "&lt;script&gt;alert(1)&lt;/script&gt;" in content


# ------------------------------------------------------------------------------ who may look


def staff_client(*, view_game: bool) -> Client:
    user = User.objects.create_user(username=f"staff{view_game}", password="x", is_staff=True)
    if view_game:
        user.user_permissions.add(
            Permission.objects.get(content_type__app_label="games", codename="view_game")
        )
    client = Client()
    client.force_login(user)
    return client


def test_staff_with_the_view_game_permission_may_replay(running_game):
    client = staff_client(view_game=True)
    page = page_text(client.get(replay_url(running_game, 2)))
    assert shown_seq(page) == 2 and SECRET_BOX in page


def test_staff_without_the_permission_are_refused(running_game):
    assert staff_client(view_game=False).get(replay_url(running_game)).status_code == 403


def test_anonymous_and_non_staff_users_are_sent_to_the_admin_login(running_game, make_player):
    url = replay_url(running_game, 1)
    anonymous = Client().get(url)
    assert anonymous.status_code == 302 and anonymous["Location"].startswith("/admin/login/")
    player = make_player()
    client = Client()
    client.force_login(player.user)
    response = client.get(url)
    assert response.status_code == 302 and response["Location"].startswith("/admin/login/")
    assert b"replay-board" not in response.content


def test_an_unknown_game_is_not_found(admin_client, db):
    assert admin_client.get(replay_url(999999)).status_code == 404


def test_a_table_not_started_has_nothing_to_replay(make_player, admin_client):
    creator = make_player()
    created = creator.post("/api/v1/tables", {"players": 2})
    page = page_text(admin_client.get(replay_url(created.json()["id"])))
    assert "This game has not started: there is no log to replay." in page


def test_the_game_page_links_to_the_viewer(running_game, admin_client):
    page = page_text(admin_client.get(f"/admin/games/game/{running_game}/change/"))
    assert replay_url(running_game) in page


# ------------------------------------------------------------------------------ wording


def test_area_labels():
    assert area_label("10H") == "10♥"
    assert area_label("AS") == "A♠"
    assert area_label("2C") == "2♣"
    assert area_label("QD") == "Q♦"
    assert area_label("KS") == "K♠"
    assert [area_label(a) for a in ("JH", "9D")] == ["J♥", "9♦"]
    assert area_label("nowhere") == "nowhere"  # unknown ids pass through
    assert area_label("") == ""


SENTENCE_CASES = [
    (
        {
            "type": "game_started",
            "seats": [{"seat": 0, "area": "2S"}, {"seat": 1, "area": "3H"}],
            "passengers": [[], []],
            "waiting": [{"origin": "4C", "destination": "5D"}] * 8,
            "pile": 34,
        },
        "The game started: 2 taxis, 8 citizens waiting, 34 cards in the pile.",
    ),
    (
        {"type": "turn_started", "seat": 0, "allowance": 3},
        "Seat 1's turn begins: up to 3 steps.",
    ),
    (
        {"type": "turn_started", "seat": 2, "allowance": 1},
        "Seat 3's turn begins: up to 1 step.",
    ),
    (
        {"type": "taxi_moved", "seat": 0, "from": "10H", "to": "9H"},
        "Seat 1 moved from 10♥ to 9♥.",
    ),
    (
        {"type": "move_undone", "seat": 1, "from": "9H", "to": "10H"},
        "Seat 2 took back the step to 9♥ and is back on 10♥.",
    ),
    (
        {
            "type": "passenger_dropped_off",
            "seat": 0,
            "area": "KC",
            "origin": "5D",
            "destination": "KC",
            "fare": 4,
        },
        "Seat 1 dropped off a passenger from 5♦ at K♣, fare 4.",
    ),
    (
        {"type": "citizen_picked_up", "seat": 3, "area": "AS", "origin": "AS", "destination": "2H"},
        "Seat 4 picked up a citizen at A♠ going to 2♥.",
    ),
    (
        {"type": "citizen_added", "origin": "7C", "destination": "JD", "pile": 12},
        "A new citizen waits at 7♣ to go to J♦ (12 cards left).",
    ),
    (
        {"type": "citizen_added", "origin": "7C", "destination": "JD", "pile": 1},
        "A new citizen waits at 7♣ to go to J♦ (1 card left).",
    ),
    (
        {"type": "deadline_reached", "number": 1, "cause": "pile"},
        "Deadline 1 reached: the draw pile is exhausted.",
    ),
    (
        {"type": "deadline_reached", "number": 2, "cause": "waiting"},
        "Deadline 2 reached: at most 4 citizens are waiting.",
    ),
    (
        {"type": "deadline_reached", "number": 1, "cause": "clock"},
        "Deadline 1 reached: the table's time for it has passed.",
    ),
    ({"type": "deadline_reached", "number": 2}, "Deadline 2 reached."),
    ({"type": "turn_passed", "seat": 4}, "Seat 5 is blocked and passes."),
    ({"type": "turn_ended", "seat": 7}, "Seat 8's turn ended."),
    (
        {"type": "cards_discarded", "cards": ["6S"], "reason": "three_players", "pile": 45},
        "With three players, 6♠ was discarded from the pile (45 cards left).",
    ),
    (
        {"type": "cards_discarded", "cards": ["QH", "QH"], "reason": "identical_pair", "pile": 1},
        "An identical pair (Q♥, Q♥) was discarded (1 card left).",
    ),
    (
        {"type": "game_ended", "incomes": [10, 14, 10], "ranking": [[1], [0, 2]]},
        "The game ended. Ranking: 1. Seat 2 (14); 2. Seat 1, Seat 3 (10).",
    ),
    (
        {"type": "turn_timed_out", "seat": 1, "count": 2},
        "Seat 2 ran out of time (2 in a row); the autopilot plays the turn.",
    ),
    (
        {"type": "seat_zombified", "seat": 0, "reason": "timeouts"},
        "Seat 1 timed out 3 times in a row; the autopilot plays it from now on.",
    ),
    (
        {"type": "seat_zombified", "seat": 2, "reason": "moderator"},
        "A moderator handed Seat 3 to the autopilot.",
    ),
    (
        {"type": "seat_zombified", "seat": 1, "reason": "resigned"},
        "Seat 2 resigned; the autopilot plays it from now on.",
    ),
    ({"type": "seat_restored", "seat": 1}, "Seat 2 is played by its player again."),
    (
        {"type": "game_aborted", "reason": "the autopilot made no progress"},
        "The game was aborted: the autopilot made no progress.",
    ),
    ({"type": "game_aborted", "reason": "Cheating."}, "The game was aborted: Cheating."),
]


@pytest.mark.parametrize(("notification", "sentence"), SENTENCE_CASES)
def test_describe(notification, sentence):
    assert describe(notification) == sentence


def test_every_notification_type_has_a_sentence_and_a_case():
    contract = {
        "game_started", "turn_started", "taxi_moved", "move_undone", "passenger_dropped_off",
        "citizen_picked_up", "citizen_added", "deadline_reached", "turn_passed", "turn_ended",
        "cards_discarded", "game_ended",
    }  # fmt: skip
    server = {"turn_timed_out", "seat_zombified", "seat_restored", "game_aborted"}
    assert set(SENTENCES) == contract | server
    assert {n["type"] for n, _sentence in SENTENCE_CASES} == contract | server


def test_what_describe_does_not_know_is_shown_not_raised():
    assert describe({"type": "comet_struck", "area": "2S"}) == (
        'Unrecognised notification: {"area": "2S", "type": "comet_struck"}'
    )
    assert describe({"type": "taxi_moved"}).startswith("Unrecognised notification: ")


@pytest.mark.parametrize(
    ("players", "options"),
    [
        (2, engine.Options()),
        (3, engine.Options(movement="fast", shift_change=True)),
        (6, engine.Options(movement="faster", pickup_before_movement=True)),
    ],
)
def test_every_notification_of_simulated_games_reads_as_a_sentence(players, options):
    from games.engine.simulate import play

    for seed in range(3):
        setup = engine.Setup(options=options, players=players, seed=seed)
        _game, notifications = play(setup, policy="random", max_turns=400)
        for notification in notifications:
            text = describe(notification)
            assert not text.startswith("Unrecognised"), notification
            assert "{" not in text and "%(" not in text
