#!/usr/bin/env bash
# End-to-end test of the foundation: the real cub and cubd binaries against a fresh database.
# Covers auth and contexts, users and roles, spaces, units and revisions, tags, variants, links,
# filters, the where language through the CLI, output formats and exit codes, the REST/JSON
# mirror, concurrent writers, two cubd processes on one database, and SIGTERM draining.
# See lib.sh for the helpers (expect_ok, expect_fail, jget ...).
source "$(dirname "${BASH_SOURCE[0]}")/lib.sh"

e2e_init foundation
e2e_start_cubd main
S=$E2E_SERVER
D=$E2E_TMP  # scratch files

# slugs [FIELD [JSON]]: the sorted, comma-joined values of FIELD (default Slug) over the items
# of a list in JSON (default $OUT): the top-level array `-o json` prints for list commands, or
# the first array inside an object (REST responses: {"Spaces": [...]}). E.g. "base,dev".
slugs() {
  local json
  if (($# > 1)); then json=$2; else json=$OUT; fi
  python3 -c '
import json, sys
v = json.loads(sys.argv[1])
if isinstance(v, dict):
    v = next((x for x in v.values() if isinstance(x, list)), [])
print(",".join(sorted(str(x.get(sys.argv[2], "")) for x in v)))' "$json" "${1:-Slug}"
}

# expect_spaces WHERE EXPECTED: `cub space list --where WHERE` lists exactly EXPECTED (sorted
# slugs, comma-joined).
expect_spaces() {
  expect_ok cub space list -o json --where "$1"
  expect_eq "$2" "$(slugs)" "space list --where \"$1\""
}

# expect_head SPACE UNIT N [WHAT]: the unit's HeadRevisionNum is N.
expect_head() {
  expect_ok cub unit get --space "$1" "$2" -o json
  expect_eq "$3" "$(jget Unit.HeadRevisionNum)" "${4:-HeadRevisionNum of $1/$2}"
}

cat >"$D/web1.yaml" <<'EOF'
apiVersion: apps/v1
kind: Deployment
metadata:
  name: web
  labels:
    app: web
spec:
  replicas: 1
  template:
    spec:
      containers:
        - name: web
          image: nginx:1.25
EOF
sed 's/replicas: 1/replicas: 2/' "$D/web1.yaml" >"$D/web2.yaml"
sed 's/replicas: 1/replicas: 3/' "$D/web1.yaml" >"$D/web3.yaml"
# web2.yaml written differently: other indentation, quoting, a comment, flow style.
cat >"$D/web2-reformatted.yaml" <<'EOF'
# the same document as web2.yaml
apiVersion: "apps/v1"
kind: 'Deployment'
metadata:
    name: web
    labels: {app: web}
spec:
    replicas: 2
    template:
        spec:
            containers:
            -   name: "web"
                image: nginx:1.25
EOF
cat >"$D/multi.yaml" <<'EOF'
apiVersion: v1
kind: ConfigMap
metadata:
  name: app-config
data:
  LOG_LEVEL: info
---
apiVersion: v1
kind: Service
metadata:
  name: app
spec:
  ports:
    - port: 80
EOF
cat >"$D/bad.yaml" <<'EOF'
apiVersion: v1
kind: ConfigMap
metadata:
  name: [unclosed
data:
  a: b
EOF

###############################################################################################
section "auth"

# No config file, no flags: there is no server to talk to.
expect_fail 1 "Failed: " cub whoami
expect_contains "$ERR" "no server"
# A server but no token: cubd refuses with UNAUTHENTICATED.
expect_fail 1 "Failed: " cub whoami --server "$S"
expect_contains "$ERR" "no bearer token" "no-token message"
expect_eq "" "$OUT" "stdout of a refused call"
expect_match "$(cat "${CUBD_LOG[main]}")" 'method=AuthService/WhoAmI user=- code=UNAUTHENTICATED' \
  "cubd log of the call without a token"
# A wrong token.
expect_fail 1 "Failed: " cub whoami --server "$S" --token cub_not-a-real-token
expect_contains "$ERR" "token is not valid" "bad-token message"
expect_fail 1 "Failed: " cub space list --server "$S" --token cub_not-a-real-token
# Logging in with a wrong token is refused and saves nothing.
expect_fail 1 "Failed: " cub auth login --server "$S" --token cub_not-a-real-token
expect_eq "no" "$([[ -e $CUB_CONFIG ]] && echo yes || echo no)" "config written by a failed login"
# Flags work without any context.
expect_ok cub whoami --server "$S" --token "$ADMIN_TOKEN"
expect_contains "$OUT" "admin"
# Logging in saves a context and makes it current.
expect_ok cub auth login --server "$S" --token "$ADMIN_TOKEN"
expect_contains "$OUT" "Logged in to $S as admin"
expect_eq "yes" "$([[ -f $CUB_CONFIG ]] && echo yes || echo no)" "config file exists"
expect_eq "600" "$(stat -c %a "$CUB_CONFIG")" "config file mode"
expect_eq "$S" "$(jget CurrentContext "$(cat "$CUB_CONFIG")")" "CurrentContext"
expect_eq "$ADMIN_TOKEN" "$(python3 -c '
import json,sys; print(json.load(open(sys.argv[1]))["Contexts"][sys.argv[2]]["Token"])' \
  "$CUB_CONFIG" "$S")" "saved token"
# ... so commands now work without flags.
expect_ok cub whoami
expect_contains "$OUT" "admin"
expect_ok cub whoami -o json
expect_eq "admin" "$(jget User.Username)" "whoami Username"
expect_eq "true" "$(jget User.Admin)" "whoami Admin"
expect_match "$(jget User.UserID)" '^[0-9a-f-]{36}$' "whoami UserID"
expect_ok cub auth whoami -o json
expect_eq "admin" "$(jget User.Username)" "auth whoami Username"

BOB_TOKEN=$(create_user bob --group team-b) || e2e_fail "cubd user create bob failed"
expect_match "$BOB_TOKEN" '^cub_' "bob's token"
CAROL_TOKEN=$(create_user carol --group team-c) || e2e_fail "cubd user create carol failed"
# A second user of the same name is refused.
expect_fail 1 "already exists" cubd user create bob --database-url "$E2E_DB_URL"
expect_ok cubd user list --database-url "$E2E_DB_URL"
expect_contains "$OUT" "bob"
expect_contains "$OUT" "team-b"
# Migrations are idempotent; another token for bob works alongside the first.
expect_ok cubd migrate --database-url "$E2E_DB_URL"
expect_eq "schema is up to date" "$OUT" "second cubd migrate"
expect_ok cubd user token bob --database-url "$E2E_DB_URL"
BOB_TOKEN2=$OUT
expect_ok cub whoami --server "$S" --token "$BOB_TOKEN2" -o json
expect_eq "bob" "$(jget User.Username)" "bob's second token"
expect_ok cub whoami --server "$S" --token "$BOB_TOKEN" -o json
expect_eq "bob" "$(jget User.Username)" "bob's first token still valid"
expect_fail 1 "Failed: " cubd user token nobody --database-url "$E2E_DB_URL"
expect_contains "$ERR" "not found"
expect_fail 1 "Failed: " cubd user create both --admin --service-account --database-url "$E2E_DB_URL"
expect_fail 2 "" cubd serve --database-url "$E2E_DB_URL" --tls-cert /nonexistent.pem

# CUB_TOKEN overrides the context's token; CUB_SERVER its server.
expect_ok env CUB_TOKEN="$BOB_TOKEN" cub whoami -o json
expect_eq "bob" "$(jget User.Username)" "whoami with CUB_TOKEN"
expect_eq '["team-b"]' "$(jget User.Groups)" "bob's groups"
expect_eq "false" "$(jget User.Admin)" "bob is no admin"
expect_fail 1 "Failed: cannot reach cubd at 127.0.0.1:1" env CUB_SERVER=127.0.0.1:1 cub whoami --timeout 5
expect_ok env CUB_CONFIG="$D/none.json" CUB_SERVER="$S" CUB_TOKEN="$BOB_TOKEN" cub whoami -o json
expect_eq "bob" "$(jget User.Username)" "whoami from CUB_SERVER+CUB_TOKEN only"
# A flag beats the environment.
expect_ok env CUB_TOKEN=cub_bogus cub whoami --token "$BOB_TOKEN" -o json
expect_eq "bob" "$(jget User.Username)" "--token over CUB_TOKEN"
expect_fail 1 "not valid" env CUB_TOKEN=cub_bogus cub whoami
# Named contexts.
# A second login does not switch the current context unless asked (--use).
expect_ok cub auth login --server "$S" --token "$BOB_TOKEN" --context bob
expect_contains "$OUT" "saved as context bob, the current context is still $S"
expect_ok cub whoami -o json
expect_eq "admin" "$(jget User.Username)" "current context after login --context bob"
expect_ok cub auth login --server "$S" --token "$BOB_TOKEN" --context bob --use
expect_contains "$OUT" "saved as context bob (current)"
expect_ok cub whoami -o json
expect_eq "bob" "$(jget User.Username)" "current context after login --context bob --use"
expect_ok cub whoami -o json --context "$S"
expect_eq "admin" "$(jget User.Username)" "--context picks the admin context"
expect_fail 1 "no context nope" cub whoami --context nope
expect_ok cub auth login --server "$S" --token "$ADMIN_TOKEN" --use
expect_ok cub whoami -o json
expect_eq "admin" "$(jget User.Username)" "back to the admin context"

# Runs cub as bob (the context's server, bob's token).
# shellcheck disable=SC2317  # Called through expect_ok.
as_bob() { env CUB_TOKEN="$BOB_TOKEN" "$@"; }
# shellcheck disable=SC2317
as_carol() { env CUB_TOKEN="$CAROL_TOKEN" "$@"; }

###############################################################################################
section "spaces"

expect_ok cub space create base --label Stage=Base --label tier=web --annotation owner=team-a \
  --component shop --display-name "Base config"
expect_match "$OUT" '^Space base created \(ID [0-9a-f-]{36}\)$' "create confirmation"
expect_ok cub space get base -o json
expect_eq "base" "$(jget Slug)" "Slug"
expect_eq "Base" "$(jget Labels.Stage)" "Labels.Stage"
expect_eq "web" "$(jget Labels.tier)" "Labels.tier"
expect_eq "team-a" "$(jget Annotations.owner)" "Annotations.owner"
expect_eq "shop" "$(jget ComponentSlug)" "ComponentSlug"
expect_eq "Base config" "$(jget DisplayName)" "DisplayName"
expect_match "$(jget SpaceID)" '^[0-9a-f-]{36}$' "SpaceID"
BASE_ID=$(jget SpaceID)
for field in SpaceID Slug DisplayName Labels Annotations ComponentID ComponentSlug \
    UpstreamSpaceID CreatedAt UpdatedAt Version; do
  expect_contains "$OUT" "\"$field\":" "space JSON"
done
expect_not_contains "$OUT" '"slug"' "space JSON (no lowerCamel names)"
# By ID too.
expect_ok cub space get "$BASE_ID" -o json
expect_eq "base" "$(jget Slug)" "space get by ID"
expect_ok cub space get base
expect_match "$OUT" $'FIELD +VALUE\n' "table header"
expect_match "$OUT" $'\nSlug +base\n' "table Slug row"
expect_match "$OUT" 'Labels +Stage=Base,tier=web' "table Labels row"

expect_ok cub space create secret --label Stage=Secret
expect_ok cub space create scratch --label Stage=Scratch
expect_fail 1 "already exists" cub space create base
expect_ok cub space create base --allow-exists -o json
expect_eq "$BASE_ID" "$(jget SpaceID)" "--allow-exists returns the existing space"
expect_fail 1 "is not valid" cub space create "bad name"
expect_fail 1 "is not valid" cub space create -- -dash
expect_fail 1 "not found" cub space get nope

expect_spaces "Labels.Stage = 'Base'" "base"
expect_ok cub space list
expect_match "$OUT" '^NAME +COMPONENT +STAGE' "space list header"
expect_match "$OUT" $'\nbase +shop +Base' "space list row"

# Update labels: set, change, remove (KEY=).
expect_ok cub space update base --label tier=api --label extra=1 --annotation note=x
expect_contains "$OUT" "Space base updated"
expect_ok cub space get base -o json
expect_eq "api" "$(jget Labels.tier)" "updated label"
expect_eq "1" "$(jget Labels.extra)" "added label"
expect_eq "Base" "$(jget Labels.Stage)" "untouched label"
expect_eq "x" "$(jget Annotations.note)" "added annotation"
expect_eq "team-a" "$(jget Annotations.owner)" "untouched annotation"
V1=$(jget Version)
expect_ok cub space update base --label extra=
expect_ok cub space get base -o json
expect_eq '{"Stage":"Base","tier":"api"}' "$(jget Labels)" "labels after removing one"
expect_ne "$V1" "$(jget Version)" "Version after update"
expect_spaces "Labels.tier = 'web'" ""
expect_spaces "Labels.tier = 'api'" "base"
expect_fail 2 "nothing to update" cub space update base
expect_fail 1 "not found" cub space update nope --label a=b

# Delete a space nothing depends on.
expect_ok cub space delete scratch
expect_contains "$OUT" "Space scratch deleted"
expect_fail 1 "not found" cub space get scratch

###############################################################################################
section "units"

expect_ok cub unit create --space base web "$D/web1.yaml" --label app=web
expect_match "$OUT" '^Unit web created \(ID [0-9a-f-]{36}\)$' "unit create confirmation"
expect_ok cub unit data --space base web
expect_eq "$(cat "$D/web1.yaml")" "$OUT" "unit data equals the file"
expect_ok cub unit get --space base web -o json
expect_eq "1" "$(jget Unit.HeadRevisionNum)" "HeadRevisionNum after create"
expect_eq "web" "$(jget Unit.Slug)" "Unit.Slug"
expect_eq "base" "$(jget Unit.SpaceSlug)" "Unit.SpaceSlug"
expect_eq "Kubernetes/YAML" "$(jget Unit.ToolchainType)" "ToolchainType"
expect_eq "web" "$(jget Unit.Labels.app)" "unit label"
expect_match "$(jget Unit.DataHash)" '^sha256:[0-9a-f]{64}$' "Unit.DataHash"
expect_eq "$(cat "$D/web1.yaml")" "$(jget Data)" "get -o json Data"
WEB_ID=$(jget Unit.UnitID)

# From stdin: two Kubernetes documents separated by ---.
expect_ok cub unit create --space base multi - <"$D/multi.yaml"
expect_ok cub unit data --space base multi
expect_eq "$(cat "$D/multi.yaml")" "$OUT" "multi-document data from stdin"
expect_contains "$OUT" "kind: ConfigMap"
expect_contains "$OUT" $'\n---\n'
expect_contains "$OUT" "kind: Service"
# Byte for byte, including a missing final newline.
cub unit data --space base multi >"$D/multi.out"
expect_ok cmp "$D/multi.yaml" "$D/multi.out"
printf 'a: 1\nb: [x, y]' >"$D/nonl.yaml"
expect_ok cub unit create --space secret nonl "$D/nonl.yaml"
cub unit data --space secret nonl >"$D/nonl.out"
expect_ok cmp "$D/nonl.yaml" "$D/nonl.out"
# And from a pipe.
# shellcheck disable=SC2002  # The pipe is the point.
cat "$D/multi.yaml" | expect_ok cub unit create --space secret piped -
expect_ok cub unit data --space secret piped
expect_eq "$(cat "$D/multi.yaml")" "$OUT" "data from a pipe"
expect_fail 1 "already exists" cub unit create --space base web "$D/web1.yaml"
expect_fail 1 "cannot read $D/missing.yaml" cub unit create --space base nofile "$D/missing.yaml"
expect_fail 1 "not found" cub unit create --space nope u "$D/web1.yaml"
expect_fail 1 "unknown toolchain type" cub unit create --space base tc "$D/web1.yaml" --toolchain Nope
expect_ok cub unit create --space base text "$D/bad.yaml" --toolchain AppConfig/Text
expect_fail 1 "not found" cub unit get --space base nope

# Bad YAML is refused with a line number, at create and at update.
expect_fail 1 "Failed: " cub unit create --space base broken "$D/bad.yaml"
expect_match "$ERR" 'line [0-9]+' "YAML error names a line"
expect_fail 1 "not found" cub unit get --space base broken

# Update: revision 2 with a change description.
expect_ok cub unit update --space base web "$D/web2.yaml" --change-desc "bump replicas"
expect_eq "Unit web updated to revision 2" "$OUT" "update confirmation"
expect_head base web 2 "HeadRevisionNum after update"
expect_ok cub revision list --space base --unit web
expect_contains "$OUT" "bump replicas"
expect_match "$OUT" '^NUM +CREATED +AUTHOR +DESCRIPTION' "revision list header"
expect_match "$OUT" $'\n2 +[^ ]+ +admin +bump replicas' "revision 2 row"
expect_ok cub revision list --space base --unit web -o json
expect_eq "2" "$(jget len)" "revision count"
expect_ok cub unit data --space base web
expect_eq "$(cat "$D/web2.yaml")" "$OUT" "data after update"
expect_ok cub unit get --space base web -o json
HASH2=$(jget Unit.DataHash)

# The same document written differently: no revision.
expect_ok cub unit update --space base web "$D/web2-reformatted.yaml"
expect_eq "Unit web unchanged at revision 2" "$OUT" "re-formatted equal document"
expect_head base web 2 "HeadRevisionNum after an equal update"
expect_ok cub unit update --space base web - -o json <"$D/web2-reformatted.yaml"
expect_eq "true" "$(jget Unchanged)" "Unchanged in JSON"

# Bad YAML on update: refused, nothing changes.
expect_fail 1 "Failed: " cub unit update --space base web "$D/bad.yaml"
expect_match "$ERR" 'line [0-9]+' "YAML error names a line"
expect_head base web 2 "HeadRevisionNum after refused YAML"
expect_ok cub unit data --space base web
expect_eq "$(cat "$D/web2.yaml")" "$OUT" "data after refused YAML"
expect_fail 2 "nothing to update" cub unit update --space base web
expect_fail 2 "" cub unit update --space base web "$D/web1.yaml" --restore 1

# Restore by number: revision 3 holds revision 1's data.
expect_ok cub unit update --space base web --restore 1
expect_eq "Unit web updated to revision 3" "$OUT" "restore 1"
expect_ok cub unit data --space base web
expect_eq "$(cat "$D/web1.yaml")" "$OUT" "data after --restore 1"
expect_ok cub revision get --space base --unit web --revision 3 -o json
expect_eq "1" "$(jget RestoredFromNum)" "RestoredFromNum"
expect_eq "Restored revision 1" "$(jget Description)" "restore description"
# Restore relative: -1 from head 3 is revision 2.
expect_ok cub unit update --space base web --restore -1
expect_eq "Unit web updated to revision 4" "$OUT" "restore -1"
expect_ok cub unit data --space base web
expect_eq "$(cat "$D/web2.yaml")" "$OUT" "data after --restore -1"
expect_ok cub unit get --space base web -o json
expect_eq "$HASH2" "$(jget Unit.DataHash)" "DataHash after restoring revision 2"
expect_fail 1 "goes before the first" cub unit update --space base web --restore -9
expect_fail 1 "has no revision 99" cub unit update --space base web --restore 99
expect_fail 1 "is not valid" cub unit update --space base web --restore banana
expect_head base web 4 "HeadRevisionNum after refused restores"
expect_ok cub unit update --space base web "$D/web3.yaml" --change-desc "three"
expect_eq "Unit web updated to revision 5" "$OUT" "update to revision 5"

# revision get
expect_ok cub revision get --space base --unit web --revision 1 -o json
expect_match "$(jget DataHash)" '^sha256:[0-9a-f]{64}$' "Revision.DataHash"
expect_eq "1" "$(jget RevisionNum)" "RevisionNum"
expect_eq "$(cat "$D/web1.yaml")" "$(jget Data)" "revision 1 Data"
expect_eq "admin" "$(jget Author)" "revision Author"
expect_eq "Created" "$(jget Description)" "default first description"
expect_ok cub revision get --space base --unit web -o json
expect_eq "5" "$(jget RevisionNum)" "revision get defaults to the head"
expect_ok cub revision get --space base --unit web --revision -2 --data
expect_eq "$(cat "$D/web1.yaml")" "$OUT" "revision get --revision -2 --data"
expect_ok cub revision get --space base --unit web --revision 2
expect_match "$OUT" $'\nDataHash +sha256:' "revision get table"
expect_not_contains "$OUT" "apiVersion" "revision table leaves the data out"
expect_fail 1 "has no revision 42" cub revision get --space base --unit web --revision 42
expect_fail 1 "never been released" cub revision get --space base --unit web \
  --revision LastReleasedRevisionNum

###############################################################################################
section "tags"

expect_ok cub tag create --space base rel --description "release candidate"
expect_match "$OUT" '^Tag rel created' "tag create confirmation"
expect_fail 1 "already exists" cub tag create --space base rel
expect_ok cub unit tag --space base --unit web rel --revision 2
expect_eq "Tagged revision 2 of unit web with rel" "$OUT" "unit tag confirmation"
# The same mark again is fine; another revision needs --move.
expect_ok cub unit tag --space base --unit web rel --revision 2
expect_fail 1 "already marks revision 2" cub unit tag --space base --unit web rel --revision 4
expect_contains "$ERR" "--move"
expect_ok cub unit tag --space base --unit web rel --revision 4 --move
expect_eq "Tagged revision 4 of unit web with rel" "$OUT" "moved mark"
expect_ok cub tag get --space base rel
expect_match "$OUT" $'\nweb +4 ' "tag get shows the mark"
expect_ok cub tag get --space base rel -o json
expect_eq "4" "$(jget Marks.0.RevisionNum)" "Marks.0.RevisionNum"
expect_eq "web" "$(jget Marks.0.UnitSlug)" "Marks.0.UnitSlug"
expect_eq "1" "$(jget Tag.MarkCount)" "MarkCount"
expect_ok cub tag list --space base -o json
expect_eq "rel" "$(slugs)" "tag list"
expect_fail 1 "not found" cub unit tag --space base --unit web nosuchtag
expect_fail 1 "has no revision 77" cub unit tag --space base --unit web rel --revision 77 --move
expect_ok cub revision get --space base --unit web --revision Tag:rel -o json
expect_eq "4" "$(jget RevisionNum)" "revision get Tag:rel"

# Restore by tag: Tag:rel is revision 4 (web2), Before:Tag:rel revision 3 (web1).
expect_ok cub unit update --space base web --restore Tag:rel
expect_eq "Unit web updated to revision 6" "$OUT" "restore Tag:rel"
expect_ok cub unit data --space base web
expect_eq "$(cat "$D/web2.yaml")" "$OUT" "data after --restore Tag:rel"
expect_ok cub unit update --space base web --restore Before:Tag:rel
expect_eq "Unit web updated to revision 7" "$OUT" "restore Before:Tag:rel"
expect_ok cub unit data --space base web
expect_eq "$(cat "$D/web1.yaml")" "$OUT" "data after --restore Before:Tag:rel"
expect_ok cub revision get --space base --unit web --revision 7 -o json
expect_eq "3" "$(jget RestoredFromNum)" "Before:Tag:rel restored from 3"
expect_fail 1 "not found" cub unit update --space base web --restore Tag:nosuchtag
expect_ok cub tag create --space base empty
expect_fail 1 "marks no revision" cub unit update --space base web --restore Tag:empty
expect_head base web 7 "HeadRevisionNum after refused tag restores"

###############################################################################################
section "users and roles"

expect_ok cub unit create --space secret plan "$D/web1.yaml"
# bob holds no role on secret: it does not exist for him.
expect_fail 1 "Failed: space 'secret' not found" as_bob cub space get secret
expect_ok as_bob cub space list -o json
expect_not_contains "$OUT" '"secret"' "bob's space list"
expect_fail 1 "not found" as_bob cub unit list --space secret
expect_fail 1 "not found" as_bob cub unit get --space secret plan
expect_ok as_bob cub unit list --space "*" -o json
expect_eq "" "$(slugs)" "bob's units across spaces"
expect_fail 1 "not found" as_bob cub space grant secret viewer --user bob
# Grant viewer to bob's group.
expect_ok cub space grant secret viewer --group team-b
expect_eq "Granted viewer on secret to group team-b" "$OUT" "grant confirmation"
expect_ok as_bob cub space get secret -o json
expect_eq "secret" "$(jget Slug)" "bob sees secret"
expect_ok as_bob cub space list -o json
expect_eq "secret" "$(slugs)" "bob's space list with viewer"
expect_ok as_bob cub unit data --space secret plan
expect_eq "$(cat "$D/web1.yaml")" "$OUT" "bob reads the unit"
expect_ok as_bob cub unit list --space "*" -o json
expect_eq "nonl,piped,plan" "$(slugs)" "bob's units across spaces with viewer"
expect_ok as_bob cub revision list --space secret --unit plan -o json
expect_eq "1" "$(jget len)" "bob lists revisions"
# ... but may not write.
expect_fail 1 "Failed: " as_bob cub unit update --space secret plan "$D/web2.yaml"
expect_contains "$ERR" "may not change space 'secret'" "permission message"
expect_contains "$ERR" "editor" "permission message names the role"
expect_fail 1 "may not change" as_bob cub unit create --space secret bobs "$D/web1.yaml"
expect_fail 1 "may not change" as_bob cub unit update --space secret plan --label x=y
expect_fail 1 "may not change" as_bob cub space update secret --label x=y
expect_fail 1 "may not administer" as_bob cub space grant secret editor --user bob
expect_fail 1 "may not administer" as_bob cub space delete secret
expect_head secret plan 1 "HeadRevisionNum after bob's refused writes"
expect_ok cub unit get --space secret plan -o json
expect_eq "" "$(jget Unit.Labels.x)" "no label from bob's refused update"
expect_fail 1 "not found" cub unit get --space secret bobs
expect_ok cub space get secret -o json
expect_eq "" "$(jget Labels.x)" "no space label from bob"
# carol (another group) still sees nothing.
expect_fail 1 "not found" as_carol cub space get secret
# Editor for the user bob: now he writes.
expect_ok cub space grant secret editor --user bob
# Any role on a space lets one make a variant of it (and be its admin).
expect_ok as_bob cub variant create bobvar secret
expect_ok as_bob cub space permissions bobvar -o json
expect_eq "admin,admin,editor,viewer" "$(slugs Role)" \
  "bobvar's grants: copied (admin, editor bob, viewer team-b), plus bob's admin"
expect_ok as_bob cub space delete bobvar
expect_fail 1 "not found" cub space get bobvar
expect_ok as_bob cub unit update --space secret plan "$D/web2.yaml" --change-desc "by bob"
expect_eq "Unit plan updated to revision 2" "$OUT" "bob's update"
expect_ok cub revision get --space secret --unit plan -o json
expect_eq "bob" "$(jget Author)" "Author of bob's revision"
expect_ok as_bob cub unit create --space secret bobs "$D/web1.yaml"
expect_ok cub space permissions secret -o json
expect_eq "admin,editor,viewer" "$(slugs Role)" "permissions JSON roles"
expect_ok cub space permissions secret
expect_match "$OUT" $'\neditor +bob' "permissions table: editor bob"
expect_match "$OUT" $'\nviewer +team-b' "permissions table: viewer team-b"
# Revoke editor: read-only again.
expect_ok cub space revoke secret editor --user bob
expect_eq "Revoked editor on secret from user bob" "$OUT" "revoke confirmation"
expect_fail 1 "may not change" as_bob cub unit update --space secret plan "$D/web3.yaml"
expect_head secret plan 2 "HeadRevisionNum after revoke"
# Revoke viewer: gone again.
expect_ok cub space revoke secret viewer --group team-b
expect_fail 1 "not found" as_bob cub space get secret
expect_fail 1 "unknown role" cub space grant secret owner --user bob
expect_fail 1 "no approver grant" cub space revoke secret approver --user bob
expect_fail 1 "user 'nobody' not found" cub space grant secret viewer --user nobody
expect_fail 2 "exactly one of --user or --group" cub space grant secret viewer
# A space bob creates is his (admin on it); the server admin sees it too.
expect_ok as_bob cub space create bobspace
expect_ok as_bob cub space grant bobspace viewer --user carol
expect_ok as_carol cub space get bobspace
expect_fail 1 "may not change" as_carol cub unit create --space bobspace x "$D/web1.yaml"
expect_ok cub space get bobspace

###############################################################################################
section "variants"

expect_ok cub unit get --space base web -o json
BASE_WEB_HEAD=$(jget Unit.HeadRevisionNum)
expect_ok cub variant create dev base --stage Dev
expect_eq "Variant dev created from base with 3 units" "$OUT" "variant create confirmation"
expect_ok cub variant create staging dev --stage Staging -o json
expect_eq "staging" "$(jget Space.Slug)" "variant JSON Space.Slug"
expect_eq "3" "$(jget Units.len)" "variant JSON Units"
expect_eq "3" "$(jget LinkCount)" "variant JSON LinkCount"
expect_ok cub variant create prod staging --stage Production --environment prod --region eu
expect_fail 1 "already exists" cub variant create prod staging
expect_fail 1 "not found" cub variant create x nope
expect_ok cub space get prod -o json
expect_eq "Production" "$(jget Labels.Stage)" "prod Stage"
expect_eq "prod" "$(jget Labels.Environment)" "prod Environment"
expect_eq "eu" "$(jget Labels.Region)" "prod Region"
expect_eq "shop" "$(jget ComponentSlug)" "variant keeps the component"
PROD_UPSTREAM=$(jget UpstreamSpaceID)
expect_ok cub space get staging -o json
expect_eq "$(jget SpaceID)" "$PROD_UPSTREAM" "prod's UpstreamSpaceID is staging"
# The table names the upstream by slug, not by its ID.
expect_ok cub space get prod
expect_contains "$OUT" "UpstreamSpace" "space get prod shows its upstream"
expect_contains "$OUT" "staging" "space get prod names the upstream staging"
expect_not_contains "$OUT" "$PROD_UPSTREAM" "space get prod prints no bare upstream ID"
# Units cloned, with the upstream head's data.
expect_ok cub unit list --space prod -o json
expect_eq "multi,text,web" "$(slugs)" "prod's units"
for u in web multi text; do
  expect_ok cub unit data --space base "$u"
  base_data=$OUT
  expect_ok cub unit data --space prod "$u"
  expect_eq "$base_data" "$OUT" "prod/$u data equals base/$u"
done
expect_head prod web 1 "cloned unit starts at revision 1"
expect_ok cub unit get --space staging web -o json
STAGING_WEB_ID=$(jget Unit.UnitID)
expect_ok cub unit get --space prod web -o json
expect_eq "$STAGING_WEB_ID" "$(jget Unit.UpstreamUnitID)" "prod/web's UpstreamUnitID"
# Links to staging.
expect_ok cub link list --space prod -o json
expect_eq "3" "$(jget len)" "prod's links"
expect_eq "staging,staging,staging" "$(slugs ToSpaceSlug)" "links go to staging"
expect_eq "UpgradeUnit,UpgradeUnit,UpgradeUnit" "$(slugs UpdateType)" "link types"
expect_eq "1,1,1" "$(slugs UpstreamRevisionNum)" "links' UpstreamRevisionNum"
expect_ok cub link get --space dev web-upstream -o json
expect_eq "$BASE_WEB_HEAD" "$(jget UpstreamRevisionNum)" \
  "dev/web link's UpstreamRevisionNum is base/web's head"
expect_eq "base" "$(jget ToSpaceSlug)" "dev/web link goes to base"
expect_ok cub link list --space prod
expect_match "$OUT" '^NAME +FROM-UNIT +TO-SPACE +TO-UNIT +UPDATE-TYPE' "link list header"
expect_match "$OUT" $'\nweb-upstream +web +staging +web +UpgradeUnit +false +1' "link list row"
expect_ok cub revision get --space prod --unit web -o json
expect_eq "$STAGING_WEB_ID" "$(jget UpstreamUnitID)" "cloned revision's UpstreamUnitID"
expect_eq "1" "$(jget UpstreamRevisionNum)" "cloned revision's UpstreamRevisionNum"
# Units of every Space whose Stage is Production.
expect_ok cub unit list --space "*" --where "Space.Labels.Stage = 'Production'" -o json
expect_eq "multi,text,web" "$(slugs)" "units in Production spaces"
expect_eq "prod,prod,prod" "$(slugs SpaceSlug)" "all in prod"
expect_ok cub unit list --space "*" --where-space "Labels.Stage IN ('Dev', 'Production')" \
  --where "Slug = 'web'" -o json
expect_eq "dev,prod" "$(slugs SpaceSlug)" "--where-space"
expect_ok cub unit list --space "*"
expect_match "$OUT" '^NAME +SPACE +HEAD +RELEASED +TOOLCHAIN' "unit list header"
expect_match "$OUT" $'\nweb +base +7 +0 +Kubernetes/YAML' "unit list row"
# A space with variants cannot be deleted; the message names the variant.
expect_fail 1 "Failed: " cub space delete base
expect_contains "$ERR" "depending on it: dev" "delete base names its variant"
expect_fail 1 "prod" cub space delete staging
expect_ok cub space get base
# bob is not let into the variants of a space he cannot see.
expect_fail 1 "not found" as_bob cub space get prod

###############################################################################################
section "links"

expect_ok cub link create --space dev - multi web base
expect_match "$OUT" '^Link multi-to-web created \(ID [0-9a-f-]{36}\)$' "link create confirmation"
expect_ok cub link get --space dev multi-to-web -o json
expect_eq "multi" "$(jget FromUnitSlug)" "FromUnitSlug"
expect_eq "base" "$(jget ToSpaceSlug)" "ToSpaceSlug"
expect_eq "web" "$(jget ToUnitSlug)" "ToUnitSlug"
expect_eq "UpgradeUnit" "$(jget UpdateType)" "UpdateType"
expect_eq "0" "$(jget UpstreamRevisionNum)" "new link's UpstreamRevisionNum"
expect_eq "$WEB_ID" "$(jget ToUnitID)" "ToUnitID"
LINK_ID=$(jget LinkID)
expect_ok cub link get --space dev "$LINK_ID" -o json
expect_eq "multi-to-web" "$(jget Slug)" "link get by ID"
expect_ok cub link get --space dev multi-to-web
expect_match "$OUT" $'\nToSpaceSlug +base\n' "link get table"
expect_ok cub link create --space dev same-space text web dev --auto-update -o json
expect_eq "same-space" "$(jget Slug)" "named link"
expect_eq "true" "$(jget AutoUpdate)" "AutoUpdate"
expect_ok cub link list --space dev -o json
expect_eq "multi-to-web,multi-upstream,same-space,text-upstream,web-upstream" "$(slugs)" "dev's links"
expect_ok cub link list --space dev --where "UpstreamRevisionNum = 0" -o json
expect_eq "multi-to-web,same-space" "$(slugs)" "link list --where"
expect_ok cub link list --space "*" -o json
expect_eq "11" "$(jget len)" "links in every space"
expect_fail 1 "already has UpgradeUnit link 'multi-to-web'" cub link create --space dev multi-to-web multi web base
expect_fail 1 "already has UpgradeUnit link" cub link create --space dev another-name multi web base
expect_fail 1 "cannot link to itself" cub link create --space dev - web web dev
expect_fail 1 "not found" cub link create --space dev - nope web base
expect_fail 1 "not found" cub link create --space dev - multi nope base
expect_fail 1 "not supported" cub link create --space dev - text web base --update-type Nope
expect_fail 1 "not found" cub link get --space dev nope
# A unit others link to cannot be deleted; the message names the downstream unit.
expect_fail 1 "Failed: " cub unit delete --space base web
expect_contains "$ERR" "dev/web" "delete base/web names its downstream"
expect_head base web 7 "base/web still there"
expect_ok cub unit create --space base leaf "$D/web1.yaml"
expect_ok cub unit delete --space base leaf
expect_eq "Unit leaf deleted" "$OUT" "unit delete confirmation"
expect_fail 1 "not found" cub unit get --space base leaf

###############################################################################################
section "filters"

expect_ok cub filter create --space base production Space --where-field "Labels.Stage = 'Production'"
expect_match "$OUT" '^Filter production created' "filter create confirmation"
expect_ok cub space list --filter base/production -o json
expect_eq "prod" "$(slugs)" "space list --filter"
expect_ok cub space list --filter base/production --where "Slug = 'dev'" -o json
expect_eq "" "$(slugs)" "--filter AND --where"
expect_ok cub filter create --space base webs Unit --where-field "Slug = 'web'"
expect_ok cub unit list --space "*" --filter base/webs -o json
expect_eq "base,dev,prod,staging" "$(slugs SpaceSlug)" "unit list --filter"
expect_ok cub unit list --space dev --filter base/webs -o json
expect_eq "dev" "$(slugs SpaceSlug)" "unit list --space dev --filter"
expect_fail 1 "selects Spaces, not Units" cub unit list --space "*" --filter base/production
expect_ok cub unit list --space base --filter webs -o json
expect_eq "base" "$(slugs SpaceSlug)" "a bare filter name means one in --space"
expect_fail 1 "not found" cub space list --filter base/nope
expect_ok cub filter get --space base production -o json
expect_eq "Space" "$(jget From)" "filter From"
expect_eq "Labels.Stage = 'Production'" "$(jget WhereField)" "filter WhereField"
expect_ok cub filter list --space base -o json
expect_eq "production,webs" "$(slugs)" "filter list"
# A broken where-field is refused and nothing is saved.
expect_fail 1 "Failed: where: unknown field 'Lables' at 1" \
  cub filter create --space base broken Space --where-field "Lables.Stage = 'x'"
expect_fail 1 "Failed: where: " cub filter create --space base broken Space --where-field "Slug ="
expect_fail 1 "Failed: where: " cub filter create --space base broken Unit --where-field "Slug = 'a' AND"
expect_fail 1 "not found" cub filter get --space base broken
expect_fail 2 "" cub filter create --space base broken Revision --where-field "Slug = 'a'"
expect_fail 1 "already exists" cub filter create --space base webs Unit --where-field "Slug = 'x'"

###############################################################################################
section "where language"

# Spaces now: base bobspace dev prod secret staging.
expect_ok cub space list -o json
expect_eq "base,bobspace,dev,prod,secret,staging" "$(slugs)" "all spaces"
ALL_SPACES=$(slugs)
expect_spaces "Labels.Stage = 'Dev' OR Labels.Stage = 'Staging'" "dev,staging"
expect_spaces "NOT Labels.Stage = 'Production' AND Labels.Stage IS NOT NULL" "base,dev,secret,staging"
expect_spaces "(Labels.Stage = 'Dev' OR Labels.Stage = 'Production') AND Slug LIKE 'p%'" "prod"
expect_spaces "Labels.Stage = 'Dev' OR (Labels.Stage = 'Production' AND Slug LIKE 'p%')" "dev,prod"
expect_spaces "Slug IN ('dev', 'prod', 'nope')" "dev,prod"
expect_spaces "Slug NOT IN ('dev', 'prod')" "base,bobspace,secret,staging"
expect_spaces "Slug LIKE 'st%'" "staging"
expect_spaces "Slug LIKE '%a_e%'" "base,bobspace"
expect_spaces "Slug ILIKE 'DEV'" "dev"
expect_spaces "Slug ~ '^(dev|prod)\$'" "dev,prod"
expect_spaces "Labels.Environment IS NULL" "base,bobspace,dev,secret,staging"
expect_spaces "UpstreamSpaceID IS NULL" "base,bobspace,secret"
expect_spaces "UpstreamSpaceID IS NOT NULL" "dev,prod,staging"
expect_spaces "LEN(Slug) = 4" "base,prod"
expect_spaces "LEN(Slug) > 5" "bobspace,secret,staging"
expect_spaces "Component.Slug = 'shop'" "base,dev,prod,staging"
expect_spaces "Labels.Stage = 'Production' AND Labels.Region = 'eu'" "prod"
expect_spaces "Labels.Stage != 'Dev' AND Labels.Stage > 'P' AND Labels.Stage < 'S'" "prod"
# A missing label: comparisons and their negations are false, NOT inverts that.
expect_spaces "Labels.tier != 'web'" "base"
expect_spaces "Labels.tier NOT IN ('web')" "base"
expect_spaces "NOT Labels.tier = 'web'" "base,bobspace,dev,prod,secret,staging"
expect_spaces "Labels.tier IS NULL" "bobspace,dev,prod,secret,staging"
# Characters, not bytes.
expect_ok cub space update secret --label name=日本語
expect_spaces "LEN(Labels.name) = 3" "secret"
expect_spaces "Labels.name ~ '^.本.\$'" "secret"
expect_spaces "Labels.name LIKE '日%'" "secret"
expect_spaces "CreatedAt > '2000-01-01T00:00:00Z' AND Version >= 1 AND Slug = 'base'" "base"
expect_spaces "SpaceID = '$BASE_ID'" "base"
expect_ok cub unit list --space "*" -o json \
  --where "UpstreamUnitID IS NULL AND Space.Slug IN ('base', 'dev')"
expect_eq "base,base,base" "$(slugs SpaceSlug)" "UpstreamUnitID IS NULL"
expect_ok cub link list --space "*" --where "AutoUpdate = true" -o json
expect_eq "same-space" "$(slugs)" "boolean field"
expect_ok cub unit list --space base --where "HeadRevisionNum > 1" -o json
expect_eq "web" "$(slugs)" "unit where over an int"
expect_ok cub unit list --space base -o json \
  --where "Labels.app = 'web' AND ToolchainType = 'Kubernetes/YAML'"
expect_eq "web" "$(slugs)" "unit where over labels"
expect_ok cub revision list --space base --unit web --where "Description LIKE 'Restored%'" -o json
expect_eq "3,4,6,7" "$(slugs RevisionNum)" "revision list --where"
expect_ok cub tag list --space base --where "Slug = 'rel'" -o json
expect_eq "rel" "$(slugs)" "tag list --where"
expect_ok cub filter list --space base --where "From = 'Unit'" -o json
expect_eq "webs" "$(slugs)" "filter list --where"
# Errors.
expect_fail 1 "" cub space list --where "Lables.tier = 'x'"
expect_eq "Failed: where: unknown field 'Lables' at 1" "$ERR" "unknown field message, exactly"
expect_eq "" "$OUT" "stdout of a refused list"
expect_fail 1 "Failed: where: unknown field 'Nope' at 15" cub space list --where "Slug = 'a' OR Nope = 1"
expect_fail 1 "Failed: where: " cub space list --where "Slug = "
expect_fail 1 "Failed: where: " cub space list --where "(Slug = 'a'"
# `?` applies to list fields, and no entity has one yet: refused on a string.
expect_fail 1 "Failed: where: operator '?' does not apply" cub space list --where "Slug ? 'a'"
expect_fail 1 "Failed: where: " cub space list --where "Slug = 'unterminated"
expect_fail 1 "Failed: where: " cub space list --where "Labels = 'x'"
expect_fail 1 "Failed: where: " cub space list --where "Version = 'x'"
expect_fail 1 "Failed: where: " cub space list --where "Slug ~ '('"
expect_fail 1 "Failed: where: " cub unit list --space base --where "Slug = 'a'; DROP TABLE units"
# Injection: a quote doubled inside a string is data, not SQL.
expect_ok cub space list -o json --where "Slug = 'x'' OR 1=1 --'"
expect_eq "0" "$(jget len)" "injection lists nothing"
expect_ok cub space list -o json --where "Slug = 'base'' OR ''1''=''1'"
expect_eq "0" "$(jget len)" "injection 2 lists nothing"
expect_fail 1 "Failed: where: " cub space list --where "Slug = 'x' OR 1=1 --"
expect_ok cub unit list --space "*" -o json --where "Slug = 'x''); DELETE FROM units; --'"
expect_eq "0" "$(jget len)" "injection into unit list lists nothing"
expect_ok cub space list -o json
expect_eq "$ALL_SPACES" "$(slugs)" "spaces unchanged after injection attempts"
expect_head base web 7 "units unchanged after injection attempts"

###############################################################################################
section "output"

expect_ok cub space get base -o yaml
expect_match "$OUT" $'(^|\n)Slug: base\n' "YAML Slug"
expect_match "$OUT" $'\nLabels:\n( +[a-z]+: .*\n)* +Stage: Base\n' "YAML Labels"
expect_ok cub space list -o yaml --where "Slug = 'prod'"
expect_match "$OUT" $'^- SpaceID: "?[0-9a-f-]{36}"?\n' "YAML list"
expect_ok cub unit get --space base multi -o yaml
expect_contains "$OUT" "kind: Service" "YAML unit with data"
expect_ok cub space list --output json
expect_eq "6" "$(jget len)" "--output json"
# JSON that python parses, and pretty-printed.
expect_match "$OUT" $'^\\[\n  \\{\n    "SpaceID": ' "pretty JSON"
expect_ok cub space create quiet-one --quiet
expect_eq "" "$OUT" "--quiet output"
expect_ok cub space get quiet-one --quiet
expect_eq "" "$OUT" "--quiet get"
expect_ok cub space delete quiet-one --quiet
expect_eq "" "$OUT" "--quiet delete"
expect_ok cub unit update --space base web "$D/web3.yaml" --quiet
expect_eq "" "$OUT" "--quiet update"
expect_ok cub --quiet whoami
expect_eq "" "$OUT" "--quiet before the command"
expect_ok cub -o json space get base
expect_eq "base" "$(jget Slug)" "-o before the command"
# Usage errors exit 2.
expect_fail 2 "" cub space list --bogus
expect_contains "$ERR" "bogus"
expect_fail 2 "" cub space list -o xml
expect_fail 2 "" cub space get
expect_fail 2 "" cub space frobnicate
expect_fail 2 "" cub
expect_fail 2 "KEY=VALUE" cub space create x --label novalue
expect_fail 1 "not found" cub space get x
expect_fail 2 "" cub unit create base-without-space
expect_fail 2 "" cub --timeout 0 whoami
expect_fail 2 "nothing to update" cub unit update --space base web
expect_contains "$ERR" "Run with --help" "usage error hint"
expect_ok cub --help
expect_contains "$OUT" "space"
expect_ok cub space create --help
expect_contains "$OUT" "--label"

###############################################################################################
section "REST mirror"

H=http://$E2E_HTTP
# curl_json METHOD PATH [BODY] [TOKEN]: sets OUT (body) and HTTP_CODE.
curl_json() {
  local method=$1 path=$2 body=${3:-} token=${4-$ADMIN_TOKEN}
  local args=(-sS -o "$D/curl.body" -D "$D/curl.headers" -w '%{http_code}' -X "$method"
              -H 'Content-Type: application/json')
  [[ -n $token ]] && args+=(-H "Authorization: Bearer $token")
  [[ -n $body ]] && args+=(--data-binary "$body")
  run curl "${args[@]}" "$H$path"
  ((RC == 0)) || e2e_fail "curl failed"
  HTTP_CODE=$OUT
  OUT=$(cat "$D/curl.body")
  HEADERS=$(cat "$D/curl.headers")
}
curl_json POST /v1/SpaceService/ListSpaces '{}'
expect_eq "200" "$HTTP_CODE" "ListSpaces status"
expect_eq "$ALL_SPACES" "$(slugs)" "REST ListSpaces"
expect_match "$HEADERS" $'[Cc]ontent-[Tt]ype: application/json' "REST content type"
curl_json POST /v1/SpaceService/ListSpaces "{\"Options\":{\"Where\":\"Labels.Stage = 'Production'\"}}"
expect_eq "200" "$HTTP_CODE" "ListSpaces with Where"
expect_eq "prod" "$(slugs)" "REST ListSpaces with Where"
curl_json POST /v1/SpaceService/ListSpaces ''
expect_eq "200" "$HTTP_CODE" "empty body"
curl_json POST /v1/UnitService/GetUnit '{"Space":"base","Unit":"web"}'
expect_eq "200" "$HTTP_CODE" "GetUnit status"
expect_eq "8" "$(jget Unit.HeadRevisionNum)" "REST GetUnit HeadRevisionNum"
expect_eq "$(cat "$D/web3.yaml")" "$(jget Data)" "REST GetUnit Data"
curl_json POST /v1/SpaceService/CreateSpace '{"Slug":"rest-made","Labels":{"Stage":"Rest"}}'
expect_eq "200" "$HTTP_CODE" "CreateSpace status"
expect_ok cub space get rest-made -o json
expect_eq "Rest" "$(jget Labels.Stage)" "space made through REST, read through gRPC"
curl_json POST /v1/SpaceService/ListSpaces '{}' ""
expect_eq "401" "$HTTP_CODE" "no token"
expect_match "$HEADERS" $'[Ww][Ww][Ww]-[Aa]uthenticate: Bearer' "WWW-Authenticate"
expect_contains "$OUT" "token" "401 body"
curl_json POST /v1/SpaceService/ListSpaces '{}' cub_wrong
expect_eq "401" "$HTTP_CODE" "wrong token"
# GET is served for List methods only (paging links, docs/api.md); others answer 405.
curl_json GET /v1/SpaceService/GetSpace
expect_eq "405" "$HTTP_CODE" "GET"
expect_match "$HEADERS" $'[Aa]llow: POST' "Allow header"
curl_json POST /v1/SpaceService/NoSuchMethod '{}'
expect_eq "404" "$HTTP_CODE" "unknown method"
curl_json POST /v1/NoSuchService/ListSpaces '{}'
expect_eq "404" "$HTTP_CODE" "unknown service"
curl_json POST /nowhere '{}'
expect_eq "404" "$HTTP_CODE" "unknown path"
curl_json POST /v1/SpaceService/ListSpaces '{"Options": '
expect_eq "400" "$HTTP_CODE" "bad JSON"
curl_json POST /v1/SpaceService/ListSpaces '{"NoSuchField": 1}'
expect_eq "400" "$HTTP_CODE" "unknown field"
curl_json POST /v1/SpaceService/GetSpace '{"Space":"nope"}'
expect_eq "404" "$HTTP_CODE" "GetSpace of a missing space"
curl_json POST /v1/SpaceService/ListSpaces '{"Options":{"Where":"Lables.tier = '"'x'"'"}}'
expect_eq "400" "$HTTP_CODE" "bad where"
expect_contains "$OUT" "where: unknown field 'Lables' at 1" "bad where body"
curl_json POST /v1/UnitService/UpdateUnit '{"Space":"secret","Unit":"plan","Data":"a: 1\n"}' "$BOB_TOKEN"
expect_eq "404" "$HTTP_CODE" "bob cannot see secret through REST either"
curl_json POST /v1/SpaceService/GetSpace '{"Space":"bobspace"}' "$CAROL_TOKEN"
expect_eq "200" "$HTTP_CODE" "carol reads bobspace"
curl_json POST /v1/UnitService/CreateUnit '{"Space":"bobspace","Slug":"c","Data":"a: 1\n"}' "$CAROL_TOKEN"
expect_eq "403" "$HTTP_CODE" "carol may not write bobspace"
curl_json GET /healthz '' ''
expect_eq "200" "$HTTP_CODE" "healthz"
expect_eq "ok" "$OUT" "healthz body"
run curl -sS -o /dev/null -w '%{http_code}' -I "$H/healthz"
expect_eq "200" "$OUT" "HEAD /healthz"
# Full service names and proto field names are accepted.
curl_json POST /v1/cub.v1.SpaceService/GetSpace '{"space":"base"}'
expect_eq "200" "$HTTP_CODE" "full service name, proto field name"
expect_eq "base" "$(jget Slug)" "GetSpace through REST"
expect_contains "$OUT" '"UpstreamSpaceID":""' "defaults printed"
# The error body.
curl_json POST /v1/SpaceService/GetSpace '{"Space":"nope"}'
expect_eq "404" "$HTTP_CODE" "GetSpace nope"
expect_eq "5" "$(jget code)" "error body code"
expect_eq "NOT_FOUND" "$(jget status)" "error body status"
expect_eq "space 'nope' not found" "$(jget message)" "error body message"
curl_json POST /v1/SpaceService/CreateSpace '{"Slug":"base"}'
expect_eq "409" "$HTTP_CODE" "ALREADY_EXISTS"
curl_json POST /v1/UnitService/TagUnit '{"Space":"base","Unit":"web","Tag":"rel","Revision":"1"}'
expect_eq "400" "$HTTP_CODE" "FAILED_PRECONDITION (mark without Move)"
expect_eq "FAILED_PRECONDITION" "$(jget status)" "TagUnit refusal status"
curl_json POST /v1/UnitService/GetRevision '{"Space":"base","Unit":"web","Revision":"-50"}'
expect_eq "400" "$HTTP_CODE" "OUT_OF_RANGE"
expect_eq "OUT_OF_RANGE" "$(jget status)" "-N before the first"

###############################################################################################
section "concurrency"

expect_ok cub unit create --space base conc "$D/web1.yaml"
# Two writers at once, each with its own data.
cub unit update --space base conc "$D/web2.yaml" --change-desc "writer A" >"$D/a.out" 2>"$D/a.err" &
pa=$!
cub unit update --space base conc "$D/web3.yaml" --change-desc "writer B" >"$D/b.out" 2>"$D/b.err" &
pb=$!
wait "$pa"; rca=$?
wait "$pb"; rcb=$?
expect_eq "0 0" "$rca $rcb" "both concurrent updates succeed (stderr: $(cat "$D/a.err" "$D/b.err"))"
expect_match "$(cat "$D/a.out")" '^Unit conc updated to revision [23]$' "writer A"
expect_match "$(cat "$D/b.out")" '^Unit conc updated to revision [23]$' "writer B"
expect_ne "$(cat "$D/a.out")" "$(cat "$D/b.out")" "writers got different revisions"
expect_head base conc 3 "HeadRevisionNum after two writers"
expect_ok cub revision list --space base --unit conc -o json
expect_eq "1,2,3" "$(slugs RevisionNum)" "revisions numbered in sequence"
expect_eq "Created,writer A,writer B" "$(slugs Description)" "no write lost"
# More writers: eight at once.
pids=()
for i in 1 2 3 4 5 6 7 8; do
  sed "s/replicas: 1/replicas: 1$i/" "$D/web1.yaml" >"$D/w$i.yaml"
  cub unit update --space base conc "$D/w$i.yaml" --change-desc "w$i" \
    >"$D/w$i.out" 2>"$D/w$i.err" &
  pids+=($!)
done
failed=0
for i in "${!pids[@]}"; do
  wait "${pids[$i]}" || { failed=$((failed + 1)); cat "$D/w$((i + 1)).err" >&2; }
done
expect_eq "0" "$failed" "failed writers of eight"
expect_head base conc 11 "HeadRevisionNum after eight more writers"
expect_ok cub revision list --space base --unit conc -o json
expect_eq "11" "$(jget len)" "revision count after eight more writers"
expect_eq "1,10,11,2,3,4,5,6,7,8,9" "$(slugs RevisionNum)" "no gaps"
expect_eq "Created,w1,w2,w3,w4,w5,w6,w7,w8,writer A,writer B" "$(slugs Description)" \
  "every writer's revision is there"

###############################################################################################
section "two cubd processes on one database"

e2e_start_cubd second
S2=${CUBD_GRPC[second]}
expect_ne "$S" "$S2" "second server address"
# A saved context's token goes only to that context's server, so name it here.
expect_fail 1 "no bearer token" cub --server "$S2" space list
expect_ok cub --server "$S2" --token "$ADMIN_TOKEN" space create twin --label Stage=Twin
expect_ok cub --server "$S2" --token "$ADMIN_TOKEN" unit create --space twin t "$D/web1.yaml"
expect_ok cub --server "$S" unit data --space twin t
expect_eq "$(cat "$D/web1.yaml")" "$OUT" "written through the second, read through the first"
expect_ok cub --server "$S" unit update --space twin t "$D/web2.yaml"
expect_ok cub --server "$S2" --token "$ADMIN_TOKEN" unit get --space twin t -o json
expect_eq "2" "$(jget Unit.HeadRevisionNum)" "written through the first, read through the second"
expect_ok env CUB_TOKEN="$BOB_TOKEN" cub --server "$S2" whoami -o json
expect_eq "bob" "$(jget User.Username)" "tokens work on the second"
H2=http://${CUBD_HTTP[second]}
run curl -sS -o "$D/c2.body" -w '%{http_code}' -X POST -H "Authorization: Bearer $ADMIN_TOKEN" \
  --data-binary '{"Space":"twin"}' "$H2/v1/SpaceService/GetSpace"
expect_eq "200" "$OUT" "REST on the second"
expect_eq "Twin" "$(jget Labels.Stage "$(cat "$D/c2.body")")" "REST on the second reads the space"
# Concurrent writers through both servers.
cub --server "$S" unit update --space twin t "$D/web3.yaml" >"$D/t1.out" 2>&1 &
p1=$!
cub --server "$S2" --token "$ADMIN_TOKEN" unit update --space twin t "$D/w1.yaml" >"$D/t2.out" 2>&1 &
p2=$!
wait "$p1"; r1=$?
wait "$p2"; r2=$?
expect_eq "0 0" "$r1 $r2" "writers through both servers ($(cat "$D/t1.out" "$D/t2.out"))"
expect_head twin t 4 "HeadRevisionNum after writers through both servers"

###############################################################################################
section "SIGTERM"

e2e_stop_cubd second
expect_eq "0" "$CUBD_RC" "second cubd's exit code after SIGTERM"
expect_contains "$(cat "${CUBD_LOG[second]}")" "SIGTERM received, draining" "second cubd's log"
expect_contains "$(cat "${CUBD_LOG[second]}")" "cubd: stopped" "second cubd's log"
expect_fail 1 "Failed: cannot reach cubd" cub --server "$S2" whoami --timeout 5
# The first still serves.
expect_ok cub whoami
# A call in flight when SIGTERM arrives still completes. (Best effort: start a write, then stop.)
cub unit update --space base conc "$D/web2.yaml" --change-desc "in flight" >"$D/f.out" 2>&1 &
pf=$!
sleep 0.05
e2e_stop_cubd main
expect_eq "0" "$CUBD_RC" "cubd's exit code after SIGTERM"
wait "$pf"
expect_contains "$(cat "${CUBD_LOG[main]}")" "SIGTERM received, draining in-flight calls" "cubd's log"
expect_contains "$(cat "${CUBD_LOG[main]}")" "cubd: stopped" "cubd's log"
expect_fail 1 "Failed: cannot reach cubd at $S" cub whoami --timeout 5

###############################################################################################
section "races (known bugs)"

# Last, so that the coverage above runs in full while these fail. A fresh cubd on the same
# database; cub talks to it through --server and --token (a context's token goes only to
# the context's server).
e2e_start_cubd third
c3=(cub --server "${CUBD_GRPC[third]}" --token "$ADMIN_TOKEN")
expect_ok "${c3[@]}" unit create --space base same "$D/web1.yaml"
# Ten rounds of two concurrent updates carrying the same new data (the race is lost in some
# rounds only).
same_outputs=""
for round in 1 2 3 4 5 6 7 8 9 10; do
  sed "s/replicas: 1/replicas: 20$round/" "$D/web1.yaml" >"$D/same$round.yaml"
  "${c3[@]}" unit update --space base same "$D/same$round.yaml" >"$D/s1.out" 2>&1 &
  p1=$!
  "${c3[@]}" unit update --space base same "$D/same$round.yaml" >"$D/s2.out" 2>&1 &
  p2=$!
  wait "$p1"
  wait "$p2"
  same_outputs+="$(cat "$D/s1.out") | $(cat "$D/s2.out")"$'\n'
done
expect_ok "${c3[@]}" revision list --space base --unit same
same_revisions=$(($(wc -l <<<"$OUT") - 1))  # table rows under the header
# Two concurrent creates of the same space slug, five times.
race_losers=""
for round in 1 2 3 4 5; do
  "${c3[@]}" space create "race$round" >"$D/r1.out" 2>&1 &
  p1=$!
  "${c3[@]}" variant create "race$round" base >"$D/r2.out" 2>&1 &
  p2=$!
  wait "$p1"
  wait "$p2"
  race_losers+="$(grep -h '^Failed:' "$D/r1.out" "$D/r2.out")"$'\n'
done
echo "note: concurrent equal updates (round: writer 1 | writer 2):"$'\n'"$same_outputs"
echo "note: losers of concurrent creates of one slug:"$'\n'"$race_losers"
# BUG: two concurrent `cub unit update` of one unit with the same new data both write a
# revision; the later one holds exactly the head's data (docs/api.md: "When the new data equals
# the head's, Unchanged is true and Revision is absent"). UpdateUnit (lib/ops/units.cc)
# compares the new DataHash with the unit it read before AppendRevision takes the row lock.
# Expected: 1 + 10 revisions, each round one "updated to revision N" and one "unchanged at
# revision N".
expect_eq "11" "$same_revisions" "revisions after 10 rounds of 2 concurrent equal updates"
# BUG: when two creates of one space slug race, the loser's message is PostgreSQL's
# 'duplicate key value violates unique constraint "spaces_slug_key"' instead of
# "space 'X' already exists" (the code, ALREADY_EXISTS, is right; the message leaks the
# schema). Seen with `cub space create` and `cub variant create`.
expect_not_contains "$race_losers" "duplicate key" "losers' messages"
expect_eq "5" "$(grep -c "already exists" <<<"$race_losers")" "one 'already exists' per round"

e2e_finish
