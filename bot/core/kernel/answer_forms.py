"""Read what engineers write around a short answer: labels, comments, phrases, hedges, calls.

Each reader is a small scanner over at most ``MAX_READ`` characters (no regular expression with
nested repetition), so a hostile answer costs microseconds; numbers in words and sums are read
by ``answer_values``. ``matching.match_text`` decides what the readings mean for an item.
"""

from __future__ import annotations

import re
from dataclasses import dataclass

from bot.core.kernel.answer_values import MAX_READ, evaluate, normalise

# Module segments in front of a name that never name a tensor (a receiver is a variable).
_MODULES = frozenset({
    "torch", "nn", "f", "functional", "init", "utils", "rnn", "data", "optim", "lr_scheduler",
    "cuda", "memory", "amp", "backends", "cudnn", "mps", "jit", "export", "distributed", "dist",
    "profiler", "autograd", "version", "random", "np", "numpy", "math", "tensor", "special",
    "linalg", "fft", "ao", "quantization", "compile", "fx", "multiprocessing", "mp", "onnx",
    "hub", "sparse", "nested", "func", "library", "testing", "modules", "loss", "os", "sys",
})
# Methods of torch.Tensor that answers name: "scores.argmax(dim=1)" is argmax on any tensor.
# (The core imports no torch; tests/core/kernel checks every name against the real Tensor.)
TENSOR_METHODS = frozenset({
    "abs", "all", "any", "argmax", "argmin", "argsort", "backward", "bfloat16", "bmm", "chunk",
    "clamp", "clone", "contiguous", "cpu", "cuda", "cumsum", "detach", "detach_", "double",
    "exp", "expand", "expand_as", "flatten", "flip", "float", "gather", "half", "index_add_",
    "index_select", "is_contiguous", "item", "log", "log_softmax", "logsumexp", "masked_fill",
    "masked_fill_", "masked_select", "matmul", "max", "mean", "min", "mm", "mul", "narrow",
    "norm", "numel", "permute", "prod", "register_hook", "relu", "repeat", "requires_grad_",
    "reshape", "resize_", "retain_grad", "scatter", "scatter_", "scatter_add_", "select",
    "sigmoid", "size", "softmax", "sort", "split", "squeeze", "std", "stride", "sum", "t",
    "take", "take_along_dim", "tanh", "to", "topk", "transpose", "type", "unsqueeze", "var",
    "view", "view_as", "zero_",
})
# Methods whose first argument after the tensor is ``dim``: "x.argmax(1)" is "argmax(dim=1)".
DIM_FIRST = frozenset({
    "all", "any", "argmax", "argmin", "argsort", "cumsum", "gather", "index_select",
    "log_softmax", "logsumexp", "max", "mean", "min", "prod", "softmax", "sort", "squeeze",
    "std", "sum", "unsqueeze", "var",
})

# Phrases around a value that say nothing about it, matched whole (longest first). The
# approximation marks say the member rounded: the value must still be within the tolerance.
_LEADING = tuple(sorted((
    "i think it is", "i think it's", "i think", "i believe", "i'd say", "it is", "it's",
    "it should be", "should be", "that's", "that is", "the answer is", "answer is",
    "the result is", "result is", "it returns", "returns", "it gives", "gives", "we get",
    "you get", "equals", "equal to", "is", "=", "==", "->", "=>", "→", "about",
    "approximately", "approx.", "approx", "roughly", "around", "circa", "ca.", "~", "≈", "≃",
    "multiply by", "multiplied by", "multiply it by", "multiply the loss by",
    "multiply each loss by", "scale by", "scaled by", "scale it by", "scale the loss by",
    "times", "×", "use", "call", "the", "答案是", "答案为", "应该是", "结果是", "结果为",
    "我觉得是", "是", "为", "等于", "约等于", "约为", "约", "大约", "大概", "乘以", "乘",
    "使用", "调用", "用",
), key=len, reverse=True))
_TRAILING = tuple(sorted((
    "or so", "or thereabouts", "approx.", "approx", "approximately", "roughly", "more or less",
    "function", "method", "class", "module", "attribute", "左右", "函数", "方法", "类", "属性",
), key=len, reverse=True))
# Words that name what the answer is, used as a label: "Answer: 7", "shape (2, 5)".
_LABEL_WORDS = frozenset({
    "answer", "ans", "a", "result", "output", "value", "shape", "size", "dtype", "答案", "答",
    "结果", "形状", "值",
})
# A comment with one of these offers a second answer: "7 (or 8)", "0.5 # maybe 0.25".
_HEDGE_WORDS = frozenset({"or", "maybe", "perhaps", "possibly", "either", "或", "或者", "还是",
                          "也许", "可能"})
