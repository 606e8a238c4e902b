// The heads a promotion wrote, as its records read them back (lib/ops/landed_heads.h).
#include "lib/ops/landed_heads.h"

#include <catch2/catch.hpp>
#include <string>

namespace cub::ops {
namespace {

const std::string kUnit = "0f1e2d3c-4b5a-6978-8796-a5b4c3d2e1f0";
const std::string kHash = "sha256:00ff10ef20df30cf40bf50af609f708f807f906fa05fb04fc03fd02fe01ff00a";

TEST_CASE("a noted head is found as it was written") {
  LandedHeads heads;
  CHECK_FALSE(heads.Find(kUnit).has_value());
  heads.Note(kUnit, 7, kHash);
  auto h = heads.Find(kUnit);
  REQUIRE(h.has_value());
  CHECK(h->revision_num == 7);
  CHECK(h->data_hash == kHash);
  heads.Note(kUnit, 8, "sha256:" + std::string(64, 'a'));
  CHECK(heads.Find(kUnit)->revision_num == 8);
  CHECK(heads.Find(kUnit)->data_hash == "sha256:" + std::string(64, 'a'));
  CHECK(heads.size() == 1);
  CHECK_FALSE(heads.Find("0f1e2d3c-4b5a-6978-8796-a5b4c3d2e1f1").has_value());
}

TEST_CASE("a head in another form is not kept, and replaces nothing it could be taken for") {
  LandedHeads heads;
  heads.Note(kUnit, 7, kHash);
  SECTION("a DataHash that is not a lowercase SHA-256 forgets the Unit's head") {
    for (const std::string bad : {std::string("sha1:abc"), kHash.substr(0, kHash.size() - 1),
                                  "sha256:" + std::string(64, 'A'), std::string()}) {
      heads.Note(kUnit, 8, kHash);
      heads.Note(kUnit, 9, bad);
      CHECK_FALSE(heads.Find(kUnit).has_value());
    }
  }
  SECTION("a Unit ID that is not a canonical UUID is never found") {
    heads.Note("0F1E2D3C-4B5A-6978-8796-A5B4C3D2E1F0", 9, kHash);
    heads.Note("not-a-uuid", 9, kHash);
    CHECK(heads.size() == 1);
    CHECK(heads.Find(kUnit)->revision_num == 7);
    CHECK_FALSE(heads.Find("0F1E2D3C-4B5A-6978-8796-A5B4C3D2E1F0").has_value());
  }
  SECTION("Forget") {
    heads.Forget(kUnit);
    CHECK_FALSE(heads.Find(kUnit).has_value());
    heads.Forget("not-a-uuid");
  }
}

}  // namespace
}  // namespace cub::ops
