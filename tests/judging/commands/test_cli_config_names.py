"""The configurations the command line names after the model and endpoint: no English
words in the name (the pages show it to Chinese readers), and a configuration named the
old way is found again rather than duplicated."""

import pytest

from judging.management.commands._runs import version_from
from judging.management.commands.generate import Command as Generate
from judging.management.commands.judge import Command as Judge
from judging.models import JudgeConfig

pytestmark = pytest.mark.django_db

URL = "http://127.0.0.1:9/v1"


def _opts(command, *extra: str) -> dict:
    parser = command().create_parser("manage.py", "x")
    given = ["--benchmark", "hb", "--base-url", URL, "--model", "m-1", *extra]
    if command is Generate:
        given += ["--system", "S"]
    return vars(parser.parse_args(given))


def test_the_names_carry_no_english_words():
    judge = version_from(_opts(Judge))
    generation = version_from(_opts(Generate), kind="generation")
    assert judge.config.name == f"cli: m-1 @ {URL}"
    assert generation.config.name != judge.config.name
    assert generation.config.name.startswith(f"cli: m-1 @ {URL}")
    for name in (judge.config.name, generation.config.name):
        assert "judge" not in name and "generation" not in name


@pytest.mark.parametrize(("command", "kind"), [(Judge, "judge"), (Generate, "generation")])
def test_a_configuration_named_the_old_way_is_found_again(command, kind):
    first = version_from(_opts(command), kind=kind)
    JudgeConfig.objects.filter(pk=first.config_id).update(name=f"cli: m-1 @ {URL} ({kind})")
    again = version_from(_opts(command), kind=kind)
    assert again.pk == first.pk
    assert JudgeConfig.objects.count() == 1
    assert again.config.name == f"cli: m-1 @ {URL} ({kind})"
