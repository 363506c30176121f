"""The one authorisation policy: which capability every API operation and every UI action needs.

Capabilities are the ``common.<codename>`` permissions declared on ``common.models.Capability`` and granted to the viewer /
operator / admin groups by ``common.roles``. This module owns the other half: the table from each API view and action
to the capability it requires (``API_POLICY``), and the rollout rules the UI shares with the API
(``ROLLOUT_ACTIONS``). ``PolicyPermission`` is DRF's DEFAULT_PERMISSION_CLASSES, so a view or action without an
entry here is refused for everyone (fail closed) and the authz matrix test (tests/test_authz_matrix.py) fails.

Adding an endpoint: add its view to ``API_POLICY`` with one capability per action (docs/security.md).
"""

from __future__ import annotations

import logging
from collections.abc import Mapping
from dataclasses import dataclass

from rest_framework.permissions import BasePermission

from common.choices import RolloutTargetChoices
from common.roles import (
    APPROVE_PRODUCTION,
    EDIT_INTENTS,
    EDIT_INVENTORY,
    MANAGE_ENDPOINTS,
    MANAGE_USERS,
    OPERATE,
    VIEW,
    perm,
)

__all__ = (
    "API_POLICY", "ByTarget", "CapabilityAdminMixin", "PolicyPermission", "ROLLOUT_ACTIONS", "Rule",
    "rollout_capability", "rule_for_view", "user_has", "view_key",
    # the capabilities (declared in common.models.Capability, granted in common.roles), re-exported for policy users
    "APPROVE_PRODUCTION", "EDIT_INTENTS", "EDIT_INVENTORY", "MANAGE_ENDPOINTS", "MANAGE_USERS", "OPERATE", "VIEW",
)

logger = logging.getLogger(__name__)

@dataclass(frozen=True)
class ByTarget:
    """A capability that depends on what the operation touches: ``twin`` for the twin (or any non-production
    target), ``production`` when the request body or the object names ``target: production``."""

    twin: str
    production: str

    def for_target(self, target: object) -> str:
        return self.production if target == RolloutTargetChoices.PRODUCTION else self.twin


Rule = str | ByTarget  # a capability codename, or one chosen by the operation's target

READ = {"list": VIEW, "retrieve": VIEW}


def crud(write: str) -> dict[str, Rule]:
    """A model viewset: reads need the viewer capability, every write ``write``."""
    return {**READ, "create": write, "update": write, "partial_update": write, "destroy": write}


# What a production rollout or change set needs; stopping one (pause, cancel) is always allowed to an operator,
# because a human who sees a rollout going wrong must be able to stop it without waiting for an admin.
ROLLOUT_ACTIONS: Mapping[str, Rule] = {
    "create": ByTarget(twin=OPERATE, production=APPROVE_PRODUCTION),
    "approve": APPROVE_PRODUCTION,
    "start": ByTarget(twin=OPERATE, production=APPROVE_PRODUCTION),
    "resume": ByTarget(twin=OPERATE, production=APPROVE_PRODUCTION),
    "pause": OPERATE,
    "cancel": OPERATE,
}

