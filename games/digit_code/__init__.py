"""Digit Code, the platform's second game: a deduction race on a hidden six-digit code
(RULES-digit-code.md). `engine` is the pure rules engine (and its bots)."""
