"""Twin size policy and failure-detection limits (pure, no root): BFD and BGP timers chosen by size, start
waves and timeouts that grow with the fabric, and the failover limit derived from the timers the twin runs."""

import pytest

from compiler.errors import InputError
from labs.expect import failure_detection
from labs.runtime.frr_files import twin_frr_conf
from labs.runtime.sizing import SizePolicy, policy_frr_conf, size_policy
from validators.prediction import PROPAGATION_MARGIN_S

CONF = """router bgp 65100
 timers bgp 3 9
 neighbor UNDERLAY peer-group
 neighbor UNDERLAY bfd
 neighbor 10.1.0.0 peer-group UNDERLAY
"""


def test_bfd_stays_on_small_twins_and_goes_off_above_48_switches_per_core():
    small = size_policy(68, cpus=2, memory_mib=20000, bfd_override="")
    big = size_policy(256, cpus=2, memory_mib=20000, bfd_override="")
    assert small.bfd and small.min_hold_s == 0 and "68 switches <= 96" in small.reason
    assert not big.bfd and big.min_hold_s == 30 and "256 switches > 96" in big.reason
    assert size_policy(256, cpus=8, memory_mib=20000, bfd_override="").bfd  # 8 cores: 384 allowed
    assert size_policy(256, cpus=2, memory_mib=20000, bfd_override="on").bfd
    assert not size_policy(6, cpus=2, memory_mib=20000, bfd_override="off").bfd


def test_waves_and_timeouts_follow_the_machine_and_the_fabric():
    small = size_policy(6, cpus=2, memory_mib=20000, bfd_override="")
    big = size_policy(256, cpus=2, memory_mib=20000, bfd_override="")
    assert small.wave == 6 and big.wave == 8  # 4 starts per core
    assert size_policy(256, cpus=2, memory_mib=200, bfd_override="").wave == 3  # memory bounds the wave
    assert small.start_timeout_s == 30.0 and big.start_timeout_s == 88.0  # never a fixed 30 s at 256
    assert big.converge_timeout_s == 188.0 > small.converge_timeout_s
    assert SizePolicy.from_dict(big.as_dict()) == big
    assert big.late_cabling and not small.late_cabling  # cables plugged in once every switch runs, from 64
    recorded_before = {key: value for key, value in big.as_dict().items() if key != "late_cabling"}
    assert not SizePolicy.from_dict(recorded_before).late_cabling  # a state file from before the field


def test_a_bad_bfd_override_is_named():
    with pytest.raises(InputError, match="FT_TWIN_BFD='maybe': use on, off or auto"):
        size_policy(6, bfd_override="maybe")


def test_policy_removes_bfd_and_raises_the_hold_time_only_when_bfd_is_off():
    big = size_policy(256, cpus=2, memory_mib=20000, bfd_override="")
    running = twin_frr_conf(CONF, (), big)
    assert "bfd" not in running and " timers bgp 10 30" in running
    assert policy_frr_conf(CONF, size_policy(6, cpus=2, memory_mib=20000, bfd_override="")) == CONF
    assert policy_frr_conf(CONF, None) == CONF


def test_failover_limit_comes_from_the_timers_the_twin_runs():
    with_bfd = failure_detection([CONF])
    assert with_bfd.seconds == 0.9 and with_bfd.basis == "BFD 300 ms x 3"
    assert with_bfd.outage_limit_s == 0.9 + PROPAGATION_MARGIN_S
    without = failure_detection([policy_frr_conf(CONF, size_policy(256, cpus=2, memory_mib=20000, bfd_override=""))])
    assert without.seconds == 30.0 and without.basis == "BGP hold 30 s"
    # the slowest switch on the path decides; a BFD profile's own timers are read
    tuned = CONF + "bfd\n profile fast\n  detect-multiplier 5\n  receive-interval 100\n"
    assert failure_detection([tuned]).basis == "BFD 100 ms x 5"
    assert failure_detection([CONF, CONF.replace(" neighbor UNDERLAY bfd\n", "")]).basis == "BGP hold 9 s"
