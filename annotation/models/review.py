"""Blind review: rounds of sampled responses, each judged by several experts."""

import secrets

from django.conf import settings
from django.db import models
from django.db.models import Q
from django.utils.translation import gettext_lazy as _

from annotation.models.benchmarks import Benchmark
from annotation.models.responses import Response, System
from annotation.models.rubrics import Criterion, RubricVersion

CODE_ALPHABET = "ABCDEFGHJKLMNPQRSTUVWXYZ23456789"


def new_item_code() -> str:
    """A per-round code shown to experts instead of anything that could name a system."""
    return "".join(secrets.choice(CODE_ALPHABET) for _ in range(8))


def new_pseudonym() -> str:
    """A rater's name in reports and exports, e.g. "E-K7QD": random, so it tells nothing
    about the account (its id, or when it was made)."""
    return "E-" + "".join(secrets.choice(CODE_ALPHABET) for _ in range(4))


class ExpertProfile(models.Model):
    user = models.OneToOneField(
        settings.AUTH_USER_MODEL, on_delete=models.CASCADE, related_name="expert_profile"
    )
    # Primary scene labels the expert knows best, e.g. ["职场心理", "亲密关系"].
    specialities = models.JSONField(default=list, blank=True)
    is_senior = models.BooleanField(_("senior expert (adjudicates)"), default=False)
    calibrated = models.BooleanField(_("passed calibration"), default=False)
    # The expert's own rate, ahead of the round's; empty: the round's rate applies.
    rate_per_item = models.DecimalField(
        _("piece rate per item"), max_digits=8, decimal_places=2, null=True, blank=True
    )

    def __str__(self) -> str:
        return f"profile of {self.user_id}"


class Guideline(models.Model):
    """The benchmark's annotation guidelines, written in the app."""

    benchmark = models.OneToOneField(Benchmark, on_delete=models.CASCADE, related_name="guideline")
    text = models.TextField(_("guidelines"))
    updated = models.DateTimeField(auto_now=True)
    updated_by = models.ForeignKey(
        settings.AUTH_USER_MODEL, on_delete=models.PROTECT, null=True, blank=True
    )

    def __str__(self) -> str:
        return f"guidelines of {self.benchmark_id}"


class ReviewRound(models.Model):
    class Status(models.TextChoices):
        OPEN = "open", _("open")
        PAUSED = "paused", _("paused")
        CLOSED = "closed", _("closed")

    class Sampling(models.TextChoices):
        PROPORTIONAL = "proportional", _("uniform (the same share of every stratum)")
        BY_SYSTEM = "by_system", _("stratified by system (the same number per system)")
        UNCERTAINTY = "uncertainty", _("more where the judge is unsure")

    benchmark = models.ForeignKey(Benchmark, on_delete=models.CASCADE, related_name="rounds")
    name = models.CharField(_("name"), max_length=100, unique=True)
    systems = models.ManyToManyField(System, related_name="review_rounds")
    experts = models.ManyToManyField(settings.AUTH_USER_MODEL, related_name="review_rounds")
    fraction = models.FloatField(_("sampling fraction"), default=0.3)
    seed = models.IntegerField(_("random seed"), default=20251)
    sampling = models.CharField(
        _("sampling design"), max_length=16, choices=Sampling.choices, default="proportional"
    )
    # Under the uncertainty design, every response's chance, drawn or not ({response id:
    # chance}): estimators that use the undrawn responses too (the corrected scores) need
    # theirs, which no item records.
    design_chances = models.JSONField(null=True, blank=True, editable=False)
    raters_per_item = models.PositiveSmallIntegerField(_("raters per item"), default=3)
    max_items_per_expert = models.PositiveIntegerField(
        _("cap per expert (0: an even share)"), default=0
    )
    deadline = models.DateField(_("deadline"), null=True, blank=True)
    fast_answer_seconds = models.PositiveIntegerField(
        _("alert when an item takes less than (s)"), default=20
    )
    is_calibration = models.BooleanField(_("calibration round"), default=False)
    # Off by default: knowing a case is "hard" can change how a rater reads it.
    show_difficulty = models.BooleanField(_("show raters whether a case is hard"), default=False)
    # The anytime-valid test lets a round stop once it decides; closing is left to the
    # coordinator unless the round says otherwise.
    close_when_decided = models.BooleanField(
        _("close automatically when the sequential test decides"), default=False
    )
    status = models.CharField(max_length=10, choices=Status.choices, default=Status.OPEN)
    # The share of items drawn, when the round opens, into the calibration part (0: no
    # split); annotation.review_split draws it from `split_seed`.
    calibration_share = models.FloatField(_("calibration share"), default=0.0)
    split_seed = models.IntegerField(_("split seed"), null=True, blank=True)
    # Paid per submitted item to the round's experts who have no rate of their own.
    rate_per_item = models.DecimalField(
        _("piece rate per item"), max_digits=8, decimal_places=2, null=True, blank=True
    )
    created_by = models.ForeignKey(
        settings.AUTH_USER_MODEL,
        on_delete=models.PROTECT,
        null=True,
        blank=True,
        related_name="+",
    )
    created = models.DateTimeField(auto_now_add=True)

    class Meta:
        ordering = ["-created"]
        permissions = [
            ("manage_review", _("Can open and manage review rounds")),
            ("annotate", _("Can annotate assigned items")),
            ("adjudicate", _("Can adjudicate split items")),
            ("view_consensus", _("Can see votes and consensus")),
        ]

    def __str__(self) -> str:
        return self.name


