#!/usr/bin/env bash
# Reference live-status reporter for Flux: reads a Flux Kustomization with kubectl and reports
# its status to cub as the live status of the Release of SPACE that Flux is rolling out.
#
# The Release is found by commit: cubd looks up the revision Flux names ("main@sha1:<hex>") in the
# Space's Git Target and takes the nearest commit, that one or an ancestor, naming a Release of
# the Space (a commit that published many Spaces, or a later commit for other Spaces, still maps
# to this Space's Release).
#
#   report-status.sh --space SPACE --kustomization NAME [--namespace flux-system]
#                    [--interval 30] [--once]
#
# What is reported (the Kustomization's status.lastAttemptedRevision, lastAppliedRevision and
# Ready condition; spec.suspend):
#   attempted == applied (or none attempted): the applied revision's Release, Synced; Ready True
#     -> Healthy/Succeeded, False -> Degraded/Failed, Unknown -> Progressing/Running;
#   attempted != applied: the attempted revision's Release (Flux has not applied it, or it did
#     not become healthy), OutOfSync; Ready False -> Degraded/Failed, otherwise Progressing/Running;
#   suspended: Health Suspended. The message is the Ready condition's.
#
# Needs kubectl (read access to the Kustomization), python3, and cub with a token of a user
# holding the reporter role on SPACE (CUB_SERVER / CUB_TOKEN, or a saved context). Runs until
# stopped, reporting every --interval seconds, or once with --once (then exits non-zero if it
# could not report).
set -uo pipefail

space="" ks="" namespace=flux-system interval=30 once=0
while (($#)); do
  case $1 in
    --space) space=$2; shift 2 ;;
    --kustomization) ks=$2; shift 2 ;;
    --namespace) namespace=$2; shift 2 ;;
    --interval) interval=$2; shift 2 ;;
    --once) once=1; shift ;;
    -h|--help) sed -n '2,24p' "$0"; exit 0 ;;
    *) echo "report-status: unknown argument '$1' (see --help)" >&2; exit 2 ;;
  esac
done
[[ -n $space && -n $ks ]] || {
  echo "report-status: --space and --kustomization are required" >&2; exit 2; }

report_once() {
  local ks_json fields
  ks_json=$(kubectl get kustomizations.kustomize.toolkit.fluxcd.io "$ks" -n "$namespace" -o json) || {
    echo "report-status: cannot read Kustomization $namespace/$ks" >&2; return 1; }
  # revision, sync, health, operation and message, separated by \x1f (not whitespace, so that
  # an empty field stays one).
  fields=$(python3 /dev/fd/3 3<<'PY' <<<"$ks_json"
import json, os, sys
ks = json.load(sys.stdin)
st = ks.get("status") or {}
applied = st.get("lastAppliedRevision") or ""
attempted = st.get("lastAttemptedRevision") or ""
ready = next((c for c in st.get("conditions") or [] if c.get("type") == "Ready"), {})
ready_status = ready.get("status") or "Unknown"
message = ready.get("message") or ""
if attempted and attempted != applied:
    revision, sync = attempted, "OutOfSync"
    health, operation = ("Degraded", "Failed") if ready_status == "False" else ("Progressing", "Running")
else:
    revision, sync = applied, "Synced"
    health, operation = {"True": ("Healthy", "Succeeded"),
                         "False": ("Degraded", "Failed")}.get(ready_status, ("Progressing", "Running"))
if (ks.get("spec") or {}).get("suspend"):
    health = "Suspended"
print("\x1f".join([revision, sync, health, operation,
                 message.replace("\t", " ").replace("\n", " ")]))
PY
) || return 1
  local revision sync health operation message
  IFS=$'\x1f' read -r revision sync health operation message <<<"$fields"
  if [[ -z $revision ]]; then
    echo "report-status: Kustomization $namespace/$ks names no revision yet" >&2
    return 1
  fi
  local args=(--space "$space" --commit="$revision" --sync "$sync" --health "$health"
              --operation "$operation")
  [[ -n $message ]] && args+=(--message="$message")
  cub release set-status "${args[@]}"
}

if ((once)); then
  report_once
  exit
fi
while true; do
  report_once || true
  sleep "$interval"
done
