"""Table manners in Chromium: mute someone's chat (for yourself only), and the host removes
a person from the waiting room, who may not sit there again."""

from __future__ import annotations

from tests.e2e import ui


def test_mute_a_player_and_remove_them_from_the_waiting_room(open_page, screenshot_dir) -> None:
    host, _ = open_page("/")
    ui.sign_in(host, "はなこ")
    table = ui.create_table(host, 3)
    rude, _ = open_page(f"/t/{table}")
    ui.sign_in(rude, "Rude")
    rude.click("[data-testid=sit-1]")
    host.wait_for_function(
        "() => document.querySelector('[data-testid=seats]').innerText.includes('Rude')"
    )

    rude.fill("[data-testid=chat-input]", "spam spam spam")
    rude.press("[data-testid=chat-input]", "Enter")
    host.wait_for_selector("[data-testid=chat-line] >> text=spam spam spam")
    host.click("[data-testid=chat-mute]")
    host.wait_for_selector("[data-testid=chat-muted]")
    assert "spam" not in host.inner_text("[data-testid=chat-lines]")
    # Only for the host: the sender still sees their line, and a reload keeps it muted.
    assert "spam spam spam" in rude.inner_text("[data-testid=chat-lines]")
    host.reload()
    host.wait_for_selector("[data-testid=chat-muted]")
    ui.screenshots(host, screenshot_dir, "waiting-room-manners", user_texts=["はなこ", "Rude"])

    # The host removes Rude; Rude's seat is free and Rude may not sit again.
    host.click("[data-testid=remove-player-1]")
    host.click("[data-testid=confirm-ok]")
    rude.wait_for_selector("[data-testid=sit-1]")
    host.wait_for_function(
        "() => !document.querySelector('[data-testid=seats]').innerText.includes('Rude')"
    )
    rude.click("[data-testid=sit-1]")
    rude.wait_for_selector(".toast >> text=ホストにこのテーブルから外されました")
    # Unmute: the line shows again.
    host.click("[data-testid=chat-unmute]")
    host.wait_for_selector("[data-testid=chat-line] >> text=spam spam spam")
