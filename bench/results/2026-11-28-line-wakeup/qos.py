#!/usr/bin/python3
"""qos.py global|cpuN CMD...: runs CMD holding a PM QoS request (idle states with exit latency 0 only)."""
import os, struct, subprocess, sys
mode, cmd = sys.argv[1], sys.argv[2:]
restore = None
if mode == "global":
    fd = os.open("/dev/cpu_dma_latency", os.O_WRONLY)
    os.write(fd, struct.pack("i", 0))
elif mode.startswith("cpu"):
    path = f"/sys/devices/system/cpu/{mode}/power/pm_qos_resume_latency_us"
    restore = open(path).read().strip()
    open(path, "w").write("n/a")
try:
    rc = subprocess.call(cmd)
finally:
    if restore is not None:
        open(path, "w").write("0" if restore == "n/a" else restore)
sys.exit(rc)
