"""`make demo`'s console starts with the newcomer's sign-in link to the page it serves."""

from __future__ import annotations

import re
import subprocess
import sys
from pathlib import Path

from tests.support.core import BANK


def test_console_web_link_prints_a_sign_in_link_first(tmp_path):
    env = {"TORCHQUIZ_DATA_DIR": str(tmp_path), "TORCHQUIZ_CONTENT_DIR": str(BANK),
           "TORCHQUIZ_EXECUTOR": "none", "PATH": "/usr/bin:/bin"}
    done = subprocess.run([sys.executable, "-m", "bot.cli", "console", "--web-link", "--as", "ada"],
                          input="", capture_output=True, text=True, env=env, timeout=120,
                          cwd=Path(__file__).resolve().parents[2],
                          check=False)
    assert done.returncode == 0, done.stderr
    assert re.search(r"http://127\.0\.0\.1:8000/login/[0-9a-f]+\.[0-9a-f]+", done.stdout), \
        done.stdout