class ReviewItem(models.Model):
    class Part(models.TextChoices):
        NONE = "", _("no split")
        CALIBRATION = "calibration", _("calibration part")
        HELD_OUT = "held_out", _("held-out part")

    round = models.ForeignKey(ReviewRound, on_delete=models.CASCADE, related_name="items")
    response = models.ForeignKey(Response, on_delete=models.PROTECT, related_name="review_items")
    # Frozen when the round opened: the wording the experts judge.
    rubric_version = models.ForeignKey(RubricVersion, on_delete=models.PROTECT, related_name="+")
    code = models.CharField(max_length=12, default=new_item_code)
    # Reference items carry known answers: calibration, and hidden checks of accuracy.
    is_reference = models.BooleanField(default=False)
    assigned_count = models.PositiveSmallIntegerField(default=0)
    # Place in the round's seeded hand-out order (`review_sampling.hand_out_order`).
    hand_out_rank = models.PositiveIntegerField(default=0)
    # Fixed when the item is sampled (annotation.review_split); empty when the round has no
    # split.
    part = models.CharField(max_length=12, choices=Part.choices, default=Part.NONE, blank=True)
    # The chance the round's sampling design gave this response (items drawn over responses:
    # of its system when sampled by system, of the round otherwise), kept up to date when
    # the round is extended; empty for rounds sampled before it was recorded. Estimators
    # weight by its inverse.
    inclusion_probability = models.FloatField(null=True, blank=True)

    class Meta:
        ordering = ["round", "pk"]
        constraints = [
            models.UniqueConstraint(fields=["round", "response"], name="review_item_unique"),
            models.UniqueConstraint(fields=["round", "code"], name="review_item_code_unique"),
        ]

    def __str__(self) -> str:
        return self.code


class ReferenceAnswer(models.Model):
    item = models.ForeignKey(ReviewItem, on_delete=models.CASCADE, related_name="references")
    criterion = models.ForeignKey(Criterion, on_delete=models.PROTECT, related_name="+")
    hit = models.BooleanField()
    explanation = models.TextField(blank=True)

    class Meta:
        constraints = [
            models.UniqueConstraint(fields=["item", "criterion"], name="reference_unique")
        ]

    def __str__(self) -> str:
        return f"reference {self.item_id}/{self.criterion_id}"


class Assignment(models.Model):
    class Status(models.TextChoices):
        ASSIGNED = "assigned", _("assigned")
        IN_PROGRESS = "in_progress", _("in progress")
        SUBMITTED = "submitted", _("submitted")
        # Given back to the pool: the item went to another expert; kept so skips are counted.
        SKIPPED = "skipped", _("skipped")

    class SkipReason(models.TextChoices):
        OUTSIDE_EXPERTISE = "outside_expertise", _("outside my expertise")
        CONFLICT = "conflict", _("I know this case or its author (conflict of interest)")
        UNREADABLE = "unreadable", _("the dialogue or response cannot be read")
        DISTRESSING = "distressing", _("too distressing for me to judge fairly")
        OTHER = "other", _("other reason")

    item = models.ForeignKey(ReviewItem, on_delete=models.CASCADE, related_name="assignments")
    expert = models.ForeignKey(
        settings.AUTH_USER_MODEL, on_delete=models.PROTECT, related_name="assignments"
    )
    status = models.CharField(max_length=12, choices=Status.choices, default=Status.ASSIGNED)
    # Autosaved work in progress: {"votes": {criterion_id: {"hit": bool|None, "note": str}},
    # "comment": str}. Submitted votes live in Vote rows.
    draft = models.JSONField(default=dict, blank=True)
    active_seconds = models.PositiveIntegerField(default=0)
    # The moment up to which active time has been credited (null: none yet, count from
    # `assigned`): a save adds no more time than has passed since.
    active_until = models.DateTimeField(null=True, blank=True)
    revision = models.PositiveIntegerField(default=0)
    overall_comment = models.TextField(blank=True)
    assigned = models.DateTimeField(auto_now_add=True)
    started = models.DateTimeField(null=True, blank=True)
    submitted = models.DateTimeField(null=True, blank=True)
    skip_reason = models.CharField(max_length=20, choices=SkipReason.choices, blank=True)
    skip_note = models.TextField(blank=True)

    class Meta:
        ordering = ["pk"]
        constraints = [
            models.UniqueConstraint(fields=["item", "expert"], name="one_assignment_per_expert")
        ]
        indexes = [models.Index(fields=["expert", "status"], name="assignment_expert_status")]

    def __str__(self) -> str:
        return f"{self.item_id} for {self.expert_id}"


