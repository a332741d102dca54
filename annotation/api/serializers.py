from rest_framework import serializers

from annotation.importing.questions import DIFFICULTIES
from annotation.models import Benchmark, Case, Criterion, Response, RubricVersion, System


class TurnSerializer(serializers.Serializer):
    role = serializers.CharField()
    content = serializers.CharField()


class BenchmarkOutput(serializers.ModelSerializer):
    case_count = serializers.IntegerField(read_only=True)
    hard_count = serializers.IntegerField(read_only=True)
    criteria_count = serializers.IntegerField(read_only=True)
    scenario_count = serializers.IntegerField(read_only=True)
    system_count = serializers.IntegerField(read_only=True)
    response_count = serializers.IntegerField(read_only=True)

    class Meta:
        model = Benchmark
        fields = [
            "slug",
            "name",
            "description",
            "created",
            "case_count",
            "hard_count",
            "criteria_count",
            "scenario_count",
            "system_count",
            "response_count",
        ]


class CriterionOutput(serializers.ModelSerializer):
    ability = serializers.CharField(source="ability.label")
    category = serializers.CharField(source="ability.category.code")

    class Meta:
        model = Criterion
        fields = ["position", "key", "ability", "category", "weight", "text", "is_catastrophic"]


class RubricVersionOutput(serializers.ModelSerializer):
    author = serializers.CharField(source="author.username", default=None, allow_null=True)
    parent = serializers.IntegerField(source="parent.number", default=None, allow_null=True)

    class Meta:
        model = RubricVersion
        fields = ["id", "number", "parent", "author", "note", "source", "created"]


class RubricVersionDetailOutput(RubricVersionOutput):
    criteria = CriterionOutput(many=True)

    class Meta(RubricVersionOutput.Meta):
        fields = [*RubricVersionOutput.Meta.fields, "criteria"]


class CaseOutput(serializers.ModelSerializer):
    question_id = serializers.CharField(source="external_id")
    primary_scene = serializers.CharField(source="scenario.primary", default="")
    secondary_scene = serializers.CharField(source="scenario.secondary", default="")
    dialogue = TurnSerializer(many=True)
    criteria_count = serializers.IntegerField(read_only=True)
    current_version = serializers.IntegerField(source="current_version_id", read_only=True)

    class Meta:
        model = Case
        fields = [
            "id",
            "question_id",
            "difficulty",
            "primary_scene",
            "secondary_scene",
            "dialogue",
            "criteria_count",
            "current_version",
        ]


class SystemOutput(serializers.ModelSerializer):
    class Meta:
        model = System
        fields = ["id", "name", "kind", "description"]


class ResponseOutput(serializers.ModelSerializer):
    system = serializers.CharField(source="system.name")
    question_id = serializers.CharField(source="case.external_id")
    benchmark = serializers.CharField(source="case.benchmark.slug")

    class Meta:
        model = Response
        fields = ["id", "benchmark", "question_id", "system", "text", "source", "created"]


class ImportInput(serializers.Serializer):
    file = serializers.FileField()
    name = serializers.CharField(required=False, allow_blank=True, max_length=200)
    difficulty = serializers.ChoiceField(
        choices=DIFFICULTIES,
        required=False,
        help_text="The difficulty of every case, for files whose rows carry none "
        "(HeartBench's question_normal.jsonl and question_hard.jsonl).",
    )


class ResponsesImportInput(serializers.Serializer):
    file = serializers.FileField()
    system = serializers.CharField(max_length=200)
    kind = serializers.ChoiceField(choices=System.Kind.choices, default=System.Kind.LLM)


class BenchmarkImportOutput(serializers.Serializer):
    cases = serializers.IntegerField()
    cases_created = serializers.IntegerField()
    cases_updated = serializers.IntegerField()
    criteria = serializers.IntegerField()
    rubric_versions_created = serializers.IntegerField()
    responses = serializers.IntegerField()
    warnings = serializers.ListField(child=serializers.CharField())


class ResponsesImportOutput(serializers.Serializer):
    responses = serializers.IntegerField()
    responses_created = serializers.IntegerField()
    unchanged = serializers.IntegerField()
    system_created = serializers.BooleanField()
    failed_generations = serializers.IntegerField(
        help_text="Responses that are empty or begin with 'Error' (failed generations): kept, "
        "and left out of judge runs and review rounds unless asked for."
    )
    warnings = serializers.ListField(child=serializers.CharField())


# A refused upload answers 400 with either the importer's report or, when the form itself
# is wrong (no file, no system name), DRF's errors by field.
IMPORT_REFUSED_SCHEMA = {
    "oneOf": [
        {
            "type": "object",
            "required": ["detail", "errors", "total"],
            "properties": {
                "detail": {"type": "string"},
                "errors": {"type": "array", "items": {"type": "object"}},
                "total": {"type": "integer"},
            },
        },
        {
            "type": "object",
            "additionalProperties": {"type": "array", "items": {"type": "string"}},
        },
        # A body that could not be read (e.g. a NUL in a form field), named by the parser.
        {
            "type": "object",
            "required": ["detail"],
            "properties": {"detail": {"type": "string"}},
            "additionalProperties": False,
        },
    ]
}


DETAIL_SCHEMA = {
    "type": "object",
    "required": ["detail"],
    "properties": {"detail": {"type": "string"}},
}
