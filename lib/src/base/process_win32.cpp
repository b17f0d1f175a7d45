// The process runner on Windows: CreateProcessW (no cmd.exe), stdin from NUL, stdout and stderr
// through two overlapped named pipes that one loop drains together until the deadline. (Anonymous
// pipes cannot be waited on, and a thread blocked in ReadFile cannot be stopped portably.)
#include <windows.h>

#include <atomic>
#include <cstdio>

#include "base/try.hpp"
#include "base/util.hpp"
#include "base/win32_util.hpp"
#include "cudnn_install/process.hpp"

namespace fs = std::filesystem;
using Clock = std::chrono::steady_clock;

namespace cudnn_install {
namespace {

constexpr DWORD kPipeBytes = 65536;

// One argument quoted as CommandLineToArgvW (and the C runtime) reads it back.
std::wstring quoted(const std::wstring& arg) {
  std::wstring out = L"\"";
  for (size_t i = 0; i < arg.size(); ++i) {
    size_t slashes = 0;
    while (i < arg.size() && arg[i] == L'\\') {
      ++slashes;
      ++i;
    }
    if (i == arg.size()) {
      out.append(slashes * 2, L'\\');
      break;
    }
    out.append(arg[i] == L'"' ? slashes * 2 + 1 : slashes, L'\\');
    out.push_back(arg[i]);
  }
  return out + L"\"";
}

std::wstring command_line(const std::vector<std::string>& argv) {
  std::wstring line;
  for (const auto& a : argv) line += (line.empty() ? L"" : L" ") + quoted(win32::widen(a));
  return line;
}

// Our end of one output pipe: overlapped reads, each completion signalled on `event`.
class PipeReader {
 public:
  PipeReader(win32::Handle read, std::string& into, std::size_t limit)
      : read_(std::move(read)), event_(CreateEventW(nullptr, TRUE, FALSE, nullptr)), into_(into), limit_(limit) {}
  PipeReader(const PipeReader&) = delete;
  PipeReader& operator=(const PipeReader&) = delete;
  ~PipeReader() { cancel(); }

  bool open() const { return open_; }
  HANDLE event() const { return event_.get(); }

  // Reads until a read is pending or the pipe has ended (the child closed its end).
  void pump() {
    while (open_ && !pending_) {
      ResetEvent(event_.get());
      overlapped_ = OVERLAPPED{};
      overlapped_.hEvent = event_.get();
      if (ReadFile(read_.get(), buffer_, kPipeBytes, nullptr, &overlapped_) || GetLastError() == ERROR_IO_PENDING) {
        pending_ = true;
        collect(FALSE);
      } else {
        open_ = false;
      }
    }
  }
  // After `event` was signalled.
  void completed() {
    collect(FALSE);
    pump();
  }

 private:
  // Takes the bytes of the pending read when it has finished (or, with `wait`, once it has).
  void collect(BOOL wait) {
    DWORD n = 0;
    if (GetOverlappedResult(read_.get(), &overlapped_, &n, wait)) {
      pending_ = false;
      into_.append(buffer_, std::min<std::size_t>(n, limit_ - std::min(limit_, into_.size())));
    } else if (GetLastError() != ERROR_IO_INCOMPLETE) {
      pending_ = false;
      open_ = false;  // ERROR_BROKEN_PIPE: the end
    }
  }
  // The buffer must outlive a read in flight: cancel it and wait until it is done.
  void cancel() {
    if (!pending_) return;
    CancelIoEx(read_.get(), &overlapped_);
    collect(TRUE);
  }

