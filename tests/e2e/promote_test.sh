#!/usr/bin/env bash
# Promotion edge cases through the real binaries: a chain of variants and the revisions before
# a change's start (--prior-revisions), scope and range refusals, one Unit upgraded by hand to a
# ChangeOrder, two promoters on two cubd processes at once, and a cubd killed mid-stage.
source "$(dirname "${BASH_SOURCE[0]}")/lib.sh"
e2e_init promote
e2e_start_cubd main
e2e_start_cubd second
export CUB_SERVER=$E2E_SERVER CUB_TOKEN=$ADMIN_TOKEN

deployment() {  # deployment IMAGE-TAG REPLICAS
  cat <<YAML
apiVersion: apps/v1
kind: Deployment
metadata:
  name: web
spec:
  replicas: $2
  template:
    spec:
      containers:
        - name: web
          image: ghcr.io/acme/web:$1
YAML
}
revision_count() {  # revision_count SPACE UNIT
  local json
  json=$(cub revision list --space "$1" --unit "$2" -o json) && jget len "$json"
}

section "a chain: base -> dev -> stg, and what dev wrote before the change"
expect_ok cub space create base2
deployment v1 2 >"$E2E_TMP/b1.yaml"
expect_ok cub unit create --space base2 web "$E2E_TMP/b1.yaml"
expect_ok cub variant create dev2 base2 --stage Development
expect_ok cub variant create stg2 dev2 --stage Staging
deployment v1 5 >"$E2E_TMP/dev2.yaml"
expect_ok cub unit update --space dev2 web "$E2E_TMP/dev2.yaml" --change-desc "dev scales up"
expect_ok cub function set --space base2 --unit web -- set-container-image web ghcr.io/acme/web:v2
expect_fail 1 "'stg2' is in scope but 'dev2', which it takes the change from, is not" \
  cub changeorder create --space base2 skip-dev --description x --in-scope-space stg2
expect_ok cub changeorder create --space base2 chain-v2 --description "web v2"
expect_ok cub changeorder get --space base2 chain-v2 -o json
expect_eq 3 "$(jget InScopeSpaceIDs.len)"
expect_fail 1 "has no workflow" cub variant promote --change-order base2/chain-v2
expect_fail 1 "'stg2' takes the change from 'dev2', which has not taken change order 'chain-v2'" \
  cub variant promote stg2 --change-order base2/chain-v2
expect_ok cub variant promote dev2 --change-order base2/chain-v2
expect_ok cub unit data --space dev2 web
expect_contains "$OUT" "web:v2"
expect_contains "$OUT" "replicas: 5"
# stg2 has not merged dev2's own revision 2, which precedes the change there.
expect_fail 1 "has not merged revisions 2..2" \
  cub variant promote stg2 --change-order base2/chain-v2 --prior-revisions Error --dry-run
expect_contains "$OUT" "dev scales up"
expect_ok cub variant promote stg2 --change-order base2/chain-v2 --prior-revisions Skip \
  --dry-run -o json
expect_eq WouldPromote "$(jget Spaces.0.Status)"
expect_eq 1 "$(jget Spaces.0.Units.0.RevisionsWritten)"
expect_ok cub variant promote stg2 --change-order base2/chain-v2 --dry-run -o mutations
expect_contains "$OUT" "ghcr.io/acme/web:v2"
# An AutoUpdate Link follows what the promotion writes, as it follows any write.
expect_ok cub unit create --space stg2 web-mirror "$E2E_TMP/b1.yaml"
expect_ok cub link create mirror web-mirror web --space stg2 --update-type MergeUnits \
  --auto-update --upstream-revision-num 1
expect_ok cub variant promote stg2 --change-order base2/chain-v2 -o json
expect_contains "$OUT" '"RevisionsWritten": 2'
expect_ok cub unit data --space stg2 web-mirror
expect_contains "$OUT" "web:v2"
expect_ok cub revision list --space stg2 --unit web -o json
expect_eq 3 "$(jget len)"
expect_eq "" "$(jget 1.ChangeOrderID)" "the prior revision does not carry the change"
expect_ne "" "$(jget 2.ChangeOrderID)" "the change's revision carries it"
expect_ok cub unit data --space stg2 web
expect_contains "$OUT" "web:v2"
expect_contains "$OUT" "replicas: 5"
expect_ok cub changeorder get --space base2 chain-v2 -o json
expect_eq Resolved "$(jget State)"

section "a promotion's record names what an AutoUpdate Link wrote after it"
# v4/web-mirror takes the change itself, then again through its AutoUpdate Link once v4/web
# has taken it: its record must name that later head, not the one the promotion wrote.
expect_ok cub space create base4
expect_ok cub unit create --space base4 web "$E2E_TMP/b1.yaml"
expect_ok cub unit create --space base4 web-mirror "$E2E_TMP/b1.yaml"
expect_ok cub variant create v4 base4
expect_ok cub link create mirror web-mirror web --space v4 --update-type MergeUnits \
  --auto-update --upstream-revision-num 1
expect_ok cub function set --space base4 --unit web -- set-replicas 3
for u in web web-mirror; do
  expect_ok cub function set --space base4 --unit "$u" -- \
    set-container-image web ghcr.io/acme/web:v4
