from collections.abc import Callable
from functools import wraps

from django.contrib.auth.decorators import login_required
from django.core.exceptions import PermissionDenied
from rest_framework.permissions import BasePermission

from core.permissions import Perm


def permission_needed(perm: Perm) -> Callable:
    """Anonymous users go to the login page; signed-in users without `perm` get 403."""

    def decorator(view: Callable) -> Callable:
        @wraps(view)
        def wrapped(request, *args, **kwargs):
            if not request.user.has_perm(perm):
                raise PermissionDenied
            return view(request, *args, **kwargs)

        return login_required(wrapped)

    return decorator


class HasPermission(BasePermission):
    """DRF permission reading the Django permission a view names in `required_permission`;
    a view may name one per method in `required_permissions` instead."""

    def has_permission(self, request, view) -> bool:
        if not (request.user and request.user.is_authenticated):
            return False
        per_method = getattr(view, "required_permissions", {})
        perm = per_method.get(request.method, getattr(view, "required_permission", None))
        return perm is not None and request.user.has_perm(perm)


class ReadsApiDocs(BasePermission):
    """The API's schema and interactive docs: for the roles that use the API (see
    accounts/roles.py), not for experts, who work in the browser, nor users without a role."""

    def has_permission(self, request, view) -> bool:
        user = request.user
        return bool(user and user.is_authenticated and user.has_perm(Perm.READ_API_DOCS))
