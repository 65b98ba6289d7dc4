"""Every reason the executor can give for a failed code answer is worded in both languages."""

from __future__ import annotations

import pytest

from bot.core.kernel.i18n import all_keys, locales_of
from bot.core.questions.diagnostics import explain
from executors.grading.reasons import REASONS, Reason, ReasonError
from executors.grading.verdict import Verdict
from tests.support.prose import ascii_marks, english_words

# One reason of each code, with the parameters the grader or the engine gives it.
SAMPLES: dict[str, Reason] = {r.code: r for r in (
    Reason("device_mismatch", {"expected": "cpu", "got": "cuda", "test": 1, "tests": 3}),
    Reason("shape_mismatch", {"expected": (3, 4), "got": (4,), "test": 2, "tests": 3}),
    Reason("dtype_mismatch", {"expected": "float32", "got": "int64", "path": "result[0]"}),
    Reason("needs_no_grad", {"test": 1, "tests": 1}),
    Reason("needs_grad", {"test": 1, "tests": 1}),
    Reason("not_contiguous", {"strides": (1, 3), "test": 1, "tests": 1}),
    Reason("values_differ_exact", {"index": (2, 0), "count": 3, "numel": 12}),
    Reason("values_differ", {"index": (1,), "count": 1, "numel": 5, "rtol": 1e-5, "atol": 1e-8,
                             "distance": "power", "power": 2, "grad_arg": 0, "grad_name": "x",
                             "test": 1, "tests": 2}),
    Reason("number_differs", {"rtol": 1e-5, "atol": 1e-8, "distance": "rounding", "power": 0}),
    Reason("type_mismatch", {"expected": "tuple", "expected_len": 2, "got": "none",
                             "got_len": None, "hint": "forgot_return"}),
    Reason("not_gradable", quote="foo.Bar"),
    Reason("missing_key", quote="'mean'"),
    Reason("unexpected_key", quote="'extra'"),
    Reason("plain_differs", {"noun": "int"}),
    Reason("reference_unchecked", {"kind": "value", "kind_len": None}),
    Reason("input_changed", {"arg": 0, "name": "x", "test": 1, "tests": 1}),
    Reason("grad_missing", {"grad_arg": 1, "grad_name": "", "test": 1, "tests": 1}),
    Reason("exception", {"line": 3, "test": 1, "tests": 2}, quote="ValueError: boom"),
    Reason("grad_failed", {"line": None}, quote="RuntimeError: boom"),
    Reason("out_of_memory", {"limit_mb": 512, "line": 2}, quote="MemoryError"),
    Reason("load_failed", {"line": 1}, quote="NameError: name 'y' is not defined"),
    Reason("load_out_of_memory", {"limit_mb": 512, "line": None}, quote="MemoryError"),
    Reason("malformed_results", quote="case record has no output"),
    Reason("stopped_before_load"),
    Reason("stopped_during", {"at": 2, "of": 3}),
    Reason("timeout", {"seconds": 2.0, "at": 1, "of": 3}),
    Reason("memory_limit", {"limit_mb": 512}),
    Reason("output_limit", {"limit": 65536}),
    Reason("result_limit", {"limit": 1000}),
    Reason("crashed", {"signal": "SIGSEGV"}),
    Reason("broken_stream", {"at": 1, "of": 2}, quote="truncated header"),
    Reason("exit_status", {"status": 3, "at": 1, "of": 1}),
    Reason("exited_early"),
    Reason("not_utf8", {"byte": 255, "offset": 4}),
    Reason("unpaired_surrogate", {"offset": 4}),
    Reason("too_large", {"size": 20000, "limit": 16384}),
    Reason("nul_byte", {"offset": 7}),
    Reason("empty"),
    Reason("pack_unsendable", quote="the definition is 70,000 bytes"),
    Reason("pack_gone"),
    Reason("needs_cuda", {"challenge": "code.cuda-peak-memory"}),
)}


