// PyTorch and TensorFlow found by their own files, in fixture environments written here.
#include <gtest/gtest.h>

#include "cudnn_install/frameworks.hpp"
#include "support/sandbox.hpp"

using namespace cudnn_install;
using namespace cudnn_install::test;
namespace fs = std::filesystem;

namespace {

// What torch 2.5.1 from https://download.pytorch.org/whl/cu124 ships as torch/version.py.
const char* kTorchCu124 =
    "from typing import Optional\n\n__all__ = ['__version__', 'debug', 'cuda', 'git_version', 'hip']\n"
    "__version__ = '2.5.1+cu124'\ndebug = False\ncuda: Optional[str] = '12.4'\n"
    "git_version = 'a8d6afb511a69687bbb2b7e88a3cf67917e1697e'\nhip: Optional[str] = None\n";
const char* kTorchCpu =
    "__version__ = '2.5.1+cpu'\ndebug = False\ncuda: Optional[str] = None\nhip: Optional[str] = None\n";
// TensorFlow 2.15's build_info.py (tuple form), and the dict form of older releases.
const char* kTfTuples =
    "import collections\nbuild_info = collections.OrderedDict([('cpu_compiler', '/usr/lib/llvm-16/bin/clang'), "
    "('cuda_compute_capabilities', ['sm_50', 'sm_60', 'sm_70', 'sm_80', 'compute_90']), ('cuda_version', '12.2'), "
    "('cudnn_version', '8'), ('is_cuda_build', True), ('is_rocm_build', False), ('is_tensorrt_build', True)])\n";
const char* kTfDict =
    "build_info = {\n  \"cuda_version\": \"11.2\",\n  \"cudnn_version\": \"8\",\n  \"is_cuda_build\": True,\n}\n";
const char* kTfCpu = "build_info = collections.OrderedDict([('is_cuda_build', False), ('is_rocm_build', False)])\n";

#ifdef _WIN32
constexpr char kSep = ';';
#else
constexpr char kSep = ':';
#endif

}  // namespace

TEST(Frameworks, TorchVersionPy) {
  auto cu = parse_torch_version_py(kTorchCu124);
  ASSERT_TRUE(cu);
  EXPECT_EQ(cu->name, "PyTorch");
  EXPECT_EQ(cu->version, "2.5.1+cu124");
  EXPECT_EQ(cu->cuda, "12.4");
  EXPECT_EQ(cu->cuda_major(), 12);
  auto cpu = parse_torch_version_py(kTorchCpu);
  ASSERT_TRUE(cpu);
  EXPECT_EQ(cpu->cuda, "");
  EXPECT_FALSE(cpu->cuda_major());
  EXPECT_FALSE(parse_torch_version_py("x = 1\n"));
}

TEST(Frameworks, TensorflowBuildInfo) {
  auto t = parse_tensorflow_build_info(kTfTuples);
  ASSERT_TRUE(t);
  EXPECT_EQ(t->cuda, "12.2");
  EXPECT_EQ(t->cudnn_major, 8);
  auto d = parse_tensorflow_build_info(kTfDict);
  ASSERT_TRUE(d);
  EXPECT_EQ(d->cuda_major(), 11);
  auto cpu = parse_tensorflow_build_info(kTfCpu);
  ASSERT_TRUE(cpu);
  EXPECT_FALSE(cpu->cuda_major());
  EXPECT_FALSE(parse_tensorflow_build_info("nothing here"));
}

// A virtualenv is looked at first; then the environment of the first python3 on PATH.
TEST(Frameworks, FoundInTheVirtualenvAndThroughThePythonOnPath) {
  TempDir dir;
  fs::path venv_site = dir.path() / "venv/lib/python3.11/site-packages";
  write_file(venv_site / "torch/version.py", kTorchCu124);
  fs::path conda = dir.path() / "conda";
  write_file(conda / "bin/python3", "");
  fs::path conda_site = conda / "lib/python3.12/site-packages";
  write_file(conda_site / "torch/version.py", kTorchCpu);  // hidden by the venv's
  write_file(conda_site / "tensorflow/python/platform/build_info.py", kTfTuples);
  fs::create_directories(conda_site / "tensorflow-2.15.0.dist-info");

  PythonEnvironment env{(dir.path() / "venv").string(), "",
                        "/nonexistent" + std::string(1, kSep) + (conda / "bin").string(), "", kSep};
  auto dirs = site_packages_dirs(env);
  ASSERT_EQ(dirs.size(), 2u);
  EXPECT_EQ(dirs[0], venv_site);
  EXPECT_EQ(dirs[1], conda_site);
  auto found = find_frameworks(dirs);
  ASSERT_EQ(found.size(), 2u);
  EXPECT_EQ(found[0].version, "2.5.1+cu124");
  EXPECT_EQ(fs::path(found[0].where), venv_site / "torch");
  EXPECT_EQ(found[1].name, "TensorFlow");
  EXPECT_EQ(found[1].version, "2.15.0");
  EXPECT_EQ(found[1].cuda, "12.2");
}

TEST(Frameworks, WindowsLayoutAndNoPythonAtAll) {
  TempDir dir;
  fs::path py = dir.path() / "Python312";
  write_file(py / "python.exe", "");
  write_file(py / "Lib/site-packages/torch/version.py", kTorchCu124);
  PythonEnvironment env{"", "", (dir.path() / "empty").string() + ";" + py.string(), "", ';'};
  auto found = find_frameworks(site_packages_dirs(env));
  ASSERT_EQ(found.size(), 1u);
  EXPECT_EQ(found[0].cuda, "12.4");
  EXPECT_TRUE(find_frameworks(site_packages_dirs(PythonEnvironment{"", "", "/nonexistent", "", ':'})).empty());
}
