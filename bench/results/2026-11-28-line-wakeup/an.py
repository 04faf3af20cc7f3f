#!/usr/bin/python3
"""Per ping through the N=2 line: the time of each step (us) from perf script output."""
import re, sys, statistics as st
ev = []
rx = re.compile(r'^\s*(.+?)\s+(\d+)\s+\[(\d+)\]\s+([\d.]+):\s+(\S+):\s*(.*)$')
for line in open(sys.argv[1]):
    m = rx.match(line)
    if m: ev.append((float(m[4]), int(m[3]), m[1], int(m[2]), m[5], m[6]))
def find(i, pred, lim=5000):
    for j in range(i, min(len(ev), i + lim)):
        if pred(ev[j]): return j
    return None
W = 'fp-worker'
steps = []
for i, e in enumerate(ev):
    if not (e[4] == 'net:net_dev_xmit' and 'dev=fbs0' in e[5] and 'len=98' in e[5]): continue
    # ping's sendto before it
    j0 = i
    while j0 > 0 and not (ev[j0][4] == 'syscalls:sys_enter_sendto' and ev[j0][2] == 'ping'): j0 -= 1
    names = ['ping sendto', 'fbs0 xmit']; idx = [j0, i]
    seq = [('xdp fb1a', lambda x: x[4] == 'xdp:xdp_redirect' and 'ifindex=2 ' in x[5]),
           ('worker up', lambda x: x[4] == 'syscalls:sys_exit_ppoll' and x[2].startswith(W)),
           ('worker ppoll', lambda x: x[4] == 'syscalls:sys_enter_ppoll' and x[2].startswith(W)),
           ('ppoll exit', lambda x: x[4] == 'syscalls:sys_exit_ppoll' and x[2].startswith(W)),
           ('tx sendto', lambda x: x[4] == 'syscalls:sys_enter_sendto' and x[2].startswith(W)),
           ('fbd0 rx', lambda x: x[4] == 'net:netif_rx' and 'dev=fbd0' in x[5]),
           ('fbd0 recv', lambda x: x[4] == 'net:netif_receive_skb' and 'dev=fbd0' in x[5]),
           ('fbd0 xmit', lambda x: x[4] == 'net:net_dev_xmit' and 'dev=fbd0' in x[5] and 'len=98' in x[5]),
           ('xdp fb1b', lambda x: x[4] == 'xdp:xdp_redirect' and 'ifindex=3 ' in x[5]),
           ('worker up2', lambda x: x[4] == 'syscalls:sys_exit_ppoll' and x[2].startswith(W)),
           ('worker ppoll2', lambda x: x[4] == 'syscalls:sys_enter_ppoll' and x[2].startswith(W)),
           ('ppoll exit2', lambda x: x[4] == 'syscalls:sys_exit_ppoll' and x[2].startswith(W)),
           ('tx sendto2', lambda x: x[4] == 'syscalls:sys_enter_sendto' and x[2].startswith(W)),
           ('fbs0 rx', lambda x: x[4] == 'net:netif_rx' and 'dev=fbs0' in x[5])]
    k = i; ok = True
    for n, p in seq:
        k = find(k + 1, p)
        if k is None: ok = False; break
        names.append(n); idx.append(k)
    if not ok: continue
    # how long CPU 1 was idle before the napi wake: last event on cpu 1 before xdp fb1a
    j = idx[2] - 1
    while j > 0 and ev[j][1] != 1: j -= 1
    t = [ev[x][0] for x in idx]
    steps.append([(t[q] - t[q - 1]) * 1e6 for q in range(1, len(t))] + [(t[-1] - t[0]) * 1e6, (ev[idx[2]][0] - ev[j][0]) * 1e6])
    hdr = names
if not steps: sys.exit("no pings")
labels = [f"{hdr[q-1]} -> {hdr[q]}" for q in range(1, len(hdr))] + ["total", "cpu1 quiet before xdp"]
print(f"{len(steps)} pings")
for q, l in enumerate(labels):
    v = [s[q] for s in steps]
    print(f"{l:34s} p50 {st.median(v):8.1f}  min {min(v):8.1f}  max {max(v):8.1f}")
