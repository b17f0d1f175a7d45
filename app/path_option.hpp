// A command-line option that holds a path. The text is UTF-8 (main reads the command line with
// command_line_arguments); CLI11's own conversion would read it in the ANSI code page on Windows,
// and "C:\Users\José\Downloads\..." would name another file.
#pragma once
#include <CLI/CLI.hpp>

#include <string>

#include "cudnn_install/utf8.hpp"

namespace cudnn_install::cli {

template <class PathOrOptional>
CLI::Option* add_path_option(CLI::App& app, const std::string& name, PathOrOptional& target, const std::string& help) {
  return app.add_option_function<std::string>(
      name, [&target](const std::string& text) { target = utf8_path(text); }, help);
}

}  // namespace cudnn_install::cli
