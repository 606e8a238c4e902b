#!/usr/bin/env python3
"""Compares ListChangeOrders' View Basic with View Full over REST (tests/e2e/lib.sh,
expect_basic_as_full): every page of both, the same ChangeOrders in the same order, and each
Basic one equal field by field to the Full one less its Space ID lists (State included).

Usage: basic_view.py HTTP TOKEN SPACE WHERE
Prints the States seen, comma-separated in list order; on a difference, what differs, exit 1.
"""
import json
import sys
import urllib.request

# The fields View Basic leaves out (lib/ops/change_orders.cc, ListChangeOrders).
ID_LISTS = ("InScopeSpaceIDs", "ResolvedSpaceIDs", "ReleasedSpaceIDs", "RestoredSpaceIDs")


def list_all(http, token, space, where, view):
    rows, page_token = [], ""
    while True:
        body = {"Space": space, "View": view, "Limit": 3, "PageToken": page_token,
                "Options": {"Where": where}}
        req = urllib.request.Request(
            f"http://{http}/v1/ChangeOrderService/ListChangeOrders",
            data=json.dumps(body).encode(), method="POST",
            headers={"Authorization": f"Bearer {token}", "Content-Type": "application/json"})
        with urllib.request.urlopen(req, timeout=60) as resp:
            answer = json.load(resp)
        rows += answer.get("ChangeOrders", [])
        page_token = answer.get("NextPageToken", "")
        if not page_token:
            return rows


def main():
    http, token, space, where = sys.argv[1:5]
    full = list_all(http, token, space, where, "Full")
    basic = list_all(http, token, space, where, "Basic")
    problems = []
    if [c["ChangeOrderID"] for c in full] != [c["ChangeOrderID"] for c in basic]:
        problems.append("different ChangeOrders: Full %s, Basic %s" % (
            [c["Slug"] for c in full], [c["Slug"] for c in basic]))
    for f, b in zip(full, basic):
        for field in ID_LISTS:
            if b.get(field):
                problems.append(f"{b['Slug']}: Basic has {field}")
            f.pop(field, None)
            b.pop(field, None)
        for field in sorted(set(f) | set(b)):
            if f.get(field) != b.get(field):
                problems.append(f"{f['Slug']}.{field}: Full {f.get(field)!r}, Basic {b.get(field)!r}")
    if problems:
        print("\n".join(problems), file=sys.stderr)
        return 1
    print(",".join(c.get("State", "") for c in full))
    return 0


if __name__ == "__main__":
    sys.exit(main())
