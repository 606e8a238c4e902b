#!/usr/bin/env bash
# The CLI's contexts and Unit input through real cub and cubd: `cub context list|current|use|
# set|delete`, --space defaulting to the context's Space, `cub auth login` switching the current
# context only when asked, `cub unit create|update --filename|--from-stdin`, and `cub unit edit`
# with $EDITOR / $VISUAL scripts (an edit, no change, a failing editor, a concurrent change).
source "$(dirname "${BASH_SOURCE[0]}")/lib.sh"
e2e_init cli_context
e2e_start_cubd main
S=$E2E_SERVER
cfg() { jget "$1" "$(cat "$CUB_CONFIG")"; }
BOB_TOKEN=$(create_user bob) || e2e_fail "cubd user create bob failed"

section "no contexts yet"
expect_ok cub context list
expect_eq "CURRENT   NAME   SERVER   SPACE   USER   AUTH" "$OUT" "an empty list is its header"
expect_fail 1 "Failed: no current context (cub context use NAME, or cub auth login)" \
  cub context current
expect_fail 1 "no context nope in $CUB_CONFIG (it has none yet" cub context use nope
expect_fail 2 "no --space given and no current context" \
  cub unit list --server "$S" --token "$ADMIN_TOKEN"

section "auth login: the first context becomes current, later ones only with --use"
expect_ok cub auth login --server "$S" --token "$ADMIN_TOKEN" --context admin
expect_eq "Logged in to $S as admin; saved as context admin (current)" "$OUT"
expect_ok cub auth login --server "$S" --token "$BOB_TOKEN" --context bob
expect_eq "Logged in to $S as bob; saved as context bob, the current context is still admin (cub context use bob to switch)" "$OUT"
expect_eq admin "$(cfg CurrentContext)" "current context after bob's login"
expect_ok cub whoami -o json
expect_eq admin "$(jget User.Username)" "whoami"
expect_ok cub context list
expect_match "$OUT" $'\n\\*  +admin +'"$S"' +- +admin +token' "admin's row, current"
expect_match "$OUT" $'\n +bob +'"$S"' +- +bob +token' "bob's row"
expect_ok cub context list -o json
expect_eq 2 "$(jget len)" "contexts in JSON"
expect_eq true "$(jget 0.Current)" "admin is current (JSON)"
expect_not_contains "$OUT" "$ADMIN_TOKEN" "context list -o json"
expect_ok cub context list --names
expect_eq $'admin\nbob' "$OUT" "--names"

section "context use / current"
expect_fail 1 "no context nope in $CUB_CONFIG (known: admin, bob)" cub context use nope
expect_eq admin "$(cfg CurrentContext)" "a failed use changes nothing"
expect_ok cub context use bob
expect_eq "Switched to context bob" "$OUT"
expect_ok cub context current
expect_eq bob "$OUT" "context current"
expect_ok cub whoami -o json
expect_eq bob "$(jget User.Username)" "whoami after use bob"
expect_ok cub auth login --server "$S" --token "$BOB_TOKEN" --context bob
expect_contains "$OUT" "saved as context bob (current)" "a login to the current context"
expect_ok cub context use admin

section "--space defaults to the context's Space"
expect_ok cub space create acme
expect_ok cub space create other
printf 'apiVersion: v1\nkind: ConfigMap\nmetadata:\n  name: web\ndata:\n  v: "1"\n' >"$E2E_TMP/web.yaml"
expect_fail 2 "no --space given and context admin has no Space (cub context set --space S)" \
  cub unit create web "$E2E_TMP/web.yaml"
expect_fail 2 "context bob has no Space (cub context set bob --space S)" \
  cub unit list --context bob
