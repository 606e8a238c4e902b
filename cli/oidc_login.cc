#include "cli/oidc_login.h"

#include <iostream>

namespace cub::cli::oidc {

absl::StatusOr<Tokens> DeviceLogin(const ProviderEndpoints& endpoints, const LoginClient& client) {
  return identity::oidc::DeviceLogin(endpoints, client, [](const identity::oidc::DeviceCode& c) {
    std::cout.flush();
    std::cerr << "Open " << c.verification_uri << " and enter the code " << c.user_code << "\n";
    if (!c.verification_uri_complete.empty()) {
      std::cerr << "Or open: " << c.verification_uri_complete << "\n";
    }
    std::cerr.flush();
  });
}

}  // namespace cub::cli::oidc
