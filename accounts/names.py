"""Display names that cannot pass for someone else's.

A name is stored in NFKC form (full-width "Ｂｏｂ" is "Bob", ligatures are letters) and refused
when it hides characters (zero-width, bidi and other format characters, Hangul fillers) or
stacks combining marks. Two names whose Unicode TR39 confusable skeleton is the same ("Anna"
and "Аnnа" with Cyrillic "а", "paypal" and "paypaI") cannot both be held: the skeleton is
stored beside the name (`User.display_name_skeleton`), and a unique index on it decides, in
one query and without a race, who holds a look.
"""

from __future__ import annotations

import unicodedata

from disarm import skeleton_key

# More marks than this on one letter is "Zalgo" text, drawn over the names around it. Three
# covers every orthography (Vietnamese and Thai stack two, a few Indic clusters three).
MAX_COMBINING_MARKS_IN_A_ROW = 3

# Invisible, though not format characters (category Cf): the Hangul fillers and the
# Khmer inherent vowels render as nothing, and the combining grapheme joiner is invisible.
# The emoji variation selectors (U+FE0E, U+FE0F) only choose how a symbol is drawn: kept.
_INVISIBLE_NOT_CF = frozenset("\u034f\u115f\u1160\u17b4\u17b5\u180b\u180c\u180d\u180f\u3164\uffa0")


def display_name_normalize(value: str) -> str:
    """The form stored and shown: NFKC, without surrounding whitespace."""
    return unicodedata.normalize("NFKC", value).strip()


def has_invisible_characters(value: str) -> bool:
    return any(unicodedata.category(char) == "Cf" or char in _INVISIBLE_NOT_CF for char in value)


def longest_combining_run(value: str) -> int:
    longest = run = 0
    for char in value:
        run = run + 1 if unicodedata.combining(char) or unicodedata.category(char) == "Me" else 0
        longest = max(longest, run)
    return longest


def display_name_skeleton(display_name: str) -> str | None:
    """The look of a name, for the uniqueness check; None for a blank name (shown as the
    username, which has its own unique index).

    `disarm.skeleton_key` with the TR39 digit classes: the TR39 skeleton (NFKC, then each
    character to its confusables.txt prototype) folded to lower case and with runs of
    whitespace as one space, so "ANA", "Ana" and "ana  " look alike too."""
    if not display_name.strip():
        return None
    return skeleton_key(display_name, digit_policy="tr39", on_empty="\ufffd")
