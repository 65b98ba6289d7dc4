"""Read a number however an engineer writes it: in words (English, Chinese) or as a small sum.

Both readers are hand-written scanners over a bounded input (never ``eval``): a hostile answer
costs microseconds. ``answer_forms`` peels what is written around the number.
"""

from __future__ import annotations

import math
import re
import unicodedata
from fractions import Fraction

# Answers longer than this are not read beyond their plain form: no honest short answer is.
MAX_READ = 200
# An arithmetic form: at most this many characters, parentheses this deep, exponents this big.
_MAX_EXPRESSION = 80
_MAX_DEPTH = 12
_MAX_POWER = 64
_MAX_BITS = 1024  # a numerator or denominator past this size is no answer to a quiz

_EN_UNITS = {
    "zero": 0, "one": 1, "two": 2, "three": 3, "four": 4, "five": 5, "six": 6, "seven": 7,
    "eight": 8, "nine": 9, "ten": 10, "eleven": 11, "twelve": 12, "thirteen": 13,
    "fourteen": 14, "fifteen": 15, "sixteen": 16, "seventeen": 17, "eighteen": 18,
    "nineteen": 19, "twenty": 20, "thirty": 30, "forty": 40, "fifty": 50, "sixty": 60,
    "seventy": 70, "eighty": 80, "ninety": 90,
}
_EN_SCALES = {"hundred": 100, "thousand": 1000, "million": 1_000_000}
_ZH_DIGITS = {"零": 0, "〇": 0, "一": 1, "二": 2, "两": 2, "三": 3, "四": 4, "五": 5, "六": 6,
              "七": 7, "八": 8, "九": 9}
_ZH_SCALES = {"十": 10, "百": 100, "千": 1000, "万": 10_000}

def normalise(text: str) -> str:
    """Fold width and case and unify minus signs; superscript digits become a power."""
    text = unicodedata.normalize("NFKC", text.translate(_SUPERSCRIPTS)).casefold()
    return text.translate(_SIGNS).strip()


_SUPERSCRIPTS = str.maketrans({s: f"**{d}" for s, d in zip("⁰¹²³⁴⁵⁶⁷⁸⁹", "0123456789",
                                                            strict=True)})
_SIGNS = str.maketrans({"\u2212": "-", "\u2013": "-", "\u2012": "-", "\u2044": "/",
                        "÷": "/", "·": "*"})


# --------------------------------------------------------------------------- arithmetic


def evaluate(text: str) -> float | None:
    """Return the value of a sum such as ``1/(2*4)`` or ``2**10``, or None.

    Numbers, ``+ - * × / **`` and parentheses only, read by a recursive-descent parser with
    bounded length, depth and exponent; anything else (names, calls, ``//``) is None.
    """
    if len(text) > 2 * _MAX_EXPRESSION:
        return None
    text = normalise(text).replace("×", "*")
    if not text or len(text) > _MAX_EXPRESSION:
        return None
    tokens = _tokens(text)
    if tokens is None or not any(t in "+-*/()" or t == "**" for t in tokens):
        return None
    parser = _Parser(tokens)
    try:
        value = parser.sum(0)
    except (ValueError, ZeroDivisionError, OverflowError):
        return None
    if parser.at < len(tokens):
        return None
    result = float(value)
    return result if math.isfinite(result) else None


def _tokens(text: str) -> list[str] | None:
    tokens: list[str] = []
    i = 0
    while i < len(text):
        char = text[i]
        if char.isspace():
            i += 1
        elif text.startswith("**", i):
            tokens.append("**")
            i += 2
        elif char in "+-*/()":
            if text.startswith("//", i):
                return None  # floor division is its own question, not an answer's form
            tokens.append(char)
            i += 1
        elif char.isascii() and (char.isdigit() or char == "."):
            start = i
            while i < len(text) and text[i].isascii() and (text[i].isdigit() or text[i] == "."):
                i += 1
            if i < len(text) and text[i] == "e":
                i += 1
                if i < len(text) and text[i] in "+-":
                    i += 1
                while i < len(text) and text[i].isascii() and text[i].isdigit():
                    i += 1
            tokens.append(text[start:i])
        else:
            return None
    return tokens


