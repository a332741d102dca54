from django.contrib.auth import get_user_model
from django.contrib.auth.models import Group, Permission
from django.db import transaction
from django.utils import timezone

from accounts.roles import ROLE_PERMISSIONS


def roles_sync(*, using: str = "default") -> None:
    """Make each role's group hold exactly the permissions of accounts.roles."""
    by_code = {
        f"{perm.content_type.app_label}.{perm.codename}": perm
        for perm in Permission.objects.using(using).select_related("content_type")
    }
    with transaction.atomic(using=using):
        for role, codes in ROLE_PERMISSIONS.items():
            group, _ = Group.objects.using(using).get_or_create(name=role)
            group.permissions.set([by_code[code] for code in codes if code in by_code])


def user_create_with_role(*, username: str, password: str, role: str):
    """Create the user if missing, set the password and make `role` their only role."""
    user, _ = get_user_model().objects.get_or_create(username=username)
    user.set_password(password)
    user.save()
    user.groups.set([Group.objects.get(name=role)])
    return user


def user_access_end(*, user) -> int:
    """End every way the user is signed in: their browser sessions and their API token.
    Deactivation calls this, so activating the account again later revives neither: the
    person signs in anew and asks for a new token. Returns the sessions ended.

    Sessions keep the user's id inside their encoded data, so each live session is read;
    deactivating is rare and the table holds one row per signed-in browser. With
    SESSION_ENGINE set to signed cookies there is no table: a cookie copied before the
    deactivation is refused only while the account stays inactive."""
    from django.contrib.auth import SESSION_KEY
    from django.contrib.sessions.models import Session
    from rest_framework.authtoken.models import Token

    from accounts.sessions import SessionStore

    store = SessionStore()
    ended = [
        key
        for key, data in Session.objects.filter(expire_date__gt=timezone.now())
        .values_list("session_key", "session_data")
        .iterator(chunk_size=2000)
        if str(store.decode(data).get(SESSION_KEY)) == str(user.pk)
    ]
    for start in range(0, len(ended), 500):
        Session.objects.filter(session_key__in=ended[start : start + 500]).delete()
    Token.objects.filter(user=user).delete()
    return len(ended)
