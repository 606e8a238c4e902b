#!/usr/bin/env bash
# Many variants in one call (`cub variant create NAME... UPSTREAM-SPACE`, --names-file, and
# CreateVariants over REST): each bulk-created variant is written exactly as a single
# `cub variant create` writes one (Space, Units, first revisions, Links and their cursors,
# grants), and a batch with one bad, repeated or taken name, a missing upstream, no access or
# too many names is refused naming what is wrong, with nothing created.
source "$(dirname "${BASH_SOURCE[0]}")/lib.sh"
e2e_init variant_bulk
e2e_start_cubd main
export CUB_SERVER=$E2E_SERVER CUB_TOKEN=$ADMIN_TOKEN
D=$E2E_TMP

BOB_TOKEN=$(create_user bob --group team-b) || e2e_fail "cubd user create bob failed"
as_bob() { env CUB_TOKEN="$BOB_TOKEN" "$@"; }
space_count() { db -c "SELECT count(*) FROM spaces"; }

section "setup: a base of three Units, a grant to carry over"
expect_ok cub space create base --component shop
for name in web api worker; do
  deployment "v1-$name" | expect_ok cub unit create --space base "$name" -
done
deployment v2 | expect_ok cub unit update --space base web -
expect_ok cub space grant base editor --group ops

section "one variant, as before"
expect_ok cub variant create single base --stage Production --region eu --label tier=gold
expect_eq "Variant single created from base with 3 units" "$OUT" "single create confirmation"

section "bulk: names as arguments, then from a file"
expect_ok cub variant create bulk-1 bulk-2 bulk-3 base --stage Production --region eu \
  --label tier=gold
expect_match "$OUT" $'^SPACE +STAGE +ENVIRONMENT +REGION +UNITS\n' "bulk table header"
expect_match "$OUT" $'\nbulk-2 +Production +eu +3\n' "bulk table row"
expect_contains "$OUT" "3 variants created from base with 3 units each" "bulk closing line"
seq 4 50 | sed 's/^/bulk-/' >"$D/names"
printf '# comment\n\n' >>"$D/names"
expect_ok cub variant create base --names-file "$D/names" --stage Production --region eu \
  --label tier=gold -o json
expect_eq "47" "$(jget Spaces.len)" "JSON Spaces"
expect_eq "3" "$(jget UnitCount)" "JSON UnitCount"
expect_eq "141" "$(jget LinkCount)" "JSON LinkCount"
expect_eq "bulk-10" "$(jget Spaces.0.Slug)" "Spaces come by slug"
expect_eq "Production" "$(jget Spaces.0.Labels.Stage)" "JSON Stage label"
expect_eq "shop" "$(jget Spaces.0.ComponentSlug)" "in the upstream's component"

section "each bulk variant is what a single create writes"
# A digest of everything a create writes for a Space, with its own IDs left out: the Space's
# labels, component and upstream; each Unit with its first revision; each Link; each grant.
signature_sql="
WITH sp AS (SELECT id, slug FROM spaces WHERE slug = 'single' OR slug LIKE 'bulk-%'),
sig AS (
  SELECT sp.slug, md5(concat_ws('#',
    (SELECT concat_ws(',', s.display_name, s.labels::text, s.annotations::text, s.component_id,
                      s.upstream_space_id) FROM spaces s WHERE s.id = sp.id),
    (SELECT string_agg(concat_ws(',', u.slug, u.toolchain_type, u.labels::text,
                                 u.annotations::text, u.head_revision_num,
                                 u.last_released_revision_num, u.upstream_unit_id,
                                 r.revision_num, r.data_hash, r.author_id, r.description,
                                 r.upstream_unit_id, r.upstream_revision_num, r.restored_from_num),
                       ';' ORDER BY u.slug, r.revision_num)
       FROM units u JOIN revisions r ON r.unit_id = u.id WHERE u.space_id = sp.id),
    (SELECT string_agg(concat_ws(',', l.slug, fu.slug, l.to_unit_id, l.update_type,
                                 l.auto_update, l.protect, l.upstream_revision_num,
                                 l.definition::text), ';' ORDER BY l.slug)
       FROM links l JOIN units fu ON fu.id = l.from_unit_id WHERE l.space_id = sp.id),
    (SELECT string_agg(concat_ws(',', p.role, p.user_id, p.group_name), ';'
                       ORDER BY p.role, p.user_id, p.group_name)
       FROM space_permissions p WHERE p.space_id = sp.id))) AS h
  FROM sp)
