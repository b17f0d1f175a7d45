#!/usr/bin/env python3
"""Runs a command on a pseudo-terminal, answers its first "Proceed?" with ANSWER, prints what it
wrote and exits with its exit code: how the tests see a confirmation as a person at a terminal does.

usage: pty_run.py ANSWER COMMAND [ARG...]"""
import os
import pty
import sys


def main():
    answer, argv = sys.argv[1].encode(), sys.argv[2:]
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
        if not sent and b"Proceed?" in out:
            os.write(fd, answer + b"\n")
            sent = True
    _, status = os.waitpid(pid, 0)
    sys.stdout.write(out.decode(errors="replace"))
    sys.exit(os.waitstatus_to_exitcode(status))


main()
