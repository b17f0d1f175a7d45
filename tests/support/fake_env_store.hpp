// An in-memory registry for the PATH tests. With `faults` set, every write and erase counts as
// one operation of that FaultyFileSystem, so the fault-at-every-operation tests reach it too.
#pragma once
#include <map>
#include <string>
#include <utility>

#include "cudnn_install/env.hpp"
#include "support/faulty_filesystem.hpp"

namespace cudnn_install::test {

// The bin directory of a default CUDA 12.4 install: the entry the PATH tests insert.
inline const std::u16string kCudaBin = u"C:\\Program Files\\NVIDIA GPU Computing Toolkit\\CUDA\\v12.4\\bin";

class FakeEnvStore final : public EnvStore {
 public:
  std::map<std::pair<EnvScope, std::string>, RegValue> values;
  FaultyFileSystem* faults = nullptr;
  int broadcasts = 0;

  Result<std::optional<RegValue>> read(EnvScope scope, std::string_view name) override {
    auto it = values.find({scope, std::string(name)});
    return it == values.end() ? std::optional<RegValue>() : std::optional(it->second);
  }
  Result<void> write(EnvScope scope, std::string_view name, const RegValue& value) override {
    if (faults)
      if (auto r = faults->tick("registry write", std::string(name)); !r) return r;
    values[{scope, std::string(name)}] = value;
    return {};
  }
  Result<void> erase(EnvScope scope, std::string_view name) override {
    if (faults)
      if (auto r = faults->tick("registry erase", std::string(name)); !r) return r;
    values.erase({scope, std::string(name)});
    return {};
  }
  void broadcast_change() override { ++broadcasts; }
};

}  // namespace cudnn_install::test