SELECT count(*) || ' spaces, ' || count(DISTINCT h) || ' distinct'
  || CASE WHEN count(*) FILTER (WHERE h = (SELECT h FROM sig WHERE slug = 'single')) = count(*)
          THEN ', all as single' ELSE ', NOT as single' END FROM sig"
expect_eq "51 spaces, 1 distinct, all as single" "$(db -c "$signature_sql")" "variant digests"
# The digest is not empty of substance: three Units, Links at the cloned revision, the grants.
expect_eq "3|3|2" "$(db -c "
  SELECT (SELECT count(*) FROM units WHERE space_id = s.id) || '|' ||
         (SELECT count(*) FROM links l JOIN units uu ON uu.id = l.to_unit_id
           WHERE l.space_id = s.id AND l.upstream_revision_num = uu.head_revision_num
             AND l.update_type = 'UpgradeUnit') || '|' ||
         (SELECT count(*) FROM space_permissions WHERE space_id = s.id)
  FROM spaces s WHERE s.slug = 'bulk-37'")" "bulk-37: Units, Links at the clone, grants"
expect_ok cub link list --space bulk-37 -o json
expect_eq "3" "$(jget len)" "cub link list of a bulk variant"
expect_ok cub unit get --space bulk-37 web -o json
expect_eq "1" "$(jget Unit.HeadRevisionNum)" "clone at revision 1"

section "refusals: nothing is created"
before=$(space_count)
expect_fail 1 "space names not valid: 'bad name', '_x'" \
  cub variant create ok-1 "bad name" ok-2 _x base
expect_fail 1 "space names given more than once: 'ok-1'" cub variant create ok-1 ok-2 ok-1 base
expect_fail 1 "2 spaces already exist: 'bulk-7', 'single'" \
  cub variant create ok-1 bulk-7 ok-2 single base
expect_fail 1 "space 'bulk-7' already exists" cub variant create ok-1 bulk-7 base
expect_fail 1 "not found" cub variant create ok-1 ok-2 nope
seq 10001 | sed 's/^/many-/' >"$D/many"
expect_fail 1 "10001 variants asked for in one call; the limit is 10000" \
  cub variant create base --names-file "$D/many"
expect_fail 1 "not found" as_bob cub variant create bob-1 bob-2 base
expect_fail 1 "not found" as_bob cub variant create bob-1 base
expect_fail 2 "NAME is required" cub variant create base
printf '# nothing\n' >"$D/empty"
expect_fail 2 "names no Space" cub variant create base --names-file "$D/empty"
expect_eq "$before" "$(space_count)" "no Space created by a refused batch"
expect_eq "0" "$(db -c "SELECT count(*) FROM spaces WHERE slug LIKE 'ok-%' OR slug LIKE 'bob-%'
  OR slug LIKE 'many-%'")" "none of the refused names exists"

section "the same access as a single create"
expect_ok cub space grant base viewer --group team-b
expect_ok as_bob cub variant create bob-1 bob-2 base -o json
expect_eq "2" "$(jget Spaces.len)" "a viewer of the upstream creates variants"
expect_eq "admin" "$(db -c "SELECT string_agg(p.role, ',') FROM space_permissions p
  JOIN spaces s ON s.id = p.space_id JOIN users u ON u.id = p.user_id
  WHERE s.slug = 'bob-2' AND u.username = 'bob'")" "the caller is admin of each"

section "REST mirror"
body='{"Slugs":["rest-1","rest-2"],"UpstreamSpace":"base","Stage":"Development"}'
run curl -sS -X POST -H 'Content-Type: application/json' -H "Authorization: Bearer $ADMIN_TOKEN" \
  --data-binary "$body" "http://$E2E_HTTP/v1/VariantService/CreateVariants"
((RC == 0)) || e2e_fail "curl failed"
expect_eq "2" "$(jget Spaces.len)" "REST CreateVariants Spaces"
expect_eq "Development" "$(jget Spaces.1.Labels.Stage)" "REST CreateVariants Stage"
run curl -sS -o /dev/null -w '%{http_code}' -X POST -H 'Content-Type: application/json' \
  -H "Authorization: Bearer $ADMIN_TOKEN" --data-binary "$body" \
  "http://$E2E_HTTP/v1/VariantService/CreateVariants"
expect_eq "409" "$OUT" "REST CreateVariants of taken names"

e2e_finish
