from django.apps import AppConfig
from django.db.models.signals import post_migrate
from django.utils.translation import gettext_lazy as _


def _ensure_prompts(sender, **kwargs) -> None:
    # Also after a flush (which empties every table and then emits post_migrate).
    from judging.default_prompts import default_prompts_ensure

    default_prompts_ensure(kwargs.get("apps") or sender.apps)


class JudgingConfig(AppConfig):
    name = "judging"
    verbose_name = _("LLM judging")

    def ready(self) -> None:
        # The audit log's filter and labels list every app's actions, recorded yet or not.
        import judging.audit_actions  # noqa: F401
        from judging.places import places_fill

        places_fill()
        post_migrate.connect(_ensure_prompts, sender=self, dispatch_uid="judging.prompts")
