"""Sentences of the daily round: its post, answers, code grading, the reveal.

English and Simplified Chinese.
"""

STRINGS: dict[str, dict[str, str]] = {
    "round.title": {"en": "Daily PyTorch question · {date}", "zh-CN": "每日 PyTorch 一题 · {date}"},
    "round.how.choice": {
        "en": "Pick an option below, or answer with its letter.",
        "zh-CN": "点击下方选项，或直接回复字母作答。",
    },
    "round.how.text": {"en": "Answer with a short text.", "zh-CN": "请用简短的文字作答。"},
    "round.how.code": {
        "en": "Answer with code: define `{entrypoint}`. Hidden tests run in a sandbox.",
        "zh-CN": "请用代码作答：实现 `{entrypoint}`。代码会在沙箱中运行隐藏测试。",
    },
    "round.meta": {
        "en": "{topic} · difficulty {difficulty}/3 · {points} points · closes {closes}",
        "zh-CN": "{topic} · 难度 {difficulty}/3 · {points} 分 · {closes} 截止",
    },
    "round.meta.closed": {
        "en": "{topic} · difficulty {difficulty}/3 · {points} points · closed",
        "zh-CN": "{topic} · 难度 {difficulty}/3 · {points} 分 · 已结束",
    },
    "round.closed": {
        "en": "This round is closed: the answer and why are in the reveal.",
        "zh-CN": "本轮已结束：答案和解析见揭晓消息。",
    },
    "round.tally": {
        "en": "{solved} solved · {attempted} answered",
        "zh-CN": "{solved} 人答对 · {attempted} 人作答",
    },
    "round.examples": {"en": "Examples", "zh-CN": "示例"},
    "round.signature": {"en": "Signature", "zh-CN": "函数签名"},
    "reveal.title": {"en": "Answer · {date}", "zh-CN": "答案揭晓 · {date}"},
    "reveal.answer": {"en": "Answer: {answer}", "zh-CN": "答案：{answer}"},
    "reveal.solution": {"en": "A reference solution:", "zh-CN": "参考解法："},
    "reveal.more": {"en": "More: {/explain} {topics}", "zh-CN": "延伸阅读：{/explain} {topics}"},
    "answer.correct": {
        "en": "Correct! +{points} points{bonus}.",
        "zh-CN": "答对了！+{points} 分{bonus}。",
    },
    "answer.first_try": {"en": " (first-try bonus)", "zh-CN": "（首次即对奖励）"},
    "answer.wrong": {
        "en": "Not quite. {left} {left|try|tries} left.",
        "zh-CN": "不太对。还剩 {left} 次机会。",
    },
    "answer.wrong_final": {
        "en": "Not this time. The answer is revealed when the round closes.",
        "zh-CN": "这次没答对。本轮结束后会公布答案。",
    },
    "answer.wrong_closed": {
        "en": "Not this time. The round has closed; its answer is in the round's thread.",
        "zh-CN": "这次没答对。本轮已结束，答案见本轮的讨论串。",
    },
    "answer.why": {"en": "Why not {option}: {why}", "zh-CN": "为什么不是 {option}：{why}"},
    "answer.already_solved": {
        "en": "You already solved today's question. Nothing was recorded.",
        "zh-CN": "你今天已经答对了，本次不计入。",
    },
    "answer.no_tries": {
        "en": "You have used all your tries for this round. Nothing was recorded.",
        "zh-CN": "本轮的作答次数已用完，本次不计入。",
    },
    "answer.duplicate": {
        "en": "That answer arrived twice; it was recorded once.",
        "zh-CN": "这个答案收到了两次，只记录了一次。",
    },
    "answer.closed": {
        "en": "This round is closed. Try {/quiz} for practice.",
        "zh-CN": "本轮已结束。可以用 {/quiz} 练习。",
    },
    "answer.no_round": {
        "en": "There is no open question in this channel right now.",
        "zh-CN": "本频道当前没有进行中的题目。",
    },
    "answer.empty": {"en": "Your answer is empty.", "zh-CN": "你的答案是空的。"},
    "answer.too_long": {
        "en": "That answer is too long ({size} characters; the limit is {limit}).",
        "zh-CN": "答案太长（{size} 个字符，上限 {limit}）。",
    },
    "answer.control": {
        "en": "Your answer contains control characters; please send plain text.",
        "zh-CN": "答案中含有控制字符，请发送纯文本。",
    },
    "answer.unreadable_choice": {
        "en": "Answer with one of the letters {keys}.",
        "zh-CN": "请用字母 {keys} 之一作答。",
    },
    "answer.needs_code": {
        "en": "This question needs code: send a function named `{entrypoint}`.",
        "zh-CN": "本题需要提交代码：请实现名为 `{entrypoint}` 的函数。",
    },
    "answer.not_code": {
        "en": "This question is answered by text or a button, not code.",
        "zh-CN": "本题请用文字或按钮作答，不需要代码。",
    },
    "answer.typo": {"en": "(Accepted: {note}.)", "zh-CN": "（已接受：{note}。）"},
    "code.unavailable": {
        "en": "Code grading is not available here: {reason}. Your answer was not recorded.",
        "zh-CN": "当前无法评测代码：{reason}。本次作答未被记录。",
    },
    "code.not_here": {
        "en": "the executor cannot run this challenge", "zh-CN": "当前评测器无法运行这道题",
    },
    "code.no_executor": {
        "en": "no sandboxed executor is configured", "zh-CN": "未配置沙箱执行器",
    },
    "code.passed": {
        "en": "All {total} hidden tests passed in {ms} ms.",
        "zh-CN": "全部 {total} 个隐藏测试通过，用时 {ms} 毫秒。",
    },
    # A verdict's status in code.result (executors/grading/verdict.py names them).
    "code.status.failed": {"en": "failed", "zh-CN": "未通过"},
    "code.status.error": {"en": "error", "zh-CN": "运行出错"},
    "code.status.timeout": {"en": "timeout", "zh-CN": "超时"},
    "code.status.memory_limit": {"en": "memory limit", "zh-CN": "超出内存限制"},
    "code.status.output_limit": {"en": "output limit", "zh-CN": "超出输出限制"},
    "code.result": {
        "en": "{status}: {passed}/{total} hidden tests passed.",
        "zh-CN": "{status}：通过 {passed}/{total} 个隐藏测试。",
    },
    "code.rejected": {
        "en": "Not run, and this did not use a try:",
        "zh-CN": "代码未运行，本次不消耗作答次数：",
    },
    "code.syntax": {
        "en": "Your code does not compile (line {line}, column {column}). Not run, and this "
            "did not use a try:",
        "zh-CN": "你的代码无法编译（第 {line} 行，第 {column} 列）。"
            "代码未运行，本次不消耗作答次数：",
    },
    "code.too_complex": {
        "en": "Your code is nested too deeply to compile. Not run, and this did not use a try.",
        "zh-CN": "你的代码嵌套过深，无法编译。代码未运行，本次不消耗作答次数。",
    },
    "code.fault": {
        "en": "The grader failed on our side. This did not use a try; please send it again.",
        "zh-CN": "评测在我们这边出错了。本次不消耗作答次数，请重新提交。",
    },
    "code.output": {"en": "Your output", "zh-CN": "你的输出"},
    "code.pending": {
        "en": "Grading is delayed; you will get your result here. Your answer is kept and "
              "counts from the time you sent it.",
        "zh-CN": "评测暂时延迟，结果会在这里发给你。你的答案已保存，按提交时间计算。",
    },
    "code.pending_result": {
        "en": "The result of the code you sent for the {date} question:",
        "zh-CN": "你为 {date} 的题目提交的代码，评测结果如下：",
    },
    "code.busy_practice": {
        "en": "Code grading is unavailable for a moment. This did not use a try; please send "
              "it again in a minute.",
        "zh-CN": "代码评测暂时不可用。本次不消耗作答次数，请稍后再提交。",
    },
    "limit.code": {
        "en": "You're sending answers faster than they can be graded; try again in {seconds} s.",
        "zh-CN": "你提交答案的速度超过了评测速度；请 {seconds} 秒后再试。",
    },
    "limit.commands": {
        "en": "That's a lot of commands at once; try again in {seconds} s.",
        "zh-CN": "命令发送过于频繁；请 {seconds} 秒后再试。",
    },
    "busy": {
        "en": "The quiz is busy right now and nothing was recorded; please try again in a moment.",
        "zh-CN": "测验当前繁忙，本次未记录任何内容；请稍后再试。",
    },
    "reveal.distribution": {"en": "First tries", "zh-CN": "首次作答分布"},
    "reveal.wrong_answers": {
        "en": "Most common wrong answers (first tries, each typed by {n} or more members):",
        "zh-CN": "最常见的错误答案（首次作答，每条至少 {n} 位成员写过）：",
    },
}
