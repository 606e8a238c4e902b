// The heads a promotion wrote, kept from its landing for the records it signs afterwards
// (lib/ops/promotion_records.h), so that those need not read them back.
//
// A whole-Stage promote writes every Unit of the Stage (100,000 at 10,000 Spaces), so a head
// is kept in 56 bytes (the Unit's UUID and the SHA-256 its DataHash names, as bytes) rather than
// as text, which took about 200. Not thread-safe.
#ifndef CUB_LIB_OPS_LANDED_HEADS_H_
#define CUB_LIB_OPS_LANDED_HEADS_H_

#include <array>
#include <cstdint>
#include <optional>
#include <string>
#include <string_view>

#include "absl/container/flat_hash_map.h"

namespace cub::ops {

class LandedHeads {
 public:
  // What a Unit's head holds: its revision number and that revision's DataHash.
  struct Head {
    int64_t revision_num = 0;
    std::string data_hash;  // "sha256:<64 lowercase hex>"
  };

  // Notes that the Unit `unit_id` (a UUID as PostgreSQL prints it) has revision `num`, whose
  // DataHash is `data_hash`, at its head. A Unit ID or DataHash in any other form is forgotten
  // instead: Find then knows nothing of it, and its head is read from the database.
  void Note(std::string_view unit_id, int64_t num, std::string_view data_hash);

  // Forgets what was noted of `unit_id` (a Unit written since, whose head moved).
  void Forget(std::string_view unit_id);

  // The head noted for `unit_id`, if any.
  std::optional<Head> Find(std::string_view unit_id) const;

  size_t size() const { return heads_.size(); }

 private:
  using Key = std::array<uint8_t, 16>;
  struct Value {
    int64_t revision_num = 0;
    std::array<uint8_t, 32> sha256{};
  };
  absl::flat_hash_map<Key, Value> heads_;
};

}  // namespace cub::ops

#endif  // CUB_LIB_OPS_LANDED_HEADS_H_
