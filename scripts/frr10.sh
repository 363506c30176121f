#!/usr/bin/env bash
# Fetches FRR 10.3 (the FRR generation SONiC ships) from Debian trixie and extracts it, with the trixie libraries
# it needs (glibc 2.41, libyang3, ...), into a directory of the project's own, WITHOUT installing anything into the
# system: the system's FRR 8.4 (bookworm) stays as it is and remains the twin's fallback.
#
#   scripts/frr10.sh            fetch + extract + verify (idempotent: a verified extraction is kept)
#   scripts/frr10.sh --check    only verify an existing extraction (exit 1 if missing or broken)
#   scripts/frr10.sh --mirror   print the Debian mirror taken from the machine's APT sources (exit 1 if none)
#
# Where: $FT_FRR10_DIR, default <repo>/out/frr/10.3 (the same default labs/frr_binaries.py uses). Layout:
#   <dir>/root/          the extracted packages (dpkg-deb -x), e.g. root/usr/lib/frr/zebra, root/usr/bin/vtysh
#   <dir>/apt/           a private apt configuration (trixie sources only; downloads only, never installs)
#   <dir>/debs/          the downloaded .deb files
#   <dir>/VERSION        the version string read from the extracted zebra (written only after verification)
#
# Why patchelf and not LD_LIBRARY_PATH: trixie's binaries need glibc 2.41 (bookworm has 2.36), so they must run
# under trixie's own dynamic loader, and Debian builds them with RUNPATH=/usr/lib/<triplet>/frr (where bookworm's
# libfrr.so.0 8.4 lives). Each extracted FRR executable therefore gets the extracted loader as its ELF
# interpreter and the extracted library directories as its RPATH. An LD_LIBRARY_PATH would also leak into the
# host tools the twin chains in front of a daemon (ip netns exec, unshare, sh) and load glibc 2.41 into them.
set -euo pipefail

repo=$(cd "$(dirname "$0")/.." && pwd)
dir=$(realpath -m "${FT_FRR10_DIR:-$repo/out/frr/10.3}")  # absolute: the patched interpreter paths point into it
suite=trixie
# The Debian mirror this machine's own APT configuration uses (the repository names no host): the first
# deb822 `URIs:` or one-line `deb URL` entry that serves Debian's main archive (not -security), in
# /etc/apt/sources.list and /etc/apt/sources.list.d/*. FT_FRR10_MIRROR overrides it (FT_APT_ETC: tests).
apt_mirror() {
  local files=() file etc=${FT_APT_ETC:-/etc/apt}
  for file in "$etc/sources.list" "$etc"/sources.list.d/*.list "$etc"/sources.list.d/*.sources; do
    [ -f "$file" ] && files+=("$file")
  done
  [ ${#files[@]} -gt 0 ] || return 1
  { sed -n 's/^[[:space:]]*URIs:[[:space:]]*//p' "${files[@]}" | tr ' ' '\n'
    sed -n 's/^[[:space:]]*deb[[:space:]]\+\(\[[^]]*\][[:space:]]\+\)\?\([^[:space:]]\+\).*/\2/p' "${files[@]}"
  } | grep -E '^(https?|file)://' | grep -v -- '-security' | grep -E '/debian/?$' | head -1 | sed 's:/*$::'
}
mirror=${FT_FRR10_MIRROR:-$(apt_mirror || true)}
# frr's Depends in trixie (apt-cache show frr) and their library dependencies; frr-pythontools: frr-reload.py.
packages=(frr frr-pythontools libc6 libgcc-s1 libyang3 libpcre2-8-0 libxxhash0 libcares2 libjson-c5 liblua5.3-0
          libstdc++6 libprotobuf-c1 libreadline8t64 libtinfo6 libunwind8 liblzma5 libpam0g libaudit1 libcap-ng0
          libcap2 libcrypt1)
# A frr.conf the project generated (golden 2x4 leaf: BGP unnumbered, EVPN, L3VNI VRF): FRR 10.3's own parser
# must accept it, or the extraction is not usable for the twin.
sample_conf=$repo/tests/golden/single_tenant_2x4/expected/rendered/leaf1/frr/frr.conf

log() { echo "frr10: $*"; }

