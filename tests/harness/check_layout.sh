#!/usr/bin/env bash
# Checks the #include arrows of lib/, server/ and cli/ against docs/design.md ("Layout and what
# may depend on what"): each directory may include only the directories listed for it below,
# and the third-party headers named in FORBIDDEN stay where the design puts them. Prints every
# offending include as FILE:LINE and exits 1 if there is any.
#
# Usage: check_layout.sh [SOURCE_DIR]   (default: the checkout this script is in)
# A new arrow is a design change: add it to docs/design.md and to ALLOWED together.
set -euo pipefail
ROOT=${1:-$(cd "$(dirname "${BASH_SOURCE[0]}")/../.." && pwd -P)}
cd "$ROOT"

# Directory -> the project directories its files may include ("cub/v1" is the generated API;
# its *.grpc.pb.h services are allowed only where "cub/v1-grpc" is listed).
declare -A ALLOWED=(
  [lib/util]=""
  [lib/domain]=""
  [lib/where]="lib/util"
  [lib/config]="lib/util"
  [lib/cel]="lib/util"
  [lib/functions]="lib/cel lib/config lib/util"
  [lib/workflow]="lib/cel lib/config lib/where lib/domain lib/util"
  [lib/sign]="lib/util"
  [lib/net]="lib/util"
  [lib/identity]="lib/net lib/config lib/util"
  [lib/links]="lib/config lib/functions lib/workflow lib/domain lib/util"
  [lib/oci]="lib/net lib/sign lib/util"
  [lib/argocd]="lib/config lib/util"
  [lib/targets]="lib/oci lib/argocd lib/net lib/sign lib/util"
  [lib/store]="lib/where lib/domain lib/util cub/v1"
  [lib/ops]="lib/util lib/domain lib/where lib/config lib/functions lib/workflow lib/sign lib/links
             lib/targets lib/store lib/net lib/identity lib/oci lib/argocd cub/v1"
  [server]="server lib/ops lib/store lib/sign lib/net lib/identity lib/oci lib/util cub/v1
            cub/v1-grpc"
  [cli]="cli lib/config lib/domain lib/net lib/identity lib/util cub/v1 cub/v1-grpc"
)

# Third-party headers (an extended regex on the included path) and the files allowed to
# include them (an extended regex on the file's path).
declare -A FORBIDDEN=(
  ['^grpcpp?/']='^(server|cli)/'
  ['^pqxx/']='^lib/store/[a-z_]+\.cc$|^lib/store/(pq|sql)\.h$'
  ['^git2']='^lib/targets/'
  ['^libfyaml']='^lib/config/'
  ['^boost/']='^server/'
  ['^CLI/']='^cli/|^server/(main\.cc|cubd_[a-z_]+\.(h|cc))$'
  ['^nlohmann/']='^lib/util/json\.h$'
  ['^curl/']='^lib/net/'
)

failures=0
fail() {
  echo "$1" >&2
  failures=$((failures + 1))
}

# Every include of every source file of the checked directories, as FILE:LINE:PATH.
includes() {
  local dirs=()
  for d in "${!ALLOWED[@]}"; do [[ -d $d ]] && dirs+=("$d"); done
  [[ ${#dirs[@]} -gt 0 ]] || return 0
  grep -rnE --include='*.h' --include='*.cc' \
    '^[[:space:]]*#[[:space:]]*include[[:space:]]*[<"]' "${dirs[@]}" |
    sed -E 's/^([^:]+):([0-9]+):[[:space:]]*#[[:space:]]*include[[:space:]]*[<"]([^>"]+)[>"].*/\1:\2:\3/'
}

# The entry of ALLOWED a file belongs to: its top directory (server, cli) or lib/<name>.
home_of() {
  case $1 in
    lib/*) local rest=${1#lib/}; echo "lib/${rest%%/*}" ;;
    *) echo "${1%%/*}" ;;
  esac
}

while IFS=: read -r file line path; do
  home=$(home_of "$file")
  # The project directory the include names, if it names one.
  target=""
  case $path in
    lib/*/*) rest=${path#lib/}; target="lib/${rest%%/*}" ;;
    server/* | cli/*) target=${path%%/*} ;;
    cub/v1/*.grpc.pb.h) target="cub/v1-grpc" ;;
    cub/v1/*) target="cub/v1" ;;
  esac
  if [[ -n $target && $target != "$home" ]]; then
    allowed=" $(echo ${ALLOWED[$home]}) "
    if [[ $allowed != *" $target "* ]]; then
      fail "$file:$line: includes \"$path\", but $home may not depend on $target (docs/design.md)"
    fi
  fi
  for header in "${!FORBIDDEN[@]}"; do
    if [[ $path =~ $header ]] && ! [[ $file =~ ${FORBIDDEN[$header]} ]]; then
      fail "$file:$line: includes <$path>, which only ${FORBIDDEN[$header]} may (docs/design.md)"
    fi
  done
done < <(includes)

# A directory of lib/ that the table does not know is itself a change of the layout.
shopt -s nullglob
for d in lib/*/; do
  d=${d%/}
  [[ -v "ALLOWED[$d]" ]] || fail "$d: not in the layout of docs/design.md; add it there and here"
done

if ((failures > 0)); then
  echo "check_layout: $failures include(s) break the layout of docs/design.md" >&2
  exit 1
fi
echo "check_layout: every include follows docs/design.md"
