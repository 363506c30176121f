#!/usr/bin/env bash
# Installs or starts what the project needs from the machine (Debian bookworm): FRR for the twin and the
# vtysh parser check (plus FRR 10.3 extracted from trixie by scripts/frr10.sh), chromium for the browser test,
# openssh-server for the Netmiko-on-twin test, SONiC's GCU environment (scripts/gcu-env.sh), and the PostgreSQL /
# Redis services the test suite runs against.
# Idempotent; prints what it did.
# --demo: only what `make demo` needs (FRR for the twin); the database is SQLite and tasks run in-process.
set -uo pipefail
mode=${1:-test}
apt_updated=0
need_pkgs=()

have() { command -v "$1" >/dev/null 2>&1; }
want() { dpkg -s "$1" >/dev/null 2>&1 || need_pkgs+=("$1"); }

if [ "$(id -u)" != 0 ] || ! have apt-get; then
  echo "ensure-system: not root or no apt-get; using what is installed (twin/browser tests skip with a reason if missing)"
  exit 0
fi

want frr
want frr-pythontools
want iputils-ping  # the live twin's reachability, MTU and failover probes
want patchelf  # scripts/frr10.sh: runs the extracted FRR 10.3 under trixie's own loader and libraries
want libyang2-tools  # yanglint: config_db.json against SONiC's YANG models (tests/compiler/render/test_sonic_yang.py)
if [ "$mode" != "--demo" ]; then
  want chromium
  want openssh-server
  have psql || want postgresql
  have redis-server || want redis-server
fi
if [ ${#need_pkgs[@]} -gt 0 ]; then
  echo "ensure-system: installing ${need_pkgs[*]}"
  apt-get update -qq && apt_updated=1
  DEBIAN_FRONTEND=noninteractive apt-get install -y -qq "${need_pkgs[@]}" >/tmp/ensure-system-apt.log 2>&1 \
    || { echo "ensure-system: apt-get install failed, see /tmp/ensure-system-apt.log"; tail -20 /tmp/ensure-system-apt.log; }
fi
# Debian's frr package starts a system-wide FRR on install; the twin runs its own per-namespace daemons.
if have systemctl && systemctl is-active --quiet frr 2>/dev/null; then systemctl stop frr || true; fi

# FRR 10.3 (what SONiC ships) extracted from Debian trixie into out/frr/10.3 beside the system's FRR 8.4, which
# stays installed and is the twin's fallback (docs/twin.md "Which FRR runs"). Not fatal: without it the twin
# runs 8.4 and says why.
"$(dirname "$0")/frr10.sh" || echo "ensure-system: FRR 10.3 not available; the twin falls back to FRR 8.4"

# SONiC's Generic Config Updater in the test suite (tests/gcu/): the libyang 3 Python binding SONiC uses, built
# against trixie's libyang 3.12.2 into out/gcu/site. Not fatal: without it tests/gcu skips with the reason.
if [ "$mode" != "--demo" ]; then
  "$(dirname "$0")/gcu-env.sh" || echo "ensure-system: GCU environment not built; tests/gcu will skip"
fi

if [ "$mode" = "--demo" ]; then exit 0; fi

if ! pg_isready -q -h 127.0.0.1 -p 5432; then
  echo "ensure-system: starting PostgreSQL"
  pg_ctlcluster --skip-systemctl-redirect "$(ls /etc/postgresql | head -1)" main start || true
  for _ in $(seq 1 30); do pg_isready -q -h 127.0.0.1 -p 5432 && break; sleep 1; done
fi
if ! redis-cli -h 127.0.0.1 ping >/dev/null 2>&1; then
  echo "ensure-system: starting Redis"
  mkdir -p /var/lib/redis /var/log/redis
  redis-server --daemonize yes --bind 127.0.0.1 -::1 --port 6379 --save "" --appendonly no \
    --dir /var/lib/redis --logfile /var/log/redis/ci.log || true
  for _ in $(seq 1 20); do redis-cli -h 127.0.0.1 ping >/dev/null 2>&1 && break; sleep 0.5; done
fi
pg_isready -h 127.0.0.1 -p 5432 || echo "ensure-system: PostgreSQL is NOT reachable"
redis-cli -h 127.0.0.1 ping >/dev/null 2>&1 && echo "ensure-system: Redis is up" || echo "ensure-system: Redis is NOT reachable"
exit 0
