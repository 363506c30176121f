#!/usr/bin/env bash
# Builds what SONiC's Generic Config Updater (vendored in tests/gcu/) needs to run in the test suite, WITHOUT
# installing anything into the system or the venv:
#   - libyang 3.12.2, the version SONiC builds (sonic-buildimage rules/libyang3.mk): Debian trixie's libyang3, which
#     scripts/frr10.sh already extracts (with trixie's glibc and loader) into out/frr/10.3/root;
#   - its headers (trixie's libyang-dev and libpcre2-dev, downloaded with frr10.sh's private apt, extracted here);
#   - the Python binding SONiC uses: CESNET libyang-python, `libyang` 3.2.0 from the Python registry (= 3.1.0 plus
#     the three patches sonic-buildimage src/libyang3-py3 applies: JSON string datatypes, backlinks, a test fix),
#     compiled against those headers, with jsondiff and natsort (GCU's and sonic-config-engine's imports), into
#     out/gcu/site. Versions: requirements-gcu.txt, pinned in constraints.txt.
# The binding links trixie's libyang (glibc 2.38), so GCU runs under trixie's loader: tests/gcu/harness.py.
#
#   scripts/gcu-env.sh           build + verify (idempotent: a verified build is kept)
#   scripts/gcu-env.sh --check   only verify (exit 1 if missing or broken)
set -euo pipefail

repo=$(cd "$(dirname "$0")/.." && pwd)
frr_dir=$(realpath -m "${FT_FRR10_DIR:-$repo/out/frr/10.3}")
dir=$(realpath -m "${FT_GCU_DIR:-$repo/out/gcu}")
python=${FT_GCU_PYTHON:-$repo/.venv/bin/python}
[ -x "$python" ] || python=$(command -v python3.11 || command -v python3)
# the interpreter itself, not a wrapper (a pyenv shim is a shell script, which the loader cannot run)
python=$("$python" -c 'import sys; print(sys.executable)')
triplet=x86_64-linux-gnu
libdir=$frr_dir/root/usr/lib/$triplet
log() { echo "gcu-env: $*"; }

verify() {
  [ -x "$libdir/ld-linux-x86-64.so.2" ] && [ -d "$dir/site/libyang" ] || return 1
  local out
  out=$(cd "$repo/tests/gcu" && PYTHONPATH="$dir/site" "$libdir/ld-linux-x86-64.so.2" --library-path "$libdir" \
        "$python" gcu_runner.py probe 2>&1) || { log "probe failed: ${out: -400}"; return 1; }
  log "ready: $out"
}

if [ "${1:-}" = "--check" ]; then verify; exit $?; fi
if verify 2>/dev/null; then exit 0; fi

[ "$(dpkg --print-architecture 2>/dev/null)" = amd64 ] || { log "only amd64 is supported"; exit 1; }
"$repo/scripts/frr10.sh" >/dev/null || { log "scripts/frr10.sh failed: no trixie libyang3 to build against"; exit 1; }
# frr10.sh's private apt (trixie sources only, downloads only): fetch the two header packages the binding needs.
apt_opts=(-o "Dir::Etc::sourcelist=$frr_dir/apt/sources.list" -o "Dir::Etc::sourceparts=-"
          -o "Dir::State::Lists=$frr_dir/apt/lists" -o "Dir::Cache=$frr_dir/apt/cache" -o "Dir::State::status=/dev/null"
          -o "APT::Sandbox::User=root" -o "Debug::NoLocking=1")
ls "$frr_dir/apt/lists/"*Packages* >/dev/null 2>&1 || apt-get "${apt_opts[@]}" update -qq
rm -rf "$dir/debs" "$dir/dev" "$dir/site.new"
mkdir -p "$dir/debs" "$dir/dev/lib"
(cd "$dir/debs" && apt-get "${apt_opts[@]}" download libyang-dev libpcre2-dev >/dev/null)
for deb in "$dir/debs/"*.deb; do dpkg-deb -x "$deb" "$dir/dev"; done
ln -sf "$libdir/libyang.so.3" "$dir/dev/lib/libyang.so"
log "building the libyang binding against $(ls "$dir/debs" | tr '\n' ' ')"
LIBYANG_HEADERS="$dir/dev/usr/include" LIBYANG_LIBRARIES="$dir/dev/lib" \
LIBYANG_EXTRA_LDFLAGS="-Wl,-rpath-link,$libdir -Wl,-rpath,$libdir" \
  "$python" -m pip install -q --no-cache-dir --no-deps --target "$dir/site.new" --no-binary libyang \
  -r "$repo/requirements-gcu.txt" -c "$repo/constraints.txt"
rm -rf "$dir/site" && mv "$dir/site.new" "$dir/site"
verify || { log "the build in $dir/site does not load SONiC's YANG models; GCU tests will skip"; exit 1; }
