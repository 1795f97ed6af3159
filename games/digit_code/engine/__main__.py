"""Command line of the engine: `python -m games.digit_code.engine simulate …`."""

from __future__ import annotations

import sys

from . import simulate


def main(argv: list[str] | None = None) -> int:
    parser = simulate.Parser(prog="python -m games.digit_code.engine")
    commands = parser.add_subparsers(dest="command", required=True, parser_class=simulate.Parser)
    simulate.build_parser(commands.add_parser("simulate", help="play games, print JSON Lines"))
    args = parser.parse_args(argv)
    return simulate.run(args, parser)


if __name__ == "__main__":
    sys.exit(main())
