#!/usr/bin/env python3
# auto / best SMPI built-in per platform and size, two perf/sim output directories (old, new).
# python3 compare_small.py OLD_DIR NEW_DIR
import csv,sys,math
def load(d,p):
    rows={}
    for r in csv.DictReader(open(f"{d}/{p}.csv")):
        rows[(int(r['size_bytes']),r['contender'])]=float(r['time_us'])
    return rows
plats=["torus-8x8","fattree-128","irregular-64","torus-16x16","flat-1024"]
old,new=sys.argv[1],sys.argv[2]
g_old=[];g_new=[]
for p in plats:
    o=load(old,p); n=load(new,p)
    for s in [8,1024,2048,4096]:
        def best(rows):
            c=[(v,k[1]) for k,v in rows.items() if k[0]==s and k[1].startswith('smpi-')]
            return min(c)
        bo=best(o); bn=best(n)
        ao=o[(s,'ours-auto')]; an=n[(s,'ours-auto')]
        g_old.append(ao/bo[0]); g_new.append(an/bn[0])
        print(f"{p:12s} {s:5d} auto old {ao:7.3f} new {an:7.3f}  best smpi {bn[0]:7.3f} ({bn[1]})  ratio old {ao/bo[0]:.3f} new {an/bn[0]:.3f}")
gm=lambda x: math.exp(sum(map(math.log,x))/len(x))
print("geomean auto/best smpi: old %.3f new %.3f"%(gm(g_old),gm(g_new)))
