"""Display names that cannot pass for someone else's.

A name is stored in NFKC form (full-width "Ｂｏｂ" is "Bob", ligatures are letters) and refused
when it hides characters (zero-width, bidi and other format characters, Hangul fillers) or
stacks combining marks. Two names whose Unicode TR39 confusable skeleton is the same ("Anna"
and "Аnnа" with Cyrillic "а", "paypal" and "paypaI") cannot both be held: the skeleton is
stored beside the name (`User.display_name_skeleton`), and a unique index on it decides, in
one query and without a race, who holds a look.

Some looks belong to nobody who can sign up: the names the computer opponents are shown with
("Computer (strong)", "Ordinateur (fort)", their accounts' "bot:1", numbered or not). Their
*bare look* (`display_name_bare_look`: the skeleton without numbers or spaces) is compared,
so "Computer 2 (strong)", "C0mputer(strong)" and "b0t:7" are theirs too; accounts/services.py
lists them from the translation catalogues.
"""

from __future__ import annotations

import re
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

    `disarm.skeleton_key` with the TR39 digit classes (1, I, l alike; 0, O alike): NFKC, each
    character to its confusables.txt prototype (Unicode 17), folded to lower case, runs of
    whitespace as one space; so "ANA", "Ana", "Аna" (Cyrillic) and "Ａｎａ" look alike.

    It is TR39's skeleton where a prototype is one character, not where it is several:
    disarm keeps "æ" apart from "ae" and "m" from "rn", which TR39 merges. Measured against
    Unicode's confusables.txt (the 2020 release, the one at hand): a character and its
    prototype share a key for 3,084 of 4,769 letter entries (65 %), most of the rest being
    several-character prototypes (1,252). Exact TR39 is ICU's `SpoofChecker.getSkeleton`
    (PyICU, which needs ICU built into the image).

    The stored keys depend on disarm's tables: an upgrade that changes
    `disarm.KEY_SCHEMA_VERSION` needs a migration that recomputes the column (as 0006 does)."""
    if not display_name.strip():
        return None
    return skeleton_key(display_name, digit_policy="tr39", on_empty="\ufffd")


# A number in a skeleton: its digits, with 0 and 1 as their prototypes "o" and "l". Spelt with
# those letters it is only a number where it stands alone ("bot:l", "Computer l (strong)");
# in digits, wherever it does not split a word ("Computer2", "コンピューター2", not "Comp2uter").
_DIGITS = re.compile(r"\d+")
_LETTER_NUMBER = re.compile(r"(?<!\w)[ol]+(?!\w)")
_SPACE = re.compile(r"\s+")


def _number_dropped(match: re.Match) -> str:
    text, start, end = match.string, match.start(), match.end()
    inside_a_word = start > 0 and text[start - 1].isalpha() and text[end : end + 1].isalpha()
    return match.group() if inside_a_word else ""


def display_name_bare_look(display_name: str) -> str | None:
    """The look of a name with its numbers and spaces left out: what a reserved name is
    compared by, so that a number or a space added anywhere a name allows one does not make
    it another name. None for a blank name."""
    skeleton = display_name_skeleton(display_name)
    if skeleton is None:
        return None
    bare = _LETTER_NUMBER.sub("", _DIGITS.sub(_number_dropped, skeleton))
    return _SPACE.sub("", bare)
