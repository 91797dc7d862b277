"""The in-game assistant: what one seat's view lets it deduce, as JSON for the table page.

>>> from bodoge.games.tagiron.game import TagironGame
>>> game = TagironGame()
>>> state = game.setup(game.options({"players": 2}), 2, seed=3)
>>> report = analyse_view(game.view(state, 0), 0)
>>> report["candidates"] > 1000, len(report["slots"]), len(report["questions"]) >= 6
(True, 5, True)
"""

from __future__ import annotations

from collections.abc import Mapping

from bodoge.core.values import JSON
from bodoge.games.tagiron.ai.position import Position
from bodoge.games.tagiron.ai.solver import analyse

TOP = 8


def analyse_view(view: Mapping[str, JSON], seat: int) -> dict[str, JSON] | None:
    """Candidates, tile probabilities and each face-up question's value for ``seat``.

    The target is the opponent's hand (2 players: ``slots`` gives each position's
    tiles) or the centre (3–4 players: ``tiles`` gives each tile's chance to be
    there).  ``hands`` gives each position's tiles of every hand the seat cannot
    see, by seat number (``"centre"`` for the centre).  ``None`` once the game is
    over: everything is revealed then.
    """
    if view.get("phase") == "ended" or view.get("you") != seat:
        return None
    deduction = analyse(Position.from_view(view))
    report: dict[str, JSON] = {
        "target": "opponent" if view["players"] == 2 else "centre",
        "candidates": deduction.candidate_count,
        "certain": deduction.certain,
        "top": [{"tiles": list(tiles), "p": p} for tiles, p in deduction.candidates(TOP)],
        "questions": [
            {"card": card, "choice": choice, "bits": round(bits, 4)}
            for (card, choice), bits in deduction.question_bits().items()
        ],
    }
    hands: dict[str, JSON] = {}
    if view["players"] == 2:
        report["slots"] = deduction.slot_probabilities()
    else:
        report["tiles"] = {code: p for code, p in deduction.tile_probabilities().items() if p > 0}
        hands["centre"] = deduction.slot_probabilities()
    # every hidden hand, each position's tiles: the memo sheet shows them all
    for other in deduction.others:
        hands[str(other)] = deduction.slot_probabilities(other)
    report["hands"] = hands
    return report
