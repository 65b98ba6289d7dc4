"""Sentences of reports of faulty questions and item analytics: English and Simplified Chinese."""

STRINGS: dict[str, dict[str, str]] = {
    # Reports of faulty questions (bot/core/quality/reports.py).
    "report.button": {"en": "Report", "zh-CN": "报告问题"},
    "report.title": {"en": "Report this question", "zh-CN": "报告题目问题"},
    "report.reason": {"en": "What is wrong?", "zh-CN": "哪里有问题？"},
    "report.note": {
        "en": "Note (optional, up to {limit} characters)",
        "zh-CN": "补充说明（可选，最多 {limit} 个字符）",
    },
    "report.reason.incorrect": {"en": "The marked answer is incorrect",
                                "zh-CN": "标注的答案不正确"},
    "report.reason.ambiguous": {"en": "The question is ambiguous", "zh-CN": "题目有歧义"},
    "report.reason.several_correct": {"en": "More than one answer is correct",
                                      "zh-CN": "不止一个答案正确"},
    "report.reason.outdated": {"en": "Outdated for today's PyTorch",
                               "zh-CN": "对当前的 PyTorch 已过时"},
    "report.reason.translation": {"en": "A translation problem", "zh-CN": "翻译有问题"},
    "report.reason.other": {"en": "Something else", "zh-CN": "其他问题"},
    "report.thanks": {
        "en": "Thank you: your report is recorded and an admin will look at it.",
        "zh-CN": "谢谢！你的报告已记录，管理员会查看。",
    },
    "report.already": {
        "en": "You already reported this version of the question; nothing was changed.",
        "zh-CN": "你已经报告过这道题的这个版本，本次未做任何更改。",
    },
    "report.gone": {
        "en": "That question cannot be reported any more.",
        "zh-CN": "这道题已无法报告。",
    },
    "report.bad_reason": {
        "en": "Pick a reason: {reasons}.", "zh-CN": "请选择一个原因：`{reasons}`。",
    },
    "report.denied": {
        "en": "Only admins can list and close question reports.",
        "zh-CN": "只有管理员可以查看和关闭题目报告。",
    },
    "report.list.title": {"en": "Open question reports", "zh-CN": "待处理的题目报告"},
    "report.list.empty": {"en": "No open reports.", "zh-CN": "没有待处理的报告。"},
    "report.list.line": {
        "en": "#{id} · {item} v{version} · {reason} · {date}",
        "zh-CN": "#{id} · `{item}` 第 {version} 版 · {reason} · {date}",
    },
    "report.list.more": {
        "en": "…and {more} more (`torchquiz content reports` lists them all).",
        "zh-CN": "……还有 {more} 条（`torchquiz content reports` 可列出全部）。",
    },
    "report.list.how": {
        "en": "Close one with `{/reports} close ID REASON`.",
        "zh-CN": "用 `{/reports} close 编号 原因` 关闭一条报告。",
    },
    "report.close.usage": {
        "en": "Use `{/reports}` to list, `{/reports} close ID REASON` to close one.",
        "zh-CN": "用 `{/reports}` 列出报告，用 `{/reports} close 编号 原因` 关闭一条。",
    },
    "report.close.none": {
        "en": "There is no open report #{id} here.", "zh-CN": "这里没有编号为 #{id} 的待处理报告。",
    },
    "report.close.done": {"en": "Report #{id} is closed.", "zh-CN": "报告 #{id} 已关闭。"},
    "report.close.many": {"en": "Reports #{ids} are closed.", "zh-CN": "报告 #{ids} 已关闭。"},
    "insights.title": {"en": "Question quality", "zh-CN": "题目质量"},
    "insights.summary": {
        "en": "{answered} question versions answered; {enough} with enough answerers "
            "(at least {minimum}) for a discrimination.",
        "zh-CN": "共有 {answered} 个题目版本有人作答；其中 {enough} 个的作答人数足够"
            "（至少 {minimum} 人），可计算区分度。",
    },
    "insights.none": {
        "en": "No question is flagged or reported.",
        "zh-CN": "没有被标记或被举报的题目。",
    },
    "insights.line": {
        "en": "`{item}` v{version} · {answered} answered · p {p} · discrimination {disc}"
            " · {reports} open reports",
        "zh-CN": "`{item}` 第 {version} 版 · {answered} 人作答 · 正确率 {p} · 区分度 {disc}"
            " · {reports} 条未处理举报",
    },
    "insights.no_data": {"en": "not enough data", "zh-CN": "数据不足"},
    "insights.paused": {
        "en": "paused: no daily post picks it", "zh-CN": "已暂停：每日一题不会选它"},
    "insights.flag.too_easy": {"en": "too easy", "zh-CN": "过于简单"},
    "insights.flag.too_hard": {"en": "too hard", "zh-CN": "过难"},
    "insights.flag.weak": {"en": "weak discrimination", "zh-CN": "区分度低"},
    "insights.flag.suspect_key": {"en": "answer key suspect", "zh-CN": "答案可能有误"},
    "insights.footer": {
        "en": "p: share right on the first try in daily rounds. Discrimination: correlation "
            "of being right here with the answerer's accuracy on other questions.",
        "zh-CN": "正确率：每日一题中首次作答即答对的比例。区分度：答对本题与作答者在"
            "其他题目上的正确率之间的相关系数。",
    },
    "insights.unpause": {"en": "Unpause {item}", "zh-CN": "恢复 {item}"},
    "insights.unpaused": {
        "en": "`{item}` (version {versions}) is unpaused: daily posts may pick it again.",
        "zh-CN": "`{item}`（版本 {versions}）已恢复：每日一题可以再次选中它。",
    },
    "insights.not_paused": {
        "en": "`{item}` is not paused; nothing changed.",
        "zh-CN": "`{item}` 没有被暂停，未做任何更改。",
    },
    "insights.paused_now": {
        "en": "`{item}` (version {version}) is paused: no daily post picks it until an admin "
            "unpauses it.",
        "zh-CN": "`{item}`（版本 {version}）已暂停：在管理员恢复之前，每日一题不会选它。",
    },
    "insights.already_paused": {
        "en": "`{item}` is paused already; nothing changed.",
        "zh-CN": "`{item}` 已经处于暂停状态，未做任何更改。",
    },
    "insights.unknown": {
        "en": "There is no question `{item}` here; its id is in the first column of "
            "{/insights}.",
        "zh-CN": "这里没有题目 `{item}`；题目编号见 {/insights} 的第一列。",
    },
    "insights.usage": {
        "en": "Type {/insights} alone to see question quality, or {/insights} pause ID / "
            "unpause ID.",
        "zh-CN": "单独输入 {/insights} 查看题目质量，或输入 `{/insights} pause 编号` / "
            "`{/insights} unpause 编号`。",
    },
    "insights.denied": {
        "en": "Only admins can see question quality.",
        "zh-CN": "只有管理员可以查看题目质量。",
    },
}
