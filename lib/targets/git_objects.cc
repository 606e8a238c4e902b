#include "lib/targets/git_objects.h"

#include <fcntl.h>
#include <git2.h>
#include <git2/sys/odb_backend.h>
#include <openssl/sha.h>
#include <unistd.h>
#include <zlib.h>

#include <atomic>
#include <cerrno>
#include <cstring>
#include <string>
#include <unordered_map>
#include <vector>

#include "absl/strings/str_cat.h"
#include "lib/targets/internal.h"

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

class PackedObjects : public NewObjects {
 public:
  PackedObjects(git_odb* odb, MemoryBackend* mem) : odb_(odb), mem_(mem) {}
  ~PackedObjects() override { git_odb_free(odb_); }

  absl::Status Persist() override {
    if (mem_->order.empty()) return absl::OkStatus();
    std::string pack = "PACK";
    AppendBe32(&pack, 2);
    AppendBe32(&pack, static_cast<uint32_t>(mem_->order.size()));
    std::vector<Bytef> z;
    for (const auto* entry : mem_->order) {
      const MemoryBackend::Object& o = entry->second;
      int type = PackType(o.type);
      if (type < 0) return absl::InternalError("Git target: unexpected object type in a batch");
      uint64_t size = o.data.size();
      unsigned char c = static_cast<unsigned char>((type << 4) | (size & 0x0f));
      size >>= 4;
      while (size != 0) {
        pack.push_back(static_cast<char>(c | 0x80));
        c = size & 0x7f;
        size >>= 7;
      }
      pack.push_back(static_cast<char>(c));
      uLongf zlen = compressBound(o.data.size());
      z.resize(zlen);
      if (compress2(z.data(), &zlen, reinterpret_cast<const Bytef*>(o.data.data()), o.data.size(),
                    Z_BEST_SPEED) != Z_OK) {
        return absl::InternalError("Git target: cannot compress an object");
      }
      pack.append(reinterpret_cast<const char*>(z.data()), zlen);
    }
    unsigned char sum[SHA_DIGEST_LENGTH];
    SHA1(reinterpret_cast<const unsigned char*>(pack.data()), pack.size(), sum);
    pack.append(reinterpret_cast<const char*>(sum), sizeof sum);

    git_odb_writepack* wp = nullptr;
    if (git_odb_write_pack(&wp, odb_, nullptr, nullptr) != 0) {
      return absl::InternalError("Git target: cannot start a pack: " + GitErrorText());
    }
    git_indexer_progress stats{};
    int rc = wp->append(wp, pack.data(), pack.size(), &stats);
    if (rc == 0) rc = wp->commit(wp, &stats);
    std::string err = rc == 0 ? "" : GitErrorText();
    wp->free(wp);
    if (rc != 0) return absl::InternalError("Git target: cannot write the pack: " + err);
    return absl::OkStatus();
  }

 private:
  git_odb* odb_;        // a reference we own
  MemoryBackend* mem_;  // owned by odb_
};

class LooseObjects : public NewObjects {
 public:
  explicit LooseObjects(std::string objects_dir) : objects_dir_(std::move(objects_dir)) {}
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
  std::string objects_dir_;
};

}  // namespace

ObjectSink DefaultObjectSink() { return default_sink.load(); }
void SetDefaultObjectSinkForBenchmark(ObjectSink sink) { default_sink.store(sink); }

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
    return std::unique_ptr<NewObjects>(new LooseObjects(dir));
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
  return std::unique_ptr<NewObjects>(new PackedObjects(odb, mem));
}

}  // namespace cub::targets::internal
