"""The one settings module. Everything that differs between a laptop, CI and production
comes from the environment; with nothing set, the server runs fully embedded
(SQLite, in-memory channel layer, filesystem Celery broker) so a fresh clone needs only Python.
"""

import hashlib
import ipaddress
import os
from datetime import timedelta
from pathlib import Path

import dj_database_url
from csp.constants import NONE, SELF
from django.core.exceptions import ImproperlyConfigured
from kombu import Queue

BASE_DIR = Path(__file__).resolve().parent.parent
VAR_DIR = BASE_DIR / "var"


def env_bool(name: str, default: bool) -> bool:
    value = os.environ.get(name)
    if value is None or value == "":
        return default
    return value.strip().lower() in {"1", "true", "yes", "on"}


def env_list(name: str) -> list[str]:
    return [item.strip() for item in os.environ.get(name, "").split(",") if item.strip()]


# Off unless asked for: a deployment that forgets DEBUG must not show tracebacks to visitors.
# dev.py and the test suite (tests/environment.py) turn it on for local work.
DEBUG = env_bool("DEBUG", False)

SECRET_KEY = os.environ.get("SECRET_KEY", "")
if not SECRET_KEY:
    if not DEBUG:
        raise ImproperlyConfigured("SECRET_KEY must be set when DEBUG is off.")
    SECRET_KEY = "django-insecure-local-development-only"

# Empty plus DEBUG means localhost only (Django and Channels both fall back to it).
ALLOWED_HOSTS = env_list("ALLOWED_HOSTS")
# Origins (scheme://host[:port]) whose unsafe requests with the session cookie are accepted.
CSRF_TRUSTED_ORIGINS = env_list("CSRF_TRUSTED_ORIGINS")

if not DEBUG:
    # Behind a load balancer that terminates TLS and sets X-Forwarded-Proto (docker/README.md).
    # It redirects plain HTTP itself; SECURE_SSL_REDIRECT=1 makes Django do it too.
    SECURE_PROXY_SSL_HEADER = ("HTTP_X_FORWARDED_PROTO", "https")
    SECURE_SSL_REDIRECT = env_bool("SECURE_SSL_REDIRECT", False)
    SESSION_COOKIE_SECURE = CSRF_COOKIE_SECURE = env_bool("SECURE_COOKIES", True)
    SECURE_HSTS_SECONDS = int(os.environ.get("SECURE_HSTS_SECONDS", str(365 * 24 * 3600)))
    SECURE_HSTS_INCLUDE_SUBDOMAINS = env_bool("SECURE_HSTS_INCLUDE_SUBDOMAINS", False)

# Requests are small JSON (a move is well under 1 KiB): a larger body is refused with 413
# `request_too_large` before it is parsed.
DATA_UPLOAD_MAX_MEMORY_SIZE = int(os.environ.get("DATA_UPLOAD_MAX_MEMORY_SIZE", str(64 * 1024)))

INSTALLED_APPS = [
    "django.contrib.admin",
    "django.contrib.auth",
    "django.contrib.contenttypes",
    "django.contrib.sessions",
    "django.contrib.messages",
    "django.contrib.staticfiles",
    "rest_framework",
    # the one-token-per-user tokens of earlier releases: kept for the migration that moves them
    # to device tokens (accounts 0007), unused otherwise
    "rest_framework.authtoken",
    "knox",
    "drf_spectacular",
    "drf_spectacular_sidecar",  # Swagger UI's files, served as our own static files
    "channels",
    "accounts",
    "games",
]

MIDDLEWARE = [
    "django.middleware.security.SecurityMiddleware",
    # a strict Content-Security-Policy on every HTML page (no inline script): django-csp on
    # CONTENT_SECURITY_POLICY below, as taxi_project/csp.py applies it
    "taxi_project.csp.ContentSecurityPolicyMiddleware",
    # static files, in DEBUG straight from the apps, else from STATIC_ROOT (collectstatic)
    "whitenoise.middleware.WhiteNoiseMiddleware",
    "django.contrib.sessions.middleware.SessionMiddleware",
    "django.middleware.common.CommonMiddleware",
    "django.middleware.csrf.CsrfViewMiddleware",
    "django.contrib.auth.middleware.AuthenticationMiddleware",
    # Accept-Language (or the switcher's cookie), then the signed-in user's own choice
    "django.middleware.locale.LocaleMiddleware",
    "django.contrib.messages.middleware.MessageMiddleware",
    "django.middleware.clickjacking.XFrameOptionsMiddleware",
    # The signed-in user's own language choice. Synchronous only, and last: Django's ASGI
    # handler then runs the whole chain above in one thread, in synchronous mode, rather than
    # hopping between the event loop and a thread around each hook of the middleware below a
    # synchronous one (Django's docs: "Asynchronous support" of middleware).
    "accounts.middleware.UserLanguageMiddleware",
]

