"""Twin operations (twins.TwinOperation run records) on a real twin, the way the UI's buttons run them:
recorded, executed through common.runs.run_execute, succeeded with their measurements, or failed with the domain
error (recorded, not raised) when the twin is not running. Root + FRR + ip netns; otherwise skipped."""

import pytest

from twins import services
from twins.models import TwinOperation
from ui import integrations

pytestmark = [pytest.mark.twin, pytest.mark.django_db]


def test_up_ping_down_as_recorded_operations(twin_required, twin_intent, twin_place, twin_leftovers,
                                             django_user_model):
    user = django_user_model.objects.create_user(username="twin-operator")
    twin = services.twin_get_or_create(fabric_intent=twin_intent, **twin_place)  # a private prefix and state
    fabric = twin_intent.fabric
    try:
        up = integrations.twin_action(fabric, "up", user=user)
        assert isinstance(up, TwinOperation), up
        assert up.status == "succeeded", up.error
        assert up.result["switches"] == 6 and up.result["converge_s"] is not None
        assert up.requested_by == user and up.prefix == twin.prefix and up.duration_s > 0
        ping = integrations.twin_action(fabric, "ping", user=user)
        assert ping.status == "succeeded" and ping.result["ok"] is True, ping.result
        down = integrations.twin_action(fabric, "down", user=user)
        assert down.status == "succeeded", down.error
    finally:
        services.twin_down(twin=twin, force=True)
    assert twin_leftovers(twin.prefix) == {"namespaces": [], "frr_dirs": [], "processes": []}
    # Broken on purpose: live checks on a twin that is down fail the operation with the reason, nothing raised.
    refused = integrations.twin_action(fabric, "ping", user=user)
    assert refused.status == "failed" and "is not running" in refused.error and refused.finished is not None
    assert list(TwinOperation.objects.filter(fabric=fabric.name).values_list("kind", "status")) == [
        ("ping", "failed"), ("down", "succeeded"), ("ping", "succeeded"), ("up", "succeeded")]
