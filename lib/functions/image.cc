#include "lib/functions/image.h"

namespace cub::functions {
namespace {

bool IsAlnum(char c) {
  return (c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z') || (c >= '0' && c <= '9');
}
bool IsHex(char c) { return (c >= '0' && c <= '9') || (c >= 'a' && c <= 'f'); }

bool IsTag(std::string_view tag) {
  if (tag.empty() || tag.size() > 128 || !(IsAlnum(tag[0]) || tag[0] == '_')) return false;
  for (char c : tag) {
    if (!IsAlnum(c) && c != '_' && c != '.' && c != '-') return false;
  }
  return true;
}

bool IsDigest(std::string_view digest) {
  const size_t colon = digest.find(':');
  if (colon == std::string_view::npos || colon == 0) return false;
  const std::string_view algorithm = digest.substr(0, colon);
  const std::string_view hex = digest.substr(colon + 1);
  for (char c : algorithm) {
    if (!IsAlnum(c) && c != '+' && c != '.' && c != '_' && c != '-') return false;
  }
  for (char c : hex) {
    if (!IsHex(c)) return false;
  }
  return algorithm == "sha256" ? hex.size() == 64 : hex.size() >= 32;
}

}  // namespace

ImageParts SplitImage(std::string_view image) {
  size_t end = image.find('@');
  const std::string_view name = image.substr(0, end);
  const size_t colon = name.rfind(':');
  const size_t slash = name.rfind('/');
  if (colon != std::string_view::npos && (slash == std::string_view::npos || colon > slash)) {
    end = colon;
  }
  if (end == std::string_view::npos) return {image, {}};
  return {image.substr(0, end), image.substr(end)};
}

std::string NormalizeRepository(std::string_view repository) {
  std::string_view domain;
  std::string_view rest = repository;
  const size_t slash = repository.find('/');
  if (slash != std::string_view::npos) {
    const std::string_view first = repository.substr(0, slash);
    if (first.find_first_of(".:") != std::string_view::npos || first == "localhost") {
      domain = first;
      rest = repository.substr(slash + 1);
    }
  }
  if (domain.empty() || domain == "index.docker.io") domain = "docker.io";
  std::string out(domain);
  out += '/';
  if (domain == "docker.io" && rest.find('/') == std::string_view::npos) out += "library/";
  out += rest;
  return out;
}

bool SameRepository(std::string_view a, std::string_view b) {
  return a == b || NormalizeRepository(a) == NormalizeRepository(b);
}

bool IsImageReference(std::string_view ref) {
  if (ref.empty()) return false;
  const size_t at = ref.find('@');
  const std::string_view tag_part = ref.substr(0, at);
  if (!tag_part.empty() && (tag_part[0] != ':' || !IsTag(tag_part.substr(1)))) return false;
  return at == std::string_view::npos || IsDigest(ref.substr(at + 1));
}

}  // namespace cub::functions
