#!/usr/bin/env bash
# Checks that no function in lib/ or server/ is longer than MAX lines (default 100), counting
# from its signature to its closing brace (a lambda counts toward the function around it and
# on its own). Prints every offender as LINES FILE:LINE NAME and exits 1 if there is any; with
# --top N, prints the N longest instead and exits 0.
#
# Usage: check_function_length.sh [--top N] [SOURCE_DIR] [MAX]
# Needs Universal Ctags (Debian's universal-ctags), which knows where each function ends.
set -euo pipefail
top=0
if [[ ${1:-} == --top ]]; then
  top=$2
  shift 2
fi
ROOT=${1:-$(cd "$(dirname "${BASH_SOURCE[0]}")/../.." && pwd -P)}
MAX=${2:-100}
cd "$ROOT"

if ! ctags --version 2>/dev/null | grep -q 'Universal Ctags'; then
  echo "check_function_length: needs Universal Ctags (apt-get install universal-ctags)" >&2
  exit 2
fi

lengths=$(ctags -R --languages=C++ --kinds-C++=f --fields=+ne -x \
  --_xformat='%{line} %{end} %{input} %{scope}::%{name}' lib server |
  awk '$2 != "" { printf "%d %s:%d %s\n", $2 - $1 + 1, $3, $1, $4 }' | sort -rn)

if ((top > 0)); then
  head -n "$top" <<<"$lengths"
  exit 0
fi
over=$(awk -v max="$MAX" '$1 > max' <<<"$lengths")
if [[ -n $over ]]; then
  echo "check_function_length: functions over $MAX lines (split them into named steps):" >&2
  echo "$over" >&2
  exit 1
fi
echo "check_function_length: no function in lib/ or server/ is over $MAX lines"
