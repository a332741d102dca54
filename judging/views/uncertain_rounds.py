from django.http import HttpRequest, HttpResponse

from accounts.access import permission_needed
from annotation.views.review_manage import round_benchmark, round_new_page, round_settings
from core.permissions import Perm
from judging.forms import UncertainRoundForm
from judging.services.uncertain_rounds import uncertain_round_open


@permission_needed(Perm.MANAGE_REVIEW)
def round_new_uncertain(request: HttpRequest) -> HttpResponse:
    """Open a round that samples more where a judge run is unsure."""
    benchmark = round_benchmark(request)
    return round_new_page(
        request,
        form=UncertainRoundForm(request.POST or None, benchmark=benchmark),
        benchmark=benchmark,
        uncertain=True,
        open_round=lambda data: uncertain_round_open(
            **round_settings(data),
            run=data["judge_run"],
            second=data["second_judge_run"],
            floor_share=data["floor_share"],
            user=request.user,
        ),
    )
