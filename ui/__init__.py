"""The web UI for network engineers: server-rendered Django templates with HTMX (vendored, no CDN).

Views stay thin: they call the services and selectors of inventory/, intents/, validation/, labs/ and changes/
through ``ui.integrations``, which reports an app that has not landed as "not available" instead of failing.
Roles (viewer, operator, admin) are Django groups holding the permissions declared in ``common.roles``.
"""
