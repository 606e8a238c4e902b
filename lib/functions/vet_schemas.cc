// vet-schemas: the fields Kubernetes requires, and their types, for the common built-in
// kinds; metadata of every resource. It catches what the API server would refuse on apply,
// before a change is promoted, and is deliberately not a full OpenAPI validation: unknown
// fields and kinds pass.
//
// Checked:
//   every resource  metadata (mapping) with name (string) unless generateName is set;
//                   namespace (DNS label); labels and annotations (string maps with valid
//                   keys; label values valid)
//   names           Namespace: DNS label; Service: RFC 1035 label; workloads, ConfigMap,
//                   Secret: DNS subdomain
//   Deployment, ReplicaSet, StatefulSet, DaemonSet
//                   spec; spec.replicas (integer >= 0; not DaemonSet); spec.selector (mapping;
//                   matchLabels a label map that the pod template's labels must include);
//                   spec.template; StatefulSet spec.serviceName (string)
//   Job             spec.template; restartPolicy OnFailure or Never (required)
//   CronJob         spec.schedule (string), spec.jobTemplate.spec.template; as Job
//   Pod             spec
//   pod specs       containers (non-empty); each container and init container: name (DNS
//                   label, unique in the pod), image (non-empty string), imagePullPolicy,
//                   ports[].containerPort and hostPort (1-65535), ports[].protocol,
//                   env[].name (string), env[].value (string), command and args (strings),
//                   resources.requests and .limits (quantities); restartPolicy
//   Service         spec.type; spec.ports (required unless ExternalName or headless):
//                   port (required, 1-65535), targetPort (1-65535 or a name), nodePort,
//                   protocol, name (required when there are several ports); spec.selector
//   ConfigMap       data and binaryData: string values under keys of [-._a-zA-Z0-9]
//   Secret          data (base64 strings), stringData (strings)
// Kinds are checked only under the built-in API groups (kubernetes.h IsBuiltinApi).

#include <limits>
#include <set>
#include <string>

#include "lib/functions/builtin.h"
#include "lib/functions/display_path.h"
#include "lib/functions/field_checks.h"
#include "lib/functions/kubernetes.h"
#include "lib/functions/names.h"

