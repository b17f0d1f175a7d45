// The loader configuration in a sandbox /etc: what is searched, what shadows, and the
// ld.so.conf.d entry installed by the transaction and removed by --rollback.
#include <gtest/gtest.h>

#include <regex>

#include "cudnn_install/loader.hpp"
#include "support/sandbox.hpp"
#include "support/txn_scenario.hpp"

using namespace cudnn_install;
using namespace cudnn_install::test;
namespace fs = std::filesystem;

namespace {

LoaderEnv sandbox_env(const fs::path& etc) {
  LoaderEnv env;
  env.etc = etc;
  env.default_dirs = {etc / "none"};
  return env;
}

Toolkit toolkit_at(const fs::path& root) {
  Toolkit tk;
  tk.root = root;
  tk.version = {13, 0, std::nullopt};
  tk.lib_dir = "lib";
  return tk;
}

}  // namespace

TEST(Loader, ReadsLdSoConfWithIncludes) {
  TempDir dir;
  write_file(dir.path() / "etc/ld.so.conf", "# comment\ninclude /etc/ld.so.conf.d/*.conf\n/opt/a\n");
  write_file(dir.path() / "etc/ld.so.conf.d/one.conf", "/opt/b  # trailing\n\n");
  write_file(dir.path() / "etc/ld.so.conf.d/two.conf", "include other.d/*.conf\n");
  write_file(dir.path() / "etc/other.d/x.conf", "/opt/c\n");
  auto dirs = ld_so_conf_dirs(sandbox_env(dir.path() / "etc"));
  EXPECT_EQ(dirs, (std::vector<fs::path>{"/opt/b", "/opt/c", "/opt/a"}));
}

TEST(Loader, ProposesAConfEntryOnlyWhenNeeded) {
  TempDir dir;
  make_linux_toolkit(dir.path() / "cuda", 13000);
  write_file(dir.path() / "etc/ld.so.conf", "include /etc/ld.so.conf.d/*.conf\n");
  LoaderEnv env = sandbox_env(dir.path() / "etc");
  auto change = plan_loader_change(toolkit_at(dir.path() / "cuda"), env, LoaderMode::System);
  EXPECT_EQ(change.mode, LoaderMode::System);
  // One entry per toolkit path: named after the path, with its CRC-32 (issue 18, class 7).
  fs::path conf(change.conf_file);
  EXPECT_EQ(conf.parent_path(), dir.path() / "etc/ld.so.conf.d");
  EXPECT_TRUE(std::regex_match(conf.filename().string(), std::regex("cudnn-install-.+-cuda-[0-9a-f]{8}\\.conf")))
      << conf;
  make_linux_toolkit(dir.path() / "other/cuda", 13000);
  EXPECT_NE(plan_loader_change(toolkit_at(dir.path() / "other/cuda"), env, LoaderMode::System).conf_file,
            change.conf_file);
  EXPECT_EQ(change.conf_content, fs::canonical(dir.path() / "cuda/lib").string() + "\n");
  auto print = plan_loader_change(toolkit_at(dir.path() / "cuda"), env, LoaderMode::Print);
  EXPECT_NE(print.shell_line.find("export LD_LIBRARY_PATH=" + fs::canonical(dir.path() / "cuda/lib").string()),
            std::string::npos);
  write_file(dir.path() / "etc/ld.so.conf.d/cuda.conf", (dir.path() / "cuda/lib64").string() + "\n");  // via the link
  auto none = plan_loader_change(toolkit_at(dir.path() / "cuda"), env, LoaderMode::System);
  EXPECT_EQ(none.mode, LoaderMode::Skip);
  EXPECT_NE(none.reason.find("already searches"), std::string::npos);
}

