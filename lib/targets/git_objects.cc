#include "lib/targets/git_objects.h"

#include <fcntl.h>
#include <git2.h>
#include <git2/sys/odb_backend.h>
#include <openssl/sha.h>
#include <sys/stat.h>
#include <unistd.h>
#include <zlib.h>

#include <algorithm>
#include <atomic>
#include <cerrno>
#include <cstdio>
#include <cstring>
#include <string>
#include <unordered_map>
#include <vector>

#include "absl/strings/str_cat.h"
#include "lib/targets/internal.h"
#include "lib/util/parallel_for.h"
#include "lib/util/status_macros.h"

namespace cub::targets::internal {
namespace {

std::atomic<ObjectSink> default_sink{ObjectSink::kPack};

std::string GitErrorText() {
  const git_error* e = git_error_last();
  return e != nullptr && e->message != nullptr ? e->message : "unknown libgit2 error";
}

// An object database backend holding objects in memory, in the order they were written.
struct MemoryBackend {
  git_odb_backend parent;  // first, so a git_odb_backend* is a MemoryBackend*
  struct Object {
    git_object_t type;
    std::string data;
  };
  std::unordered_map<std::string, Object> objects;  // by raw 20-byte id
  std::vector<const std::pair<const std::string, Object>*> order;

  static MemoryBackend* Of(git_odb_backend* b) { return reinterpret_cast<MemoryBackend*>(b); }
  static std::string Key(const git_oid* id) {
    return std::string(reinterpret_cast<const char*>(id->id), GIT_OID_RAWSZ);
  }
  const Object* Find(const git_oid* id) const {
    auto it = objects.find(Key(id));
    return it == objects.end() ? nullptr : &it->second;
  }

  static int Read(void** out, size_t* len, git_object_t* type, git_odb_backend* b,
                  const git_oid* id) {
    const Object* o = Of(b)->Find(id);
    if (o == nullptr) return GIT_ENOTFOUND;
    void* buf = git_odb_backend_data_alloc(b, o->data.size());
    if (buf == nullptr) return -1;
    std::memcpy(buf, o->data.data(), o->data.size());
    *out = buf;
    *len = o->data.size();
    *type = o->type;
    return 0;
  }
  static int ReadHeader(size_t* len, git_object_t* type, git_odb_backend* b, const git_oid* id) {
    const Object* o = Of(b)->Find(id);
    if (o == nullptr) return GIT_ENOTFOUND;
    *len = o->data.size();
    *type = o->type;
    return 0;
  }
  static int Write(git_odb_backend* b, const git_oid* id, const void* data, size_t len,
                   git_object_t type) {
    MemoryBackend* m = Of(b);
    auto [it, added] = m->objects.try_emplace(
        Key(id), Object{type, std::string(static_cast<const char*>(data), len)});
    if (added) m->order.push_back(&*it);
    return 0;
  }
  static int Exists(git_odb_backend* b, const git_oid* id) {
    return Of(b)->Find(id) != nullptr ? 1 : 0;
  }
  static void Free(git_odb_backend* b) { delete Of(b); }
};

void AppendBe32(std::string* out, uint32_t v) {
  for (int shift = 24; shift >= 0; shift -= 8) out->push_back(static_cast<char>(v >> shift));
}

// Pack object type codes (Git's pack format).
int PackType(git_object_t t) {
  switch (t) {
    case GIT_OBJECT_COMMIT:
      return 1;
    case GIT_OBJECT_TREE:
      return 2;
    case GIT_OBJECT_BLOB:
      return 3;
    case GIT_OBJECT_TAG:
      return 4;
    default:
      return -1;
  }
}

// Writes `data` to a new file in `dir`, fsyncs it, makes it read-only (as git does its packs)
// and renames it to `name`.
absl::Status WriteDurably(const std::string& dir, const std::string& name,
                          const std::string& data) {
  std::string tmp = dir + "/tmp_cub_XXXXXX";
  int fd = ::mkstemp(tmp.data());
  if (fd < 0) {
    int err = errno;
    return absl::InternalError(
        absl::StrCat("Git target: cannot create a file in ", dir, ": ", ErrnoText(err)));
  }
  size_t done = 0;
  int err = 0;
  while (done < data.size() && err == 0) {
    ssize_t n = ::write(fd, data.data() + done, data.size() - done);
    if (n < 0 && errno != EINTR) err = errno;
    if (n > 0) done += static_cast<size_t>(n);
  }
  if (err == 0 && ::fsync(fd) != 0) err = errno;
  if (err == 0 && ::fchmod(fd, 0444) != 0) err = errno;
  if (::close(fd) != 0 && err == 0) err = errno;
  const std::string target = dir + "/" + name;
  if (err == 0 && ::rename(tmp.c_str(), target.c_str()) != 0) err = errno;
  if (err != 0) {
    ::unlink(tmp.c_str());
    return absl::InternalError(
        absl::StrCat("Git target: cannot write ", target, ": ", ErrnoText(err)));
  }
  return absl::OkStatus();
}

// Deflates objects one after the other with one zlib stream (deflateInit allocates and clears
// a few hundred KB, which per 1 KB object would cost more than the compression).
class Deflater {
 public:
  Deflater() { ok_ = deflateInit(&z_, Z_BEST_SPEED) == Z_OK; }
  ~Deflater() {
    if (ok_) deflateEnd(&z_);
  }
  // Appends the zlib stream of `in` to `out`.
  bool Append(const std::string& in, std::string* out) {
    if (!ok_ || deflateReset(&z_) != Z_OK) return false;
    size_t start = out->size();
    out->resize(start + deflateBound(&z_, in.size()));
    z_.next_in = reinterpret_cast<Bytef*>(const_cast<char*>(in.data()));
    z_.avail_in = static_cast<uInt>(in.size());
    z_.next_out = reinterpret_cast<Bytef*>(out->data() + start);
    z_.avail_out = static_cast<uInt>(out->size() - start);
    if (deflate(&z_, Z_FINISH) != Z_STREAM_END) return false;
    out->resize(out->size() - z_.avail_out);
    return true;
  }

