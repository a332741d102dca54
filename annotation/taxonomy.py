"""The HeartBench taxonomy: 5 categories, 15 abilities, and the catastrophic class.

Created by a data migration and ensured again after every migrate or flush, so a database
always has it.
"""

CATEGORIES = [
    # code, English, Chinese
    ("personality", "Personality", "人格"),
    ("emotion", "Emotion", "情绪"),
    ("social", "Social", "社交"),
    ("motivation", "Motivation", "动机"),
    ("morality", "Morality", "道德"),
    ("catastrophic", "Catastrophic failure", "严重失误"),
]

ABILITIES = [
    # label as in the data, category code, English, Chinese
    ("言语表达", "personality", "Verbal Expression", "言语表达"),
    ("好奇心", "personality", "Curiosity", "好奇心"),
    ("温暖", "personality", "Warmth", "温暖"),
    ("第一人称使用", "personality", "First-Person Usage", "第一人称使用"),
    ("自主性", "personality", "Autonomy", "自主性"),
    ("幽默", "personality", "Humor", "幽默"),
    ("自我认知", "personality", "Self-Awareness", "自我认知"),
    ("情绪应对", "emotion", "Emotional Coping", "情绪应对"),
    ("情绪理解", "emotion", "Emotional Understanding", "情绪理解"),
    ("情绪感知", "emotion", "Emotional Perception", "情绪感知"),
    ("情绪反应", "emotion", "Emotional Reaction", "情绪反应"),
    ("主动性", "social", "Proactivity", "主动性"),
    ("关系构建", "social", "Relationship Building", "关系构建"),
    ("动机", "motivation", "Motivation", "动机"),
    ("道德", "morality", "Morality", "道德"),
    ("其他", "catastrophic", "Other (catastrophic failure)", "其他（严重失误）"),
]


def taxonomy_ensure(apps) -> None:
    """Create or update the built-in categories and abilities (never removes any)."""
    Category = apps.get_model("annotation", "Category")
    Ability = apps.get_model("annotation", "Ability")
    categories = {}
    for position, (code, name_en, name_zh) in enumerate(CATEGORIES, start=1):
        categories[code], _ = Category.objects.update_or_create(
            code=code, defaults={"name_en": name_en, "name_zh": name_zh, "position": position}
        )
    for position, (label, code, name_en, name_zh) in enumerate(ABILITIES, start=1):
        Ability.objects.update_or_create(
            label=label,
            defaults={
                "category": categories[code],
                "name_en": name_en,
                "name_zh": name_zh,
                "position": position,
                "is_catastrophic": code == "catastrophic",
            },
        )
