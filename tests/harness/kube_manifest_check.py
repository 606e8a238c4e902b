#!/usr/bin/env python3
"""Checks the rendered Kubernetes manifests of deploy/kubernetes against what cubd really is.

Usage: kube_manifest_check.py RENDERED.yaml SECRETS_DIR SERVE_HELP MIGRATE_HELP CLUSTER_CRD

RENDERED.yaml is `kubectl kustomize deploy/kubernetes`; SECRETS_DIR holds the example Secret
shapes (deploy/kubernetes/secrets); the help files are `cubd serve --help` and
`cubd migrate --help`; CLUSTER_CRD is CloudNativePG's Cluster CRD, which the rendered Cluster
must validate against (refusing fields it does not name). Every --flag and CUBD_* variable the manifests give cubd must be one its
help lists, so the manifests cannot drift from the binary; the rest checks the properties
docs/operations.md ("Running in Kubernetes") promises: objects, probes on the ports and paths
cubd serves, security context, replicas, selectors, database roles, network policy, Secrets.

Prints each failure on a line of its own and exits 1 if there is any, 0 otherwise.
"""

import glob
import os
import re
import sys
import urllib.parse

import jsonschema
import yaml

from argocd_schema_check import strict

# libyaml's parser when python3-yaml has it: the CRD is half a megabyte.
LOADER = getattr(yaml, "CSafeLoader", yaml.SafeLoader)

# After SIGTERM cubd drains the REST mirror (up to 10 s), then gRPC (up to 20 s).
DRAIN_SECONDS = 30

FAILURES = []


def fail(where, message):
    FAILURES.append(f"{where}: {message}")


class Help:
    """The flags and environment variable names a `cubd SUBCOMMAND --help` lists."""

    def __init__(self, path):
        text = open(path, encoding="utf-8").read()
        self.flags = set(re.findall(r"(?<![\w-])(--[a-z][a-z0-9-]*)", text))
        self.envs = set(re.findall(r"\bCUBD_[A-Z0-9_]+\b", text))

    def check_flag(self, where, flag):
        if flag in self.flags:
            return
        fail(where, f"{flag} is not a flag of this cubd command (not in its --help)")

    def check_env(self, where, name):
        flag = "--" + name[len("CUBD_"):].lower().replace("_", "-")
        self.check_flag(where, flag)
        # cubd's help names each flag's variable: the name must be one of them exactly.
        if name not in self.envs:
            fail(where, f"{name} is not an environment variable cubd's --help lists")


def labels_match(selector, labels):
    """Whether a label selector (matchLabels and matchExpressions) selects `labels`."""
    if not selector:
        return False
    for key, value in (selector.get("matchLabels") or {}).items():
        if labels.get(key) != value:
            return False
    for expr in selector.get("matchExpressions") or []:
        op, key, values = expr["operator"], expr["key"], expr.get("values") or []
        if op == "In" and labels.get(key) not in values:
            return False
        if op == "NotIn" and labels.get(key) in values:
            return False
        if op == "Exists" and key not in labels:
            return False
        if op == "DoesNotExist" and key in labels:
            return False
    return True


class Manifests:
    def __init__(self, path):
        self.docs = [d for d in yaml.load_all(open(path, encoding="utf-8"), Loader=LOADER) if d]

    def of(self, kind):
        return [d for d in self.docs if d.get("kind") == kind]

    def one(self, kind, name=None):
        found = [d for d in self.of(kind) if name is None or d["metadata"]["name"] == name]
        if len(found) != 1:
            fail(kind, f"expected exactly one{' named ' + name if name else ''}, "
                 f"found {len(found)}")
            return None
        return found[0]

    def config_map(self, name):
        return next((d for d in self.of("ConfigMap") if d["metadata"]["name"] == name), None)


