import datetime as dt
from zoneinfo import available_timezones

import pytest

from bot.core.channels.setup import matching_zones, parse_changes
from bot.core.kernel.errors import UserError
from bot.core.kernel.models import Actor

TOPICS = {"autograd", "tensors"}


def test_admin_changes_time_zone_language_and_topics(quiz, channel, alice):
    admin = Actor(alice.member, is_admin=True)
    changed = []
    quiz.setup.on_changed = changed.append
    message = quiz.setup.apply(channel, admin, {"time": "07:45", "tz": "Asia/Shanghai",
                                                "lang": "zh-CN", "topics": "autograd"})
    assert message.body == "设置已保存。"
    saved = quiz.rounds.get_channel(channel.id)
    assert (saved.post_time, saved.timezone, saved.locale, saved.topics) == (
        dt.time(7, 45), "Asia/Shanghai", "zh-CN", ("autograd",))
    assert changed == [saved]


def test_member_cannot_change_settings(quiz, channel, alice):
    message = quiz.setup.apply(channel, alice, {"lang": "zh-CN"})
    assert "Only admins" in message.body
    assert quiz.rounds.get_channel(channel.id).locale == "en"


def test_anyone_can_look_at_the_settings(quiz, channel, alice):
    assert ("tz", "Europe/Berlin") in quiz.setup.apply(channel, alice, {}).fields


@pytest.mark.parametrize(("changes", "fragment"), [
    ({"time": "25:00"}, "HH:MM"),
    ({"tz": "Mars/Olympus"}, "IANA"),
    ({"lang": "fr"}, "lang must be"),
    ({"topics": "astrology"}, "Unknown topic"),
    ({"difficulty": "4"}, "difficulty"),
    ({"enabled": "maybe"}, "on or off"),
    ({"leaderboard": "someday 99"}, "weekday"),
    ({"colour": "red"}, "Unknown setting"),
])
def test_bad_settings_are_refused_with_the_reason(changes, fragment):
    with pytest.raises(UserError, match=fragment):
        parse_changes(changes, TOPICS)


@pytest.mark.parametrize(("changes", "english", "chinese"), [
    ({"time": "25:00"}, "time must be HH:MM", "time 须为 24 小时制"),
    ({"leaderboard": "fri ²"}, "leaderboard takes a weekday", "leaderboard 须为星期几"),
    ({"colour": "red"}, "Unknown setting 'colour'", "未知设置项 'colour'"),
    ({"packs": "not-ours"}, "Unknown pack 'not-ours'", "未知题包 'not-ours'"),
])
def test_a_refused_setting_is_explained_in_the_admins_language(quiz, channel, alice, changes,
                                                               english, chinese):
    for locale, fragment in (("en", english), ("zh-CN", chinese)):
        admin = Actor(alice.member, is_admin=True, locale=locale)
        message = quiz.setup.apply(channel, admin, changes)
        assert fragment in message.body, (locale, message.body)
    assert quiz.rounds.get_channel(channel.id).post_time == channel.post_time  # nothing saved


def test_leaderboard_slot_parses_weekday_and_hour():
    update = parse_changes({"leaderboard": "Monday 9", "difficulty": "1,3"}, TOPICS)
    assert (update.leaderboard_weekday, update.leaderboard_hour) == (0, 9)
    assert update.difficulties == (1, 3)



@pytest.mark.parametrize(("typed", "first"), [
    ("shang", "Asia/Shanghai"), ("new york", "America/New_York"), ("berl", "Europe/Berlin")])
def test_time_zones_match_the_start_of_a_part_first(typed, first):
    assert matching_zones(typed)[0] == first


def test_time_zone_matches_are_capped_and_all_real_zones():
    zones = matching_zones("a", limit=100)
    assert len(zones) == 100 and set(zones) <= available_timezones()
