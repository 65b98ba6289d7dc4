"""Sentences of live sessions (bot/core/live): lobby, questions, reveals, the final board.

English and Simplified Chinese.
"""

STRINGS: dict[str, dict[str, str]] = {
    "help.live": {
        "en": "a live quiz for the team meeting: start, join, answer against the clock",
        "zh-CN": "团队会议上的限时竞答：开局、加入、抢答",
    },
    "live.usage": {
        "en": "Use {/live} start [questions=N] [seconds=S] [lobby=S] [topics=a,b] [code=yes], "
              "{/live} join, {/live} answer TEXT, {/live} code (then the code, then /end), "
              "{/live} skip, {/live} pause, {/live} resume, "
              "{/live} end, or {/live} alone for the session's state.",
        "zh-CN": "用法：`{/live} start [questions=N] [seconds=S] [lobby=S] [topics=a,b] "
                 "[code=yes]`、`{/live} join`、`{/live} answer` 答案、`{/live} code`（随后输入"
                 "代码，以 `/end` 结束）、`{/live} skip`、`{/live} pause`、"
                 "`{/live} resume`、`{/live} end`；只输入 {/live} 查看当前状态。",
    },
    "live.opened": {
        "en": "Live session opened with {questions} questions: its lobby is posted in the "
              "channel.",
        "zh-CN": "竞答已开启，共 {questions} 道题：大厅已发到频道。",
    },
    "live.denied": {
        "en": "Only an admin can start a live session in this channel (an admin can let "
              "anyone host: live_hosts=anyone in the settings).",
        "zh-CN": "只有管理员可以在本频道开启竞答（管理员可在设置中用 `live_hosts=anyone` "
                 "允许任何成员主持）。",
    },
    "live.running": {
        "en": "A live session is already running in this channel: {/live} shows it, "
              "{/live} end ends it.",
        "zh-CN": "本频道已有一场竞答在进行：{/live} 查看，`{/live} end` 结束。",
    },
    "live.no_questions": {
        "en": "No choice or short-text question matches these topics and this channel's "
              "packs: nothing to ask.",
        "zh-CN": "没有符合这些主题和本频道题库的选择题或简答题，无题可出。",
    },
    "live.no_questions.code": {
        "en": "No choice, short-text or code question matches these topics and this "
              "channel's packs: nothing to ask.",
        "zh-CN": "没有符合这些主题和本频道题库的选择题、简答题或编程题，无题可出。",
    },
    "live.none": {
        "en": "No live session is running in this channel. An admin starts one with "
              "{/live} start.",
        "zh-CN": "本频道没有正在进行的竞答。管理员可以用 `{/live} start` 开一场。",
    },
    "live.over": {
        "en": "That live session is over.",
        "zh-CN": "那场竞答已经结束。",
    },
    "live.not_host": {
        "en": "Only the host or an admin can do that.",
        "zh-CN": "只有主持人或管理员可以这样做。",
    },
    "live.nothing_to_skip": {
        "en": "There is no open question to skip right now.",
        "zh-CN": "现在没有可跳过的题目。",
    },
    "live.skipped": {
        "en": "Skipped: the answer is revealed now.",
        "zh-CN": "已跳过：马上公布答案。",
    },
    "live.paused_now": {
        "en": "Paused: the question's clock stopped. {/live} resume starts it again.",
        "zh-CN": "已暂停：本题倒计时已停止。用 `{/live} resume` 继续。",
    },
    "live.resumed": {
        "en": "Resumed: the question has the time it had left.",
        "zh-CN": "已继续：本题剩余时间照旧。",
    },
    "live.nothing_to_pause": {
        "en": "There is no open question to pause right now.",
        "zh-CN": "现在没有可暂停的题目。",
    },
    "live.not_paused": {
        "en": "The session is not paused.",
        "zh-CN": "竞答没有暂停。",
    },
    "live.paused": {
        "en": "The session is paused; answer once the host resumes it.",
        "zh-CN": "竞答已暂停，请等主持人继续后再作答。",
    },
    "live.state.paused": {
        "en": "Paused at question {number}/{count}.",
        "zh-CN": "暂停于第 {number}/{count} 题。",
    },
    "live.ending": {
        "en": "The session ends now; the final board follows.",
        "zh-CN": "竞答马上结束，随后公布最终排名。",
    },
    "live.joined": {
        "en": "You're in. Answer each question before its time runs out.",
        "zh-CN": "已加入。请在每题倒计时结束前作答。",
    },
    "live.joined_already": {
        "en": "You have joined already.",
        "zh-CN": "你已经加入了。",
    },
    "live.no_question": {
        "en": "No question is open right now.",
        "zh-CN": "现在没有开放作答的题目。",
    },
    "live.closed": {
        "en": "That question is closed; your click changed nothing.",
        "zh-CN": "这道题已截止，本次点击不计。",
    },
    "live.locked": {
        "en": "Locked in ({seconds} s). The answer comes when the time is up.",
        "zh-CN": "已锁定（{seconds} 秒）。时间到后公布答案。",
    },
    "live.locked.code": {
        "en": "Locked in ({seconds} s). The sandbox grades your code before the reveal.",
        "zh-CN": "已锁定（{seconds} 秒）。公布答案前由沙箱为你的代码评分。",
    },
    "live.code_result": {
        "en": "Your code for question {position} did not pass; here is why.",
        "zh-CN": "你在第 {position} 题提交的代码未通过，原因如下。",
    },
    "live.locked_already": {
        "en": "You have locked in an answer to this question already; it stays.",
        "zh-CN": "你已锁定本题的答案，不能更改。",
    },
    "live.lobby.title": {"en": "Live quiz", "zh-CN": "现场竞答"},
    "live.lobby.body": {
        "en": "{host} opened a live quiz: {questions} questions on {topics}.",
        "zh-CN": "{host} 开了一场现场竞答：{questions} 道题，主题：{topics}。",
    },
    "live.lobby.starts": {
        "en": "Join now; the first question comes at {at}.",
        "zh-CN": "现在加入；第一题将于 {at} 发出。",
    },
    "live.lobby.players": {
        "en": "Players ({count}): {names}",
        "zh-CN": "玩家（{count}）：{names}",
    },
    "live.topics.channel": {
        "en": "this channel's topics",
        "zh-CN": "本频道的主题",
    },
    "live.join.button": {"en": "Join", "zh-CN": "加入"},
    "live.rank.button": {"en": "My rank", "zh-CN": "我的排名"},
    "live.rank.mine": {
        "en": "Your rank: {rank} of {of}, with {points} pts ({right} right of {answered} "
              "answered).",
        "zh-CN": "你的排名：{rank}/{of}，{points} 分（作答 {answered} 题，答对 {right} 题）。",
    },
    "live.rank.none": {
        "en": "You have not answered in this session yet: no rank.",
        "zh-CN": "你在这场竞答中还没有作答，暂无排名。",
    },
    "live.question.title": {
        "en": "Live · question {number}/{count} · {topic}",
        "zh-CN": "竞答 · 第 {number}/{count} 题 · {topic}",
    },
    "live.how.choice": {
        "en": "Pick an option within {seconds} s (closes at {at}). One answer each.",
        "zh-CN": "请在 {seconds} 秒内选择（{at} 截止）。每人只能答一次。",
    },
    "live.how.code": {
        "en": "Write the function within {seconds} s (closes at {at}): the Answer button opens "
              "the code form. One answer each; the sandbox grades it at the reveal.",
        "zh-CN": "请在 {seconds} 秒内写出函数（{at} 截止）：点“作答”按钮打开代码表单。"
                 "每人只能答一次；公布答案时由沙箱评分。",
    },
    "live.how.text": {
        "en": "Type your answer within {seconds} s (closes at {at}). One answer each.",
        "zh-CN": "请在 {seconds} 秒内输入答案（{at} 截止）。每人只能答一次。",
    },
    "live.reveal.title": {
        "en": "Live · answer to question {number}/{count}",
        "zh-CN": "竞答 · 第 {number}/{count} 题答案",
    },
    "live.reveal.option": {
        "en": "{option}: {count} ({share} %){mark}",
        "zh-CN": "{option}：{count} 人（{share}%）{mark}",
    },
    "live.reveal.why": {
        "en": "Most chosen wrong answer, {option}: {why}",
        "zh-CN": "选得最多的错误答案 {option}：{why}",
    },
    "live.reveal.right": {
        "en": "{right} of {answered} answered right.",
        "zh-CN": "{answered} 人作答，{right} 人答对。",
    },
    "live.reveal.passed": {
        "en": "{right} of {answered} passed the hidden tests.",
        "zh-CN": "{answered} 人提交代码，{right} 人通过隐藏测试。",
    },
    "live.no_code": {
        "en": "Code questions need the sandbox, and none can grade here now: start without "
              "code=yes.",
        "zh-CN": "编程题需要沙箱评分，但此处暂时无法评分：请去掉 `code=yes` 再开始。",
    },
    "live.reveal.top": {"en": "Top 5 so far:", "zh-CN": "目前前五名："},
    "live.row": {
        "en": "{rank}. {name}: {points} pts ({right} right)",
        "zh-CN": "{rank}. {name}：{points} 分（答对 {right} 题）",
    },
    "live.hidden": {
        "en": "+{count} {count|player|players} keeping off the boards",
        "zh-CN": "另有 {count} 名玩家选择不上榜",
    },
    "live.none_yet": {"en": "Nobody has scored yet.", "zh-CN": "还没有人得分。"},
    "live.end.title": {"en": "Live quiz · final board", "zh-CN": "现场竞答 · 最终排名"},
    "live.end.idle": {
        "en": "Nobody answered the last questions, or it stayed paused for half an hour: "
              "the session ended itself.",
        "zh-CN": "最近几道题无人作答，或暂停已达半小时，竞答已自动结束。",
    },
    "live.end.fastest": {
        "en": "Fastest right answer: {name}, {seconds} s on question {number}.",
        "zh-CN": "最快答对：{name}，第 {number} 题用时 {seconds} 秒。",
    },
    "live.end.topics": {"en": "The team by topic:", "zh-CN": "团队各主题正确率："},
    "live.end.topic": {
        "en": "{topic}: {share} % ({right}/{total})",
        "zh-CN": "{topic}：{share}%（{right}/{total}）",
    },
    "live.end.card": {
        "en": "To read on {topic}: `{/explain} {card}` ({title})",
        "zh-CN": "关于{topic}，推荐阅读：`{/explain} {card}`（{title}）",
    },
    "live.end.counted": {
        "en": "These points count on this session's board only (an admin can add them to the "
              "weekly board: live_on_board=on in the settings).",
        "zh-CN": "本场得分只计入本场排名（管理员可在设置中用 `live_on_board=on` 将其计入每周"
                 "排行榜）。",
    },
    "live.end.weekly": {
        "en": "These points count on this session's board and on this week's board.",
        "zh-CN": "本场得分计入本场排名，也计入本周排行榜。",
    },
    "live.end.warmup": {
        "en": "Fewer than 3 players answered: a warm-up that counts toward no board.",
        "zh-CN": "作答玩家少于 3 人：本场为热身，不计入任何排行榜。",
    },
    "live.state.title": {"en": "Live session", "zh-CN": "现场竞答"},
    "live.state.lobby": {
        "en": "In the lobby; the first question comes at {at}.",
        "zh-CN": "等待开始；第一题将于 {at} 发出。",
    },
    "live.state.question": {
        "en": "Question {number}/{count} is open until {at}: {answered} of {players} "
              "players answered.",
        "zh-CN": "第 {number}/{count} 题作答中，{at} 截止：{players} 名玩家中已有 {answered} "
                 "人作答。",
    },
    "live.state.between": {
        "en": "Question {number}/{count} is revealed; the next comes shortly.",
        "zh-CN": "第 {number}/{count} 题已公布答案，下一题即将发出。",
    },
    "live.state.rank": {
        "en": "You are {rank} of {of}, with {points} pts.",
        "zh-CN": "你目前排名 {rank}/{of}，{points} 分。",
    },
    "live.option.unknown": {
        "en": "I don't know the option {option}: use questions=N, seconds=S, lobby=S, "
              "topics=a,b or code=yes (each once).",
        "zh-CN": "无法识别选项 {option}：请用 `questions=N`、`seconds=S`、`lobby=S`、"
                 "`topics=a,b` 或 `code=yes`（每项一次）。",
    },
    "live.option.range": {
        "en": "{option} must be a whole number from {low} to {high}.",
        "zh-CN": "{option} 必须是 {low} 到 {high} 之间的整数。",
    },
    "live.thread_gone": {
        "en": "This live quiz's thread was deleted: the session goes on here, in the channel.",
        "zh-CN": "本场竞答的讨论串已被删除：竞答在本频道继续进行。",
    },
    "live.option.code": {
        "en": "code= takes yes or no (code questions too, graded by the sandbox).",
        "zh-CN": "`code=` 须为 `yes` 或 `no`（是否也出编程题，由沙箱评分）。",
    },
    "live.option.topics": {
        "en": "topics= takes one to 20 topics, separated by commas.",
        "zh-CN": "`topics=` 需要 1 到 20 个主题，用逗号分隔。",
    },
}
