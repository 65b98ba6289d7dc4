"""The web page's question browser: English and Simplified Chinese."""

STRINGS: dict[str, dict[str, str]] = {
    "browser.title": {"en": "Questions", "zh-CN": "题库"},
    "browser.kind": {"en": "Kind", "zh-CN": "题型"},
    "browser.kind.all": {"en": "every kind", "zh-CN": "全部题型"},
    "browser.kind.choice": {"en": "choice", "zh-CN": "选择题"},
    "browser.kind.text": {"en": "short answer", "zh-CN": "简答题"},
    "browser.kind.code": {"en": "code", "zh-CN": "编程题"},
    "browser.topic": {"en": "Topic", "zh-CN": "主题"},
    "browser.topic.all": {"en": "every topic", "zh-CN": "全部主题"},
    "browser.filter": {"en": "Show", "zh-CN": "筛选"},
    "browser.count": {"en": "{count} {count|question|questions}.",
                      "zh-CN": "共 {count} 道题。"},
    "browser.answers_rule": {
        "en": "You see an answer once you have answered the question yourself, and not while "
            "it is still open in one of the workspace's channels.",
        "zh-CN": "你自己答过某道题后才能看到它的答案；这道题在工作区的频道中仍在进行时"
            "也不会显示。",
    },
    "browser.page": {"en": "Page {page} of {pages}", "zh-CN": "第 {page} 页，共 {pages} 页"},
    "browser.none": {"en": "No question matches.", "zh-CN": "没有符合条件的题目。"},
    "browser.difficulty": {"en": "level {level}", "zh-CN": "难度 {level}"},
    "browser.question": {"en": "Question {id}", "zh-CN": "题目 {id}"},
    "browser.answer": {"en": "Answer", "zh-CN": "答案"},
    "browser.solution": {"en": "Reference solution", "zh-CN": "参考解法"},
    "browser.cards": {"en": "Concept cards:", "zh-CN": "相关概念卡片："},
    "browser.hidden.unanswered": {
        "en": "Answer this question first (in a daily round or with {/quiz}) to see its answer "
            "here.",
        "zh-CN": "先回答这道题（在每日一题中或用 {/quiz} 练习），才能在这里看到答案。",
    },
    "browser.hidden.in_play": {
        "en": "This question is still in play (an open round in one of the workspace's "
            "channels, or your open practice question): its answer shows once it closes.",
        "zh-CN": "这道题仍在进行中（工作区某个频道的当前题目，或你正在练习的题目）："
            "结束后才会显示答案。",
    },
}
