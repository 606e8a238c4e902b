#!/usr/bin/env bash
# The main job on one machine: installs what is missing, builds, starts cubd on its embedded
# PostgreSQL at 127.0.0.1:7070 (REST/JSON mirror on 127.0.0.1:7071), creates an admin identity,
# saves a `cub` context for it, and walks a short sample: a base Space and two variants, then a
# gated rollout of a change through a ChangeWorkflow, with Releases to a directory, live status,
# an approval and the deployment history. cubd keeps running afterwards, and `cub` and
# `cubd` are linked into /usr/local/bin (root) or ~/.local/bin.
#
# Environment: CUB_DATA_DIR (default: cubd's own default), CUB_LISTEN, CUB_HTTP_LISTEN.
set -euo pipefail
ROOT=$(cd "$(dirname "${BASH_SOURCE[0]}")/../.." && pwd -P)
cd "$ROOT"

bash deploy/local/install-deps.sh
bash deploy/local/build.sh >/tmp/cub-build.log 2>&1 || { tail -n 40 /tmp/cub-build.log; exit 1; }

BIN=$ROOT/build/bin
# cub and cubd on the PATH: links in /usr/local/bin for root, else in ~/.local/bin (which
# Debian's default ~/.profile puts on the PATH when it exists).
if [[ $(id -u) == 0 ]]; then PATH_DIR=/usr/local/bin; else PATH_DIR=$HOME/.local/bin; fi
mkdir -p "$PATH_DIR"
ln -sfn "$BIN/cub" "$PATH_DIR/cub"
ln -sfn "$BIN/cubd" "$PATH_DIR/cubd"
LISTEN=${CUB_LISTEN:-127.0.0.1:7070}
HTTP_LISTEN=${CUB_HTTP_LISTEN:-127.0.0.1:7071}
if [[ $(id -u) == 0 ]]; then default_dir=/var/lib/cub; else default_dir=${XDG_DATA_HOME:-$HOME/.local/share}/cub; fi
DATA_DIR=${CUB_DATA_DIR:-$default_dir}
mkdir -p "$DATA_DIR"
PIDFILE=$DATA_DIR/cubd.pid
LOG=$DATA_DIR/cubd.log

step() { printf '\n\033[1m== %s\033[0m\n' "$*"; }

if [[ -f $PIDFILE ]] && kill -0 "$(cat "$PIDFILE")" 2>/dev/null; then
  step "stopping the cubd this script started earlier (pid $(cat "$PIDFILE"))"
  kill "$(cat "$PIDFILE")"
  while kill -0 "$(cat "$PIDFILE")" 2>/dev/null; do sleep 0.2; done
fi

step "starting cubd on $LISTEN with its embedded PostgreSQL in $DATA_DIR"
# The log is appended to: wait for this start's line, not one an earlier run left.
log_size=$(stat -c %s "$LOG" 2>/dev/null || echo 0)
setsid nohup "$BIN/cubd" serve --data-dir "$DATA_DIR" --listen "$LISTEN" \
  --http-listen "$HTTP_LISTEN" >>"$LOG" 2>&1 </dev/null &
echo $! >"$PIDFILE"
for _ in $(seq 600); do
  [[ $(tail -c "+$((log_size + 1))" "$LOG" 2>/dev/null) == *"serving gRPC on $LISTEN"* ]] && break
  kill -0 "$(cat "$PIDFILE")" 2>/dev/null || { echo "cubd exited:"; tail -n 20 "$LOG"; exit 1; }
  sleep 0.2
done
echo "cubd is up (pid $(cat "$PIDFILE"), log $LOG)"

step "creating the admin identity 'demo-admin' and saving a cub context for it"
if ! token=$("$BIN/cubd" user create demo-admin --admin --data-dir "$DATA_DIR" 2>/dev/null); then
  token=$("$BIN/cubd" user token demo-admin --data-dir "$DATA_DIR")  # it exists: a new token