namespace cub::functions::internal {
namespace {

using config::Node;
using Keys = FieldChecks::Keys;

constexpr int64_t kNoMax = std::numeric_limits<int64_t>::max();

bool IsConfigKey(std::string_view key) {
  if (key.empty() || key.size() > 253) return false;
  for (char c : key) {
    const bool ok = (c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z') || (c >= '0' && c <= '9') ||
                    c == '-' || c == '_' || c == '.';
    if (!ok) return false;
  }
  return true;
}

bool IsBase64(std::string_view s) {
  std::string compact;
  for (char c : s) {
    if (c != '\n' && c != '\r' && c != ' ') compact.push_back(c);
  }
  if (compact.size() % 4 != 0) return false;
  const size_t pad = compact.find('=');
  if (pad != std::string::npos &&
      (compact.size() - pad > 2 || compact.find_first_not_of('=', pad) != std::string::npos)) {
    return false;
  }
  for (size_t i = 0; i < (pad == std::string::npos ? compact.size() : pad); ++i) {
    const char c = compact[i];
    const bool ok = (c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z') || (c >= '0' && c <= '9') ||
                    c == '+' || c == '/';
    if (!ok) return false;
  }
  return true;
}

std::string ItemPath(std::string_view list_path, const Node& item, size_t index) {
  std::string path(list_path);
  AppendItem(&path, item, index);
  return path;
}

class SchemaVetter {
 public:
  SchemaVetter(const Node& doc, size_t index, std::vector<std::string>* errors)
      : doc_(doc), kind_(KindOf(doc)), check_(ResourceLabel(doc, index), errors) {}

  void Run() {
    if (kind_.empty()) {
      check_.Error("", "not a Kubernetes resource (no kind)");
      return;
    }
    Metadata();
    if (!IsBuiltinApi(doc_)) return;
    if (kind_ == "Deployment" || kind_ == "ReplicaSet" || kind_ == "StatefulSet" ||
        kind_ == "DaemonSet") {
      Controller();
    } else if (kind_ == "Job") {
      if (const Node* spec = MappingField(doc_, "", "spec", true)) Job(*spec, "spec");
    } else if (kind_ == "CronJob") {
      CronJob();
    } else if (kind_ == "Pod") {
      if (const Node* spec = MappingField(doc_, "", "spec", true)) PodSpec(*spec, "spec", false);
    } else if (kind_ == "Service") {
      Service();
    } else if (kind_ == "ConfigMap") {
      ConfigData("data", false);
      ConfigData("binaryData", true);
    } else if (kind_ == "Secret") {
      ConfigData("data", true);
      ConfigData("stringData", false);
    }
  }

 private:
  // parent[key] if present and a mapping (reported otherwise).
  const Node* MappingField(const Node& parent, std::string_view parent_path, std::string_view key,
                           bool required) {
    const Node* n = check_.Field(parent, parent_path, key, required);
    if (n == nullptr || !check_.Mapping(*n, JoinKey(parent_path, key))) return nullptr;
    return n;
  }

  const Node* SequenceField(const Node& parent, std::string_view parent_path, std::string_view key,
                            bool required) {
    const Node* n = check_.Field(parent, parent_path, key, required);
    if (n == nullptr || !check_.Sequence(*n, JoinKey(parent_path, key))) return nullptr;
    return n;
  }

  void Metadata() {
    const Node* metadata = MappingField(doc_, "", "metadata", true);
    if (metadata == nullptr) return;
    const bool generated = metadata->Find("generateName") != nullptr;
    if (const Node* name = check_.Field(*metadata, "metadata", "name", !generated)) {
      if (check_.NonEmptyString(*name, "metadata.name")) Name(name->AsString());
    }
    if (const Node* ns = check_.Field(*metadata, "metadata", "namespace", false)) {
      if (check_.String(*ns, "metadata.namespace") && !IsDnsLabel(ns->AsString())) {
        check_.Error("metadata.namespace", "\"" + ns->AsString() + "\" is not a DNS label");
      }
    }
    if (const Node* labels = metadata->Find("labels")) {
      check_.StringMap(*labels, "metadata.labels", Keys::kLabels);
    }
    if (const Node* annotations = metadata->Find("annotations")) {
      check_.StringMap(*annotations, "metadata.annotations", Keys::kAnnotations);
    }
  }

  void Name(const std::string& name) {
    if (!IsBuiltinApi(doc_)) return;
    if (kind_ == "Namespace") {
      if (!IsDnsLabel(name)) {
        check_.Error("metadata.name", "\"" + name +
                                          "\" is not a DNS label (up to 63 of a-z 0-9 -, "
                                          "alphanumeric at both ends)");
      }
    } else if (kind_ == "Service") {
      if (!IsDns1035Label(name)) {
        check_.Error("metadata.name", "\"" + name +
                                          "\" is not a DNS-1035 label (up to 63 of a-z 0-9 -, "
                                          "starting with a letter)");
      }
    } else if (!IsDnsSubdomain(name)) {
      check_.Error("metadata.name", "\"" + name +
                                        "\" is not a DNS subdomain (up to 253 of a-z 0-9 - ., "
                                        "alphanumeric at both ends)");
    }
  }

  void Controller() {
    const Node* spec = MappingField(doc_, "", "spec", true);
    if (spec == nullptr) return;
    if (kind_ != "DaemonSet") {
      if (const Node* replicas = spec->Find("replicas")) {
        check_.Int(*replicas, "spec.replicas", 0, kNoMax);
      }
    }
    if (kind_ == "StatefulSet") {
      if (const Node* service = spec->Find("serviceName")) {
        check_.String(*service, "spec.serviceName");
      }
    }
    const Node* match_labels = nullptr;
    if (const Node* selector = MappingField(*spec, "spec", "selector", true)) {
      if (const Node* m = selector->Find("matchLabels")) {
        if (check_.StringMap(*m, "spec.selector.matchLabels", Keys::kLabels)) match_labels = m;
      }
      if (const Node* e = selector->Find("matchExpressions")) {
        check_.Sequence(*e, "spec.selector.matchExpressions");
      }
    }
    const Node* tmpl = MappingField(*spec, "spec", "template", true);
    if (tmpl == nullptr) return;
    const Node* labels = nullptr;
    if (const Node* metadata = MappingField(*tmpl, "spec.template", "metadata", false)) {
      if (const Node* l = metadata->Find("labels")) {
        if (check_.StringMap(*l, "spec.template.metadata.labels", Keys::kLabels)) labels = l;
      }
    }
    if (match_labels != nullptr) {
      for (const auto& [key, value] : match_labels->AsMapping()) {
        const Node* got = labels == nullptr ? nullptr : labels->Find(key);
        if (got == nullptr || *got != value) {
          check_.Error(
              "spec.template.metadata.labels",
              "does not match spec.selector.matchLabels: needs " + key + "=" + value.AsString());
        }
      }
    }
    if (const Node* pod = MappingField(*tmpl, "spec.template", "spec", true)) {
      PodSpec(*pod, "spec.template.spec", false);
    }
  }

  void Job(const Node& spec, const std::string& path) {
    const Node* tmpl = MappingField(spec, path, "template", true);
    if (tmpl == nullptr) return;
    const std::string tmpl_path = JoinKey(path, "template");
    if (const Node* pod = MappingField(*tmpl, tmpl_path, "spec", true)) {
      PodSpec(*pod, JoinKey(tmpl_path, "spec"), true);
    }
  }

  void CronJob() {
    const Node* spec = MappingField(doc_, "", "spec", true);
    if (spec == nullptr) return;
    if (const Node* schedule = check_.Field(*spec, "spec", "schedule", true)) {
      check_.NonEmptyString(*schedule, "spec.schedule");
    }
    const Node* job = MappingField(*spec, "spec", "jobTemplate", true);
    const Node* job_spec =
        job == nullptr ? nullptr : MappingField(*job, "spec.jobTemplate", "spec", true);
    if (job_spec != nullptr) Job(*job_spec, "spec.jobTemplate.spec");
  }

  void PodSpec(const Node& spec, const std::string& path, bool job) {
    std::set<std::string> names;
    const Node* containers = SequenceField(spec, path, "containers", true);
    if (containers != nullptr && containers->size() == 0) {
      check_.Error(JoinKey(path, "containers"), "expected at least one container");
    }
    for (const char* list : {"containers", "initContainers"}) {
      const Node* items = list == std::string_view("containers")
                              ? containers
                              : SequenceField(spec, path, list, false);
      if (items == nullptr) continue;
      const std::string list_path = JoinKey(path, list);
      for (size_t i = 0; i < items->size(); ++i) {
        Container(items->AsSequence()[i], list_path, i, &names);
      }
    }
    const Node* restart = check_.Field(spec, path, "restartPolicy", job);
    if (restart != nullptr) {
      if (job) {
        check_.Enum(*restart, JoinKey(path, "restartPolicy"), {"OnFailure", "Never"});
      } else {
        check_.Enum(*restart, JoinKey(path, "restartPolicy"), {"Always", "OnFailure", "Never"});
      }
    }
  }

  void Container(const Node& c, const std::string& list_path, size_t index,
                 std::set<std::string>* names) {
    const std::string path = ItemPath(list_path, c, index);
    if (!check_.Mapping(c, path)) return;
    if (const Node* name = check_.Field(c, path, "name", true)) {
      const std::string name_path = JoinKey(path, "name");
      if (check_.NonEmptyString(*name, name_path)) {
        if (!IsDnsLabel(name->AsString())) {
          check_.Error(name_path, "\"" + name->AsString() + "\" is not a DNS label");
        }
        if (!names->insert(name->AsString()).second) {
          check_.Error(list_path + "[" + std::to_string(index) + "].name",
                       "duplicate container name \"" + name->AsString() + "\"");
        }
      }
    }
    if (const Node* image = check_.Field(c, path, "image", true)) {
      check_.NonEmptyString(*image, JoinKey(path, "image"));
    }
    if (const Node* policy = c.Find("imagePullPolicy")) {
      check_.Enum(*policy, JoinKey(path, "imagePullPolicy"), {"Always", "IfNotPresent", "Never"});
    }
    for (const char* list : {"command", "args"}) {
      if (const Node* l = c.Find(list)) check_.StringList(*l, JoinKey(path, list));
    }
    if (const Node* ports = SequenceField(c, path, "ports", false)) {
      const std::string ports_path = JoinKey(path, "ports");
      for (size_t i = 0; i < ports->size(); ++i) {
        const Node& port = ports->AsSequence()[i];
        const std::string port_path = ItemPath(ports_path, port, i);
        if (!check_.Mapping(port, port_path)) continue;
        if (const Node* p = check_.Field(port, port_path, "containerPort", true)) {
          check_.Int(*p, JoinKey(port_path, "containerPort"), 1, 65535);
        }
        if (const Node* p = port.Find("hostPort")) {
          check_.Int(*p, JoinKey(port_path, "hostPort"), 1, 65535);
        }
        if (const Node* p = port.Find("protocol")) {
          check_.Enum(*p, JoinKey(port_path, "protocol"), {"TCP", "UDP", "SCTP"});
        }
      }
    }
    if (const Node* env = SequenceField(c, path, "env", false)) {
      const std::string env_path = JoinKey(path, "env");
      for (size_t i = 0; i < env->size(); ++i) {
        const Node& var = env->AsSequence()[i];
        const std::string var_path = ItemPath(env_path, var, i);
        if (!check_.Mapping(var, var_path)) continue;
        if (const Node* name = check_.Field(var, var_path, "name", true)) {
          check_.NonEmptyString(*name, JoinKey(var_path, "name"));
        }
        if (const Node* value = var.Find("value")) {
          check_.String(*value, JoinKey(var_path, "value"));
        }
        if (const Node* from = var.Find("valueFrom")) {
          check_.Mapping(*from, JoinKey(var_path, "valueFrom"));
        }
      }
    }
    if (const Node* resources = MappingField(c, path, "resources", false)) {
      const std::string resources_path = JoinKey(path, "resources");
      for (const char* section : {"requests", "limits"}) {
        const Node* s = MappingField(*resources, resources_path, section, false);
        if (s == nullptr) continue;
        const std::string section_path = JoinKey(resources_path, section);
        for (const auto& [name, value] : s->AsMapping()) {
          check_.Quantity(value, JoinKey(section_path, name));
        }
      }
    }
  }

  void Service() {
    const Node* spec = MappingField(doc_, "", "spec", true);
    if (spec == nullptr) return;
    const Node* type = spec->Find("type");
    if (type != nullptr) {
      check_.Enum(*type, "spec.type", {"ClusterIP", "NodePort", "LoadBalancer", "ExternalName"});
    }
    const Node* cluster_ip = spec->Find("clusterIP");
    const bool ports_optional =
        (type != nullptr && type->IsString() && type->AsString() == "ExternalName") ||
        (cluster_ip != nullptr && cluster_ip->IsString() && cluster_ip->AsString() == "None");
    if (const Node* ports = SequenceField(*spec, "spec", "ports", !ports_optional)) {
      for (size_t i = 0; i < ports->size(); ++i) {
        const Node& port = ports->AsSequence()[i];
        const std::string path = ItemPath("spec.ports", port, i);
        if (!check_.Mapping(port, path)) continue;
        if (const Node* p = check_.Field(port, path, "port", true)) {
          check_.Int(*p, JoinKey(path, "port"), 1, 65535);
        }
        if (const Node* t = port.Find("targetPort")) {
          if (!t->IsString())
            check_.Int(*t, JoinKey(path, "targetPort"), 1, 65535);
          else
            check_.NonEmptyString(*t, JoinKey(path, "targetPort"));
        }
        if (const Node* p = port.Find("nodePort")) {
          check_.Int(*p, JoinKey(path, "nodePort"), 1, 65535);
        }
        if (const Node* p = port.Find("protocol")) {
          check_.Enum(*p, JoinKey(path, "protocol"), {"TCP", "UDP", "SCTP"});
        }
        const Node* name = check_.Field(port, path, "name", false);
        if (name != nullptr) {
          check_.String(*name, JoinKey(path, "name"));
        } else if (ports->size() > 1) {
          check_.Error(JoinKey(path, "name"), "required when a Service has more than one port");
        }
      }
    }
    if (const Node* selector = spec->Find("selector")) {
      check_.StringMap(*selector, "spec.selector", Keys::kLabels);
    }
  }

  void ConfigData(const char* field, bool base64) {
    const Node* data = MappingField(doc_, "", field, false);
    if (data == nullptr) return;
    for (const auto& [key, value] : data->AsMapping()) {
      const std::string path = JoinKey(field, key);
      if (!IsConfigKey(key)) {
        check_.Error(path, "invalid key (expected up to 253 of A-Z a-z 0-9 - _ .)");
      }
      if (check_.String(value, path) && base64 && !IsBase64(value.AsString())) {
        check_.Error(path, "expected base64 data");
      }
    }
  }

  const Node& doc_;
  const std::string_view kind_;
  FieldChecks check_;
};

absl::Status VetSchemas(const Arguments&, const std::vector<Node>& docs, VetResult* result) {
  for (size_t i = 0; i < docs.size(); ++i) SchemaVetter(docs[i], i, &result->errors).Run();
  return absl::OkStatus();
}

}  // namespace

void AddVetSchemas(std::vector<Function>* out) {
  Function f = Define(
      "vet-schemas", FunctionKind::kVet,
      "Checks that the fields Kubernetes requires are present, with the right types, for the "
      "common kinds (Deployment, StatefulSet, DaemonSet, ReplicaSet, Job, CronJob, Pod, "
      "Service, ConfigMap, Secret, Namespace) and the metadata of every resource: names, "
      "labels, annotations, containers, ports, env, resource quantities, selectors matching "
      "pod template labels. Unknown kinds and fields pass.",
      {});
  f.vet = VetSchemas;
  out->push_back(std::move(f));
}

}  // namespace cub::functions::internal
