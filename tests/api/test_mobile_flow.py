"""BENCHMARKS.md: what a mobile client pays per turn — requests and bytes — playing
each step, stop and pickup as its own request, or the whole turn as one `turn` action (T5).

Both games are played by the autopilot's choices; the `turn` player plans its turn on a copy of
the engine state (as a client would on its own copy) and sends it at once."""

from __future__ import annotations

import json

from games import engine, state
from games.models import Game
from tests.players import Player, autopilot_choice, seat_players, start_game

TURNS = 40


def _sizes(response, body: dict) -> int:
    return len(json.dumps(body)) + len(response.content)


def _planned_turn(game_id: int) -> dict:
    """The autopilot's whole turn, as one `turn` action."""
    plan = state.state_for(Game.objects.get(pk=game_id)).clone()
    seat, turn = plan.active, plan.turn
    steps, pickups, before = [], [], []
    while plan.turn == turn and not plan.over and plan.active == seat:
        action = engine.autopilot_action(plan)
        if isinstance(action, engine.Step):
            steps.append(action.to)
        elif isinstance(action, engine.Pickup):
            (pickups if plan.phase == "pickup" else before).append(action.destination)
        plan.apply(action)
    return {"type": "turn", "steps": steps, "pickups": pickups, "pickups_before": before}


def _play(db_turns: int, *, whole_turns: bool) -> dict:
    people = [Player(), Player()]
    game_id = start_game(people)
    by_seat = seat_players(game_id, people)
    requests = sent = 0
    for _ in range(db_turns):
        game = Game.objects.get(pk=game_id)
        if game.status != "playing":
            break
        seat, turn = game.active_seat, game.turn_number
        while game.status == "playing" and game.turn_number == turn:
            action = _planned_turn(game_id) if whole_turns else autopilot_choice(game_id)
            body = {"action": action, "version": game.version, "idempotency_key": f"k{requests}"}
            response = by_seat[seat].post(f"/api/v1/games/{game_id}/actions", body)
            assert response.status_code == 201, response.json()
            requests += 1
            sent += _sizes(response, body)
            game = Game.objects.get(pk=game_id)
    return {"requests_per_turn": requests / db_turns, "bytes_per_turn": sent / db_turns}


def test_a_whole_turn_in_one_request_costs_one_request_a_turn(db):
    by_step = _play(TURNS, whole_turns=False)
    by_turn = _play(TURNS, whole_turns=True)
    print(json.dumps({"step_by_step": by_step, "turn": by_turn}))
    assert by_turn["requests_per_turn"] == 1
    assert by_step["requests_per_turn"] > 2
    assert by_turn["bytes_per_turn"] < by_step["bytes_per_turn"] * 0.75
