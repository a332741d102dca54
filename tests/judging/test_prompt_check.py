"""A lab's own prompt: its placeholders checked, its language told."""

import pytest

from judging.prompt_check import PromptInvalid, check_placeholders, text_language


def test_a_judge_prompt_needs_the_response_and_the_criteria():
    check_placeholders("judge", "", "对话：{dialogue}\n回复：{response}\n标准：{criteria}")
    with pytest.raises(PromptInvalid, match=r"missing placeholder\(s\) \{criteria\}"):
        check_placeholders("judge", "", "回复：{response}")


def test_unknown_placeholders_and_stray_braces_are_named():
    with pytest.raises(PromptInvalid, match=r"unknown placeholder\(s\) \{answer\}"):
        check_placeholders("judge", "", "{answer} {response} {criteria}")
    with pytest.raises(PromptInvalid, match="literal brace"):
        check_placeholders("judge", "", '{response} {criteria} {"hit": true')
    check_placeholders("judge", "", '{response} {criteria} {{"hit": true}}')


def test_the_language_of_a_text():
    assert text_language("请判断回复是否指出了用户的疲惫和压力感，并逐条给出理由。") == "zh-hans"
    assert text_language("Judge whether the response names the user's exhaustion.") == "en"
    assert text_language("OK {response}") is None
