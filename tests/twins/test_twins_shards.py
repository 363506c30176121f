"""A sharded twin as a product (issue 35): shard rows, per-host queues, the coordinator's one run record.

- Plan (SQLite, no root): one TwinShard per host with its queue, switches and stitched ends; an underlay too
  small for the stitched cables is refused and nothing is saved; a shard whose worker never answers is lost
  and reported as a partition naming its switches.
- Live (root + FRR, marked ``twin``): the 2x4 twin intent with the worst cut over two emulated hosts, its shard
  tasks run eagerly in-process (no broker): every shard up, the merged answers equal the whole fabric's
  expectations; host b's underlay deleted -> the next check records a partition naming b's leaves, never up;
  down removes every namespace of both shards and of the emulated hosts.
- Worker (Redis + PostgreSQL, else skipped): a real worker consuming ``twin-shard.<host>`` takes the shard task.
"""

from __future__ import annotations

import json
import subprocess
import sys
import uuid
from pathlib import Path

import pytest
from django.core.management import CommandError, call_command

from compiler.errors import InputError, TwinError
from labs import expect, runtime
from labs.stitch import lab_netns
from twins import shards
from twins.choices import TwinShardStateChoices, TwinStatusChoices
from twins.models import Twin, TwinOperation, TwinShard
from twins.selectors import twin_of

pytestmark = pytest.mark.django_db
SHARD_HOST = "ft" + uuid.uuid4().hex[:8]  # unique per run: no other worker consumes its queue


def _plan(twin_intent, twin_place, **options):
    return shards.twin_shards_plan(fabric_intent=twin_intent, hosts="a:1,b:1", worst_cut=True, **twin_place,
                                   **({"emulate": True} if "underlay" not in options else {}), **options)


def test_plan_saves_one_shard_per_host_with_its_queue(twin_intent, twin_place):
    twin = _plan(twin_intent, twin_place)
    rows = list(twin.shards.order_by("index"))
    assert [(row.host, row.prefix, row.switches) for row in rows] == [
        ("a", f"{twin.prefix}s0", ["spine1", "spine2"]),
        ("b", f"{twin.prefix}s1", ["leaf1", "leaf2", "leaf3", "leaf4"])]
    assert [shards.shard_queue(row.host) for row in rows] == ["twin-shard.a", "twin-shard.b"]
    assert len(rows[0].stitch_endpoints) == len(rows[1].stitch_endpoints) == 8  # every leaf-spine cable crosses
    assert {end["remote_host"] for end in rows[0].stitch_endpoints} == {"b"}
    assert rows[1].underlay["netns"] and twin.engine == "sharded" and twin.status == TwinStatusChoices.DOWN


def test_an_underlay_too_small_is_refused_and_nothing_saved(twin_intent, twin_place):
    with pytest.raises(InputError) as error:
        _plan(twin_intent, twin_place, underlay="a=10.0.0.1@eth1:1500,b=10.0.0.2@eth1:9300")
    assert [field_error.field for field_error in error.value.errors] == ["hosts[a].mtu"]
    assert not TwinShard.objects.exists()
    with pytest.raises(InputError, match="unknown host 'c'"):
        _plan(twin_intent, twin_place, underlay="a=10.0.0.1@eth1:9300,c=10.0.0.2@eth1:9300")


def test_a_shard_that_never_answers_is_lost_and_a_partition(twin_intent, twin_place):
    twin = _plan(twin_intent, twin_place)
    rows = list(twin.shards.order_by("index"))
    TwinShard.objects.filter(pk=rows[0].pk).update(state=TwinShardStateChoices.UP)
    TwinShard.objects.filter(pk=rows[1].pk).update(state=TwinShardStateChoices.PENDING)  # sent, never answered
    waited = shards._wait(rows, {}, wait_s=0.2)
    assert [row.state for row in waited] == [TwinShardStateChoices.UP, TwinShardStateChoices.LOST]
    assert "no answer from the worker on twin-shard.b" in waited[1].error
    partition = shards._partition(twin, waited, expect_running=False)
    assert partition["partitioned"] and partition["lost_hosts"] == ["b"]
    assert partition["lost_switches"] == ["leaf1", "leaf2", "leaf3", "leaf4"]
    healthy = shards._partition(twin, waited[:1], expect_running=False)
    assert not healthy["partitioned"]