# view (module.QualifiedName) -> action (viewset action, or lower-case HTTP method of an APIView) -> rule.
API_POLICY: Mapping[str, Mapping[str, Rule]] = {
    # the API root of the routers: a list of links
    "rest_framework.routers.APIRootView": {"get": VIEW},
    # inventory: operators edit and build it
    "inventory.api.views.SiteViewSet": crud(EDIT_INVENTORY),
    "inventory.api.views.FabricViewSet": {**crud(EDIT_INVENTORY), "build": EDIT_INVENTORY, "physical": VIEW},
    "inventory.api.views.FabricBuildViewSet": READ,  # build records: written only by the build action
    "inventory.api.views.RackViewSet": crud(EDIT_INVENTORY),
    "inventory.api.views.SwitchModelViewSet": crud(EDIT_INVENTORY),
    "inventory.api.views.PlatformViewSet": crud(EDIT_INVENTORY),
    "inventory.api.views.SwitchViewSet": crud(EDIT_INVENTORY),
    "inventory.api.views.InterfaceViewSet": crud(EDIT_INVENTORY),
    "inventory.api.views.OpticViewSet": crud(EDIT_INVENTORY),
    "inventory.api.views.CableViewSet": crud(EDIT_INVENTORY),
    "inventory.api.views.ServerViewSet": crud(EDIT_INVENTORY),
    "inventory.api.views.NicPortViewSet": crud(EDIT_INVENTORY),
    # NetBox re-sync runs: operators start one (dry run by default); NetBox's webhook carries an operator's token
    # and the HMAC signature of its secret (both checked)
    "inventory.api.views.NetboxSyncViewSet": {**READ, "sync": EDIT_INVENTORY, "webhook": EDIT_INVENTORY},
    # intents: operators edit them and compile; previews of an edit need the edit capability
    "intents.api.views.FabricIntentViewSet": {
        **crud(EDIT_INTENTS), "compile": OPERATE, "config": VIEW, "host": VIEW, "diff": VIEW, "archive": VIEW,
        "blast_radius": EDIT_INTENTS, "roce_defaults": EDIT_INTENTS, "allocate": EDIT_INTENTS,
        "identity": VIEW},
    # adopting a running fabric writes its inventory and its intent
    "intents.api.adopt.FabricAdoptView": {"post": EDIT_INVENTORY},
    "intents.api.views.TenantViewSet": crud(EDIT_INTENTS),
    "intents.api.views.NetworkViewSet": crud(EDIT_INTENTS),
    "intents.api.views.RoceClassViewSet": crud(EDIT_INTENTS),
    "intents.api.views.AllocationViewSet": READ,
    "intents.api.views.CompileRunViewSet": {**READ, "destroy": OPERATE, "archive": VIEW, "mark_deployed": OPERATE},
    "intents.api.views.DeviceConfigViewSet": READ,
    # validation and the twin: operators run them
    "validation.api.views.ValidationRunViewSet": {**READ, "create": OPERATE, "destroy": OPERATE, "report": VIEW,
                                                  "findings": VIEW, "configs": OPERATE},
    # a bounded prediction that stores nothing, but CPU is spent on request: operators run it, as configs above
    "validation.api.views.CollectiveView": {"post": OPERATE},
    "twins.api.views.TwinViewSet": {**READ, "create": OPERATE, "up": OPERATE, "down": OPERATE, "check": OPERATE,
                                    "inject": OPERATE, "fidelity": OPERATE, "live_status": VIEW, "shards": VIEW},
    "twins.api.views.TwinOperationViewSet": READ,
    # change pipelines: production needs an admin (and approval by a second person, see changes.services)
    "changes.api.views.ChangeSetViewSet": {**READ, "create": ROLLOUT_ACTIONS["create"]},
    "changes.api.views.RolloutViewSet": {
        **READ, "steps": VIEW, "progress": VIEW, "anta_catalog": VIEW,
        **{action: rule for action, rule in ROLLOUT_ACTIONS.items() if action != "resume"}},
    "changes.api.views.DriftViewSet": {"list": VIEW},
    # viewers read the audit log: changes.audit drops credential fields by name when it writes an entry (secrets
    # nested in other fields, e.g. DeviceEndpoint.optional_args, are the secrets part of issue #12)
    "changes.api.views.AuditLogViewSet": READ,
    # device endpoints hold credentials (write-only in the API): admins only, reads included
    "changes.api.views.DeviceEndpointViewSet": {key: MANAGE_ENDPOINTS for key in crud(MANAGE_ENDPOINTS)},
    # a user's own API tokens (common.tokens): anyone who may read the API manages their own tokens
    "common.tokens.TokenLoginView": {"post": VIEW},
    "common.tokens.TokenRotateView": {"post": VIEW},
    "common.tokens.TokenLogoutView": {"post": VIEW},
    "common.tokens.TokenLogoutAllView": {"post": VIEW},
}

