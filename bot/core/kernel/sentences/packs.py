"""Sentences of team packs from chat: English and Simplified Chinese."""

STRINGS: dict[str, dict[str, str]] = {
    # team packs from chat (bot/core/desk/packs.py)
    "pack.denied": {
        "en": "Only admins can add, list, remove and export team packs.",
        "zh-CN": "只有管理员可以添加、查看、移除和导出团队题包。",
    },
    "pack.off": {
        "en": "Team packs are not available on this deployment.",
        "zh-CN": "此部署未启用团队题包。",
    },
    "pack.no_workspace": {
        "en": "Use this command in your team's workspace or server, not in a direct message.",
        "zh-CN": "请在团队的工作区或服务器中使用此命令，而不是在私信中。",
    },
    "pack.bad_name": {
        "en": "A pack is one YAML file: send a file whose name ends in .yaml or .yml.",
        "zh-CN": "题包是一个 YAML 文件：请发送文件名以 `.yaml` 或 `.yml` 结尾的文件。",
    },
    "pack.too_big": {
        "en": "That file is {size:,} bytes; a pack may be at most {limit:,} bytes. Nothing was "
            "stored.",
        "zh-CN": "该文件有 {size:,} 字节；题包最多 {limit:,} 字节。未存储任何内容。",
    },
    "pack.no_file": {
        "en": "Attach one pack file (.yaml or .yml).",
        "zh-CN": "请附上一个题包文件（`.yaml` 或 `.yml`）。",
    },
    "pack.download_failed": {
        "en": "The file could not be fetched from the platform; try uploading it again.",
        "zh-CN": "无法从平台获取该文件，请重新上传。",
    },
    "pack.checking": {
        "en": "Checking the pack: its code runs in the sandbox, which can take up to a "
            "minute. The report will follow here.",
        "zh-CN": "正在检查题包：其代码在沙箱中运行，最多可能需要一分钟。报告稍后发到这里。",
    },
    "pack.invalid.title": {"en": "Pack not valid: nothing stored", "zh-CN": "题包无效：未存储"},
    "pack.invalid": {
        "en": "{count} {count|problem|problems}, each with its place in the file "
              "({items} questions, {cards} explain cards read):",
        "zh-CN": "共 {count} 个问题，均标明了在文件中的位置（已读取 {items} 道题、{cards} 张"
            "概念卡）：",
    },
    "pack.invalid.more": {
        "en": "…and {more} more. `torchquiz pack validate FILE` lists them all.",
        "zh-CN": "……还有 {more} 个。`torchquiz pack validate 文件` 可列出全部。",
    },
    "pack.invalid.how": {
        "en": "Fix them and upload the file again; `torchquiz pack validate FILE` checks it "
            "locally.",
        "zh-CN": "修正后请重新上传；`torchquiz pack validate 文件` 可在本地检查。",
    },
    "pack.stored.title": {"en": "Pack stored", "zh-CN": "题包已存储"},
    "pack.stored": {
        "en": "Pack `{pack}` version {version} is stored for this workspace only: {items} "
            "questions, {cards} explain cards.",
        "zh-CN": "题包 `{pack}` 第 {version} 版已存储，仅本工作区可见：{items} 道题，{cards} 张"
            "概念卡。",
    },
    "pack.stored.how": {
        "en": "Let a channel draw from it beside the shipped questions with "
              "`{/settings} packs:bank,{pack}` (only from it: `packs:{pack}`).",
        "zh-CN": "用 `{/settings} packs:bank,{pack}` 让频道在内置题库之外也从中出题"
                 "（只用此题包：`packs:{pack}`）。",
    },
    "pack.title": {"en": "Title:", "zh-CN": "标题："},
    "pack.taken": {
        "en": "The pack id `{pack}` is taken by another workspace; choose another id. Nothing "
            "was stored.",
        "zh-CN": "题包编号 `{pack}` 已被其他工作区使用，请换一个编号。未存储任何内容。",
    },
    "pack.version_low": {
        "en": "Pack `{pack}` already has version {version}: raise `version` in the file above "
            "it. Nothing was stored.",
        "zh-CN": "题包 `{pack}` 已有第 {version} 版：请把文件中的 `version` 调高。未存储任何"
            "内容。",
    },
    "pack.conflict": {
        "en": "Pack `{pack}` changed while it was checked; look at `{/pack} list` and try "
            "again. Nothing was stored.",
        "zh-CN": "题包 `{pack}` 在检查期间发生了变化；请查看 `{/pack} list` 后重试。未存储"
            "任何内容。",
    },
    "pack.list.title": {"en": "Team packs", "zh-CN": "团队题包"},
    "pack.list.empty": {
        "en": "No packs yet. Add one with `{/pack} add`.",
        "zh-CN": "还没有题包。用 `{/pack} add` 添加。",
    },
    "pack.list.own": {"en": "`{pack}` v{version}", "zh-CN": "`{pack}` 第 {version} 版"},
    "pack.list.shared": {
        "en": "`{pack}` v{version} (shared, read-only)",
        "zh-CN": "`{pack}` 第 {version} 版（共享，只读）",
    },
    "pack.list.more": {"en": "…and {more} more.", "zh-CN": "……还有 {more} 个。"},
    "pack.list.how": {
        "en": "`{/pack} remove ID` hides one (answers stay); `{/pack} export ID` sends "
            "its file.",
        "zh-CN": "`{/pack} remove 编号` 隐藏题包（答题记录保留）；`{/pack} export 编号` "
            "发送其文件。",
    },
    "pack.usage": {
        "en": "Use `{/pack} add`, `{/pack} list`, `{/pack} remove ID` or "
            "`{/pack} export ID`.",
        "zh-CN": "用法：`{/pack} add`、`{/pack} list`、`{/pack} remove 编号` 或 "
            "`{/pack} export 编号`。",
    },
    "pack.bad_id": {
        "en": "A pack id is 2 to 24 lower-case letters, digits or dashes.",
        "zh-CN": "题包编号为 2 到 24 个小写字母、数字或短横线。",
    },
    "pack.none": {
        "en": "There is no pack `{pack}` here.", "zh-CN": "这里没有题包 `{pack}`。",
    },
    "pack.shared": {
        "en": "Pack `{pack}` is shared by the whole deployment: its operator manages it "
            "(`torchquiz pack`).",
        "zh-CN": "题包 `{pack}` 由整个部署共享，由运维人员管理（`torchquiz pack`）。",
    },
    "pack.not_yours": {
        "en": "Pack `{pack}` is not one of this workspace's packs; you can manage only your "
            "own.",
        "zh-CN": "题包 `{pack}` 不属于本工作区；你只能管理本工作区的题包。",
    },
    "pack.removed": {
        "en": "Pack `{pack}` is removed: no list or draw shows it; answers to it are kept.",
        "zh-CN": "题包 `{pack}` 已移除：不再出现在列表或出题中；相关答题记录保留。",
    },
    "pack.exported": {
        "en": "Pack `{pack}` version {version}: the file `{file}` is attached.",
        "zh-CN": "题包 `{pack}` 第 {version} 版：已附上文件 `{file}`。",
    },
    "pack.exported.dm": {
        "en": "Pack `{pack}` version {version}: the file `{file}` is in your direct messages "
            "with the app.",
        "zh-CN": "题包 `{pack}` 第 {version} 版：文件 `{file}` 已发到你与本应用的私信中。",
    },
    "pack.export_failed": {
        "en": "The file could not be sent to your direct messages; try again later.",
        "zh-CN": "无法把文件发到你的私信中，请稍后重试。",
    },
    "pack.modal.title": {"en": "Add a team pack", "zh-CN": "添加团队题包"},
    "pack.modal.file": {"en": "Pack file (.yaml)", "zh-CN": "题包文件（`.yaml`）"},
    "pack.modal.submit": {"en": "Check and add", "zh-CN": "检查并添加"},
    "pack.version_low_removed": {
        "en": "Pack `{pack}` was removed at version {version}: to bring it back, raise "
            "`version` in the file above it. Nothing was checked or stored.",
        "zh-CN": "题包 `{pack}` 在第 {version} 版时已被移除：若要恢复，请把文件中的 `version` "
            "调高。未检查也未存储任何内容。",
    },
    # an admin's preview of a pack: /quiz PACK-ID (bot/core/learning/practice.py)
    "practice.preview.title": {"en": "Preview · pack {pack}", "zh-CN": "预览 · 题包 {pack}"},
    "practice.preview.why": {
        "en": "A question of pack `{pack}`, for you to try before your members do (unscored).",
        "zh-CN": "题包 `{pack}` 中的一道题，供你在成员之前先试做（不计分）。",
    },
    "practice.preview.denied": {
        "en": "Only admins can preview a team pack. `{/quiz}` without a topic draws from the "
            "packs your channel chose.",
        "zh-CN": "只有管理员可以预览团队题包。不带主题的 `{/quiz}` 会从频道所选的题包中出题。",
    },
    "practice.preview.none": {
        "en": "Pack `{pack}` has no question to preview now (a question of a round still open "
            "waits for its reveal).",
        "zh-CN": "题包 `{pack}` 现在没有可预览的题目（仍在进行的轮次中的题目要等揭晓后才能"
            "练习）。",
    },
}
