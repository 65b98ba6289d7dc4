"""The console's default member is the newcomer's login name, never a placeholder like "you"."""

import getpass

import pytest

from bot import cli


@pytest.mark.parametrize(("login", "shown"), [("ada", "ada"), ("root", "me"), ("", "me")])
def test_the_console_plays_as_the_login_name(monkeypatch, login, shown):
    monkeypatch.setattr(getpass, "getuser", lambda: login)
    assert cli._parser().parse_args(["console"]).user == shown


def test_a_machine_without_a_login_name_plays_as_me(monkeypatch):
    def nobody():
        raise OSError("no login name")

    monkeypatch.setattr(getpass, "getuser", nobody)
    assert cli._parser().parse_args(["console"]).user == "me"