class _Parser:
    """Read a sum by recursive descent, as Python binds it (``-2**2`` is -4).

    sum := product (('+'|'-') product)*; product := unary (('*'|'/') unary)*;
    unary := ('+'|'-') unary | power; power := atom ('**' unary)?; atom := number | (sum).
    """

    def __init__(self, tokens: list[str]) -> None:
        self.tokens = tokens
        self.at = 0

    def _peek(self) -> str:
        return self.tokens[self.at] if self.at < len(self.tokens) else ""

    def _take(self) -> str:
        token = self._peek()
        if not token:
            raise ValueError("end")
        self.at += 1
        return token

    def sum(self, depth: int) -> Fraction:
        value = self.product(depth)
        while self._peek() in ("+", "-"):
            value = value + self.product(depth) if self._take() == "+" else (
                value - self.product(depth))
            _check(value)
        return value

    def product(self, depth: int) -> Fraction:
        value = self.unary(depth)
        while self._peek() in ("*", "/"):
            operator = self._take()
            right = self.unary(depth)
            value = value * right if operator == "*" else value / right
            _check(value)
        return value

    def unary(self, depth: int) -> Fraction:
        if self._peek() in ("+", "-"):
            sign = self._take()
            value = self.unary(depth + 1)
            return -value if sign == "-" else value
        return self.power(depth)

    def power(self, depth: int) -> Fraction:
        base = self.atom(depth)
        if self._peek() != "**":
            return base
        self._take()
        exponent = self.unary(depth + 1)
        if exponent.denominator != 1:
            if base <= 0:
                raise ValueError("root of a negative number")
            return _check(Fraction(float(base) ** float(exponent)))
        if abs(exponent) > _MAX_POWER or (base == 0 and exponent < 0):
            raise ValueError("power too large")
        return _check(base ** int(exponent))

    def atom(self, depth: int) -> Fraction:
        if depth > _MAX_DEPTH:
            raise ValueError("too deep")
        symbol = self._take()
        if symbol == "(":
            value = self.sum(depth + 1)
            if self._take() != ")":
                raise ValueError("unbalanced")
            return value
        return _literal(symbol)


def _literal(token: str) -> Fraction:
    mantissa, _, exponent = token.partition("e")
    if mantissa.count(".") > 1 or mantissa in ("", "."):
        raise ValueError("not a number")
    power = int(exponent) if exponent not in ("", "+", "-") else None
    if exponent and power is None:
        raise ValueError("not a number")
    if power is not None and abs(power) > 300:
        raise ValueError("exponent too large")
    return _check(Fraction(mantissa) * Fraction(10) ** (power or 0))


def _check(value: Fraction) -> Fraction:
    if value.numerator.bit_length() > _MAX_BITS or value.denominator.bit_length() > _MAX_BITS:
        raise ValueError("too large")
    return value


# --------------------------------------------------------------------------- number words


def spell_out(text: str) -> str | None:
    """Replace a number written in words at the start with digits ("two bytes" -> "2 bytes").

    English cardinals ("twelve", "twenty-five", "two thousand five hundred sixty", "half")
    and Chinese numerals ("三", "十二", "二千五百六十", "零点五", "二分之一"); None when the
    text does not start with one.
    """
    if len(text) > MAX_READ:
        return None
    text = normalise(text)
    if not text:
        return None
    if text[0] in _ZH_DIGITS or text[0] in _ZH_SCALES:
        return _chinese(text)
    words = re.split(r"[\s\-]+", text, maxsplit=12)
    value, used = _english(words)
    if used == 0:
        return None
    rest = " ".join(words[used:])
    return f"{value} {rest}".strip()


def _english(words: list[str]) -> tuple[float, int]:
    if words and words[0] == "half":
        return 0.5, 1
    if len(words) > 1 and words[0] in ("a", "one") and words[1] == "half":
        return 0.5, 2
    total = current = 0
    used = 0
    for i, word in enumerate(words):
        if word in _EN_UNITS:
            current += _EN_UNITS[word]
        elif word in _EN_SCALES and used:
            scale = _EN_SCALES[word]
            if scale == 100:
                current *= 100
            else:
                total += current * scale
                current = 0
        elif word == "and" and used and i + 1 < len(words) and words[i + 1] in _EN_UNITS:
            pass
        else:
            break
        used = i + 1
    return total + current, used


def _chinese(text: str) -> str | None:
    end = 0
    while end < len(text) and (text[end] in _ZH_DIGITS or text[end] in _ZH_SCALES
                               or text[end] in "点分之"):
        end += 1
    run, rest = text[:end], text[end:]
    if "分之" in run:
        denominator, _, numerator = run.partition("分之")
        den, num = _zh_integer(denominator), _zh_integer(numerator)
        if den is None or num is None or den == 0:
            return None
        return f"{num}/{den}{rest}"
    whole, _, fraction = run.partition("点")
    value = _zh_integer(whole)
    if value is None or "分" in run or "之" in run:
        return None
    if fraction:
        if not all(c in _ZH_DIGITS for c in fraction):
            return None
        return f"{value}.{''.join(str(_ZH_DIGITS[c]) for c in fraction)}{rest}"
    return f"{value}{rest}"


def _zh_integer(run: str) -> int | None:
    if not run:
        return None
    if all(c in _ZH_DIGITS for c in run) and len(run) > 1:
        return int("".join(str(_ZH_DIGITS[c]) for c in run))  # "二五六" read digit by digit
    total = section = digit = 0
    for char in run:
        if char in _ZH_DIGITS:
            digit = _ZH_DIGITS[char]
        elif char == "万":
            total += (section + digit) * 10_000
            section = digit = 0
        else:
            section += (digit or 1) * _ZH_SCALES[char]
            digit = 0
    return total + section + digit
