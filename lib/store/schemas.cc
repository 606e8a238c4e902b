#include "lib/store/schemas.h"

namespace cub::store {

using where::FieldDef;
using where::FieldType;
using where::Schema;

const Schema& SpaceSchema() {
  static const Schema* s =
      new Schema("Space", {
                              {"SpaceID", FieldType::kUuid, "s.id"},
                              {"Slug", FieldType::kString, "s.slug"},
                              {"DisplayName", FieldType::kString, "s.display_name"},
                              {"Labels", FieldType::kStringMap, "s.labels"},
                              {"Annotations", FieldType::kStringMap, "s.annotations"},
                              {"ComponentID", FieldType::kUuid, "s.component_id"},
                              {"Component.Slug", FieldType::kString, "c.slug"},
                              {"UpstreamSpaceID", FieldType::kUuid, "s.upstream_space_id"},
                              {"CreatedAt", FieldType::kTime, "s.created_at"},
                              {"UpdatedAt", FieldType::kTime, "s.updated_at"},
                              {"Version", FieldType::kInt, "s.version"},
                          });
  return *s;
}

const Schema& UnitSchema() {
  static const Schema* s = new Schema(
      "Unit", {
                  {"UnitID", FieldType::kUuid, "u.id"},
                  {"SpaceID", FieldType::kUuid, "u.space_id"},
                  {"Slug", FieldType::kString, "u.slug"},
                  {"ToolchainType", FieldType::kString, "u.toolchain_type"},
                  {"Labels", FieldType::kStringMap, "u.labels"},
                  {"Annotations", FieldType::kStringMap, "u.annotations"},
                  {"HeadRevisionNum", FieldType::kInt, "u.head_revision_num"},
                  {"LastReleasedRevisionNum", FieldType::kInt, "u.last_released_revision_num"},
                  {"UpstreamUnitID", FieldType::kUuid, "u.upstream_unit_id"},
                  {"CreatedAt", FieldType::kTime, "u.created_at"},
                  {"UpdatedAt", FieldType::kTime, "u.updated_at"},
                  {"Version", FieldType::kInt, "u.version"},
                  {"Space.Slug", FieldType::kString, "s.slug"},
                  {"Space.Labels", FieldType::kStringMap, "s.labels"},
              });
  return *s;
}

const Schema& RevisionSchema() {
  static const Schema* s = new Schema(
      "Revision", {
                      {"RevisionID", FieldType::kUuid, "r.id"},
                      {"RevisionNum", FieldType::kInt, "r.revision_num"},
                      {"DataHash", FieldType::kString, "r.data_hash"},
                      {"Description", FieldType::kString, "r.description"},
                      {"AuthorID", FieldType::kUuid, "r.author_id"},
                      {"Author", FieldType::kString, "a.username"},
                      {"UpstreamRevisionNum", FieldType::kInt, "r.upstream_revision_num"},
                      {"CreatedAt", FieldType::kTime, "r.created_at"},
                  });
  return *s;
}

const Schema& TagSchema() {
  static const Schema* s =
      new Schema("Tag", {
                            {"TagID", FieldType::kUuid, "t.id"},
                            {"SpaceID", FieldType::kUuid, "t.space_id"},
                            {"Slug", FieldType::kString, "t.slug"},
                            {"Description", FieldType::kString, "t.description"},
                            {"Labels", FieldType::kStringMap, "t.labels"},
                            {"CreatedAt", FieldType::kTime, "t.created_at"},
                        });
  return *s;
}

const Schema& LinkSchema() {
  static const Schema* s =
      new Schema("Link", {
                             {"LinkID", FieldType::kUuid, "l.id"},
                             {"SpaceID", FieldType::kUuid, "l.space_id"},
                             {"Slug", FieldType::kString, "l.slug"},
                             {"FromUnitID", FieldType::kUuid, "l.from_unit_id"},
                             {"ToUnitID", FieldType::kUuid, "l.to_unit_id"},
                             {"ToSpaceID", FieldType::kUuid, "tu.space_id"},
                             {"UpdateType", FieldType::kString, "l.update_type"},
                             {"AutoUpdate", FieldType::kBool, "l.auto_update"},
                             {"Protect", FieldType::kBool, "l.protect"},
                             {"UpstreamRevisionNum", FieldType::kInt, "l.upstream_revision_num"},
                             {"CreatedAt", FieldType::kTime, "l.created_at"},
                         });
  return *s;
}

const Schema& FilterSchema() {
  static const Schema* s =
      new Schema("Filter", {
                               {"FilterID", FieldType::kUuid, "f.id"},
                               {"Slug", FieldType::kString, "f.slug"},
                               {"From", FieldType::kString, "f.from_entity"},
                               {"WhereField", FieldType::kString, "f.where_field"},
                               {"CreatedAt", FieldType::kTime, "f.created_at"},
                           });
  return *s;
}

const Schema& ChangeSetSchema() {
  static const Schema* s = new Schema(
      "ChangeSet", {
                       {"ChangeSetID", FieldType::kUuid, "cs.id"},
                       {"Slug", FieldType::kString, "cs.slug"},
                       {"Description", FieldType::kString, "cs.description"},
                       {"State", FieldType::kString,
                        "(CASE WHEN cs.closed_at IS NULL THEN 'Open' ELSE 'Closed' END)"},
                       {"CreatedAt", FieldType::kTime, "cs.created_at"},
                   });
  return *s;
}

const Schema& AttestationSchema() {
  static const Schema* s =
      new Schema("Attestation", {
                                    {"AttestationID", FieldType::kUuid, "at.id"},
                                    {"SpaceID", FieldType::kUuid, "at.space_id"},
                                    {"SpaceSlug", FieldType::kString, "at.space_slug"},
                                    {"Type", FieldType::kString, "at.type"},
                                    {"Result", FieldType::kString, "at.result"},
                                    {"RevokesID", FieldType::kUuid, "at.revokes_id"},
                                    {"UserID", FieldType::kUuid, "at.user_id"},
                                    {"User", FieldType::kString, "at.username"},
                                    {"ChangeOrderID", FieldType::kUuid, "at.change_order_id"},
                                    {"ChangeOrder", FieldType::kString, "at.change_order"},
                                    {"Note", FieldType::kString, "at.note"},
                                    {"Claims", FieldType::kStringMap, "at.claims"},
                                    {"CreatedAt", FieldType::kTime, "at.created_at"},
                                    {"ExpiresAt", FieldType::kTime, "at.expires_at"},
                                });
  return *s;
}

const Schema& EventSchema() {
  static const Schema* s =
      new Schema("Event", {
                              {"ID", FieldType::kInt, "e.id"},
                              {"At", FieldType::kTime, "e.at"},
                              {"Kind", FieldType::kString, "e.kind"},
                              {"SpaceID", FieldType::kUuid, "e.space_id"},
                              {"Space", FieldType::kString, "e.space_slug"},
                              {"ChangeOrder", FieldType::kString, "e.change_order"},
                              {"Stage", FieldType::kString, "e.stage"},
                              {"User", FieldType::kString, "e.username"},
                              {"Message", FieldType::kString, "e.message"},
                          });
  return *s;
}

const Schema& QueuedPromotionSchema() {
  static const Schema* s = new Schema(
      "QueuedPromotion", {
                             {"ChangeOrder", FieldType::kString, "(s.slug || '/' || co.slug)"},
                             {"ChangeOrderID", FieldType::kUuid, "q.change_order_id"},
                             {"BaseSpace", FieldType::kString, "s.slug"},
                             {"Stage", FieldType::kString, "q.stage"},
                             {"QueuedBy", FieldType::kString, "u.username"},
                             {"QueuedAt", FieldType::kTime, "q.queued_at"},
                             {"CheckedAt", FieldType::kTime, "q.checked_at"},
                             {"WaitingFor", FieldType::kString, "q.waiting_for"},
                         });
  return *s;
}

}  // namespace cub::store
