"""Deterministic draws, language detection, token estimates and canned sentences."""

import hashlib

from judging.text_measure import cjk_count, estimate_tokens


def digest(*parts: object) -> str:
    """A hex SHA-256 of the parts, joined unambiguously."""
    h = hashlib.sha256()
    for part in parts:
        data = str(part).encode("utf-8")
        h.update(len(data).to_bytes(8, "big"))
        h.update(data)
    return h.hexdigest()


def unit(*parts: object) -> float:
    """A deterministic number in [0, 1) drawn from the parts."""
    return int(digest(*parts)[:13], 16) / 16**13


def pick(options: list | tuple, *parts: object):
    return options[int(unit(*parts) * len(options))]


def is_cjk(text: str) -> bool:
    """True when at least a fifth of the letters of `text` are CJK characters."""
    cjk = cjk_count(text)
    latin = sum(1 for ch in text if ch.isascii() and ch.isalpha())
    return cjk > 0 and cjk * 5 >= cjk + latin


def cut_to_tokens(text: str, limit: int) -> str:
    """The longest prefix of `text` whose estimate is at most `limit` tokens."""
    lo, hi = 0, len(text)
    while lo < hi:
        mid = (lo + hi + 1) // 2
        if estimate_tokens(text[:mid]) <= limit:
            lo = mid
        else:
            hi = mid - 1
    return text[:lo]


REPLIES = {
    "zh": (
        (
            "听起来你最近真的承受了很多。",
            "谢谢你愿意把这些告诉我。",
            "遇到这样的事情，会难过和委屈都是很自然的。",
            "我能感觉到你心里其实很累了。",
        ),
        (
            "你的感受是真实的，也值得被认真对待。",
            "先不用急着逼自己马上好起来，允许自己慢一点。",
            "换作是我，大概也会有同样的情绪。",
            "你已经在很努力地撑着了。",
        ),
        (
            "能和我多说说，最让你放不下的是哪一部分吗？",
            "这段时间里，有没有哪怕一小会儿让你觉得轻松一些？",
            "你希望我先陪你聊聊感受，还是一起想想接下来可以怎么做？",
            "身边有没有可以让你稍微依靠一下的人？",
        ),
    ),
    "en": (
        (
            "That sounds like a lot to carry right now.",
            "Thank you for telling me about this.",
            "It makes sense that you feel this way after what happened.",
            "I can hear how tired you are.",
        ),
        (
            "Your feelings are real and they deserve to be taken seriously.",
            "You don't have to fix everything at once; it's okay to go slowly.",
            "Anyone in your place could feel the same.",
            "You have been holding on with a lot of effort.",
        ),
        (
            "Would you tell me a bit more about what weighs on you most?",
            "Has there been any moment lately, even a short one, that felt lighter?",
            "Would you rather talk about how you feel, or think together about next steps?",
            "Is there someone around you that you can lean on a little?",
        ),
    ),
}


def canned_reply(lang: str, *seed: object) -> str:
    """Three sentences: acknowledgement, validation, an open question."""
    sep = "" if lang == "zh" else " "
    return sep.join(pick(group, *seed, i) for i, group in enumerate(REPLIES[lang]))


def verdict_reasoning(lang: str, index: int, hit: bool, criterion: str | None, *seed) -> str:
    """A one-sentence justification of criterion `index` (0-based) that matches `hit`."""
    number = index + 1
    text = (criterion or "").strip()
    if len(text) > 40:
        text = text[:40] + "…"
    if lang == "zh":
        about = f"（{text}）" if text else ""
        options = (
            ("回复中有明确的对应表述，满足该标准。", "回复的内容体现了这一点，判定为命中。")
            if hit
            else ("回复中找不到对应的表述，不满足该标准。", "回复没有体现这一点，判定为未命中。")
        )
        return f"第{number}条标准{about}：{pick(options, *seed, index)}"
    about = f' ("{text}")' if text else ""
    options = (
        ("the response clearly does this, so it is met.", "the response shows this behaviour.")
        if hit
        else ("nothing in the response shows this, so it is not met.", "the response lacks this.")
    )
    return f"Criterion {number}{about}: {pick(options, *seed, index)}"


def summary(lang: str, hits: int, total: int) -> str:
    if lang == "zh":
        return f"逐条对照评分标准检查了回复：共{total}条，命中{hits}条，未命中{total - hits}条。"
    return (
        f"The response was checked against each of the {total} criteria: "
        f"{hits} met, {total - hits} not met."
    )


GENERIC = {
    "zh": ("已根据对话和回复完成评估。", "该字段由模拟器填写。", "回复整体上回应了用户的处境。"),
    "en": (
        "The assessment is based on the dialogue and the response.",
        "This field was filled in by the simulator.",
        "The response addresses the user's situation overall.",
    ),
}


def generic_sentence(lang: str, *seed: object) -> str:
    return pick(GENERIC[lang], *seed)
