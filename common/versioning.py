"""Optimistic concurrency for every editable object: the one home of the ``version`` column and its check.

Every editable model (inventory, intents) inherits ``VersionedModel``. Its ``save()`` turns the version the
instance was read at into a claim: one conditional ``UPDATE ... SET version = version + 1 WHERE id = %s AND
version = <claimed>`` runs first, in the save's transaction. If another writer saved the row since, no row
matches and ``StaleVersionError`` is raised before anything is written; if the row matches, that UPDATE holds
the row lock until commit, so a concurrent writer with the same claim waits and then matches nothing.
This is the last line of defence for every write path (API, UI, admin, services, commands); the API
additionally locks and compares up front to answer 409/412 with a useful body (common/api.py), and edit forms
(UI and admin) carry the version they were opened on (``VersionedModelForm`` below).

Bulk writers that bypass ``save()`` (``QuerySet.update``/``bulk_update``) bump the column with
``version_bump()`` so an edit form opened before them is refused too.
"""

from __future__ import annotations

import datetime
from dataclasses import dataclass

from django import forms
from django.apps import apps
from django.contrib import admin
from django.db import models, router, transaction

from compiler.errors import FabricTwinError

__all__ = ("VersionedModel", "StaleVersionError", "LastChange", "version_bump", "version_last_change",
           "stale_version_error", "VersionedModelForm", "VersionedAdminForm", "VersionedModelAdmin", "stale_message")


@dataclass(frozen=True)
class LastChange:
    """Who saved an object last and when, from the audit trail (both None when nothing was recorded)."""

    username: str | None = None
    at: datetime.datetime | None = None


class StaleVersionError(FabricTwinError):
    """A write claimed a version the object no longer has: someone else saved it in between (or deleted it)."""

    def __init__(self, *, object_label: str, object_repr: str, pk, claimed: int, current: int | None,
                 last_change: LastChange):
        self.object_label = object_label
        self.object_repr = object_repr
        self.pk = pk
        self.claimed = claimed
        self.current = current
        self.last_change = last_change
        super().__init__(self.message())

    def who(self) -> str:
        """'alice at 2026-11-24 07:10:03 UTC', or 'someone' when the audit trail has no record."""
        who = self.last_change.username or "someone"
        if self.last_change.at is not None:
            who += f" at {self.last_change.at.astimezone(datetime.UTC):%Y-%m-%d %H:%M:%S} UTC"
        return who

    def message(self) -> str:
        if self.current is None:
            return f"{self.object_label} {self.object_repr!r} (id {self.pk}) was deleted by {self.who()}"
        return (f"{self.object_label} {self.object_repr!r} (id {self.pk}) was changed by {self.who()} since you "
                f"read it: you sent version {self.claimed}, the current version is {self.current}")

    def as_dict(self) -> dict:
        return {
            "detail": self.message(),
            "object": self.object_label,
            "id": self.pk,
            "your_version": self.claimed,
            "current_version": self.current,
            "changed_by": self.last_change.username,
            "changed_at": self.last_change.at.isoformat() if self.last_change.at else None,
        }


def version_last_change(model: type[models.Model], pk) -> LastChange:
    """The newest audit entry of the object (changes.AuditLog, written by a post_save signal on every save).

    Looked up through the app registry, not imported: the model modules import this module while the registry
    is still loading, and the audit app imports those models.
    """
    audit_log = apps.get_model("changes", "AuditLog")
    entry = (audit_log.objects.filter(object_type=model._meta.label_lower, object_id=str(pk))
             .order_by("-id").values("username", "at").first())
    if entry is None:
        return LastChange()
    return LastChange(username=entry["username"] or None, at=entry["at"])


def stale_version_error(model: type[models.Model], pk, *, claimed: int, current: int | None, object_repr: str = "",
                        error_class: type[StaleVersionError] = StaleVersionError) -> StaleVersionError:
    return error_class(object_label=str(model._meta.verbose_name), object_repr=object_repr, pk=pk,
                       claimed=claimed, current=current, last_change=version_last_change(model, pk))


def version_bump() -> models.Expression:
    """The value to write to ``version`` in a bulk update: ``version + 1``."""
    return models.F("version") + 1