fi
printf '$ cub auth login --server %s --token <token> --use\n' "$LISTEN"
"$BIN/cub" auth login --server "$LISTEN" --token "$token" --use
# Shows each sample command as it could be typed, then runs it.
cub() {
  printf '$ cub'
  local a
  for a in "$@"; do
    if [[ $a =~ ^[A-Za-z0-9_./:=,@+-]+$ ]]; then printf ' %s' "$a"
    elif [[ $a != *"'"* ]]; then printf " '%s'" "$a"
    elif [[ $a != *[\$\`\"\\!]* ]]; then printf ' "%s"' "$a"
    else printf ' %q' "$a"; fi
  done
  printf '\n'
  "$BIN/cub" "$@"
}

step "a fresh sample: remove what an earlier run left"
for s in acme-prod acme-dev acme-base acme-platform; do
  "$BIN/cub" space delete "$s" >/dev/null 2>&1 || true
done

step "a base Space with a Deployment"
cub space create acme-base --component acme --label Stage=Base
cat >/tmp/cub-demo-deployment.yaml <<'YAML'
apiVersion: apps/v1
kind: Deployment
metadata:
  name: acme
  labels:
    app: acme
spec:
  replicas: 2
  selector:
    matchLabels:
      app: acme
  template:
    metadata:
      labels:
        app: acme
    spec:
      containers:
        - name: acme
          image: ghcr.io/acme/acme:v451
YAML
cub unit create --space acme-base deployment /tmp/cub-demo-deployment.yaml --label tier=frontend

step "two variants: dev from the base, prod from dev"
cub variant create acme-dev acme-base --stage Development
cub variant create acme-prod acme-dev --stage Production --region us-east1
cub link list --space acme-prod

step "an edit in the base: bump the image"
sed 's/:v451/:v452/' /tmp/cub-demo-deployment.yaml >/tmp/cub-demo-deployment-v452.yaml
cub unit update --space acme-base deployment /tmp/cub-demo-deployment-v452.yaml \
  --change-desc "Release v452: bump the image tag"
cub revision list --space acme-base --unit deployment

step "where is what: list with --where"
cub unit list --space "*" --where "Labels.tier = 'frontend' AND HeadRevisionNum > 1"
cub unit list --space "*" --where "Space.Labels.Stage IN ('Development', 'Production')"
cub space list --where "Labels.Stage = 'Production' OR Labels.Stage = 'Base'"

step "a rollout: a platform Space with a release Target and a ChangeWorkflow"
# Releases are written as files under the data directory (a GitOps operator would watch them).
DEPLOY_DIR=$(cd "$DATA_DIR" && pwd -P)/demo-deploy
cub space create acme-platform
cub target create --space acme-platform local --provider Directory --param "path=$DEPLOY_DIR"
cat >/tmp/cub-demo-flow.yaml <<'YAML'
Stages:
  - Name: dev
    WhereSpace: "Labels.Stage = 'Development'"
  - Name: prod
    WhereSpace: "Labels.Stage = 'Production'"
    Prerequisites: [Released, Healthy, one-approval]
Final:
  Prerequisites: [Released, Healthy]
AttestationPrerequisites:
  - Name: one-approval
    Count: 1
    Description: an approval of the change as it stands in dev
YAML
echo "\$ cat /tmp/cub-demo-flow.yaml"; cat /tmp/cub-demo-flow.yaml
cub changeworkflow create --space acme-platform acme-flow --filename /tmp/cub-demo-flow.yaml
cub space update acme-dev --release-target acme-platform/local
cub space update acme-prod --release-target acme-platform/local

step "two more identities: an approver, and a reporter for the GitOps operator"
# Each gets a saved context of its own (and a new token if it exists from an earlier run).
add_identity() {  # add_identity NAME [cubd user create options]
  local user=$1 user_token
  printf '$ cubd user create %s\n' "$*"
  if ! user_token=$("$BIN/cubd" user create "$@" --data-dir "$DATA_DIR" 2>/dev/null); then
    user_token=$("$BIN/cubd" user token "$user" --data-dir "$DATA_DIR")
  fi
  printf '$ cub auth login --server %s --token <token> --context %s\n' "$LISTEN" "$user"
  "$BIN/cub" auth login --server "$LISTEN" --token "$user_token" --context "$user"
}
add_identity demo-approver
add_identity demo-reporter --service-account
# `cub auth login` leaves the current context (demo-admin's) as it is unless given --use.
cub space grant acme-dev approver --user demo-approver
cub space grant acme-dev reporter --user demo-reporter
cub space grant acme-prod reporter --user demo-reporter

step "a ChangeOrder for the v452 edit, promoted into dev"
cub changeorder create --space acme-base release-v452 \
  --description "Release v452: bump the image tag" --change-workflow acme-platform/acme-flow
cub variant promote --change-order acme-base/release-v452

step "prod is refused: in dev the change is not yet released, reported Healthy or approved"
cub variant promote --change-order acme-base/release-v452 ||
  echo "(refused, exit code $?: nothing was written)"

step "dev publishes the change; the reporter says it is Synced and Healthy"
cub release publish acme-dev --revision ChangeOrder:acme-base/release-v452 | tee /tmp/cub-demo-publish.txt
release=$(sed -n 's/^Release \([0-9]*\) of acme-dev .*/\1/p' /tmp/cub-demo-publish.txt)
cub release set-status --space acme-dev --release "$release" --sync Synced --health Healthy \
  --operation Succeeded --context demo-reporter

step "the approver approves the change as it stands in dev"
cub variant approve --change-order acme-base/release-v452 --stage dev \
  --note "v452 looks good in dev" --context demo-approver

step "prod: promote, publish, report"
cub variant promote --change-order acme-base/release-v452
cub release publish acme-prod --revision ChangeOrder:acme-base/release-v452 | tee /tmp/cub-demo-publish.txt
release=$(sed -n 's/^Release \([0-9]*\) of acme-prod .*/\1/p' /tmp/cub-demo-publish.txt)
cub release set-status --space acme-prod --release "$release" --sync Synced --health Healthy \
  --operation Succeeded --context demo-reporter
echo "\$ grep image: $DEPLOY_DIR/acme-prod/deployment.yaml"
grep image: "$DEPLOY_DIR/acme-prod/deployment.yaml"

step "where the rollout stands"
cub changeorder get --space acme-base release-v452
cub release history --space acme-prod

cat <<MSG

cubd keeps running (pid $(cat "$PIDFILE")); its log is $LOG.
  Use it:   cub space list          (cub and cubd are linked into $PATH_DIR; the saved
                                     context points at $LISTEN)
            curl -s -X POST -H "Authorization: Bearer \$TOKEN" -d '{}' http://$HTTP_LISTEN/v1/SpaceService/ListSpaces
            (the token is in the saved context: \${CUB_CONFIG:-~/.config/cub/config.json})
  As whom:  --context demo-approver or --context demo-reporter acts as those users
  Releases: the files acme-dev and acme-prod published are under $DEPLOY_DIR
  Stop it:  kill \$(cat $PIDFILE)       (its embedded PostgreSQL stops with it)
MSG
