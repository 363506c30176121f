"""A background flow (``collectors.start_ping``) must keep sending however long nobody reads its output.

Issue 19: the restore flow of a 4x64 failover ran ~5 s at 500 pps before ``finish_ping`` read it. Its output went
to a pipe (64 KiB, ~1,100 reply lines), so ping blocked in write() after ~2 s and stopped sending: a 3-4 s gap
between replies, reported as a restore outage, with no packet lost. A fake ``ip`` on PATH prints more than a
pipe holds without anyone reading, and says (a marker file) when it got to the end."""

from __future__ import annotations

import os
import stat
import sys
import time
from pathlib import Path

from labs import collectors

REPLIES = 3000  # ~70 lines per KiB: about 200 KiB, three pipe buffers


def fake_ip(directory: Path, marker: Path) -> None:
    script = directory / "ip"
    script.write_text(f"""#!{sys.executable}
import sys, time
now = time.time()
for seq in range(1, {REPLIES} + 1):
    print(f"[{{now + seq * 0.002:.6f}}] 64 bytes from 10.10.0.3: icmp_seq={{seq}} ttl=64 time=0.020 ms")
print("--- 10.10.0.3 ping statistics ---")
print("{REPLIES} packets transmitted, {REPLIES} received, 0% packet loss, time 6000ms")
sys.stdout.flush()
open({str(marker)!r}, "w").close()
""")
    script.chmod(script.stat().st_mode | stat.S_IEXEC)


def test_flow_output_never_blocks_the_sender(tmp_path, monkeypatch):
    marker = tmp_path / "wrote-everything"
    fake_ip(tmp_path, marker)
    monkeypatch.setenv("PATH", f"{tmp_path}{os.pathsep}{os.environ['PATH']}")
    process = collectors.start_ping("ns-unused", "10.10.0.3", count=REPLIES, interval=0.002, deadline_s=30.0)
    try:
        deadline = time.monotonic() + 10.0
        while not marker.exists() and time.monotonic() < deadline:
            time.sleep(0.05)
        assert marker.exists(), "the flow stopped writing (and so sending) while its output was not read"
    finally:
        result = collectors.finish_ping(process, timeout=10.0)
    assert (result.transmitted, result.received) == (REPLIES, REPLIES)
    assert len(result.reply_times) == REPLIES
    assert result.largest_gap_s < 1.0  # replies 2 ms apart; first/last send bound the flow


def test_a_killed_flow_leaves_no_output_file_open(tmp_path, monkeypatch):
    marker = tmp_path / "wrote-everything"
    fake_ip(tmp_path, marker)
    monkeypatch.setenv("PATH", f"{tmp_path}{os.pathsep}{os.environ['PATH']}")
    from labs.measure import Flow

    flow = Flow.__new__(Flow)
    flow.process = collectors.start_ping("ns-unused", "10.10.0.3", count=REPLIES, interval=0.002, deadline_s=30.0)
    output = flow.process.ft_output
    flow.kill()
    assert output.closed
