// UTF-8 text from the wide Windows APIs (the environment and the command line) and to the
// console (WriteConsoleW).
#include <windows.h>
// windows.h first: shellapi.h needs its types.
#include <shellapi.h>

#include <cstdlib>
#include <iostream>
#include <memory>
#include <streambuf>
#include <vector>

#include "base/win32_util.hpp"
#include "cudnn_install/utf8.hpp"

namespace cudnn_install {

std::optional<std::string> environment_variable(const char* name) {
  const wchar_t* value = _wgetenv(win32::widen(name).c_str());
  if (!value || !*value) return std::nullopt;
  return win32::narrow(value);
}

std::vector<std::string> command_line_arguments(int argc, char** argv) {
  int count = 0;
  wchar_t** wide = CommandLineToArgvW(GetCommandLineW(), &count);
  if (!wide) return {argv, argv + argc};
  std::vector<std::string> out;
  out.reserve(static_cast<std::size_t>(count));
  for (int i = 0; i < count; ++i) out.push_back(win32::narrow(wide[i]));
  LocalFree(wide);
  return out;
}

namespace win32 {  // not anonymous: Utf8Console::Streams holds them

// A console's stream: the UTF-8 written to it is shown through WriteConsoleW as it comes (so that
// it keeps its order with what other writers put on the console), but for a sequence cut between
// two writes, which waits for its rest.
class ConsoleBuffer : public std::streambuf {
 public:
  explicit ConsoleBuffer(HANDLE console) : console_(console) {}
  ~ConsoleBuffer() override { show(pending_.size()); }  // a cut sequence left at the end: U+FFFD
  ConsoleBuffer(const ConsoleBuffer&) = delete;
  ConsoleBuffer& operator=(const ConsoleBuffer&) = delete;

 protected:
  int_type overflow(int_type c) override {
    if (traits_type::eq_int_type(c, traits_type::eof())) return traits_type::not_eof(c);
    char byte = traits_type::to_char_type(c);
    return xsputn(&byte, 1) == 1 ? c : traits_type::eof();
  }
  std::streamsize xsputn(const char* text, std::streamsize size) override {
    pending_.append(text, static_cast<std::size_t>(size));
    return show(whole_utf8_prefix(pending_)) ? size : 0;
  }

 private:
  // Shows the first `size` bytes of pending_ and drops them; false when the console refused them.
  bool show(std::size_t size) {
    if (size == 0) return true;
    std::wstring wide = win32::widen(std::string_view(pending_).substr(0, size));
    pending_.erase(0, size);
    DWORD written = 0;
    return WriteConsoleW(console_, wide.data(), static_cast<DWORD>(wide.size()), &written, nullptr) != 0;
  }

  HANDLE console_;
  std::string pending_;
};

// One stream put on a console buffer, and put back.
struct Redirected {
  std::ostream* stream;
  std::streambuf* saved;
};

}  // namespace win32

struct Utf8Console::Streams {
  std::vector<std::unique_ptr<win32::ConsoleBuffer>> buffers;
  std::vector<win32::Redirected> redirected;

  void put_on(HANDLE console, std::ostream& stream) {
    if (!console) return;
    stream.flush();
    buffers.push_back(std::make_unique<win32::ConsoleBuffer>(console));
    redirected.push_back({&stream, stream.rdbuf(buffers.back().get())});
  }
};

Utf8Console::Utf8Console() : streams_(std::make_unique<Streams>()) {
  UINT current = GetConsoleOutputCP();  // 0 without a console
  if (current != 0 && current != CP_UTF8 && SetConsoleOutputCP(CP_UTF8)) saved_code_page_ = current;
  streams_->put_on(win32::std_console(STD_OUTPUT_HANDLE), std::cout);
  HANDLE error_console = win32::std_console(STD_ERROR_HANDLE);
  streams_->put_on(error_console, std::cerr);
  streams_->put_on(error_console, std::clog);
}

Utf8Console::~Utf8Console() {
  for (const win32::Redirected& r : streams_->redirected) {
    r.stream->flush();
    r.stream->rdbuf(r.saved);
  }
  streams_.reset();
  if (saved_code_page_ != 0) SetConsoleOutputCP(saved_code_page_);
}

}  // namespace cudnn_install
