"""/quiz-web, written once for Discord and Slack: a private one-time link, bound as chat says."""

from __future__ import annotations

import re

LINK = re.compile(r"http://127\.0\.0\.1:8000/login/([0-9a-f]{32}\.[0-9a-f]{32})")


def test_quiz_web_replies_privately_with_a_link_bound_to_the_member_and_their_right(chat):
    async def scenario(d):
        await d.enable_channel()
        links = {}
        for who in ("alice", "admin"):
            reply = await d.command("web", who)
            found = LINK.search(reply.text)
            assert reply.private and found is not None, reply.text
            links[who] = d.quiz.signin.pending(found.group(1))
        alice, admin = links["alice"], links["admin"]
        assert (alice.platform, alice.user, alice.is_admin) == (
            d.platform, d.user_id("alice"), False)
        assert (admin.user, admin.is_admin) == (d.user_id("admin"), True)
        assert alice.workspace == admin.workspace and alice.workspace

    chat.run(scenario)