  win32::Handle read_, event_;
  std::string& into_;
  std::size_t limit_;
  OVERLAPPED overlapped_{};
  char buffer_[kPipeBytes];
  bool open_ = true, pending_ = false;
};

struct ChildPipe {
  win32::Handle ours, theirs;  // ours: overlapped, not inherited; theirs: the child's stdout or stderr
};

Result<ChildPipe> make_pipe() {
  static std::atomic<unsigned> counter{0};
  wchar_t name[96];
  std::swprintf(name, 96, L"\\\\.\\pipe\\cudnn-install-%lu-%u-%llu", GetCurrentProcessId(), counter++,
                static_cast<unsigned long long>(GetTickCount64()));
  HANDLE ours =
      CreateNamedPipeW(name, PIPE_ACCESS_INBOUND | FILE_FLAG_OVERLAPPED | FILE_FLAG_FIRST_PIPE_INSTANCE,
                       PIPE_TYPE_BYTE | PIPE_WAIT | PIPE_REJECT_REMOTE_CLIENTS, 1, kPipeBytes, kPipeBytes, 0, nullptr);
  if (ours == INVALID_HANDLE_VALUE)
    return fail(ErrorCode::Io, "cannot create a pipe to a child process: " + win32::error_text(GetLastError()));
  SECURITY_ATTRIBUTES inherit{sizeof inherit, nullptr, TRUE};
  HANDLE theirs = CreateFileW(name, GENERIC_WRITE, 0, &inherit, OPEN_EXISTING, FILE_ATTRIBUTE_NORMAL, nullptr);
  if (theirs == INVALID_HANDLE_VALUE) {
    CloseHandle(ours);
    return fail(ErrorCode::Io, "cannot connect a pipe to a child process: " + win32::error_text(GetLastError()));
  }
  return ChildPipe{win32::Handle(ours), win32::Handle(theirs)};
}

Result<win32::Handle> null_input() {
  SECURITY_ATTRIBUTES inherit{sizeof inherit, nullptr, TRUE};
  HANDLE nul =
      CreateFileW(L"NUL", GENERIC_READ, FILE_SHARE_READ | FILE_SHARE_WRITE, &inherit, OPEN_EXISTING, 0, nullptr);
  if (nul == INVALID_HANDLE_VALUE)
    return fail(ErrorCode::Io, "cannot open NUL for a child process: " + win32::error_text(GetLastError()));
  return win32::Handle(nul);
}

Result<win32::Handle> start(const std::vector<std::string>& argv, HANDLE in, HANDLE out, HANDLE err) {
  STARTUPINFOW si{};
  si.cb = sizeof si;
  si.dwFlags = STARTF_USESTDHANDLES;
  si.hStdInput = in;
  si.hStdOutput = out;
  si.hStdError = err;
  std::wstring line = command_line(argv);
  // A bare name is searched for as Windows does (with .exe appended); a path is taken as it is.
  std::wstring program = win32::widen(argv[0]);
  bool search = program.find_first_of(L"\\/:") == std::wstring::npos;
  PROCESS_INFORMATION pi{};
  if (!CreateProcessW(search ? nullptr : program.c_str(), line.data(), nullptr, nullptr, TRUE, CREATE_NO_WINDOW,
                      nullptr, nullptr, &si, &pi))
    return fail(ErrorCode::Io, "cannot start '" + argv[0] + "': " + win32::error_text(GetLastError()), argv[0]);
  CloseHandle(pi.hThread);
  return win32::Handle(pi.hProcess);
}

DWORD millis_until(Clock::time_point deadline) {
  auto left = std::chrono::ceil<std::chrono::milliseconds>(deadline - Clock::now()).count();
  return left <= 0 ? 0 : static_cast<DWORD>(left);
}

// Both pipes at once until both ended; false when the deadline came first.
bool drain(PipeReader& out, PipeReader& err, Clock::time_point deadline) {
  out.pump();
  err.pump();
  while (out.open() || err.open()) {
    PipeReader* readers[2];
    HANDLE events[2];
    DWORD count = 0;
    for (PipeReader* r : {&out, &err})
      if (r->open()) {
        readers[count] = r;
        events[count++] = r->event();
      }
    DWORD woke = WaitForMultipleObjects(count, events, FALSE, millis_until(deadline));
    if (woke >= WAIT_OBJECT_0 + count) return false;  // the deadline (or a wait that failed)
    readers[woke - WAIT_OBJECT_0]->completed();
  }
  return true;
}

Result<ProcessOutput> run_process(const std::vector<std::string>& argv, const RunOptions& options) {
  if (argv.empty() || argv[0].empty()) return fail(ErrorCode::Usage, "no program to run");
  TRY_ASSIGN(ChildPipe out, make_pipe());
  TRY_ASSIGN(ChildPipe err, make_pipe());
  TRY_ASSIGN(win32::Handle in, null_input());
  auto deadline = Clock::now() + options.timeout;
  TRY_ASSIGN(win32::Handle process, start(argv, in.get(), out.theirs.get(), err.theirs.get()));
  out.theirs.reset();  // the child holds the only write ends now: its exit ends the pipes
  err.theirs.reset();
  ProcessOutput output;
  bool in_time = false;
  {
    PipeReader out_reader(std::move(out.ours), output.out, options.max_output_bytes);
    PipeReader err_reader(std::move(err.ours), output.err, options.max_output_bytes);
    in_time = drain(out_reader, err_reader, deadline) &&
              WaitForSingleObject(process.get(), millis_until(deadline)) == WAIT_OBJECT_0;
  }
  if (!in_time) {
    TerminateProcess(process.get(), 1);
    WaitForSingleObject(process.get(), INFINITE);
    output.end = ProcessOutput::End::TimedOut;
    return output;
  }
  DWORD code = 0;
  GetExitCodeProcess(process.get(), &code);
  output.end = code >= 0xC0000000 ? ProcessOutput::End::Crashed : ProcessOutput::End::Exited;
  output.code = static_cast<long>(code);
  return output;
}

class Win32ProcessRunner final : public ProcessRunner {
 public:
  Result<ProcessOutput> run(const std::vector<std::string>& argv, const RunOptions& options) override {
    return run_process(argv, options);
  }
};

const char* exception_name(DWORD code) {
  switch (code) {
    case 0xC0000005:
      return "access violation";
    case 0xC0000409:
      return "stack buffer overrun / abort";
    case 0xC0000135:
      return "a DLL it needs was not found";
    case 0xC000007B:
      return "a 32-bit or corrupt DLL";
    default:
      return "exception";
  }
}

}  // namespace

std::string ProcessOutput::describe() const {
  char hex[16];
  std::snprintf(hex, sizeof hex, "0x%08lX", static_cast<unsigned long>(code));
  switch (end) {
    case End::Exited:
      return "exit status " + std::to_string(code);
    case End::Crashed:
      return std::string(exception_name(static_cast<DWORD>(code))) + ", " + hex;
    case End::TimedOut:
      return "killed after running past its time limit";
  }
  return "unknown";
}

std::unique_ptr<ProcessRunner> make_process_runner() { return std::make_unique<Win32ProcessRunner>(); }

fs::path current_executable() {
  std::wstring buf(32768, L'\0');
  DWORD n = GetModuleFileNameW(nullptr, buf.data(), static_cast<DWORD>(buf.size()));
  buf.resize(n);
  return fs::path(buf);
}

bool util::process_running(long pid) {
  if (pid <= 0) return false;
  HANDLE process = OpenProcess(SYNCHRONIZE | PROCESS_QUERY_LIMITED_INFORMATION, FALSE, static_cast<DWORD>(pid));
  if (!process) return GetLastError() == ERROR_ACCESS_DENIED;  // exists, but not ours to open
  bool running = WaitForSingleObject(process, 0) == WAIT_TIMEOUT;
  CloseHandle(process);
  return running;
}

}  // namespace cudnn_install