@pytest.mark.twin
@pytest.mark.usefixtures("twin_required")
def test_sharded_twin_up_partition_and_down(twin_intent, twin_place, twin_leftovers):
    twin = _plan(twin_intent, twin_place)
    rows = list(twin.shards.order_by("index"))
    try:
        operation = shards.twin_shards_up(twin=twin, wait_s=300)
        twin.refresh_from_db()
        assert operation.status == "succeeded" and operation.kind == "shards_up", operation.error
        result = operation.result
        print(f"\nsharded up: {operation.duration_s:.1f} s, converged {twin.converge_s} s (slowest shard), "
              f"boot {twin.boot_s} s (slowest shard)")
        assert twin.status == TwinStatusChoices.UP, json.dumps(result, indent=1, default=str)[:6000]
        assert {host: shard["state"] for host, shard in result["shards"].items()} == {"a": "up", "b": "up"}
        assert all(shard["worker"].startswith("in-process@") for shard in result["shards"].values())
        assert not result["partition"]["partitioned"]
        shard_b = TwinShard.objects.get(pk=rows[1].pk).last_result["report"]
        assert {check["name"]: check["status"] for check in shard_b["checks"]}["twin.stitched_cables"] == "passed"
        # The merged answers are the whole fabric's: every session of every switch, every leaf-to-leaf width.
        topology = shards._fabric_topology(twin)
        assert result["answers"]["sessions"] == expect.expected_sessions(topology)
        assert result["answers"]["ecmp"] == {f"{a}->{b}": width
                                             for (a, b), width in expect.expected_ecmp_widths(topology).items()}
        assert runtime.TwinState.load(rows[1].prefix, twin.state_dir).topology_obj().extra["shard"]["host"] == "b"

        # Host b leaves the underlay: its stitched ends vanish with it. Never green: a partition naming b's leaves.
        runtime.run(["ip", "-n", rows[1].underlay["netns"], "link", "del", rows[1].underlay["ifname"]])
        check = shards.twin_shards_check(twin=twin, wait_s=120, converge_timeout_s=10)
        print(f"partition reported by the check run in {check.duration_s:.1f} s")
        twin.refresh_from_db()
        assert check.status == "succeeded", check.error
        assert check.result["partition"]["lost_hosts"] == ["b"], check.result["partition"]
        assert check.result["partition"]["lost_switches"] == ["leaf1", "leaf2", "leaf3", "leaf4"]
        assert twin.status == TwinStatusChoices.DEGRADED and "partition" in twin.error
        assert check.result["shards"]["b"]["state"] == "degraded"
        assert check.result["shards"]["b"]["failed_checks"] == ["twin.stitched_cables"]  # 4 leaves x 2 ends gone
        assert check.duration_s < 10, check.duration_s  # issue 35: a lost host is reported within 10 s
    finally:
        down = shards.twin_shards_down(twin=twin, wait_s=120)
    twin.refresh_from_db()
    assert down.status == "succeeded" and twin.status == TwinStatusChoices.DOWN, down.result
    assert set(TwinShard.objects.values_list("state", flat=True)) == {"down"}
    assert TwinOperation.objects.filter(twin=twin).count() == 3
    for row in rows:
        assert twin_leftovers(row.prefix) == {"namespaces": [], "frr_dirs": [], "processes": []}
    existing = runtime.run(["ip", "netns", "list"], check=False).stdout
    assert lab_netns(twin.prefix) not in existing and rows[1].underlay["netns"] not in existing


@pytest.mark.parametrize("celery_worker_redis", [shards.shard_queue(SHARD_HOST)], indirect=True, ids=["host-queue"])
def test_a_worker_on_the_host_queue_takes_the_shard_task(celery_worker_redis, twin_intent, twin_place):
    twin = shards.twin_shards_plan(fabric_intent=twin_intent, hosts=f"{SHARD_HOST}:1", emulate=True, **twin_place)
    shard = twin.shards.get()
    shard_queue_name = shards.shard_queue(shard.host)
    assert celery_worker_redis.queue == shard_queue_name
    answer = celery_worker_redis.run("twins.shard", shard.pk, "down", timeout=60)  # never booted: idempotent
    shard.refresh_from_db()
    assert answer["state"] == shard.state == TwinShardStateChoices.DOWN
    assert shard.worker == answer["worker"] and shard.worker.startswith(f"{celery_worker_redis.queue}@")
    assert shard.last_result["already_down"] is True

    # The coordinator in another process with the broker configured (the product path): `twin_shards down`
    # sends the task to twin-shard.<host>, this worker takes it, the command reads the row and records the run.
    command = [sys.executable, "manage.py", "twin_shards", "down", "--fabric", twin_intent.name, "--wait", "60",
               "--format", "json"]
    done = subprocess.run(command, cwd=Path(__file__).resolve().parents[2], env=celery_worker_redis.env,
                          capture_output=True, text=True, timeout=120)
    assert done.returncode == 0, done.stdout + done.stderr + celery_worker_redis.log()[-3000:]
    status = json.loads(done.stdout)
    assert [(row["host"], row["state"]) for row in status["shards"]] == [(SHARD_HOST, "down")]
    assert status["shards"][0]["worker"].startswith(f"{celery_worker_redis.queue}@")
    operation = TwinOperation.objects.get(twin=twin, kind="shards_down")
    assert operation.status == "succeeded" and operation.result["shards"][SHARD_HOST]["queue"] == shard_queue_name


