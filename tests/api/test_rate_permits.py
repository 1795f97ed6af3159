"""The rate limits' shared counts, taken a few permits at a time by each process
(`taxi_project.cache.take`): never more than the limit in all, one count per `LEASE` permits,
and at most (processes - 1) x (LEASE - 1) refused early. With REDIS_URL the counts are Redis's,
as in production; without it, Django's cache's."""

from __future__ import annotations

import uuid

import pytest

from taxi_project import cache


@pytest.fixture
def counted(monkeypatch):
    """The counts each `take` made of the shared counter."""
    made: list[int] = []
    real = cache.count

    def count(key, timeout, by=1):
        made.append(by)
        return real(key, timeout, by)

    monkeypatch.setattr(cache, "count", count)
    return made


def _key() -> str:
    return f"test-permits:{uuid.uuid4().hex}"


def test_one_process_gets_exactly_the_limit_with_one_count_per_lease(counted):
    key, limit = _key(), 10
    granted = [cache.take(key, 60, limit) for _ in range(15)]
    assert granted == [True] * limit + [False] * 5
    # 10 permits in leases of 4 (the third keeps the 2 the limit leaves), then refusals
    assert counted[:3] == [cache.LEASE] * 3 and len(counted) == 3 + 5


@pytest.mark.parametrize("processes", [2, 3])
def test_processes_sharing_a_count_never_get_more_than_the_limit(monkeypatch, processes):
    """Each process holds its permits; those one holds unused are refused to the others,
    never handed out twice."""
    key, limit = _key(), 21
    held: list[dict] = [{} for _ in range(processes)]  # what each process holds
    granted = 0
    for attempt in range(limit * 3):
        monkeypatch.setattr(cache, "_leases", held[attempt % processes])
        granted += cache.take(key, 60, limit)
    assert limit - (processes - 1) * (cache.LEASE - 1) <= granted <= limit


def test_a_limit_below_a_lease_holds_exactly():
    key = _key()
    assert [cache.take(key, 60, 3) for _ in range(5)] == [True] * 3 + [False] * 2


def test_permits_are_per_key():
    first, second = _key(), _key()
    assert cache.take(first, 60, 1) and not cache.take(first, 60, 1)
    assert cache.take(second, 60, 1)
