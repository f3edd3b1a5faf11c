#!/usr/bin/env python3
"""Runs one command and measures it for `npm run bench`: the command's own CPU seconds and peak RSS, and the CPU
seconds of every process it started, however detached.

This process becomes a child subreaper (prctl PR_SET_CHILD_SUBREAPER), so servers and scripts that leave their
parent (setsid, double fork) are re-parented here and reaped here: getrusage(RUSAGE_CHILDREN) then holds the CPU
time of the whole tree. The command's own CPU time is read from /proc/<pid>/stat while it is a zombie (utime and
stime of that process alone), its peak RSS from VmHWM, sampled until it exits.

Usage: bench-reaper.py <json-out> <command> [args...]   (the command's stdout and stderr pass through)
"""
import ctypes
import json
import os
import resource
import signal
import subprocess
import sys
import time

PR_SET_CHILD_SUBREAPER = 36
TICKS = os.sysconf('SC_CLK_TCK')


def own_cpu_seconds(pid):
    with open(f'/proc/{pid}/stat') as f:
        fields = f.read().rsplit(')', 1)[1].split()
    # Fields after the command name: state is field 3, so utime (14) and stime (15) are at 11 and 12 here.
    return (int(fields[11]) + int(fields[12])) / TICKS


def hwm_kib(pid):
    try:
        with open(f'/proc/{pid}/status') as f:
            for line in f:
                if line.startswith('VmHWM:'):
                    return int(line.split()[1])
    except OSError:
        pass
    return None


def main():
    out, command = sys.argv[1], sys.argv[2:]
    libc = ctypes.CDLL(None, use_errno=True)
    if libc.prctl(PR_SET_CHILD_SUBREAPER, 1, 0, 0, 0) != 0:
        sys.exit('bench-reaper: prctl(PR_SET_CHILD_SUBREAPER) failed')
    child = subprocess.Popen(command)
    # Ctrl+C or a stop from the bench goes to the command, which ends its own way (servelab run cancels the study).
    for sig in (signal.SIGINT, signal.SIGTERM):
        signal.signal(sig, lambda s, _frame: child.send_signal(s))
    peak = 0
    while True:
        # WNOWAIT: the command stays a zombie, so its own CPU time can still be read.
        info = os.waitid(os.P_PID, child.pid, os.WEXITED | os.WNOHANG | os.WNOWAIT)
        if info is not None:
            break
        peak = max(peak, hwm_kib(child.pid) or 0)
        time.sleep(0.2)
    core_cpu = own_cpu_seconds(child.pid)
    code = child.wait()
    # Whatever the command left behind ends here (bounded: a process left running is reported, not waited for).
    deadline = time.time() + 20
    left = False
    while True:
        try:
            pid, _ = os.waitpid(-1, os.WNOHANG)
        except ChildProcessError:
            break
        if pid == 0:
            if time.time() > deadline:
                left = True
                break
            time.sleep(0.1)
    tree = resource.getrusage(resource.RUSAGE_CHILDREN)
    with open(out, 'w') as f:
        json.dump({'code': code, 'coreCpuSeconds': core_cpu, 'corePeakRssKiB': peak, 'treeCpuSeconds': tree.ru_utime + tree.ru_stime, 'leftRunning': left}, f)
    sys.exit(code)


main()
