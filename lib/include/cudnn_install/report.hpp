// Rendering of reports for people (text) and programs (JSON, one versioned schema per report).
#pragma once
#include <nlohmann/json.hpp>
#include <string>

#include "cudnn_install/archive.hpp"
#include "cudnn_install/error.hpp"
#include "cudnn_install/plan.hpp"
#include "cudnn_install/toolkit.hpp"

namespace cudnn_install {

// The id of every JSON answer; /2: one object per invocation, with kind and exit_code (docs/json-schema.md).
inline constexpr const char* kJsonSchema = "cudnn-install/2";

std::string render_plan_text(const Plan& plan, const ArchiveInfo& archive, const Toolkit& toolkit);
nlohmann::json plan_to_json(const Plan& plan, const ArchiveInfo& archive, const Toolkit& toolkit);
nlohmann::json error_to_json(const Error& error);

}  // namespace cudnn_install
