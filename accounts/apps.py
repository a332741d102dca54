from django.apps import AppConfig
from django.db.models.signals import post_migrate
from django.utils.translation import gettext_lazy as _


def _sync_roles(sender, **kwargs) -> None:
    # Permissions are themselves created on post_migrate, so groups are brought in line
    # with accounts.roles after them rather than in a migration that cannot see them yet.
    from accounts.services import roles_sync

    roles_sync(using=kwargs.get("using", "default"))


class AccountsConfig(AppConfig):
    name = "accounts"
    verbose_name = _("Accounts and roles")

    def ready(self) -> None:
        post_migrate.connect(_sync_roles, dispatch_uid="accounts.sync_roles")
