#include "lib/ops/attestation_gate.h"

#include <algorithm>
#include <functional>

#include "absl/strings/str_cat.h"
#include "absl/strings/str_join.h"
#include "lib/store/scans.h"
#include "lib/util/status_macros.h"

namespace cub::ops {
namespace {

// The largest number of `users` that can each be given a different group of theirs (Kuhn's
// augmenting paths; the sets are small).
size_t DistinctGroupCount(const std::vector<std::vector<std::string>>& user_groups) {
  std::map<std::string, size_t> owner;  // group -> user index
  std::function<bool(size_t, std::set<std::string>&)> assign = [&](size_t u,
                                                                   std::set<std::string>& seen) {
    for (const auto& g : user_groups[u]) {
      if (!seen.insert(g).second) continue;
      auto it = owner.find(g);
      if (it == owner.end() || assign(it->second, seen)) {
        owner[g] = u;
        return true;
      }
    }
    return false;
  };
  size_t n = 0;
  for (size_t u = 0; u < user_groups.size(); ++u) {
    std::set<std::string> seen;
    if (assign(u, seen)) ++n;
  }
  return n;
}

// The groups of `from_groups` that `vote` counts for: those its voter was in when voting and
// is still in (`members`: each group's members now). Groups come from the provider at every
// login, so one removed there stops counting at the next. `left` gets the groups of
// `from_groups` the voter had when voting but no longer has.
std::vector<std::string> CountedGroups(const store::Vote& vote,
                                       const std::set<std::string>& from_groups,
                                       const std::map<std::string, std::set<std::string>>& members,
                                       std::vector<std::string>* left) {
  std::vector<std::string> out;
  for (const auto& g : vote.groups) {
    if (!from_groups.count(g)) continue;
    auto now = members.find(g);
    if (now != members.end() && now->second.count(vote.user_id)) {
      out.push_back(g);
    } else {
      left->push_back(g);
    }
  }
  return out;
}

// Who may count with no FromUserIDs or FromGroups, by Space: the approvers (people only); for
// a check (any type but Approval) also the check identities, holders of the scanner role.
absl::StatusOr<std::map<std::string, std::set<std::string>>> EligibleByRole(
    store::Tx& tx, bool check, const std::vector<std::string>& space_ids) {
  CUB_ASSIGN_OR_RETURN(auto eligible, store::Approvers(tx, space_ids));
  if (!check) return eligible;
  CUB_ASSIGN_OR_RETURN(auto scanners, store::Scanners(tx, space_ids));
  for (const auto& [space_id, users] : scanners) {
    eligible[space_id].insert(users.begin(), users.end());
  }
  return eligible;
}

// Each Space's revisions, grouped once: scanning every read for every Space grew with the square
// of the fleet (10,000 Spaces x 100,000 reads took seconds).
std::map<std::string, std::vector<const store::ReadRevision*>> BySpace(
    const std::vector<store::ReadRevision>& reads) {
  std::map<std::string, std::vector<const store::ReadRevision*>> out;
  for (const auto& read : reads) out[read.space_id].push_back(&read);
  return out;
}

// Why `req` does not hold in a Space, from what each revision read there lacks.
std::string ShortfallMessage(const workflow::AttestationPrerequisite& req,
                             const std::vector<std::string>& shortfalls) {
  return absl::StrCat("requires ", req.name, ": ", req.count, " ", req.type,
                      " attestation(s) from eligible attesters who did not write the change",
                      req.distinct_groups ? " in distinct groups" : "", "; ",
                      absl::StrJoin(shortfalls, "; "));
}

}  // namespace

absl::StatusOr<std::vector<RequirementOutcome>> EvaluateAttestation(
    store::Tx& tx, const ResolvedChangeOrder& rco, const workflow::AttestationPrerequisite& req,
    const std::vector<v1::Space>& spaces, absl::Time now) {
  CUB_ASSIGN_OR_RETURN(auto max_age, workflow::ParseMaxAge(req.max_age));
  std::vector<std::string> ids;
  for (const auto& s : spaces) ids.push_back(s.space_id());
  const auto& co = rco.co;
  CUB_ASSIGN_OR_RETURN(std::vector<store::ReadRevision> reads,
                       store::ChangedRevisions(tx, co.start_tag_id, co.publish_tag_id, ids));
  CUB_ASSIGN_OR_RETURN(auto votes, store::CurrentVotes(tx, req.type, reads));
  std::map<std::string, std::set<std::string>> authors;
  if (!req.allow_authors) {
    CUB_ASSIGN_OR_RETURN(authors,
                         store::ChangeAuthors(tx, co.start_tag_id, co.publish_tag_id, ids));
  }
  const bool check = req.type != workflow::kDefaultAttestationType;
  CUB_ASSIGN_OR_RETURN(auto approvers, EligibleByRole(tx, check, ids));
  const bool open_to_approvers = req.from_user_ids.empty() && req.from_groups.empty();
  std::set<std::string> from_users(req.from_user_ids.begin(), req.from_user_ids.end());
  std::set<std::string> from_groups(req.from_groups.begin(), req.from_groups.end());
  std::set<std::string> listed = from_users;
  CUB_ASSIGN_OR_RETURN(auto group_members, store::GroupMembers(tx, req.from_groups));
  for (const auto& [g, members] : group_members) {
    listed.insert(members.begin(), members.end());
  }

  auto reads_of = BySpace(reads);

  std::vector<RequirementOutcome> out;
  out.reserve(spaces.size());
  for (const auto& space : spaces) {
    RequirementOutcome o;
    o.space_id = space.space_id();
    const std::set<std::string>& space_authors = authors[space.space_id()];
    const std::set<std::string>& space_approvers = approvers[space.space_id()];
    std::vector<std::string> shortfalls;
    for (const store::ReadRevision* r : reads_of[space.space_id()]) {
      const store::ReadRevision& read = *r;
      std::map<std::string, const store::Vote*> latest;  // user -> latest vote
      for (const auto& v : votes[{read.unit_id, read.revision_num}]) latest[v.user_id] = &v;
      std::vector<std::vector<std::string>> approving_groups;
      std::vector<std::string> rejected_by;
      std::set<std::string> approved;
      for (const auto& [user, v] : latest) {
        if (v->revoked || v->expired) continue;  // withdrawn: the user has no current vote
        JudgedVote j{*v, read.unit_slug, read.revision_num, false, ""};
        std::vector<std::string> left;
        std::vector<std::string> groups = CountedGroups(*v, from_groups, group_members, &left);
        bool eligible = open_to_approvers ? space_approvers.count(user) > 0
                                          : from_users.count(user) > 0 || !groups.empty();
        if (!eligible) {
          j.why = !open_to_approvers && !left.empty()
                      ? absl::StrCat("no longer in ", absl::StrJoin(left, ", "),
                                     " of FromGroups (was when voting)")
                  : !open_to_approvers ? "not in FromUserIDs or FromGroups"
                  : check              ? "not an approver or scanner of the space"
                                       : "not an approver of the space";
        } else if (space_authors.count(user)) {
          j.why = "wrote part of the change in this space";
        } else if (now - v->at > max_age) {
          j.why = absl::StrCat("older than MaxAge ", req.max_age);
        } else if (v->result == "Pass") {
          j.counted = true;
          j.why = "eligible approval";
          approved.insert(user);
          approving_groups.push_back(req.distinct_groups ? groups : std::vector<std::string>{user});
        } else if (req.ignore_fail) {
          j.why = "rejection ignored (IgnoreFail)";
        } else {
          j.counted = true;
          j.why = "eligible rejection";
          rejected_by.push_back(v->username);
        }
        o.votes.push_back(std::move(j));
      }
      size_t have =
          req.distinct_groups ? DistinctGroupCount(approving_groups) : approving_groups.size();
      if (have < static_cast<size_t>(req.count) || !rejected_by.empty()) {
        std::string part = absl::StrCat(read.unit_slug, " revision ", read.revision_num, " has ",
                                        have, " of ", req.count);
        if (!rejected_by.empty()) {
          absl::StrAppend(&part, " and is rejected by ", absl::StrJoin(rejected_by, ", "));
        }
        shortfalls.push_back(std::move(part));
        const std::set<std::string>& candidates = open_to_approvers ? space_approvers : listed;
        for (const auto& u : candidates) {
          if (!approved.count(u) && !space_authors.count(u)) o.needs_from.insert(u);
        }
      }
    }
    if (!shortfalls.empty()) {
      o.held = false;
      o.message = ShortfallMessage(req, shortfalls);
      o.shortfalls = std::move(shortfalls);
    }
    out.push_back(std::move(o));
  }
  return out;
}

}  // namespace cub::ops
