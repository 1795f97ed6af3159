"""A Web Push never reaches the server's own network (accounts/push_targets.py; docs/api.md
"Push"): an endpoint whose host is internal is refused when it is registered and deleted
unsent when it is pushed to; the request goes to the address that was checked (no second
lookup), keeps TLS verification and SNI for the host's name, and never follows a redirect.

`Listener` is a port on loopback that counts every connection: each test that says "never
reached" counts zero there. `dns` (conftest.py) stands in for the resolver."""

from __future__ import annotations

import pytest

from accounts.models import PushSubscription
from accounts.tasks import push_deliver
from tests.players import play_turn, seat_players, start_game
from tests.push.certificates import Authority
from tests.push.conftest import subscribe
from tests.push.endpoint import Listener, PushEndpoint

pytestmark = pytest.mark.usefixtures("eager_tasks")

SUBSCRIPTIONS = "/api/v1/me/push-subscriptions"
PUBLIC = "93.184.215.14"  # a public address (nothing connects to it here)
PAYLOAD = {"v": 1, "type": "chat", "game": 1, "title": "t", "body": "b", "url": "/games/1",
           "tag": "game-1-chat", "message": {"id": 1, "author": {}, "text": "b"}}  # fmt: skip


def _keys() -> dict:
    return PushEndpoint().subscription()["keys"]


def _register(player, endpoint: str):
    return player.post(SUBSCRIPTIONS, {"endpoint": endpoint, "keys": _keys()})


def _assert_refused(answer, *, codes=("push_endpoint_refused",)) -> None:
    body = answer.json()
    assert answer.status_code == 400, body
    assert body["code"] in codes, body
    assert body["message"]


INTERNAL_URLS = [
    "https://127.0.0.1:{port}/push/a",
    "https://localhost:{port}/push/a",
    "https://0.0.0.0:{port}/push/a",
    "https://[::ffff:127.0.0.1]:{port}/push/a",
    "https://[::1]:{port}/push/a",
    "https://[::]:{port}/push/a",
    "https://169.254.169.254/latest/meta-data/",
    "https://10.0.0.1/push/a",
    "https://172.16.0.1/push/a",
    "https://192.168.1.1/push/a",
    "https://100.64.0.1/push/a",  # shared address space (carrier NAT)
    "https://224.0.0.1/push/a",  # multicast
    "https://240.0.0.1/push/a",  # reserved
    "https://255.255.255.255/push/a",
    "https://[fe80::1]/push/a",
    "https://[fc00::1]/push/a",
    "https://[fec0::1]/push/a",  # site-local
    "https://[ff02::1]/push/a",
    "https://[2002:7f00:1::]/push/a",  # 6to4 of 127.0.0.1
    "https://[64:ff9b::7f00:1]/push/a",  # NAT64 of 127.0.0.1
    "https://metadata.google.internal/computeMetadata/v1/",
    "https://push.localhost/push/a",
    "https://printer.local/push/a",
]

# forms of 127.0.0.1 that resolvers (inet_aton) accept, and a name of one label (which the
# resolver's search list would complete): refused as URLs or as hosts
OTHER_FORMS = [
    "https://metadata/computeMetadata/v1/",
    "https://2130706433:{port}/",
    "https://0177.0.0.1:{port}/",
    "https://0x7f.0.0.1:{port}/",
    "https://0x7f000001:{port}/",
    "https://127.1:{port}/",
    "https://017700000001:{port}/",
    "https://127.0.1:{port}/",
]


@pytest.mark.usefixtures("untrusted", "dns")
@pytest.mark.parametrize("url", INTERNAL_URLS)
def test_an_internal_endpoint_is_refused_at_registration(make_player, listener, url):
    answer = _register(make_player(), url.format(port=listener.port))
    _assert_refused(answer)
    assert not PushSubscription.objects.exists()
    assert listener.connections == 0