# Actions every policed view answers with the viewer capability: OPTIONS describes the endpoint, nothing more.
ALWAYS_VIEW = {"metadata": VIEW, "options": VIEW}


def view_key(view_class: type) -> str:
    return f"{view_class.__module__}.{view_class.__qualname__}"


def view_action(view) -> str | None:
    """The action a request asks of a view: a viewset's ``action``, else the lower-case HTTP method."""
    if hasattr(view, "action_map") or hasattr(view, "action"):
        return getattr(view, "action", None)
    return view.request.method.lower() if getattr(view, "request", None) is not None else None


def rule_for_view(view_class: type, action: str | None) -> Rule | None:
    """The rule of one view action; None when the policy does not name it (the request is then refused)."""
    if action in ALWAYS_VIEW and view_key(view_class) in API_POLICY:
        return ALWAYS_VIEW[action]
    return API_POLICY.get(view_key(view_class), {}).get(action or "")


def user_has(user, capability: str) -> bool:
    """The one capability check: a reader (viewer capability) who also holds ``capability``."""
    return bool(user and user.is_authenticated and user.has_perm(perm(VIEW)) and user.has_perm(perm(capability)))


class CapabilityAdminMixin:
    """A Django admin (/admin/, staff only) page whose every view, add, change and delete needs one capability,
    so the admin site follows the roles too: device endpoints need MANAGE_ENDPOINTS, users MANAGE_USERS."""

    capability: str  # set by each admin class; a class that forgets it fails on first use, never allows

    def has_module_permission(self, request) -> bool:
        return user_has(request.user, self.capability)

    def has_view_permission(self, request, obj=None) -> bool:
        return user_has(request.user, self.capability)

    def has_add_permission(self, request, *args) -> bool:
        return user_has(request.user, self.capability)

    def has_change_permission(self, request, obj=None) -> bool:
        return user_has(request.user, self.capability)

    def has_delete_permission(self, request, obj=None) -> bool:
        return user_has(request.user, self.capability)


def rollout_capability(action: str, *, target: object) -> str:
    """The capability a rollout action needs for a rollout with ``target`` (UI and API share this)."""
    rule = ROLLOUT_ACTIONS[action]
    return rule.for_target(target) if isinstance(rule, ByTarget) else rule


def _request_target(request) -> object:
    data = request.data
    return data.get("target") if isinstance(data, Mapping) else None


class PolicyPermission(BasePermission):
    """DRF permission of every API view: the capability ``API_POLICY`` names for the view's action.

    Unauthenticated: refused (401 with the token header). A view or action missing from the table: refused for
    everyone, logged (fail closed). A ``ByTarget`` rule is checked against the request body's ``target`` before
    the view runs and against the object's ``target`` when the view loads it (``get_object``)."""

    message = "Your role may not do this."

    def has_permission(self, request, view) -> bool:
        if not (request.user and request.user.is_authenticated):
            return False
        action = view_action(view)
        if action is None and hasattr(view, "action_map"):
            return self._has(request, VIEW)  # a method the viewset does not route: DRF answers 405, nothing runs
        rule = rule_for_view(type(view), action)
        if rule is None:
            logger.warning("authz: %s action %r has no policy in common.policy.API_POLICY: refused",
                           view_key(type(view)), action)
            self.message = (f"No authorisation policy for {view_key(type(view))} action {action!r}: refused "
                            f"(add it to common.policy.API_POLICY).")
            return False
        capability = rule.for_target(_request_target(request)) if isinstance(rule, ByTarget) else rule
        return self._has(request, capability)

    def has_object_permission(self, request, view, obj) -> bool:
        rule = rule_for_view(type(view), view_action(view))
        if isinstance(rule, ByTarget):
            return self._has(request, rule.for_target(getattr(obj, "target", None)))
        return True  # has_permission already checked the plain capability

    def _has(self, request, capability: str) -> bool:
        if user_has(request.user, capability):
            return True
        self.message = f"Your role may not do this (needs the {capability!r} permission)."
        return False
