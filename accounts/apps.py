from django.apps import AppConfig, apps
from django.db.models.signals import post_migrate
from django.utils.translation import gettext_lazy as _


def _last_app_with_models():
    return [config for config in apps.get_app_configs() if config.models_module is not None][-1]


def _sync_roles(sender, **kwargs) -> None:
    # Permissions are themselves created on post_migrate, app by app, so groups are brought
    # in line with accounts.roles once, on the last app's signal, when all of them exist
    # (not in a migration, which cannot see them yet).
    if sender is not _last_app_with_models():
        return
    from accounts.services import roles_sync

    roles_sync(using=kwargs.get("using", "default"))


class AccountsConfig(AppConfig):
    name = "accounts"
    verbose_name = _("Accounts and roles")

    def ready(self) -> None:
        post_migrate.connect(_sync_roles, dispatch_uid="accounts.sync_roles")
