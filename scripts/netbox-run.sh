#!/usr/bin/env bash
# Runs a real NetBox 4.5+/4.6+ OUTSIDE the repository, to record its REST answers for the importer's tests
# (tests/inventory/fixtures/netbox-recorded-4.5 and -4.6). NetBox 4.5+ needs Python 3.12+; this machine has 3.11,
# so Debian trixie's python3.13 is extracted into a private directory the way scripts/frr10.sh extracts FRR 10.3
# (apt-get download with a private apt configuration, dpkg-deb -x, patchelf for trixie's loader): nothing is
# installed into the system.
#
#   scripts/netbox-run.sh python           extract Python 3.13 (idempotent)  -> $dir/py313/root/usr/bin/python3.13
#   scripts/netbox-run.sh setup  VERSION   NetBox VERSION's source (git archive of tag vVERSION from $NETBOX_GIT),
#                                          a venv with its runtime requirements, configuration, migrate, superuser
#   scripts/netbox-run.sh serve  VERSION   runserver on 127.0.0.1:$PORT (foreground)
#   scripts/netbox-run.sh token  VERSION   print a fresh v1 API token of user admin
#   scripts/netbox-run.sh flush  VERSION   empty the database (migrations kept) and recreate user admin
#
# Environment: FT_NETBOX_RUN (default /work/netbox-run), NETBOX_GIT (a git dir of netbox-community/netbox),
# PGHOST/PGPORT/PGUSER (default 127.0.0.1:5432 postgres, trust), REDIS_HOST/REDIS_PORT (127.0.0.1:6379).
# Databases: netbox<MAJOR><MINOR> (netbox45, netbox46); Redis DB numbers 10+2*(minor-5) and 11+2*(minor-5).
set -euo pipefail

repo=$(cd "$(dirname "$0")/.." && pwd)
dir=$(realpath -m "${FT_NETBOX_RUN:-/work/netbox-run}")
suite=trixie
# The Debian mirror from this machine's own APT sources, exactly as scripts/frr10.sh finds it (no host named here).
mirror=${FT_NETBOX_MIRROR:-$("$repo/scripts/frr10.sh" --mirror 2>/dev/null || true)}
# python3.13's Depends in trixie (apt-cache show python3.13 libpython3.13-stdlib python3.13-minimal) down to glibc.
packages=(python3.13 python3.13-minimal libpython3.13-minimal libpython3.13-stdlib python3.13-venv libc6 libgcc-s1
          libexpat1 zlib1g libssl3t64 libffi8 libbz2-1.0 liblzma5 libmpdec4 libncursesw6 libtinfo6 libreadline8t64
          libsqlite3-0 libuuid1 libdb5.3t64 libnsl2 libtirpc3t64 libgssapi-krb5-2 libkrb5-3 libk5crypto3
          libkrb5support0 libcom-err2 libkeyutils1 libzstd1 python3-pip-whl python3-setuptools-whl libstdc++6)
log() { echo "netbox-run: $*"; }

py=$dir/py313/root/usr/bin/python3.13

python_extract() {
  if [ -x "$py" ] && "$py" -c 'import ssl, sqlite3, ctypes, venv' 2>/dev/null; then return 0; fi
  [ -n "$mirror" ] || { log "no Debian mirror in this machine's APT sources; set FT_NETBOX_MIRROR"; exit 1; }
  local triplet p=$dir/py313
  case "$(dpkg --print-architecture)" in
    amd64) triplet=x86_64-linux-gnu;; arm64) triplet=aarch64-linux-gnu;;
    *) log "architecture $(dpkg --print-architecture) is not supported"; exit 1;;
  esac
  mkdir -p "$p/apt/lists/partial" "$p/apt/cache/archives/partial" "$p/debs"
  echo "deb [signed-by=/usr/share/keyrings/debian-archive-keyring.gpg] $mirror $suite main" >"$p/apt/sources.list"
  local apt_opts=(-o "Dir::Etc::sourcelist=$p/apt/sources.list" -o "Dir::Etc::sourceparts=-"
                  -o "Dir::State::Lists=$p/apt/lists" -o "Dir::Cache=$p/apt/cache" -o "Dir::State::status=/dev/null"
                  -o "APT::Sandbox::User=root" -o "Debug::NoLocking=1")
  apt-get "${apt_opts[@]}" update -qq
  rm -f "$p/debs/"*.deb
  (cd "$p/debs" && apt-get "${apt_opts[@]}" download "${packages[@]}" >/dev/null)
  rm -rf "$p/root" && mkdir -p "$p/root"
  for deb in "$p/debs/"*.deb; do dpkg-deb -x "$deb" "$p/root"; done
  local libdir=$p/root/usr/lib/$triplet loader
  loader=$(cd "$libdir" && ls ld-linux*.so.* | head -1)
  # DT_RPATH (--force-rpath), not RUNPATH: it also serves the extension modules python loads (lib-dynload).
  patchelf --set-interpreter "$libdir/$loader" --force-rpath --set-rpath "$libdir" "$(realpath "$py")"
  "$py" -c 'import ssl, sqlite3, ctypes, venv, sys; print(sys.version)' || { log "extracted python does not run"; exit 1; }
}

