"""Small display helpers: status pills, roles, config highlighting."""

from django import template
from django.urls import reverse
from django.utils.html import format_html

from common.roles import user_role
from common.runs import RunStatus
from ui.highlight import highlight_config, highlight_diff
from validators.findings import describe_examined

register = template.Library()


@register.filter
def pill(status) -> str:
    """A coloured pill for any status word (passed, failed, running, error, ...)."""
    text = str(status or "unknown")
    css = text.lower().replace(" ", "_").replace("-", "_")
    return format_html('<span class="pill {}">{}</span>', css, text.replace("_", " "))


@register.filter
def shown(value) -> str:
    """A finding's expected/actual value as an engineer reads it (issue #30 point 6: tables printed raw ``None``
    and Python dicts): nothing -> "—", a mapping -> "key value; key value", a list -> "a, b", a bool -> yes/no."""
    if value is None or value == "" or value == [] or value == {}:
        return "—"
    if isinstance(value, bool):
        return "yes" if value else "no"
    if isinstance(value, dict):
        return "; ".join(f"{key} {shown(item)}" for key, item in value.items())
    if isinstance(value, (list, tuple, set, frozenset)):
        return ", ".join(shown(item) for item in value)
    return str(value)


@register.simple_tag
def history_link(instance) -> str:
    """" · change history" after a detail page's crumbs: the object's audit trail (ui.views.search.history)."""
    url = reverse("ui:history", args=[instance._meta.label_lower, instance.pk])
    return format_html(' · <a class="history" href="{}">change history</a>', url)


@register.filter
def examined(counts) -> str:
    """What a check examined ({"BGP neighbors": 48} -> "48 BGP neighbors"); empty when it examined nothing."""
    return describe_examined(counts) if counts and any(counts.values()) else ""


@register.filter
def role(user) -> str:
    return user_role(user)


@register.filter
def highlight(text: str, language: str = "eos"):
    return highlight_config(text or "", language)


@register.filter
def diffhighlight(text: str):
    return highlight_diff(text or "")


@register.filter
def get_item(mapping, key):
    return mapping.get(key) if hasattr(mapping, "get") else None


@register.simple_tag(takes_context=True)
def query_with(context, **changes) -> str:
    """The current query string with ``changes`` applied (for filter links and pagination)."""
    query = context["request"].GET.copy()
    for key, value in changes.items():
        if value in (None, ""):
            query.pop(key, None)
        else:
            query[key] = value
    encoded = query.urlencode()
    return f"?{encoded}" if encoded else "?"


@register.filter
def make_list_words(text: str) -> list[str]:
    return text.split()


@register.filter
def verdict(run) -> str:
    """A validation run as one pill: passed / failed (the fabric), or the run's own state (running, error)."""
    if run is None:
        return format_html('<span class="pill none">never run</span>')
    status = getattr(run, "status", "")
    if status == RunStatus.SUCCEEDED:
        return pill("passed" if run.ok else "failed")
    if status == RunStatus.FAILED:
        return format_html('<span class="pill error" title="{}">run error</span>', getattr(run, "error", ""))
    return pill(status)


@register.filter
def linecount(text: str) -> int:
    return len((text or "").splitlines())
