"""The review mode of a finished 4-player Tagiron game's replay: the graph and the marks.

A player plays a 4-player game against three expert bots to the end, opens the
replay and its review: a log-scale line per player, every question marked on
the log beside the best question then, each player's score in one line, in
Japanese and English, on a desktop and a phone (axe finds nothing serious); the
figures agree with ``GET /api/tables/{id}/review``.  The graph has a key and named
axes, and every mark on it is reached by Tab and Enter, or by a tap, and explained.
"""

from __future__ import annotations

import math

from tests.e2e import ui
from tests.e2e.conftest import PHONE
from tests.e2e.test_accessibility import Audit


def _pct(x: float) -> int:
    """A share in whole percent as the page rounds it (JavaScript's ``Math.round``: halves
    up; Python's ``round`` takes 12.5 to 12)."""
    return math.floor(x * 100 + 0.5)


def test_review_of_a_finished_four_player_game(open_page, browser, screenshot_dir):
    page, _ = open_page("/")
    ui.sign_in(page, "はなこ")
    table = ui.start_tagiron_against_bots(page, 4, level="expert")
    ui.play_tagiron_to_the_end(page)
    review = page.evaluate("async (id) => (await fetch(`/api/tables/${id}/review`)).json()", table)
    assert review["players"] == 4 and len(review["seats"]) == 4

    page.click("[data-testid=replay-link]")
    page.wait_for_selector("[data-testid=replay-page] [data-testid=tagiron]")
    ui.show_panel(page, "review")
    page.click("[data-testid=review-load]")
    page.wait_for_selector("[data-testid=review-graph]")

    # One line per player, on a log scale: the first point of each is the most candidates.
    lines = page.locator("[data-testid=review-line]")
    assert lines.count() == 4
    for s in range(4):
        points = lines.nth(s).get_attribute("points").split()
        ys = [float(p.split(",")[1]) for p in points]
        assert len(ys) >= 2 and ys[0] == min(ys)  # SVG's y grows downwards
    # A dot for every question asked, marked as the review marks it.
    asked = [q for s in review["seats"] for q in s["questions"]]
    dots = page.locator("[data-testid=review-dot]")
    assert dots.count() == len(asked) > 0
    assert sorted(dots.nth(i).get_attribute("data-mark") for i in range(dots.count())) == sorted(
        q["mark"] for q in asked
    )
    # Every question's mark on the log, with the best question when it was another.
    marks = page.locator("[data-testid=log] [data-testid=review-mark]")
    question_marks = [
        marks.nth(i).get_attribute("data-mark")
        for i in range(marks.count())
        if marks.nth(i).get_attribute("data-mark") in ("best", "good", "inaccuracy", "mistake")
    ]
    assert sorted(question_marks) == sorted(q["mark"] for q in asked)
    for q in asked:
        entry = page.locator(f"[data-testid=log-entry][data-n='{q['n']}']")
        text = entry.locator(f"[data-testid=review-mark][data-mark={q['mark']}]").inner_text()
        assert f"{q['bits']:.2f}ビット" in text
        if q["told"] >= 0.005:
            assert f"自分の手を{q['told']:.2f}ビット明かす" in text
        if (q["best"]["card"], q["best"]["choice"]) != (q["card"], q["choice"]):
            assert "最善：" in text and f"{q['best_bits']:.2f}ビット" in text
            assert f"価値の損失：質問{q['loss']:.2f}回分" in text
        if q["settle"] >= 0.005:
            assert f"{_pct(q['settle'])}%の確率でこれで確定" in text
    # Each player's score, explained in one line.
    scores = page.locator("[data-testid=review-score]")
    assert scores.count() == 4
    for s in review["seats"]:
        line = scores.nth(s["seat"]).inner_text()
        assert f"{s['score']}点" in line
        if s["questions"]:
            assert f"質問の精度{_pct(s['accuracy'])}%" in line
            lost = f"失った価値：質問{s['loss']:.2f}回分、でたらめなカードなら{s['par']:.2f}回分"
            assert lost in line
        else:
            assert "質問なし" in line
        certain = sum(m["certain"] for m in s["missed"])
        assert f"確定していたのに宣言しなかった{certain}回" in line
        assert ("エキスパートなら宣言した賭け" in line) == any(
            not m["certain"] for m in s["missed"]
        )

    # The graph explains itself: a key to its lines and marks, and its axes named.
    key = page.locator("[data-testid=review-key] li")
    assert key.count() == 6
    assert "誤った宣言" in key.nth(4).inner_text() and "見逃し" in key.nth(5).inner_text()
    assert page.locator("[data-testid=review-axis-x]").text_content() == "手数"
    assert page.locator("[data-testid=review-axis-y]").text_content() == "候補の数"
    # Every mark is a target of its own, named by its explanation ...
    points = page.locator("[data-testid=review-point]")
    marked = sum(
        len(s["questions"]) + len(s["declarations"]) + len(s["missed"]) for s in review["seats"]
    )
    assert points.count() == marked
    for i in range(points.count()):
        assert points.nth(i).get_attribute("tabindex") == "0"
        assert points.nth(i).get_attribute("role") == "button"
        assert (
            points.nth(i)
            .get_attribute("aria-label")
            .startswith(f"{points.nth(i).get_attribute('data-n')}. ")
        )
    # ... reached with the keyboard: Tab to the first, Enter shows what it means and
    # moves the replay to its move, whose log entry carries the same note.
    page.locator(".rv-caption").evaluate("(c) => { c.tabIndex = -1; c.focus(); }")
    for _ in range(5):
        page.keyboard.press("Tab")
        if page.evaluate("() => document.activeElement?.dataset?.testid") == "review-point":
            break
    focused = page.evaluate(
        "() => [document.activeElement.dataset.n,"
        " document.activeElement.getAttribute('aria-label')]"
    )
    assert focused[0] is not None
    page.keyboard.press("Enter")
    chosen = page.locator("[data-testid=review-chosen]")
    assert chosen.inner_text() == focused[1]
    entry = page.locator(f"[data-testid=log-entry][data-n='{focused[0]}']")
    assert entry.locator("[data-testid=review-mark]").count() >= 1
    assert page.evaluate("() => document.activeElement?.dataset?.testid") == "review-point"
    page.keyboard.press("Tab")  # on to the next mark
    assert page.evaluate("() => document.activeElement?.dataset?.testid") == "review-point"

    # The graph follows the replay: its line for now moves with the steps.
    now = page.locator("[data-testid=review-now]")
    at_end = now.get_attribute("x1")
    page.click("[data-testid=replay-first]")
    assert now.get_attribute("x1") != at_end

    ui.set_lang(page, "en")
    assert "points" in scores.first.inner_text()
    english = " ".join(scores.nth(i).inner_text() for i in range(4))
    assert "% accurate" in english or "no question asked" in english
    assert "missed declaration" in english
    ui.set_lang(page, "ja")
    page.click("[data-testid=replay-last]")

    # A phone shows the review as a tab of its own, the graph within the width.
    page.set_viewport_size(PHONE)
    ui.show_panel(page, "review")
    box = page.locator("[data-testid=review-graph]").bounding_box()
    assert box is not None and box["width"] <= PHONE["width"]
    page.set_viewport_size({"width": 1280, "height": 800})

    def show_review(p):
        ui.show_panel(p, "review")
        # a desktop shows the board from its top; a phone, the review under its tab
        p.evaluate(
            "() => scrollTo(0, innerWidth >= 800 ? 0 : scrollY"
            " + document.querySelector('.tp-tabs').getBoundingClientRect().top - 190)"
        )

    ui.screenshots(
        page, screenshot_dir, "tagiron-review", user_texts=["はなこ"], before=show_review
    )
    audit = Audit()
    audit.check(page, "tagiron, review", before=show_review)
    audit.assert_clean()

    # ?review opens the replay with the review shown.
    page.goto(page.url.split("?")[0] + "?replay&review")
    page.wait_for_selector("[data-testid=review-graph]")
    assert page.locator("[data-testid=review-line]").count() == 4

    # On a touch screen a tap on a mark explains it too.
    touch = browser.new_context(viewport=PHONE, has_touch=True, is_mobile=True, locale="ja-JP")
    try:
        phone = touch.new_page()
        phone.goto(page.url.split("/t/")[0] + "/")
        ui.sign_in(phone, "たろう")
        phone.goto(page.url)
        phone.wait_for_selector("[data-testid=replay-page] [data-testid=tagiron]")
        ui.show_panel(phone, "review")
        phone.wait_for_selector("[data-testid=review-graph]")
        mark = phone.locator("[data-testid=review-point]").last
        label = mark.get_attribute("aria-label")
        mark.tap()
        assert phone.locator("[data-testid=review-chosen]").inner_text() == label
    finally:
        touch.close()
