"""validators.physical.check_cross_fabric_identity: an address held in two fabrics is an error (pure)."""

from validators.physical import CROSS_FABRIC_IDENTITY, check_cross_fabric_identity, cross_fabric_report


def test_distinct_addresses_pass():
    identities = {"be": {"10.0.0.1": "loopback spine1"}, "fe": {"10.0.8.1": "loopback fe-spine1"}}
    assert check_cross_fabric_identity(identities) == []
    report = cross_fabric_report(identities)
    assert report.ok and report.counts()["passed"] == 1


def test_an_address_in_two_fabrics_is_an_error_naming_both_holders():
    identities = {"be": {"10.0.0.1": "loopback spine1", "172.16.0.1": "spine1 management"},
                  "fe": {"10.0.0.1": "loopback fe-spine1"}}
    [finding] = check_cross_fabric_identity(identities)
    assert (finding.check, finding.severity, finding.subject) == (CROSS_FABRIC_IDENTITY, "error", "address 10.0.0.1")
    assert finding.actual == ["loopback fe-spine1 (fe)", "loopback spine1 (be)"]
    assert not cross_fabric_report(identities).ok


def test_the_same_address_twice_in_one_fabric_is_not_this_checks_business():
    # within a fabric, duplicates are physical.unique_identity's and the allocator's (DB-unique per intent)
    assert check_cross_fabric_identity({"be": {"10.0.0.1": "loopback spine1"}}) == []
