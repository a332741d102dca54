from django.contrib.auth import get_user_model
from django.contrib.auth.backends import ModelBackend
from django.contrib.auth.models import Permission
from django.core.exceptions import PermissionDenied
from django.db.models import Q

from accounts.throttle import (
    client_ip,
    device_known,
    device_remember,
    login_attempt_begin,
    login_attempt_failed,
    login_attempt_succeeded,
)


class ThrottledModelBackend(ModelBackend):
    """Django's username/password backend behind the login throttle, so every sign-in form
    (the login page and the admin's) shares the same counts. A refused attempt leaves its
    reason on the request (`login_refusal`) for the form to tell.

    Calls without a request (management commands, the test client's `login`) have no address
    to throttle and pass straight through."""

    def authenticate(self, request, username=None, password=None, **kwargs):
        if username is None:
            username = kwargs.get(get_user_model().USERNAME_FIELD)
        if request is None or username is None:
            return super().authenticate(request, username, password, **kwargs)
        ip = client_ip(request)
        known = device_known(request, username)
        refusal = login_attempt_begin(username=username, ip=ip, known_device=known)
        if refusal is not None:
            request.login_refusal = refusal
            # PermissionDenied stops authenticate() from asking any other backend.
            raise PermissionDenied
        user = super().authenticate(request, username, password, **kwargs)
        if user is None:
            request.login_refusal = login_attempt_failed(username=username, ip=ip)
        else:
            login_attempt_succeeded(username=username, ip=ip, known_device=known)
            device_remember(request, username)
        return user

    def get_all_permissions(self, user_obj, obj=None):
        """The user's own and their groups' permissions in one query, where ModelBackend
        makes two: every page and API call asks once."""
        if not user_obj.is_active or user_obj.is_anonymous or obj is not None:
            return set()
        if not hasattr(user_obj, "_perm_cache"):
            perms = Permission.objects.all()
            if not user_obj.is_superuser:
                # Subqueries on the link tables: PostgreSQL plans them faster than the joins
                # of `Q(user=...) | Q(group__user=...)`.
                own = user_obj.user_permissions.through.objects.filter(user_id=user_obj.pk)
                grouped = Permission.group_set.through.objects.filter(group__user=user_obj)
                perms = perms.filter(
                    Q(pk__in=own.values("permission_id"))
                    | Q(pk__in=grouped.values("permission_id"))
                )
            user_obj._perm_cache = {
                f"{app}.{codename}"
                for app, codename in perms.values_list(
                    "content_type__app_label", "codename"
                ).order_by()
            }
        return user_obj._perm_cache