nb() {  # paths of one NetBox version
  version=$1; minor=${version#4.}; minor=${minor%%.*}
  src=$dir/netbox-$version; venv=$dir/venv-$version; db=netbox4$minor
  redis_db=$((10 + 2 * (minor - 5)))
}

setup() {
  nb "$1"; python_extract
  local git=${NETBOX_GIT:?set NETBOX_GIT to a git dir of netbox-community/netbox}
  if [ ! -d "$src" ]; then
    mkdir -p "$src"
    # netbox/ and requirements.txt only. The fetched snapshot lacks the blob of one large data file,
    # netbox/extras/data/un_locode.py (4.6: the UN/LOCODE choice set offered to custom fields); it is replaced by
    # an empty set, which no dcim model, cable or REST answer recorded here reads.
    git --git-dir="$git" archive "v$version" -- netbox requirements.txt ':(exclude)netbox/extras/data/un_locode.py' \
      | tar -x -C "$src"
    if git --git-dir="$git" cat-file -e "v$version:netbox/extras/data/un_locode.py" 2>/dev/null; then
      git --git-dir="$git" show "v$version:netbox/extras/data/un_locode.py" >"$src/netbox/extras/data/un_locode.py"
    elif grep -q un_locode "$src/netbox/extras/data/__init__.py" 2>/dev/null; then
      echo 'UN_LOCODE = ()  # absent from the fetched snapshot (scripts/netbox-run.sh)' >"$src/netbox/extras/data/un_locode.py"
    fi
    git --git-dir="$git" rev-parse "v$version^{commit}" >"$src/COMMIT"
  fi
  if [ ! -x "$venv/bin/python" ]; then
    "$py" -m venv --without-pip "$venv"
    # pip from its own wheel (the registry's ordinary client), then NetBox's runtime requirements; psycopg's
    # [c] extra would compile against libpq: the binary wheel is the same driver.
    local whl; whl=$(ls "$dir"/py313/root/usr/share/python-wheels/pip-*.whl | head -1)
    "$venv/bin/python" "$whl/pip" install -q pip
    grep -v -E '^(mkdocs|zensical|mkdocstrings|django-debug-toolbar|django-graphiql)' "$src/requirements.txt" \
      | sed 's/psycopg\[c,pool\]/psycopg[binary,pool]/' >"$src/requirements-run.txt"
    # NetBox 4.5's strawberry-graphql (0.315) imports graphql.execution.ExecutionContext, gone in graphql-core 3.3;
    # NetBox does not pin graphql-core, so the resolver takes the newest: keep 4.5 on the 3.2 line.
    case "$version" in 4.5.*) echo 'graphql-core<3.3' >>"$src/requirements-run.txt";; esac
    "$venv/bin/pip" install -q -r "$src/requirements-run.txt"
  fi
  cat >"$src/netbox/netbox/configuration.py" <<CONF
ALLOWED_HOSTS = ['*']
DATABASES = {'default': {'ENGINE': 'django.db.backends.postgresql', 'NAME': '$db', 'USER': '${PGUSER:-postgres}',
             'PASSWORD': '', 'HOST': '${PGHOST:-127.0.0.1}', 'PORT': '${PGPORT:-5432}'}}
REDIS = {'tasks': {'HOST': '${REDIS_HOST:-127.0.0.1}', 'PORT': ${REDIS_PORT:-6379}, 'DATABASE': $redis_db, 'SSL': False},
         'caching': {'HOST': '${REDIS_HOST:-127.0.0.1}', 'PORT': ${REDIS_PORT:-6379}, 'DATABASE': $((redis_db + 1)), 'SSL': False}}
SECRET_KEY = 'netbox-run-local-only-secret-key-0123456789-abcdefghijklmnop'
API_TOKEN_PEPPERS = {1: 'netbox-run-local-only-pepper-0123456789-abcdefghijklmnopqrstuvwxyz'}
DEBUG = False
CONF
  psql -h "${PGHOST:-127.0.0.1}" -p "${PGPORT:-5432}" -U "${PGUSER:-postgres}" -tc "select 1 from pg_database where datname='$db'" \
    | grep -q 1 || psql -h "${PGHOST:-127.0.0.1}" -p "${PGPORT:-5432}" -U "${PGUSER:-postgres}" -c "create database $db" >/dev/null
  (cd "$src/netbox" && "$venv/bin/python" manage.py migrate --no-input >"$src/migrate.log" 2>&1) \
    || { tail -20 "$src/migrate.log"; exit 1; }
  (cd "$src/netbox" && DJANGO_SUPERUSER_PASSWORD=admin "$venv/bin/python" manage.py createsuperuser --no-input \
     --username admin --email admin@example.invalid >/dev/null 2>&1 || true)
  log "NetBox $version ($(cat "$src/COMMIT")) ready in $src, database $db"
}

case "${1:-}" in
  python) python_extract; "$py" --version;;
  setup) setup "${2:?version}";;
  serve) nb "${2:?version}"; cd "$src/netbox" && exec "$venv/bin/python" manage.py runserver --noreload --insecure "127.0.0.1:${PORT:-8045}";;
  flush) nb "${2:?version}"  # the Redis cache too: it holds content type ids that the flush renumbers
         "$venv/bin/python" -c "import redis; [redis.Redis(host='${REDIS_HOST:-127.0.0.1}', port=${REDIS_PORT:-6379},
           db=n).flushdb() for n in ($redis_db, $((redis_db + 1)))]"
         cd "$src/netbox" && "$venv/bin/python" manage.py flush --no-input \
           && DJANGO_SUPERUSER_PASSWORD=admin "$venv/bin/python" manage.py createsuperuser --no-input \
                --username admin --email admin@example.invalid >/dev/null;;
  token) nb "${2:?version}"; cd "$src/netbox" && "$venv/bin/python" manage.py shell -c "
from users.models import Token, User
t = Token(user=User.objects.get(username='admin'), write_enabled=True)
try:
    t.version = 1
except Exception:
    pass
t.save(); print(getattr(t, 'plaintext', None) or t.key)";;
  *) sed -n '2,18p' "$0"; exit 2;;
esac
