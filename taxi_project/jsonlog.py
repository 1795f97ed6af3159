"""JSON log lines (LOG_FORMAT=json): one object per record, for a log collector.

Fields: `time` (UTC, ISO 8601 with milliseconds), `level`, `logger`, `message`, `process`, and,
when present, `exc_info` (the formatted traceback) and anything passed with `extra=`.
"""

from __future__ import annotations

import json
import logging
from datetime import UTC, datetime

# LogRecord's own attributes: everything else on a record came from `extra=`.
_STANDARD = set(vars(logging.LogRecord("", 0, "", 0, "", (), None))) | {"message", "asctime"}


class JsonFormatter(logging.Formatter):
    def format(self, record: logging.LogRecord) -> str:
        entry = {
            "time": datetime.fromtimestamp(record.created, UTC).isoformat(timespec="milliseconds"),
            "level": record.levelname,
            "logger": record.name,
            "message": record.getMessage(),
            "process": record.process,
        }
        if record.exc_info:
            entry["exc_info"] = self.formatException(record.exc_info)
        if record.stack_info:
            entry["stack_info"] = self.formatStack(record.stack_info)
        for key, value in vars(record).items():
            if key not in _STANDARD and key not in entry and not key.startswith("_"):
                entry[key] = value
        # default=str: a request object or a datetime in `extra` must not break logging
        return json.dumps(entry, default=str, ensure_ascii=False)