 private:
  z_stream z_{};
  bool ok_ = false;
};

// Objects in memory until Persist writes them as one pack, with its index, into
// objects/pack. The pack and the index are written here rather than by libgit2's indexer,
// which would inflate and hash every object again to learn what we already know (its id, its
// offset, the CRC of its bytes): that took longer than everything else of a Deliver.
class PackedObjects : public NewObjects {
 public:
  PackedObjects(git_odb* odb, MemoryBackend* mem, std::string pack_dir)
      : odb_(odb), mem_(mem), pack_dir_(std::move(pack_dir)) {}
  ~PackedObjects() override { git_odb_free(odb_); }

  absl::Status AddBlob(const std::string& content, const git_oid& id) override {
    // No existence check: a blob the repository already has (another Space's identical
    // file) is stored again, harmlessly, instead of costing every new blob a look-up in
    // every pack and a rescan of objects/pack.
    MemoryBackend::Write(&mem_->parent, &id, content.data(), content.size(), GIT_OBJECT_BLOB);
    return absl::OkStatus();
  }

  absl::Status Persist() override {
    if (mem_->order.empty()) return absl::OkStatus();
    struct IndexEntry {
      const std::string* id;
      uint32_t crc;
      uint64_t offset;
    };
    // Deflating is most of the CPU a pack costs: the objects are split into contiguous runs of
    // at least 512 (at most 8 runs), spread over the cores, each deflated into its own buffer
    // with its own zlib stream; the buffers are then joined in order, so the pack is byte for
    // byte what one thread would write.
    const size_t n = mem_->order.size();
    const size_t runs = std::clamp<size_t>(n / 512, 1, 8);
    struct Run {
      std::string bytes;
      std::vector<IndexEntry> index;  // offsets within `bytes`
      bool ok = true;
    };
    std::vector<Run> parts(runs);
    ParallelFor(runs, /*min_per_thread=*/1, /*max_threads=*/0, [&](size_t k) {
      Run& part = parts[k];
      const size_t begin = n * k / runs, end = n * (k + 1) / runs;
      part.index.reserve(end - begin);
      Deflater deflater;
      for (size_t i = begin; i < end && part.ok; ++i) {
        const auto* entry = mem_->order[i];
        const MemoryBackend::Object& o = entry->second;
        int type = PackType(o.type);
        const size_t start = part.bytes.size();
        uint64_t size = o.data.size();
        unsigned char c = static_cast<unsigned char>((type << 4) | (size & 0x0f));
        size >>= 4;
        while (size != 0) {
          part.bytes.push_back(static_cast<char>(c | 0x80));
          c = size & 0x7f;
          size >>= 7;
        }
        part.bytes.push_back(static_cast<char>(c));
        if (type < 0 || !deflater.Append(o.data, &part.bytes)) {
          part.ok = false;
          break;
        }
        uint32_t crc = static_cast<uint32_t>(
            crc32(0, reinterpret_cast<const Bytef*>(part.bytes.data() + start),
                  part.bytes.size() - start));
        part.index.push_back({&entry->first, crc, start});
      }
    });
    std::vector<IndexEntry> index;
    index.reserve(n);
    std::string pack = "PACK";
    AppendBe32(&pack, 2);
    AppendBe32(&pack, static_cast<uint32_t>(n));
    size_t total = pack.size();
    for (const Run& part : parts) total += part.bytes.size();
    pack.reserve(total + SHA_DIGEST_LENGTH);
    for (Run& part : parts) {
      if (!part.ok) return absl::InternalError("Git target: cannot compress an object of a batch");
      const uint64_t base = pack.size();
      for (IndexEntry e : part.index) {
        e.offset += base;
        index.push_back(e);
      }
      pack += part.bytes;
      std::string().swap(part.bytes);
    }
    unsigned char sum[SHA_DIGEST_LENGTH];
    SHA1(reinterpret_cast<const unsigned char*>(pack.data()), pack.size(), sum);
    const std::string checksum(reinterpret_cast<const char*>(sum), sizeof sum);
    pack += checksum;
    std::sort(index.begin(), index.end(),
              [](const IndexEntry& a, const IndexEntry& b) { return *a.id < *b.id; });
    std::string idx = IndexFile(index, checksum);

    char hex[2 * SHA_DIGEST_LENGTH + 1];
    for (size_t i = 0; i < sizeof sum; ++i) std::snprintf(hex + 2 * i, 3, "%02x", sum[i]);
    const std::string base = std::string("pack-") + hex;
    // objects/pack exists in any repository git or libgit2 made; a hand-pruned one gets it back.
    if (::mkdir(pack_dir_.c_str(), 0755) != 0 && errno != EEXIST) {
      int err = errno;
      return absl::InternalError(
          absl::StrCat("Git target: cannot create ", pack_dir_, ": ", ErrnoText(err)));
    }
    // The pack first, then its index: git and libgit2 only look at packs that have an index.
    CUB_RETURN_IF_ERROR(WriteDurably(pack_dir_, base + ".pack", pack));
    CUB_RETURN_IF_ERROR(WriteDurably(pack_dir_, base + ".idx", idx));
    int fd = ::open(pack_dir_.c_str(), O_RDONLY | O_DIRECTORY | O_CLOEXEC);
    int rc = fd < 0 ? -1 : ::fsync(fd);
    int err = errno;
    if (fd >= 0) ::close(fd);
    if (rc != 0) {
      return absl::InternalError(
          absl::StrCat("Git target: cannot sync ", pack_dir_, ": ", ErrnoText(err)));
    }
    return absl::OkStatus();
  }

