// The real binary with --json: one object on stdout per invocation, for every command and every
// error, command-line errors included. run_command checks each answer against docs/schema
// (tests/support/json-answer.sh); these tests check what each answer says.
#include <gtest/gtest.h>

#include <nlohmann/json.hpp>

#include "support/sandbox.hpp"
#include "support/tree_snapshot.hpp"
#include "support/txn_scenario.hpp"

using namespace cudnn_install::test;
namespace fs = std::filesystem;
using nlohmann::json;

namespace {

fs::path json_test_archive() { return corpus_archive("cudnn-linux-x86_64-9.19.0.56_cuda13-archive.tar.xz"); }

// Runs the command with --json (stderr dropped) and parses stdout, which must be one object.
json answer_of(const std::string& args, int* rc) {
  std::string out;
  *rc = run_command(cli() + " --json " + args + " 2>/dev/null", &out);
  json j = json::parse(out, nullptr, /*allow_exceptions=*/false);
  EXPECT_TRUE(j.is_object()) << "not one JSON object:\n" << out;
  if (j.is_object()) {
    EXPECT_EQ(j["exit_code"], *rc) << out;
  }
  return j;
}

}  // namespace

TEST(CliJson, CommandLineErrorsAreOneUsageErrorThatExitsOne) {
  for (const char* args : {"--no-such-option", "--loader-config nonsense x.tar.xz", "x.tar.xz --cuda-root",
                           "status --cuda-root", "verify unexpected-argument", ""}) {
    int rc = 0;
    json j = answer_of(args, &rc);
    EXPECT_EQ(rc, 1) << args;
    EXPECT_EQ(j["kind"], "error") << args;
    EXPECT_EQ(j["code"], "usage") << args;
    EXPECT_FALSE(j["message"].get<std::string>().empty()) << args;
  }
  int rc = 0;  // the command the line named, where the parse got that far
  EXPECT_EQ(answer_of("verify unexpected-argument", &rc)["command"], "verify");
  EXPECT_EQ(answer_of("--no-such-option", &rc)["command"], nullptr);
}

TEST(CliJson, CommandLineErrorsWithoutJsonExitOneWithAMessage) {
  std::string out;
  EXPECT_EQ(run_command(cli() + " --no-such-option", &out), 1) << out;
  EXPECT_NE(out.find("cudnn-install: error: "), std::string::npos) << out;
  EXPECT_NE(out.find("--no-such-option"), std::string::npos) << out;
  EXPECT_EQ(run_command(cli() + " x.tar.xz --cuda-root", &out), 1) << out;
}

TEST(CliJson, HelpAndVersionAreAnswersToo) {
  int rc = 0;
  json help = answer_of("--help", &rc);
  EXPECT_EQ(rc, 0);
  EXPECT_EQ(help["kind"], "help");
  EXPECT_NE(help["text"].get<std::string>().find("--rollback"), std::string::npos);
  json version = answer_of("--version", &rc);
  EXPECT_EQ(rc, 0);
  EXPECT_EQ(version["kind"], "version");
}

TEST(CliJson, AnInstallWithYesIsOneObjectWithPlanTransactionAndVerification) {
  TempDir dir;
  make_tree_with_old_cudnn(dir.path());
  int rc = 0;
  json j = answer_of("--yes --cuda-root " + dir.path().string() + " " + archive_args(json_test_archive()), &rc);
  // The corpus's libraries are not real ones: the verification after the install fails (5).
  EXPECT_TRUE(rc == 0 || rc == 5) << j.dump(2);
  EXPECT_EQ(j["schema"], "cudnn-install/2");
  EXPECT_EQ(j["kind"], "install");
  EXPECT_EQ(j["result"], "installed");
  EXPECT_EQ(j["changed"], true);
  EXPECT_EQ(j["dry_run"], false);
  EXPECT_GT(j["plan"]["totals"]["create"].get<int>(), 0);
  EXPECT_FALSE(j["transaction"]["id"].get<std::string>().empty());
  EXPECT_EQ(j["transaction"]["undo"][1], "--rollback");
  ASSERT_TRUE(j["verification"].is_object()) << j.dump(2);
  EXPECT_EQ(j["verification"]["ok"], rc == 0);
  EXPECT_EQ(j["integrity"]["verdict"], "match");

  json again =
      answer_of("--yes --no-verify --cuda-root " + dir.path().string() + " " + archive_args(json_test_archive()), &rc);
  EXPECT_EQ(rc, 0);
  EXPECT_EQ(again["result"], "already_installed");
  EXPECT_EQ(again["changed"], false);
  EXPECT_TRUE(again["transaction"].is_null());
}

TEST(CliJson, WithoutATerminalAndWithoutYesOneErrorObjectThatKeepsThePlan) {
  TempDir dir;
  make_tree_with_old_cudnn(dir.path());
  auto before = snapshot(dir.path());
  int rc = 0;
  json j =
      answer_of("--cuda-root " + dir.path().string() + " " + archive_args(json_test_archive()) + " </dev/null", &rc);
  EXPECT_EQ(rc, 1);
  EXPECT_EQ(j["kind"], "error");
  EXPECT_EQ(j["command"], "install");
  EXPECT_NE(j["message"].get<std::string>().find("--yes"), std::string::npos);
  EXPECT_TRUE(j["plan"].is_object());
  EXPECT_EQ(diff(before, snapshot(dir.path())), "");
}

