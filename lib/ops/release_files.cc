#include "lib/ops/release_files.h"

namespace cub::ops {

std::string_view FileExtensionOf(std::string_view toolchain) {
  if (toolchain == "AppConfig/Text") return ".txt";
  if (toolchain == "AppConfig/Properties") return ".properties";
  if (toolchain == "AppConfig/TOML") return ".toml";
  if (toolchain == "AppConfig/INI") return ".ini";
  if (toolchain == "AppConfig/Env") return ".env";
  return ".yaml";
}

std::string BundleFileName(std::string_view slug, std::string_view toolchain) {
  std::string name(slug);
  name.append(FileExtensionOf(toolchain));
  return name;
}

}  // namespace cub::ops
