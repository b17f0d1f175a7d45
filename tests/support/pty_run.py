#!/usr/bin/env python3
"""Runs a command on a pseudo-terminal, answers its first "Proceed? [y/N]" with ANSWER and Enter,
prints what it wrote and exits with its exit code: how the tests see a confirmation as a person at a
terminal does. A Windows program under Wine gets a console on that terminal, whose output carries
escape sequences between the characters (a space is a cursor move): they and the white space are
left out when looking for the prompt.

usage: pty_run.py [--before-answer SHELL_COMMAND | --signal-at-prompt SIGNAL] ANSWER COMMAND [ARG...]

--before-answer runs SHELL_COMMAND (to completion) while the prompt waits, before answering: a
second process changing the tree while the user reads the prompt. --signal-at-prompt sends SIGNAL
(INT, TERM, HUP) to the command instead of answering: Ctrl-C (or a kill) while the prompt waits."""
import os
import re
import pty
import signal
import subprocess
import sys


def main():
    args, before, sig = sys.argv[1:], None, None
    if args[0] == "--before-answer":
        before, args = args[1], args[2:]
    elif args[0] == "--signal-at-prompt":
        sig, args = getattr(signal, "SIG" + args[1]), args[2:]
    answer, argv = args[0].encode(), args[1:]
    pid, fd = pty.fork()
    if pid == 0:
        os.execvp(argv[0], argv)
    out, sent = b"", False
    while True:
        try:
            data = os.read(fd, 4096)
        except OSError:  # EIO: the child closed the terminal
            break
        if not data:
            break
        out += data
        if not sent and b"Proceed?[y/N]" in re.sub(rb"\x1b\[[0-9;?]*[A-Za-z]|\s", b"", out):
            if before is not None:
                subprocess.run(before, shell=True, check=True)
            if sig is not None:
                os.kill(pid, sig)
            else:
                os.write(fd, answer + b"\r")  # Enter: a console takes CR; a terminal turns it into LF
            sent = True
    _, status = os.waitpid(pid, 0)
    sys.stdout.write(out.decode(errors="replace"))
    sys.exit(os.waitstatus_to_exitcode(status))


main()
