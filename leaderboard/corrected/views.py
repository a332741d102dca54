"""The corrected section of the leaderboard page: an htmx fragment (also a page of its own
without JavaScript) and the API endpoint, both thin over `corrected_board`."""

from django.http import Http404, HttpRequest, HttpResponse
from django.shortcuts import render
from django.utils.translation import gettext as _

from accounts.access import permission_needed
from annotation.selectors.benchmarks import benchmark_get
from core.permissions import Perm
from judging.scoring import Profile
from leaderboard.boards.selectors.runs import BoardNotFound, board_runs
from leaderboard.corrected.board import RoundNotFound, corrected_board, correcting_round
from leaderboard.corrected.reading import corrected_view

PROFILES = {p.value for p in Profile}


class BadQuery(Exception):
    """A query parameter that cannot be used; the message says which."""


def board_query(*, benchmark, params) -> tuple:
    """(board, round, profile) from the query's judge, run, profile and round. Raises
    BadQuery, BoardNotFound or RoundNotFound with a message for people."""
    profile = params.get("profile", "") or Profile.HEARTBENCH.value
    if profile not in PROFILES:
        raise BadQuery(_("Use heartbench or heartbench-code."))
    runs = params.getlist("run")
    if not all(value.isdigit() for value in runs):
        raise BadQuery(_("Give runs by their ids."))
    board = board_runs(
        benchmark=benchmark, judge=params.get("judge", ""), runs=[int(v) for v in runs]
    )
    round_ = correcting_round(benchmark=benchmark, ref=params.get("round", ""))
    return board, round_, profile


@permission_needed(Perm.VIEW_CONSENSUS)
def corrected_section(request: HttpRequest, slug: str) -> HttpResponse:
    benchmark = benchmark_get(slug=slug)
    context = {"benchmark": benchmark, "problem": "", "corrected": None}
    try:
        board, round_, profile = board_query(benchmark=benchmark, params=request.GET)
    except BoardNotFound as exc:
        raise Http404(str(exc)) from exc
    except (BadQuery, RoundNotFound) as exc:
        context["problem"] = str(exc)
        return render(request, "leaderboard/_corrected_section.html", context, status=400)
    payload = corrected_board(board=board, round_=round_, profile=profile)
    context.update(
        corrected=corrected_view(payload),
        rounds=list(benchmark.rounds.order_by("-created", "-pk").values_list("pk", "name")),
        round_id=round_.pk,
        judge=request.GET.get("judge", ""),
        runs=request.GET.getlist("run"),
        profile=profile,
    )
    return render(request, "leaderboard/_corrected_section.html", context)
