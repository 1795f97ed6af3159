"""The move's authentication: the token and what the move reads, in one statement."""

from __future__ import annotations

from accounts.authentication import TokenAuthentication
from games import services


class MoveTokenAuthentication(TokenAuthentication):
    """`TokenAuthentication` for `POST /api/v1/games/<id>/actions` that reads, in the token's
    SELECT, the game row, its seats and its recent log entries (`services.token_and_move_read`)
    and leaves them on the request for the move (`request.move_read`): a move costs one
    database round trip fewer. Any other request, and any token the fast path does not accept,
    goes the plain way (the same refusals in the same words). The game is read before the
    rate limit is counted: a refused move costs that read, as it would have cost the token's."""

    def authenticate(self, request):
        self._request = request
        return super().authenticate(request)

    def authenticate_credentials(self, key):
        request = self._request
        game_id = (request.parser_context or {}).get("kwargs", {}).get("game_id")
        if request.method != "POST" or game_id is None:
            return super().authenticate_credentials(key)
        token, read = services.token_and_move_read(self.get_model(), key, game_id)
        if token is None or not token.user.is_active:
            return super().authenticate_credentials(key)  # DRF's refusal, in DRF's words
        request.move_read = read
        return token.user, token
