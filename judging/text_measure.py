"""Measuring text without a tokenizer (no Django): CJK characters and an estimate of tokens,
about one per two CJK characters and per four other characters. The simulator counts its
usage this way, and `judge --dry-run` estimates with it before calibrating on the model's
own counts."""

import math
import re

# CJK unified ideographs, extension A, kana, hangul, compatibility ideographs: runs of them
# are counted by the regular expression engine, fast enough to measure every request.
_CJK_RUN = re.compile("[\u4e00-\u9fff\u3400-\u4dbf\u3040-\u30ff\uac00-\ud7af\uf900-\ufaff]+")


def cjk_count(text: str) -> int:
    return sum(map(len, _CJK_RUN.findall(text)))


def estimate_tokens(text: str) -> int:
    cjk = cjk_count(text)
    return math.ceil(cjk / 2 + (len(text) - cjk) / 4)


def messages_tokens(texts: list[str]) -> int:
    """A chat request's prompt tokens: each message's text and a few tokens of framing."""
    return 3 + sum(4 + estimate_tokens(text) for text in texts)
