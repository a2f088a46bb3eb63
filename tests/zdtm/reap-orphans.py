#!/usr/bin/python3
# reap-orphans.py CMD [ARGS...] - run CMD as a child subreaper's child and reap every orphan
# that lands on us while it runs; exit with CMD's status. Where pid 1 does not reap (some
# containers), a daemonized zdtm test that criu dumped (killed) stays a zombie and holds its pid,
# so zdtm waits for it in vain and criu cannot restore it; under this runner it goes at once.
import ctypes
import os
import sys

PR_SET_CHILD_SUBREAPER = 36
if ctypes.CDLL(None, use_errno=True).prctl(PR_SET_CHILD_SUBREAPER, 1, 0, 0, 0) != 0:
    sys.exit("reap-orphans: prctl(PR_SET_CHILD_SUBREAPER): %s" % os.strerror(ctypes.get_errno()))
child = os.fork()
if child == 0:
    try:
        os.execvp(sys.argv[1], sys.argv[1:])
    finally:
        os._exit(127)
while True:
    pid, status = os.wait()
    if pid == child:
        code = os.waitstatus_to_exitcode(status)
        sys.exit(code if code >= 0 else 128 - code)
