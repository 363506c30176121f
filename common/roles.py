"""Roles as Django groups: viewer reads everything; operator also edits inventory and intents and runs things on the
twin; admin also touches production (creates, approves and starts production rollouts), device endpoints and users.

``roles_ensure()`` creates or repairs the three groups (idempotent); it runs after every migrate and from
``manage.py ui_roles``. Views check single permissions (``common.<codename>``), never group names, so a site can
grant a capability to its own groups too. Which capability each UI action and API operation needs is decided
in one place, ``common.policy`` (docs/security.md).
"""

from __future__ import annotations

from django.apps import apps
from django.contrib.auth.management import create_permissions
from django.contrib.auth.models import Group, Permission
from django.db import transaction

# The capabilities are the permissions declared on common.models.Capability (an unmanaged model, no table); ui
# migration 0007 moved the rows that were ``ui.<codename>`` here, keeping every group's and user's grants.
CAPABILITY_APP = "common"

VIEW = "view_fabric_data"
OPERATE = "operate_fabric"
EDIT_INVENTORY = "edit_inventory"
EDIT_INTENTS = "edit_intents"
APPROVE_PRODUCTION = "approve_production_rollout"  # create, approve and start anything aimed at production devices
MANAGE_ENDPOINTS = "manage_endpoints"
MANAGE_USERS = "manage_users"

VIEWER, OPERATOR, ADMIN = "viewer", "operator", "admin"

ROLE_PERMISSIONS: dict[str, tuple[str, ...]] = {
    VIEWER: (VIEW,),
    OPERATOR: (VIEW, OPERATE, EDIT_INVENTORY, EDIT_INTENTS),
    ADMIN: (VIEW, OPERATE, EDIT_INVENTORY, EDIT_INTENTS, APPROVE_PRODUCTION, MANAGE_ENDPOINTS, MANAGE_USERS),
}


def roles_with(codename: str) -> list[str]:
    """The built-in roles that hold a capability, lowest first (what a 403 page tells the user to ask for)."""
    return [role for role in (VIEWER, OPERATOR, ADMIN) if codename in ROLE_PERMISSIONS[role]]


def capability_refusal(codename: str, action: str = "do this") -> str:
    """The one sentence every refused UI action says: what was refused, the capability and the roles that hold it."""
    roles = roles_with(codename)
    names = f"{', '.join(roles[:-1])} and {roles[-1]}" if len(roles) > 1 else "".join(roles)
    who = f"the {names} role{'s' if len(roles) > 1 else ''}" if roles else "no built-in role"
    return f"Your role may not {action}: it needs the {codename!r} permission, which {who} grant{'' if len(roles) > 1 else 's'}."


def perm(codename: str) -> str:
    """The full permission name a user is checked against, e.g. ``common.operate_fabric``."""
    return f"{CAPABILITY_APP}.{codename}"


@transaction.atomic
def roles_ensure() -> dict[str, list[str]]:
    """Create the viewer/operator/admin groups with exactly their permissions; returns role -> codenames."""
    # Permissions are normally created after migrate; create them now so this also works mid-migration.
    create_permissions(apps.get_app_config(CAPABILITY_APP), verbosity=0)
    permissions = {p.codename: p for p in Permission.objects.filter(content_type__app_label=CAPABILITY_APP)}
    out: dict[str, list[str]] = {}
    for role, codenames in ROLE_PERMISSIONS.items():
        group, _ = Group.objects.get_or_create(name=role)
        group.permissions.remove(*[p for p in permissions.values() if p.codename not in codenames])
        group.permissions.add(*[permissions[codename] for codename in codenames])
        out[role] = list(codenames)
    return out


def roles_ensure_after_migrate(sender, **kwargs) -> None:
    roles_ensure()


def user_role(user) -> str:
    """The highest role the user holds, for display ("superuser" / "admin" / ... / "none")."""
    if not user.is_authenticated:
        return "anonymous"
    if user.is_superuser:
        return "superuser"
    for role in (ADMIN, OPERATOR, VIEWER):
        if user.has_perm(perm(ROLE_PERMISSIONS[role][-1])) and all(
                user.has_perm(perm(code)) for code in ROLE_PERMISSIONS[role]):
            return role
    return "none"
