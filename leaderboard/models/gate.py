from django.conf import settings
from django.core.validators import MaxValueValidator, MinValueValidator
from django.db import models
from django.utils.translation import gettext_lazy as _

from annotation.models import Benchmark, ReviewRound
from judging.models import JudgeRun, JudgeVersion
from leaderboard.stats.threshold import AGREEMENT_GATE


class GatePolicy(models.Model):
    """How a benchmark decides whether a judge may be trusted."""

    class Rule(models.TextChoices):
        POINT = "point", _("point estimate >= threshold (the method's rule)")
        # xgettext:no-python-format
        LOWER_BOUND = "lower_bound", _("lower bound of the 95% interval >= threshold")
        SEQUENTIAL = "sequential", _("sequential test decides pass (anytime-valid)")

    benchmark = models.OneToOneField(
        Benchmark, on_delete=models.CASCADE, related_name="gate_policy"
    )
    threshold = models.FloatField(
        _("agreement threshold"),
        default=AGREEMENT_GATE,
        validators=[MinValueValidator(0.5), MaxValueValidator(1.0)],
    )
    rule = models.CharField(_("rule"), max_length=12, choices=Rule.choices, default=Rule.POINT)
    min_raters = models.PositiveSmallIntegerField(
        _("minimum raters per item"),
        default=3,
        validators=[MinValueValidator(1), MaxValueValidator(20)],
        help_text=_(
            "A round whose items are rated by fewer experts each cannot decide the gate: "
            "the human majority needs independent votes."
        ),
    )
    max_bias_points = models.FloatField(
        _("largest judge bias allowed (points)"),
        null=True,
        blank=True,
        validators=[MinValueValidator(0.0), MaxValueValidator(100.0)],
        help_text=_(
            "Empty: no condition. Otherwise a board is refused when the experts' votes show "
            "the judge surely more lenient or strict than this with a system (the confidence "
            "interval of its bias lies wholly outside it), on the deciding round."
        ),
    )

    class Chance(models.TextChoices):
        NONE = "", _("none")
        KAPPA = "cohen_kappa", _("Cohen's kappa")
        AC1 = "gwet_ac1", _("Gwet's AC1 (when one verdict is far more common)")

    chance_statistic = models.CharField(
        _("chance-corrected condition"), max_length=12, choices=Chance.choices, blank=True
    )
    min_chance = models.FloatField(
        _("its floor"),
        null=True,
        blank=True,
        validators=[MinValueValidator(-1.0), MaxValueValidator(1.0)],
        help_text=_(
            "Agreement alone can be high by chance when one verdict is common. With a "
            "statistic and a floor, the gate also needs the statistic's lower bound "
            "(clustered by response) to reach the floor, for example 0.6."
        ),
    )
    allow_rubric_changes = models.BooleanField(
        _("publish boards whose rubrics changed since the evaluated round"),
        default=False,
        help_text=_(
            "Off: such a board is refused. On: it is published with a visible notice of how "
            "many cases changed."
        ),
    )

    def __str__(self) -> str:
        return f"gate of {self.benchmark_id}: {self.rule} {self.threshold}"


class GateEvaluation(models.Model):
    """One evaluation of the gate: a judge version's run against a round's experts, with
    the numbers it saw. Never edited."""

    benchmark = models.ForeignKey(Benchmark, on_delete=models.CASCADE, related_name="+")
    round = models.ForeignKey(ReviewRound, on_delete=models.PROTECT, related_name="+")
    # The newest of the runs whose verdicts were read (one run, or several of one version).
    run = models.ForeignKey(JudgeRun, on_delete=models.PROTECT, related_name="gate_evaluations")
    runs = models.ManyToManyField(JudgeRun, related_name="+")
    judge_version = models.ForeignKey(
        JudgeVersion, on_delete=models.PROTECT, related_name="gate_evaluations"
    )
    # The judge's name as it was when evaluated: renaming a judge rewrites no evidence.
    judge_name = models.CharField(max_length=200, blank=True)
    threshold = models.FloatField()
    rule = models.CharField(max_length=12, choices=GatePolicy.Rule.choices)
    passed = models.BooleanField()
    units = models.PositiveIntegerField()
    agreement = models.FloatField(null=True)
    lower_bound = models.FloatField(null=True)
    upper_bound = models.FloatField(null=True)
    report = models.JSONField()
    evaluated_by = models.ForeignKey(
        settings.AUTH_USER_MODEL, on_delete=models.PROTECT, null=True, blank=True
    )
    created = models.DateTimeField(auto_now_add=True)

    class Meta:
        ordering = ["-created", "-pk"]
        permissions = [("record_gate", _("Can record gate evaluations"))]

    def __str__(self) -> str:
        return f"gate {'passed' if self.passed else 'failed'} for run {self.run_id}"


class LeaderboardSnapshot(models.Model):
    """A published leaderboard: the numbers it showed, the runs of one judge version they
    came from and the gate evaluation that allowed it."""

    benchmark = models.ForeignKey(Benchmark, on_delete=models.CASCADE, related_name="+")
    runs = models.ManyToManyField(JudgeRun, related_name="+")
    judge_version = models.ForeignKey(JudgeVersion, on_delete=models.PROTECT, related_name="+")
    # The judge's name as it was when published (see GateEvaluation.judge_name).
    judge_name = models.CharField(max_length=200, blank=True)
    gate = models.ForeignKey(GateEvaluation, on_delete=models.PROTECT, related_name="+")
    profile = models.CharField(max_length=20)
    rows = models.JSONField()
    # Cases whose rubric changed since the evaluated round (published only where the
    # benchmark allows it, and then shown with the board).
    rubric_changes = models.PositiveIntegerField(default=0)
    # The review round whose votes corrected the board when it was published (None: not
    # corrected); its corrected board goes into the evidence bundle. Protected: the round's
    # votes are the board's evidence.
    corrected_by = models.ForeignKey(
        ReviewRound, null=True, blank=True, on_delete=models.PROTECT, related_name="+"
    )
    published_by = models.ForeignKey(settings.AUTH_USER_MODEL, on_delete=models.PROTECT)
    created = models.DateTimeField(auto_now_add=True)

    class Meta:
        ordering = ["-created", "-pk"]
        permissions = [
            ("publish_leaderboard", _("Can publish leaderboards")),
            ("export_data", _("Can export research data")),
        ]

    def __str__(self) -> str:
        return f"leaderboard {self.pk} of {self.benchmark_id}"
