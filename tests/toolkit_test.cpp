#include <gtest/gtest.h>

#include "cudnn_install/toolkit.hpp"
#include "support/sandbox.hpp"
#include "toolkit_version.hpp"

using namespace cudnn_install;
using namespace cudnn_install::test;
namespace fs = std::filesystem;

namespace {

ToolkitSearch search_with(std::vector<std::pair<std::string, std::string>> env, std::vector<fs::path> defaults = {}) {
  ToolkitSearch s;
  s.environment = std::move(env);
  s.default_dirs = std::move(defaults);
  s.run_nvcc = [](const fs::path&) -> std::optional<std::string> {
    return "Cuda compilation tools, release 12.4, V12.4.131\n";
  };
  return s;
}

}  // namespace

TEST(ToolkitVersion, Parsers) {
  auto json = parse_cuda_version_json(R"({"cuda": {"name": "CUDA SDK", "version": "12.4.1"}, "libcublas": {}})");
  ASSERT_TRUE(json);
  EXPECT_EQ(json->to_string(), "12.4.1");
  EXPECT_FALSE(parse_cuda_version_json("not json"));
  EXPECT_FALSE(parse_cuda_version_json(R"({"cuda": 3})"));
  EXPECT_EQ(parse_cuda_version_txt("CUDA Version 11.0.228\n")->to_string(), "11.0.228");
  EXPECT_EQ(parse_cuda_h("#define CUDA_VERSION 13000\n")->to_string(), "13.0");
  EXPECT_EQ(parse_cuda_h("#define CUDA_VERSION 12040\n")->to_string(), "12.4");
  EXPECT_EQ(parse_nvcc_version("Cuda compilation tools, release 13.0, V13.0.88\n")->to_string(), "13.0.88");
  EXPECT_FALSE(parse_nvcc_version("gcc (Debian) 12"));
}

TEST(Toolkit, ReadsVersionInPriorityOrderAndSaysWhere) {
  TempDir dir;
  make_linux_toolkit(dir.path(), 13000);
  auto tk = probe_toolkit(dir.path(), "--cuda-root", search_with({}));
  ASSERT_TRUE(tk) << tk.error().message;
  EXPECT_EQ(tk->version.to_string(), "13.0");
  EXPECT_EQ(tk->version_source, "include/cuda.h (CUDA_VERSION)");
  write_file(dir.path() / "version.txt", "CUDA Version 13.0.1\n");
  EXPECT_EQ(probe_toolkit(dir.path(), "x", search_with({}))->version_source, "version.txt");
  write_file(dir.path() / "version.json", R"({"cuda": {"version": "13.0.2"}})");
  auto with_json = probe_toolkit(dir.path(), "x", search_with({}));
  EXPECT_EQ(with_json->version_source, "version.json");
  EXPECT_EQ(with_json->version.to_string(), "13.0.2");
}

TEST(Toolkit, NvccIsTheLastResort) {
  TempDir dir;
  write_file(dir.path() / "bin/nvcc", "#!/bin/sh\n");
  auto tk = probe_toolkit(dir.path(), "x", search_with({}));
  ASSERT_TRUE(tk);
  EXPECT_EQ(tk->version_source, "nvcc --version");
  EXPECT_EQ(tk->version.to_string(), "12.4.131");
}

TEST(Toolkit, PipAssembledTreeWritesIntoRealLibNotTheLib64Link) {
  TempDir dir;
  make_linux_toolkit(dir.path(), 13000);
  auto tk = probe_toolkit(dir.path(), "x", search_with({}));
  ASSERT_TRUE(tk);
  EXPECT_EQ(tk->os, TargetOs::Linux);
  EXPECT_EQ(tk->lib_dir, "lib");
  EXPECT_EQ(tk->include_dir, "include");
}

TEST(Toolkit, TargetsLayoutResolvesIncludeAndLib64Links) {
  TempDir dir;
  write_file(dir.path() / "targets/x86_64-linux/include/cuda.h", "#define CUDA_VERSION 12040\n");
  fs::create_directories(dir.path() / "targets/x86_64-linux/lib");
  fs::create_directory_symlink("targets/x86_64-linux/include", dir.path() / "include");
  fs::create_directory_symlink("targets/x86_64-linux/lib", dir.path() / "lib64");
  auto tk = probe_toolkit(dir.path(), "x", search_with({}));
  ASSERT_TRUE(tk) << tk.error().message;
  EXPECT_EQ(tk->lib_dir, "targets/x86_64-linux/lib");
  EXPECT_EQ(tk->include_dir, "targets/x86_64-linux/include");
}

TEST(Toolkit, WindowsLayoutPutsDllsWhereCudartLives) {
  TempDir old_tk, new_tk;
  make_windows_toolkit(old_tk.path(), "12.4.1", false);
  make_windows_toolkit(new_tk.path(), "13.1.0", true);
  auto a = probe_toolkit(old_tk.path(), "x", search_with({}));
  auto b = probe_toolkit(new_tk.path(), "x", search_with({}));
  ASSERT_TRUE(a && b);
  EXPECT_EQ(a->os, TargetOs::Windows);
  EXPECT_EQ(a->bin_dir, "bin");
  EXPECT_EQ(b->bin_dir, "bin/x64");
  EXPECT_EQ(b->import_lib_dir, "lib/x64");
}

TEST(Toolkit, RefusesADirectoryThatIsNotAToolkit) {
  TempDir dir;
  auto tk = probe_toolkit(dir.path(), "--cuda-root", search_with({}));
  ASSERT_FALSE(tk);
  EXPECT_EQ(tk.error().code, ErrorCode::NoToolkit);
  EXPECT_NE(tk.error().message.find("does not look like a CUDA toolkit"), std::string::npos);
}

