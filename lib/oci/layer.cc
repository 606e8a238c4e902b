// BuildLayer and ReadLayer (lib/oci/artifact.h): the deterministic tar+gzip of a Release's files.
#include <zlib.h>

#include <algorithm>
#include <cstring>
#include <set>
#include <utility>

#include "absl/strings/numbers.h"
#include "absl/strings/str_cat.h"
#include "lib/oci/artifact.h"
#include "lib/util/json.h"

namespace cub::oci {
namespace {

constexpr size_t kBlock = 512;
constexpr size_t kUstarName = 100;

bool IsPlainName(std::string_view n) {
  return !n.empty() && n[0] != '.' && n.find('/') == std::string_view::npos &&
         n.find('\0') == std::string_view::npos;
}

// `value` in octal, zero-padded to `width` - 1 digits and a NUL.
void Octal(char* field, size_t width, uint64_t value) {
  for (size_t i = width - 1; i-- > 0;) {
    field[i] = static_cast<char>('0' + (value & 7));
    value >>= 3;
  }
  field[width - 1] = '\0';
}

// One ustar header block; `type` '0' (a file) or 'x' (PAX records for the next entry).
std::string Header(std::string_view name, uint64_t size, char type) {
  std::string h(kBlock, '\0');
  std::memcpy(&h[0], name.data(), std::min(name.size(), kUstarName));
  Octal(&h[100], 8, 0644);
  Octal(&h[108], 8, 0);  // uid
  Octal(&h[116], 8, 0);  // gid
  Octal(&h[124], 12, size);
  Octal(&h[136], 12, 0);  // mtime
  h[156] = type;
  std::memcpy(&h[257],
              "ustar\0"
              "00",
              8);
  std::memset(&h[148], ' ', 8);
  unsigned sum = 0;
  for (unsigned char c : h) sum += c;
  Octal(&h[148], 7, sum);  // six digits, NUL, then the space already there
  return h;
}

void Pad(std::string* out) { out->append((kBlock - out->size() % kBlock) % kBlock, '\0'); }

// A PAX record "LEN path=NAME\n", LEN counting itself.
std::string PaxPath(std::string_view name) {
  std::string body = absl::StrCat(" path=", std::string(name), "\n");
  size_t len = body.size() + 1;
  while (std::to_string(len).size() + body.size() != len) ++len;
  return absl::StrCat(len, body);
}

absl::StatusOr<std::string> Gzip(std::string_view data) {
  z_stream z{};
  // windowBits 15 + 16: a gzip wrapper; zlib writes mtime 0 and no name when given no header.
  if (deflateInit2(&z, 9, Z_DEFLATED, 15 + 16, 9, Z_DEFAULT_STRATEGY) != Z_OK) {
    return absl::InternalError("zlib: deflateInit2 failed");
  }
  std::string out(deflateBound(&z, data.size()), '\0');
  z.next_in = reinterpret_cast<Bytef*>(const_cast<char*>(data.data()));
  z.avail_in = static_cast<uInt>(data.size());
  z.next_out = reinterpret_cast<Bytef*>(out.data());
  z.avail_out = static_cast<uInt>(out.size());
  int rc = deflate(&z, Z_FINISH);
  out.resize(z.total_out);
  deflateEnd(&z);
  if (rc != Z_STREAM_END) return absl::InternalError("zlib: deflate did not finish");
  return out;
}

absl::StatusOr<std::string> Gunzip(std::string_view data, size_t max_bytes) {
  z_stream z{};
  if (inflateInit2(&z, 15 + 16) != Z_OK) return absl::InternalError("zlib: inflateInit2 failed");
  z.next_in = reinterpret_cast<Bytef*>(const_cast<char*>(data.data()));
  z.avail_in = static_cast<uInt>(data.size());
  std::string out;
  char buf[64 << 10];
  int rc = Z_OK;
  while (rc != Z_STREAM_END) {
    z.next_out = reinterpret_cast<Bytef*>(buf);
    z.avail_out = sizeof buf;
    rc = inflate(&z, Z_NO_FLUSH);
    if (rc != Z_OK && rc != Z_STREAM_END) {
      inflateEnd(&z);
      return absl::InvalidArgumentError(absl::StrCat(
          "layer: not a complete gzip stream (zlib: ", z.msg ? z.msg : "truncated", ")"));
    }
    out.append(buf, sizeof buf - z.avail_out);
    if (out.size() > max_bytes) {
      inflateEnd(&z);
      return absl::ResourceExhaustedError(
          absl::StrCat("layer: over ", max_bytes, " bytes uncompressed"));
    }
  }
  size_t rest = z.avail_in;
  inflateEnd(&z);
  if (rest != 0) {
    return absl::InvalidArgumentError("layer: bytes follow the gzip stream");
  }
  return out;
}

absl::Status CheckNames(std::vector<LayerFile>& files) {
  std::sort(files.begin(), files.end(),
            [](const LayerFile& a, const LayerFile& b) { return a.name < b.name; });
  for (size_t i = 0; i < files.size(); ++i) {
    if (!IsPlainName(files[i].name)) {
      return absl::InvalidArgumentError(
          absl::StrCat("layer: file name ", JsonQuote(files[i].name),
                       " is not a plain name (no '/' or NUL, not starting with '.')"));
    }
    if (i > 0 && files[i].name == files[i - 1].name) {
      return absl::InvalidArgumentError(
          absl::StrCat("layer: file name ", JsonQuote(files[i].name), " appears twice"));
    }
  }
  return absl::OkStatus();
}

uint64_t ReadOctal(const char* field, size_t width, bool* ok) {
  uint64_t v = 0;
  size_t i = 0;
  while (i < width && field[i] == ' ') ++i;
  bool any = false;
  for (; i < width && field[i] >= '0' && field[i] <= '7'; ++i) {
    v = v * 8 + static_cast<uint64_t>(field[i] - '0');
    any = true;
  }
  for (; i < width; ++i) {
    if (field[i] != '\0' && field[i] != ' ') *ok = false;
  }
  if (!any) *ok = false;
  return v;
}

// The "path" of PAX records; other keys are refused (cub writes none).
absl::StatusOr<std::string> PaxPathOf(std::string_view records) {
  std::string path;
  while (!records.empty()) {
    size_t space = records.find(' ');
    size_t len = 0;
    if (space == std::string_view::npos ||
        !absl::SimpleAtoi(std::string(records.substr(0, space)), &len) || len <= space ||
        len > records.size() || records[len - 1] != '\n') {
      return absl::InvalidArgumentError("layer: a malformed PAX record");
    }
    std::string_view kv = records.substr(space + 1, len - space - 2);
    if (kv.substr(0, 5) != "path=") {
      return absl::InvalidArgumentError(absl::StrCat(
          "layer: the PAX record ", JsonQuote(kv.substr(0, kv.find('='))), " is not accepted"));
    }
    path = std::string(kv.substr(5));
    records.remove_prefix(len);
  }
  return path;
}

}  // namespace

absl::StatusOr<std::string> BuildLayer(std::vector<LayerFile> files) {
  absl::Status names = CheckNames(files);
  if (!names.ok()) return names;
  std::string tar;
  for (const LayerFile& f : files) {
    if (f.name.size() > kUstarName) {
      std::string pax = PaxPath(f.name);
      tar += Header("PaxHeaders/" + f.name.substr(0, 80), pax.size(), 'x');
      tar += pax;
      Pad(&tar);
    }
    tar += Header(f.name, f.content.size(), '0');
    tar += f.content;
    Pad(&tar);
  }
  tar.append(2 * kBlock, '\0');
  return Gzip(tar);
}

absl::StatusOr<std::vector<LayerFile>> ReadLayer(std::string_view tar_gzip,
                                                 const LayerLimits& limits) {
  // Headers and padding take at most two blocks per entry beyond the contents (three with PAX).
  const size_t bound = limits.max_total_bytes + (limits.max_entries * 3 + 2) * kBlock;
  absl::StatusOr<std::string> tar = Gunzip(tar_gzip, bound);
  if (!tar.ok()) return tar.status();
  std::vector<LayerFile> files;
  std::set<std::string> seen;
  size_t total = 0, at = 0;
  std::string long_name;
  while (true) {
    if (at + kBlock > tar->size()) return absl::InvalidArgumentError("layer: the tar is truncated");
    const char* h = tar->data() + at;
    if (std::all_of(h, h + kBlock, [](char c) { return c == '\0'; })) break;  // the end
    bool ok = true;
    uint64_t size = ReadOctal(h + 124, 12, &ok);
    uint64_t sum = ReadOctal(h + 148, 8, &ok);
    unsigned computed = 0;
    for (size_t i = 0; i < kBlock; ++i) {
      computed += (i >= 148 && i < 156) ? ' ' : static_cast<unsigned char>(h[i]);
    }
    if (!ok || sum != computed) {
      return absl::InvalidArgumentError(absl::StrCat("layer: a bad tar header at offset ", at));
    }
    std::string name(h, strnlen(h, kUstarName));
    if (std::memcmp(h + 257, "ustar", 5) == 0 && h[345] != '\0') {
      name = absl::StrCat(std::string(h + 345, strnlen(h + 345, 155)), "/", name);
    }
    const char type = h[156];
    at += kBlock;
    if (size > tar->size() - at) return absl::InvalidArgumentError("layer: the tar is truncated");
    std::string_view content(tar->data() + at, size);
    at += (size + kBlock - 1) / kBlock * kBlock;
    if (type == 'x') {
      absl::StatusOr<std::string> path = PaxPathOf(content);
      if (!path.ok()) return path.status();
      long_name = *std::move(path);
      continue;
    }
    if (!long_name.empty()) name = std::exchange(long_name, "");
    if (type != '0' && type != '\0') {
      return absl::InvalidArgumentError(absl::StrCat("layer: entry ", JsonQuote(name),
                                                     " is not a regular file (type '",
                                                     std::string(1, type), "')"));
    }
    if (!IsPlainName(name)) {
      return absl::InvalidArgumentError(
          absl::StrCat("layer: entry ", JsonQuote(name), " is not a plain file name"));
    }
    if (!seen.insert(name).second) {
      return absl::InvalidArgumentError(
          absl::StrCat("layer: entry ", JsonQuote(name), " appears twice"));
    }
    total += size;
    if (files.size() + 1 > limits.max_entries || total > limits.max_total_bytes) {
      return absl::ResourceExhaustedError(absl::StrCat(
          "layer: over ", limits.max_entries, " files or ", limits.max_total_bytes, " bytes"));
    }
    files.push_back({std::move(name), std::string(content)});
  }
  std::sort(files.begin(), files.end(),
            [](const LayerFile& a, const LayerFile& b) { return a.name < b.name; });
  return files;
}

}  // namespace cub::oci
