"""Soak: 1,080 whole games, every table RULES.md allows × both simulator policies.

Each game is played by `python -m games.engine simulate`'s own loop (`simulate.play`: the
autopilot, or a uniform choice among `legal_actions()` drawn from the game's own "random-policy"
stream, cut off after 2000 turns). The whole notification stream goes through the referee
(every clause it knows, see invariants.py), then the final state is checked against the
referee's table, the invariants and the replay of its log (S2).
"""

from __future__ import annotations

from collections import Counter

import pytest

from games.engine import Setup, replay
from games.engine.simulate import play
from tests.engine.invariants import COMBINATIONS, Referee, check_invariants

MAX_TURNS = 2000  # the simulator's default cut-off
K4_TURNS = 3000
GAMES = {"autopilot": 14, "random": 4}  # per table: 60 tables × 18 = 1,080 games

#: Rare situations the soak must reach, so its invariants are checked where they matter.
MUST_HAPPEN = (
    "C1 identical pair discarded in play", "G1 ended: nobody waits", "G2 ended: one waits",
    "G3 shared rank", "P1 full taxi stopped by a citizen",
    "P2 stopped by a citizen, may not take a third",
    "P3 stopped by a citizen, may not take a second", "P4 two citizens wait on one area",
    "T2 pre-movement pickup", "T4 fifth undo of a turn",
    "T5 replacement drawn onto the taxi's own area", "T7 blocked taxi passed",
)  # fmt: skip
_seen: Counter[str] = Counter()  # event → games, filled by the soak below
_played: list[Setup] = []
_finished: list[Setup] = []


def test_the_soak_plays_over_a_thousand_games():
    assert len(COMBINATIONS) == 60  # 2–4 players × 12 option sets, 5–8 players × 6
    assert len(COMBINATIONS) * sum(GAMES.values()) >= 1000


@pytest.mark.slow
@pytest.mark.parametrize("policy", sorted(GAMES))
@pytest.mark.parametrize(
    ("players", "options"), COMBINATIONS,
    ids=[f"{p}p-{o.movement}-sc{int(o.shift_change)}-pb{int(o.pickup_before_movement)}"
         for p, o in COMBINATIONS],
)  # fmt: skip
def test_whole_games_keep_every_invariant(players, options, policy):
    """S1–S7, C1, T1–T8, P1–P4, D1–D3, G1–G3 on every notification of every game; K4: every
    autopilot game ends within 3000 turns; S2: each log replays to the same game."""
    table = COMBINATIONS.index((players, options))
    for k in range(GAMES[policy]):
        setup = Setup(options, players, seed=10_000 * table + 100 * k + 7)
        game, notifications = play(setup, policy=policy, max_turns=MAX_TURNS)

        referee = Referee(players, options)
        try:
            check_invariants(referee, game, notifications, finished=True)
        except AssertionError as error:
            raise AssertionError(f"{setup}, policy {policy}: {error}") from error

        _seen.update(set(referee.events))
        _played.append(setup)
        if game.over:
            _finished.append(setup)

        if policy == "autopilot":
            assert game.over and game.aborted is None, f"K4: {setup} did not end"
            assert game.turn <= K4_TURNS
        else:
            assert game.over or game.turn == MAX_TURNS + 1
        assert (game.result is None) == (not game.over)
        assert replay(setup, game.history) == game, f"S2: {setup} replays differently"


@pytest.mark.slow
def test_the_soak_reached_every_rare_situation():
    """The soak is only as good as the situations it reaches: blocked taxis (T7), the undo limit
    (T4), identical pairs (C1), two citizens on one area (P4), each pickup limit at a stop
    (P1–P3), both endings (G1, G2), shared ranks (G3)."""
    if len(_played) < len(COMBINATIONS) * sum(GAMES.values()):
        pytest.skip("the whole soak did not run in this session")
    missing = [event for event in MUST_HAPPEN if not _seen[event]]
    assert not missing, f"no soak game reached {missing}"
    assert len(_finished) >= 1000, f"only {len(_finished)} games ended before the cut-off"
