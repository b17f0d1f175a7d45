// The four places a CUDA toolkit states its version, newest and most precise first.
#include <nlohmann/json.hpp>
#include <regex>

#include "base/util.hpp"
#include "cudnn_install/toolkit.hpp"
#include "toolkit_version.hpp"

namespace cudnn_install {
namespace {

std::optional<CudaVersion> from_dotted(const std::string& text) {
  static const std::regex re(R"(^([0-9]+)\.([0-9]+)(?:\.([0-9]+))?)");
  std::smatch m;
  if (!std::regex_search(text, m, re)) return std::nullopt;
  CudaVersion v{std::stoi(m[1]), std::stoi(m[2]), std::nullopt};
  if (m[3].matched) v.patch = std::stoi(m[3]);
  return v;
}

}  // namespace

std::string CudaVersion::to_string() const {
  std::string s = std::to_string(major) + "." + std::to_string(minor);
  if (patch) s += "." + std::to_string(*patch);
  return s;
}

// {"cuda": {"name": "CUDA SDK", "version": "12.4.1"}, ...}
std::optional<CudaVersion> parse_cuda_version_json(const std::string& text) {
  auto json = nlohmann::json::parse(text, nullptr, false);
  if (json.is_discarded() || !json.is_object() || !json.contains("cuda")) return std::nullopt;
  const auto& cuda = json["cuda"];
  if (!cuda.is_object() || !cuda.contains("version") || !cuda["version"].is_string()) return std::nullopt;
  return from_dotted(cuda["version"].get<std::string>());
}

// "CUDA Version 11.0.228"
std::optional<CudaVersion> parse_cuda_version_txt(const std::string& text) {
  static const std::regex re(R"(CUDA Version ([0-9.]+))");
  std::smatch m;
  if (!std::regex_search(text, m, re)) return std::nullopt;
  return from_dotted(m[1]);
}

// "#define CUDA_VERSION 13000" -> 13.0
std::optional<CudaVersion> parse_cuda_h(const std::string& text) {
  auto number = util::define_value(text, "CUDA_VERSION");
  if (!number || *number < 1000) return std::nullopt;
  int n = *number;
  return CudaVersion{n / 1000, (n % 1000) / 10, std::nullopt};
}

// "Cuda compilation tools, release 13.0, V13.0.88"
std::optional<CudaVersion> parse_nvcc_version(const std::string& text) {
  static const std::regex re(R"(release ([0-9]+)\.([0-9]+))");
  static const std::regex full(R"(, V([0-9]+\.[0-9]+\.[0-9]+))");
  std::smatch m;
  if (std::regex_search(text, m, full)) return from_dotted(m[1]);
  if (!std::regex_search(text, m, re)) return std::nullopt;
  return CudaVersion{std::stoi(m[1]), std::stoi(m[2]), std::nullopt};
}

}  // namespace cudnn_install
