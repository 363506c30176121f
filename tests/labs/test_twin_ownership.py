"""Ownership markers and installation ids (labs.ownership), without booting anything: the records that decide
what ``down --force`` may remove on a shared host."""

import json

import pytest

from compiler.errors import TwinError
from labs import ownership, runtime
from labs.runtime import lifecycle

OURS, THEIRS = "a1b2c3", "f0f0f0"


@pytest.fixture
def owners_dir(tmp_path, monkeypatch):
    monkeypatch.setattr(ownership, "OWNERS_DIR", tmp_path / "owners")
    return tmp_path / "owners"


def test_claim_records_installation_prefix_and_state_file(owners_dir):
    ownership.claim(["ftx1-leaf1", "ftx1-h1"], installation=OURS, prefix="ftx1", state_file="/s/ftx1.json")
    assert json.loads((owners_dir / "ftx1-leaf1.json").read_text()) == {
        "installation": OURS, "prefix": "ftx1", "state_file": "/s/ftx1.json"}
    assert ownership.owned(["ftx1-leaf1", "ftx1-h1", "ftx1-ghost"], OURS) == {"ftx1-leaf1", "ftx1-h1"}
    assert ownership.owned(["ftx1-leaf1"], THEIRS) == set()
    assert ownership.marked("ftx1", OURS) == {"ftx1-leaf1", "ftx1-h1"}
    assert ownership.marked("ftx1", THEIRS) == set()
    assert ownership.marked("ftx", OURS) == set()  # a prefix of the prefix is another twin: never a pattern


def test_claim_refuses_another_installations_namespace_without_advising_removal(owners_dir):
    ownership.claim(["ftx1-leaf1"], installation=THEIRS, prefix="ftx1", state_file="/theirs/ftx1.json")
    with pytest.raises(TwinError) as error:
        ownership.claim(["ftx1-leaf1", "ftx1-leaf2"], installation=OURS, prefix="ftx1", state_file="/ours/ftx1.json")
    message = str(error.value)
    assert THEIRS in message and "/theirs/ftx1.json" in message and "choose another name_prefix" in message
    assert "force" not in message and "down" not in message and "remove" not in message
    assert ownership.owner("ftx1-leaf1")["installation"] == THEIRS  # untouched
    assert ownership.owner("ftx1-leaf2") is None  # nothing half-claimed


def test_release_removes_only_this_installations_markers(owners_dir):
    ownership.claim(["ftx1-a"], installation=OURS, prefix="ftx1", state_file="s")
    ownership.claim(["ftx1-b"], installation=THEIRS, prefix="ftx1", state_file="t")
    ownership.release(["ftx1-a", "ftx1-b"], OURS)
    assert ownership.owner("ftx1-a") is None
    assert ownership.owner("ftx1-b")["installation"] == THEIRS


def test_a_namespace_recreated_under_our_name_by_someone_else_is_not_ours(owners_dir, tmp_path, monkeypatch):
    """The marker binds the name to the namespace we created (its nsfs inode; files stand in for it here)."""
    netns = tmp_path / "netns"
    netns.mkdir()
    monkeypatch.setattr(ownership, "NETNS_DIR", netns)
    ownership.claim(["ftx1-leaf1"], installation=OURS, prefix="ftx1", state_file="s")
    (netns / "ftx1-leaf1").touch()
    ownership.bind(["ftx1-leaf1"], OURS)
    assert ownership.owner("ftx1-leaf1")["netns_inode"] == (netns / "ftx1-leaf1").stat().st_ino
    assert ownership.is_owned("ftx1-leaf1", OURS)
    (netns / "theirs").touch()  # exists alongside ours: a different inode for sure
    (netns / "ftx1-leaf1").unlink()  # deleted behind our back...
    assert ownership.is_owned("ftx1-leaf1", OURS)  # (gone: our marker may be released)
    (netns / "theirs").rename(netns / "ftx1-leaf1")  # ...and re-created under our name by someone else
    assert not ownership.is_owned("ftx1-leaf1", OURS)
    ownership.bind(["ftx1-leaf1"], OURS)  # never re-bound to theirs
    assert not ownership.is_owned("ftx1-leaf1", OURS)
    with pytest.raises(TwinError, match="belong to another installation"):
        ownership.claim(["ftx1-leaf1"], installation=OURS, prefix="ftx1", state_file="s")