def test_api_lists_the_shards_with_their_queues(twin_intent, twin_place, api_client):
    twin = _plan(twin_intent, twin_place)
    response = api_client.get(f"/api/twins/{twin.pk}/shards/")
    assert response.status_code == 200, response.content
    assert [(row["host"], row["queue"], row["state"]) for row in response.json()] == [
        ("a", "twin-shard.a", "down"), ("b", "twin-shard.b", "down")]
    assert api_client.get("/api/twins/999999/shards/").status_code == 404


def test_command_plans_and_shows_the_shards_and_refuses_bad_hosts(twin_intent, capsys):
    call_command("twin_shards", "plan", "--fabric", twin_intent.name, "--hosts", "a:1,b:1", "--emulate")
    out = capsys.readouterr().out
    assert "sharded twin" in out and "queue twin-shard.a" in out and "queue twin-shard.b" in out, out
    call_command("twin_shards", "status", "--fabric", twin_intent.name, "--format", "json")
    status = json.loads(capsys.readouterr().out)
    assert sorted(switch for shard in status["shards"] for switch in shard["switches"]) == [
        "leaf1", "leaf2", "leaf3", "leaf4", "spine1", "spine2"]
    with pytest.raises(CommandError, match=r"invalid input: .*hosts.*a:x"):
        call_command("twin_shards", "plan", "--fabric", twin_intent.name, "--hosts", "a:x", "--emulate")


def test_the_twin_of_an_intent_on_any_engine_is_never_the_sharded_one(twin_intent, twin_place):
    twin = _plan(twin_intent, twin_place)
    Twin.objects.filter(pk=twin.pk).update(status=TwinStatusChoices.UP)  # rollouts cannot push to shards yet
    assert twin_of(fabric_intent=twin_intent, engine=None, running=True) is None
    assert twin_of(fabric_intent=twin_intent, engine="sharded", running=True) == twin


BOOT_HOST = "ft" + uuid.uuid4().hex[:8]


@pytest.mark.twin
@pytest.mark.usefixtures("twin_required")
@pytest.mark.parametrize("celery_worker_redis", [shards.shard_queue(BOOT_HOST)], indirect=True, ids=["host-queue"])
def test_a_real_worker_boots_verifies_and_stops_its_host_shard(celery_worker_redis, twin_intent, twin_place,
                                                               twin_leftovers):
    """The whole path with a broker: `twin_shards up|down` in another process sends to twin-shard.<host>, the
    worker consuming it boots the shard (root + FRR) and verifies it; the command reads the rows."""
    twin = shards.twin_shards_plan(fabric_intent=twin_intent, hosts=f"{BOOT_HOST}:1", emulate=True, **twin_place)
    shard = twin.shards.get()
    repo = Path(__file__).resolve().parents[2]

    def command(action: str) -> subprocess.CompletedProcess:
        return subprocess.run([sys.executable, "manage.py", "twin_shards", action, "--fabric", twin_intent.name,
                               "--wait", "240", "--format", "json"], cwd=repo, env=celery_worker_redis.env,
                              capture_output=True, text=True, timeout=600)

    try:
        up = command("up")
        assert up.returncode == 0, up.stdout + up.stderr + celery_worker_redis.log()[-3000:]
        status = json.loads(up.stdout)
        assert status["status"] == "up" and status["shards"][0]["state"] == "up", status
        assert status["shards"][0]["worker"].startswith(f"{celery_worker_redis.queue}@")
    finally:
        down = command("down")
    assert down.returncode == 0, down.stdout + down.stderr
    assert twin_leftovers(shard.prefix) == {"namespaces": [], "frr_dirs": [], "processes": []}
    assert list(TwinOperation.objects.filter(twin=twin).order_by("id").values_list("kind", "status")) == [
        ("shards_up", "succeeded"), ("shards_down", "succeeded")]


def test_check_of_a_sharded_twin_that_is_not_running_is_refused(twin_intent, twin_place):
    twin = _plan(twin_intent, twin_place)
    with pytest.raises(TwinError, match="run `twin_shards up` first"):
        shards.twin_shards_check(twin=twin)
    assert not TwinOperation.objects.exists()
