from django.contrib.auth import get_user_model
from django.contrib.auth.models import Group, Permission
from django.db import transaction

from accounts.roles import ROLE_PERMISSIONS


def _permissions(codes: list[str], using: str) -> list[Permission]:
    wanted = {tuple(code.split(".", 1)) for code in codes}
    found = [
        perm
        for perm in Permission.objects.using(using).select_related("content_type")
        if (perm.content_type.app_label, perm.codename) in wanted
    ]
    return found


def roles_sync(*, using: str = "default") -> None:
    """Make each role's group hold exactly the permissions of accounts.roles."""
    with transaction.atomic(using=using):
        for role, codes in ROLE_PERMISSIONS.items():
            group, _ = Group.objects.using(using).get_or_create(name=role)
            group.permissions.set(_permissions(codes, using))


def user_create_with_role(*, username: str, password: str, role: str):
    """Create the user if missing, set the password and make `role` their only role."""
    user, _ = get_user_model().objects.get_or_create(username=username)
    user.set_password(password)
    user.save()
    user.groups.set([Group.objects.get(name=role)])
    return user
