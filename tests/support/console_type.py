#!/usr/bin/env python3
"""Types one command into an interactive Wine cmd on a console, as a person at a cmd window would.

Usage: console_type.py TIMEOUT QUESTION ANSWER LINE THEN...
Starts `wine cmd` in the current directory on a pseudo-terminal, so that the program sees a console
(GetConsoleMode succeeds, as in a real cmd window, where a pipe would not), waits for cmd's prompt,
types LINE and Enter; when QUESTION (unless empty) appears in the output, types ANSWER and Enter.
After the command it types each THEN line, the last of which should leave cmd (`exit N`); cmd's
exit code becomes this script's. Prints what the console showed, from the prompt with LINE to the
command's last line, its escape sequences taken out (the transcript the person would have seen)."""
import fcntl, os, pty, re, select, struct, sys, termios, time, tty

ESCAPE = re.compile(rb"\x1b\[(\d*)(?:;\d+)*([A-Za-z])|\x1b\[\?\d+[hl]|\x1b\][^\x07]*\x07")
PROMPT = re.compile(r"[A-Za-z]:\\[^\n>]*>")  # cmd's prompt, C:\Users\me\Downloads>


def clean(raw: bytes) -> str:
    """The text a person reads: cursor-forward moves are the console's spaces, other sequences go."""
    def spaces(m):
        return b" " * int(m.group(1) or 1) if m.group(2) == b"C" else b""
    lines = ESCAPE.sub(spaces, raw).decode("utf-8", "replace").split("\n")
    return "\n".join(overwritten(line.rstrip("\r").split("\r")) for line in lines)


def overwritten(parts):
    """What a line redrawn after carriage returns (a progress bar) finally shows."""
    shown = ""
    for part in parts:
        shown = part + shown[len(part):]
    return shown


class Console:
    def __init__(self, limit):
        self.deadline = time.monotonic() + limit
        self.raw = b""
        self.pid, self.fd = pty.fork()
        if self.pid == 0:
            tty.setraw(0)  # as the console keeps it: no echo or line editing by the terminal itself
            # Wine converts between the console and the terminal in the locale's character set:
            # UTF-8, so that letters outside ASCII are typed and shown as they are.
            os.environ["LC_ALL"] = "C.UTF-8"
            os.execvp("wine", ["wine", "cmd"])
        fcntl.ioctl(self.fd, termios.TIOCSWINSZ, struct.pack("HHHH", 50, 400, 0, 0))  # no wrapped lines

    def text(self):
        return clean(self.raw).rstrip(" ")

    def read_until(self, done):
        """Reads until done(text) holds; False when the console closed first."""
        while not done(self.text()):
            left = self.deadline - time.monotonic()
            if left <= 0:
                sys.stderr.write("console_type: timed out; the console showed:\n" + self.text() + "\n")
                os.kill(self.pid, 9)
                sys.exit(124)
            if select.select([self.fd], [], [], min(left, 0.5))[0]:
                try:
                    chunk = os.read(self.fd, 65536)
                except OSError:  # the other side closed
                    return False
                if not chunk:
                    return False
                self.raw += chunk
        return True

    def type(self, line):
        os.write(self.fd, line.encode("utf-8") + b"\r")

    def exit_code(self):
        return os.waitstatus_to_exitcode(os.waitpid(self.pid, 0)[1])


def at_prompt(text, start):
    """Whether the console's last line, after start, is cmd's prompt waiting for a command."""
    return PROMPT.fullmatch(text[max(start, text.rfind("\n") + 1):]) is not None


def main():
    limit, question, answer, line, then = float(sys.argv[1]), sys.argv[2], sys.argv[3], sys.argv[4], sys.argv[5:]
    console = Console(limit)
    console.read_until(lambda t: at_prompt(t, 0))
    start = console.text().rfind("\n") + 1  # the line of the prompt that LINE is typed at
    console.type(line)
    asked = False

    def command_done(t):
        nonlocal asked
        if question and not asked and question in t[start:]:
            asked = True
            console.type(answer)
        return "\n" in t[start:] and at_prompt(t, start)

    console.read_until(command_done)
    shown = console.text()[start:]
    shown = shown[: shown.rfind("\n") + 1]  # without the next prompt
    for after in then:
        console.type(after)
    console.read_until(lambda t: False)
    sys.stdout.write(shown)
    sys.exit(console.exit_code())


main()
