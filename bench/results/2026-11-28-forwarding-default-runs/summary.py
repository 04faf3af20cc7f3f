# Per run: each forwarder's flat-out repetitions, max received (summary), ratio; loss per rate.
import csv, json, sys, statistics as st, os
for d in sys.argv[1:]:
    raw = os.path.join(d, "fwdrate_raw.csv")
    if not os.path.exists(raw): continue
    rows = list(csv.DictReader(open(raw)))
    summ = {(r["napi_env"], r["forwarder"]): r for r in csv.DictReader(open(os.path.join(d, "fwdrate_summary.csv")))}
    envs = sorted({r["napi_env"] for r in rows}, key=["default","rt","stack"].index)
    print(f"## {d}")
    for env in envs:
        mx = {}
        for fw in ("afxdp-min", "fastpathd"):
            fl = [float(r["rx_pps"]) for r in rows if r["napi_env"]==env and r["forwarder"]==fw and r["offered_pps"]=="flat-out"]
            s = summ.get((env, fw), {})
            mx[fw] = float(s.get("max_rx_pps", "nan") or "nan")
            loss = []
            for rate in ("50000","100000","150000","200000","300000"):
                rs=[r for r in rows if r["napi_env"]==env and r["forwarder"]==fw and r["offered_pps"]==rate]
                if rs:
                    loss.append(f"{rate[:-3]}k {st.median(float(r['loss_pct']) for r in rs):.3f}% ({sum(int(float(r['gap_loss'])) for r in rs)}/{sum(int(float(r['st_s_tx_dropped'] or 0)) for r in rs)})")
            e80=[r for r in rows if r["napi_env"]==env and r["forwarder"]==fw and r["role"].startswith("80")]
            if e80: loss.append(f"80% {e80[0]['offered_pps']} {st.median(float(r['loss_pct']) for r in e80):.3f}%")
            print(f"{env:7s} {fw:9s} flat reps {[round(x/1000) for x in fl]}k max {mx[fw]:,.0f} flooded {float(s.get('flooded_pps','nan') or 'nan'):,.0f}")
            print("    loss: " + "; ".join(loss))
        print(f"{env:7s} ratio max {mx['fastpathd']/mx['afxdp-min']:.2f}x")
