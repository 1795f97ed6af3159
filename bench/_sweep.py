"""The deadline sweep of one database, timed in a process of its own as a Celery worker runs it
(bench/scale.py runs this once per window, against each of its two databases in turn).

    python bench/_sweep.py '[game ids]'     # environment: the server's (DATABASE_URL, ...)

An idle tick first (nothing due: the claim's index scan, 30 ticks), then the given running
games made due at once and one tick that handles them all; prints the figures as JSON.
"""

from __future__ import annotations

import json
import sys
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
if str(ROOT) not in sys.path:
    sys.path.insert(0, str(ROOT))


def sweep_figures(due_ids: list[int]) -> dict:
    from django.db import connection

    from games.services.clocks import deadlines_sweep

    idle = []
    for _ in range(30):
        t0 = time.perf_counter()
        deadlines_sweep()
        idle.append(time.perf_counter() - t0)
    with connection.cursor() as cursor:
        cursor.execute(
            "UPDATE games_game SET next_deadline_at = now() - interval '1 second', "
            "turn_started_at = now() - (turn_seconds + 1) * interval '1 second' "
            "WHERE id = ANY(%s) AND status = 'playing'",
            [due_ids],
        )
        made_due = cursor.rowcount
    t0, cpu0 = time.perf_counter(), time.process_time()
    handled = deadlines_sweep(limit=10 * len(due_ids) + 10)
    took, cpu = time.perf_counter() - t0, time.process_time() - cpu0
    return {
        "idle_ticks_s": idle,
        "due": made_due,
        "handled": handled,
        "due_tick_s": took,
        "due_tick_cpu_s": cpu,
    }


def main() -> int:
    import django

    django.setup()
    from games import events

    events.use_own_loop()  # pushes as a Celery worker process does (taxi_project/celery.py)
    print(json.dumps(sweep_figures(json.loads(sys.argv[1]))))
    return 0


if __name__ == "__main__":
    sys.exit(main())
