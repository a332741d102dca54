"""Input and output shapes of the coordinators' review API."""

import math

from django.contrib.auth import get_user_model
from django.db.models import Q
from django.utils.translation import gettext as _
from rest_framework import serializers

from annotation.consensus import MAJORITY, NO_VOTES, TIE
from annotation.models import (
    Adjudication,
    Assignment,
    Benchmark,
    ReferenceAnswer,
    ReviewItem,
    ReviewRound,
    System,
)
from annotation.services.review_votes import NOTE_MAX_LENGTH

INT32 = 2**31 - 1
User = get_user_model()


def _annotators():
    """Users who may annotate: the only ones a round's pool may hold."""
    return (
        User.objects.filter(
            Q(groups__permissions__codename="annotate") | Q(user_permissions__codename="annotate"),
            is_active=True,
        )
        .distinct()
        .order_by("username")
    )


def _finite(value: float) -> float:
    if not math.isfinite(value):
        raise serializers.ValidationError(_("Give a number."))
    return value


# Output ---------------------------------------------------------------------------------


class ManagedAssignmentOutput(serializers.ModelSerializer):
    code = serializers.CharField(source="item.code")
    expert = serializers.CharField(source="expert.username")

    class Meta:
        model = Assignment
        fields = ["id", "code", "expert", "status", "revision", "started", "submitted"]


class ManagedItemOutput(serializers.ModelSerializer):
    question_id = serializers.CharField(source="response.case.external_id")
    system = serializers.CharField(source="response.system.name")
    assignments = ManagedAssignmentOutput(many=True)

    class Meta:
        model = ReviewItem
        fields = [
            "id",
            "code",
            "question_id",
            "system",
            "is_reference",
            "assigned_count",
            "part",
            "inclusion_probability",
            "assignments",
        ]


class ManagedRoundOutput(serializers.ModelSerializer):
    benchmark = serializers.CharField(source="benchmark.slug")
    systems = serializers.SlugRelatedField(slug_field="name", many=True, read_only=True)
    experts = serializers.SlugRelatedField(slug_field="username", many=True, read_only=True)
    created_by = serializers.CharField(source="created_by.username", default=None, allow_null=True)
    item_count = serializers.IntegerField()

    class Meta:
        model = ReviewRound
        fields = [
            "id",
            "name",
            "benchmark",
            "systems",
            "experts",
            "fraction",
            "seed",
            "sampling",
            "calibration_share",
            "split_seed",
            "raters_per_item",
            "max_items_per_expert",
            "deadline",
            "fast_answer_seconds",
            "is_calibration",
            "show_difficulty",
            "close_when_decided",
            "status",
            "created_by",
            "created",
            "item_count",
        ]


class ManagedRoundDetailOutput(ManagedRoundOutput):
    items = ManagedItemOutput(many=True)

    class Meta(ManagedRoundOutput.Meta):
        fields = [*ManagedRoundOutput.Meta.fields, "items"]


class RoundExtendOutput(serializers.Serializer):
    added = serializers.IntegerField(help_text="items added to the sample")
    round = ManagedRoundOutput()


class GuidelineOutput(serializers.Serializer):
    benchmark = serializers.CharField()
    text = serializers.CharField(allow_blank=True)
    updated = serializers.DateTimeField(allow_null=True)
    updated_by = serializers.CharField(allow_null=True)


class ReferenceAnswerOutput(serializers.ModelSerializer):
    position = serializers.IntegerField(source="criterion.position")

    class Meta:
        model = ReferenceAnswer
        fields = ["criterion", "position", "hit", "explanation"]


class ReferenceItemOutput(serializers.Serializer):
    item = serializers.IntegerField()
    code = serializers.CharField()
    is_reference = serializers.BooleanField()
    answers = ReferenceAnswerOutput(many=True)


class ConsensusUnitOutput(serializers.Serializer):
    criterion = serializers.IntegerField()
    position = serializers.IntegerField()
    votes = serializers.IntegerField()
    hits = serializers.IntegerField()
    outcome = serializers.ChoiceField(choices=[MAJORITY, TIE, NO_VOTES])
    label = serializers.BooleanField(allow_null=True, help_text="null unless a majority")