class Container:
    """One cubd container: its subcommand, flags (args and CUBD_* variables) and mounts."""

    def __init__(self, manifests, workload, help_by_command):
        self.where = f"{workload['kind']} {workload['metadata']['name']}"
        self.pod = workload["spec"]["template"]["spec"]
        containers = self.pod.get("containers") or []
        if len(containers) != 1:
            fail(self.where, f"expected one container, found {len(containers)}")
        self.c = containers[0] if containers else {}
        args = list(self.c.get("command") or [])[1:] + list(self.c.get("args") or [])
        self.command = args[0] if args else ""
        self.help = help_by_command.get(self.command)
        if self.help is None:
            fail(self.where, f"runs `cubd {self.command}`, expected one of "
                 f"{sorted(help_by_command)} (the image's entrypoint is cubd)")
        self.values = {}  # --flag -> value ("" for a flag without one)
        self._read_args(args[1:])
        self._read_env(manifests)

    def _read_args(self, args):
        i = 0
        while i < len(args):
            arg = args[i]
            if not arg.startswith("--"):
                fail(self.where, f"argument {arg!r} is not a --flag")
                i += 1
                continue
            flag, eq, value = arg.partition("=")
            if not eq and i + 1 < len(args) and not args[i + 1].startswith("--"):
                value, i = args[i + 1], i + 1
            if self.help:
                self.help.check_flag(f"{self.where} args", flag)
            self.values[flag] = value
            i += 1

    def _read_env(self, manifests):
        env = {}
        for source in self.c.get("envFrom") or []:
            ref = source.get("configMapRef")
            if not ref:
                fail(self.where, "envFrom other than a ConfigMap")
                continue
            cm = manifests.config_map(ref["name"])
            if cm is None:
                fail(self.where, f"envFrom names ConfigMap {ref['name']}, which is not rendered")
                continue
            for name, value in (cm.get("data") or {}).items():
                env[name] = (value, f"ConfigMap {ref['name']}")
        for var in self.c.get("env") or []:
            env[var["name"]] = (var.get("value"), "env")
            if "value" in var and re.search(r"PASSWORD|TOKEN|SECRET", var["name"]) and \
                    not var["name"].endswith("_FILE"):
                fail(self.where, f"{var['name']} has a literal value: secrets come from a "
                     "Secret (secretKeyRef or a mounted file)")
        for name, (value, origin) in env.items():
            if not name.startswith("CUBD_"):
                continue
            if self.help:
                self.help.check_env(f"{self.where} {origin}", name)
            flag = "--" + name[len("CUBD_"):].lower().replace("_", "-")
            if flag in self.values:
                fail(self.where, f"{flag} is given both as an argument and as {name}")
            self.values[flag] = value if value is not None else ""

    def port(self, ref):
        """The container port number a probe or Service names (by name or number)."""
        for p in self.c.get("ports") or []:
            if ref in (p.get("name"), p.get("containerPort")):
                return p["containerPort"]
        return None

    def mount_of(self, path):
        """(volumeMount, volume, relative path) of the mount holding `path`, or None."""
        best = None
        for m in self.c.get("volumeMounts") or []:
            root = (m.get("mountPath") or "").rstrip("/")
            if not root:
                fail(self.where, f"volumeMount {m.get('name')} has no mountPath")
                continue
            if path == root or path.startswith(root + "/"):
                if best is None or len(root) > len(best["mountPath"].rstrip("/")):
                    best = m
        if best is None:
            return None
        volume = next((v for v in self.pod.get("volumes") or [] if v["name"] == best["name"]),
                      None)
        rel = path[len(best["mountPath"].rstrip("/")):].lstrip("/")
        return best, volume, rel


def listen_port(where, value):
    host, _, port = (value or "").rpartition(":")
    if not port.isdigit():
        fail(where, f"listen address {value!r} has no port")
        return None
    if host in ("127.0.0.1", "localhost", "[::1]", ""):
        fail(where, f"listen address {value!r} is not reachable from outside the pod")
    return int(port)


def check_security(ctr):
    pod_sc = ctr.pod.get("securityContext") or {}
    sc = ctr.c.get("securityContext") or {}
    where = ctr.where
    if not (sc.get("runAsNonRoot") or pod_sc.get("runAsNonRoot")):
        fail(where, "runAsNonRoot is not true")
    uid = sc.get("runAsUser", pod_sc.get("runAsUser"))
    if not isinstance(uid, int) or uid == 0:
        fail(where, f"runAsUser {uid!r} is not a numeric non-root user")
    if not pod_sc.get("fsGroup"):
        fail(where, "no fsGroup: its Secret files (mode 0440) would be root's alone")
    if sc.get("readOnlyRootFilesystem") is not True:
        fail(where, "readOnlyRootFilesystem is not true")
    if sc.get("allowPrivilegeEscalation") is not False:
        fail(where, "allowPrivilegeEscalation is not false")
    if sc.get("privileged"):
        fail(where, "privileged")
    if (sc.get("capabilities") or {}).get("drop") != ["ALL"]:
        fail(where, "capabilities do not drop ALL")
    if (sc.get("capabilities") or {}).get("add"):
        fail(where, "capabilities added")
    seccomp = (sc.get("seccompProfile") or pod_sc.get("seccompProfile") or {}).get("type")
    if seccomp != "RuntimeDefault":
        fail(where, f"seccompProfile {seccomp!r}, expected RuntimeDefault")
    if ctr.pod.get("automountServiceAccountToken") is not False:
        fail(where, "mounts a service account token it has no use for")
    resources = ctr.c.get("resources") or {}
    for kind in ("requests", "limits"):
        for res in ("cpu", "memory"):
            if res not in (resources.get(kind) or {}):
                fail(where, f"no resources.{kind}.{res}")


