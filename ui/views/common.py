"""What every UI view shares: the role checks and small helpers.

Reads need ``common.view_fabric_data``; writes name their capability. Anonymous users are redirected to the log-in
page; a logged-in user without the capability gets 403 (checked here, server-side, whatever the page shows).
"""

from __future__ import annotations

from collections.abc import Callable
from functools import wraps

from django.contrib.auth.decorators import login_required
from django.core.exceptions import PermissionDenied
from django.core.paginator import Paginator
from django.http import HttpRequest
from django.shortcuts import get_object_or_404

from common.roles import VIEW, capability_refusal, perm
from inventory import selectors as inventory_selectors
from inventory.models import Fabric

PAGE_SIZE = 100


def requires(codename: str, *, methods: tuple[str, ...] | None = None) -> Callable:
    """Log-in plus one capability. With ``methods`` only those HTTP methods need it (GET shows, POST writes)."""

    def decorator(view: Callable) -> Callable:
        @wraps(view)
        def wrapped(request: HttpRequest, *args, **kwargs):
            if not request.user.has_perm(perm(VIEW)):
                raise PermissionDenied(capability_refusal(VIEW, "read Fabric Twin"))
            if (methods is None or request.method in methods) and not request.user.has_perm(perm(codename)):
                raise PermissionDenied(capability_refusal(codename))
            return view(request, *args, **kwargs)

        wrapped.required_capability = codename  # tests/ui/test_ui_views.py: every UI view declares one
        return login_required(wrapped)

    return decorator


def viewer(view: Callable) -> Callable:
    return requires(VIEW)(view)


def fabric_or_404(name: str) -> Fabric:
    return get_object_or_404(inventory_selectors.fabric_list(), name=name)


def paginate(request: HttpRequest, queryset, size: int = PAGE_SIZE):
    return Paginator(queryset, size).get_page(request.GET.get("page"))