class ConsensusItemOutput(serializers.Serializer):
    item = serializers.IntegerField()
    code = serializers.CharField()
    criteria = ConsensusUnitOutput(many=True)


class AdjudicationOutput(serializers.ModelSerializer):
    by = serializers.CharField(source="by.username")

    class Meta:
        model = Adjudication
        fields = ["id", "item", "criterion", "decision", "note", "by", "created"]


# Input ----------------------------------------------------------------------------------


class RoundCreateInput(serializers.Serializer):
    benchmark = serializers.SlugRelatedField(slug_field="slug", queryset=Benchmark.objects.all())
    name = serializers.CharField(max_length=100)
    systems = serializers.SlugRelatedField(
        slug_field="name", queryset=System.objects.all(), many=True, allow_empty=False
    )
    experts = serializers.SlugRelatedField(
        slug_field="username", queryset=_annotators(), many=True, help_text="usernames"
    )
    fraction = serializers.FloatField(default=0.3, validators=[_finite])
    seed = serializers.IntegerField(default=20251, min_value=-INT32 - 1, max_value=INT32)
    sampling = serializers.ChoiceField(
        # "uncertainty" needs a judge run: POST /api/review/manage/rounds/uncertain/ (judging).
        choices=ReviewRound.Sampling.choices[:2],
        default=ReviewRound.Sampling.PROPORTIONAL,
        help_text="proportional: the same share of every stratum; by_system: the same number "
        "of items per system (the agreement is weighted by inverse inclusion probabilities)",
    )
    raters_per_item = serializers.IntegerField(default=3, max_value=32767)
    max_items_per_expert = serializers.IntegerField(
        default=0, min_value=0, max_value=INT32, help_text="0: an even share"
    )
    deadline = serializers.DateField(allow_null=True, default=None)
    is_calibration = serializers.BooleanField(default=False)
    show_difficulty = serializers.BooleanField(
        default=False, help_text="show raters whether a case is normal or hard"
    )
    close_when_decided = serializers.BooleanField(
        default=False,
        help_text="close the round, giving back unopened items, once the sequential test decides",
    )
    calibration_share = serializers.FloatField(
        default=0.0,
        min_value=0.0,
        max_value=1.0,
        validators=[_finite],
        help_text="share of the items drawn into the calibration part (0: no split)",
    )
    split_seed = serializers.IntegerField(
        allow_null=True,
        default=None,
        min_value=-INT32 - 1,
        max_value=INT32,
        help_text="seed of the split (null: the round's seed)",
    )


class RoundExtendInput(serializers.Serializer):
    fraction = serializers.FloatField(max_value=1.0, validators=[_finite])


class RoundStatusInput(serializers.Serializer):
    status = serializers.ChoiceField(choices=ReviewRound.Status.choices)
    confirm = serializers.BooleanField(
        default=False,
        help_text="required to close: closing stops the work under way (see the 409 answer)",
    )


class RoundWorkOutput(serializers.Serializer):
    detail = serializers.CharField()
    started_not_submitted = serializers.IntegerField()
    unstarted = serializers.IntegerField()
    items_short_of_raters = serializers.IntegerField()
    ratings_missing = serializers.IntegerField()


class ReassignInput(serializers.Serializer):
    expert = serializers.SlugRelatedField(
        slug_field="username", queryset=User.objects.all(), help_text="username"
    )


class GuidelineInput(serializers.Serializer):
    text = serializers.CharField(max_length=100_000)


class ReferenceAnswerInput(serializers.Serializer):
    criterion = serializers.IntegerField()
    hit = serializers.BooleanField()
    explanation = serializers.CharField(allow_blank=True, default="", max_length=5000)


class ReferencesInput(serializers.Serializer):
    answers = ReferenceAnswerInput(many=True, help_text="one per criterion of the item")


class AdjudicationInput(serializers.Serializer):
    criterion = serializers.IntegerField(
        allow_null=True, default=None, help_text="null: a note on the whole item"
    )
    decision = serializers.BooleanField(allow_null=True, default=None)
    note = serializers.CharField(allow_blank=True, default="", max_length=NOTE_MAX_LENGTH)


# Helpers --------------------------------------------------------------------------------