def check_files(ctr, secret_keys):
    """Every file or directory a flag names is mounted, from a Secret key that exists."""
    paths = {f: v for f, v in ctr.values.items()
             if f.endswith(("-file", "-cert", "-key", "-dir")) and v}
    url = ctr.values.get("--database-url")
    if url:
        query = urllib.parse.parse_qs(urllib.parse.urlsplit(url).query)
        for name in ("sslrootcert", "sslcert", "sslkey"):
            if name in query:
                paths[f"--database-url {name}"] = query[name][0]
    for flag, path in paths.items():
        where = f"{ctr.where} {flag} {path}"
        found = ctr.mount_of(path)
        if found is None:
            fail(where, "is on no volume (the root filesystem is read-only and holds none)")
            continue
        mount, volume, rel = found
        if volume is None:
            fail(where, f"volumeMount {mount['name']} has no volume")
            continue
        writable = flag in ("--data-dir", "--work-dir")
        if writable and ("emptyDir" not in volume or mount.get("readOnly")):
            fail(where, "must be a writable emptyDir")
        secret = volume.get("secret")
        if writable or not secret:
            continue
        if not mount.get("readOnly"):
            fail(where, "a Secret mounted writable")
        items = secret.get("items")
        if flag.endswith("-dir"):
            continue
        item = {}
        if items is not None:
            item = next((i for i in items if i["path"] == rel), None)
            if item is None:
                fail(where, f"Secret volume {volume['name']} projects no {rel}")
                continue
            key = item["key"]
        else:
            key = rel
        mode = item.get("mode") or secret.get("defaultMode", 0o644)
        if flag != "--database-url sslrootcert" and mode & 0o007:
            fail(where, f"mode {mode:04o} lets others read it: 0440 with the pod's fsGroup")
        known = secret_keys.get(secret["secretName"])
        if known is not None and key not in known:
            fail(where, f"Secret {secret['secretName']} has no key {key} (keys: {sorted(known)})")


def check_secret_volumes(ctr, secret_keys):
    """Every Secret a pod reads is one CloudNativePG makes or one with an example shape."""
    refs = []
    for v in ctr.pod.get("volumes") or []:
        if "secret" in v:
            s = v["secret"]
            refs += [(s["secretName"], i["key"], s.get("optional", False))
                     for i in s.get("items") or []]
            if s.get("items") is None:
                refs.append((s["secretName"], None, s.get("optional", False)))
    for var in ctr.c.get("env") or []:
        ref = (var.get("valueFrom") or {}).get("secretKeyRef")
        if ref:
            refs.append((ref["name"], ref["key"], ref.get("optional", False)))
    for name, key, _ in refs:
        if name not in secret_keys:
            fail(ctr.where, f"reads Secret {name}, which has no example in the secrets "
                 "directory and is not one CloudNativePG makes")
        elif key is not None and key not in secret_keys[name]:
            fail(ctr.where, f"reads key {key} of Secret {name}, which has keys "
                 f"{sorted(secret_keys[name])}")
    if any(n.endswith("-ca") for n, k, _ in refs if k != "ca.crt"):
        fail(ctr.where, "mounts a CA Secret whole (with its private key): project ca.crt only")