class VoteQuerySet(models.QuerySet):
    def current(self) -> "VoteQuerySet":
        """Each submitted assignment's latest revision: the votes every count reads. The one
        definition (an architecture test keeps it so)."""
        return self.filter(
            assignment__status=Assignment.Status.SUBMITTED,
            revision=models.F("assignment__revision"),
        )


class Vote(models.Model):
    """One expert's verdict on one criterion, in one revision of their submission. Raw
    votes are never changed: a revision adds rows."""

    assignment = models.ForeignKey(Assignment, on_delete=models.CASCADE, related_name="votes")
    criterion = models.ForeignKey(Criterion, on_delete=models.PROTECT, related_name="votes")
    revision = models.PositiveIntegerField()
    hit = models.BooleanField()
    note = models.TextField(blank=True)
    created = models.DateTimeField(auto_now_add=True)

    objects = VoteQuerySet.as_manager()

    class Meta:
        constraints = [
            models.UniqueConstraint(
                fields=["assignment", "criterion", "revision"], name="vote_unique"
            )
        ]

    def __str__(self) -> str:
        return f"{self.assignment_id}/{self.criterion_id} r{self.revision}"


class Flag(models.Model):
    class Reason(models.TextChoices):
        UNCLEAR_RUBRIC = "unclear_rubric", _("unclear rubric")
        OFFENSIVE = "offensive", _("offensive content")
        BROKEN_TEXT = "broken_text", _("broken text")
        OTHER = "other", _("other")

    assignment = models.ForeignKey(Assignment, on_delete=models.CASCADE, related_name="flags")
    reason = models.CharField(max_length=20, choices=Reason.choices)
    note = models.TextField(blank=True)
    created = models.DateTimeField(auto_now_add=True)
    resolved = models.BooleanField(default=False)

    def __str__(self) -> str:
        return f"flag {self.reason} on {self.assignment_id}"


class Adjudication(models.Model):
    """A senior expert's decision on a split or flagged item; raw votes stay as they are."""

    item = models.ForeignKey(ReviewItem, on_delete=models.CASCADE, related_name="adjudications")
    criterion = models.ForeignKey(
        Criterion, on_delete=models.PROTECT, null=True, blank=True, related_name="+"
    )
    decision = models.BooleanField(null=True, blank=True)
    note = models.TextField(blank=True)
    by = models.ForeignKey(settings.AUTH_USER_MODEL, on_delete=models.PROTECT)
    created = models.DateTimeField(auto_now_add=True)

    class Meta:
        constraints = [
            models.UniqueConstraint(
                fields=["item", "criterion"],
                condition=Q(criterion__isnull=False),
                name="adjudication_unique",
            )
        ]

    def __str__(self) -> str:
        return f"adjudication of {self.item_id}"


class VotesSeen(models.Model):
    """Someone read an item's votes: by opening it to adjudicate, in the round's consensus
    table, in an export of the round's votes, or in the item's discussion thread. Nobody is
    handed a response to rate whose votes they have read (in any round), nor changes their
    own votes on it; whoever read the votes of a round's items otherwise than in a thread
    rates nothing more in that round."""

    class Via(models.TextChoices):
        ADJUDICATION = "adjudication", _("adjudication")
        CONSENSUS = "consensus", _("the round's consensus")
        EXPORT = "export", _("an export of the round's votes")
        DISCUSSION = "discussion", _("the item's discussion")

    item = models.ForeignKey(ReviewItem, on_delete=models.CASCADE, related_name="votes_seen")
    user = models.ForeignKey(settings.AUTH_USER_MODEL, on_delete=models.CASCADE, related_name="+")
    via = models.CharField(max_length=16, choices=Via.choices, default=Via.ADJUDICATION)
    first_seen = models.DateTimeField(auto_now_add=True)

    class Meta:
        constraints = [
            models.UniqueConstraint(fields=["item", "user", "via"], name="votes_seen_unique_via")
        ]

    def __str__(self) -> str:
        return f"votes of {self.item_id} seen by {self.user_id} ({self.via})"


class RaterPseudonym(models.Model):
    """How reports and exports name a rater of a benchmark: drawn at random the first time
    they are needed, then kept, so the same person has the same name in every round."""

    benchmark = models.ForeignKey(Benchmark, on_delete=models.CASCADE, related_name="+")
    user = models.ForeignKey(settings.AUTH_USER_MODEL, on_delete=models.CASCADE, related_name="+")
    name = models.CharField(max_length=16)

    class Meta:
        constraints = [
            models.UniqueConstraint(fields=["benchmark", "user"], name="pseudonym_per_rater"),
            models.UniqueConstraint(fields=["benchmark", "name"], name="pseudonym_unique"),
        ]

    def __str__(self) -> str:
        return self.name
