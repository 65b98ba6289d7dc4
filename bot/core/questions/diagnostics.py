"""Word why a code answer failed, in the channel's language, from the verdict's reason code.

The executor sends a reason as a code and plain parameters (``executors/grading/reasons.py``),
checked once where the verdict crosses into the bot (the local executor builds it checked;
``Verdict.from_json`` checks one that came over the network): numbers, lists of numbers, and
words from a fixed character set. Those are filled into the sentences ``verdict.*``, the words
in code font. The sandbox's own words (``quote``) are not: the caller shows them apart, through
the one sanitiser.
"""

from __future__ import annotations

import logging
from collections.abc import Mapping

from bot.core.kernel.i18n import all_keys, t
from bot.core.kernel.ports import ReasonView

log = logging.getLogger(__name__)

_KNOWN = frozenset(all_keys())


def _code(value: object) -> str:
    return f"`{value}`"


def _ints(values: object, opening: str = "(", closing: str = ")") -> str:
    items = [str(int(v)) for v in values]  # type: ignore[attr-defined]
    if opening == "(" and len(items) == 1:
        return _code(f"({items[0]},)")
    return _code(opening + ", ".join(items) + closing)


def _size(locale: str, n: int) -> str:
    if n < 1024 or n % 1024:
        return t(locale, "verdict.size.bytes", n=f"{n:,}")
    return t(locale, "verdict.size.kib", n=n // 1024)


def _argument(locale: str, index: object, name: object) -> str:
    if name:
        return t(locale, "verdict.arg.named", name=_code(name), index=index)
    return t(locale, "verdict.arg", index=index)


def _kind(locale: str, kind: object, length: object) -> str:
    return t(locale, f"verdict.kind.{kind}", n=length)


def _where(locale: str, p: Mapping[str, object], *, loaded_word: bool) -> str:
    if p.get("at") is not None:
        return t(locale, "verdict.during", at=p["at"], of=p.get("of"))
    return t(locale, "verdict.before_load") if loaded_word else ""


def _values(locale: str, code: str, p: Mapping[str, object]) -> dict[str, object]:
    """Return each sentence's fillings, made from the reason's parameters."""
    v: dict[str, object] = {}
    if code in ("device_mismatch", "dtype_mismatch"):
        prefix = "torch." if code == "dtype_mismatch" else ""
        v["expected"], v["got"] = _code(prefix + str(p["expected"])), _code(prefix + str(p["got"]))
    elif code == "shape_mismatch":
        v["expected"], v["got"] = _ints(p["expected"]), _ints(p["got"])
    elif code == "not_contiguous":
        v["strides"] = _ints(p["strides"])
    elif code == "type_mismatch":
        v["expected"] = _kind(locale, p["expected"], p.get("expected_len"))
        v["got"] = _kind(locale, p["got"], p.get("got_len"))
        v["hint"] = t(locale, f"verdict.hint.{p['hint']}")
    elif code == "plain_differs":
        v["noun"] = t(locale, f"verdict.noun.{p['noun']}")
    elif code == "reference_unchecked":
        v["kind"] = _kind(locale, p["kind"], p.get("kind_len"))
    elif code == "input_changed":
        v["arg"] = _argument(locale, p["arg"], p.get("name"))
    elif code in ("timeout", "memory_limit", "stopped_during"):
        v["during"] = _where(locale, p, loaded_word=False)
    elif code in ("crashed", "broken_stream", "exit_status", "exited_early"):
        v["where"] = _where(locale, p, loaded_word=True)
    elif code in ("output_limit", "result_limit", "too_large"):
        v["limit"] = _size(locale, int(p["limit"]))  # type: ignore[call-overload]
        if "size" in p:
            v["size"] = _size(locale, int(p["size"]))  # type: ignore[call-overload]
    elif code == "not_utf8":
        v["byte"] = _code(f"0x{int(p['byte']):02x}")  # type: ignore[call-overload]
    if code in ("values_differ", "values_differ_exact"):
        index = p.get("index") or ()
        v["at"] = t(locale, "verdict.at", index=_ints(index, "[", "]")) if index else ""
        one = p.get("numel") == 1
        v["share"] = (t(locale, "verdict.share.one") if one
                      else t(locale, "verdict.share", count=p["count"], numel=p["numel"]))
    if code in ("values_differ", "number_differs"):
        v["rtol"], v["atol"] = _code(f"rtol={p['rtol']:g}"), _code(f"atol={p['atol']:g}")
        v["far"] = t(locale, f"verdict.far.{p['distance']}", power=p.get("power"))
    if "line" in p:
        v["line"] = t(locale, "verdict.line", line=p["line"]) if p["line"] is not None else ""
    for name in ("signal", "challenge"):
        if name in p:
            v[name] = _code(p[name])
    if "seconds" in p:
        v["seconds"] = f"{p['seconds']:g}"
    for name in ("limit_mb", "status", "offset"):
        if name in p:
            v[name] = p[name]
    return v


def explain(locale: str, reason: ReasonView | None) -> str | None:
    """Return the reason as one sentence in ``locale``, or None when it has no sentence here.

    None (a code from a newer executor, or none at all) leaves the caller the verdict's English
    message, shown as the sandbox's words are.
    """
    if reason is None or f"verdict.{reason.code}" not in _KNOWN:
        return None
    p = reason.params
    try:
        text = t(locale, f"verdict.{reason.code}", **_values(locale, reason.code, p))
        if p.get("path"):
            text = t(locale, "verdict.path", path=_code(p["path"]), text=text)
        if p.get("grad_arg") is not None:
            arg = _argument(locale, p["grad_arg"], p.get("grad_name"))
            text = t(locale, "verdict.grad", arg=arg, text=text)
        if p.get("test") is not None:
            text = t(locale, "verdict.test", test=p["test"], tests=p.get("tests"), text=text)
    except (KeyError, TypeError, ValueError):
        log.warning("verdict reason %s does not fit its sentence", reason.code)
        return None
    return text[:1].upper() + text[1:] if locale == "en" else text