TEST(Toolkit, FindsEnvironmentPathAndDefaultsWithoutDuplicates) {
  TempDir a, b, c;
  make_linux_toolkit(a.path(), 12040);
  make_linux_toolkit(b.path(), 13000);
  make_linux_toolkit(c.path(), 11080);
  write_file(c.path() / "bin/nvcc", "");
  auto s = search_with({{"CUDA_PATH", a.path().string()},
                        {"CUDA_PATH_V13_0", b.path().string()},
                        {"PATH", "/nonexistent:" + (c.path() / "bin").string()}},
                       {a.path(), fs::path("/nonexistent/cuda")});
  auto all = find_toolkits(s);
  ASSERT_EQ(all.size(), 3u);
  EXPECT_EQ(all[0].found_by, "CUDA_PATH");
  EXPECT_EQ(all[1].found_by, "CUDA_PATH_V13_0");
  EXPECT_EQ(all[2].found_by, "nvcc on PATH");
}

TEST(Toolkit, ChoosesTheOnlyMatchingMajor) {
  TempDir a, b;
  make_linux_toolkit(a.path(), 12040);
  make_linux_toolkit(b.path(), 13000);
  auto s = search_with({}, {a.path(), b.path()});
  auto tk = choose_toolkit(s, 13);
  ASSERT_TRUE(tk);
  EXPECT_EQ(tk->root, b.path());
  auto none = choose_toolkit(s, 11);
  ASSERT_FALSE(none);
  EXPECT_EQ(none.error().code, ErrorCode::CudaMismatch);
  EXPECT_NE(none.error().message.find("CUDA 12.4"), std::string::npos);
}

TEST(Toolkit, SeveralMatchingToolkitsAskForCudaRoot) {
  TempDir a, b;
  make_linux_toolkit(a.path(), 12040);
  make_linux_toolkit(b.path(), 12080);
  auto tk = choose_toolkit(search_with({}, {a.path(), b.path()}), 12);
  ASSERT_FALSE(tk);
  EXPECT_EQ(tk.error().code, ErrorCode::NoToolkit);
  EXPECT_NE(tk.error().message.find("--cuda-root"), std::string::npos);
  EXPECT_NE(tk.error().message.find(a.path().string()), std::string::npos);
  EXPECT_NE(tk.error().message.find(b.path().string()), std::string::npos);
}

TEST(Toolkit, NoToolkitAtAllSaysWhereItLooked) {
  auto tk = choose_toolkit(search_with({}, {"/nonexistent"}), 13);
  ASSERT_FALSE(tk);
  EXPECT_NE(tk.error().message.find("no CUDA toolkit found"), std::string::npos);
}

TEST(Toolkit, DistributionPackageLayoutUsesTheTripletDirectory) {
  TempDir dir;  // like nvidia-cuda-toolkit in /usr
  write_file(dir.path() / "include/cuda.h", "#define CUDA_VERSION 12040\n");
  write_file(dir.path() / "lib/x86_64-linux-gnu/libcudart.so.12", "cudart");
  write_file(dir.path() / "lib/python3/dist-packages/x.py", "");
  auto tk = probe_toolkit(dir.path(), "nvcc on PATH", search_with({}));
  ASSERT_TRUE(tk) << tk.error().message;
  EXPECT_EQ(tk->lib_dir, "lib/x86_64-linux-gnu");
}

TEST(Toolkit, SbsaTargetsLayout) {
  TempDir dir;
  write_file(dir.path() / "targets/sbsa-linux/include/cuda.h", "#define CUDA_VERSION 13000\n");
  write_file(dir.path() / "targets/sbsa-linux/lib/libcudart.so.13", "cudart");
  fs::create_directory_symlink("targets/sbsa-linux/include", dir.path() / "include");
  fs::create_directory_symlink("targets/sbsa-linux/lib", dir.path() / "lib64");
  auto tk = probe_toolkit(dir.path(), "x", search_with({}));
  ASSERT_TRUE(tk) << tk.error().message;
  EXPECT_EQ(tk->lib_dir, "targets/sbsa-linux/lib");
  EXPECT_EQ(tk->include_dir, "targets/sbsa-linux/include");
}

TEST(Toolkit, UsrLocalCudaSymlinkIsFollowedNotReplaced) {
  TempDir dir;
  make_linux_toolkit(dir.path() / "cuda-13.0", 13000);
  fs::create_directory_symlink("cuda-13.0", dir.path() / "cuda");
  auto all = find_toolkits(search_with({}, {dir.path() / "cuda", dir.path() / "cuda-13.0"}));
  ASSERT_EQ(all.size(), 1u);  // the link and its target are one toolkit
  EXPECT_EQ(all[0].root, dir.path() / "cuda");
  EXPECT_EQ(all[0].lib_dir, "lib");
}

// NVIDIA's Linux layout: lib64 -> targets/<cpu>-linux/lib; the targets say which CPUs it serves.
TEST(Toolkit, NvidiaLayoutResolvesLib64IntoTargetsAndNamesTheCpu) {
  TempDir dir;
  write_file(dir.path() / "targets/x86_64-linux/include/cuda.h", "#define CUDA_VERSION 13000\n");
  fs::create_directories(dir.path() / "targets/x86_64-linux/lib");
  fs::create_directory_symlink("targets/x86_64-linux/include", dir.path() / "include");
  fs::create_directory_symlink("targets/x86_64-linux/lib", dir.path() / "lib64");
  auto tk = probe_toolkit(dir.path(), "--cuda-root", search_with({}));
  ASSERT_TRUE(tk) << tk.error().message;
  EXPECT_EQ(tk->targets, std::vector<std::string>{"x86_64-linux"});
  EXPECT_EQ(tk->lib_dir, fs::path("targets/x86_64-linux/lib"));
}