# Scripts, styles, fonts and sockets from this site alone; nothing inline, no plug-ins, never
# framed (taxi_project/csp.py says why each, and what it adds per request).
CONTENT_SECURITY_POLICY = {
    "DIRECTIVES": {
        "default-src": [SELF],
        "script-src": [SELF],
        "style-src": [SELF],
        "img-src": [SELF, "data:"],
        "font-src": [SELF],
        "connect-src": [SELF],
        "object-src": [NONE],
        "base-uri": [NONE],
        "form-action": [SELF],
        "frame-ancestors": [NONE],
    }
}

ROOT_URLCONF = "taxi_project.urls"

TEMPLATES = [
    {
        "BACKEND": "django.template.backends.django.DjangoTemplates",
        "DIRS": [],
        "APP_DIRS": True,
        "OPTIONS": {
            "context_processors": [
                "django.template.context_processors.request",
                "django.template.context_processors.i18n",
                "django.contrib.auth.context_processors.auth",
                "django.contrib.messages.context_processors.messages",
            ],
        },
    },
]

WSGI_APPLICATION = "taxi_project.wsgi.application"
ASGI_APPLICATION = "taxi_project.asgi.application"

DATABASES = {
    "default": dj_database_url.config(
        env="DATABASE_URL",
        default=f"sqlite:///{BASE_DIR / 'db.sqlite3'}",
    )
}

if DATABASES["default"]["ENGINE"] == "django.db.backends.postgresql":
    # One test database per test process, so two runs on one server never drop each other's.
    DATABASES["default"]["TEST"] = {"NAME": f"test_{DATABASES['default']['NAME']}_{os.getpid()}"}
    # A pool per process (psycopg_pool, Django 5.1+): Django closes a request's connection when
    # the request ends, so without it every request would open its own PostgreSQL connection,
    # which cost more than the move itself. DB_POOL_MAX_SIZE × processes must stay below the
    # server's max_connections; DB_POOL_MAX_SIZE=0 turns pooling off.
    # Connections the server dropped: see taxi_project/dbpool.py.
    # Parameters bound by the server, and a statement run twice on a connection is prepared:
    # PostgreSQL then skips parsing and planning it (the move path's statements cost
    # PostgreSQL 1.6 ms of CPU per move before, 1.1 ms after: BENCHMARKS.md, optimisations
    # kept). Not for a PgBouncer before 1.21 in front (docker/README.md). After five runs
    # PostgreSQL may keep one generic plan, blind to how rare a parameter's value is: a list of
    # a rare status (the lobby's open tables) names it by a literal instead (games/selectors.py,
    # OPEN_PUBLIC), and tests/scale/test_indexes.py judges each list's statement by the plan the
    # server keeps.
    DATABASES["default"].setdefault("OPTIONS", {}).update(
        {"server_side_binding": True, "prepare_threshold": 2}
    )
    # No JIT compilation: every statement here is a short one, but on a large table the planner
    # estimates some (the count of the finished-games page) above jit_above_cost and compiled
    # them on each run: 63 of that count's 108 ms at 100,000 finished games (BENCHMARKS.md,
    # Scale). A DATABASE_URL that sets its own ?options= keeps them.
    DATABASES["default"]["OPTIONS"].setdefault("options", "-c jit=off")
    _pool_max = int(os.environ.get("DB_POOL_MAX_SIZE", "8"))
    if _pool_max > 0:
        DATABASES["default"].setdefault("OPTIONS", {})["pool"] = {
            "min_size": 1,
            "max_size": _pool_max,
            # how long a request waits for a free connection before it answers 503
            # `service_unavailable` (a connection is held only while a request runs queries:
            # streams and sockets take one per read, taxi_project/dbpool.py)
            "timeout": float(os.environ.get("DB_POOL_TIMEOUT", "10")),
        }


# HTTP requests of one server process in Django at once (each runs in a thread of its own, all
# share the interpreter lock); the others wait in the event loop, in order. 0: no limit.
# Streams and /healthz are not counted (a health check queued behind slow requests had the
# proxy take a busy node for dead). taxi_project/sync_limit.py says why a limit helps the
# latency tail; with 4 a process carried 15-20 % more moves and GETs a second than with none
# (BENCHMARKS.md, the tail).
HTTP_CONCURRENCY = int(os.environ.get("HTTP_CONCURRENCY", "4"))

# Pushes of one server process handed to its event loop and not yet published: a thread that
# commits goes on without waiting for its push (games/events.py). Past this many a thread waits
# for its own, so a slow channel layer slows the writers instead of holding pushes in memory.
PUSHES_PENDING = int(os.environ.get("PUSHES_PENDING", "1000"))

