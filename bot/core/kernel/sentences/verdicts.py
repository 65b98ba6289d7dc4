"""Sentences that explain a failed code answer: one per reason code of the executor's grader.

The executor explains a failure as a reason code with plain parameters
(``executors/grading/reasons.py``); ``bot/core/questions/diagnostics.py`` words it here, in the
channel's language. Values a member types or reads as code (shapes, dtypes, indices) are filled
in already in code font. The sandbox's own words (an exception's text) never enter these
sentences: they follow them, shown through the one sanitiser.
English and Simplified Chinese.
"""

STRINGS: dict[str, dict[str, str]] = {
    # Where in a run it happened.
    "verdict.test": {"en": "Test {test} of {tests}: {text}",
                     "zh-CN": "第 {test} 个测试（共 {tests} 个）：{text}"},
    "verdict.path": {"en": "in {path}, {text}", "zh-CN": "{path} 处：{text}"},
    "verdict.grad": {"en": "the gradient with respect to {arg}: {text}",
                     "zh-CN": "对{arg}的梯度：{text}"},
    "verdict.arg": {"en": "argument {index}", "zh-CN": "位置 {index} 的参数"},
    "verdict.arg.named": {"en": "{name} (argument {index})",
                          "zh-CN": "参数 {name}（位置 {index}）"},
    "verdict.during": {"en": " during test {at} of {of}",
                       "zh-CN": "（发生在第 {at} 个测试，共 {of} 个）"},
    "verdict.before_load": {"en": " before it was loaded", "zh-CN": "（代码尚未加载完成）"},
    "verdict.line": {"en": " (line {line})", "zh-CN": "（第 {line} 行）"},
    "verdict.at": {"en": " at {index}", "zh-CN": "（首个位于 {index}）"},
    "verdict.share": {"en": "{count} of {numel} elements differ",
                      "zh-CN": "{numel} 个元素中有 {count} 个不同"},
    "verdict.share.one": {"en": "the value differs", "zh-CN": "该值不同"},
    "verdict.size.bytes": {"en": "{n} bytes", "zh-CN": "{n} 字节"},
    "verdict.size.kib": {"en": "{n} KiB", "zh-CN": "{n} KiB"},
    # How far off a value is, relative to the tolerance.
    "verdict.far.nan": {"en": "NaN on one side only", "zh-CN": "一方是 `NaN` 而另一方不是"},
    "verdict.far.inf": {"en": "infinite on one side only", "zh-CN": "一方是无穷大而另一方不是"},
    "verdict.far.exact": {"en": "required to match exactly", "zh-CN": "必须完全相等"},
    "verdict.far.rounding": {
        "en": "just outside the tolerance (rounding? check the dtype you compute in)",
        "zh-CN": "略超出容差（是舍入误差吗？检查计算所用的 `dtype`）",
    },
    "verdict.far.power": {"en": "about 10^{power} times the tolerance off",
                          "zh-CN": "偏差约为容差的 10^{power} 倍"},
    "verdict.far.far": {"en": "far outside the tolerance (over 1000 times)",
                        "zh-CN": "远超容差（超过 1000 倍）"},
    # What kind of value something is.
    "verdict.kind.tensor": {"en": "a tensor", "zh-CN": "张量"},
    "verdict.kind.none": {"en": "None", "zh-CN": "`None`"},
    "verdict.kind.bool": {"en": "a bool", "zh-CN": "布尔值"},
    "verdict.kind.int": {"en": "an int", "zh-CN": "整数"},
    "verdict.kind.float": {"en": "a float", "zh-CN": "浮点数"},
    "verdict.kind.str": {"en": "a str", "zh-CN": "字符串"},
    "verdict.kind.bytes": {"en": "bytes", "zh-CN": "字节串"},
    "verdict.kind.list": {"en": "a list of {n} {n|item|items}", "zh-CN": "含 {n} 项的列表"},
    "verdict.kind.tuple": {"en": "a tuple of {n} {n|item|items}", "zh-CN": "含 {n} 项的元组"},
    "verdict.kind.dict": {"en": "a dict with {n} {n|key|keys}", "zh-CN": "含 {n} 个键的字典"},
    "verdict.kind.value": {"en": "a value", "zh-CN": "一个值"},
    "verdict.hint.none": {"en": "", "zh-CN": ""},
    "verdict.hint.forgot_return": {"en": " (did you forget to return?)",
                                   "zh-CN": "（是不是忘了 `return`？）"},
    "verdict.hint.use_item": {"en": " (use `.item()` to return a Python number)",
                              "zh-CN": "（用 `.item()` 返回 Python 数字）"},
    "verdict.hint.return_tensor": {"en": " (return the tensor itself, not `.item()`)",
                                   "zh-CN": "（直接返回张量，不要用 `.item()`）"},
    "verdict.noun.bool": {"en": "bool", "zh-CN": "布尔值"},
    "verdict.noun.str": {"en": "str", "zh-CN": "字符串"},
    "verdict.noun.bytes": {"en": "bytes", "zh-CN": "字节串"},
    "verdict.noun.int": {"en": "int", "zh-CN": "整数"},
    "verdict.noun.value": {"en": "value", "zh-CN": "值"},
    # One sentence per reason code (executors/grading/reasons.py REASONS).
    "verdict.device_mismatch": {
        "en": "device mismatch: expected a tensor on {expected}, got one on {got}.",
        "zh-CN": "设备不一致：应返回位于 {expected} 的张量，实际位于 {got}。",
    },
    "verdict.shape_mismatch": {
        "en": "shape mismatch: expected {expected}, got {got}.",
        "zh-CN": "形状不一致：应为 {expected}，实际为 {got}。",
    },
    "verdict.dtype_mismatch": {
        "en": "dtype mismatch: expected {expected}, got {got}.",
        "zh-CN": "`dtype` 不一致：应为 {expected}，实际为 {got}。",
    },
    "verdict.needs_no_grad": {
        "en": "the result requires grad; detach it (expected `requires_grad=False`).",
        "zh-CN": "结果带有梯度；请先调用 `.detach()`（应为 `requires_grad=False`）。",
    },
    "verdict.needs_grad": {
        "en": "the result does not require grad; keep it in the autograd graph "
              "(expected `requires_grad=True`).",
        "zh-CN": "结果不带梯度；请让它留在 `autograd` 计算图中（应为 `requires_grad=True`）。",
    },
    "verdict.not_contiguous": {
        "en": "the result is not contiguous (strides {strides}); call `.contiguous()` before "
              "returning.",
        "zh-CN": "结果不是连续存储的（步长 {strides}）；返回前请调用 `.contiguous()`。",
    },
    "verdict.values_differ_exact": {
        "en": "values differ{at}: {share}; integer and bool results must match exactly.",
        "zh-CN": "数值不一致{at}：{share}；整数和布尔结果必须完全相等。",
    },
    "verdict.values_differ": {
        "en": "values differ{at}: {share} ({rtol}, {atol}); that element is {far}.",
        "zh-CN": "数值不一致{at}：{share}（{rtol}，{atol}）；该元素{far}。",
    },
    "verdict.number_differs": {
        "en": "the returned number differs ({rtol}, {atol}): it is {far}.",
        "zh-CN": "返回的数字不一致（{rtol}，{atol}）：{far}。",
    },
    "verdict.type_mismatch": {
        "en": "expected {expected}, got {got}{hint}.",
        "zh-CN": "应返回{expected}，实际返回了{got}{hint}。",
    },
    "verdict.not_gradable": {
        "en": "your function returned a type the grader cannot check; return tensors, numbers, "
              "lists, tuples or dicts. The type:",
        "zh-CN": "你的函数返回了无法评测的类型；请返回张量、数字、列表、元组或字典。该类型：",
    },
    "verdict.missing_key": {
        "en": "a key is missing from the returned dict:",
        "zh-CN": "返回的字典缺少一个键：",
    },
    "verdict.unexpected_key": {
        "en": "the returned dict has a key it should not have:",
        "zh-CN": "返回的字典多了一个不该有的键：",
    },
    "verdict.plain_differs": {
        "en": "the returned {noun} is not the expected one.",
        "zh-CN": "返回的{noun}与预期不符。",
    },
    "verdict.reference_unchecked": {
        "en": "the reference returned {kind}, which the grader cannot check.",
        "zh-CN": "参考答案返回了{kind}，评测器无法检查。",
    },
    "verdict.input_changed": {
        "en": "your function changed its input {arg} in place.",
        "zh-CN": "你的函数原地修改了输入{arg}。",
    },
    "verdict.grad_missing": {
        "en": "missing: your result is not connected to that input (did you detach it, use "
              "`.data`, or build a new tensor?).",
        "zh-CN": "缺失：结果与该输入没有连接"
                 "（是否调用了 `.detach()`、用了 `.data`，或新建了张量？）。",
    },
    "verdict.exception": {
        "en": "your code raised an exception{line}:",
        "zh-CN": "你的代码抛出了异常{line}：",
    },
    "verdict.grad_failed": {
        "en": "computing the gradient failed{line}:",
        "zh-CN": "计算梯度时出错{line}：",
    },
    "verdict.out_of_memory": {
        "en": "your code ran out of memory (limit {limit_mb} MiB){line}:",
        "zh-CN": "你的代码内存不足（上限 {limit_mb} MiB）{line}：",
    },
    "verdict.load_failed": {
        "en": "your code could not be loaded{line}:",
        "zh-CN": "你的代码无法加载{line}：",
    },
    "verdict.load_out_of_memory": {
        "en": "your code ran out of memory while loading (limit {limit_mb} MiB){line}:",
        "zh-CN": "你的代码在加载时内存不足（上限 {limit_mb} MiB）{line}：",
    },
    "verdict.malformed_results": {
        "en": "your code left its results malformed; forking processes or writing to the "
              "harness's channel does this.",
        "zh-CN": "你的代码破坏了结果数据；创建子进程或写入评测通道会导致这种情况。",
    },
    "verdict.stopped_before_load": {
        "en": "your code stopped before it was loaded.",
        "zh-CN": "你的代码在加载完成前就停止了。",
    },
    "verdict.stopped_during": {
        "en": "your code stopped{during}.",
        "zh-CN": "你的代码中途停止了{during}。",
    },
    "verdict.timeout": {
        "en": "time limit exceeded: your code ran longer than {seconds} s{during}.",
        "zh-CN": "超出时间限制：你的代码运行超过了 {seconds} 秒{during}。",
    },
    "verdict.memory_limit": {
        "en": "memory limit exceeded: your code used more than {limit_mb} MiB{during}.",
        "zh-CN": "超出内存限制：你的代码使用了超过 {limit_mb} MiB 的内存{during}。",
    },
    "verdict.output_limit": {
        "en": "output limit exceeded: your code printed more than {limit}; print less.",
        "zh-CN": "超出输出限制：你的代码打印了超过 {limit} 的内容；请少打印一些。",
    },
    "verdict.result_limit": {
        "en": "your results are larger than {limit}; return less data.",
        "zh-CN": "你的结果超过了 {limit}；请返回更少的数据。",
    },
    "verdict.crashed": {
        "en": "your code crashed (signal {signal}){where}.",
        "zh-CN": "你的代码崩溃了（信号 {signal}）{where}。",
    },
    "verdict.broken_stream": {
        "en": "your code broke the result stream{where}:",
        "zh-CN": "你的代码破坏了结果数据流{where}：",
    },
    "verdict.exit_status": {
        "en": "your code exited with status {status}{where}.",
        "zh-CN": "你的代码以状态码 {status} 退出{where}。",
    },
    "verdict.exited_early": {
        "en": "your code exited early{where}.",
        "zh-CN": "你的代码提前退出了{where}。",
    },
    "verdict.not_utf8": {
        "en": "your code is not valid UTF-8 (byte {byte} at offset {offset}).",
        "zh-CN": "你的代码不是有效的 `UTF-8`（偏移 {offset} 处的字节 {byte}）。",
    },
    "verdict.unpaired_surrogate": {
        "en": "your code is not valid UTF-8 (an unpaired surrogate at offset {offset}).",
        "zh-CN": "你的代码不是有效的 `UTF-8`（偏移 {offset} 处有落单的代理字符）。",
    },
    "verdict.too_large": {
        "en": "your code is {size}; the limit is {limit}.",
        "zh-CN": "你的代码有 {size}，上限是 {limit}。",
    },
    "verdict.nul_byte": {
        "en": "your code contains a NUL byte (at offset {offset}); remove it.",
        "zh-CN": "你的代码包含空字节（偏移 {offset}）；请删除它。",
    },
    "verdict.empty": {"en": "your code is empty.", "zh-CN": "你的代码是空的。"},
    "verdict.pack_unsendable": {
        "en": "this team pack's challenge is too large to send to the executor:",
        "zh-CN": "这道团队题包的代码题太大，无法发送给评测器：",
    },
    "verdict.pack_gone": {
        "en": "this team pack's challenge is no longer available, so it cannot be graded.",
        "zh-CN": "这道团队题包的代码题已不可用，无法评测。",
    },
    "verdict.needs_cuda": {
        "en": "{challenge} needs a CUDA GPU, and this executor has none.",
        "zh-CN": "{challenge} 需要 CUDA GPU，而当前评测器没有。",
    },
}