def check_probes(ctr):
    where = ctr.where
    grpc = listen_port(f"{where} --listen", ctr.values.get("--listen"))
    http = listen_port(f"{where} --http-listen", ctr.values.get("--http-listen"))
    tls = bool(ctr.values.get("--tls-cert"))
    if bool(ctr.values.get("--tls-key")) != tls:
        fail(where, "--tls-cert and --tls-key must be given together")
    wanted = {"startupProbe": "/healthz", "livenessProbe": "/healthz", "readinessProbe": "/readyz"}
    for probe, path in wanted.items():
        p = ctr.c.get(probe)
        if not p:
            fail(where, f"no {probe}")
            continue
        if "httpGet" in p:
            get = p["httpGet"]
            port = ctr.port(get.get("port"))
            if get.get("path") != path:
                fail(where, f"{probe} asks for {get.get('path')}, cubd answers it on {path}")
            if port is None or port != http:
                fail(where, f"{probe} port {get.get('port')} is not --http-listen's ({http})")
            if (get.get("scheme", "HTTP") == "HTTPS") != tls:
                fail(where, f"{probe} scheme {get.get('scheme', 'HTTP')}, but TLS is "
                     f"{'on' if tls else 'off'}")
        elif "grpc" in p:
            if ctr.port(p["grpc"].get("port")) != grpc or tls:
                fail(where, f"{probe}: gRPC probes need the plaintext --listen port ({grpc})")
        else:
            fail(where, f"{probe} is neither httpGet nor grpc")
    return grpc, http


def check_drain(ctr):
    where = ctr.where
    try:
        delay = float(ctr.values.get("--drain-delay", "0"))
    except ValueError:
        fail(where, f"--drain-delay {ctr.values.get('--drain-delay')!r} is not a number")
        return
    ready = ctr.c.get("readinessProbe") or {}
    unready_after = ready.get("periodSeconds", 10) * ready.get("failureThreshold", 3)
    if delay < unready_after:
        fail(where, f"--drain-delay {delay:g} s is shorter than the readiness probe needs to "
             f"take the pod out of the Service ({unready_after} s)")
    grace = ctr.pod.get("terminationGracePeriodSeconds", 30)
    if grace <= delay + DRAIN_SECONDS:
        fail(where, f"terminationGracePeriodSeconds {grace} leaves no time for --drain-delay "
             f"{delay:g} s and the {DRAIN_SECONDS} s drain")


def check_server(m, ctr, deployment, job_labels):
    where = ctr.where
    labels = deployment["spec"]["template"]["metadata"].get("labels") or {}
    if deployment["spec"].get("replicas") != 3:
        fail(where, f"replicas {deployment['spec'].get('replicas')}, expected 3")
    if not labels_match(deployment["spec"].get("selector"), labels):
        fail(where, "selector does not match the pod template's labels")
    grpc, http = check_probes(ctr)
    check_drain(ctr)
    if "--no-create-signing-key" not in ctr.values or not ctr.values.get("--signing-key"):
        fail(where, "--signing-key from a Secret goes with --no-create-signing-key")
    keys = {c.get("topologyKey") for c in ctr.pod.get("topologySpreadConstraints") or []}
    for key in ("topology.kubernetes.io/zone", "kubernetes.io/hostname"):
        if key not in keys:
            fail(where, f"no topologySpreadConstraint over {key}")
    for c in ctr.pod.get("topologySpreadConstraints") or []:
        if not labels_match(c.get("labelSelector"), labels):
            fail(where, f"topologySpreadConstraint over {c.get('topologyKey')} selects other pods")
    for kind in ("Service", "PodDisruptionBudget"):
        obj = m.one(kind)
        if obj is None:
            continue
        sel = obj["spec"].get("selector") or {}
        sel = sel if kind == "PodDisruptionBudget" else {"matchLabels": sel}
        if not labels_match(sel, labels):
            fail(kind, "selector does not match the cubd pods' labels")
        if labels_match(sel, job_labels):
            fail(kind, "selector also matches the migrations Job's pods")
    service = m.one("Service")
    if service:
        targets = {ctr.port(p.get("targetPort", p.get("port"))) for p in service["spec"]["ports"]}
        if targets != {grpc, http}:
            fail("Service", f"targets ports {sorted(map(str, targets))}, cubd listens on "
                 f"{grpc} (gRPC) and {http} (HTTP)")
    return labels, {grpc, http}


def db_user(where, url):
    parts = urllib.parse.urlsplit(url or "")
    if parts.scheme not in ("postgresql", "postgres"):
        fail(where, f"--database-url {url!r} is not a postgresql:// URL")
    if parts.password:
        fail(where, "--database-url holds a password: use a password file or PGPASSWORD")
    return parts.username, parts.hostname, parts.path.lstrip("/")