# Threads of one server process that run moves sent over WebSockets (games/consumers.py); more
# moves wait their turn in order. Each socket has at most one move in flight. Few, because they
# share the interpreter lock with the event loop that delivers every socket's frames; enough
# that their waits for PostgreSQL leave no CPU idle (bench/ws_moves.py: with 2, 0.93-1.08 x
# the GET rate and the machine 82-84 % busy; with 3, 1.12-1.15 x). 0: the event loop's
# default executor (CPU count + 4 threads).
SOCKET_MOVE_CONCURRENCY = int(os.environ.get("SOCKET_MOVE_CONCURRENCY", "3"))

# How often each server process looks up the versions of the games its sockets watch, so a
# socket whose push was lost (its process died between commit and publish) catches up: the
# longest an entry can wait to reach an open socket (games/consumers.py: _Watch).
SOCKET_HEARTBEAT_SECONDS = float(os.environ.get("SOCKET_HEARTBEAT_SECONDS", "10"))

if DATABASES["default"]["ENGINE"] == "django.db.backends.sqlite3":
    # Take the write lock when a transaction begins, so concurrent moves queue up rather than
    # failing half-way with "database is locked" (PostgreSQL uses SELECT … FOR UPDATE).
    DATABASES["default"].setdefault("OPTIONS", {}).update(
        {"transaction_mode": "IMMEDIATE", "timeout": 20}
    )
    # Tests use a file, not shared-cache memory, so concurrent tests lock as production does;
    # one per test process, so two runs never share it.
    DATABASES["default"]["TEST"] = {"NAME": str(VAR_DIR / f"test-db-{os.getpid()}.sqlite3")}

AUTH_USER_MODEL = "accounts.User"

AUTH_PASSWORD_VALIDATORS = [
    {"NAME": "django.contrib.auth.password_validation.UserAttributeSimilarityValidator"},
    {"NAME": "django.contrib.auth.password_validation.MinimumLengthValidator"},
    {"NAME": "django.contrib.auth.password_validation.CommonPasswordValidator"},
    {"NAME": "django.contrib.auth.password_validation.NumericPasswordValidator"},
]

LANGUAGE_CODE = "en"
# The five languages of the game's players; docs/i18n.md has each one's glossary.
LANGUAGES = [
    ("en", "English"),
    ("fr", "Français"),
    ("pl", "Polski"),
    ("ja", "日本語"),
    ("ko", "한국어"),
]
LOCALE_PATHS = [BASE_DIR / "locale"]
TIME_ZONE = "UTC"
USE_I18N = True
USE_TZ = True

STATIC_URL = "static/"
STATIC_ROOT = Path(os.environ.get("STATIC_ROOT", VAR_DIR / "static"))
if DEBUG:
    STATIC_ROOT.mkdir(parents=True, exist_ok=True)  # else WhiteNoise warns it is missing
STORAGES = {
    "default": {"BACKEND": "django.core.files.storage.FileSystemStorage"},
    # Hashed, compressed, cached for ever when DEBUG is off: needs `collectstatic` first (the
    # Docker image runs it). In DEBUG, files are served as they are, no collectstatic needed.
    "staticfiles": {
        "BACKEND": "django.contrib.staticfiles.storage.StaticFilesStorage"
        if DEBUG
        else "whitenoise.storage.CompressedManifestStaticFilesStorage"
    },
}

DEFAULT_AUTO_FIELD = "django.db.models.BigAutoField"

# "Your turn" e-mails: printed to the console unless a real backend is configured.
EMAIL_BACKEND = os.environ.get("EMAIL_BACKEND", "django.core.mail.backends.console.EmailBackend")
EMAIL_HOST = os.environ.get("EMAIL_HOST", "localhost")
EMAIL_PORT = int(os.environ.get("EMAIL_PORT", "25"))
DEFAULT_FROM_EMAIL = os.environ.get("DEFAULT_FROM_EMAIL", "Bahama Taxi <noreply@localhost>")
SITE_URL = os.environ.get("SITE_URL", "http://127.0.0.1:8000")