def test_every_reason_code_has_a_sentence_in_both_languages():
    keys = set(all_keys())
    missing = [code for code in REASONS if f"verdict.{code}" not in keys]
    assert missing == []
    one_language = [code for code in REASONS if locales_of(f"verdict.{code}") != ["en", "zh-CN"]]
    assert one_language == []


def test_every_reason_code_has_a_sample():
    assert sorted(SAMPLES) == sorted(REASONS)


@pytest.mark.parametrize("code", sorted(REASONS))
def test_a_reason_reads_as_chinese_in_a_chinese_channel(code):
    text = explain("zh-CN", SAMPLES[code])
    assert text, code
    assert english_words(text) == [], text
    assert ascii_marks(text) == [], text


@pytest.mark.parametrize("code", sorted(REASONS))
def test_a_reason_reads_as_english_in_an_english_channel(code):
    text = explain("en", SAMPLES[code])
    assert (text and text[0].isupper()) or text.startswith("`"), text
    assert "{" not in text and "}" not in text, text


def test_the_sandboxs_words_never_enter_the_sentence():
    reason = Reason("exception", {"line": 2}, quote="ValueError: <@everyone> **bold**")
    for locale in ("en", "zh-CN"):
        assert "everyone" not in explain(locale, reason)


def test_a_chinese_sentence_names_the_test_the_shape_and_the_line():
    assert explain("zh-CN", SAMPLES["shape_mismatch"]) == (
        "第 2 个测试（共 3 个）：形状不一致：应为 `(3, 4)`，实际为 `(4,)`。")
    assert explain("zh-CN", SAMPLES["exception"]) == (
        "第 1 个测试（共 2 个）：你的代码抛出了异常（第 3 行）：")


def test_a_reason_from_a_newer_executor_falls_back_to_the_message():
    class Unknown:
        code, params, quote = "something_new", {}, ""

    assert explain("zh-CN", Unknown()) is None
    assert explain("zh-CN", None) is None


@pytest.mark.parametrize(("code", "params", "quote"), [
    ("no_such_code", {}, ""),
    ("shape_mismatch", {"expected": [3], "got": "`@everyone`"}, ""),
    ("shape_mismatch", {"expected": [3]}, ""),
    ("shape_mismatch", {"expected": [3], "got": [1], "extra": 1}, ""),
    ("dtype_mismatch", {"expected": "float32", "got": "<@123>"}, ""),
    ("crashed", {"signal": "SIG`SEGV"}, ""),
    ("timeout", {"seconds": float("nan")}, ""),
    ("values_differ", {"index": [1] * 17, "count": 1, "numel": 1, "rtol": 0.0, "atol": 0.0,
                       "distance": "power", "power": 1}, ""),
    ("values_differ", {"index": [1], "count": 1, "numel": 1, "rtol": 0.0, "atol": 0.0,
                       "distance": "very", "power": 1}, ""),
    ("shape_mismatch", {"expected": [3], "got": [1], "path": "result[`x`]"}, ""),
    ("exception", {"line": None}, "x" * 601),
    ("exception", {"line": None}, "\ud800"),
])
def test_a_verdict_with_a_bad_reason_is_refused_at_the_wire(code, params, quote):
    data = Verdict("failed", 0, 1, "m").to_json()
    data["reason"] = {"code": code, "params": params, "quote": quote}
    with pytest.raises(ValueError, match="reason"):
        Verdict.from_json(data)


def test_a_reason_survives_the_wire():
    for reason in SAMPLES.values():
        verdict = Verdict("failed", 0, 1, reason=reason)
        again = Verdict.from_json(verdict.to_json())
        assert again.reason == reason
        assert again.message == reason.english()


def test_a_reason_is_checked_when_it_is_made():
    with pytest.raises(ReasonError):
        Reason("shape_mismatch", {"expected": (3,), "got": ("3",)})
