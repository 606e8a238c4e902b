#!/usr/bin/env bash
# Git Targets on real Git hosts, through the real binaries: cubd publishes over HTTP with basic
# auth (tests/harness/git_http.mjs in front of `git http-backend`) and over SSH (Debian's sshd,
# tests/harness/sshd.sh), with credentials from --git-credentials-dir, commits signed with
# --git-signing-key (checked by git verify-commit) and committed as --git-committer. Refused:
# a wrong password, an unknown or changed host key, a missing or world-readable credential
# file, credential params that are paths, http:// to anything but loopback; a refused
# publish leaves its Release recorded but not Delivered, and once the credential file is
# fixed cubd's retry delivers it (files are read at each delivery, no restart).
source "$(dirname "${BASH_SOURCE[0]}")/lib.sh"
command -v node >/dev/null || { echo "git_remote_test: node is required" >&2; exit 1; }
[[ -x /usr/sbin/sshd ]] || { echo "git_remote_test: /usr/sbin/sshd is required" >&2; exit 1; }
e2e_init git_remote
HARNESS=$CUB_SOURCE_DIR/tests/harness

# The test's servers stop with it; lib.sh's EXIT trap runs after.
SERVER_PIDS=()
stop_servers() {
  local rc=$?
  local pid
  for pid in "${SERVER_PIDS[@]}"; do kill "$pid" 2>/dev/null; done
  (exit "$rc")
  _e2e_exit
}
trap stop_servers EXIT

section "servers: git http-backend behind basic auth, sshd with a test key"
ROOT=$E2E_TMP/http-repos
mkdir -p "$ROOT"
git init -q --bare "$ROOT/web.git" || e2e_fail "git init failed"
node "$HARNESS/git_http.mjs" "$ROOT" alice 's3cret pass' >"$E2E_TMP/http.out" 2>&1 </dev/null &
SERVER_PIDS+=($!)
for _ in $(seq 100); do
  read -r word HTTP_PORT <"$E2E_TMP/http.out" 2>/dev/null && [[ $word == listening ]] && break
  sleep 0.1
done
[[ ${HTTP_PORT:-} =~ ^[0-9]+$ ]] || e2e_fail "git_http.mjs did not start: $(cat "$E2E_TMP/http.out")"
read -r SSH_PORT SSHD_PID < <(bash "$HARNESS/sshd.sh" "$E2E_TMP/sshd") ||
  e2e_fail "sshd.sh failed"
SERVER_PIDS+=("$SSHD_PID")
git init -q --bare "$E2E_TMP/ssh.git" || e2e_fail "git init failed"
SSH_USER=$(id -un)

