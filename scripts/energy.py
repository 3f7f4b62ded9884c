#!/usr/bin/env python3
"""Energy a command costs the GPU, from NVML's total-energy counter (millijoules since the driver
loaded), read through ctypes (the GPU machine has the driver's libnvidia-ml, no pynvml).

    python3 scripts/energy.py <label> -- <command> [args...]

Appends one JSON line {"label", "mj", "s", "rc"} to $ENERGY_LOG (stdout without it): the
counter's and the wall clock's difference over the command, whose own output passes through.
A benchmark run's setup (weights made and uploaded, graphs captured) is in both, so
perf-session.sh runs each case twice with different replay counts and divides the differences
by the extra GEMMs: energy and time a GEMM in steady state, setup cancelled. `energy_mj` is
also imported by energy_bytes.py."""
import ctypes
import json
import os
import subprocess
import sys
import time

_nvml = None
_dev = ctypes.c_void_p()


def _check(rc, what):
    if rc != 0:
        sys.exit(f"energy.py: {what} failed with NVML status {rc}")


def energy_mj():
    """NVML's total-energy counter of GPU 0, in millijoules."""
    global _nvml
    if _nvml is None:
        _nvml = ctypes.CDLL("libnvidia-ml.so.1")
        _check(_nvml.nvmlInit_v2(), "nvmlInit_v2")
        _check(_nvml.nvmlDeviceGetHandleByIndex_v2(0, ctypes.byref(_dev)), "nvmlDeviceGetHandleByIndex_v2")
    e = ctypes.c_ulonglong()
    _check(_nvml.nvmlDeviceGetTotalEnergyConsumption(_dev, ctypes.byref(e)), "nvmlDeviceGetTotalEnergyConsumption")
    return e.value


def main():
    if len(sys.argv) < 4 or sys.argv[2] != "--":
        sys.exit(__doc__)
    label, cmd = sys.argv[1], sys.argv[3:]
    e0, t0 = energy_mj(), time.monotonic()
    rc = subprocess.call(cmd)
    e1, t1 = energy_mj(), time.monotonic()
    line = json.dumps({"label": label, "mj": e1 - e0, "s": round(t1 - t0, 4), "rc": rc})
    log = os.environ.get("ENERGY_LOG")
    if log:
        with open(log, "a") as f:
            print(line, file=f)
    else:
        print(line, flush=True)


if __name__ == "__main__":
    main()
