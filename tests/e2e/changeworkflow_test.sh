#!/usr/bin/env bash
# ChangeWorkflows through the real binaries: from a YAML file and from flags, update
# semantics, clone, and refusals that name what is wrong and where.
source "$(dirname "${BASH_SOURCE[0]}")/lib.sh"
e2e_init changeworkflow
e2e_start_cubd main
export CUB_SERVER=$E2E_SERVER CUB_TOKEN=$ADMIN_TOKEN

expect_ok cub space create acme-workflows
expect_ok cub space create team-b

section "from a file"
cat >"$E2E_TMP/main-line.yaml" <<'YAML'
Stages:
  - Name: dev
    WhereSpace: "Labels.Stage = 'Development'"
  - Name: staging
    WhereSpace: "Labels.Stage = 'Staging'"
    Prerequisites: [Validated, Released]
  - Name: prod
    WhereSpace: "Labels.Stage = 'Production'"
    Prerequisites: [Released, Healthy, not-frozen]
Final:
  Prerequisites: [Released, Healthy]
CustomPrerequisites:
  - Name: not-frozen
    Expression: "cel:!('code-freeze' in Space.Annotations) || Space.Annotations['code-freeze'] != 'true'"
    Description: the space is not under a code freeze
YAML
expect_ok cub changeworkflow create --space acme-workflows acme-main-line --filename "$E2E_TMP/main-line.yaml"
expect_ok cub changeworkflow get --space acme-workflows acme-main-line -o json
expect_eq 3 "$(jget Stages.len)"
expect_eq prod "$(jget Stages.2.Name)"
expect_eq '["Released","Healthy","not-frozen"]' "$(jget Stages.2.Prerequisites)"
expect_eq not-frozen "$(jget CustomPrerequisites.0.Name)"
# What get -o json prints can be fed back.
cub changeworkflow get --space acme-workflows acme-main-line -o json >"$E2E_TMP/roundtrip.json"
expect_ok cub changeworkflow update --space acme-workflows acme-main-line --filename "$E2E_TMP/roundtrip.json"
expect_ok cub changeworkflow get --space acme-workflows acme-main-line
expect_contains "$OUT" "not-frozen"

section "refusals name what is wrong"
sed 's/Prerequisites: \[Validated, Released\]/Prerequisite: [Validated]/' "$E2E_TMP/main-line.yaml" >"$E2E_TMP/typo.yaml"
expect_fail 1 "Stages[1].Prerequisite: unknown field" cub changeworkflow create --space acme-workflows t1 --filename "$E2E_TMP/typo.yaml"
sed "s/Labels.Stage = 'Staging'/Lables.Stage = 'Staging'/" "$E2E_TMP/main-line.yaml" >"$E2E_TMP/where.yaml"
expect_fail 1 "unknown field 'Lables' at 1" cub changeworkflow create --space acme-workflows t2 --filename "$E2E_TMP/where.yaml"
sed "s/Space.Annotations\['code-freeze'\] != 'true'/Spce.Annotations['x'] != 'true'/" "$E2E_TMP/main-line.yaml" >"$E2E_TMP/cel.yaml"
expect_fail 1 "undeclared reference to 'Spce'" cub changeworkflow create --space acme-workflows t3 --filename "$E2E_TMP/cel.yaml"
sed 's/not-frozen\]/not-frozn]/' "$E2E_TMP/main-line.yaml" >"$E2E_TMP/name.yaml"
expect_fail 1 "not-frozn" cub changeworkflow create --space acme-workflows t4 --filename "$E2E_TMP/name.yaml"
expect_ok cub changeworkflow list --space acme-workflows -o json
expect_eq 1 "$(jget len)" "refused workflows were not written"

section "from flags"
expect_ok cub changeworkflow create --space acme-workflows acme-simple \
  --stage Development --stage Staging --stage Production --prerequisites Released,Healthy
expect_ok cub changeworkflow get --space acme-workflows acme-simple -o json
expect_eq "Labels.Stage = 'Production'" "$(jget Stages.2.WhereSpace)"
expect_eq '[]' "$(jget Stages.0.Prerequisites)" "first stage has no gates"
expect_eq '["Released","Healthy"]' "$(jget Final.Prerequisites)"
expect_ok cub changeworkflow update --space acme-workflows acme-simple \
  --stage-where-space "Production=Labels.Stage = 'Production' AND Labels.Region = 'us-east1'" \
  --stage-prerequisites 'Production=Released;Healthy;two-approvers' \
  --attestation-prerequisite two-approvers --attestation-prerequisite-count two-approvers=2
expect_ok cub changeworkflow get --space acme-workflows acme-simple -o json
expect_eq "Labels.Stage = 'Production' AND Labels.Region = 'us-east1'" "$(jget Stages.2.WhereSpace)"
expect_eq 2 "$(jget AttestationPrerequisites.0.Count)"
expect_eq 2 "$(jget Version)"
# Named stages are the stages, in that order; an unnamed one is removed, a named one keeps its fields.
expect_ok cub changeworkflow update --space acme-workflows acme-simple --stage Development --stage Production
expect_ok cub changeworkflow get --space acme-workflows acme-simple -o json
expect_eq 2 "$(jget Stages.len)"
expect_eq "Labels.Stage = 'Production' AND Labels.Region = 'us-east1'" "$(jget Stages.1.WhereSpace)"
expect_fail 1 "nothing to update" cub changeworkflow update --space acme-workflows acme-simple
expect_fail 1 "" cub changeworkflow update --space acme-workflows acme-simple --stage-prerequisites 'Nope=Released'

section "clone and delete"
expect_ok cub changeworkflow create --changeworkflow acme-workflows/acme-main-line --dest-space team-b
expect_ok cub changeworkflow get --space team-b acme-main-line -o json
expect_eq 3 "$(jget Stages.len)"
expect_fail 1 "already exists" cub changeworkflow create --changeworkflow acme-workflows/acme-main-line --dest-space team-b
expect_ok cub changeworkflow delete --space team-b acme-main-line
expect_fail 1 "not found" cub changeworkflow get --space team-b acme-main-line

e2e_finish
