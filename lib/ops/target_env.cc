#include "lib/ops/target_env.h"

#include <filesystem>
#include <string>
#include <system_error>

#include "absl/strings/str_cat.h"
#include "lib/targets/commit_signer.h"

namespace cub::ops {
namespace {

bool BadSignatureText(std::string_view s) {
  for (char c : s) {
    if (c == '<' || c == '>' || static_cast<unsigned char>(c) < 0x20 || c == 0x7f) return true;
  }
  return false;
}

}  // namespace

absl::Status ParseCommitter(std::string_view text, std::string* name, std::string* email) {
  const auto bad = [&](std::string_view why) {
    return absl::InvalidArgumentError(absl::StrCat("--git-committer '", std::string(text), "': ",
                                                   std::string(why), "; expected 'NAME <EMAIL>'"));
  };
  size_t open = text.find('<');
  if (open == std::string_view::npos || text.empty() || text.back() != '>') {
    return bad("no <EMAIL> at the end");
  }
  std::string name_part(text.substr(0, open));
  std::string_view n = name_part;
  while (!n.empty() && (n.back() == ' ' || n.back() == '\t')) n.remove_suffix(1);
  while (!n.empty() && (n.front() == ' ' || n.front() == '\t')) n.remove_prefix(1);
  std::string_view e = text.substr(open + 1, text.size() - open - 2);
  if (n.empty()) return bad("the name is empty");
  if (e.empty()) return bad("the email is empty");
  if (BadSignatureText(n) || BadSignatureText(e)) {
    return bad("a name or email may not contain '<', '>' or control characters");
  }
  *name = std::string(n);
  *email = std::string(e);
  return absl::OkStatus();
}

absl::StatusOr<targets::ProviderEnv> MakeTargetEnv(const TargetEnvFlags& flags) {
  targets::ProviderEnv env;
  std::error_code ec;
  env.work_dir = std::filesystem::absolute(flags.work_dir, ec).string();
  if (ec) {
    return absl::InvalidArgumentError(
        absl::StrCat("--work-dir ", flags.work_dir, ": ", ec.message()));
  }
  if (!flags.credentials_dir.empty()) {
    std::filesystem::path dir = std::filesystem::absolute(flags.credentials_dir, ec);
    if (ec || !std::filesystem::is_directory(dir, ec)) {
      return absl::InvalidArgumentError(
          absl::StrCat("--git-credentials-dir ", flags.credentials_dir, ": not a directory"));
    }
    env.credentials_dir = dir.lexically_normal().string();
  }
  if (!flags.signing_key.empty()) {
    auto signer = targets::CommitSigner::FromFile(flags.signing_key);
    if (!signer.ok()) return signer.status();
    env.signer = *std::move(signer);
  }
  if (!flags.committer.empty()) {
    if (absl::Status s = ParseCommitter(flags.committer, &env.committer_name, &env.committer_email);
        !s.ok()) {
      return s;
    }
  }
  return env;
}

std::string SignerPublicKey(const targets::ProviderEnv& env) {
  return env.signer ? env.signer->PublicKey() : std::string();
}

targets::ProviderEnv ProviderEnvFor(const targets::ProviderEnv& base, const v1::Target& target) {
  targets::ProviderEnv env = base;
  if (!env.credentials_dir.empty()) {
    env.credentials_dir = absl::StrCat(env.credentials_dir, "/", target.space_slug());
  }
  return env;
}

}  // namespace cub::ops
