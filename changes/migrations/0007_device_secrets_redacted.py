"""Records written before issue 29 quote device secrets (drift diffs and differences, remediation, change-set
diffs, rollout step output) and keep the rollback copy in clear: rewrite them as they are written now - every secret
a keyed marker (common.redaction.config_text_shown, SONiC patch operations through patch_op_redacted), the rollback
copy encrypted (changes.credentials.running_files_seal). Irreversible by design: the clear values are gone."""

from django.db import migrations

from changes.credentials import is_encrypted, running_files_seal
from changes.drivers.netmiko_sonic import patch_op_redacted
from common.redaction import config_text_shown, redact_text

BATCH = 500


def _shown(value):
    """Strings (at any depth of a JSON value) with every config secret as its marker."""
    if isinstance(value, str):
        return redact_text(config_text_shown(value))
    if isinstance(value, list):
        return [_shown(item) for item in value]
    if isinstance(value, dict):
        return {key: _shown(item) for key, item in value.items()}
    return value


def _remediation_shown(remediation):
    if not remediation:
        return remediation
    out = _shown({key: value for key, value in remediation.items() if key != "config_db_patch"})
    if "config_db_patch" in remediation:
        out["config_db_patch"] = [patch_op_redacted(op) if isinstance(op, dict) and "path" in op else _shown(op)
                                  for op in remediation["config_db_patch"]]
    return out


def redact_records(apps, schema_editor):
    DriftRecord = apps.get_model("changes", "DriftRecord")
    ChangeSetDevice = apps.get_model("changes", "ChangeSetDevice")
    Step = apps.get_model("changes", "Step")
    for record in DriftRecord.objects.order_by("pk").iterator(chunk_size=BATCH):
        DriftRecord.objects.filter(pk=record.pk).update(
            diff=_shown(record.diff), differences=_shown(record.differences),
            remediation=_remediation_shown(record.remediation), error=_shown(record.error))
    for row in ChangeSetDevice.objects.order_by("pk").iterator(chunk_size=BATCH):
        running = row.running_files if is_encrypted(row.running_files) else running_files_seal(row.running_files)
        ChangeSetDevice.objects.filter(pk=row.pk).update(diff=_shown(row.diff), running_files=running)
    for step in Step.objects.order_by("pk").iterator(chunk_size=BATCH):
        Step.objects.filter(pk=step.pk).update(output=_shown(step.output), detail=_shown(step.detail))


class Migration(migrations.Migration):

    dependencies = [
        ('changes', '0006_drift_remediation'),
    ]

    operations = [
        migrations.RunPython(redact_records, migrations.RunPython.noop),
    ]