# --- The API -----------------------------------------------------------------------------------
REST_FRAMEWORK = {
    # Mobile clients send "Authorization: Token <key>"; browsers use the session cookie.
    "DEFAULT_AUTHENTICATION_CLASSES": [
        "accounts.authentication.TokenAuthentication",
        "accounts.authentication.SessionAuthentication",
    ],
    "DEFAULT_PERMISSION_CLASSES": ["rest_framework.permissions.IsAuthenticated"],
    "DEFAULT_SCHEMA_CLASS": "drf_spectacular.openapi.AutoSchema",
    "EXCEPTION_HANDLER": "taxi_project.api_errors.exception_handler",
    # DRF's JSON, except that echoed lone surrogates cannot turn a 400 into a 500
    "DEFAULT_RENDERER_CLASSES": [
        "taxi_project.renderers.JSONRenderer",
        "rest_framework.renderers.BrowsableAPIRenderer",
    ],
    # JSON only, nesting bounded (taxi_project/parsers.py): no endpoint takes a form or files
    "DEFAULT_PARSER_CLASSES": ["taxi_project.parsers.JSONParser"],
    "DEFAULT_PAGINATION_CLASS": "taxi_project.pagination.Pagination",
    "PAGE_SIZE": 50,
    "UNAUTHENTICATED_USER": "django.contrib.auth.models.AnonymousUser",
    "DEFAULT_THROTTLE_RATES": {
        "auth": os.environ.get("AUTH_THROTTLE_RATE", "20/min"),
        # per user, generous: a fast player makes a few moves a second at most
        "moves": os.environ.get("MOVE_THROTTLE_RATE", "120/min"),
        # old-password guesses and admin logins, per account and per address
        "password_change": os.environ.get("PASSWORD_CHANGE_THROTTLE_RATE", "10/hour"),
        "admin_login": os.environ.get("ADMIN_LOGIN_THROTTLE_RATE", "20/hour"),
        # registering a push subscription (each resolves a host name), per account and address
        "push_register": os.environ.get("PUSH_REGISTER_THROTTLE_RATE", "30/hour"),
        # a player's private notes saved (PUT …/notes), per user across games: a page saves
        # as the player makes them, one request at a time
        "notes": os.environ.get("NOTES_THROTTLE_RATE", "120/min"),
    },
    # DRF's default (None) trusts any X-Forwarded-For, so a client could dodge per-IP limits:
    # 0 with no proxy in front, N behind N reverse proxies. 0 under uvicorn --proxy-headers,
    # which has put the client's address in REMOTE_ADDR, trusting only FORWARDED_ALLOW_IPS.
    "NUM_PROXIES": int(os.environ.get("NUM_PROXIES", "0")),
}

SPECTACULAR_SETTINGS = {
    "TITLE": "Bahama Taxi API",
    "DESCRIPTION": (
        "Asynchronous online Bahama Taxi. Every error is JSON with a stable `code` and a human "
        "`message`. Code: all rights reserved, no licence granted yet. Board: Bahama Taxi "
        "board by Bartosz Sułkowski, CC BY 4.0 (https://creativecommons.org/licenses/by/4.0/): "
        "show its attribution wherever the board is drawn (`GET /api/v1/board`)."
    ),
    "VERSION": "1.0.0",
    # the code has no licence granted yet: say so until one is chosen; the board's is linked
    "LICENSE": {
        "name": "Code: all rights reserved (no licence granted yet); board: CC BY 4.0",
        "url": "https://creativecommons.org/licenses/by/4.0/",
    },
    # relative to the schema's own address: the server that serves it
    "SERVERS": [{"url": "/", "description": "this server"}],
    "SERVE_INCLUDE_SCHEMA": False,
    # /api/docs/ loads Swagger UI from this host, under the same policy as every page
    "SWAGGER_UI_DIST": "SIDECAR",
    "SWAGGER_UI_FAVICON_HREF": "SIDECAR",
    "COMPONENT_SPLIT_REQUEST": True,
    # operations tagged by the path after /api/v1/ (games, tables, me, board), not "v1"
    "SCHEMA_PATH_PREFIX": r"/api/v[0-9]+",
    # names a generated client can use (games/schema.py)
    "ENUM_NAME_OVERRIDES": {
        "Area": "games.schema.AREAS",
        "BotLevel": "games.models.BOT_LEVELS",
        "ErrorCode": "taxi_project.error_codes.codes",
        "GameStatus": "games.models.Game.Status",
        "ViewStatus": "games.schema.VIEW_STATUSES",
        "GameStartedNotificationTypeEnum": "games.schema.TAG_GAME_STARTED",
        "TurnStartedNotificationTypeEnum": "games.schema.TAG_TURN_STARTED",
        "GameEndedNotificationTypeEnum": "games.schema.TAG_GAME_ENDED",
        "GameAbortedNotificationTypeEnum": "games.schema.TAG_GAME_ABORTED",
        "DigitCodeAskTypeEnum": "games.schema.TAG_ASK",
        "DigitCodeGuessTypeEnum": "games.schema.TAG_GUESS",
        "GameEnum": "games.registry.keys",  # every game: a filter, a profile's game
        "BahamaTaxiGameEnum": "games.schema.TAG_BAHAMA_TAXI",
        "DigitCodeGameEnum": "games.schema.TAG_DIGIT_CODE",
        "DigitCodeOneToSixEnum": "games.schema.ONE_TO_SIX",
        "DigitCodeLineEnum": "games.schema_digit_code.LINES",
        "DigitCodeSegmentEnum": "games.schema_digit_code.SEGMENTS",
    },
    "POSTPROCESSING_HOOKS": [
        "games.schema.name_error_code_enums",
        "drf_spectacular.hooks.postprocess_schema_enums",
        "games.schema.generator_friendly",
    ],
}

