import re,statistics,sys
d={}
for l in open(sys.argv[1]):
    m=re.match(r'(\d+) (idle|load) (old|new): \[ first-packet \].*?([\d.]+) ms simulated, ([\d.]+) ms emulated',l)
    if m:
        d.setdefault((m.group(2),m.group(3)),[]).append(float(m.group(5))-float(m.group(4)))
for k in sorted(d):
    v=d[k]; print(k, "n=%d median +%.2f max +%.2f over(>2ms) %d  values %s"%(len(v),statistics.median(v),max(v),sum(x>2 for x in v),' '.join('%.2f'%x for x in v)))
