#!/usr/bin/env bash
# Checks deploy/Containerfile against the cubd this checkout built, since no container engine
# runs here to build the image itself:
#   - every stage is Debian 12; the last one runs as a numeric non-root USER with cubd as its
#     ENTRYPOINT, and installs no -dev package;
#   - every library cubd links to directly (its ELF NEEDED entries) comes from a package the
#     runtime stage installs by name, and every library `ldd` loads comes from one of those or
#     from their dependencies (`apt-cache depends --recurse`), mapped to packages with dpkg -S.
# Prints each problem and exits 1 if there is any.
#
# Usage: containerfile_check.sh CONTAINERFILE CUBD_BINARY
set -euo pipefail
file=${1:?usage: containerfile_check.sh CONTAINERFILE CUBD_BINARY}
binary=${2:?usage: containerfile_check.sh CONTAINERFILE CUBD_BINARY}
failures=0
fail() {
  echo "FAIL: $*" >&2
  failures=$((failures + 1))
}

# --- the Containerfile's structure ---------------------------------------------------------
mapfile -t froms < <(grep -E '^FROM ' "$file")
((${#froms[@]} >= 2)) || fail "$file: expected a build stage and a runtime stage (${#froms[@]} FROM)"
for from in "${froms[@]}"; do
  [[ $from =~ debian:(12|bookworm)(-slim)?( |$) ]] || fail "$file: '$from' is not Debian 12"
done
runtime=$(awk '/^FROM /{stage=""} {stage=stage $0 "\n"} END{printf "%s", stage}' "$file")
user=$(grep -E '^USER ' <<<"$runtime" | tail -1 | awk '{print $2}')
[[ $user =~ ^[0-9]+(:[0-9]+)?$ && ${user%%:*} != 0 ]] ||
  fail "$file: the runtime stage's USER '$user' is not a numeric non-root user"
grep -qE '^ENTRYPOINT \[ *"[^"]*/cubd"' <<<"$runtime" ||
  fail "$file: the runtime stage's ENTRYPOINT is not cubd"

# The package names between the markers, after --no-install-recommends.
listed=$(sed -n '/runtime-packages-begin/,/runtime-packages-end/p' "$file" |
  sed -n '/--no-install-recommends/,/&&/p' | tr ' \\' '\n\n' |
  grep -E '^[a-z0-9][a-z0-9.+-]+$' | grep -vE '^(apt-get|install|rm)$' | sort -u)
[[ -n $listed ]] || fail "$file: no runtime package list between the markers"
for pkg in $listed; do
  [[ $pkg == *-dev ]] && fail "$file: the runtime stage installs the build package $pkg"
done

# --- the libraries cubd loads ---------------------------------------------------------------
declare -A resolved=()
while read -r soname path; do
  resolved[$soname]=$path
done < <(ldd "$binary" | awk '$2 == "=>" && $3 ~ /^\// {print $1, $3}')
((${#resolved[@]} > 0)) || fail "ldd $binary resolved no library"

# dpkg knows a library by the path its package ships, /lib or /usr/lib (merged /usr), maybe
# behind a symlink: ask about every spelling at once (dpkg -S is slow to start).
variants() {
  local path=$1 real
  real=$(readlink -f "$path")
  printf '%s\n' "$path" "$real" "${path/#\/lib\//\/usr\/lib\/}" "${path/#\/usr\/lib\//\/lib\/}" \
    "${real/#\/usr\/lib\//\/lib\/}" "${real/#\/lib\//\/usr\/lib\/}"
}
declare -A owner=()
while IFS= read -r line; do
  owner[${line#*: }]=${line%%:*}
done < <(for p in "${resolved[@]}"; do variants "$p"; done | sort -u | xargs dpkg -S 2>/dev/null |
  grep -v '^diversion ' || true)
package_of() {
  local p
  while read -r p; do
    [[ -n ${owner[$p]:-} ]] && { echo "${owner[$p]}"; return; }
  done < <(variants "$1")
  return 1
}

closure=$(apt-cache depends --recurse --no-recommends --no-suggests --no-conflicts --no-breaks \
  --no-replaces --no-enhances $listed 2>/dev/null | grep -E '^[a-z0-9]' | sed 's/:.*//' | sort -u) ||
  true
[[ -n $closure ]] || fail "apt-cache depends gave no dependencies for the runtime packages"

needed=$(objdump -p "$binary" | awk '$1 == "NEEDED" {print $2}')
checked=0
for soname in "${!resolved[@]}"; do
  pkg=$(package_of "${resolved[$soname]}") || {
    fail "${resolved[$soname]} ($soname) belongs to no Debian package"
    continue
  }
  checked=$((checked + 1))
  if grep -qxF "$soname" <<<"$needed"; then
    grep -qxF "$pkg" <<<"$listed" ||
      fail "cubd links to $soname (package $pkg), which the runtime stage does not install"
  else
    grep -qxF "$pkg" <<<"$closure" ||
      fail "cubd loads $soname (package $pkg), which no runtime package depends on"
  fi
done
if ((failures > 0)); then
  echo "containerfile_check: $failures problem(s)" >&2
  exit 1
fi
echo "containerfile_check: ok ($checked libraries, $(wc -w <<<"$needed") linked directly," \
  "$(wc -w <<<"$listed") runtime packages)"