# Credential files are looked up in a directory per Space owning the Target: all of this
# test's Targets belong to the Space platform.
CREDS_ROOT=$E2E_TMP/creds
CREDS=$CREDS_ROOT/platform
mkdir -p "$CREDS"
printf 's3cret pass\n' >"$CREDS/web-token"
printf 'wrong\n' >"$CREDS/bad-token"
cp "$E2E_TMP/sshd/user_ed25519" "$CREDS/deploy-key"
cp "$E2E_TMP/sshd/known_hosts" "$CREDS/known_hosts"
ssh-keygen -q -t ed25519 -N '' -f "$E2E_TMP/stranger" || e2e_fail "ssh-keygen failed"
echo "[127.0.0.1]:$SSH_PORT $(cut -d' ' -f1,2 "$E2E_TMP/stranger.pub")" >"$CREDS/wrong_known_hosts"
echo "[127.0.0.1]:1 $(cut -d' ' -f1,2 "$E2E_TMP/stranger.pub")" >"$CREDS/other_known_hosts"
cp "$CREDS/web-token" "$CREDS/open-token"
chmod 600 "$CREDS"/*
chmod 644 "$CREDS/open-token" "$CREDS"/*known_hosts
ssh-keygen -q -t ed25519 -N '' -C cubd -f "$E2E_TMP/commit-key" || e2e_fail "ssh-keygen failed"

section "cubd refuses bad --git-* flags"
expect_fail 1 "--git-committer 'cub bot': no <EMAIL> at the end" cubd serve \
  --database-url "$E2E_SERVE_URL" --listen 127.0.0.1:0 --work-dir "$E2E_TMP/w" \
  --signing-key "$E2E_TMP/signing-key.pem" --git-committer 'cub bot'
cp "$E2E_TMP/commit-key" "$E2E_TMP/open-key"
chmod 644 "$E2E_TMP/open-key"
expect_fail 1 "--git-signing-key $E2E_TMP/open-key: readable by others" cubd serve \
  --database-url "$E2E_SERVE_URL" --listen 127.0.0.1:0 --work-dir "$E2E_TMP/w" \
  --signing-key "$E2E_TMP/signing-key.pem" --git-signing-key "$E2E_TMP/open-key"
expect_fail 1 "--git-credentials-dir $E2E_TMP/nowhere: not a directory" cubd serve \
  --database-url "$E2E_SERVE_URL" --listen 127.0.0.1:0 --work-dir "$E2E_TMP/w" \
  --signing-key "$E2E_TMP/signing-key.pem" --git-credentials-dir "$E2E_TMP/nowhere"

e2e_start_cubd main --git-credentials-dir "$CREDS_ROOT" --git-signing-key "$E2E_TMP/commit-key" \
  --git-committer 'cub bot <cub-bot@example.com>'
export CUB_SERVER=$E2E_SERVER CUB_TOKEN=$ADMIN_TOKEN
expect_contains "$(cat "${CUBD_LOG[main]}")" "signing Git commits with ssh-ed25519 "
echo "cub-bot@example.com $(cut -d' ' -f1,2 "$E2E_TMP/commit-key.pub")" >"$E2E_TMP/allowed_signers"

HTTP_URL=http://127.0.0.1:$HTTP_PORT/web.git
SSH_URL=ssh://$SSH_USER@127.0.0.1:$SSH_PORT$E2E_TMP/ssh.git
target() {  # target NAME REPOSITORY PARAM=VALUE...
  local name=$1 repo=$2
  shift 2
  local args=() p
  for p in "$@"; do args+=(--param "$p"); done
  expect_ok cub target create --space platform "$name" --provider Git \
    --param "repository=$repo" --param "path=clusters/{space}" "${args[@]}"
}
space() {  # space NAME TARGET: a Space with one Unit, releasing to platform/TARGET
  expect_ok cub space create "$1"
  printf 'apiVersion: v1\nkind: ConfigMap\nmetadata:\n  name: %s\ndata:\n  k: v\n' "$1" \
    >"$E2E_TMP/$1.yaml"
  expect_ok cub unit create --space "$1" config "$E2E_TMP/$1.yaml"
  expect_ok cub space update "$1" --release-target "platform/$2"
}
# The number of Releases of space $1 recorded as delivered: every row before the outbox, rows
# whose delivery_state is Delivered after it (to_jsonb reads the column where it exists).
releases_of() {
  db -c "SELECT count(*) FROM releases r JOIN spaces s ON s.id = r.space_id
         WHERE s.slug = '$1' AND coalesce(to_jsonb(r)->>'delivery_state', 'Delivered') = 'Delivered'"
}

section "credential params are checked when a Target is made"
expect_ok cub space create platform
expect_fail 1 "param 'password-file' must be a plain file name" cub target create \
  --space platform bad --provider Git --param "repository=$HTTP_URL" \
  --param "password-file=../creds/web-token"
expect_fail 1 "param 'ssh-key-file' must be a plain file name" cub target create \
  --space platform bad --provider Git --param "repository=$SSH_URL" \
  --param "ssh-key-file=/etc/ssh/ssh_host_ed25519_key" --param known-hosts-file=known_hosts
expect_fail 1 "param 'ssh-key-file' needs param 'known-hosts-file'" cub target create \
  --space platform bad --provider Git --param "repository=$SSH_URL" --param ssh-key-file=x
expect_fail 1 "http:// only to a loopback address" cub target create \
  --space platform bad --provider Git --param "repository=http://example.com/web.git"
expect_fail 1 "must not carry a password" cub target create --space platform bad \
  --provider Git --param "repository=http://alice:s3cret@127.0.0.1:$HTTP_PORT/web.git"

section "publish over HTTP with a password file, signed"
target web "$HTTP_URL" username=alice password-file=web-token
space app-web web
expect_ok cub release publish app-web
expect_contains "$OUT" "Release 1 of app-web published to platform/web"
WEB=$ROOT/web.git
expect_eq "Release 1 of app-web" "$(git --git-dir="$WEB" log -1 --format=%s main)"
expect_contains "$(git --git-dir="$WEB" show main:clusters/app-web/config.yaml)" "name: app-web"
expect_eq "cub bot <cub-bot@example.com>" "$(git --git-dir="$WEB" log -1 --format='%cn <%ce>' main)"
expect_ok git --git-dir="$WEB" -c gpg.format=ssh \
  -c "gpg.ssh.allowedSignersFile=$E2E_TMP/allowed_signers" verify-commit main
expect_contains "$ERR" 'Good "git" signature for cub-bot@example.com'

section "publish over SSH with a key and known_hosts, signed"
target ssh "$SSH_URL" ssh-key-file=deploy-key known-hosts-file=known_hosts
space app-ssh ssh
expect_ok cub release publish app-ssh
expect_contains "$OUT" "Release 1 of app-ssh published to platform/ssh"
expect_eq "Release 1 of app-ssh" "$(git --git-dir="$E2E_TMP/ssh.git" log -1 --format=%s main)"
expect_ok git --git-dir="$E2E_TMP/ssh.git" -c gpg.format=ssh \
  -c "gpg.ssh.allowedSignersFile=$E2E_TMP/allowed_signers" verify-commit main
expect_contains "$ERR" 'Good "git" signature for cub-bot@example.com'
expect_contains "$(cat "$E2E_TMP/sshd/sshd.log")" "Accepted publickey for $SSH_USER"
# A second Release goes over the same clone, fetching first.
printf 'apiVersion: v1\nkind: ConfigMap\nmetadata:\n  name: app-ssh\ndata:\n  k: v2\n' \
  >"$E2E_TMP/app-ssh-2.yaml"
expect_ok cub unit update --space app-ssh config "$E2E_TMP/app-ssh-2.yaml"
expect_ok cub release publish app-ssh
expect_eq "Release 2 of app-ssh" "$(git --git-dir="$E2E_TMP/ssh.git" log -1 --format=%s main)"
expect_contains "$(git --git-dir="$E2E_TMP/ssh.git" show main:clusters/app-ssh/config.yaml)" "k: v2"

section "refusals: nothing is pushed, nothing Delivered"
show_err() { [[ -z ${E2E_VERBOSE:-} ]] || echo "    stderr: $ERR"; }  # the refusal, when verbose
WEB_TIP=$(git --git-dir="$WEB" rev-parse main)
SSH_TIP=$(git --git-dir="$E2E_TMP/ssh.git" rev-parse main)
target web-bad "$HTTP_URL" username=alice password-file=bad-token
space bad-pass web-bad
expect_fail 1 "the server $HTTP_URL refused user 'alice' with the password in password-file $CREDS/bad-token" \
  cub release publish bad-pass
show_err
expect_eq 0 "$(releases_of bad-pass)" "releases of bad-pass"

target web-none "$HTTP_URL" username=alice password-file=missing-token
space no-file web-none
expect_fail 1 "param 'password-file': $CREDS/missing-token: cannot open: No such file or directory" \
  cub release publish no-file
show_err
expect_eq 0 "$(releases_of no-file)" "releases of no-file"

section "a Target of another Space cannot use platform's credential files"
expect_ok cub space create intruder
expect_ok cub target create --space intruder steal --provider Git --param "repository=$HTTP_URL" \
  --param username=alice --param password-file=web-token --param "path=clusters/{space}"
expect_ok cub space create stolen
printf 'apiVersion: v1\nkind: ConfigMap\nmetadata:\n  name: stolen\ndata:\n  k: v\n' \
  >"$E2E_TMP/stolen.yaml"
expect_ok cub unit create --space stolen config "$E2E_TMP/stolen.yaml"
expect_ok cub space update stolen --release-target intruder/steal
expect_fail 1 "param 'password-file': $CREDS_ROOT/intruder/web-token: cannot open" \
  cub release publish stolen
expect_eq 0 "$(releases_of stolen)" "releases of stolen delivered"

target web-open "$HTTP_URL" username=alice password-file=open-token
space open-file web-open
expect_fail 1 "$CREDS/open-token: readable by others (mode 0644)" cub release publish open-file
show_err

target web-anon "$HTTP_URL"
space anon web-anon
expect_fail 1 "asks for a login; the Target names no 'password-file'" cub release publish anon
show_err

target ssh-changed "$SSH_URL" ssh-key-file=deploy-key known-hosts-file=wrong_known_hosts
space changed ssh-changed
expect_fail 1 "refusing the SSH server [127.0.0.1]:$SSH_PORT: host key ssh-ed25519 SHA256:" \
  cub release publish changed
show_err
expect_contains "$ERR" "does not match the keys known-hosts-file $CREDS/wrong_known_hosts lists"
expect_eq 0 "$(releases_of changed)" "releases of changed"

target ssh-unknown "$SSH_URL" ssh-key-file=deploy-key known-hosts-file=other_known_hosts
space unknown ssh-unknown
expect_fail 1 "is unknown: known-hosts-file $CREDS/other_known_hosts has no line for [127.0.0.1]:$SSH_PORT" \
  cub release publish unknown
show_err
expect_eq 0 "$(releases_of unknown)" "releases of unknown"

target ssh-anon "$SSH_URL"
space ssh-anon ssh-anon
expect_fail 1 "the Target names no 'known-hosts-file' to check it against" \
  cub release publish ssh-anon
show_err

expect_eq "$WEB_TIP" "$(git --git-dir="$WEB" rev-parse main)" "web.git tip"
expect_eq "$SSH_TIP" "$(git --git-dir="$E2E_TMP/ssh.git" rev-parse main)" "ssh.git tip"
expect_eq "$WEB_TIP" "$(git --git-dir="$WEB" rev-list -1 --all)" "web.git has no other refs"
expect_eq 1 "$(releases_of app-web)" "releases of app-web"

section "a fixed credential file is used by the next retry"
expect_ok cub release get --space bad-pass --release 1 -o json
expect_eq Failed "$(jget DeliveryState)"
expect_contains "$(jget DeliveryError)" "refused user 'alice'"
printf 's3cret pass\n' >"$CREDS/bad-token"
wait_for "bad-pass delivered after the fix" "SELECT count(*) = 1 FROM releases r
  JOIN spaces s ON s.id = r.space_id WHERE s.slug = 'bad-pass' AND r.delivery_state = 'Delivered'"
expect_eq "Release 1 of bad-pass" "$(git --git-dir="$WEB" log -1 --format=%s main)"
expect_ok git --git-dir="$WEB" -c gpg.format=ssh \
  -c "gpg.ssh.allowedSignersFile=$E2E_TMP/allowed_signers" verify-commit main

e2e_finish
