import datetime as dt
from zoneinfo import available_timezones

import pytest

from bot.core.channels.setup import (
    MAX_SETUP_CHARS,
    SettingError,
    describe,
    matching_zones,
    parse_changes,
    parse_setup_text,
    parse_topics,
    typed_values,
)
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
    ({"live_hosts": "everyone"}, "admins or anyone"),
    ({"live_hosts": ""}, "admins or anyone"),
    ({"live_on_board": "maybe"}, "live_on_board must be on or off"),
])
def test_bad_settings_are_refused_with_the_reason(changes, fragment):
    with pytest.raises(UserError, match=fragment):
        parse_changes(changes, TOPICS)


@pytest.mark.parametrize(("changes", "english", "chinese"), [
    ({"time": "25:00"}, "time must be HH:MM", "`time` 须为 24 小时制"),
    ({"leaderboard": "fri ²"}, "leaderboard takes a weekday", "`leaderboard` 须为星期几"),
    ({"colour": "red"}, "Unknown setting 'colour'", "未知设置项 'colour'"),
    ({"packs": "not-ours"}, "Unknown pack 'not-ours'", "未知题包 'not-ours'"),
    ({"live_hosts": "all"}, "live_hosts must be admins or anyone", "`live_hosts` 须为"),
    ({"live_on_board": "weekly"}, "live_on_board must be on or off", "`live_on_board` 须为"),
])
def test_a_refused_setting_is_explained_in_the_admins_language(quiz, channel, alice, changes,
                                                               english, chinese):
    for locale, fragment in (("en", english), ("zh-CN", chinese)):
        admin = Actor(alice.member, is_admin=True, locale=locale)
        message = quiz.setup.apply(channel, admin, changes)
        assert fragment in message.body, (locale, message.body)
    assert quiz.rounds.get_channel(channel.id).post_time == channel.post_time  # nothing saved


def test_who_may_host_a_live_session_is_admins_by_default_or_anyone(quiz, channel, alice):
    assert not channel.live_anyone
    assert parse_changes({"live_hosts": "Anyone"}, TOPICS).live_anyone is True
    assert parse_changes({"live_hosts": "admins"}, TOPICS).live_anyone is False
    admin = Actor(alice.member, is_admin=True)
    quiz.setup.apply(channel, admin, {"live_hosts": "anyone"})
    stored = quiz.rounds.get_channel(channel.id)
    assert stored.live_anyone
    assert dict(describe(stored, "en").fields)["live_hosts"] == "anyone"
    assert dict(describe(stored, "zh-CN").fields)["竞答主持 `live_hosts`"] == "任何成员"


def test_live_points_on_the_weekly_board_are_off_by_default_and_an_admin_turns_them_on(
        quiz, channel, alice, bob):
    assert not channel.live_on_board
    assert parse_changes({"live_on_board": "ON"}, TOPICS).live_on_board is True
    assert parse_changes({"live_on_board": "off"}, TOPICS).live_on_board is False
    refused = quiz.setup.apply(channel, bob, {"live_on_board": "on"})
    assert "admin" in refused.body and not quiz.rounds.get_channel(channel.id).live_on_board
    quiz.setup.apply(channel, Actor(alice.member, is_admin=True), {"live_on_board": "on"})
    stored = quiz.rounds.get_channel(channel.id)
    assert stored.live_on_board
    assert dict(describe(stored, "en").fields)["live_on_board"] == "on"
    assert dict(describe(stored, "zh-CN").fields)["竞答计入周榜 `live_on_board`"] == "开启"
    assert typed_values(stored)["live_on_board"] == "on"


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


