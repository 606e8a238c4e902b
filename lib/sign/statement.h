// in-toto Statements (attestation framework v1): the JSON documents cub signs, as DSSE
// payloads of type kInTotoPayloadType, to say something (the predicate) about some artifacts
// (the subjects, named and identified by their SHA-256 digests).
//
//   {"_type":"https://in-toto.io/Statement/v1",
//    "subject":[{"name":"<NAME>","digest":{"sha256":"<HEX>"}}, ...],
//    "predicateType":"<URI>",
//    "predicate":{...}}
//
// Pure functions; thread-safe.

#ifndef CUB_LIB_SIGN_STATEMENT_H_
#define CUB_LIB_SIGN_STATEMENT_H_

#include <string>
#include <string_view>
#include <vector>

#include "lib/util/json.h"

namespace cub::sign {

// The DSSE payloadType of an in-toto Statement.
inline constexpr std::string_view kInTotoPayloadType = "application/vnd.in-toto+json";

// The Statement's "_type".
inline constexpr std::string_view kInTotoStatementType = "https://in-toto.io/Statement/v1";

// One artifact the Statement is about.
struct Subject {
  std::string name;        // e.g. a Unit's slug; omitted from the JSON when empty
  std::string sha256_hex;  // 64 lowercase hex characters (as Sha256Hex writes them)
};

// The Statement as compact JSON (JsonText: no whitespace, no trailing newline), keys in the
// order shown above: "_type", "subject", "predicateType", "predicate"; in each subject "name"
// (unless empty), then "digest"; the predicate's members in their order. The same arguments
// always give the same bytes. Precondition, not checked: each sha256_hex is a SHA-256 in
// lowercase hex.
std::string Statement(const std::vector<Subject>& subjects, std::string_view predicate_type,
                      const Json& predicate);

// As Statement, with the predicate already written: `predicate_json` is placed as it is, so
// the result is Statement's when it is JsonText of the predicate. For signers that write the
// predicates of many statements without building a Json for each.
std::string StatementText(const std::vector<Subject>& subjects, std::string_view predicate_type,
                          std::string_view predicate_json);

}  // namespace cub::sign

#endif  // CUB_LIB_SIGN_STATEMENT_H_
