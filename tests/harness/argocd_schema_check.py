#!/usr/bin/env python3
"""Validates Argo CD Application documents against the Application CRD's openAPIV3Schema.

Usage: argocd_schema_check.py CRD.yaml APP.yaml...

The schema is that of the CRD's served storage version. Kubernetes prunes fields a structural
schema does not name rather than refusing them; this check is stricter: an object schema with
`properties` and without x-kubernetes-preserve-unknown-fields gets additionalProperties: false,
so a misspelt field (syncOptions under automated, repoUrl for repoURL) fails here. Also checks
what the API server checks outside the schema: metadata.name is a DNS subdomain of at most 253
characters and label values are valid.

Exit 0 when every document of every file validates; 1 with one line per problem otherwise.
"""

import re
import sys

import jsonschema
import yaml


def strict(schema):
    if isinstance(schema, dict):
        if (schema.get("type") == "object" and "properties" in schema
                and "additionalProperties" not in schema
                and not schema.get("x-kubernetes-preserve-unknown-fields")):
            schema["additionalProperties"] = False
        for value in schema.values():
            strict(value)
    elif isinstance(schema, list):
        for value in schema:
            strict(value)
    return schema


def load_schema(path):
    with open(path) as f:
        crd = yaml.safe_load(f)
    for version in crd["spec"]["versions"]:
        if version.get("storage"):
            schema = version["schema"]["openAPIV3Schema"]
            # metadata is Kubernetes' ObjectMeta, which the CRD leaves open: describe the part
            # cub writes.
            schema["properties"]["metadata"] = {
                "type": "object",
                "required": ["name", "namespace"],
                "properties": {
                    "name": {"type": "string"},
                    "namespace": {"type": "string"},
                    "labels": {"type": "object", "additionalProperties": {"type": "string"}},
                    "annotations": {"type": "object",
                                    "additionalProperties": {"type": "string"}},
                },
            }
            return strict(schema)
    raise SystemExit(f"{path}: no storage version")


DNS_LABEL = re.compile(r"^[a-z0-9]([-a-z0-9]*[a-z0-9])?$")
LABEL_VALUE = re.compile(r"^(([A-Za-z0-9][-A-Za-z0-9_.]*)?[A-Za-z0-9])?$")


def main():
    schema = load_schema(sys.argv[1])
    validator = jsonschema.Draft7Validator(schema)
    problems = []
    count = 0
    for path in sys.argv[2:]:
        with open(path) as f:
            docs = [d for d in yaml.safe_load_all(f) if d is not None]
        for doc in docs:
            count += 1
            for error in validator.iter_errors(doc):
                where = "/".join(str(p) for p in error.absolute_path)
                problems.append(f"{path}: {where}: {error.message}")
            if doc.get("apiVersion") != "argoproj.io/v1alpha1" or doc.get("kind") != "Application":
                problems.append(f"{path}: not an argoproj.io/v1alpha1 Application")
            meta = doc.get("metadata") or {}
            name = meta.get("name", "")
            if len(name) > 63 or not DNS_LABEL.match(name):
                problems.append(f"{path}: metadata.name {name!r} is not a DNS label")
            for key, value in (meta.get("labels") or {}).items():
                if len(value) > 63 or not LABEL_VALUE.match(value):
                    problems.append(f"{path}: label {key} value {value!r} is not valid")
    for p in problems:
        print(p)
    print(f"{count} Application(s) checked, {len(problems)} problem(s)")
    return 1 if problems or count == 0 else 0


if __name__ == "__main__":
    sys.exit(main())