# API tokens, one per device (django-rest-knox): stored as SHA-512 digests, sent as
# `Authorization: Token <key>` as before, valid TOKEN_DAYS after their last use.
KNOX_TOKEN_MODEL = "accounts.DeviceToken"
# knox's own migrations would build the table of its default model, which ours replaces (and
# a table no model names breaks PostgreSQL's flush, whose TRUNCATE it references users)
MIGRATION_MODULES = {"knox": None}
REST_KNOX = {
    "AUTH_HEADER_PREFIX": "Token",
    "TOKEN_TTL": timedelta(days=float(os.environ.get("TOKEN_DAYS", "90"))),
    "AUTO_REFRESH": True,
    "MIN_REFRESH_INTERVAL": 3600,  # at most one write an hour per token
}

# Tables one account sits at that have not ended, and of them the ones it opened that still
# wait for players (games.services.tables; 409 too_many_tables; docs/reliability.md)
MAX_UNFINISHED_TABLES_PER_ACCOUNT = int(os.environ.get("MAX_UNFINISHED_TABLES_PER_ACCOUNT", "50"))
MAX_OPEN_TABLES_PER_ACCOUNT = int(os.environ.get("MAX_OPEN_TABLES_PER_ACCOUNT", "10"))
# tables opened (POST /api/v1/tables), per account and per client address (429 throttled)
TABLE_CREATE_THROTTLE_RATE = os.environ.get("TABLE_CREATE_THROTTLE_RATE", "60/hour")

# A player's private notes on one seat (PUT /api/v1/games/{id}/notes), as UTF-8 JSON: 413
# request_too_large beyond (games.services.notes; docs/reliability.md)
NOTES_MAX_BYTES = int(os.environ.get("NOTES_MAX_BYTES", "4096"))

# API tokens one account holds at once: a new login signs out the least recently used beyond
# this (accounts.services.token_issue; docs/reliability.md)
DEVICE_TOKENS_PER_ACCOUNT = int(os.environ.get("DEVICE_TOKENS_PER_ACCOUNT", "20"))

# GET /api/v1/games/{id}/stream writes a keep-alive line after this many idle seconds
STREAM_KEEPALIVE_SECONDS = float(os.environ.get("STREAM_KEEPALIVE_SECONDS", "20"))

# What one client may keep open at once, per account and per client address (the address the
# rate limits count), across every process and node: streams (GET /api/v1/games/{id}/stream;
# 429 `too_many_connections`) and WebSockets (close code 4429). 0 turns a cap off. Counted in
# Redis with REDIS_URL: a killed process's count lapses CONNECTION_LEASE_SECONDS after its last
# renewal (taxi_project/connection_limits.py, docs/reliability.md "Limits").
MAX_STREAMS_PER_ACCOUNT = int(os.environ.get("MAX_STREAMS_PER_ACCOUNT", "10"))
MAX_STREAMS_PER_ADDRESS = int(os.environ.get("MAX_STREAMS_PER_ADDRESS", "50"))
MAX_SOCKETS_PER_ACCOUNT = int(os.environ.get("MAX_SOCKETS_PER_ACCOUNT", "32"))
MAX_SOCKETS_PER_ADDRESS = int(os.environ.get("MAX_SOCKETS_PER_ADDRESS", "200"))
CONNECTION_LEASE_SECONDS = float(os.environ.get("CONNECTION_LEASE_SECONDS", "15"))
# ...and how many of them one address may be opening at once in one server process (one more
# is refused before it is authenticated: hundreds at once kept every thread busy refusing, and
# each holds a pooled connection while it is authenticated: keep it under DB_POOL_MAX_SIZE)
MAX_HANDSHAKES_PER_ADDRESS = int(os.environ.get("MAX_HANDSHAKES_PER_ADDRESS", "4"))