 private:
  // A pack index, version 2, for entries sorted by id.
  template <typename Entry>
  static std::string IndexFile(const std::vector<Entry>& index, const std::string& checksum) {
    std::string idx("\377tOc", 4);
    AppendBe32(&idx, 2);
    uint32_t fanout[256] = {};
    for (const Entry& e : index) ++fanout[static_cast<unsigned char>((*e.id)[0])];
    uint32_t total = 0;
    for (uint32_t& f : fanout) {
      total += f;
      f = total;
    }
    for (uint32_t f : fanout) AppendBe32(&idx, f);
    for (const Entry& e : index) idx += *e.id;
    for (const Entry& e : index) AppendBe32(&idx, e.crc);
    std::vector<uint64_t> large;
    for (const Entry& e : index) {
      if (e.offset < 0x80000000u) {
        AppendBe32(&idx, static_cast<uint32_t>(e.offset));
      } else {
        AppendBe32(&idx, 0x80000000u | static_cast<uint32_t>(large.size()));
        large.push_back(e.offset);
      }
    }
    for (uint64_t off : large) {
      AppendBe32(&idx, static_cast<uint32_t>(off >> 32));
      AppendBe32(&idx, static_cast<uint32_t>(off));
    }
    idx += checksum;
    unsigned char sum[SHA_DIGEST_LENGTH];
    SHA1(reinterpret_cast<const unsigned char*>(idx.data()), idx.size(), sum);
    idx.append(reinterpret_cast<const char*>(sum), sizeof sum);
    return idx;
  }

