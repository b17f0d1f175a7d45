// status() (status.hpp), the operation behind `cudnn-install status`: every toolkit found, the
// default one the other commands take, recovery first where a run was interrupted, and the renderers.
#include <gtest/gtest.h>

#include "cudnn_install/state_dir.hpp"
#include "cudnn_install/status.hpp"
#include "support/sandbox.hpp"
#include "support/txn_scenario.hpp"

using namespace cudnn_install;
using namespace cudnn_install::test;
namespace fs = std::filesystem;

namespace {

ToolkitSearch search_of(std::vector<fs::path> dirs) {
  ToolkitSearch search;
  search.default_dirs = std::move(dirs);
  return search;
}

OpenSessionFn never_opened(int* opened) {
  return [opened](const fs::path&) -> Result<Session> {
    ++*opened;
    return fail(ErrorCode::Io, "not opened in this test");
  };
}

}  // namespace

TEST(Status, ListsEveryToolkitAndSaysWhichOneTheOtherCommandsTake) {
  TempDir dir;
  make_linux_toolkit(dir.path() / "cuda-12.4", 12040);
  make_linux_toolkit(dir.path() / "cuda-13.0", 13000);
  auto search = search_of({dir.path() / "cuda-12.4", dir.path() / "cuda-13.0"});
  int opened = 0;
  auto report = status(search, never_opened(&opened));
  ASSERT_TRUE(report) << report.error().message;
  ASSERT_EQ(report->toolkits.size(), 2u);
  EXPECT_EQ(opened, 0) << "nothing to recover: no session";
  ASSERT_TRUE(report->default_choice);
  EXPECT_FALSE(*report->default_choice) << "two toolkits and no variable: the others need --cuda-root";
  search.environment = {{"CUDA_PATH", (dir.path() / "cuda-13.0").string()}};
  report = status(search, never_opened(&opened));
  ASSERT_TRUE(report && report->default_choice && *report->default_choice);
  EXPECT_EQ((*report->default_choice)->root, dir.path() / "cuda-13.0");
  search.cuda_root = dir.path() / "cuda-12.4";
  report = status(search, never_opened(&opened));
  ASSERT_TRUE(report);
  EXPECT_EQ(report->toolkits.size(), 1u);
  EXPECT_FALSE(report->default_choice);
  search.cuda_root = dir.path() / "nothing-here";
  EXPECT_FALSE(status(search, never_opened(&opened)));
}

TEST(Status, RecoversFirstAndShowsWhatItCouldReadWhenThatFails) {
  TempDir dir;
  fs::path root = dir.path() / "cuda";
  make_tree_with_old_cudnn(root);
  auto real = make_real_filesystem();
  ASSERT_TRUE(install_through(*real, root, corpus_archive("cudnn-linux-x86_64-9.19.0.56_cuda13-archive.tar.xz"),
                              Reading::Spool));
  fs::create_directories(spool_dir(root));  // what a killed run leaves: its spool
  int opened = 0;
  auto search = search_of({});
  search.cuda_root = root;
  auto report = status(search, never_opened(&opened));
  ASSERT_TRUE(report) << report.error().message;
  EXPECT_EQ(opened, 1);
  const ToolkitStatus& s = report->toolkits.at(0);
  ASSERT_EQ(s.errors.size(), 1u);
  EXPECT_EQ(s.errors[0].message, "not opened in this test");
  ASSERT_EQ(s.transactions.size(), 1u);
  EXPECT_EQ(s.cudnn_version, "9.19.0");
  std::string text = render_status_text(s);
  EXPECT_NE(text.find("install 9.19.0.56 from"), std::string::npos) << text;
  EXPECT_NE(text.find("<- --rollback undoes this"), std::string::npos) << text;
  EXPECT_EQ(text.find("found in place"), std::string::npos) << text;
  ToolkitStatus bare;  // no cuDNN at all: nothing was found in place either
  EXPECT_NE(render_status_text(bare).find("  cuDNN  none\n"), std::string::npos) << render_status_text(bare);
  ToolkitStatus by_hand;
  by_hand.cudnn_version = "9.1.0";
  EXPECT_NE(render_status_text(by_hand).find("  cuDNN  9.1.0  (found in place; not installed by cudnn-install)\n"),
            std::string::npos)
      << render_status_text(by_hand);
  auto json = status_to_json(s);
  EXPECT_EQ(json["transactions"].size(), 1u);
  EXPECT_EQ(json["cudnn_version"], "9.19.0");
}