# Push notifications (accounts/push.py, games/push.py, docs/api.md "Push").
# VAPID (RFC 8292): the server's key pair for Web Push; unset in DEBUG, a development pair is
# kept in var/ (accounts/vapid.py); unset otherwise, Web Push is off.
VAPID_PRIVATE_KEY = os.environ.get("VAPID_PRIVATE_KEY", "")
VAPID_PUBLIC_KEY = os.environ.get("VAPID_PUBLIC_KEY", "")
VAPID_SUBJECT = os.environ.get("VAPID_SUBJECT", "mailto:admin@localhost")
VAPID_DEV_KEYS = DEBUG and not VAPID_PRIVATE_KEY
# Push services are https; plain http endpoints only for local work (a test's own endpoint).
PUSH_INSECURE_ENDPOINTS = env_bool("PUSH_INSECURE_ENDPOINTS", DEBUG)
# service -> sender class (accounts/push_backends.py documents the interface for APNs or FCM)
PUSH_BACKENDS = {"webpush": "accounts.push_backends.WebPushBackend"}
# how long a push service keeps a notification for a device that is offline
PUSH_TTL_SECONDS = int(os.environ.get("PUSH_TTL_SECONDS", str(24 * 3600)))
# Where a push may go (accounts/push_targets.py): public addresses only. PUSH_ALLOWED_HOSTS,
# if set, lists the push services' hosts (each also matches its subdomains), e.g.
# "fcm.googleapis.com,push.services.mozilla.com,push.apple.com,notify.windows.com".
# PUSH_TRUSTED_NETWORKS lists networks pushed to although internal (a push service of your
# own; the tests' local endpoint); empty by default. PUSH_CA_CERTS: a CA bundle instead of
# certifi's.
PUSH_ALLOWED_HOSTS = env_list("PUSH_ALLOWED_HOSTS")
# a network that is not one stops the start (ValueError), rather than every push later
PUSH_TRUSTED_NETWORKS = [
    str(ipaddress.ip_network(net, strict=False)) for net in env_list("PUSH_TRUSTED_NETWORKS")
]
PUSH_CA_CERTS = os.environ.get("PUSH_CA_CERTS", "")
PUSH_CONNECT_TIMEOUT_SECONDS = float(os.environ.get("PUSH_CONNECT_TIMEOUT_SECONDS", "3"))
PUSH_READ_TIMEOUT_SECONDS = float(os.environ.get("PUSH_READ_TIMEOUT_SECONDS", "5"))
# per account: devices kept (registering one more replaces the least recently registered),
# and pushes of each kind (your turn, game ended, chat) an hour, each to every device
PUSH_SUBSCRIPTIONS_PER_ACCOUNT = int(os.environ.get("PUSH_SUBSCRIPTIONS_PER_ACCOUNT", "10"))
PUSH_NOTIFICATIONS_PER_HOUR = int(os.environ.get("PUSH_NOTIFICATIONS_PER_HOUR", "60"))

# --- Redis, or the embedded fallbacks -------------------------------------------------------
REDIS_URL = os.environ.get("REDIS_URL", "")

# Every Redis key and channel of this deployment starts with this prefix: Redis pub/sub ignores
# database numbers, so two deployments (staging and production, two test runs) on one Redis
# server would otherwise receive each other's pushes. By default it is derived from the
# database, so that it cannot be forgotten: two deployments on one database are one.
_db = DATABASES["default"]
REDIS_PREFIX = (
    os.environ.get("REDIS_PREFIX")
    or "bt-"
    + hashlib.sha256(
        f"{_db['ENGINE']}|{_db.get('HOST', '')}|{_db.get('PORT', '')}|{_db['NAME']}".encode()
    ).hexdigest()[:12]
)

if REDIS_URL:
    from redis.exceptions import ConnectionError as RedisConnectionError

    # Shared by every process: rate-limit counts must not be per worker.
    CACHES = {
        "default": {
            "BACKEND": "django.core.cache.backends.redis.RedisCache",
            "LOCATION": REDIS_URL,
            "KEY_PREFIX": f"{REDIS_PREFIX}:cache",
            # its connections outlive a Redis restart: reconnect rather than fail the call; and
            # a Redis that stops answering fails the call in 2 s (rate limits fail open)
            # rather than hanging the request
            "OPTIONS": {"retry_on_error": [RedisConnectionError], "socket_timeout": 2},
        }
    }
    # The layer publishes one message at a time per connection (channels_redis holds a lock
    # around each PUBLISH): a server process's pushes queue behind one another on it. The same
    # Redis listed N times spreads the groups over N connections per process (a message
    # published on any of them reaches every subscriber): 4 + 4 connections a process. With 4,
    # an entry reached the players' sockets at p50 132 ms after its socket move was answered,
    # against 183 ms with 1 (bench/ws_moves.py, one short run each, before socket moves had
    # threads of their own: SOCKET_MOVE_CONCURRENCY).
    CHANNEL_LAYER_SHARDS = int(os.environ.get("CHANNEL_LAYER_SHARDS", "4"))
    CHANNEL_LAYERS = {
        "default": {
            # Pub/sub: a group_send is one PUBLISH (the core layer's costs four round trips
            # and a Lua script per push). Nothing is queued for a socket that is not there;
            # clients catch up from their last seq anyway (docs/websocket.md).
            "BACKEND": "channels_redis.pubsub.RedisPubSubChannelLayer",
            # socket_timeout: a Redis that stops answering fails a publish in 15 s.
            # retry_on_error: after Redis restarts, pooled connections are dead; the first
            # command on one fails. Reconnect and retry it rather than fail the handshake or
            # the push (subscribing is idempotent; consumers drop an entry they already sent).
            "CONFIG": {
                "hosts": [
                    {
                        "address": REDIS_URL,
                        "socket_timeout": 15,
                        "retry_on_error": [RedisConnectionError],
                    }
                ]
                * CHANNEL_LAYER_SHARDS,
                "prefix": f"{REDIS_PREFIX}:asgi",
            },
        }
    }
    CELERY_BROKER_URL = REDIS_URL
    CELERY_RESULT_BACKEND = REDIS_URL
    # kombu and Celery's Redis backend put this before every key (queues, results)
    CELERY_BROKER_TRANSPORT_OPTIONS = {"global_keyprefix": f"{REDIS_PREFIX}:celery:"}
    CELERY_RESULT_BACKEND_TRANSPORT_OPTIONS = {"global_keyprefix": f"{REDIS_PREFIX}:celery:"}
