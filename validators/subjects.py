"""Finding subjects: the one grammar of what a finding is about, built and read back through one type.

    leaf1                                   a device (or any named thing: "network a", "twin")
    leaf1:Ethernet1                         one end: a device and its interface ("mlag peer-address", "Vlan10")
    leaf1:Ethernet1<->spine1:Ethernet3      a link: its ends joined by "<->" (a deadlock cycle lists more ends)

A ``Finding.subject`` stays text (stored in ValidationFinding rows, shown, compared as before); producers build it
with ``str(Subject.link(...))`` and readers take it apart with ``Subject.parse``, never by splitting the string.
"""

from __future__ import annotations

from dataclasses import dataclass

LINK = "<->"  # between the ends of a link subject


@dataclass(frozen=True, slots=True)
class SubjectEnd:
    """One end: a device and, for a port, its interface ("" for the device itself)."""

    device: str
    interface: str = ""

    def __str__(self) -> str:
        return f"{self.device}:{self.interface}" if self.interface else self.device

    @classmethod
    def parse(cls, text: str) -> SubjectEnd:
        """``"leaf1:Ethernet1"`` -> (leaf1, Ethernet1); the interface is everything after the first colon."""
        device, _, interface = text.strip().partition(":")
        return cls(device, interface)


@dataclass(frozen=True, slots=True)
class Subject:
    ends: tuple[SubjectEnd, ...]

    def __str__(self) -> str:
        return LINK.join(str(end) for end in self.ends)

    @property
    def is_link(self) -> bool:
        return len(self.ends) > 1

    @classmethod
    def parse(cls, text: str) -> Subject:
        return cls(tuple(SubjectEnd.parse(part) for part in text.split(LINK)))

    @classmethod
    def link(cls, a_device: str, a_interface: str, b_device: str, b_interface: str) -> Subject:
        """The link from ``a``'s port to ``b``'s, in that order."""
        return cls((SubjectEnd(a_device, a_interface), SubjectEnd(b_device, b_interface)))

    @classmethod
    def cable(cls, a_device: str, a_interface: str, b_device: str, b_interface: str) -> Subject:
        """The link with its ends sorted by their text: one name whatever end it is seen from."""
        ends = sorted((SubjectEnd(a_device, a_interface), SubjectEnd(b_device, b_interface)), key=str)
        return cls(tuple(ends))
