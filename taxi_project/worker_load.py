"""How busy each HTTP worker of a node is, told to the others: the requests each has in Django
or waiting for a place there (taxi_project/sync_limit.py), one number a worker, in memory the
workers share.

Why: each worker accepts on a socket of its own (taxi_project/serve.py, SO_REUSEPORT), and the
kernel hands a new connection to one of them by a hash of its addresses. A client that keeps
its connections alive (the proxy's pool, the app, a load generator) sends most of its requests
on the few connections it used last, so which worker serves them was decided when those were
opened, whatever each worker's load is now. Measured with paced players at half capacity
(BENCHMARKS.md, the tail), one worker of three served 60 % of the moves while the other two had free
threads, and 322 of the 347 answers slower than 100 ms were its. So a worker whose requests
wait for a place while another worker has a free one closes the connection it has just answered
(`Connection: close`, after the whole response: RFC 9112 §9.6). The client opens another, which
the kernel hashes again: to another worker two times in three with three workers. A node
whose workers all have a free place, or none has, sheds nothing.

The board is an array of one int a worker, made by serve.py's parent before it starts them and
given to each with its index (`attach`). A worker writes only its own slot, from its event loop;
it reads the others' as last written. Without a board (one process, tests, `dev.py serve`)
nothing is shed.
"""

from __future__ import annotations

from collections.abc import MutableSequence

_board: MutableSequence[int] | None = None
_index = 0
shed = 0  # connections this process closed to rebalance (bench/_probe.py reports it)


def attach(board: MutableSequence[int] | None, index: int) -> None:
    """This process is HTTP worker `index` of those sharing `board` (None: alone)."""
    global _board, _index
    _board, _index = board, index


def loads() -> tuple[int, list[int]]:
    """This worker's index, and every worker's load as last told ([]: alone)."""
    return _index, [] if _board is None else list(_board)


def publish(demand: int) -> None:
    """This worker's requests in Django or waiting for a place, now."""
    if _board is not None:
        _board[_index] = demand


def crowded(demand: int, places: int) -> bool:
    """True if this worker's requests wait for a place (`demand` over its `places`) while
    another worker has one free: the connection just answered should be closed."""
    if _board is None or demand <= places:
        return False
    return any(load < places for i, load in enumerate(_board) if i != _index)


def close_connection(headers: list) -> list:
    """A response's headers with `connection: close` (counted in `shed`)."""
    global shed
    shed += 1
    return [*headers, (b"connection", b"close")]
