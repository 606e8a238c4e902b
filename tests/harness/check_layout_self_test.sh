#!/usr/bin/env bash
# check_layout.sh fails on a tree that breaks the layout, naming each offending include, and
# passes on one that keeps it.
set -euo pipefail
HERE=$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd -P)
TMP=$(mktemp -d)
trap 'rm -rf "$TMP"' EXIT

mkdir -p "$TMP/good/lib/util" "$TMP/good/lib/ops" "$TMP/good/cli"
printf '#include <string>\n' >"$TMP/good/lib/util/a.h"
printf '#include "lib/util/a.h"\n#include "cub/v1/common.pb.h"\n' >"$TMP/good/lib/ops/b.cc"
printf '#include "lib/util/a.h"\n#include <grpcpp/grpcpp.h>\n' >"$TMP/good/cli/c.cc"
bash "$HERE/check_layout.sh" "$TMP/good" >/dev/null

cp -r "$TMP/good" "$TMP/bad"
printf '#include "lib/ops/b.h"\n' >>"$TMP/bad/lib/util/a.h"           # util -> ops
printf '#include <grpcpp/grpcpp.h>\n' >>"$TMP/bad/lib/ops/b.cc"      # lib -> gRPC
printf '#include "lib/store/pool.h"\n' >>"$TMP/bad/cli/c.cc"         # cli -> store
mkdir -p "$TMP/bad/lib/newdir"                                       # unknown lib dir
if bash "$HERE/check_layout.sh" "$TMP/bad" 2>"$TMP/err"; then
  echo "FAIL: check_layout.sh passed a tree that breaks the layout" >&2
  exit 1
fi
for expect in 'lib/util/a.h:2: includes "lib/ops/b.h"' \
  'lib/ops/b.cc:3: includes <grpcpp/grpcpp.h>' 'cli/c.cc:3: includes "lib/store/pool.h"' 'lib/newdir: not in the layout'; do
  if ! grep -qF "$expect" "$TMP/err"; then
    echo "FAIL: expected '$expect' in:" >&2
    cat "$TMP/err" >&2
    exit 1
  fi
done
echo "check_layout_self_test: ok"
