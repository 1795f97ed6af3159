"""Profiles and the leaderboard in the API (/api/v1/players/{id}, /api/v1/leaderboard): thin
views over games/player_stats.py, with their response shapes for the OpenAPI schema."""

from __future__ import annotations

from drf_spectacular.utils import extend_schema
from rest_framework import serializers
from rest_framework.response import Response
from rest_framework.views import APIView

from games import player_stats, registry
from games.apis import PAGE, errors
from games.models import BOT_LEVELS
from games.schema import PublicUserSerializer
from games.serializers import MAX_PLAYERS, MIN_PLAYERS, MOVEMENTS, PageSerializer
from taxi_project.pagination import paginate


class RatingSerializer(serializers.Serializer):
    ordinal = serializers.FloatField(help_text="mu - 3 sigma: what the leaderboard sorts on")
    mu = serializers.FloatField(help_text="the skill estimate (OpenSkill Plackett-Luce)")
    sigma = serializers.FloatField(help_text="its uncertainty")
    games = serializers.IntegerField(help_text="rated games that moved it")


class RatingPointSerializer(serializers.Serializer):
    game = serializers.IntegerField()
    ended_at = serializers.DateTimeField()
    players = serializers.IntegerField()
    ordinal_before = serializers.FloatField()
    ordinal_after = serializers.FloatField()
    mu_after = serializers.FloatField()
    sigma_after = serializers.FloatField()


class FavouriteOptionsSerializer(serializers.Serializer):
    players = serializers.IntegerField()
    movement = serializers.ChoiceField(choices=MOVEMENTS)
    shift_change = serializers.BooleanField()
    pickup_before_movement = serializers.BooleanField()
    games = serializers.IntegerField(help_text="games the player started with these options")


class CurrentSeatSerializer(serializers.Serializer):
    user = serializers.IntegerField()
    name = serializers.CharField()
    bot = serializers.ChoiceField(choices=BOT_LEVELS, allow_null=True)


class CurrentGameSerializer(serializers.Serializer):
    id = serializers.IntegerField()
    game = serializers.ChoiceField(choices=registry.keys())
    players = serializers.IntegerField()
    seats = CurrentSeatSerializer(many=True)


def _game_field():
    return serializers.ChoiceField(
        choices=registry.keys(),
        default=registry.DEFAULT,
        help_text="the game (each rates into its own pool; Bahama Taxi if left out)",
    )


class PlayerGameSerializer(serializers.Serializer):
    """A player's record in one game: their rating in its pool and their games of it."""

    game = serializers.ChoiceField(choices=registry.keys())
    name = serializers.CharField(help_text="the game's name, in your language")
    rating = RatingSerializer()
    history = RatingPointSerializer(many=True, help_text="rating changes, oldest first")
    games_played = serializers.IntegerField(help_text="finished games")
    games_won = serializers.IntegerField(help_text="finished games ranked first (ties count)")
    average_income = serializers.FloatField(allow_null=True, help_text="Bahama Taxi's")
    favourite_options = FavouriteOptionsSerializer(allow_null=True, help_text="Bahama Taxi's")


class PlayerProfileSerializer(serializers.Serializer):
    """Another player's public profile (component `PlayerProfile`; mine, with e-mail and
    settings, is `Profile` in the accounts API): the game asked for (`?game=`, Bahama Taxi by
    default) at the top level, every game played in `games`."""

    user = PublicUserSerializer()
    game = serializers.ChoiceField(choices=registry.keys(), help_text="the game asked for")
    rating = RatingSerializer()
    history = RatingPointSerializer(many=True, help_text="rating changes, oldest first")
    games_played = serializers.IntegerField(help_text="finished games")
    games_won = serializers.IntegerField(help_text="finished games ranked first (ties count)")
    average_income = serializers.FloatField(allow_null=True)
    favourite_options = FavouriteOptionsSerializer(allow_null=True)
    games = PlayerGameSerializer(
        many=True, help_text="one per game played (and the game asked for), in the registry's order"
    )
    current_games = CurrentGameSerializer(many=True)


class PlayerProfileQuerySerializer(serializers.Serializer):
    game = _game_field()


class LeaderboardRowSerializer(serializers.Serializer):
    rank = serializers.IntegerField()
    user = PublicUserSerializer()
    ordinal = serializers.FloatField()
    mu = serializers.FloatField()
    sigma = serializers.FloatField()
    games = serializers.IntegerField()
    games_at_size = serializers.IntegerField(
        allow_null=True, help_text="rated games at tables of the size asked for"
    )


class LeaderboardPageSerializer(PageSerializer):
    results = LeaderboardRowSerializer(many=True)


class LeaderboardQuerySerializer(serializers.Serializer):
    game = _game_field()
    players = serializers.IntegerField(
        required=False,
        min_value=MIN_PLAYERS,
        max_value=MAX_PLAYERS,
        help_text="only players with rated games at tables of this size",
    )


class PlayerProfileApi(APIView):
    @extend_schema(
        operation_id="player_profile",
        parameters=[PlayerProfileQuerySerializer],
        responses={
            200: PlayerProfileSerializer,
            **errors("player_profile", "invalid", "not_found"),
        },
        summary="A player's rating per game with its history, and their game statistics",
    )
    def get(self, request, user_id: int):
        query = PlayerProfileQuerySerializer(data=request.query_params.dict())  # `?game=x`: 400
        query.is_valid(raise_exception=True)
        user = player_stats.player_get(user_id=user_id)
        game = query.validated_data["game"]
        profile = player_stats.player_profile(user=user, viewer=request.user, game=game)
        return Response(profile)


class LeaderboardApi(APIView):
    @extend_schema(
        operation_id="leaderboard",
        parameters=[LeaderboardQuerySerializer, *PAGE],
        responses={200: LeaderboardPageSerializer, **errors("leaderboard", "invalid")},
        summary="One game's rated players, best first (overall, or with games at one table size)",
    )
    def get(self, request):
        query = LeaderboardQuerySerializer(data=request.query_params.dict())  # `?players=`: 400
        query.is_valid(raise_exception=True)
        rows = player_stats.leaderboard(
            game=query.validated_data["game"], players=query.validated_data.get("players")
        )
        return paginate(
            self,
            request,
            rows,
            ordering=("-ordinal", "user_id"),
            render=lambda page, first: [
                player_stats.leaderboard_row(row, first + i) for i, row in enumerate(page)
            ],
        )
