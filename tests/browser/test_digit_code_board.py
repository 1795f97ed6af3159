"""The Digit Code page's own knowledge of the board, run in Chromium and held to the engine:
the 64 questions (Q5) in C1's order, every answer a code gives (Q1–Q4, B4, B5), the LEDs the
public answers make certain (never one the code contradicts), the guess check (B2, B3, G1), and
the in-browser fairness check (B6): the seat order and the code re-made from the seed."""

from __future__ import annotations

import random

import pytest

from games.digit_code.engine import QUESTIONS, Options, breaks_rule, kth_code, new_game
from games.digit_code.engine.codes import CODE_COUNT, LIT
from games.digit_code.engine.seed import seed_commitment
from tests.browser.conftest import needs_chromium, watched_page

pytestmark = needs_chromium

BOARD = "/static/games/digit_code/board.js"
FAIRNESS = "/static/games/digit_code/fairness.js"


@pytest.fixture
def page(web_server, chromium):
    problems: list[str] = []
    page = watched_page(chromium, problems)
    page.goto(web_server.url("/login"))
    yield page
    assert problems == []


def answer(question, code):
    return question.answer(tuple(code))


def test_the_page_offers_the_engines_64_questions_in_c1_order(page):
    """Q5, C1: the same questions, the same JSON, the same order."""
    questions = page.evaluate(f"async () => (await import('{BOARD}')).QUESTIONS")
    assert questions == [q.to_json() for q in QUESTIONS]
    keys = page.evaluate(
        f"async () => {{ const b = await import('{BOARD}'); "
        "return b.QUESTIONS.map(b.questionKey); }"
    )
    assert len(set(keys)) == 64


def test_every_answer_is_the_engines(page):
    """Q1–Q4 with B4's digits and B5's LED lines, over random valid codes."""
    rng = random.Random(7)
    codes = [list(kth_code(rng.randrange(CODE_COUNT))) for _ in range(150)]
    got = page.evaluate(
        f"""async (codes) => {{
            const b = await import('{BOARD}');
            return codes.map((code) => b.QUESTIONS.map((q) => b.answerOf(q, code)));
        }}""",
        codes,
    )
    assert got == [[answer(q, code) for q in QUESTIONS] for code in codes]


def test_the_displays_light_only_what_the_answers_make_certain(page):
    """What the displays show as lit or unlit always agrees with the code; an LED answer (Q4)
    and a count of 0 or of every LED of a line (Q1) settle their LEDs; once all 42 LED
    questions are answered every LED is known."""
    rng = random.Random(11)
    games = []
    for _ in range(120):
        code = list(kth_code(rng.randrange(CODE_COUNT)))
        asked = rng.sample(list(QUESTIONS), rng.randrange(0, 40))
        games.append(
            {
                "code": code,
                "questions": [
                    {"seat": 0, "question": q.to_json(), "answer": answer(q, code)} for q in asked
                ],
            }
        )
    every_led = [q for q in QUESTIONS if q.kind == "led"]
    full = list(kth_code(12345))
    games.append(
        {
            "code": full,
            "questions": [
                {"seat": 1, "question": q.to_json(), "answer": answer(q, full)} for q in every_led
            ],
        }
    )
    known = page.evaluate(
        f"""async (games) => {{
            const b = await import('{BOARD}');
            return games.map((g) => Object.fromEntries(b.knownLeds(g.questions)));
        }}""",
        games,
    )
    settled = 0
    for game, leds in zip(games, known, strict=True):
        for key, state in leds.items():
            position, segment = int(key[0]), key[1]
            truth = "lit" if segment in LIT[game["code"][position - 1]] else "unlit"
            assert state == truth, (game, key)
        for entry in game["questions"]:
            q = entry["question"]
            if q["kind"] == "led":
                assert leds[f"{q['position']}{q['segment']}"] == entry["answer"]
            if q["kind"] == "count" and entry["answer"] in (0, 3 if q["line"] == "row" else 4):
                line = next(x for x in QUESTIONS if x.to_json() == q)
                for position, segment in line.leds:
                    assert f"{position + 1}{segment}" in leds
                    settled += 1
    assert len(known[-1]) == 42
    assert settled > 0


def test_the_guess_check_is_b2_b3_and_g1(page):
    """A code the page refuses is one the engine refuses, with the same code and clause."""
    rng = random.Random(3)
    codes = [[rng.randrange(10) for _ in range(6)] for _ in range(3000)]
    codes += [list(kth_code(rng.randrange(CODE_COUNT))) for _ in range(200)]
    guessed = [{"seat": 0, "code": codes[-1], "correct": False}]
    problems = page.evaluate(
        f"""async ([codes, guesses]) => {{
            const b = await import('{BOARD}');
            return codes.map((code) => b.guessProblem(code, guesses));
        }}""",
        [codes, guessed],
    )
    for code, problem in zip(codes, problems, strict=True):
        clause = breaks_rule(tuple(code))
        if clause:
            assert problem["code"] == "impossible_code" and problem["clause"] == clause, code
        elif code == guessed[0]["code"]:
            assert problem["code"] == "guess_repeated"
        else:
            assert problem is None, code


def test_the_page_remakes_the_seats_and_the_code_from_the_seed(page):
    """B6 and docs/fairness.md section 6, in the browser: commitment, seat order, k-th code."""
    kth = f"async (k) => (await import('{FAIRNESS}')).kthCode(k).join('')"
    assert page.evaluate(kth, 0) == "010123"
    assert page.evaluate(kth, CODE_COUNT - 1) == "989876"
    rng = random.Random(5)
    for seed, players in [(7, 2), (2**127 + 12345, 4), (rng.getrandbits(128), 3)]:
        game, _ = new_game(Options(), players, seed)
        setup = page.evaluate(
            f"""async ([seed, players]) => {{
                const f = await import('{FAIRNESS}');
                return [await f.setupOf(seed, players), await f.commitmentOf(seed)];
            }}""",
            [str(seed), players],
        )
        assert setup[0] == {"seats": list(game.seat_players), "code": list(game.secret_code())}
        assert setup[1] == seed_commitment(seed)
