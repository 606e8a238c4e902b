#include "lib/ops/page_token.h"

#include <google/protobuf/descriptor.h>
#include <google/protobuf/io/coded_stream.h>
#include <google/protobuf/io/zero_copy_stream_impl_lite.h>

#include <algorithm>
#include <memory>

#include "absl/strings/escaping.h"
#include "absl/strings/str_cat.h"
#include "lib/util/sha256.h"
#include "lib/util/status_macros.h"

namespace cub::ops {
namespace {

constexpr char kVersion = 1;
constexpr size_t kHashBytes = 16;  // hex digits of the hash
// A sort key part is a slug, a number or an ID; anything longer is not a token we issued.
constexpr size_t kMaxPartBytes = 1024;

// SHA-256 (first 16 hex digits) of the request's type and of its fields other than the paging ones,
// serialized deterministically so that map fields hash the same in every order.
std::string FilterHash(const google::protobuf::Message& req) {
  std::unique_ptr<google::protobuf::Message> copy(req.New());
  copy->CopyFrom(req);
  const google::protobuf::Descriptor* d = copy->GetDescriptor();
  for (const char* name : {"limit", "page_token"}) {
    if (const auto* f = d->FindFieldByName(name)) copy->GetReflection()->ClearField(copy.get(), f);
  }
  std::string bytes;
  {
    google::protobuf::io::StringOutputStream out(&bytes);
    google::protobuf::io::CodedOutputStream coded(&out);
    coded.SetSerializationDeterministic(true);
    copy->SerializeToCodedStream(&coded);
  }
  return Sha256Hex(absl::StrCat(d->full_name(), "\n", bytes)).substr(0, kHashBytes);
}

absl::Status Malformed(absl::string_view why) {
  return absl::InvalidArgumentError(
      absl::StrCat("PageToken: not a page token this list issued (", why,
                   "); pass the NextPageToken of the previous page unchanged"));
}

// Reads the length-prefixed key parts after the header; exactly `want` of them.
absl::StatusOr<std::vector<std::string>> ReadParts(std::string_view rest, size_t want) {
  std::vector<std::string> parts;
  while (!rest.empty()) {
    if (rest.size() < 2) return Malformed("truncated");
    const size_t n =
        (static_cast<unsigned char>(rest[0]) << 8) | static_cast<unsigned char>(rest[1]);
    rest.remove_prefix(2);
    if (n > kMaxPartBytes || n > rest.size()) return Malformed("truncated");
    parts.emplace_back(rest.substr(0, n));
    rest.remove_prefix(n);
  }
  if (parts.size() != want) return Malformed("wrong key");
  return parts;
}

}  // namespace

absl::StatusOr<PageStart> ReadPageStart(const google::protobuf::Message& req, int32_t limit,
                                        const std::string& token, size_t key_parts,
                                        int32_t default_limit) {
  if (limit < 0) {
    return absl::InvalidArgumentError(absl::StrCat("Limit: must be 0 (the default, ", default_limit,
                                                   ") or positive, not ", limit));
  }
  PageStart page;
  page.limit = limit == 0 ? default_limit : std::min(limit, kMaxPageSize);
  page.filter_hash = FilterHash(req);
  if (token.empty()) return page;
  std::string raw;
  if (token.size() > 4 * kMaxPartBytes || !absl::WebSafeBase64Unescape(token, &raw)) {
    return Malformed("not base64url");
  }
  if (raw.size() < 1 + kHashBytes || raw[0] != kVersion) return Malformed("unknown version");
  if (raw.compare(1, kHashBytes, page.filter_hash) != 0) {
    return absl::InvalidArgumentError(
        "PageToken: issued for a request with other filters (Space, Where, Filter or another "
        "list); repeat the request that returned it, changing only Limit and PageToken");
  }
  CUB_ASSIGN_OR_RETURN(page.after,
                       ReadParts(std::string_view(raw).substr(1 + kHashBytes), key_parts));
  return page;
}

std::string NextPageToken(const PageStart& page, const std::vector<std::string>& last_key) {
  std::string raw(1, kVersion);
  raw += page.filter_hash;
  for (const std::string& part : last_key) {
    const size_t n = std::min(part.size(), kMaxPartBytes);
    raw.push_back(static_cast<char>((n >> 8) & 0xff));
    raw.push_back(static_cast<char>(n & 0xff));
    raw.append(part, 0, n);
  }
  std::string out;
  absl::WebSafeBase64Escape(raw, &out);
  return out;
}

}  // namespace cub::ops