_HEDGE_SPLIT = re.compile(r"\s+(?:or|and)\s+|\s*(?:\||或者|或|还是)\s*")
_SLASH = re.compile(r"\s*/\s*")
# Whole words only: "or softmarginloss" is a hedge, "or so" an approximation.
_APPROXIMATE = re.compile(r"(?<!\w)(?:more or less|or so|or thereabouts)(?!\w)")
_LETTER = re.compile(r"[^\W\d_]")
_IDENT = re.compile(r"[^\W\d]\w*")
_LABEL = re.compile(
    r"(?P<label>[^\W\d][\w.]{0,60}(?:(?:\[[^\[\]]{0,40}\]|\([^()]{0,40}\))[\w.]{0,30}){0,3})"
    r"\s{0,3}(?P<sep>==|=|:|->|=>|→|\s+is|\s+=)\s{0,3}"
)
_WORD = re.compile(r"[^\W\d_]{2,}")
_PLAIN_NUMBER = re.compile(r"[-+]?(?:\d+\.?\d*|\.\d+)(?:e[-+]?\d+)?")


# --------------------------------------------------------------------------- decorations


def alternatives(text: str) -> list[str]:
    """Split a hedge ("7 or 8", "bf16 / fp16", "A | B", "A 或 B") into its candidates."""
    if len(text) > MAX_READ:
        return [text]
    text = normalise(text)
    text = _APPROXIMATE.sub(" ", text).strip()
    text = re.sub(r"^either\s+", "", text)
    parts = [p for p in _HEDGE_SPLIT.split(text) if p.strip()]
    out: list[str] = []
    for part in parts:
        # "bf16/fp16" offers two names; "1/32" and "1e-3/2" are one number.
        if "/" in part and _names_around_slashes(part):
            out.extend(p for p in _SLASH.split(part) if p.strip())
        else:
            out.append(part)
    return out or [text]


def _names_around_slashes(text: str) -> bool:
    """Return whether every "/" stands between names ("bf16/fp16"), not numbers ("1/32")."""
    for at, char in enumerate(text):
        if char != "/":
            continue
        left = re.search(r"[\w.]*$", text[:at].rstrip())
        right = re.match(r"[\w.]*", text[at + 1:].lstrip())
        words = (left.group() if left else "") + " " + (right.group() if right else "")
        if not _LETTER.search(words) or re.fullmatch(r"[\d.e+-]+ [\d.e+-]+", words):
            return False
    return True


def remark_core(remark: str) -> tuple[str, bool]:
    """Return what a remark says without its marks and hedge words, and whether it hedged.

    ``(or 8)`` says "8" and hedges; ``# rounded down`` says "rounded down"; ``(8 × 32)`` says
    a sum. The matcher decides whether what is left is a second answer or a comment.
    """
    core = remark.strip()
    for marker in ("#", "--", "—", "–", ";", ","):
        if core.startswith(marker):
            core = core[len(marker):].strip()
            break
    if core.startswith("(") and core.endswith(")"):
        core = core[1:-1].strip()
    core = _APPROXIMATE.sub(" ", core)
    words = core.split()
    kept = [w for w in words if w.strip("()[]{},;:") not in _HEDGE_WORDS]
    hedged = len(kept) < len(words)
    core = " ".join(kept)
    for word in ("或者", "或", "还是", "也许", "可能"):
        if word in core:
            hedged = True
            core = core.replace(word, " ")
    return core.strip(), hedged