TEST(Loader, FindsCopiesThatShadowTheToolkit) {
  TempDir dir;
  make_linux_toolkit(dir.path() / "cuda", 13000);
  write_file(dir.path() / "cuda/lib/libcudnn.so.9", "ours");
  write_file(dir.path() / "old/libcudnn.so.9.1.0", "old");
  fs::create_symlink("libcudnn.so.9.1.0", dir.path() / "old/libcudnn.so.9");
  write_file(dir.path() / "conda/lib/libcudnn.so.9", "conda");
  write_file(dir.path() / "later/libcudnn.so.9", "after ours: shadowed by ours, not shadowing");
  write_file(dir.path() / "etc/ld.so.conf", "");
  LoaderEnv env = sandbox_env(dir.path() / "etc");
  env.ld_library_path =
      (dir.path() / "old").string() + ":" + (dir.path() / "cuda/lib").string() + ":" + (dir.path() / "later").string();
  env.conda_prefix = dir.path() / "conda";
  auto shadows = find_shadowing(toolkit_at(dir.path() / "cuda"), 9, env);
  ASSERT_EQ(shadows.size(), 2u);
  EXPECT_EQ(shadows[0].path, (dir.path() / "old/libcudnn.so.9").string());
  EXPECT_EQ(shadows[0].version, "9.1.0");
  EXPECT_EQ(shadows[0].where, "LD_LIBRARY_PATH");
  EXPECT_EQ(shadows[1].where, "conda environment");
}

// Issue 19: the loader reads ld.so.conf in order; what comes after the toolkit's own entry (this
// tool's, or any whose real path is the toolkit's library directory) is shadowed by it, not shadowing.
TEST(Loader, EntriesAfterTheToolkitsOwnDoNotShadowIt) {
  TempDir dir;
  make_linux_toolkit(dir.path() / "cuda", 13000);
  write_file(dir.path() / "cuda/lib/libcudnn.so.9", "ours");
  write_file(dir.path() / "other/libcudnn.so.9", "other");
  write_file(dir.path() / "etc/ld.so.conf", "include /etc/ld.so.conf.d/*.conf\n");
  write_file(dir.path() / "etc/ld.so.conf.d/zz-other.conf", (dir.path() / "other").string() + "\n");
  LoaderEnv env = sandbox_env(dir.path() / "etc");
  Toolkit tk = toolkit_at(dir.path() / "cuda");
  ASSERT_EQ(find_shadowing(tk, 9, env).size(), 1u);  // the toolkit is not searched: the other copy is found
  auto change = plan_loader_change(tk, env, LoaderMode::System);
  env.pending_files.emplace_back(change.conf_file, change.conf_content);  // the plan's entry, as if written
  EXPECT_TRUE(find_shadowing(tk, 9, env).empty());
  env.pending_files.clear();
  write_file(change.conf_file, change.conf_content);  // written
  EXPECT_TRUE(find_shadowing(tk, 9, env).empty());
  write_file(dir.path() / "etc/ld.so.conf.d/aa-first.conf", (dir.path() / "other").string() + "\n");  // before ours
  auto shadows = find_shadowing(tk, 9, env);
  ASSERT_EQ(shadows.size(), 1u);
  EXPECT_EQ(shadows[0].path, (dir.path() / "other/libcudnn.so.9").string());
  EXPECT_EQ(shadows[0].where, "ld.so.conf");
}

TEST(Loader, AFileWhoseRealPathIsTheToolkitsIsNotAShadow) {
  TempDir dir;
  make_linux_toolkit(dir.path() / "cuda", 13000);
  write_file(dir.path() / "cuda/lib/libcudnn.so.9", "ours");
  fs::create_directories(dir.path() / "links");
  fs::create_symlink(dir.path() / "cuda/lib/libcudnn.so.9", dir.path() / "links/libcudnn.so.9");
  write_file(dir.path() / "etc/ld.so.conf", (dir.path() / "links").string() + "\n");
  LoaderEnv env = sandbox_env(dir.path() / "etc");
  env.ld_library_path = (dir.path() / "cuda/lib64").string();  // lib64 -> lib: the toolkit's own directory
  EXPECT_TRUE(find_shadowing(toolkit_at(dir.path() / "cuda"), 9, env).empty());
  env.ld_library_path.clear();
  EXPECT_TRUE(find_shadowing(toolkit_at(dir.path() / "cuda"), 9, env).empty());
}

