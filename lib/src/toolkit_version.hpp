// The CUDA version as each of its sources states it (toolkit_version.cpp), read by toolkit.cpp.
#pragma once
#include <optional>
#include <string>

#include "cudnn_install/toolkit.hpp"

namespace cudnn_install {

std::optional<CudaVersion> parse_cuda_version_json(const std::string& text);
std::optional<CudaVersion> parse_cuda_version_txt(const std::string& text);
std::optional<CudaVersion> parse_cuda_h(const std::string& text);
std::optional<CudaVersion> parse_nvcc_version(const std::string& text);

}  // namespace cudnn_install
