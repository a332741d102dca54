# ruff: noqa: E501 - the released prompt, byte for byte
"""HeartBench's judge prompt as released (inclusionAI/HeartBench, heartbench/score_answers.py,
PROMPT_TEMPLATE; Apache-2.0), to run the paper's protocol as released: save it as a text
file and give it to `judge --prompt-file` (a text file is the user message alone, as the
script sends it) with structured output off. Concord renders its placeholders
({dialogue_history}, {response}, {rubric}, {rubric_nums}) exactly as the script does, and
reads its {'reason': ..., 'detail': [...]} replies (judging.replies)."""

HEARTBENCH_JUDGE_PROMPT = """你是一个专业、严苛的心理学打分批评专家，请根据以上对话历史（作为考题）与待测AI的表现进行打分。
注意事项：
1.考题中的角色B不是待测AI，仅辅助生成考题上文。仅「待测AI回复」中才是你要考察的部分。
2.打分要尽可能严格，加分项只有完全达到才能命中，扣分项如果有一点涉及都要命中。
3.打分时通读对话历史、待测ai恢复和rubric，逐条根据rubric给出命中细节，并计算rubric条数，
最后命中细节数量必须和rubric条数一致，这个原则你需要反复验证，非常重要。
4.不必在意分值多少，不需要计算总分。

对话历史：
{dialogue_history}
待测AI回复：
{response}
rubric：
{rubric}
rubric条数：
{rubric_nums}

直接按照格以下式输出，不要输出markdown或者其他内容。
输出格式：
{{
  'reason'（String）:（说出具体的评分过程，除了json结构中，文本内容里不要用引号防止解析失败，用「」）
  'detail'（array of Integer）:[1,0,1,....](按顺序给出rubric命中情况，命中置1，未命中置0，用英文逗号分割，这里的元素个数一定要与rubric条数保持一致)
}}"""
