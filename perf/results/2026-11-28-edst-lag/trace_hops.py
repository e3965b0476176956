# Per hop of the last broadcast in a sim_bcast --trace output (stdout lines "T post/done"):
# from a block's arrival at a rank to its send there, and from that send to its arrival
# at the child, over the hops whose arrival falls in 30 - 110 us.  usage: trace_hops.py TRACE [BLOCK_BYTES]
import sys, collections, statistics
lines=[l.split() for l in open(sys.argv[1]) if l.startswith('T ')]
B=int(sys.argv[2]) if len(sys.argv)>2 else 8192
ts=sorted(float(f[2]) for f in lines)
starts=[ts[0]]+[b for a,b in zip(ts,ts[1:]) if b-a>1000]
t0=starts[-1]
cur={}; recv_done={}; send_post={}; send_done={}
for f in lines:
    t=float(f[2])-t0; r=int(f[3]); s=int(f[4])
    if t<0: continue
    if f[1]=='post':
        cur[(r,s)]=(t,f[5],int(f[6]),int(f[7])//B)
        if f[5]=='S': send_post[(r,int(f[6]),int(f[7])//B)]=t
    else:
        p=cur[(r,s)]
        if p[1]=='R': recv_done[(r,p[3])]=(t,p[2],p[0])
        else: send_done[(r,p[2],p[3])]=t
cpu=[];net=[];post_late=[]
for (r,b),(t,p,rp) in recv_done.items():
    sp=send_post.get((p,r,b))
    if sp is None: continue
    if not (30<t<110): continue
    net.append(t-sp)
    post_late.append(max(0,sp-rp))
    if (p,b) in recv_done: cpu.append(sp-recv_done[(p,b)][0])
print("hops",len(net),"net post->recvdone mean %.3f med %.3f"%(statistics.mean(net),statistics.median(net)))
print("fwd recvdone->sendpost mean %.3f med %.3f"%(statistics.mean(cpu),statistics.median(cpu)))
q=sorted(net); print("net quantiles",["%.2f"%q[int(len(q)*x)] for x in (0.1,0.25,0.5,0.75,0.9,0.99)])
q=sorted(cpu); print("fwd quantiles",["%.2f"%q[int(len(q)*x)] for x in (0.1,0.25,0.5,0.75,0.9,0.99)])
