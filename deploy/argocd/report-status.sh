#!/usr/bin/env bash
# Reference live-status reporter: reads an Argo CD Application with kubectl and reports its
# status to cub as the live status of the Release that Argo CD is running.
#
# The Release is found by commit: cubd looks up the revision Argo CD syncs (status.sync.revision)
# in the Space's Git Target and takes the nearest commit, that one or an ancestor, naming a
# Release of the Space (a commit that published many Spaces, or a later commit for other Spaces,
# still maps to this Space's Release).
#
#   report-status.sh --space SPACE --app APPLICATION [--namespace argocd] [--interval 30] [--once]
#
# Needs kubectl (with read access to the Application), python3, and cub with a token of a user
# holding the reporter role on SPACE (CUB_SERVER / CUB_TOKEN, or a saved context). Runs until
# stopped, reporting every --interval seconds, or once with --once. Exits non-zero on --once if
# it could not report.
set -uo pipefail

space="" app="" namespace=argocd interval=30 once=0
while (($#)); do
  case $1 in
    --space) space=$2; shift 2 ;;
    --app) app=$2; shift 2 ;;
    --namespace) namespace=$2; shift 2 ;;
    --interval) interval=$2; shift 2 ;;
    --once) once=1; shift ;;
    -h|--help) sed -n '2,15p' "$0"; exit 0 ;;
    *) echo "report-status: unknown argument '$1' (see --help)" >&2; exit 2 ;;
  esac
done
[[ -n $space && -n $app ]] || { echo "report-status: --space and --app are required" >&2; exit 2; }

report_once() {
  local app_json fields
  app_json=$(kubectl get application "$app" -n "$namespace" -o json) || {
    echo "report-status: cannot read Application $namespace/$app" >&2; return 1; }
  # revision, sync, health, operation and message, separated by \x1f (not whitespace, so that
  # an empty field stays one).
  fields=$(python3 /dev/fd/3 3<<'PY' <<<"$app_json"
import json, os, sys
app = json.load(sys.stdin).get("status", {})
sync = app.get("sync", {}).get("status") or "Unknown"
health = app.get("health", {}).get("status") or "Unknown"
phase = (app.get("operationState") or {}).get("phase") or ""
# Argo CD phases: Running, Terminating, Failed, Error, Succeeded.
operation = {"Running": "Running", "Terminating": "Running", "Failed": "Failed",
             "Error": "Failed", "Succeeded": "Succeeded"}.get(phase, "")
message = (app.get("operationState") or {}).get("message") or app.get("health", {}).get("message") or ""
revision = app.get("sync", {}).get("revision") or ""
if sync not in ("Synced", "OutOfSync"): sync = "Unknown"
if health not in ("Healthy", "Progressing", "Degraded", "Suspended", "Missing"): health = "Unknown"
print("\x1f".join([revision, sync, health, operation, message.replace("\t", " ").replace("\n", " ")]))
PY
) || return 1
  local revision sync health operation message
  IFS=$'\x1f' read -r revision sync health operation message <<<"$fields"
  if [[ -z $revision ]]; then
    echo "report-status: Application $namespace/$app names no revision yet" >&2
    return 1
  fi
  local args=(--space "$space" --commit="$revision" --sync "$sync" --health "$health")
  [[ -n $operation ]] && args+=(--operation "$operation")
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
