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

    # ------------------------------------------------------------------ optimistic concurrency (common/api.py)

    def _saved_by_someone_else(self, obj) -> int:
        """Another writer saves the object (version + 1); returns the version this test's client read before."""
        current = type(obj).objects.get(pk=obj.pk)
        read = current.version
        current.save()
        return read

    def test_detail_carries_version_and_etag(self, api_client):
        obj = self.make(0)
        response = api_client.get(self.detail_url(obj))
        current = type(obj).objects.get(pk=obj.pk).version
        assert response.data["version"] == current >= 1
        assert response["ETag"] == f'W/"{current}"'

    def test_write_with_the_current_version_succeeds_and_bumps_it(self, api_client):
        obj = self.make(0)
        etag = api_client.get(self.detail_url(obj))["ETag"]
        current = type(obj).objects.get(pk=obj.pk).version
        response = api_client.patch(self.detail_url(obj), self.update_data, format="json", HTTP_IF_MATCH=etag)
        assert response.status_code == 200, response.data
        assert response.data["version"] == current + 1 and response["ETag"] == f'W/"{current + 1}"'
        response = api_client.patch(self.detail_url(obj), {**self.update_data, "version": current + 1}, format="json")
        assert response.status_code == 200, response.data
        assert response.data["version"] == current + 2

    def test_stale_if_match_is_412_naming_the_current_version(self, api_client):
        obj = self.make(0)
        read = self._saved_by_someone_else(obj)
        response = api_client.patch(self.detail_url(obj), self.update_data, format="json",
                                    HTTP_IF_MATCH=f'W/"{read}"')
        assert response.status_code == 412, response.data
        assert (response.data["your_version"], response.data["current_version"]) == (read, read + 1)
        assert response["ETag"] == f'W/"{read + 1}"'
        assert type(obj).objects.get(pk=obj.pk).version == read + 1  # nothing written

    def test_stale_version_field_is_409_and_nothing_is_saved(self, api_client):
        obj = self.make(0)
        read = self._saved_by_someone_else(obj)
        before = {name: getattr(type(obj).objects.get(pk=obj.pk), name) for name in self.update_data}
        response = api_client.patch(self.detail_url(obj), {**self.update_data, "version": read}, format="json")
        assert response.status_code == 409, response.data
        assert response.data["current_version"] == read + 1 and "since you read it" in response.data["detail"]
        after = type(obj).objects.get(pk=obj.pk)
        assert {name: getattr(after, name) for name in self.update_data} == before

    def test_stale_if_match_refuses_a_delete(self, api_client):
        obj = self.make(0)
        read = self._saved_by_someone_else(obj)
        assert api_client.delete(self.detail_url(obj), HTTP_IF_MATCH=f'W/"{read}"').status_code == 412
        assert type(obj).objects.filter(pk=obj.pk).exists()

    def test_malformed_version_claims_are_400_naming_the_header_or_field(self, api_client):
        obj = self.make(0)
        response = api_client.patch(self.detail_url(obj), self.update_data, format="json", HTTP_IF_MATCH="3")
        assert response.status_code == 400 and "If-Match" in response.data, response.data
        response = api_client.patch(self.detail_url(obj), {**self.update_data, "version": "three"}, format="json")
        assert response.status_code == 400 and "version" in response.data, response.data
