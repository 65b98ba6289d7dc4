"""Sentences of the terminal console's own commands and marks: English and Simplified Chinese.

The console stands in for a chat's buttons, forms and scheduler, so it has words no chat says
(``/today``, ``/answer``, who would see a message); they follow the channel's language too.
"""

STRINGS: dict[str, dict[str, str]] = {
    "console.greeting": {
        "en": "torchquiz console: type /help for commands, /quit to leave.",
        "zh-CN": "torchquiz 控制台：输入 /help 查看命令，/quit 退出。",
    },
    "console.no_grading": {
        "en": "(code answers cannot be graded here: {problem})",
        "zh-CN": "（这里无法评测代码答案：`{problem}`）",
    },
    "console.help.title": {
        "en": "Commands (this terminal stands in for a team channel):",
        "zh-CN": "命令（这个终端相当于一个团队频道）：",
    },
    # The console's own commands in its /help: what to type, then what it does.
    "console.usage.answer": {"en": "/answer TEXT", "zh-CN": "/answer 答案"},
    "console.usage.code": {"en": "/code CODE", "zh-CN": "/code 代码"},
    "console.usage.practice": {"en": "/practice ANSWER", "zh-CN": "/practice 答案"},
    "console.usage.report": {"en": "/report [REASON] [NOTE]", "zh-CN": "/report [原因] [说明]"},
    "console.usage.as": {"en": "/as NAME", "zh-CN": "/as 名字"},
    "console.help.today": {
        "en": "show today's question (posted at start, as the scheduler would)",
        "zh-CN": "显示今天的题目（启动时发布，与定时发布相同）",
    },
    "console.help.answer": {
        "en": "answer today's question: a letter (A-F) or a short text",
        "zh-CN": "回答今天的题目：一个字母（A 到 F）或一段简短文字",
    },
    "console.help.code": {
        "en": "answer today's code question with one line of code; /code alone: type the code, "
              "end with a line /end (a command line instead of /end sends nothing and runs "
              "that command)",
        "zh-CN": "用一行代码回答今天的代码题；单独输入 /code：逐行输入代码，以一行 /end 结束"
                 "（用命令行代替 /end 则不发送代码，并执行该命令）",
    },
    "console.help.reveal": {
        "en": "close today's round now and reveal the answer (admin)",
        "zh-CN": "立即结束今天这一轮并揭晓答案（管理员）",
    },
    "console.help.practice": {
        "en": "answer your practice question (/practice alone: code until /end)",
        "zh-CN": "回答你的练习题（单独输入 /practice：逐行输入代码，直到 /end）",
    },
    "console.help.weekly": {
        "en": "the weekly leaderboard post, with its chart saved as a PNG",
        "zh-CN": "每周排行榜帖子，图表另存为 PNG 图片",
    },
    "console.help.report": {
        "en": "report the question you were just shown (no reason: the reasons)",
        "zh-CN": "报告你刚看到的题目有问题（不写原因：列出可选原因）",
    },
    "console.help.as": {
        "en": "play as someone else (several people in one terminal)",
        "zh-CN": "换成另一个人（一个终端里多人轮流作答）",
    },
    "console.help.help": {"en": "this list", "zh-CN": "显示本列表"},
    "console.help.quit": {"en": "leave", "zh-CN": "退出"},
    "console.not_command": {
        "en": "Commands start with '/'. To answer, use /answer TEXT; /help lists all.",
        "zh-CN": "命令以 / 开头。作答请用 /answer 加答案；/help 列出全部命令。",
    },
    "console.unknown": {
        "en": "Unknown command '{command}'. Type /help for the list.",
        "zh-CN": "未知命令 `{command}`。输入 /help 查看命令列表。",
    },
    "console.no_post": {
        "en": "No question has been posted in this channel yet.",
        "zh-CN": "本频道还没有发布过题目。",
    },
    "console.code_prompt": {
        "en": "(type your code; finish with a line {end})",
        "zh-CN": "（请输入代码，以一行 {end} 结束）",
    },
    "console.code_dropped": {
        "en": "{command} is a command: the code above was not sent. End code with a line {end}.",
        "zh-CN": "{command} 是一条命令：上面的代码没有发送。代码请以一行 {end} 结束。",
    },
    "console.code_unended": {
        "en": "The input ended before a line {end}: the code was not sent.",
        "zh-CN": "输入在 {end} 之前就结束了：代码没有发送。",
    },
    "console.forget_confirm": {
        "en": "Type {/forget-me} yes to delete it, or anything else to keep it.",
        "zh-CN": "输入 `{/forget-me} yes` 即删除；输入其他任何内容则保留。",
    },
    "console.report_none": {
        "en": "There is no question to report yet.",
        "zh-CN": "还没有可以报告的题目。",
    },
    "console.report_reasons": {
        "en": "{title}: /report REASON [NOTE], the reason one of",
        "zh-CN": "{title}：输入 `/report 原因 [说明]`，原因为以下之一",
    },
    "console.insights_unpause": {
        "en": "Type {/insights} unpause ID to let a paused question be posted again, "
            "{/insights} pause ID to keep one out of the daily posts.",
        "zh-CN": "输入 `{/insights} unpause 编号` 可让被暂停的题目重新发布；"
            "输入 `{/insights} pause 编号` 可让某道题不再出现在每日一题中。",
    },
    "console.pack_usage": {
        "en": "Usage: {/pack} add PATH (a .yaml pack file)",
        "zh-CN": "用法：`{/pack} add 路径`（一个 `.yaml` 题包文件）",
    },
    "console.cannot_read": {
        "en": "cannot read {path}: {error}",
        "zh-CN": "无法读取 `{path}`：`{error}`",
    },
    "console.saved_to": {"en": "saved to {path}", "zh-CN": "已保存到 `{path}`"},
    "console.as_usage": {"en": "Usage: /as NAME", "zh-CN": "用法：/as 名字"},
    "console.you_are": {"en": "You are now {name}.", "zh-CN": "你现在是 {name}。"},
    # How the terminal marks who would see a message in a real chat, and what it cannot show.
    "console.to_channel": {"en": "[#{channel}]", "zh-CN": "[#{channel}]"},
    "console.to_member": {"en": "[private to {user}]", "zh-CN": "[仅 {user} 可见]"},
    "console.to_thread": {"en": "[#{channel} › thread]", "zh-CN": "[#{channel} › 讨论串]"},
    "console.output": {"en": "--- your output ---", "zh-CN": "--- 你的输出 ---"},
    "console.skip_hint": {
        "en": "({/quiz} skip: skip this practice question; it counts as a miss)",
        "zh-CN": "（`{/quiz} skip`：跳过这道练习题，记为答错）",
    },
    "console.report_hint": {
        "en": "(something wrong with this question? /report REASON [NOTE])",
        "zh-CN": "（这道题有问题？输入 `/report 原因 [说明]`）",
    },
    "console.chart_saved": {
        "en": "(chart: {name}, saved to {path})",
        "zh-CN": "（图表 `{name}`，已保存到 `{path}`）",
    },
    "console.chart_bytes": {
        "en": "(chart: {name}, {size} bytes)",
        "zh-CN": "（图表 `{name}`，{size} 字节）",
    },
}