def check_database(m, server, migrate):
    cluster = m.one("Cluster")
    if cluster is None:
        return None
    if cluster.get("apiVersion") != "postgresql.cnpg.io/v1":
        fail("Cluster", f"apiVersion {cluster.get('apiVersion')}, expected postgresql.cnpg.io/v1")
    name = cluster["metadata"]["name"]
    initdb = cluster["spec"].get("bootstrap", {}).get("initdb", {})
    roles = {r["name"]: r for r in cluster["spec"].get("managed", {}).get("roles") or []}
    s_user, s_host, s_db = db_user(server.where, server.values.get("--database-url"))
    m_user, m_host, m_db = db_user(migrate.where, migrate.values.get("--database-url"))
    if m_user != initdb.get("owner"):
        fail(migrate.where, f"migrates as {m_user}, not as the owner {initdb.get('owner')}")
    role = roles.get(s_user) or {}
    if s_user == m_user or "cub_runtime" not in (role.get("inRoles") or []) or \
            not role.get("login"):
        fail(server.where, f"serves as {s_user}, which is not a login role in cub_runtime "
             "among the Cluster's managed roles")
    for where, host, db in ((server.where, s_host, s_db), (migrate.where, m_host, m_db)):
        if host != f"{name}-rw" or db != initdb.get("database"):
            fail(where, f"connects to {host}/{db}, not to the primary {name}-rw/"
                 f"{initdb.get('database')}")
    password_file = server.values.get("--database-password-file")
    found = server.mount_of(password_file) if password_file else None
    secret = ((found[1] or {}).get("secret") or {}).get("secretName") if found else None
    if secret != (role.get("passwordSecret") or {}).get("name"):
        fail(server.where, f"--database-password-file is not from the Secret the role {s_user}'s "
             "password is set from")
    env = {v["name"]: v for v in migrate.c.get("env") or []}
    ref = (env.get("PGPASSWORD", {}).get("valueFrom") or {}).get("secretKeyRef") or {}
    if not migrate.values.get("--database-password-file") and ref.get("name") != f"{name}-app":
        fail(migrate.where, f"the owner's password is not read from {name}-app")
    labels = dict(cluster["spec"].get("inheritedMetadata", {}).get("labels") or {})
    labels["cnpg.io/cluster"] = name
    return labels


def rule_ports(rule):
    return {(p.get("port"), p.get("protocol", "TCP")) for p in rule.get("ports") or []}


def check_policy(m, where, pod_labels, ingress_ports, db_labels, outside):
    policies = [p for p in m.of("NetworkPolicy")
                if labels_match(p["spec"].get("podSelector"), pod_labels)]
    if len(policies) != 1:
        fail(where, f"expected one NetworkPolicy selecting its pods, found {len(policies)}")
        return
    spec, name = policies[0]["spec"], f"NetworkPolicy {policies[0]['metadata']['name']}"
    if set(spec.get("policyTypes") or []) != {"Ingress", "Egress"}:
        fail(name, "policyTypes must be Ingress and Egress")
    opened = set()
    for rule in spec.get("ingress") or []:
        if not rule.get("ports"):
            fail(name, "an ingress rule without ports opens every port")
        opened |= {port for port, _ in rule_ports(rule)}
    if opened != ingress_ports:
        fail(name, f"ingress opens ports {sorted(opened)}, cubd listens on {sorted(ingress_ports)}")
    egress = spec.get("egress") or []
    for rule in egress:
        if not rule.get("ports"):
            fail(name, "an egress rule without ports")
    to_db = [r for r in egress if (5432, "TCP") in rule_ports(r) and any(
        "namespaceSelector" not in t and labels_match(t.get("podSelector"), db_labels)
        for t in r.get("to") or [])]
    if not to_db:
        fail(name, f"no egress to PostgreSQL (port 5432, pods labeled {db_labels})")
    if not any({(53, "UDP"), (53, "TCP")} <= rule_ports(r) for r in egress):
        fail(name, "no egress to DNS (53, UDP and TCP)")
    wants_outside = {(443, "TCP"), (22, "TCP")} if outside else set()
    got_outside = set()
    for r in egress:
        if any("ipBlock" in t for t in r.get("to") or []):
            got_outside |= rule_ports(r)
    if got_outside != wants_outside:
        fail(name, f"egress to addresses outside the cluster on {sorted(got_outside)}, expected "
             f"{sorted(wants_outside)} (Git over HTTPS and SSH, OCI registries)")