@pytest.mark.usefixtures("untrusted", "dns")
@pytest.mark.parametrize("url", OTHER_FORMS)
def test_other_forms_of_an_address_are_refused_at_registration(make_player, listener, url):
    answer = _register(make_player(), url.format(port=listener.port))
    _assert_refused(answer, codes=("push_endpoint_refused", "invalid_push_subscription"))
    assert "endpoint" in answer.json().get("errors", {"endpoint": "refused"})
    assert not PushSubscription.objects.exists()
    assert listener.connections == 0


@pytest.mark.usefixtures("untrusted")
@pytest.mark.parametrize(
    "addresses",
    [["127.0.0.1"], ["10.1.2.3"], ["169.254.169.254"], ["::1"], ["::ffff:10.0.0.1"],
     [PUBLIC, "192.168.0.7"], ["fd12:3456::1", "2606:4700::1111"]],
)  # fmt: skip
def test_a_name_that_resolves_to_any_internal_address_is_refused(
    make_player, listener, dns, addresses
):
    dns.answers["push.example.com"] = [addresses]
    answer = _register(make_player(), f"https://push.example.com:{listener.port}/push/a")
    _assert_refused(answer)
    assert listener.connections == 0 and not PushSubscription.objects.exists()


@pytest.mark.usefixtures("untrusted")
def test_refusals_say_nothing_about_the_servers_network(make_player, dns):
    """An internal name and a name that does not resolve get the same answer: registering is
    not a way to map the server's DNS."""
    dns.answers["db.example.com"] = [["10.0.0.5"]]
    player = make_player()
    internal = _register(player, "https://db.example.com/push/a")
    unknown = _register(player, "https://nothing-here.example.com/push/a")
    _assert_refused(internal)
    assert internal.json() == unknown.json()


def test_a_public_name_is_accepted(make_player, dns):
    dns.answers["fcm.example.com"] = [[PUBLIC, "2606:4700::1111"]]
    answer = _register(make_player(), "https://fcm.example.com/fcm/send/abc")
    assert answer.status_code == 201, answer.json()


# ---------------------------------------------------------------------- at send time


def _waiting(players, game_id):
    from games.models import Game

    by_seat = seat_players(game_id, players)
    return by_seat, by_seat[1 - Game.objects.get(pk=game_id).active_seat]


def test_a_name_that_resolves_inside_at_send_time_is_deleted_unsent(
    make_player, listener, untrusted, dns, django_capture_on_commit_callbacks
):
    """DNS rebinding: public when registered, loopback when pushed to."""
    players = [make_player(), make_player()]
    game_id = start_game(players)
    by_seat, waiting = _waiting(players, game_id)
    dns.answers["push.example.com"] = [[PUBLIC], ["127.0.0.1"]]
    dns.elsewhere["push.example.com"] = ("127.0.0.1", listener.port)
    url = f"http://push.example.com:{listener.port}/push/a"
    assert _register(waiting, url).status_code == 201
    with django_capture_on_commit_callbacks(execute=True):
        play_turn(game_id, by_seat)
    assert listener.connections == 0
    assert not PushSubscription.objects.filter(user=waiting.user).exists()
    assert waiting.get(SUBSCRIPTIONS).json() == []


def test_the_request_goes_to_the_address_checked_not_a_second_lookup(
    make_player, make_endpoint, rebound, dns
):
    endpoint = make_endpoint(host="push.example.com")
    dns.answers["push.example.com"] = [["127.0.0.1"]]  # trusted: the tests' endpoint
    dns.elsewhere["push.example.com"] = (rebound.address, rebound.port)
    subscription = subscribe(make_player(), endpoint)
    assert push_deliver.delay(subscription["id"], PAYLOAD).get() == "sent"
    [received] = endpoint.received
    assert received.problem is None, received.problem  # VAPID audience: the name's origin
    assert received.headers["host"] == f"push.example.com:{endpoint.port}"
    assert dns.system_lookups == [] and rebound.connections == 0


@pytest.mark.parametrize("status", [301, 302, 303, 307, 308])
def test_a_redirect_is_never_followed(make_player, make_endpoint, rebound, status):
    endpoint = make_endpoint(
        status=status, headers={"Location": f"http://127.0.0.2:{rebound.port}/internal"}
    )
    subscription = subscribe(make_player(), endpoint)
    assert push_deliver.delay(subscription["id"], PAYLOAD).get() == "rejected"
    assert [r.answered for r in endpoint.received] == [status]
    assert rebound.connections == 0
    assert PushSubscription.objects.get().last_pushed is None


