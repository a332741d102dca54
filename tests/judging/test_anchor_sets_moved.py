"""The drift anchors moved from the leaderboard to judging without moving a row: an
installation that made anchor sets before the move reads every one afterwards, each anchor
with the rubric version its round froze (its criterion's), and can step back."""

import pytest
from django.db import connection
from django.db.migrations.executor import MigrationExecutor

from judging.models import AnchorSet, AnchorUnit

# Real migrations back and forth need their own transactions (SQLite turns off its foreign
# key checks for a schema change only outside one).
pytestmark = pytest.mark.django_db(transaction=True)

BEFORE = [("leaderboard", "0011_snapshot_corrected_by"), ("judging", "0017_ensemble_judges")]
OLD_STATE = [("leaderboard", "0011_snapshot_corrected_by")]


def _migrate(targets) -> MigrationExecutor:
    executor = MigrationExecutor(connection)
    executor.loader.build_graph()
    executor.migrate(targets)
    return MigrationExecutor(connection)


def _made_with_the_old_models(executor: MigrationExecutor) -> list[tuple]:
    old = executor.loader.project_state(OLD_STATE).apps
    model = old.get_model
    benchmark = model("annotation", "Benchmark").objects.create(slug="hb", name="HB")
    system = model("annotation", "System").objects.create(name="Alpha")
    category = model("annotation", "Category").objects.create(name_en="Care", position=90)
    ability = model("annotation", "Ability").objects.create(
        label="moved-ability", name_en="Moved", category=category, position=90
    )
    round_ = model("annotation", "ReviewRound").objects.create(
        benchmark=benchmark, name="R1", seed=1, status="closed"
    )
    anchor_set = model("leaderboard", "AnchorSet").objects.create(
        benchmark=benchmark, round=round_, seed=9
    )
    made = []
    for number, external_id in enumerate(("q1", "q2"), 1):
        case = model("annotation", "Case").objects.create(
            benchmark=benchmark, external_id=external_id, dialogue=[], difficulty="normal"
        )
        versions = [
            model("annotation", "RubricVersion").objects.create(
                case=case, number=n, source="import", content_hash=f"{n}" * 64
            )
            for n in (1, 2)
        ]
        response = model("annotation", "Response").objects.create(
            system=system, case=case, text="回答", source="import"
        )
        # The first case's anchor is on its first rubric version, the second's on its second.
        version = versions[number - 1]
        for position in (1, 2):
            criterion = model("annotation", "Criterion").objects.create(
                rubric_version=version, position=position, ability=ability, weight=1, text="x"
            )
            unit = model("leaderboard", "AnchorUnit").objects.create(
                anchor_set=anchor_set,
                response=response,
                criterion=criterion,
                gold=position == 1,
                position=number - 1,
            )
            made.append((unit.pk, anchor_set.pk, response.pk, criterion.pk, version.pk, unit.gold))
    return made


def _read_with_the_new_models() -> list[tuple]:
    return [
        (u.pk, u.anchor_set_id, u.response_id, u.criterion_id, u.rubric_version_id, u.gold)
        for u in AnchorUnit.objects.order_by("pk")
    ]


def test_anchor_sets_made_before_the_move_are_read_after_it_and_after_a_step_back():
    latest = MigrationExecutor(connection).loader.graph.leaf_nodes()
    try:
        executor = _migrate(BEFORE)
        made = _made_with_the_old_models(executor)

        _migrate(latest)
        assert _read_with_the_new_models() == made
        (anchor_set,) = AnchorSet.objects.all()
        assert (anchor_set.seed, anchor_set.round.name, anchor_set.units.count()) == (9, "R1", 4)
        # The move wrote nothing: the next set takes the next number of the same table.
        later = AnchorSet.objects.create(
            benchmark=anchor_set.benchmark, round=anchor_set.round, seed=10
        )
        assert later.pk > anchor_set.pk

        executor = _migrate(BEFORE)
        old = executor.loader.project_state(OLD_STATE).apps
        assert old.get_model("leaderboard", "AnchorSet").objects.count() == 2
        assert old.get_model("leaderboard", "AnchorUnit").objects.count() == 4
        _migrate(latest)
        assert _read_with_the_new_models() == made
    finally:
        _migrate(latest)
