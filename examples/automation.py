#!/usr/bin/env python3
"""End-to-end automation over the REST API: build -> intent -> compile -> validate -> rollout to the twin.

    FT_API_TOKEN=<token from the UI's "API tokens" page> python3 examples/automation.py --url http://127.0.0.1:8000

Standard library only. Long actions (build, compile, validate, twin up, rollout start) answer 202 Accepted with
a ``status_url`` (also the ``Location`` header) that the script polls. Every step prints one line; a step that
cannot run here says "skipped: <reason>" (a twin rollout needs a running twin of the intent: ``--twin-up`` boots
it through the API, which needs root and FRR on the server; or `manage.py twin up --fabric NAME`). Exits non-zero
on any failure.
The rollout names the fabric intent, never the internal twin prefix (docs/changes.md).
"""

from __future__ import annotations

import argparse
import json
import os
import sys
import time
import urllib.error
import urllib.parse
import urllib.request


class Api:
    def __init__(self, url: str, token: str) -> None:
        self.url, self.token = url.rstrip("/"), token

    def call(self, method: str, path: str, body: dict | None = None) -> tuple[int, dict]:
        request = urllib.request.Request(
            f"{self.url}{path}", method=method, data=json.dumps(body).encode() if body is not None else None,
            headers={"Authorization": f"Token {self.token}", "Content-Type": "application/json",
                     "Accept": "application/json"})
        try:
            with urllib.request.urlopen(request, timeout=300) as response:
                return response.status, json.loads(response.read() or b"{}")
        except urllib.error.HTTPError as error:
            return error.code, json.loads(error.read() or b"{}")

    def poll(self, status_url: str, field: str, busy: tuple[str, ...], every_s: float = 1.0) -> dict:
        """GET a long action's status URL (its 202 answer's Location) until ``field`` leaves the ``busy`` values."""
        path = urllib.parse.urlsplit(status_url).path
        while (record := self.must("GET", path))[field] in busy:
            time.sleep(every_s)
        return record

    def must(self, method: str, path: str, body: dict | None = None, ok=(200, 201)) -> dict:
        status, data = self.call(method, path, body)
        if status not in ok:
            sys.exit(f"{method} {path}: HTTP {status}: {json.dumps(data)[:500]}")
        return data


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--url", default="http://127.0.0.1:8000")
    parser.add_argument("--fabric", default="auto1", help="name of the fabric and its intent")
    parser.add_argument("--twin-up", action="store_true",
                        help="boot the intent's twin through the API before the rollout (needs root and FRR there)")
    args = parser.parse_args()
    token = os.environ.get("FT_API_TOKEN")
    if not token:
        sys.exit("set FT_API_TOKEN (UI: API tokens; or POST /api/auth/login/ with your password)")
    api, name = Api(args.url, token), args.fabric

    # The prefix keeps the names apart from other fabrics of the inventory (the demo's leaf1...); management
    # and intent pools that another fabric uses are replaced by free ones and reported.
    accepted = api.must("POST", "/api/fabrics/build/", {"name": name, "name_prefix": f"{name}-", "spines": 2,
                                                          "leaves": 2, "servers_per_leaf": 2}, ok=(202,))
    build = api.poll(accepted["status_url"], "status", ("pending", "running"))
    if build["status"] != "succeeded":
        sys.exit(f"build     failed: {build['error']} {json.dumps(build['error_fields'])[:500]}")
    built = build["result"]
    print(f"build     fabric {name}: {built['switches']} switches, {built['servers']} servers, "
          f"worst oversubscription {max(built['oversubscription'].values()):.2f}:1")

    status, found = api.call("GET", f"/api/fabric-intents/?name={name}")
    results = found.get("results", []) if status == 200 else []
    intent = results[0] if results else api.must("POST", "/api/fabric-intents/", {"name": name, "fabric": name})
    tenants = api.must("GET", f"/api/tenants/?fabric_intent={intent['id']}")["results"]
    tenant = tenants[0] if tenants else api.must("POST", "/api/tenants/", {
        "fabric_intent": intent["id"], "name": "A", "vrf": "TENANT_A"})
    networks = api.must("GET", f"/api/networks/?fabric_intent={intent['id']}")["results"]
    if not networks:
        api.must("POST", "/api/networks/", {"tenant": tenant["id"], "name": "a-train", "vlan_id": 10,
                                             "subnet": "10.10.0.0/24", "gateway": "10.10.0.1"})
    api.must("POST", f"/api/fabric-intents/{intent['id']}/roce-defaults/")
    print(f"intent    {name}: tenant {tenant['name']}, network a-train (VLAN 10), RoCEv2 defaults")

    run = api.must("POST", f"/api/fabric-intents/{intent['id']}/compile/", {}, ok=(201, 202))
    if "status_url" in run:  # 202: compiling off the request
        run = api.poll(run["status_url"], "status", ("pending", "running"))
    print(f"compile   run #{run['id']} {run['status']}: {run.get('device_count')} devices")

    validation = api.must("POST", "/api/validation-runs/", {"fabric_intent": intent["id"]}, ok=(201, 202))
    if "status_url" in validation:  # 202: validating off the request
        validation = api.poll(validation["status_url"], "status", ("pending", "running"))
    print(f"validate  run #{validation['id']} {validation['status']}: ok={validation['ok']}, "
          f"{validation['checks_passed']} passed, {validation['checks_failed']} failed")
    if validation["status"] == "succeeded" and not validation["ok"]:
        return 1

    if args.twin_up:
        twin = api.must("POST", "/api/twins/", {"fabric_intent": intent["id"], "engine": "netns"})
        status, started = api.call("POST", f"/api/twins/{twin['id']}/up/", {})
        if status == 503 and started.get("skipped"):
            print(f"twin      skipped: {started['detail']}")
        elif status != 202:
            sys.exit(f"POST /api/twins/{twin['id']}/up/: HTTP {status}: {json.dumps(started)[:500]}")
        else:
            operation = api.poll(started["status_url"], "status", ("pending", "running"))
            if operation["status"] != "succeeded":
                print(f"twin      up failed: {operation['error']}")
                return 1
            print(f"twin      {operation['prefix']} {operation['result']['status']}: "
                  f"{operation['result']['switches']} switches, {operation['result']['hosts']} hosts")

    status, change_set = api.call("POST", "/api/change-sets/", {"target": "twin", "fabric_intent": name,
                                                                  "name": f"{name} automation"})
    if status == 400 and "no running twin" in json.dumps(change_set.get("fabric_intent", "")):
        print(f"rollout   skipped: no running twin of intent {name} (manage.py twin up --fabric {name})")
        return 0
    if status != 201:
        sys.exit(f"POST /api/change-sets/: HTTP {status}: {json.dumps(change_set)[:500]}")
    rollout = api.must("POST", "/api/rollouts/", {"name": f"{name} canary", "kind": "canary_push", "target": "twin",
                                                  "change_set": change_set["id"], "fabric_intent": name})
    started = api.must("POST", f"/api/rollouts/{rollout['id']}/start/", {}, ok=(202,))
    rollout = api.poll(started["status_url"], "state", ("pending", "running"))
    print(f"rollout   #{rollout['id']} {rollout['state']}")
    return 0 if rollout["state"] == "succeeded" else 1


if __name__ == "__main__":
    sys.exit(main())
