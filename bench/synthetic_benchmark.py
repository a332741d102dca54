"""Synthetic benchmark files in the HeartBench question format, with chosen sizes."""

import json
import random
from collections.abc import Iterator

ABILITIES = [
    "言语表达",
    "好奇心",
    "温暖",
    "第一人称使用",
    "自主性",
    "幽默",
    "自我认知",
    "情绪应对",
    "情绪理解",
    "情绪感知",
    "情绪反应",
    "主动性",
    "关系构建",
    "动机",
    "道德",
]
PRIMARY_SCENES = ["职场心理", "亲密关系", "家庭关系", "自我成长", "社会适应"]


def question_rows(
    *, cases: int, criteria: int, secondary_scenes: int = 34, seed: int = 7
) -> Iterator[dict]:
    """`cases` rows carrying `criteria` criteria in all, one catastrophic criterion each."""
    if criteria < 2 * cases:
        raise ValueError("need at least two criteria per case")
    rng = random.Random(seed)
    scored = criteria - cases
    base, extra = divmod(scored, cases)
    for index in range(cases):
        count = base + (1 if index < extra else 0)
        rubric = [
            {
                "dimension": ABILITIES[(index + k) % len(ABILITIES)],
                "score": rng.choice([-10, -5, -2, 1, 2, 3, 4, 5, 6, 8])
                if k
                else rng.randint(1, 10),
                "content": f"案例 {index} 标准 {k}：回应是否体现具体行为 {rng.random():.6f}",
            }
            for k in range(count)
        ]
        rubric.append(
            {"dimension": "其他", "score": None, "content": "没有回应用户，而是以用户的身份说话"}
        )
        secondary = index % secondary_scenes
        yield {
            "question_id": f"q{index:05d}",
            "dialogue": [
                {"role": "A", "content": f"我最近压力很大（{index}），不知道该怎么办。"},
                {"role": "B", "content": "你可以多说一点吗？"},
                {"role": "A", "content": "工作和家里的事情都让我喘不过气来。"},
            ][: 1 + 2 * (index % 2)],
            "rubric": rubric,
            "difficulty": "hard" if index % 7 == 0 else "normal",
            "primary_scene": PRIMARY_SCENES[secondary % len(PRIMARY_SCENES)],
            "secondary_scene": f"场景{secondary:02d}",
        }


def write_questions(path, **sizes) -> None:
    with open(path, "w", encoding="utf-8") as out:
        for row in question_rows(**sizes):
            out.write(json.dumps(row, ensure_ascii=False) + "\n")