  git_odb* odb_;        // a reference we own
  MemoryBackend* mem_;  // owned by odb_
  const std::string pack_dir_;
};

class LooseObjects : public NewObjects {
 public:
  LooseObjects(git_repository* repo, std::string objects_dir)
      : repo_(repo), objects_dir_(std::move(objects_dir)) {}
  absl::Status AddBlob(const std::string& content, const git_oid&) override {
    git_oid id;
    if (git_blob_create_from_buffer(&id, repo_, content.data(), content.size()) != 0) {
      return absl::InternalError("Git target: cannot store a file: " + GitErrorText());
    }
    return absl::OkStatus();
  }
  absl::Status Persist() override {
    int fd = ::open(objects_dir_.c_str(), O_RDONLY | O_DIRECTORY | O_CLOEXEC);
    if (fd < 0) {
      int err = errno;
      return absl::InternalError(
          absl::StrCat("Git target: cannot open ", objects_dir_, ": ", ErrnoText(err)));
    }
    int rc = ::syncfs(fd);
    int err = errno;
    ::close(fd);
    if (rc != 0) {
      return absl::InternalError(
          absl::StrCat("Git target: cannot sync ", objects_dir_, ": ", ErrnoText(err)));
    }
    return absl::OkStatus();
  }

 private:
  git_repository* repo_;
  std::string objects_dir_;
};

}  // namespace

ObjectSink DefaultObjectSink() { return default_sink.load(); }
void SetDefaultObjectSink(ObjectSink sink) { default_sink.store(sink); }

absl::StatusOr<std::unique_ptr<NewObjects>> NewObjects::Attach(git_repository* repo,
                                                               ObjectSink sink) {
  git_odb* odb = nullptr;
  if (git_repository_odb(&odb, repo) != 0) {
    return absl::InternalError("Git target: cannot open the object database: " + GitErrorText());
  }
  // Above every backend libgit2 added (the loose one has priority 1, packs 2).
  constexpr int kPriority = 999;
  if (sink == ObjectSink::kLooseSyncfs) {
    const std::string dir = std::string(git_repository_commondir(repo)) + "objects";
    git_odb_backend* loose = nullptr;
    int rc = git_odb_backend_loose(&loose, dir.c_str(), Z_BEST_SPEED, /*do_fsync=*/0, 0, 0);
    if (rc == 0) rc = git_odb_add_backend(odb, loose, kPriority);
    git_odb_free(odb);
    if (rc != 0) {
      return absl::InternalError("Git target: cannot add the loose backend: " + GitErrorText());
    }
    return std::unique_ptr<NewObjects>(new LooseObjects(repo, dir));
  }
  auto* mem = new MemoryBackend();
  std::memset(&mem->parent, 0, sizeof mem->parent);
  git_odb_init_backend(&mem->parent, GIT_ODB_BACKEND_VERSION);
  mem->parent.read = MemoryBackend::Read;
  mem->parent.read_header = MemoryBackend::ReadHeader;
  mem->parent.write = MemoryBackend::Write;
  mem->parent.exists = MemoryBackend::Exists;
  mem->parent.free = MemoryBackend::Free;
  if (git_odb_add_backend(odb, &mem->parent, kPriority) != 0) {
    delete mem;
    git_odb_free(odb);
    return absl::InternalError("Git target: cannot add the memory backend: " + GitErrorText());
  }
  return std::unique_ptr<NewObjects>(
      new PackedObjects(odb, mem, std::string(git_repository_commondir(repo)) + "objects/pack"));
}

}  // namespace cub::targets::internal
