"""The personal API tokens page: issue a token for automation (shown once), list and revoke one's own tokens.

Tokens are knox tokens (common.tokens: stored hashed, expire after FT_API_TOKEN_TTL_HOURS) and carry the user's
role, so any logged-in user may hold them; the API route is POST /api/auth/login/ with the password.
"""

from django.contrib import messages
from django.shortcuts import redirect, render

from common.tokens import token_issue, token_list_of, token_revoke

from .common import viewer


@viewer
def token_list(request):
    issued = None
    if request.method == "POST":
        if request.POST.get("action") == "create":
            # rendered, not redirected: the clear token is never put in a message or the session
            issued, _ = token_issue(user=request.user)
        else:
            key = request.POST.get("token_key", "")
            if token_revoke(user=request.user, token_key=key):
                messages.success(request, f"Revoked token {key}….")
            else:
                messages.error(request, f"No token {key!r} of yours to revoke.")
            return redirect("ui:token_list")
    tokens = token_list_of(user=request.user)
    return render(request, "ui/tokens.html", {"section": "tokens", "title": "API tokens", "tokens": tokens,
                                              "issued": issued})