expect_fail 2 "no context nope in" cub unit list --context nope
expect_ok cub context set --space acme
expect_eq "Context admin updated (current)" "$OUT"
expect_eq acme "$(cfg Contexts.admin.Space)" "saved Space"
expect_eq "$ADMIN_TOKEN" "$(cfg Contexts.admin.Token)" "the login is kept"
expect_ok cub context set --space acme
expect_eq "Context admin unchanged (current)" "$OUT"
expect_ok cub unit create web "$E2E_TMP/web.yaml"
expect_ok cub unit list --names
expect_eq web "$OUT" "unit list in the context's Space"
expect_ok cub unit list --space other --names
expect_eq "" "$OUT" "--space beats the context"
expect_ok cub unit list --space '*' --names
expect_eq web "$OUT" "--space '*' still works"
expect_ok cub context list
expect_match "$OUT" $'\n\\*  +admin +'"$S"' +acme +admin +token' "the SPACE column"
# Another context's Space, with this token.
expect_ok cub context set bob --space other
expect_eq "Context bob updated" "$OUT"
expect_ok cub unit create cm "$E2E_TMP/web.yaml" --context bob --token "$ADMIN_TOKEN"
expect_ok cub unit list --space other --names
expect_eq cm "$OUT" "created in bob's Space"
expect_ok cub context set bob --space ""
expect_eq "" "$(cfg Contexts.bob.Space)" "--space \"\" removes it"

section "context set: new contexts, servers, errors"
expect_fail 1 "context fresh is new: give its --server ADDR" cub context set fresh --space acme
expect_fail 2 "takes no --token" cub context set fresh --server "$S" --token "$ADMIN_TOKEN"
expect_ok cub context set fresh --server "$S" --space acme
expect_eq "Context fresh created" "$OUT"
expect_eq "" "$(cfg Contexts.fresh.Token)" "no token"
expect_ok cub context list
expect_match "$OUT" $'\n +fresh +'"$S"' +acme +- +none' "fresh's row"
expect_ok cub auth login --server "$S" --token "$ADMIN_TOKEN" --context fresh
expect_eq acme "$(cfg Contexts.fresh.Space)" "a login keeps the Space"
expect_ok cub context set fresh --server 127.0.0.1:1
expect_eq "Context fresh updated; its login was for the old server: cub auth login" "$OUT"
expect_eq "" "$(cfg Contexts.fresh.Token)" "the old server's token is dropped"
expect_eq acme "$(cfg Contexts.fresh.Space)" "the Space stays"
expect_fail 1 "no context nope in $CUB_CONFIG (known: admin, bob, fresh)" cub context delete nope
expect_ok cub context delete fresh
expect_eq "Context fresh deleted" "$OUT"
expect_eq "" "$(cfg Contexts.fresh)" "gone"
expect_eq 600 "$(stat -c %a "$CUB_CONFIG")" "config file mode"
# A file written before Space and User existed still works.
printf '{"CurrentContext": "old", "Contexts": {"old": {"Server": "%s", "Token": "%s"}}}\n' \
  "$S" "$ADMIN_TOKEN" >"$E2E_TMP/old.json"
expect_ok env CUB_CONFIG="$E2E_TMP/old.json" cub context list
expect_match "$OUT" $'\n\\*  +old +'"$S"' +- +- +token' "an old file's context"
expect_ok env CUB_CONFIG="$E2E_TMP/old.json" cub context set --space acme
expect_ok env CUB_CONFIG="$E2E_TMP/old.json" cub unit list --names
expect_eq web "$OUT" "an old file's context with a Space"
# Deleting the current context leaves none.
expect_ok env CUB_CONFIG="$E2E_TMP/old.json" cub context delete old
expect_eq "Context old deleted; there is no current context now (cub context use NAME)" "$OUT"

section "unit create|update: FILE, --filename, --from-stdin"
printf 'apiVersion: v1\nkind: ConfigMap\nmetadata:\n  name: two\ndata:\n  v: "2"\n' >"$E2E_TMP/two.yaml"
expect_ok cub unit create by-name --filename "$E2E_TMP/web.yaml"
expect_ok cub unit data by-name
expect_eq "$(cat "$E2E_TMP/web.yaml")" "$OUT" "--filename data"
expect_ok cub unit create by-stdin --from-stdin <"$E2E_TMP/two.yaml"
expect_ok cub unit data by-stdin
expect_eq "$(cat "$E2E_TMP/two.yaml")" "$OUT" "--from-stdin data"
expect_fail 2 "give the data one way, FILE, --filename or --from-stdin; got FILE $E2E_TMP/web.yaml and --from-stdin" \
  cub unit create both "$E2E_TMP/web.yaml" --from-stdin
