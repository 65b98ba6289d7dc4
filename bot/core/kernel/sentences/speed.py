"""Sentences of speed challenges (bot/core/speed): serving, verdicts, boards, held verdicts.

English and Simplified Chinese.
"""

STRINGS: dict[str, dict[str, str]] = {
    "help.speed": {
        "en": "a speed challenge's board; alone, the list of challenges ({/quiz} speed to try one)",
        "zh-CN": "查看某个速度挑战的排行榜；不带参数则列出所有挑战（用 `{/quiz} speed` 来挑战）",
    },
    "speed.list.title": {"en": "Speed challenges", "zh-CN": "速度挑战"},
    "speed.list.line": {"en": "`{id}` (target {target}×): {task}",
                        "zh-CN": "`{id}`（目标 {target}×）：{task}"},
    "speed.list.empty": {"en": "There are no speed challenges in this bank.",
                         "zh-CN": "题库中没有速度挑战。"},
    "speed.list.footer": {
        "en": "{/quiz} speed ID serves one; {/speed} ID shows its board.",
        "zh-CN": "用 `{/quiz} speed` 加编号来挑战，用 {/speed} 加编号查看排行榜。",
    },
    "speed.unknown": {
        "en": "No speed challenge has that id: {/speed} alone lists them.",
        "zh-CN": "没有这个编号的速度挑战：只输入 {/speed} 可查看全部。",
    },
    "speed.asked": {"en": "You asked for", "zh-CN": "你输入的是"},
    "speed.serve.title": {"en": "Speed challenge {id}", "zh-CN": "速度挑战 {id}"},
    "speed.serve.signature": {"en": "Signature: `{signature}`", "zh-CN": "函数签名：`{signature}`"},
    "speed.serve.rules": {
        "en": "Below is the slow reference: make it faster (target {target}×) with the same "
              "results. Your code is timed against it on {shapes} shapes in a sandbox, one CPU "
              "thread; it counts as faster when the 95 % interval's lower bound reaches 1.1× "
              "at every shape.",
        "zh-CN": "下面是较慢的参考实现：在结果不变的前提下让它更快（目标 {target}×）。你的代码会在"
                 "沙箱中以单个 CPU 线程、在 {shapes} 种输入形状上与它对比计时；只有每种形状的 95% "
                 "置信区间下限都达到 1.1× 才算更快。",
    },
    "speed.serve.footer": {
        "en": "Answer with the button (in the console: /practice, then your code until /end).",
        "zh-CN": "点按钮提交代码（控制台：输入 /practice，再逐行输入代码，直到 /end）。",
    },
    "speed.form.button": {"en": "Submit faster code", "zh-CN": "提交更快的代码"},
    "speed.form.title": {"en": "Speed challenge", "zh-CN": "速度挑战"},
    "speed.form.field": {"en": "Your faster version", "zh-CN": "你的更快版本"},
    "speed.too_long": {
        "en": "That code is {size} characters; a speed answer may have at most {limit}.",
        "zh-CN": "这段代码有 {size} 个字符；速度挑战的答案最多 {limit} 个字符。",
    },
    "speed.empty": {"en": "Send some code: the answer was empty.",
                    "zh-CN": "答案是空的，请提交代码。"},
    "speed.unavailable": {
        "en": "Speed challenges cannot be timed here: this bot has no speed timer.",
        "zh-CN": "这里无法为速度挑战计时：机器人没有可用的计时器。",
    },
    "speed.busy": {
        "en": "The speed timer is busy: send your code again in a minute.",
        "zh-CN": "计时器正忙，请稍后再提交一次。",
    },
    "speed.nothing_open": {
        "en": "You have no speed challenge open: {/quiz} speed serves one.",
        "zh-CN": "你还没有进行中的速度挑战：用 `{/quiz} speed` 开始一个。",
    },
    "speed.verdict.title": {"en": "Speed verdict: {id}", "zh-CN": "速度评测：{id}"},
    "speed.verdict.fault": {
        "en": "The timer failed on our side: this answer was not timed and does not count. "
              "Send it again.",
        "zh-CN": "计时器出现故障（不是你的问题）：这次没有计时，也不计入成绩，请再提交一次。",
    },
    "speed.verdict.rejected": {
        "en": "Your code was not run: it was refused before timing.",
        "zh-CN": "你的代码没有运行：计时前就被拒绝了。",
    },
    "speed.verdict.wrong": {
        "en": "Wrong result: your output differs from the reference's on the same inputs, "
              "so it is not timed.",
        "zh-CN": "结果错误：在相同输入上你的输出与参考实现不一致，因此不计时。",
    },
    "speed.verdict.error": {
        "en": "Your code failed with an error, so it is not timed.",
        "zh-CN": "你的代码运行出错，因此不计时。",
    },
    "speed.verdict.timeout": {
        "en": "Your code ran past the time limit of a call, so it is not timed.",
        "zh-CN": "你的代码单次调用超出了时间限制，因此不计时。",
    },
    "speed.verdict.memory_limit": {
        "en": "Your code used more memory than a call may, so it is not timed.",
        "zh-CN": "你的代码单次调用超出了内存限制，因此不计时。",
    },
    "speed.verdict.faster": {
        "en": "Correct and faster: score {score}× (the geometric mean of the shapes' "
              "speedups, each capped at 50×).",
        "zh-CN": "结果正确且更快：得分 {score}×（各形状加速比的几何平均，每项上限 50×）。",
    },
    "speed.verdict.slower": {
        "en": "Correct, but not faster: the interval's lower bound must reach {at}× at every "
              "shape.",
        "zh-CN": "结果正确，但不够快：每种形状的置信区间下限都必须达到 {at}×。",
    },
    "speed.verdict.shape": {
        "en": "{shape}: {speedup}× (95 % interval {low}×–{high}×)",
        "zh-CN": "{shape}：{speedup}×（95% 置信区间 {low}×–{high}×）",
    },
    "speed.verdict.checked": {
        "en": "Checked: {calls} calls on freshly made inputs, each output compared outside the "
              "sandbox with the reference's (rtol {rtol}, atol {atol}); times are each call's "
              "CPU time as the kernel counted it, less the harness's own.",
        "zh-CN": "已检查：{calls} 次调用，每次都用新生成的输入，输出在沙箱外与参考实现逐一比较"
                 "（`rtol` {rtol}，`atol` {atol}）；时间取内核统计的每次调用的 CPU 时间，"
                 "并扣除框架自身的开销。",
    },
    "speed.verdict.held": {
        "en": "Held: this result is unusually fast, so an admin looks at it before it is "
              "ranked.",
        "zh-CN": "已暂扣：这个结果快得异常，管理员审核后才会计入排行榜。",
    },
    "speed.verdict.board": {
        "en": "Ranked: {/speed} {id} shows the board.",
        "zh-CN": "已计入排行榜：用 {/speed} 加编号 `{id}` 查看。",
    },
    "speed.board.title": {"en": "Fastest on {id}", "zh-CN": "{id} 速度排行榜"},
    "speed.board.header": {"en": "#   member                score  since",
                           "zh-CN": "#   成员                   得分  时间"},
    "speed.board.empty": {
        "en": "Nobody here has a faster verdict on {id} yet: {/quiz} speed to be the first.",
        "zh-CN": "这里还没有人在 {id} 上跑得更快：用 `{/quiz} speed` 来做第一个。",
    },
    "speed.board.footer": {
        "en": "Each member's best score; ties go to who got there first.",
        "zh-CN": "每位成员的最好成绩；同分时先达成者在前。",
    },
    "speed.held.title": {"en": "Held speed verdicts", "zh-CN": "待审核的速度评测"},
    "speed.held.empty": {"en": "No speed verdict is waiting for review.",
                         "zh-CN": "没有等待审核的速度评测。"},
    "speed.held.line": {
        "en": "#{id} {item}: score {score}× ({shapes}), {at} UTC",
        "zh-CN": "#{id} {item}：得分 {score}×（{shapes}），{at} UTC",
    },
    "speed.held.who": {"en": "#{id} by", "zh-CN": "#{id} 提交者"},
    "speed.held.release": {"en": "Release #{id}", "zh-CN": "放行 #{id}"},
    "speed.held.reject": {"en": "Reject #{id}", "zh-CN": "驳回 #{id}"},
    "speed.held.footer": {
        "en": "Release ranks a verdict; reject keeps it off the board. Console: {/speed} "
              "release ID or {/speed} reject ID.",
        "zh-CN": "放行后计入排行榜，驳回则不计入。控制台：`{/speed} release` 或 "
                 "`{/speed} reject` 加编号。",
    },
    "speed.held.denied": {
        "en": "Only an admin can review held speed verdicts.",
        "zh-CN": "只有管理员可以审核待审的速度评测。",
    },
    "speed.held.usage": {
        "en": "Use {/speed} held, {/speed} release ID or {/speed} reject ID.",
        "zh-CN": "用法：`{/speed} held`、`{/speed} release` 加编号或 `{/speed} reject` 加编号。",
    },
    "speed.held.gone": {
        "en": "Speed verdict #{id} is not waiting for review here (already reviewed, or "
              "not this workspace's).",
        "zh-CN": "速度评测 #{id} 不在这里的待审列表中（已审核过，或不属于本工作区）。",
    },
    "speed.held.done.release": {
        "en": "Released speed verdict #{id} on {item}: it is ranked now.",
        "zh-CN": "已放行速度评测 #{id}（{item}）：现已计入排行榜。",
    },
    "speed.held.done.reject": {
        "en": "Rejected speed verdict #{id} on {item}: it stays off the board.",
        "zh-CN": "已驳回速度评测 #{id}（{item}）：不计入排行榜。",
    },
    "data.speed_verdicts.one": {"en": "{n} speed verdict", "zh-CN": "{n} 条速度评测"},
    "data.speed_verdicts.other": {"en": "{n} speed verdicts", "zh-CN": "{n} 条速度评测"},
    "data.speed_challenge.one": {"en": "your open speed challenge",
                                 "zh-CN": "进行中的速度挑战"},
    "data.speed_challenge.other": {"en": "{n} open speed challenges",
                                   "zh-CN": "{n} 个进行中的速度挑战"},
    # A speed challenge as the channel's daily round (bot/core/speed/rounds.py).
    "speed.round.how": {
        "en": "Answer with the button: a faster `{entrypoint}`, timed in a sandbox. Up to {tries} "
              "tries; your best faster one counts, once.",
        "zh-CN": "点按钮作答：提交更快的 `{entrypoint}`，在沙箱中计时。最多 {tries} 次；"
                 "只计你最好的一次更快结果，且只计一次。",
    },
    "speed.round.meta": {
        "en": "{topic} · difficulty {difficulty}/3 · {points}-{most} points · closes {closes}",
        "zh-CN": "{topic} · 难度 {difficulty}/3 · {points}-{most} 分 · {closes} 截止",
    },
    "speed.round.meta.closed": {
        "en": "{topic} · difficulty {difficulty}/3 · {points}-{most} points · closed",
        "zh-CN": "{topic} · 难度 {difficulty}/3 · {points}-{most} 分 · 已结束",
    },
    "speed.round.points": {
        "en": "Today's round: +{points} points (your best now counts {best}).",
        "zh-CN": "今日一题：+{points} 分（你的最好成绩现计 {best} 分）。",
    },
    "speed.round.kept": {
        "en": "Today's round: no more points, your best try still counts {best}.",
        "zh-CN": "今日一题：没有新增分数，仍按你最好的一次计 {best} 分。",
    },
    "speed.round.no_points": {
        "en": "Today's round: no points for this try (your best counts {best}).",
        "zh-CN": "今日一题：这次不得分（你最好的一次计 {best} 分）。",
    },
    "speed.round.held": {
        "en": "It counts for today's round once an admin releases it.",
        "zh-CN": "管理员放行后才会计入今日一题。",
    },
    "speed.round.no_tries": {
        "en": "You have used your {tries} tries at today's speed round.",
        "zh-CN": "你已用完今日速度挑战的 {tries} 次机会。",
    },
    "speed.round.reveal": {
        "en": "The challenge's own fast solution is below. Why it is fast:",
        "zh-CN": "下面是本题自带的快速解法。它为什么快：",
    },
    "speed.round.best": {"en": "Fastest today:", "zh-CN": "今日最快："},
    "speed.round.nobody": {"en": "Nobody was faster today.", "zh-CN": "今天没有人更快。"},
    "speed.round.rank": {"en": "{rank}. {score}×", "zh-CN": "{rank}. {score}×"},
}
