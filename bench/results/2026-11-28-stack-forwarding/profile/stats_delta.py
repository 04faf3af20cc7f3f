import json,sys
for l in sys.argv[1:]:
    try:
        a=json.load(open(l+'.stats0')); b=json.load(open(l+'.stats1'))
    except Exception as e:
        print(l,'no stats',e); continue
    t=float(open(l+'.t1').read())-float(open(l+'.t0').read())
    print(l,'sample window s',round(t,2))
    A={x['scope']:x['counters'] for x in a}; B={x['scope']:x['counters'] for x in b}
    for sc in B:
        for k,v in B[sc].items():
            if sc in A and isinstance(v,(int,float)) and v!=A[sc].get(k) and not k.endswith('bytes'):
                print('  ',sc,k,v-A[sc][k], '%.0f/s'%((v-A[sc][k])/t))
