from django.contrib.auth import get_user_model
from django.contrib.auth.backends import ModelBackend
from django.contrib.auth.models import Group, Permission
from django.contrib.contenttypes.models import ContentType
from django.core.exceptions import PermissionDenied
from django.db import connection

from accounts.roles import ROLES
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

    def get_user(self, user_id):
        """The signed-in user of a request, as ModelBackend reads it, by a raw statement:
        every signed-in request asks, and the ORM's query building cost twice the rest."""
        User = get_user_model()
        sql = f"SELECT * FROM {User._meta.db_table} WHERE {User._meta.pk.column} = %s"
        found = list(User._default_manager.raw(sql, [user_id]))
        if not found or not self.user_can_authenticate(found[0]):
            return None
        return found[0]

    def get_all_permissions(self, user_obj, obj=None):
        """The user's own and their groups' permissions, with their groups' names for the
        page header, in one query where ModelBackend makes two and the header a third:
        every page and API call asks once."""
        if not user_obj.is_active or user_obj.is_anonymous or obj is not None:
            return set()
        if not hasattr(user_obj, "_perm_cache"):
            if user_obj.is_superuser:
                user_obj._perm_cache = {
                    f"{app}.{codename}"
                    for app, codename in Permission.objects.values_list(
                        "content_type__app_label", "codename"
                    ).order_by()
                }
            else:
                user_obj._perm_cache, user_obj._role_names = _grants(user_obj.pk)
        return user_obj._perm_cache


def role_names(user) -> list[str]:
    """Names of the user's groups (their roles) in the roles' own order, as the people pages
    list them; read with the permissions when a permission was asked first, else by a query
    of their own, kept on the user."""
    if not getattr(user, "is_authenticated", False):
        return []
    if not hasattr(user, "_role_names"):
        user._role_names = _in_role_order(user.groups.values_list("name", flat=True))
    return user._role_names


def _in_role_order(names) -> list[str]:
    """The product's roles first, in ROLES order; any other group after them by name."""
    return sorted(names, key=lambda n: (ROLES.index(n) if n in ROLES else len(ROLES), n))


def _grants(user_id: int) -> tuple[set[str], list[str]]:
    """Permissions and group names of a user in one statement. Written as SQL because it
    runs on every request, and building it through the ORM cost ten times the database's
    time to answer it (bench/annotation_profile.py)."""
    User = get_user_model()
    user_perms = User.user_permissions.through._meta.db_table
    user_groups = User.groups.through._meta.db_table
    group_perms = Group.permissions.through._meta.db_table
    sql = (
        f"SELECT ct.app_label, p.codename, NULL FROM {Permission._meta.db_table} p "
        f"JOIN {ContentType._meta.db_table} ct ON ct.id = p.content_type_id "
        f"WHERE p.id IN (SELECT permission_id FROM {user_perms} WHERE user_id = %s) "
        f"OR p.id IN (SELECT gp.permission_id FROM {group_perms} gp "
        f"JOIN {user_groups} ug ON ug.group_id = gp.group_id WHERE ug.user_id = %s) "
        f"UNION ALL SELECT NULL, NULL, g.name FROM {Group._meta.db_table} g "
        f"JOIN {user_groups} ug ON ug.group_id = g.id WHERE ug.user_id = %s"
    )
    with connection.cursor() as cursor:
        cursor.execute(sql, [user_id, user_id, user_id])
        rows = cursor.fetchall()
    perms = {f"{app}.{codename}" for app, codename, group in rows if group is None}
    return perms, _in_role_order(group for _app, _codename, group in rows if group is not None)