done
expect_ok cub changeorder create --space base4 co4 --description "web v4, three replicas"
expect_ok cub variant promote v4 --change-order base4/co4 -o json
expect_ok cub unit data --space v4 web-mirror
expect_contains "$OUT" "replicas: 3"
heads=$("$E2E_PSQL" -X -q -A -t -v ON_ERROR_STOP=1 "$E2E_DB_URL" -c "
  SELECT string_agg(u.slug || '@' || u.head_revision_num || ' ' || r.data_hash, ',' ORDER BY u.slug)
  FROM units u JOIN spaces s ON s.id = u.space_id
  JOIN revisions r ON r.unit_id = u.id AND r.revision_num = u.head_revision_num
  WHERE s.slug = 'v4'")
expect_contains "$heads" "web-mirror@3 " "the Link wrote a revision after the promotion's"
expect_ok cub changeorder records --space base4 co4 -o json
recorded=$(python3 -c '
import base64, json, sys
(r,) = json.loads(sys.argv[1])
st = json.loads(base64.b64decode(json.loads(r["Envelope"])["payload"]))
print(",".join(u["Unit"] + "@" + str(u["RevisionNum"]) + " " + u["DataHash"]
               for u in st["predicate"]["Units"]))' "$OUT")
expect_eq "$heads" "$recorded" "the record names each Unit's head"

section "followers that disagree on the start are refused"
expect_ok cub function set --space base2 --unit web -- set-replicas 3
expect_ok cub variant create dev3 base2 --stage Development
expect_fail 1 "unit 'web': the Spaces that follow it have merged up to different revisions" \
  cub changeorder create --space base2 replicas-3 --description x
expect_contains "$ERR" "revision 2 in dev2"
expect_contains "$ERR" "revision 3 in dev3"

section "one Unit upgraded to a ChangeOrder by hand, and one merged past its start"
expect_ok cub space create base3
expect_ok cub unit create --space base3 web "$E2E_TMP/b1.yaml"
for v in va vb vc; do expect_ok cub variant create "$v" base3; done
expect_ok cub function set --space base3 --unit web -- set-replicas 4
expect_ok cub function set --space base3 --unit web -- set-container-image web ghcr.io/acme/web:v3
expect_ok cub changeorder create --space base3 co3 --description "two steps"
expect_fail 1 "--change-order supplies the range" \
  cub unit update --space va web --upgrade --change-order base3/co3 --merge-end 2
expect_ok cub unit update --space va web --upgrade --change-order base3/co3
expect_eq 3 "$(revision_count va web)"
expect_ok cub unit update --space va web --upgrade --change-order base3/co3
expect_eq 3 "$(revision_count va web)"
expect_ok cub unit update --space vc web --upgrade --merge-end 2
expect_ok cub changeorder get --space base3 co3 -o json
expect_eq New "$(jget State)" "a Unit upgraded by hand does not resolve its Space"
expect_fail 1 "already merged revisions 2..2 of base3/web, past the start of change order 'co3'" \
  cub variant promote va vb vc --change-order base3/co3 -o json
expect_eq 2 "$(jget Landed)"
expect_eq AlreadyHadChange "$(jget Spaces.0.Units.0.Action)"
expect_eq Upgraded "$(jget Spaces.1.Units.0.Action)"
expect_eq Failed "$(jget Spaces.2.Status)"
expect_eq 3 "$(revision_count va web)"

section "two promoters on two cubd processes reach each Unit once"
expect_ok cub changeworkflow create --space base3 fleet-flow --stage Fleet
expect_ok cub space create fleet-base
expect_ok cub unit create --space fleet-base web "$E2E_TMP/b1.yaml"
expect_ok cub unit create --space fleet-base api "$E2E_TMP/b1.yaml"
for i in $(seq 1 24); do expect_ok cub variant create "fleet-$i" fleet-base --stage Fleet; done
expect_ok cub function set --space fleet-base --unit web -- set-container-image web ghcr.io/acme/web:v9
expect_ok cub changeorder create --space fleet-base v9 --description v9 \
  --change-workflow base3/fleet-flow
cub variant promote --change-order fleet-base/v9 -o json --server "${CUBD_GRPC[main]}" \
  >"$E2E_TMP/p1.json" 2>&1 &
p1=$!
cub variant promote --change-order fleet-base/v9 -o json --server "${CUBD_GRPC[second]}" \
  >"$E2E_TMP/p2.json" 2>&1 &
p2=$!
wait $p1 || e2e_fail "promoter 1 failed: $(cat "$E2E_TMP/p1.json")"
wait $p2 || e2e_fail "promoter 2 failed: $(cat "$E2E_TMP/p2.json")"
landed=$(($(jget Landed "$(cat "$E2E_TMP/p1.json")") + $(jget Landed "$(cat "$E2E_TMP/p2.json")")))
expect_eq 24 "$landed" "Spaces landed by the two promoters together"
for i in 1 12 24; do expect_eq 2 "$(revision_count "fleet-$i" web)" "fleet-$i/web revisions"; done

section "a cubd killed mid-stage, and the promotion rerun"
for i in $(seq 1 24); do
  expect_ok cub space update "fleet-$i" --label Stage=Fleet2
done
expect_ok cub changeworkflow create --space base3 fleet2-flow --stage Fleet2
expect_ok cub function set --space fleet-base --unit api -- set-container-image web ghcr.io/acme/api:v10
expect_ok cub changeorder create --space fleet-base v10 --description v10 \
  --change-workflow base3/fleet2-flow
cub variant promote --change-order fleet-base/v10 --server "${CUBD_GRPC[second]}" \
  >/dev/null 2>&1 &
p3=$!
sleep 0.05
kill -KILL "${CUBD_PID[second]}" 2>/dev/null
wait "${CUBD_PID[second]}" 2>/dev/null
unset "CUBD_PID[second]"
wait $p3
expect_ok cub variant promote --change-order fleet-base/v10 -o json
expect_eq 24 "$(($(jget Landed) + $(jget Already)))"
for i in 1 12 24; do expect_eq 2 "$(revision_count "fleet-$i" api)" "fleet-$i/api revisions"; done
expect_ok cub changeorder get --space fleet-base v10 -o json
expect_eq Resolved "$(jget State)"

e2e_finish