@pytest.mark.parametrize("value", ["", "A1B2C3", "a1b2c", "a1b2c3d", "a1b2c3\n", "../x", None, 123])
def test_installation_id_must_be_six_lowercase_hex(value):
    with pytest.raises(TwinError, match="installation="):
        ownership.check_installation(value)


def test_default_installation_from_the_environment_or_one_file_per_checkout(tmp_path, monkeypatch):
    monkeypatch.setattr(ownership, "CHECKOUT_INSTALLATION_FILE", tmp_path / "out" / "installation-id")
    monkeypatch.delenv("FT_INSTALLATION_ID", raising=False)
    first = ownership.default_installation()
    assert ownership.INSTALLATION_ID.fullmatch(first)
    assert ownership.default_installation() == first  # created once, then read
    monkeypatch.setenv("FT_INSTALLATION_ID", OURS)
    assert ownership.default_installation() == OURS
    monkeypatch.setenv("FT_INSTALLATION_ID", "nothex")
    with pytest.raises(TwinError, match="FT_INSTALLATION_ID: installation='nothex'"):
        ownership.default_installation()


def _state(tmp_path, installation):
    return runtime.TwinState(prefix="ftx1", label="", digest="", state_dir=str(tmp_path), status="up",
                             created_at=0.0, node_netns={"leaf1": "ftx1-leaf1"}, host_netns={}, frr_dirs=[],
                             installation=installation)


def test_every_runtime_entry_point_refuses_another_installations_twin(tmp_path, owners_dir):
    """The state file says who booted the twin: status, down (force too) and the checks' loader refuse others."""
    state = _state(tmp_path, THEIRS)
    state.save()
    for action in (lambda: runtime.down("ftx1", tmp_path, force=True, installation=OURS),
                   lambda: runtime.down("ftx1", tmp_path, installation=OURS),
                   lambda: runtime.status("ftx1", tmp_path, installation=OURS),
                   lambda: runtime.owned_state("ftx1", tmp_path, installation=OURS)):
        with pytest.raises(TwinError, match=f"belongs to installation {THEIRS}, not to this installation \\({OURS}\\); "
                                            "nothing was touched"):
            action()
    assert state.state_file.exists()
    assert runtime.owned_state("ftx1", tmp_path, installation=THEIRS).installation == THEIRS


def test_state_files_from_before_installation_ids_are_not_adopted(tmp_path, owners_dir):
    _state(tmp_path, "").save()
    with pytest.raises(TwinError, match="belongs to installation unknown"):
        runtime.down("ftx1", tmp_path, force=True, installation=OURS)


def test_state_file_round_trips_the_installation(tmp_path):
    _state(tmp_path, OURS).save()
    assert runtime.TwinState.load("ftx1", tmp_path).installation == OURS


def test_twin_change_driver_refuses_a_switch_namespace_its_installation_does_not_own(tmp_path, owners_dir):
    from changes.drivers.twin import TwinDriver
    from compiler.errors import DriverError

    _state(tmp_path, OURS).save()
    driver = TwinDriver("ftx1", "leaf1", str(tmp_path))
    with pytest.raises(DriverError, match="ftx1-leaf1 .*no ownership marker.* not touched"):
        driver._state()
    ownership.claim(["ftx1-leaf1"], installation=THEIRS, prefix="ftx1", state_file="elsewhere")
    with pytest.raises(DriverError, match=f"installation {THEIRS}.*is not owned by installation {OURS}"):
        driver._state()
    ownership.marker_path("ftx1-leaf1").unlink()
    ownership.claim(["ftx1-leaf1"], installation=OURS, prefix="ftx1", state_file="s")
    assert driver._state().installation == OURS


def test_status_is_unhealthy_when_a_namespace_under_our_name_is_not_ours(tmp_path, owners_dir, monkeypatch):
    _state(tmp_path, OURS).save()
    monkeypatch.setattr(lifecycle, "all_namespaces", lambda: ["ftx1-leaf1"])
    ownership.claim(["ftx1-leaf1"], installation=OURS, prefix="ftx1", state_file="s")
    health = runtime.status("ftx1", tmp_path, installation=OURS)
    assert health["healthy"] and health["not_owned_namespaces"] == []
    ownership.marker_path("ftx1-leaf1").unlink()
    health = runtime.status("ftx1", tmp_path, installation=OURS)
    assert not health["healthy"] and health["not_owned_namespaces"] == ["ftx1-leaf1"]