def check_cluster_schema(m, crd_path):
    cluster = m.one("Cluster")
    crd = yaml.load(open(crd_path, encoding="utf-8"), Loader=LOADER)
    version = next(v for v in crd["spec"]["versions"] if v.get("storage"))
    schema = version["schema"]["openAPIV3Schema"]
    # ObjectMeta is left open by the CRD: describe the part the manifests write.
    schema["properties"]["metadata"] = {
        "type": "object", "required": ["name", "namespace"],
        "properties": {k: {"type": "string"} for k in ("name", "namespace")} | {
            k: {"type": "object", "additionalProperties": {"type": "string"}}
            for k in ("labels", "annotations")}}
    if cluster is None:
        return
    if cluster.get("apiVersion") != f"{crd['spec']['group']}/{version['name']}":
        return  # reported by check_database
    for error in jsonschema.Draft7Validator(strict(schema)).iter_errors(cluster):
        where = "/".join(str(p) for p in error.absolute_path)
        fail("Cluster", f"{where}: {error.message} (CloudNativePG's CRD)")


def secret_shapes(directory, cluster_name):
    """Secret name -> its keys: the examples, and what CloudNativePG makes for the Cluster."""
    keys = {f"{cluster_name}-app": {"username", "password", "host", "port", "dbname", "uri",
                                    "jdbc-uri", "pgpass"},
            f"{cluster_name}-ca": {"ca.crt", "ca.key"}}
    for path in sorted(glob.glob(os.path.join(directory, "*.yaml"))):
        for doc in yaml.safe_load_all(open(path, encoding="utf-8")):
            if doc and doc.get("kind") == "Secret":
                keys[doc["metadata"]["name"]] = set(doc.get("stringData") or {}) | \
                    set(doc.get("data") or {})
    return keys


def main(argv):
    if len(argv) != 6:
        sys.exit(__doc__)
    m = Manifests(argv[1])
    helps = {"serve": Help(argv[3]), "migrate": Help(argv[4])}
    wanted = ["Namespace", "ServiceAccount", "ConfigMap", "Deployment", "Service",
              "PodDisruptionBudget", "NetworkPolicy", "Job", "Cluster"]
    kinds = {d.get("kind") for d in m.docs}
    for kind in wanted:
        if kind not in kinds:
            fail("manifests", f"no {kind}")
    for d in m.docs:
        if d.get("kind") == "Secret":
            fail("manifests", f"renders Secret {d['metadata']['name']}: secrets are made by "
                 "you or CloudNativePG, their shapes are examples")
        if d.get("kind") != "Namespace" and d["metadata"].get("namespace") != "cub":
            fail(f"{d.get('kind')} {d['metadata']['name']}", "not in namespace cub")
    check_cluster_schema(m, argv[5])
    deployment, job = m.one("Deployment", "cubd"), m.one("Job")
    if deployment is None or job is None:
        return report()
    server, migrate = Container(m, deployment, helps), Container(m, job, helps)
    if server.command != "serve" or migrate.command != "migrate":
        fail("manifests", "the Deployment must run cubd serve and the Job cubd migrate")
    if server.c.get("image") != migrate.c.get("image") or server.c.get("image") == "cubd":
        fail("manifests", "the Deployment and the Job must run the same image, named by the "
             "kustomization's images")
    job_labels = job["spec"]["template"]["metadata"].get("labels") or {}
    cluster_name = (m.one("Cluster") or {"metadata": {"name": ""}})["metadata"]["name"]
    shapes = secret_shapes(argv[2], cluster_name)
    for ctr in (server, migrate):
        check_security(ctr)
        check_files(ctr, shapes)
        check_secret_volumes(ctr, shapes)
    labels, ports = check_server(m, server, deployment, job_labels)
    db_labels = check_database(m, server, migrate)
    if db_labels is not None:
        check_policy(m, server.where, labels, ports, db_labels, outside=True)
        check_policy(m, migrate.where, job_labels, set(), db_labels, outside=False)
    return report()


def report():
    for failure in FAILURES:
        print(f"FAIL: {failure}")
    if FAILURES:
        print(f"kube_manifest_check: {len(FAILURES)} failure(s)")
        return 1
    print("kube_manifest_check: ok")
    return 0


if __name__ == "__main__":
    sys.exit(main(sys.argv))