verify() {
  local root=$dir/root zebra version
  zebra=$root/usr/lib/frr/zebra
  [ -x "$zebra" ] && [ -x "$root/usr/lib/frr/bgpd" ] && [ -x "$root/usr/bin/vtysh" ] || return 1
  version=$("$zebra" --version 2>/dev/null | sed -n 's/^zebra version //p' | head -1)
  case "$version" in 10.3*) ;; *) log "extracted zebra reports version '${version:-nothing}', not 10.3"; return 1;; esac
  "$root/usr/lib/frr/bgpd" -v 2>/dev/null | grep -q "^bgpd version $version" || { log "bgpd -v failed"; return 1; }
  "$root/usr/lib/frr/bfdd" -v >/dev/null 2>&1 || { log "bfdd -v failed"; return 1; }
  if [ -f "$sample_conf" ]; then
    "$root/usr/bin/vtysh" -C -f "$sample_conf" >/dev/null 2>&1 \
      || { log "FRR $version's vtysh -C rejects $sample_conf"; "$root/usr/bin/vtysh" -C -f "$sample_conf" | tail -5
           return 1; }
  fi
  echo "$version" >"$dir/VERSION"
  log "FRR $version ready in $root (zebra --version, bgpd -v, bfdd -v, vtysh -C -f of a generated frr.conf: ok)"
}

if [ "${1:-}" = "--check" ]; then verify; exit $?; fi
if [ "${1:-}" = "--mirror" ]; then echo "$mirror"; [ -n "$mirror" ]; exit $?; fi
if verify 2>/dev/null; then exit 0; fi

for tool in apt-get dpkg-deb patchelf; do
  command -v "$tool" >/dev/null 2>&1 \
    || { log "'$tool' is needed (apt-get install -y patchelf); FRR 10.3 not extracted"; exit 1; }
done
[ -n "$mirror" ] || { log "no Debian mirror in this machine's APT sources; set FT_FRR10_MIRROR"; exit 1; }
case "$(dpkg --print-architecture)" in
  amd64) triplet=x86_64-linux-gnu;; arm64) triplet=aarch64-linux-gnu;;
  *) log "architecture $(dpkg --print-architecture) is not supported here"; exit 1;;
esac

mkdir -p "$dir/apt/lists/partial" "$dir/apt/cache/archives/partial" "$dir/debs"
keyring=/usr/share/keyrings/debian-archive-keyring.gpg
echo "deb [signed-by=$keyring] $mirror $suite main" >"$dir/apt/sources.list"
# A private apt: only the trixie index, its own lists and cache, an empty dpkg status (nothing counts as
# installed), so `apt-get download` fetches exactly the listed packages and the system's apt state is untouched.
apt_opts=(-o "Dir::Etc::sourcelist=$dir/apt/sources.list" -o "Dir::Etc::sourceparts=-"
          -o "Dir::State::Lists=$dir/apt/lists" -o "Dir::Cache=$dir/apt/cache" -o "Dir::State::status=/dev/null"
          -o "APT::Sandbox::User=root" -o "Debug::NoLocking=1")
log "fetching the $suite index from $mirror"
apt-get "${apt_opts[@]}" update -qq
rm -f "$dir/debs/"*.deb
(cd "$dir/debs" && apt-get "${apt_opts[@]}" download "${packages[@]}" >/dev/null)
log "downloaded $(ls "$dir/debs" | wc -l) packages ($(du -sh "$dir/debs" | cut -f1))"

staging=$dir/root.new
rm -rf "$staging" && mkdir -p "$staging"
for deb in "$dir/debs/"*.deb; do dpkg-deb -x "$deb" "$staging"; done
libdir=$dir/root/usr/lib/$triplet  # final location: the paths patched in are where the tree will live
loader=$(cd "$staging/usr/lib/$triplet" && ls ld-linux*.so.* | head -1)
for exe in "$staging"/usr/lib/frr/* "$staging/usr/bin/vtysh"; do
  [ -f "$exe" ] && head -c 4 "$exe" | grep -q ELF || continue
  patchelf --set-interpreter "$libdir/$loader" --force-rpath --set-rpath "$libdir/frr:$libdir" "$exe"
done
for lib in "$staging/usr/lib/$triplet/frr/"*.so.*.*.* "$staging/usr/lib/$triplet/frr/modules/"*.so; do
  [ -f "$lib" ] && [ ! -L "$lib" ] && patchelf --force-rpath --set-rpath "$libdir/frr:$libdir" "$lib"
done
rm -rf "$dir/root" && mv "$staging" "$dir/root"
verify || { log "the extraction in $dir/root does not run; the twin keeps FRR 8.4"; exit 1; }
