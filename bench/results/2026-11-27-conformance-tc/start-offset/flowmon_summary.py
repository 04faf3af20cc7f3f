import sys, xml.etree.ElementTree as ET
t = ET.parse(sys.argv[1]).getroot()
cls = {f.get('flowId'): f for f in t.iter('Flow') if f.get('sourceAddress')}
out=[]
for f in t.find('FlowStats'):
    c = cls[f.get('flowId')]
    rx = int(f.get('rxPackets')); d = float(f.get('delaySum')[:-2].lstrip('+'))/1e6/max(rx,1)
    out.append(f"{c.get('sourceAddress')}:{c.get('sourcePort')}->{c.get('destinationAddress')}:{c.get('destinationPort')} rx={rx} delay={d:.1f}ms")
print(" | ".join(out))