def split_comment(text: str) -> tuple[str, str]:
    """Split a trailing remark off a value: ``7 (rounded down)``, ``0.5 # approx``."""
    if len(text) > MAX_READ:
        return text, ""
    for marker in ("#", " -- ", " — ", " – ", ";"):
        at = text.find(marker)
        if at > 0:
            return text[:at].rstrip(), text[at:]
    stripped = text.rstrip(" .。")
    if stripped.endswith(")"):
        opening = stripped.rfind("(")
        inside = stripped[opening + 1:-1]
        # "f(x)" is a call; "7 (rounded down)", "run（按文档）", "256 (8 × 32)" are remarks.
        remark = _WORD.search(inside) or evaluate(inside) is not None or _PLAIN_NUMBER.fullmatch(
            inside.strip())
        operand = stripped[:opening].rstrip()[-1:] in tuple("+-*/×÷,")  # "4 * (10 + 2)"
        if opening > 0 and "(" not in inside and remark and not operand and (
            stripped[opening - 1].isspace() or stripped[opening - 1].isdigit()
            or stripped[opening - 1] in ")]" or not inside.isascii()
        ):
            return stripped[:opening].rstrip(), stripped[opening:]
    for comma in _top_level_commas(text):
        after = text[comma + 1:].strip()
        if comma > 0 and len(after.split()) >= 2 and _WORD.match(after):
            return text[:comma].rstrip(), text[comma:]  # "7, rounded down"; not "2, 5"
    return text, ""


def _top_level_commas(text: str) -> list[int]:
    depth = 0
    commas = []
    for i, char in enumerate(text):
        if char in "([{":
            depth += 1
        elif char in ")]}":
            depth -= 1
        elif char == "," and depth == 0:
            commas.append(i)
    return commas


def strip_phrases(text: str) -> str:
    """Drop filler phrases around a value: "it is 8", "multiply by 8", "≈0.5", "8 or so"."""
    for _ in range(4):
        before = text
        for phrase in _LEADING:
            if text.startswith(phrase) and _boundary(text, len(phrase)):
                rest = text[len(phrase):].lstrip(" :：")
                if rest:
                    text = rest
                    break
        for phrase in _TRAILING:
            if text.endswith(phrase) and len(text) > len(phrase):
                cut = len(text) - len(phrase)
                if not _is_word(text[cut]) or not _is_word(text[cut - 1]):
                    text = text[:cut].rstrip()
                    break
        if text == before:
            break
    return text


def _is_word(char: str) -> bool:
    return char.isalnum() or char == "_"


def _boundary(text: str, at: int) -> bool:
    """Return whether a phrase ending at ``at`` ends a word (a CJK phrase always does)."""
    if at >= len(text):
        return True
    last = text[at - 1]
    if not _is_word(last) or not last.isascii():
        return True
    return not _is_word(text[at])


@dataclass(frozen=True)
class Labelled:
    """A value written after a label: ``loss = 1.5``, ``shape: (2, 5)``, ``dim=1``."""

    label: str
    separator: str
    value: str


def split_label(text: str) -> Labelled | None:
    """Split ``label = value`` (or ``:``, ``is``, ``->``); a bare label word too: "shape (2, 5)"."""
    if len(text) > MAX_READ:
        return None
    found = _LABEL.match(text)
    if found is not None:
        value = text[found.end():].strip()
        if value:
            return Labelled(found.group("label"), found.group("sep").strip(), value)
    word, _, value = text.partition(" ")
    if word in _LABEL_WORDS and value.strip():
        return Labelled(word, "", value.strip())
    return None


