"""What a player, a spectator or a moderator may see of a game (G6).

Every question, answer and guess is public; the code and the seed are not, until the game is
over (finished or aborted): then both are in every view, so anyone can check the game (B6).
`full_view` adds them as `secret` at any time: for finished games, and for moderators (who must
see them clearly marked as secret while the game runs).
"""

from __future__ import annotations

from .game import OVER, Game
from .questions import QUESTIONS
from .seed import seed_commitment


def public_view(game: Game) -> dict[str, object]:
    over = game.phase == OVER
    status = "aborted" if game.aborted is not None else ("finished" if over else "playing")
    view: dict[str, object] = {
        "rules_version": game.rules_version,
        "options": game.options.to_json(),
        "players": game.players,
        "status": status,
        "seed_commitment": seed_commitment(game.seed),
        "turn": game.turn,
        "active_seat": None if over else game.active,
        "seats": [
            {
                "seat": seat,
                "player": game.seat_players[seat],
                "wrong_guesses": game.wrong[seat],
                "eliminated": game.eliminated[seat],
                "zombie": game.zombies[seat],
                "timeouts": game.timeouts[seat],
            }
            for seat in range(game.players)
        ],
        "questions": [
            {"seat": seat, "question": QUESTIONS[index].to_json(), "answer": answer}
            for seat, index, answer in game.questions
        ],
        "questions_left": len(QUESTIONS) - len(game.questions),
        "guesses": [
            {"seat": seat, "code": list(code), "correct": correct}
            for seat, code, correct in game.guesses
        ],
        "eliminations": list(game.eliminations),
        "result": None if game.result is None else game.result.to_json(),
        "abort_reason": game.aborted,
    }
    if over:  # G6: revealed at the end, so anyone can verify the code (B6)
        view["code"] = list(game.secret_code())
        view["seed"] = str(game.seed)
    return view


def player_view(
    game: Game, seat: int | None = None, *, public: dict[str, object] | None = None
) -> dict[str, object]:
    """The view for seat `seat` (None: a spectator), with what that seat is offered
    (`Game.offered_actions`). `public`: `public_view(game)`, if the caller has it already
    (shared, not copied: neither may change it afterwards)."""
    view = public_view(game) if public is None else dict(public)
    view["you"] = seat
    view["legal_actions"] = game.offered_actions(seat)
    return view


def full_view(game: Game) -> dict[str, object]:
    """Everything, including the secrets: the code and the seed."""
    view = public_view(game)
    view["secret"] = {"code": list(game.secret_code()), "seed": str(game.seed)}
    return view
