from django.apps import AppConfig
from django.db.models.signals import post_migrate
from django.utils.translation import gettext_lazy as _


def _ensure_taxonomy(sender, **kwargs) -> None:
    # Also after a flush (which empties every table and then emits post_migrate).
    from annotation.taxonomy import taxonomy_ensure

    taxonomy_ensure(kwargs.get("apps") or sender.apps)


class AnnotationConfig(AppConfig):
    name = "annotation"
    verbose_name = _("Benchmarks and annotation")

    def ready(self) -> None:
        # The audit log's filter and labels list every app's actions, recorded yet or not.
        import annotation.audit_actions  # noqa: F401

        post_migrate.connect(_ensure_taxonomy, sender=self, dispatch_uid="annotation.taxonomy")