def is_label_word(label: str) -> bool:
    """Return whether a label only says "the answer" ("answer", "result", "答案")."""
    return label in _LABEL_WORDS


# --------------------------------------------------------------------------- calls


@dataclass(frozen=True)
class Call:
    """A call read for comparison: its function, positional and keyword arguments."""

    name: str
    args: tuple[str, ...]
    kwargs: frozenset[tuple[str, str]]


def without_receiver(text: str) -> str:
    """Drop a variable in front of a tensor method: ``scores.argmax`` -> ``argmax``.

    A module path is not a receiver (``np.random.seed``, ``torch.cuda.manual_seed`` keep
    theirs), and only names of torch.Tensor's methods lose it.
    """
    if len(text) > MAX_READ:
        return text
    head, paren, tail = text.partition("(")
    segments = head.strip().split(".")
    if len(segments) < 2 or segments[-1] not in TENSOR_METHODS:
        return text
    receiver = segments[:-1]
    if receiver[0] in _MODULES or not all(_IDENT.fullmatch(s) for s in receiver):
        return text
    return segments[-1] + paren + tail


def parse_call(text: str) -> Call | None:
    """Read ``recv.name(a, k=v)`` or ``torch.name(x, a, k=v)`` as one call of ``name``."""
    if len(text) > MAX_READ:
        return None
    text = normalise(text).strip("`'\" ").rstrip(".。;；")
    if len(text) > MAX_READ or not text.endswith(")") or "(" not in text:
        return None
    head, _, inside = text.partition("(")
    inside = inside[:-1]
    segments = [s.strip() for s in head.split(".")]
    if not segments or not all(_IDENT.fullmatch(s) for s in segments):
        return None
    arguments = _split_arguments(inside)
    if arguments is None:
        return None
    name = segments[-1]
    receiver = segments[:-1]
    if name in TENSOR_METHODS:
        if receiver and receiver[0] not in _MODULES:
            pass  # scores.argmax(1): any variable
        elif arguments and _IDENT.fullmatch(arguments[0].split(".")[0]) and (
            "=" not in arguments[0]
        ):
            arguments = arguments[1:]  # torch.argmax(x, 1): the tensor is the receiver
    elif receiver and receiver[0] not in _MODULES:
        return None
    else:
        name = ".".join(segments)  # a function keeps its module: np.random.seed is not seed
    args: list[str] = []
    kwargs: dict[str, str] = {}
    for argument in arguments:
        key, equals, value = argument.partition("=")
        if equals and _IDENT.fullmatch(key.strip()) and not value.startswith("="):
            kwargs[key.strip()] = value.strip()
        elif kwargs:
            return None  # a positional argument after a keyword one is not Python
        else:
            args.append(argument.strip())
    if name in DIM_FIRST and args and "dim" not in kwargs:
        kwargs["dim"] = args.pop(0)
    return Call(name, tuple(args), frozenset(kwargs.items()))


def _split_arguments(inside: str) -> list[str] | None:
    parts: list[str] = []
    depth = 0
    start = 0
    quote = ""
    for i, char in enumerate(inside):
        if quote:
            quote = "" if char == quote else quote
        elif char in "'\"":
            quote = char
        elif char in "([{":
            depth += 1
        elif char in ")]}":
            depth -= 1
            if depth < 0:
                return None
        elif char == "," and depth == 0:
            parts.append(inside[start:i])
            start = i + 1
    if depth or quote:
        return None
    last = inside[start:]
    if last.strip() or parts:
        parts.append(last)
    cleaned = [re.sub(r"\s+", "", p) for p in parts]
    if any(not p for p in cleaned[:-1]) or (len(cleaned) > 1 and not cleaned[-1]):
        return [p for p in cleaned if p] if cleaned[-1] == "" else None
    return cleaned
