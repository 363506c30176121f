"""Fabric Twin Django project package: settings, URLs, the Celery app, ASGI/WSGI entry points."""

from .celery import app as celery_app

__all__ = ("celery_app",)
