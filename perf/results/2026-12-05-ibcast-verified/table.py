import statistics as st, sys
d={}
for l in open(sys.argv[1]):
    if not l.startswith('bench='): continue
    kv=dict(x.split('=') for x in l.split())
    d.setdefault((kv['bench'],int(kv['np']),int(kv['size'])),{}).setdefault(kv['who'],[]).append(float(kv['pure']))
def f(v): return f"{st.median(v):.2f} ({min(v):.2f} - {max(v):.2f})"
for bench in ('osu_ibcast','style-new','style-same'):
    print(f"\n### {bench}\n")
    print("| np | bytes | stock | before | ours | before / stock | ours / stock |\n|---|---|---|---|---|---|---|")
    for k in sorted(x for x in d if x[0]==bench):
        v=d[k]; s=st.median(v['stock']); b=st.median(v['before']); o=st.median(v['ours'])
        print(f"| {k[1]} | {k[2]} | {f(v['stock'])} | {f(v['before'])} | {f(v['ours'])} | {b/s:.2f} | {o/s:.2f} |")
