// UTF-8 helpers that every platform shares.
#include "cudnn_install/utf8.hpp"

namespace cudnn_install {

namespace {

// The length a lead byte announces; 0 for a continuation byte, 1 for ASCII and for bytes that
// cannot start a sequence.
std::size_t announced_length(unsigned char lead) {
  if ((lead & 0xC0) == 0x80) return 0;
  if ((lead & 0xE0) == 0xC0) return 2;
  if ((lead & 0xF0) == 0xE0) return 3;
  if ((lead & 0xF8) == 0xF0) return 4;
  return 1;
}

}  // namespace

std::size_t whole_utf8_prefix(std::string_view text) {
  // Only the last three bytes can belong to a sequence that is not finished yet.
  std::size_t size = text.size();
  for (std::size_t back = 1; back <= 3 && back <= size; ++back) {
    std::size_t length = announced_length(static_cast<unsigned char>(text[size - back]));
    if (length == 0) continue;  // a continuation byte: its lead is further back
    return length > back ? size - back : size;
  }
  return size;
}

}  // namespace cudnn_install