else:
    # One process only: fine for `dev.py serve`, which runs a single uvicorn worker.
    CHANNEL_LAYERS = {"default": {"BACKEND": "channels.layers.InMemoryChannelLayer"}}

    # Celery without Redis: kombu's SQLAlchemy transport keeps the queue in a SQLite file, so a
    # laptop without Redis still runs a real worker (and beat) in a separate process, exercising
    # the same code paths as production instead of running tasks eagerly in-process. (Its
    # filesystem transport lets a worker read a message file before its writer has written it:
    # the worker died on the empty file within seconds of `dev.py serve`.)
    CELERY_DIR = VAR_DIR / "celery"
    _celery_folders = {name: CELERY_DIR / name for name in ("results",)}
    for _folder in _celery_folders.values():
        # the file result backend refuses to start without its folder
        _folder.mkdir(parents=True, exist_ok=True)
    CELERY_BROKER_URL = f"sqla+sqlite:///{CELERY_DIR / 'broker.sqlite3'}"
    CELERY_RESULT_BACKEND = f"file://{_celery_folders['results']}"

CELERY_TIMEZONE = TIME_ZONE
# Its own queue name lets two deployments (or test runs) share one broker without stealing tasks.
CELERY_TASK_DEFAULT_QUEUE = os.environ.get("CELERY_QUEUE", "celery")
CELERY_TASK_SERIALIZER = "json"
CELERY_RESULT_SERIALIZER = "json"
CELERY_ACCEPT_CONTENT = ["json"]
CELERY_BROKER_CONNECTION_RETRY_ON_STARTUP = True
CELERY_BEAT_SCHEDULE_FILENAME = str(VAR_DIR / "celerybeat-schedule")
# Deadlines one beat tick fires at most; the rest wait for the next tick. A burst (a thousand
# turn clocks or wall-clock deadlines due at once) is spread over seconds rather than taking
# every CPU the worker can get at once: on a machine shared with the web server, the moves
# answered meanwhile waited up to 1.25 s (p99) while 1,000 games were swept in 5.4 s; 168 ms
# with 50 a tick, swept in 19.4 s (BENCHMARKS.md, the tail). Deadlines due at a steady rate below
# it are fired on the tick; a backlog is cleared at this many a second (a larger batch clears
# it sooner, at the moves' expense where the worker shares their CPUs). The default, 250,
# keeps the backlog goal (10,000 games due at once cleared at ≥ 200 a second, BENCHMARKS.md);
# a deployment whose worker shares the web server's CPUs may lower it.
DEADLINE_SWEEP_BATCH = int(os.environ.get("DEADLINE_SWEEP_BATCH", "250"))
# The pool processes of a worker consuming the default queue (the deadline sweep, pushes,
# e-mail, archiving) run this much nicer than the web server (0: the same priority; the
# worker's main process, with its beat and timers, keeps its own): where they share CPUs, a
# person's request comes before a sweep of a thousand timeouts, which takes whatever CPU the
# requests leave (taxi_project/celery.py; BENCHMARKS.md, the tail). Linux weighs sessions against
# each other and a niceness only within one: a worker that leads a session of its own makes
# its whole session this nice; in a container, its cgroup's CPU weight decides instead
# (docker/compose.yaml: cpu_shares).
WORKER_POOL_NICENESS = int(os.environ.get("WORKER_POOL_NICENESS", "10"))
CELERY_BEAT_SCHEDULE = {
    "sweep-deadlines": {
        "task": "games.tasks.sweep_deadlines",
        "schedule": float(os.environ.get("DEADLINE_TICK_SECONDS", "1")),
        "options": {"expires": 5},
    },
    "wake-bots": {"task": "games.tasks.wake_bots", "schedule": 2.0, "options": {"expires": 2}},
    "archive-games": {
        "task": "games.tasks.archive_games",
        "schedule": 24 * 3600.0,
        "options": {"expires": 3600},
    },
}
# Finished games' logs are compacted into one compressed row each after this many days
# (games/archive.py); each daily run archives at most ARCHIVE_BATCH games.
ARCHIVE_AFTER_DAYS = float(os.environ.get("ARCHIVE_AFTER_DAYS", "30"))
ARCHIVE_BATCH = int(os.environ.get("ARCHIVE_BATCH", "20000"))
# Computer opponents on a queue of their own, so a busy bot never delays the
# deadline sweep. Both queues are declared: a worker started without -Q (dev.py serve, the
# tests' worker) consumes both; production runs a worker per queue (docker/compose.yaml).
CELERY_BOT_QUEUE = os.environ.get("CELERY_BOT_QUEUE", "bots")
CELERY_TASK_QUEUES = (Queue(CELERY_TASK_DEFAULT_QUEUE), Queue(CELERY_BOT_QUEUE))
CELERY_TASK_ROUTES = {
    "games.tasks.bot_play": {"queue": CELERY_BOT_QUEUE},
    "games.tasks.wake_bots": {"queue": CELERY_BOT_QUEUE},
}
# A bot's move is due this long after its turn begins (its CPU budget is the engine's
# DEFAULT_BUDGET playouts: under a second, bench/BOTS_RESULTS.md).
BOT_THINK_SECONDS = float(os.environ.get("BOT_THINK_SECONDS", "2"))
# A bot's turn that has not moved for BOT_THINK_SECONDS + BOT_LOST_AFTER_SECONDS lost its
# task (its worker died): the beat's wake_bots (every 2 s) queues it again, once per version.
BOT_LOST_AFTER_SECONDS = float(os.environ.get("BOT_LOST_AFTER_SECONDS", "3"))
# Each worker consuming the bots queue says it lives every this many seconds (lapsing after
# three): while one does, a bot's turn clock running out queues the bot again rather than the
# autopilot, for at most BOT_TIMEOUT_GRACE_SECONDS past the turn's limit (docs/reliability.md).
BOT_WORKER_HEARTBEAT_SECONDS = float(os.environ.get("BOT_WORKER_HEARTBEAT_SECONDS", "1"))
BOT_TIMEOUT_GRACE_SECONDS = float(os.environ.get("BOT_TIMEOUT_GRACE_SECONDS", "60"))
# The pool processes of a worker consuming the bots queue only run this much nicer (0: as the
# rest): where it shares the CPU with the web server, people's requests come before bots'
# searches (taxi_project/celery.py). Off by default: bots decide during their think time and
# take 0.15 CPU a second under the bot_think bench. (At 10 the paced players' p99 did not
# improve there, 264.5 ms against 240.4 at 0; but that bench's bots worker led a session of its
# own, where a pool's niceness did not yet reach past its session: BENCHMARKS.md.)
BOT_POOL_NICENESS = int(os.environ.get("BOT_POOL_NICENESS", "0"))
# Ratings that cannot be farmed (games/ratings.py, rules 4 and 5; docs/bots-and-ratings.md): a
# seat counts only after this many turns its player ended themselves, and an account's results
# move established players' ratings only once it has this many rated games and is this old.
# Changing one changes what the logs say: run `manage.py rebuild_ratings --write` after.
RATING_MIN_OWN_TURNS = int(os.environ.get("RATING_MIN_OWN_TURNS", "5"))
RATING_PROVISIONAL_GAMES = int(os.environ.get("RATING_PROVISIONAL_GAMES", "5"))
RATING_PROVISIONAL_DAYS = float(os.environ.get("RATING_PROVISIONAL_DAYS", "3"))
# A killed worker's unacknowledged tick is not redelivered: the next tick finds what it left.
CELERY_TASK_ACKS_LATE = False
CELERY_WORKER_PREFETCH_MULTIPLIER = 1