TEST(Loader, APipWheelsCopyIsMarkedAsSuch) {
  TempDir dir;
  make_linux_toolkit(dir.path() / "cuda", 13000);
  write_file(dir.path() / "venv/lib/python3.12/site-packages/nvidia/cudnn/lib/libcudnn.so.9", "wheel");
  write_file(dir.path() / "etc/ld.so.conf", "");
  LoaderEnv env = sandbox_env(dir.path() / "etc");
  env.virtual_env = dir.path() / "venv";
  auto found = find_shadowing(toolkit_at(dir.path() / "cuda"), 9, env);
  ASSERT_EQ(found.size(), 1u);
  EXPECT_TRUE(found[0].pip_wheel);
}

TEST(Loader, InstallAddsTheConfEntryAndRollbackRemovesIt) {
  TempDir dir;
  fs::path root = dir.path() / "cuda-13.0", etc = dir.path() / "etc", calls = dir.path() / "ldconfig.calls";
  make_tree_with_old_cudnn(root);
  write_file(etc / "ld.so.conf", "include /etc/ld.so.conf.d/*.conf\n");
  fs::create_directories(etc / "ld.so.conf.d");
  // CUDNN_INSTALL_LDCONFIG names a program (run without a shell): a script that records each call.
  fs::path ldconfig = dir.path() / "fake ldconfig";
  write_file(ldconfig, "#!/bin/sh\necho called >> '" + calls.string() + "'\n");
  fs::permissions(ldconfig, fs::perms(0755));
  std::string env = "CUDNN_INSTALL_ETC=" + etc.string() + " CUDNN_INSTALL_LDCONFIG='" + ldconfig.string() + "' ";
  std::string archive = archive_args(corpus_archive("cudnn-linux-x86_64-9.19.0.56_cuda13-archive.tar.xz"));
  auto etc_before = snapshot(etc, "");
  std::string out;
  ASSERT_EQ(run_command(env + CLI_PATH + " --yes --no-verify --loader-config=system --cuda-root " + root.string() +
                            " " + archive,
                        &out),
            0)
      << out;
  ASSERT_EQ(std::distance(fs::directory_iterator(etc / "ld.so.conf.d"), fs::directory_iterator()), 1);
  fs::path conf = fs::directory_iterator(etc / "ld.so.conf.d")->path();
  EXPECT_EQ(read_file(conf), fs::canonical(root / "lib").string() + "\n");
  EXPECT_EQ(read_file(calls), "called\n");
  ASSERT_EQ(run_command(env + CLI_PATH + " --rollback --yes --cuda-root " + root.string(), &out), 0) << out;
  EXPECT_FALSE(fs::exists(conf));
  EXPECT_EQ(read_file(calls), "called\ncalled\n");
  fs::remove(calls);
  EXPECT_EQ(diff(etc_before, snapshot(etc, "")), "");
}

TEST(Loader, PrintModeWritesNothingOutsideTheToolkit) {
  TempDir dir;
  fs::path root = dir.path() / "cuda-13.0", etc = dir.path() / "etc";
  make_tree_with_old_cudnn(root);
  write_file(etc / "ld.so.conf", "");
  std::string out;
  ASSERT_EQ(run_command("CUDNN_INSTALL_ETC=" + etc.string() + " " + CLI_PATH +
                            " --yes --no-verify --loader-config=print --cuda-root " + root.string() + " " +
                            archive_args(corpus_archive("cudnn-linux-x86_64-9.19.0.56_cuda13-archive.tar.xz")),
                        &out),
            0)
      << out;
  EXPECT_NE(out.find("export LD_LIBRARY_PATH="), std::string::npos) << out;
  EXPECT_FALSE(fs::exists(etc / "ld.so.conf.d"));
}
