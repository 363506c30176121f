"""The audit trail: who changed what, when.

Two sources write AuditLog rows: post_save/post_delete signal handlers for the models of the inventory, intents
and changes apps (connected from ChangesConfig.ready, so those apps need no edits), and services, which record
rollout actions explicitly. The acting user comes from a context variable set by ``AuditActorMiddleware``
(resolved lazily so DRF token authentication, which happens inside the view, is seen) or by ``audit_actor()``
in commands, tasks and tests.
"""

from __future__ import annotations

import contextlib
import contextvars
import datetime
import decimal
import uuid

from django.db import models

from common.redaction import REDACTED, is_secret_name, redact, redact_text

from .choices import AuditActionChoices
from .models import AuditLog

# Apps whose every save/delete is audited. Changes' own models are audited explicitly by the services (steps are
# written too often to log each save; the rollout state changes are what matters).
AUDITED_APPS = ("inventory", "intents")
AUDITED_CHANGES_MODELS = ("changeset", "deviceendpoint")
_MAX_VALUE_CHARS = 500

_actor: contextvars.ContextVar = contextvars.ContextVar("fabric_twin_audit_actor", default=None)


@contextlib.contextmanager
def audit_actor(user_or_request):
    """Attribute audit rows written inside the block to this user (or to the user of this request)."""
    token = _actor.set(user_or_request)
    try:
        yield
    finally:
        _actor.reset(token)


class AuditActorMiddleware:
    """Remember the request so signal handlers can attribute saves to ``request.user``."""

    def __init__(self, get_response):
        self.get_response = get_response

    def __call__(self, request):
        with audit_actor(request):
            return self.get_response(request)


def current_user():
    actor = _actor.get()
    if actor is None:
        return None
    user = getattr(actor, "user", actor)  # a request (DRF sets request._request.user after authenticating)
    if user is None or not getattr(user, "is_authenticated", False):
        return None
    return user


def audit_record(*, action: str, instance=None, object_type: str = "", object_id: str = "", changes=None,
                 message: str = "", user=None) -> AuditLog:
    user = user or current_user()
    if instance is not None:
        object_type = object_type or instance._meta.label_lower
        object_id = object_id or str(instance.pk)
    return AuditLog.objects.create(
        user=user if user is not None and user.pk else None,
        username=getattr(user, "get_username", lambda: "")() if user is not None else "",
        action=action,
        object_type=object_type,
        object_id=object_id,
        # Secrets never reach the trail, whoever calls: by key pattern and by value (common.redaction).
        object_repr=redact_text(str(instance))[:200] if instance is not None else "",
        changes=redact(changes or {}),
        message=redact_text(message),
    )


def snapshot_fields(instance) -> dict:
    """A JSON-safe copy of the concrete fields, secrets redacted (before any cut, so no partial secret) and long
    values cut."""
    values = {}
    for field in instance._meta.concrete_fields:
        name = field.attname
        value = getattr(instance, name)
        values[name] = REDACTED if is_secret_name(name) and value not in (None, "") else _jsonable(redact(value))
    return values


def _jsonable(value):
    if value is None or isinstance(value, (bool, int, float)):
        return value
    if isinstance(value, (datetime.date, datetime.datetime, datetime.time, decimal.Decimal, uuid.UUID)):
        return str(value)
    if isinstance(value, (dict, list)):
        text = repr(value)
        return value if len(text) <= _MAX_VALUE_CHARS else text[:_MAX_VALUE_CHARS] + "..."
    text = str(value)
    return text if len(text) <= _MAX_VALUE_CHARS else text[:_MAX_VALUE_CHARS] + "..."


def _is_audited(sender) -> bool:
    meta = getattr(sender, "_meta", None)
    if meta is None or meta.auto_created:
        return False
    if meta.app_label in AUDITED_APPS:
        return True
    return meta.app_label == "changes" and meta.model_name in AUDITED_CHANGES_MODELS


def _on_post_save(sender, instance, created, raw=False, **kwargs):
    if raw or not _is_audited(sender):  # raw: loaddata fixtures
        return
    action = AuditActionChoices.CREATE if created else AuditActionChoices.UPDATE
    audit_record(action=action, instance=instance, changes=snapshot_fields(instance))


def _on_post_delete(sender, instance, **kwargs):
    if not _is_audited(sender):
        return
    audit_record(action=AuditActionChoices.DELETE, instance=instance, changes=snapshot_fields(instance))


def connect_audit_signals() -> None:
    """Connect once for every model (dispatch_uid makes it idempotent); the handlers filter by app."""
    models.signals.post_save.connect(_on_post_save, dispatch_uid="changes_audit_post_save")
    models.signals.post_delete.connect(_on_post_delete, dispatch_uid="changes_audit_post_delete")
