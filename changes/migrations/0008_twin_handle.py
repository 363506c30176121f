"""The Twin row is the handle of a twin change set, rollout and twin-driven endpoint (issue #28 point 3).

Before, a twin rollout named its twin by ``policy.twin_prefix`` (+ ``policy.twin_state_dir``), a twin-driven
DeviceEndpoint by ``optional_args.twin_prefix`` (+ ``twin_state_dir``), and a twin change set not at all. Forward:
each rollout whose prefix is a Twin row's gets that twin and loses the two policy keys; each endpoint likewise
gets ``optional_args.twin`` (the Twin id); a change set gets the twin of the twin rollouts made from it, or else,
when every device of it is twin-driven, the netns twin of the fabric intent it was compiled from. A prefix no Twin
row has (a bare labs twin of a test) is kept as it was, for the record: such a rollout cannot run again. Backward
puts the keys back from the twin.
"""

from django.db import migrations, models

RETIRED = ("twin_prefix", "twin_state_dir")


def _twins(Twin) -> dict[int, tuple[str, str]]:
    """Twin id -> (prefix, state_dir). Only these columns: a later twins migration may have changed the others
    (a backward run sees the table as it is, not as of this migration)."""
    return {pk: (prefix, state_dir) for pk, prefix, state_dir in Twin.objects.values_list("id", "prefix", "state_dir")}


def _forward(apps, schema_editor):
    Twin = apps.get_model("twins", "Twin")
    Rollout = apps.get_model("changes", "Rollout")
    ChangeSet = apps.get_model("changes", "ChangeSet")
    DeviceEndpoint = apps.get_model("changes", "DeviceEndpoint")
    by_prefix = {prefix: pk for pk, (prefix, _) in _twins(Twin).items()}
    for rollout in Rollout.objects.filter(target="twin", twin__isnull=True).iterator():
        twin_id = by_prefix.get((rollout.policy or {}).get("twin_prefix") or "")
        if twin_id is not None:
            rollout.twin_id = twin_id
            rollout.policy = {key: value for key, value in rollout.policy.items() if key not in RETIRED}
            rollout.save(update_fields=["twin", "policy"])
    for endpoint in DeviceEndpoint.objects.filter(driver="twin").iterator():
        options = endpoint.optional_args or {}
        twin_id = by_prefix.get(options.get("twin_prefix") or "")
        if twin_id is not None:
            endpoint.optional_args = {**{key: value for key, value in options.items() if key not in RETIRED},
                                      "twin": twin_id}
            endpoint.save(update_fields=["optional_args"])
    for change_set in ChangeSet.objects.filter(twin__isnull=True).iterator():
        twin_id = (Rollout.objects.filter(change_set=change_set, twin__isnull=False).order_by("id")
                   .values_list("twin_id", flat=True).first())
        drivers = set(change_set.devices.values_list("driver", flat=True))
        if twin_id is None and drivers == {"twin"}:
            twin_id = (Twin.objects.filter(fabric_intent__name=change_set.fabric_name, engine="netns")
                       .values_list("id", flat=True).first())
        if twin_id is not None:
            change_set.twin_id = twin_id
            change_set.save(update_fields=["twin"])


def _backward(apps, schema_editor):
    Rollout = apps.get_model("changes", "Rollout")
    DeviceEndpoint = apps.get_model("changes", "DeviceEndpoint")
    twins = _twins(apps.get_model("twins", "Twin"))

    def keys(twin_id) -> dict:
        prefix, state_dir = twins[twin_id]
        return {"twin_prefix": prefix, **({"twin_state_dir": state_dir} if state_dir else {})}

    for rollout in Rollout.objects.filter(twin__isnull=False).iterator():
        rollout.policy = {**rollout.policy, **keys(rollout.twin_id)}
        rollout.save(update_fields=["policy"])
    for endpoint in DeviceEndpoint.objects.filter(driver="twin").iterator():
        options = dict(endpoint.optional_args or {})
        twin_id = options.pop("twin", None)
        if twin_id in twins:
            endpoint.optional_args = {**options, **keys(twin_id)}
            endpoint.save(update_fields=["optional_args"])


class Migration(migrations.Migration):
    dependencies = [
        ("changes", "0007_device_secrets_redacted"),
        ("twins", "0006_twinoperation_rehearsal"),
    ]

    operations = [
        migrations.AddField(
            model_name="changeset",
            name="twin",
            field=models.ForeignKey(blank=True, help_text="twin target: the twin whose running configs it was read "
                                                          "from", null=True,
                                    on_delete=models.deletion.SET_NULL, related_name="change_sets", to="twins.twin"),
        ),
        migrations.AddField(
            model_name="rollout",
            name="twin",
            field=models.ForeignKey(blank=True, help_text="twin target: the twin it pushes to", null=True,
                                    on_delete=models.deletion.SET_NULL, related_name="rollouts", to="twins.twin"),
        ),
        migrations.RunPython(_forward, _backward),
    ]
