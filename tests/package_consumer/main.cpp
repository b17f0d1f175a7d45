#include <cstdio>

#include "cudnn_install/archive_name.hpp"

int main() {
  auto name = cudnn_install::parse_archive_name("cudnn-windows-x86_64-8.9.5.30_cuda12-archive.zip");
  std::printf("%s cuda%d\n", name ? name->version.to_string().c_str() : "?", name ? name->cuda.major : 0);
  return name ? 0 : 1;
}