expect_fail 2 "got --filename $E2E_TMP/web.yaml and --from-stdin" \
  cub unit update by-name --filename "$E2E_TMP/web.yaml" --from-stdin
expect_fail 2 "--restore and --revert take no new data" \
  cub unit update by-name --from-stdin --restore 1
expect_fail 1 "cannot read $E2E_TMP/none.yaml" cub unit create none --filename "$E2E_TMP/none.yaml"
expect_fail 1 "not found" cub unit get both
expect_ok cub unit update by-name --filename "$E2E_TMP/two.yaml"
expect_eq "Unit by-name updated to revision 2" "$OUT"
expect_ok cub unit update by-stdin --from-stdin <"$E2E_TMP/web.yaml"
expect_eq "Unit by-stdin updated to revision 2" "$OUT"

section "unit edit"
# An editor script: records the file's mode, then edits it with sed.
cat >"$E2E_TMP/edit.sh" <<'SH'
#!/bin/sh
stat -c %a "$1" >"$EDIT_LOG"
echo "$1" >>"$EDIT_LOG"
sed -i 's/v: "1"/v: "edited"/' "$1"
SH
chmod +x "$E2E_TMP/edit.sh"
export EDIT_LOG="$E2E_TMP/edit.log"
expect_ok env -u VISUAL EDITOR="$E2E_TMP/edit.sh" cub unit edit web --change-desc "by hand"
expect_eq "Unit web updated to revision 2" "$OUT"
expect_eq 600 "$(head -1 "$EDIT_LOG")" "the temporary file's mode"
tmpfile=$(sed -n 2p "$EDIT_LOG")
expect_match "$tmpfile" '/cub-edit-web-[A-Za-z0-9]{6}\.yaml$' "temporary file name"
expect_eq no "$([[ -e $tmpfile ]] && echo yes || echo no)" "temporary file removed"
expect_ok cub unit data web
expect_contains "$OUT" 'v: "edited"'
expect_ok cub revision list --unit web -o json
expect_eq "by hand" "$(jget 1.Description)" "the revision's description"
# No change: nothing written.
expect_ok env -u VISUAL EDITOR=true cub unit edit web
expect_eq "Edit cancelled, no changes" "$OUT"
expect_ok cub unit get web -o json
expect_eq 2 "$(jget Unit.HeadRevisionNum)" "head after a cancelled edit"
# The editor's words are split as git splits them; $VISUAL beats $EDITOR.
expect_ok env VISUAL='sed -i s/edited/again/' EDITOR=false cub unit edit web
expect_eq "Unit web updated to revision 3" "$OUT"
expect_ok cub unit data web
expect_contains "$OUT" 'v: "again"'
# A failing editor: no update.
printf '#!/bin/sh\nsed -i s/again/lost/ "$1"\nexit 3\n' >"$E2E_TMP/fail.sh"
chmod +x "$E2E_TMP/fail.sh"
expect_fail 1 "editor $E2E_TMP/fail.sh exited with status 3; the Unit was not updated" \
  env -u VISUAL EDITOR="$E2E_TMP/fail.sh" cub unit edit web
expect_ok cub unit get web -o json
expect_eq 3 "$(jget Unit.HeadRevisionNum)" "head after a failed editor"
# A revision written while the editor is open: the edit is refused and kept.
cat >"$E2E_TMP/race.sh" <<SH
#!/bin/sh
cub unit update web "$E2E_TMP/two.yaml" >/dev/null || exit 9
sed -i s/again/mine/ "\$1"
SH
chmod +x "$E2E_TMP/race.sh"
expect_fail 1 "head is no longer revision 3" \
  env -u VISUAL EDITOR="$E2E_TMP/race.sh" cub unit edit web
expect_match "$ERR" "Your edit is kept in [^ ]*/cub-edit-web-" "where the edit is"
kept=$(sed -n 's/^Your edit is kept in //p' <<<"$ERR")
expect_contains "$(cat "$kept")" 'v: "mine"' "the kept edit"
rm -f "$kept"
expect_ok cub unit data web
expect_eq "$(cat "$E2E_TMP/two.yaml")" "$OUT" "the concurrent revision stays"
expect_fail 1 "not found" env EDITOR=true cub unit edit nope

e2e_finish