@pytest.mark.parametrize(("typed", "changes"), [
    ("leaderboard=fri 16", {"leaderboard": "fri 16"}),  # as the README and the hint write it
    ('leaderboard="fri 16"', {"leaderboard": "fri 16"}),
    ("leaderboard=fri 16 time=09:00", {"leaderboard": "fri 16", "time": "09:00"}),
    ("time=09:00 leaderboard=fri 16 tz=Asia/Shanghai",
     {"time": "09:00", "leaderboard": "fri 16", "tz": "Asia/Shanghai"}),
    ("topics=autograd, tensors", {"topics": "autograd, tensors"}),
    ("Lang=zh-CN", {"lang": "zh-CN"}),
    # A Chinese keyboard: full-width ＝ ／ ： digits and space, curly quotes, the list comma.
    ("leaderboard＝fri １６", {"leaderboard": "fri 16"}),
    ("time＝０９：３０　tz＝Asia／Shanghai", {"time": "09:30", "tz": "Asia/Shanghai"}),
    ("leaderboard=“fri 16”", {"leaderboard": "fri 16"}),
    ("topics=autograd、tensors，dtypes", {"topics": "autograd,tensors,dtypes"}),
    ("", {}),
])
def test_a_setup_line_reads_as_the_docs_write_it(typed, changes):
    assert parse_setup_text(typed) == changes


@pytest.mark.parametrize(("typed", "english", "chinese"), [
    ("16", "Settings are key=value", "设置须写成 `key=value`"),
    ("fri 16 leaderboard=fri", "got 'fri'", "收到的是 'fri'"),
    ('leaderboard="fri 16', "A quote is not closed", "有引号没有闭合"),
    ("topics=" + "x" * MAX_SETUP_CHARS, "at most 1000 characters", "最多 1000 个字符"),
    ("=" * 30, "Settings are key=value", "设置须写成"),
])
def test_a_setup_line_that_cannot_be_read_is_refused_in_one_bounded_sentence(typed, english,
                                                                                chinese):
    with pytest.raises(SettingError) as refused:
        parse_setup_text(typed)
    assert english in refused.value.text("en") and chinese in refused.value.text("zh-CN")
    assert len(refused.value.text("en")) < 200


def test_full_width_values_from_any_front_end_are_read_as_ascii():
    # Discord's options and Slack's modal hand the core a mapping: the same parser narrows it.
    update = parse_changes({"time": "０７：４５", "tz": "Asia／Shanghai",
                            "leaderboard": "ｆｒｉ　１６", "difficulty": "１，２",
                            "topics": "ａｕｔｏｇｒａｄ"}, TOPICS)
    assert (update.post_time, update.timezone) == (dt.time(7, 45), "Asia/Shanghai")
    assert (update.leaderboard_weekday, update.leaderboard_hour) == (4, 16)
    assert (update.difficulties, update.topics) == ((1, 2), ("autograd",))


BANK_LIKE = {"autograd", "autocast", "tensors", "tensor-creation", "masking", "memory-leaks",
             *(f"topic-{i}" for i in range(180))}


@pytest.mark.parametrize(("typed", "nearest"), [
    ("autogradd", "autograd"),
    ("tensor", "tensors"),
    ("masked", "masking"),
])
def test_a_mistyped_topic_is_refused_with_the_nearest_and_without_the_whole_list(typed, nearest):
    with pytest.raises(SettingError) as refused:
        parse_topics(typed, BANK_LIKE)
    english, chinese = refused.value.text("en"), refused.value.text("zh-CN")
    assert f"Did you mean: `{nearest}`" in english and f"你是不是想找：`{nearest}`" in chinese
    assert english.count(",") <= 2 and "topic-17" not in english  # three names at most


def test_a_topic_nothing_resembles_is_refused_with_a_few_examples_and_the_count():
    with pytest.raises(SettingError) as refused:
        parse_topics("zzzzqqqq", BANK_LIKE)
    assert "186 topics" in refused.value.text("en") and "186 个主题" in refused.value.text("zh-CN")
    assert refused.value.text("en").count(",") <= 8


def test_a_merged_topic_name_is_taken_as_the_topic_it_became():
    assert parse_topics("masks, memory-leak, autograd", BANK_LIKE) == (
        "autograd", "masking", "memory-leaks")


