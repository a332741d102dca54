"""Which model the provider says answered a run's calls, and on which backend."""

from django.db.models import Count

from judging.models import JudgeAttempt


def provider_models(run_id: int) -> list[dict]:
    """The (model id, system_fingerprint) pairs the provider returned for the run's
    answered calls, each with how many calls returned it; most frequent first. A change of
    fingerprint within a run says the provider's backend changed while it ran."""
    pairs = (
        JudgeAttempt.objects.filter(task__run_id=run_id)
        .exclude(provider_model="", system_fingerprint="")
        .values("provider_model", "system_fingerprint")
        .annotate(calls=Count("pk"))
        .order_by("-calls", "provider_model", "system_fingerprint")
    )
    return [
        {
            "model": pair["provider_model"],
            "system_fingerprint": pair["system_fingerprint"],
            "calls": pair["calls"],
        }
        for pair in pairs
    ]
