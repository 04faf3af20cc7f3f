# Below-saturation loss per environment, forwarder and offered rate: median loss, and the
# lost frames (the sink's sequence gaps) against the frames dropped at S's transmit into R's
# veth (st_s_tx_dropped), summed over the repetitions.
import csv, sys, statistics as st
rows = list(csv.DictReader(open(sys.argv[1])))
rates = ["50000", "100000", "150000", "200000"]
print("| NAPI env | forwarder | " + " | ".join(f"{int(r)//1000}k" for r in rates) + " |")
print("|---|---|" + "---|" * len(rates))
for env in ("default", "rt", "stack"):
    for fw in ("afxdp-min", "fastpathd"):
        cells = []
        for r in rates:
            rs = [x for x in rows if x["napi_env"] == env and x["forwarder"] == fw and x["offered_pps"] == r]
            if not rs:
                cells.append("n/a"); continue
            gaps = sum(int(float(x["gap_loss"])) for x in rs)
            stx = sum(int(float(x["st_s_tx_dropped"])) for x in rs)
            cells.append(f"{st.median([float(x['loss_pct']) for x in rs]):.3f} % ({gaps} / {stx})")
        print(f"| {env} | {fw} | " + " | ".join(cells) + " |")
