"""One rule for "the twin of" a fabric intent (``twins.selectors.twin_of``) and one grammar for a twin's prefix
(``compiler.names.TWIN_PREFIX_RE``) that every maker and every checker uses (issue #28)."""

from __future__ import annotations

import datetime as dt
import uuid

from changes import policy as change_policy
from changes.selectors import twin_target_for_intent
from compiler.names import TWIN_PREFIX_RE
from intents import services as intent_services
from labs import topology
from twins import checks, services
from twins.choices import TwinEngineChoices, TwinStatusChoices
from twins.selectors import fabric_twin, twin_list_up, twin_of


def _twin(intent, engine, status, started=None, prefix=None):
    twin = services.twin_get_or_create(fabric_intent=intent, engine=engine, prefix=prefix)
    twin.status, twin.started = status, started
    twin.save()
    return twin


def test_the_twin_of_an_intent_by_engine_and_running(twin_intent):
    assert twin_of(fabric_intent=twin_intent) is None
    netns = _twin(twin_intent, TwinEngineChoices.NETNS, TwinStatusChoices.DOWN)
    assert twin_of(fabric_intent=twin_intent) == netns == fabric_twin(fabric=twin_intent.fabric)
    assert twin_of(fabric_intent=twin_intent, running=True) is None
    assert twin_of(fabric_intent=twin_intent, engine=TwinEngineChoices.CONTAINERLAB) is None
    lab = _twin(twin_intent, TwinEngineChoices.CONTAINERLAB, TwinStatusChoices.DEGRADED,
                started=dt.datetime(2026, 1, 2, tzinfo=dt.UTC), prefix="twlab01")
    assert twin_of(fabric_intent=twin_intent, engine=None, running=True) == lab
    netns.status, netns.started = TwinStatusChoices.UP, dt.datetime(2026, 1, 3, tzinfo=dt.UTC)
    netns.save()
    assert twin_of(fabric_intent=twin_intent, engine=None, running=True) == netns  # the most recently started
    assert twin_of(fabric_intent=twin_intent, engine=TwinEngineChoices.CONTAINERLAB, running=True) == lab
    assert set(twin_list_up(fabric_intent=twin_intent)) == {netns, lab}  # what the demo tears down first
    lab.status = TwinStatusChoices.DOWN
    lab.save()
    assert list(twin_list_up(fabric_intent=twin_intent)) == [netns]


def test_an_api_client_rolls_out_to_the_same_twin(twin_intent):
    running = _twin(twin_intent, TwinEngineChoices.NETNS, TwinStatusChoices.UP,
                    started=dt.datetime(2026, 1, 3, tzinfo=dt.UTC))
    run = intent_services.compile_run_create(fabric_intent=twin_intent)
    assert twin_target_for_intent(fabric_intent=twin_intent.name) == (running, run.pk)


def test_every_prefix_maker_and_checker_uses_the_one_grammar(twin_intent):
    assert topology.NAME_PREFIX is TWIN_PREFIX_RE
    assert not hasattr(change_policy, "TWIN_PREFIX")  # a rollout names its Twin row, never a prefix (issue #28)
    for engine in TwinEngineChoices.values:
        assert TWIN_PREFIX_RE.fullmatch(services.twin_prefix_for(fabric_intent=twin_intent, engine=engine))
    assert TWIN_PREFIX_RE.fullmatch(checks.REHEARSAL_PREFIX + uuid.uuid4().hex[:8])
    for refused in ("Tw1234", "tw", "1tw234", "tw-1234", "tw" + "0" * 15):
        assert not TWIN_PREFIX_RE.fullmatch(refused), refused
