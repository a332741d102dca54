"""Measuring text without a tokenizer (no Django): CJK characters and an estimate of tokens,
about one per two CJK characters and per four other characters. The simulator counts its
usage this way, and `judge --dry-run` estimates with it before calibrating on the model's
own counts."""

import math


def _is_cjk(ch: str) -> bool:
    code = ord(ch)
    return (
        0x4E00 <= code <= 0x9FFF  # CJK unified ideographs
        or 0x3400 <= code <= 0x4DBF  # extension A
        or 0x3040 <= code <= 0x30FF  # kana
        or 0xAC00 <= code <= 0xD7AF  # hangul
        or 0xF900 <= code <= 0xFAFF  # compatibility ideographs
    )


def cjk_count(text: str) -> int:
    return sum(1 for ch in text if _is_cjk(ch))


def estimate_tokens(text: str) -> int:
    cjk = cjk_count(text)
    return math.ceil(cjk / 2 + (len(text) - cjk) / 4)


def messages_tokens(texts: list[str]) -> int:
    """A chat request's prompt tokens: each message's text and a few tokens of framing."""
    return 3 + sum(4 + estimate_tokens(text) for text in texts)