# --- Logs ------------------------------------------------------------------------------------
# One line per record on stderr; LOG_FORMAT=json makes each line a JSON object (for a log
# collector), for Django, Celery and uvicorn alike. Django's own default prints nothing with
# DEBUG off, not even a 500's traceback: here errors always reach stderr.
LOG_FORMAT = os.environ.get("LOG_FORMAT", "text")
LOG_LEVEL = os.environ.get("LOG_LEVEL", "INFO").upper()
_LOG_JSON = LOG_FORMAT == "json"
# uvicorn configured its own plain handlers before Django started: in JSON, replace them
_LOGGERS = ("django", "uvicorn", "uvicorn.error", "uvicorn.access") if _LOG_JSON else ("django",)
LOGGING = {
    "version": 1,
    "disable_existing_loggers": False,
    "formatters": {
        # python-json-logger: time (UTC, ISO 8601), level, logger, message, process, and
        # exc_info and whatever `extra=` adds when present
        "main": {
            "()": "pythonjsonlogger.json.JsonFormatter",
            "fmt": ["levelname", "name", "message", "process"],
            "rename_fields": {"levelname": "level", "name": "logger"},
            "timestamp": "time",
            "json_ensure_ascii": False,
        }
        if _LOG_JSON
        else {"format": "%(asctime)s %(levelname)s %(name)s %(process)d: %(message)s"}
    },
    "handlers": {"stderr": {"class": "logging.StreamHandler", "formatter": "main"}},
    "root": {"handlers": ["stderr"], "level": LOG_LEVEL},
    "loggers": {
        name: {"handlers": ["stderr"], "level": LOG_LEVEL, "propagate": False} for name in _LOGGERS
    },
}
if _LOG_JSON:
    CELERY_WORKER_HIJACK_ROOT_LOGGER = False  # keep the JSON handler in workers and beat