@pytest.mark.parametrize(
    "change",
    [
        {"PUSH_TRUSTED_NETWORKS": []},  # the endpoint is on loopback
        {"PUSH_INSECURE_ENDPOINTS": False},  # it is plain http
        {"PUSH_ALLOWED_HOSTS": ["push.example.com"]},  # it is not a push service listed
    ],
)
def test_an_endpoint_refused_now_is_deleted_at_send_time_unsent(
    make_player, settings, change, django_capture_on_commit_callbacks
):
    """Registered while allowed (or before these checks existed); refused when pushed to:
    deleted, never connected to, and nothing the owner sees says how it would have answered."""
    players = [make_player(), make_player()]
    game_id = start_game(players)
    by_seat, waiting = _waiting(players, game_id)
    with Listener("127.0.0.1") as target:
        url = f"http://127.0.0.1:{target.port}/push/a"
        assert _register(waiting, url).status_code == 201
        for name, value in change.items():
            setattr(settings, name, value)
        with django_capture_on_commit_callbacks(execute=True):
            play_turn(game_id, by_seat)
        assert target.connections == 0
    assert waiting.get(SUBSCRIPTIONS).json() == []


# ---------------------------------------------------------------------- TLS and the allow-list


@pytest.fixture
def authority(tmp_path, settings):
    made = Authority(tmp_path)
    settings.PUSH_CA_CERTS = str(made.path)
    settings.PUSH_INSECURE_ENDPOINTS = False
    return made


def test_https_verifies_the_certificate_for_the_name_and_sends_it_as_sni(
    make_player, make_endpoint, authority, dns
):
    tls = authority.server_context("push.example.com")
    endpoint = make_endpoint(host="push.example.com", tls=tls)
    dns.answers["push.example.com"] = [["127.0.0.1"]]
    subscription = subscribe(make_player(), endpoint)
    assert subscription["endpoint"].startswith("https://push.example.com:")
    assert push_deliver.delay(subscription["id"], PAYLOAD).get() == "sent"
    assert [p["type"] for p in endpoint.payloads()] == ["chat"]
    assert endpoint.sni == ["push.example.com"]
    assert dns.system_lookups == []


def test_a_certificate_for_another_name_is_not_trusted(make_player, make_endpoint, authority, dns):
    endpoint = make_endpoint(host="push.example.com", tls=authority.server_context("other.test"))
    dns.answers["push.example.com"] = [["127.0.0.1"]]
    subscription = subscribe(make_player(), endpoint)
    push_deliver.delay(subscription["id"], PAYLOAD).get(propagate=False)
    assert endpoint.received == []  # the handshake failed: nothing was sent
    assert set(endpoint.sni) == {"push.example.com"}
    assert PushSubscription.objects.get().last_pushed is None


def test_the_allow_list_matches_a_host_and_its_subdomains_only(make_player, settings, dns):
    settings.PUSH_ALLOWED_HOSTS = ["push.example.com"]
    for name in ("push.example.com", "eu.push.example.com", "notpush.example.com",
                 "push.example.com.evil.example.net"):  # fmt: skip
        dns.answers[name] = [[PUBLIC]]
    player = make_player()
    assert _register(player, "https://push.example.com/a").status_code == 201
    assert _register(player, "https://eu.push.example.com/b").status_code == 201
    _assert_refused(_register(player, "https://notpush.example.com/c"))
    _assert_refused(_register(player, "https://push.example.com.evil.example.net/d"))


def test_credentials_in_the_url_are_refused(make_player, dns):
    dns.answers["push.example.com"] = [[PUBLIC]]
    answer = _register(make_player(), "https://user:secret@push.example.com/a")
    _assert_refused(answer, codes=("push_endpoint_refused", "invalid_push_subscription"))
    assert not PushSubscription.objects.exists()