TEST(CliJson, ADryRunIsOneInstallAnswerThatChangesNothing) {
  TempDir dir;
  make_tree_with_old_cudnn(dir.path());
  auto before = snapshot(dir.path());
  int rc = 0;
  json j = answer_of("--dry-run --cuda-root " + dir.path().string() + " " + archive_args(json_test_archive()), &rc);
  EXPECT_EQ(rc, 0);
  EXPECT_EQ(j["kind"], "install");
  EXPECT_EQ(j["dry_run"], true);
  EXPECT_EQ(j["result"], "dry_run");
  EXPECT_EQ(j["changed"], true);  // what the real run would do
  EXPECT_TRUE(j["transaction"].is_null());
  EXPECT_EQ(diff(before, snapshot(dir.path())), "");
}

TEST(CliJson, APreviewThatEndsInAnErrorStillSaysItWroteNothing) {
  TempDir dir;
  make_tree_with_old_cudnn(dir.path());
  int rc = 0;
  json missing =
      answer_of("--dry-run --cuda-root " + dir.path().string() + " " + (dir.path() / "no.tar.xz").string(), &rc);
  EXPECT_EQ(rc, 1);
  EXPECT_EQ(missing["kind"], "error");
  EXPECT_EQ(missing["command"], "install");
  EXPECT_EQ(missing["dry_run"], true) << missing.dump(2);
  json rollback = answer_of("--rollback --dry-run --cuda-root " + dir.path().string(), &rc);
  EXPECT_EQ(rollback["dry_run"], true) << rollback.dump(2);
  json real = answer_of("--cuda-root " + dir.path().string() + " " + (dir.path() / "no.tar.xz").string(), &rc);
  EXPECT_EQ(real["dry_run"], false) << real.dump(2);
}

TEST(CliJson, AFolderAsTheMirrorIsAUsageErrorThatNamesWhereItCameFrom) {
  int rc = 0;
  json flag = answer_of("list --cuda 13 --mirror /srv/redist", &rc);
  EXPECT_EQ(rc, 1);
  EXPECT_EQ(flag["code"], "usage");
  EXPECT_NE(flag["message"].get<std::string>().find("(--mirror) is not an http"), std::string::npos) << flag.dump(2);
  TempDir dir;
  make_tree_with_old_cudnn(dir.path());
  auto before = snapshot(dir.path());
  std::string out;
  rc = run_command(
      "CUDNN_INSTALL_MIRROR='C:\\mirror' " + cli() + " 9.19 --dry-run --cuda-root " + dir.path().string() + " 2>&1",
      &out);
  EXPECT_EQ(rc, 1) << out;
  EXPECT_NE(out.find("'C:\\mirror' (CUDNN_INSTALL_MIRROR) is not an http"), std::string::npos) << out;
  EXPECT_EQ(diff(before, snapshot(dir.path())), "");
}

TEST(CliJson, StatusRollbackAndUninstallAnswerOnceEach) {
  TempDir dir;
  make_tree_with_old_cudnn(dir.path());
  std::string root = dir.path().string();
  int rc = 0;
  json installed = answer_of("--yes --no-verify --cuda-root " + root + " " + archive_args(json_test_archive()), &rc);
  ASSERT_EQ(rc, 0) << installed.dump(2);
  json status = answer_of("status --cuda-root " + root, &rc);
  EXPECT_EQ(rc, 0);
  EXPECT_EQ(status["kind"], "status");
  EXPECT_EQ(status["toolkits"][0]["transactions"][0]["id"], installed["transaction"]["id"]);
  json rollback = answer_of("--rollback --yes --cuda-root " + root, &rc);
  EXPECT_EQ(rc, 0);
  EXPECT_EQ(rollback["kind"], "rollback");
  EXPECT_EQ(rollback["transaction"]["id"], installed["transaction"]["id"]);
  json nothing = answer_of("--rollback --yes --cuda-root " + root, &rc);
  EXPECT_EQ(rc, 6);
  EXPECT_EQ(nothing["kind"], "error");
  EXPECT_EQ(nothing["code"], "nothing-to-undo");

  ASSERT_EQ(answer_of("--yes --no-verify --cuda-root " + root + " " + archive_args(json_test_archive()), &rc)["kind"],
            "install");
  json uninstall = answer_of("uninstall --yes --cuda-root " + root, &rc);
  EXPECT_EQ(rc, 0);
  EXPECT_EQ(uninstall["kind"], "uninstall");
  EXPECT_EQ(uninstall["changed"], true);
  EXPECT_EQ(uninstall["undone"].size(), 1u);
  EXPECT_FALSE(uninstall["left_in_place"].empty());  // the older cuDNN of the tree, not installed by the tool
  json refused = answer_of("uninstall --cuda-root " + root + " </dev/null", &rc);
  EXPECT_EQ(rc, 1);
  EXPECT_EQ(refused["kind"], "error");
  EXPECT_EQ(refused["command"], "uninstall");
}

TEST(CliJson, BenchWithoutAGpuAndTheShapeList) {
  int rc = 0;
  json shapes = answer_of("bench --list-shapes --quick", &rc);
  EXPECT_EQ(rc, 0);
  EXPECT_EQ(shapes["kind"], "shapes");
  EXPECT_EQ(shapes["shapes"].size(), 3u);
  json bad = answer_of("bench --dtypes fp64", &rc);
  EXPECT_EQ(rc, 1);
  EXPECT_EQ(bad["command"], "bench");
}
