// Where the Git provider's new objects go during a Deliver, and how they are made durable before
// the branch moves. Internal to lib/targets; git.cc is the user.
//
// A Deliver of a whole Stage writes thousands of objects (a blob per file, a tree per directory,
// one commit). libgit2's loose-object backend with fsync enabled costs a file, a rename and an
// fsync per object, which alone would take longer than the whole publish may. Two ways out were
// measured (tests/bench/git_deliver_bench.cc, 1,000 Spaces x 10 files of ~1 KB, figures in
// docs/performance.md):
//
//   kPack         objects are kept in memory and, at Persist, written as ONE pack (each object
//                 deflated at zlib's fastest level, no deltas) and its .idx, both written here
//                 (libgit2's indexer would inflate and hash every object again), each fsynced,
//                 then the directory: three fsyncs per Deliver whatever the batch's size, and
//                 nothing else on the disk is synced. About 0.3 s of CPU for 10,000 new files.
//   kLooseSyncfs  loose objects written without fsync, then one syncfs(2) of the file system
//                 holding the repository. A file and a rename per object (about 4 s of CPU for
//                 10,000 files), and syncfs waits for every dirty page of that file system,
//                 other programs' included (47-60 s on a shared build machine); 10,000 loose
//                 files per publish would also need `git gc` much sooner.
//
// kPack is the default: faster by an order of magnitude, and its cost depends only on the
// batch. A pack per Deliver accumulates packs; `git gc` (or `git repack -d`) on the repository
// now and then merges them (docs/operations.md).
//
// Reads go through the same object database, so objects written in memory are visible to the
// tree and commit code (and to a push) before they are persisted.

#ifndef CUB_LIB_TARGETS_GIT_OBJECTS_H_
#define CUB_LIB_TARGETS_GIT_OBJECTS_H_

#include <memory>
#include <string>

#include "absl/status/status.h"
#include "absl/status/statusor.h"

struct git_repository;
struct git_oid;

namespace cub::targets::internal {

enum class ObjectSink { kPack, kLooseSyncfs };

// The sink NewObjects use; kPack unless changed (by the benchmark and the tests, to measure and
// test the other).
ObjectSink DefaultObjectSink();
void SetDefaultObjectSink(ObjectSink sink);

class NewObjects {
 public:
  // From now on, objects written to `repo` (which must outlive this) go to the sink. The repo
  // object should not be used for writing after Persist.
  static absl::StatusOr<std::unique_ptr<NewObjects>> Attach(git_repository* repo, ObjectSink sink);
  virtual ~NewObjects() = default;

  // Stores a blob of `content`, whose id `id` the caller computed (git_odb_hash) to see whether
  // it changed. Cheaper than git_blob_create_from_buffer, which looks the id up in every pack
  // and rescans objects/pack when it is not there.
  virtual absl::Status AddBlob(const std::string& content, const git_oid& id) = 0;

  // Makes every object written since Attach durable. INTERNAL with libgit2's or the system's
  // text on failure.
  virtual absl::Status Persist() = 0;
};

}  // namespace cub::targets::internal

#endif  // CUB_LIB_TARGETS_GIT_OBJECTS_H_
