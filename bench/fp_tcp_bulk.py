#!/usr/bin/python3
# SPDX-License-Identifier: GPL-2.0-only
"""Tiny TCP bulk sender/receiver for the benchmark (no iperf3 on the machine).

  fp_tcp_bulk.py server ADDR PORT TIMEOUT_S   prints {"ready"}, then {"bytes", "elapsed_s"}
  fp_tcp_bulk.py client ADDR PORT DURATION_S  sends for DURATION_S, prints {"sent"}
The receiver measures from the first byte to EOF, so connection set-up is not counted.
"""
import json
import socket
import sys
import time


def server(addr, port, timeout):
    ls = socket.socket(socket.AF_INET, socket.SOCK_STREAM)
    ls.setsockopt(socket.SOL_SOCKET, socket.SO_REUSEADDR, 1)
    ls.bind((addr, port))
    ls.listen(1)
    ls.settimeout(timeout)
    print(json.dumps({"ready": True}), flush=True)
    try:
        c, _ = ls.accept()
    except socket.timeout:
        print(json.dumps({"error": "no connection"}), flush=True)
        return 1
    c.settimeout(timeout)
    buf = bytearray(1 << 18)
    total, first = 0, None
    deadline = time.monotonic() + timeout
    while time.monotonic() < deadline:
        try:
            n = c.recv_into(buf)
        except socket.timeout:
            break
        if n == 0:
            break
        if first is None:
            first = time.monotonic()
        total += n
    end = time.monotonic()
    print(json.dumps({"bytes": total, "elapsed_s": max(1e-6, end - (first or end))}), flush=True)
    return 0


def client(addr, port, duration):
    s = socket.create_connection((addr, port), timeout=5)
    s.settimeout(duration + 5)
    chunk = b"\0" * (1 << 17)
    sent, end = 0, time.monotonic() + duration
    try:
        while time.monotonic() < end:
            sent += s.send(chunk)
        s.shutdown(socket.SHUT_WR)
        s.recv(1)  # wait for the receiver to close
    except OSError as e:
        print(json.dumps({"sent": sent, "error": str(e)}), flush=True)
        return 1
    s.close()
    print(json.dumps({"sent": sent}), flush=True)
    return 0


if __name__ == "__main__":
    mode, addr, port, t = sys.argv[1], sys.argv[2], int(sys.argv[3]), float(sys.argv[4])
    sys.exit(server(addr, port, t) if mode == "server" else client(addr, port, t))
