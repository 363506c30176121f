"""Generic API test mixins (NetBox's utilities/testing/api.py idea): a model's API test is a few declarations.

A test class sets ``basename`` (router basename), ``model``, and implements ``make(index)`` (create one saved
object), ``create_data()`` (a valid POST body), ``update_data`` (a valid PATCH body) and ``bad_data`` (a POST
body that must be refused with a 400 naming ``bad_field``). Optional: ``duplicate_of(obj)`` returns a body that
collides with ``obj`` on a unique field (must be a 400, never an IntegrityError 500).
"""

from __future__ import annotations

import pytest
from django.db import connection
from django.test.utils import CaptureQueriesContext
from django.urls import reverse
from rest_framework.test import APIClient


class APIViewTestMixin:
    basename: str
    model = None
    update_data: dict = {}
    bad_data: dict = {}
    bad_field: str = ""

    def make(self, index: int):
        raise NotImplementedError

    def create_data(self) -> dict:
        raise NotImplementedError

    def duplicate_of(self, obj) -> dict | None:
        return None

    def list_url(self) -> str:
        return reverse(f"{self.basename}-list")

    def detail_url(self, obj) -> str:
        return reverse(f"{self.basename}-detail", kwargs={"pk": obj.pk})

    # ----------------------------------------------------------------------------------------- tests

    def test_unauthenticated_is_401(self, db):
        response = APIClient().get(self.list_url())
        assert response.status_code == 401

    def test_list_paginates_with_a_constant_number_of_queries(self, api_client, django_assert_num_queries):
        for index in range(2):
            self.make(index)
        with CaptureQueriesContext(connection) as small:
            response = api_client.get(self.list_url())
        assert response.status_code == 200
        assert response.data["count"] == self.model.objects.count()
        for index in range(2, 12):
            self.make(index)
        with django_assert_num_queries(len(small.captured_queries)):
            response = api_client.get(self.list_url(), {"limit": 50})
        assert response.status_code == 200 and len(response.data["results"]) == self.model.objects.count()

    def test_get_object(self, api_client):
        obj = self.make(0)
        response = api_client.get(self.detail_url(obj))
        assert response.status_code == 200
        assert response.data["id"] == obj.pk and response.data["display"] == str(obj)

    def test_create_object(self, api_client):
        before = self.model.objects.count()
        response = api_client.post(self.list_url(), self.create_data(), format="json")
        assert response.status_code == 201, response.data
        assert self.model.objects.count() == before + 1

    def test_create_with_bad_data_is_400_naming_the_field(self, api_client):
        body = {**self.create_data(), **self.bad_data}
        before = self.model.objects.count()
        response = api_client.post(self.list_url(), body, format="json")
        assert response.status_code == 400, response.data
        assert self.bad_field in response.data, response.data
        assert self.model.objects.count() == before

    def test_duplicate_is_400_not_500(self, api_client):
        obj = self.make(0)
        body = self.duplicate_of(obj)
        if body is None:
            pytest.skip(f"{self.model.__name__} has no unique field besides its id")
        response = api_client.post(self.list_url(), body, format="json")
        assert response.status_code == 400, response.data

    def test_update_object(self, api_client):
        obj = self.make(0)
        response = api_client.patch(self.detail_url(obj), self.update_data, format="json")
        assert response.status_code == 200, response.data
        obj.refresh_from_db()
        for name, value in self.update_data.items():
            current = getattr(obj, f"{name}_id", None) if hasattr(obj, f"{name}_id") else getattr(obj, name)
            assert current == value

    def test_delete_object(self, api_client):
        obj = self.make(0)
        response = api_client.delete(self.detail_url(obj))
        assert response.status_code == 204
        assert not self.model.objects.filter(pk=obj.pk).exists()
