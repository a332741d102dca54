import pytest
from django.core.management import call_command
from django.test import Client
from django.urls import reverse

from annotation.models import Ability, Benchmark, Case, Criterion, Response, System
from leaderboard.management.commands.load_demo import DEMO_PASSWORD, DEMO_USERS
from tests.conftest import table_counts

pytestmark = pytest.mark.django_db


def test_demo_loads_both_benchmarks_three_systems_and_users():
    call_command("load_demo")
    assert set(Benchmark.objects.values_list("slug", flat=True)) == {"demo", "demo-en"}
    demo = Case.objects.filter(benchmark__slug="demo")
    assert demo.count() >= 12
    assert set(demo.values_list("difficulty", flat=True)) == {"normal", "hard"}
    for case in demo:
        assert case.rubric_versions.get().criteria.filter(is_catastrophic=True).count() == 1
    used = Ability.objects.filter(criteria__isnull=False, is_catastrophic=False).distinct()
    assert used.count() >= 8
    assert not Ability.objects.filter(category__code="uncategorised").exists()
    assert System.objects.filter(kind="human").count() == 1
    assert Response.objects.count() == 3 * Case.objects.count()
    before = table_counts()
    call_command("load_demo")
    assert table_counts() == before
    assert Criterion.objects.filter(rubric_version__case__benchmark__slug="demo").count() > 0


def test_each_demo_user_logs_in_with_the_printed_password_and_sees_their_pages():
    call_command("load_demo")
    for username, role in DEMO_USERS:
        client = Client()
        response = client.post(reverse("login"), {"username": username, "password": DEMO_PASSWORD})
        assert response.status_code == 302, username
        home = client.get(reverse("home"), follow=True)
        assert home.status_code == 200
        benchmarks = client.get(reverse("benchmark-list"))
        case = client.get(reverse("case-detail", args=["demo", "demo01"]))
        if role == "Expert":
            assert benchmarks.status_code == 403 and case.status_code == 403
        else:
            assert benchmarks.status_code == 200 and "Concord demo" in benchmarks.content.decode()
            assert case.status_code == 200 and "Model Alpha" in case.content.decode()
        can_import = client.get(reverse("import")).status_code == 200
        assert can_import == (role == "Coordinator")
