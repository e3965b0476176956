# Ours / stock, medians of the rounds of a raw file of run.sh: python3 table.py raw-after.txt
import sys, statistics, collections
d=collections.defaultdict(list)
for l in open(sys.argv[1]):
    if not l.startswith('bench='): continue
    f=dict(x.split('=') for x in l.split())
    d[(f['bench'],f['who'],int(f['size']))].append(float(f['us']))
benches=sorted({k[0] for k in d}); sizes=sorted({k[2] for k in d})
print("| bytes | "+" | ".join(benches)+" |"); print("|---"*(len(benches)+1)+"|")
for s in sizes:
    row=[]
    for b in benches:
        st=statistics.median(d[(b,'stock',s)]); ou=statistics.median(d[(b,'ours',s)])
        row.append("%.2f (%.2f / %.2f)"%(ou/st,st,ou))
    print("| %d | "%s+" | ".join(row)+" |")