def test_the_admin_sees_the_suggestion_in_the_channels_language(quiz, channel, alice):
    for locale, fragment in (("en", "Did you mean: `autograd`?"),
                             ("zh-CN", "你是不是想找：`autograd`？")):
        admin = Actor(alice.member, is_admin=True, locale=locale)
        message = quiz.setup.apply(channel, admin, {"topics": "autogradd"})
        assert fragment in message.body, message.body


def test_topics_may_be_typed_by_their_chinese_names_and_separators():
    assert parse_topics("自动求导，张量", TOPICS) == ("autograd", "tensors")
    assert parse_topics("自动求导、tensors", TOPICS) == ("autograd", "tensors")


@pytest.mark.parametrize(("typed", "slot"), [
    ("周五 16", (4, 16)), ("星期一 9", (0, 9)), ("礼拜天 20点", (6, 20)), ("周日8", (6, 8)),
    ("fri 16", (4, 16)), ("Sunday 0", (6, 0))])
def test_the_board_slot_is_read_in_english_and_chinese(typed, slot):
    update = parse_changes({"leaderboard": typed}, TOPICS)
    assert (update.leaderboard_weekday, update.leaderboard_hour) == slot


@pytest.mark.parametrize("typed", ["周八 16", "星期五 24", "周五", "fri ١٦"])
def test_a_board_slot_that_is_no_weekday_and_hour_is_refused(typed):
    with pytest.raises(SettingError, match="leaderboard"):
        parse_changes({"leaderboard": typed}, TOPICS)


def test_settings_go_by_the_names_people_type_for_them():
    update = parse_changes(parse_setup_text("language=中文 timezone=Asia/Shanghai topic=autograd"),
                           TOPICS)
    assert (update.locale, update.timezone, update.topics) == ("zh-CN", "Asia/Shanghai",
                                                               ("autograd",))
    assert parse_changes({"lang": "English"}, TOPICS).locale == "en"
    assert parse_changes({"lang": "zh"}, TOPICS).locale == "zh-CN"


@pytest.mark.parametrize(("typed", "kinds"), [
    ("speed", ("speed",)),
    ("Speed, choice", ("choice", "speed")),  # kept in one order, whatever was typed
    ("code，speed", ("code", "speed")),  # a Chinese keyboard's comma
    ("all", ("choice", "text", "code", "speed")),
    ("", ("choice", "text", "code")),  # empty: back to what a channel posts by default
])
def test_kinds_are_read_as_typed_and_kept_in_one_order(typed, kinds):
    assert parse_changes({"kinds": typed}, TOPICS).kinds == kinds


def test_channels_start_without_speed_rounds_and_the_block_shows_the_kinds(quiz, channel, alice):
    assert channel.kinds == ("choice", "text", "code")
    admin = Actor(alice.member, is_admin=True)
    saved = quiz.setup.apply(channel, admin, {"kind": "choice,speed"})
    assert dict(saved.fields)["kinds"] == "choice, speed"
    stored = quiz.rounds.get_channel(channel.id)
    assert stored.kinds == ("choice", "speed")
    assert dict(describe(stored, "zh-CN").fields)["每日题型 `kinds`"] == "`choice, speed`"
    change = quiz.audit.latest(channel.platform, channel.workspace_external_id)[0]
    assert (change.before, change.after) == ("kinds=choice,text,code", "kinds=choice,speed")


def test_an_unknown_kind_is_refused_in_the_admins_language_and_nothing_is_saved(
        quiz, channel, alice):
    for locale, fragment in (("en", "Unknown kind 'essay'"), ("zh-CN", "未知题型 'essay'")):
        admin = Actor(alice.member, is_admin=True, locale=locale)
        message = quiz.setup.apply(channel, admin, {"kinds": "code,essay"})
        assert fragment in message.body and "choice, text, code, speed" in message.body
    assert quiz.rounds.get_channel(channel.id).kinds == ("choice", "text", "code")
