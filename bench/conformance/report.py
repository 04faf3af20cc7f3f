# SPDX-License-Identifier: GPL-2.0-only
"""The conformance table: one row per example of the corpus."""
import time


def _pair(row, key):
    a = (row.get("simulated") or {}).get("totals") or {}
    other = next((row[k] for k in ("emulated", "self") if k in row), {}) or {}
    b = other.get("totals") or {}
    if not a and not b:
        return ""
    seeds = [(s.get("totals") or {}).get(key) for s in row.get("seeds", ())]
    if seeds and None not in seeds:
        # Compared with the spread of simulated seeds: their range.
        return f"{min(seeds)}–{max(seeds)} / {b.get(key, '—')}"
    return f"{a.get(key, '—')} / {b.get(key, '—')}"


def write_report(rows, mode, command, path):
    second = "emulated" if mode.startswith("emulated") else "simulated again"
    counts = {k: sum(r["result"] == k for r in rows) for k in ("pass", "fail", "not emulatable")}
    lines = [
        f"# ns-3 examples: simulated against {second}" + (
            " (tracing calls skipped)" if "tracing" in mode else ""),
        "",
        f"{time.strftime('%Y-%m-%d %H:%M UTC', time.gmtime())}; command: `{command}`",
        "",
        f"{counts['pass']} pass, {counts['fail']} fail, {counts['not emulatable']} not "
        f"emulatable, of {len(rows)}.",
        "",
        f"| example | result | FlowMonitor rx packets (simulated / {second}) | mean delay ms "
        "| stopped at s | reason |",
        "|---|---|---|---|---|---|",
    ]
    for r in rows:
        reason = "; ".join(x for x in (r.get("reason"), r.get("note")) if x).replace("|", "\\|")
        lines.append(f"| {r['example']} | {r['result']} | {_pair(r, 'rx_packets')} | "
                     f"{_pair(r, 'mean_delay_ms')} | {r.get('stop_s', '')} | {reason} |")
    with open(path, "w") as f:
        f.write("\n".join(lines) + "\n")