class VersionedModel(models.Model):
    """An editable object whose every save increments ``version``; a save from a stale read is refused."""

    version = models.PositiveIntegerField(
        default=1, editable=False,
        help_text="Optimistic-concurrency version: 1 on create, +1 on every save. Send it back (the version field "
                  "or If-Match) and a write based on an older read is refused instead of overwriting.")

    class Meta:
        abstract = True

    def save(self, *args, **kwargs):
        update_fields = kwargs.get("update_fields")
        if self._state.adding or self.pk is None or (update_fields is not None and not update_fields):
            return super().save(*args, **kwargs)
        using = kwargs.get("using") or router.db_for_write(type(self), instance=self)
        claimed = self.version
        with transaction.atomic(using=using):
            rows = type(self)._base_manager.using(using).filter(pk=self.pk, version=claimed)
            if not rows.update(version=version_bump()):
                current = (type(self)._base_manager.using(using).filter(pk=self.pk)
                           .values_list("version", flat=True).first())
                raise stale_version_error(type(self), self.pk, claimed=claimed, current=current,
                                          object_repr=str(self))
            self.version = claimed + 1
            try:
                super().save(*args, **kwargs)
            except BaseException:
                self.version = claimed  # the transaction rolls the bump back; keep the instance consistent
                raise


# ------------------------------------------------------------------------------------------------ edit forms


class VersionedModelForm(forms.ModelForm):
    """An edit form that carries the version of the object it was opened on (hidden ``opened_version``).

    On submit the version becomes the instance's claim, so the save refuses the write when someone saved the
    object since the form was opened; the UI view then shows ``stale_message`` and the current values (never
    overwriting silently). A POST without the field (not from our pages) is applied to the current values, like
    an API write without a version. (Not named ``version``: the admin refuses form fields named like a
    non-editable model field.)
    """

    opened_version = forms.IntegerField(widget=forms.HiddenInput, required=False, min_value=1)

    def __init__(self, *args, **kwargs):
        super().__init__(*args, **kwargs)
        if self.instance.pk is not None:
            self.initial["opened_version"] = self.instance.version

    def clean(self):
        cleaned_data = super().clean()
        claimed = cleaned_data.pop("opened_version", None)  # not a value to save: the claim goes on the instance
        if self.instance.pk is not None and claimed is not None:
            self.instance.version = claimed
        return cleaned_data


class VersionedAdminForm(VersionedModelForm):
    """The Django admin's edit form: a stale submit is a form error (the admin cannot re-show other values)."""

    def clean(self):
        cleaned_data = super().clean()
        instance = self.instance
        if instance.pk is not None and "opened_version" in self.data:
            current = (type(instance)._base_manager.filter(pk=instance.pk)
                       .values_list("version", flat=True).first())
            if current != instance.version:
                error = stale_version_error(type(instance), instance.pk, claimed=instance.version, current=current,
                                            object_repr=str(instance))
                raise forms.ValidationError(stale_message(error, self, reload_hint=True))
        return cleaned_data


class VersionedModelAdmin(admin.ModelAdmin):
    """A ModelAdmin whose change form carries the version (inline rows do not: see docs/security.md)."""

    form = VersionedAdminForm


def stale_message(error: StaleVersionError, form: forms.Form, *, reload_hint: bool = False) -> str:
    """'Not saved: <object> was changed by <who> since you opened this form ...' and the edit that was tried."""
    if error.current is None:
        return f"Not saved: {error.object_label} {error.object_repr} was deleted by {error.who()} since you " \
               f"opened this form."
    shown = "Reload the page to see them." if reload_hint else "The form now shows the current values."
    text = (f"Not saved: {error.object_label} {error.object_repr} was changed by {error.who()} since you opened "
            f"this form (you opened version {error.claimed}; it is now version {error.current}). {shown}")
    tried = []
    for name in form.changed_data:
        if name == "opened_version" or name not in form.fields:
            continue
        value = form[name].value()
        value = ", ".join(map(str, value)) if isinstance(value, list | tuple) else value
        tried.append(f"{form.fields[name].label or name}: {value}")
    if tried:
        text += f" Your edit was: {'; '.join(tried)}."
    return text
