"""The question browser of the web page: the workspace's questions, answers only when earned."""

from bot.core.browser.service import (
    BROWSER_PAGE_ROWS,
    QuestionBrowser,
    QuestionLine,
    QuestionList,
    QuestionView,
)

__all__ = ["BROWSER_PAGE_ROWS", "QuestionBrowser", "QuestionLine", "QuestionList",
           "QuestionView"]
