"""HealthBench's example format (OpenAI, 2025), one example per line, read as a case.

A line is `{prompt_id, prompt, rubrics, example_tags, ideal_completions_data}`:

- `prompt`: the conversation, a list of `{role, content}` messages (system, user, assistant);
- `rubrics`: the criteria, `{criterion, points, tags}`; points are integers and may be negative
  (a penalty); tags such as `level:example`, `axis:accuracy`, `cluster:...`;
- `example_tags`: tags of the whole example, such as `theme:emergency_referrals`;
- `ideal_completions_data`: null, or a physician's `ideal_completion` with its
  `ideal_completions_group` and `ideal_completions_ref_completions`.

Read into Concord's models as HeartBench's files are: each criterion's `axis:*` tag is its
ability (as HeartBench's `dimension`), and the example's `theme:*` tag is its scenario's
primary scene (as HeartBench's `primary_scene`), with its other example tags as the
secondary scene. A criterion's other tags (`level:*`, `cluster:*`) are not kept.
"""

from dataclasses import dataclass
from typing import Any

from annotation.importing.fields import (
    refuse_longer,
    refuse_nul,
    require_list,
    require_object,
    require_string,
    type_name,
)
from annotation.importing.issues import RowInvalid, shown
from annotation.importing.issues import _ as _
from annotation.importing.questions import (
    DIMENSION_MAX,
    SCENE_MAX,
    CriterionRow,
    QuestionRow,
    parse_question_id,
    parse_weight,
)

AXIS_PREFIX = "axis:"
THEME_PREFIX = "theme:"
# The axes of the released HealthBench: label, English, Chinese.
AXES = [
    ("axis:accuracy", "Accuracy", "准确性"),
    ("axis:completeness", "Completeness", "完整性"),
    ("axis:communication_quality", "Communication quality", "沟通质量"),
    ("axis:context_awareness", "Context awareness", "情境意识"),
    ("axis:instruction_following", "Instruction following", "遵循指令"),
]


@dataclass(frozen=True)
class IdealCompletion:
    group: str
    text: str
    references: int


@dataclass(frozen=True)
class HealthBenchRow:
    question: QuestionRow
    ideal: IdealCompletion | None
    # Whether a criterion carried tags other than its axis, which are not kept.
    other_criterion_tags: bool


def _tags(value: Any, field: str, *, required: bool) -> list[str]:
    if value is None and not required:
        return []
    if not isinstance(value, list):
        raise RowInvalid(field, _("expected a list, got %(type)s", type=type_name(value)))
    seen: set[str] = set()
    for index, tag in enumerate(value):
        if not isinstance(tag, str) or not tag.strip():
            raise RowInvalid(f"{field}[{index}]", _("a tag must be a non-empty string"))
        refuse_nul(tag, f"{field}[{index}]")
        if tag in seen:
            raise RowInvalid(f"{field}[{index}]", _("tag %(tag)s is given twice", tag=shown(tag)))
        seen.add(tag)
    return [tag.strip() for tag in value]


def parse_prompt(row: dict) -> list[dict[str, str]]:
    dialogue = []
    for index, message in enumerate(require_list(row, "prompt")):
        prefix = f"prompt[{index}]."
        message = require_object(message, f"prompt[{index}]")
        dialogue.append(
            {
                "role": require_string(message, "role", prefix=prefix, strip=True),
                "content": require_string(message, "content", prefix=prefix),
            }
        )
    return dialogue


def parse_rubrics(row: dict) -> tuple[list[CriterionRow], bool]:
    """The criteria in order, each under its axis; and whether any carried other tags."""
    rubric = []
    other_tags = False
    for index, item in enumerate(require_list(row, "rubrics")):
        prefix = f"rubrics[{index}]."
        item = require_object(item, f"rubrics[{index}]")
        if "points" not in item:
            raise RowInvalid(prefix + "points", _("missing"))
        points = parse_weight(item["points"], prefix + "points")
        if points is None:
            raise RowInvalid(prefix + "points", _("must be a number of points, not null"))
        tags = _tags(item.get("tags"), prefix + "tags", required=True)
        axes = [tag for tag in tags if tag.startswith(AXIS_PREFIX)]
        if len(axes) != 1:
            raise RowInvalid(
                prefix + "tags",
                _(
                    "needs exactly one axis tag (such as axis:accuracy), got %(count)d",
                    count=len(axes),
                ),
            )
        other_tags = other_tags or len(tags) > 1
        rubric.append(
            CriterionRow(
                dimension=refuse_longer(axes[0], prefix + "tags", DIMENSION_MAX),
                weight=points,
                text=require_string(item, "criterion", prefix=prefix),
            )
        )
    return rubric, other_tags


def parse_example_tags(row: dict) -> tuple[str, str]:
    """(theme, the other example tags joined by spaces): the case's scenario."""
    tags = _tags(row.get("example_tags"), "example_tags", required=False)
    themes = [tag for tag in tags if tag.startswith(THEME_PREFIX)]
    if len(themes) > 1:
        raise RowInvalid(
            "example_tags",
            _("has %(count)d theme tags; an example has at most one", count=len(themes)),
        )
    theme = themes[0] if themes else ""
    others = " ".join(tag for tag in tags if not tag.startswith(THEME_PREFIX))
    return (
        refuse_longer(theme, "example_tags", SCENE_MAX),
        refuse_longer(others, "example_tags", SCENE_MAX),
    )


def parse_ideal(row: dict) -> IdealCompletion | None:
    data = row.get("ideal_completions_data")
    if data is None:
        return None
    field = "ideal_completions_data"
    data = require_object(data, field)
    references = data.get("ideal_completions_ref_completions") or []
    if not isinstance(references, list):
        raise RowInvalid(
            f"{field}.ideal_completions_ref_completions",
            _("expected a list, got %(type)s", type=type_name(references)),
        )
    return IdealCompletion(
        group=require_string(data, "ideal_completions_group", prefix=f"{field}.", strip=True),
        text=require_string(data, "ideal_completion", prefix=f"{field}."),
        references=len(references),
    )


def parse_prompt_id(row: dict) -> str:
    """The example's id, under the rules of a HeartBench question_id (it names the case in
    web addresses)."""
    if "prompt_id" not in row:
        raise RowInvalid("prompt_id", _("missing"))
    try:
        return parse_question_id({"question_id": row["prompt_id"]})
    except RowInvalid as exc:
        raise RowInvalid("prompt_id", exc.message) from exc


def parse_healthbench(value: Any, file_difficulty: str | None = None) -> HealthBenchRow:
    """One example. HealthBench has no difficulty field: its hard subset is a file of its
    own, so a row's difficulty is the file's (`--difficulty hard`), else normal."""
    row = require_object(value)
    if "question_id" in row and "prompt_id" not in row:
        raise RowInvalid(
            "prompt_id",
            _("missing; this row looks like a HeartBench question (import it without --format)"),
        )
    prompt_id = parse_prompt_id(row)
    theme, other_tags = parse_example_tags(row)
    rubric, other_criterion_tags = parse_rubrics(row)
    question = QuestionRow(
        question_id=prompt_id,
        dialogue=parse_prompt(row),
        rubric=rubric,
        difficulty=file_difficulty or "normal",
        primary_scene=theme,
        secondary_scene=other_tags,
    )
    return HealthBenchRow(
        question=question, ideal=parse_ideal(row), other_criterion_tags=other_criterion_tags
    )
