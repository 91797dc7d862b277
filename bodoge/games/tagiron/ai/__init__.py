"""Tagiron's AI: exact deduction from one seat's view, the bots and the in-game assistant.

* :mod:`.position`: what one seat knows (its tiles, the face-up cards, the log);
* :mod:`.worlds` and :mod:`.solver`: every way the unseen tiles may lie, and
  what that tells of the target and of each question (:class:`~.solver.Deduction`);
* :mod:`.situation`, :mod:`.duel` with :mod:`.rollout`, :mod:`.group` with
  :mod:`.rivals`: what the bots weigh, and :mod:`.bots` the three levels;
* :mod:`.analysis`: the assistant's report for the table page.

Nothing here changes a game: it reads views (or positions typed in) and
answers with moves or figures.  ``docs/solver.md`` explains how.
"""
