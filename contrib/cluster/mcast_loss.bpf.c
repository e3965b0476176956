/*
 * tc egress classifier for the emulated cluster (contrib/cluster/cluster up N
 * --mcast-loss PCT): drops each IPv4 UDP datagram to a multicast address (224.0.0.0/4)
 * with probability LOSS_PPM / 10^6, independently per switch port, so every receiver
 * loses its own random subset of the group's packets; everything else (unicast, TCP,
 * IGMP, ARP) passes.  Built by `cluster up` with
 *   clang -O2 -target bpf -DLOSS_PPM=<ppm> -c mcast_loss.bpf.c
 * and attached as `tc filter add dev p<i> egress bpf da obj ... sec tc` on a clsact
 * qdisc of each switch port (the kernel has no netem); drops show in the clsact qdisc's
 * "dropped" counter (`cluster mcast-drops`).
 * SPDX-License-Identifier: BSD-3-Clause
 */
#include <linux/bpf.h>
#include <linux/if_ether.h>
#include <linux/in.h>
#include <linux/ip.h>
#include <linux/pkt_cls.h>

#ifndef LOSS_PPM
#define LOSS_PPM 0
#endif

static __u32 (*bpf_get_prandom_u32)(void) = (void *) BPF_FUNC_get_prandom_u32;

__attribute__((section("tc"), used)) int mcast_loss(struct __sk_buff *skb)
{
    void *data = (void *) (long) skb->data, *end = (void *) (long) skb->data_end;
    struct ethhdr *eth = data;
    if ((void *) (eth + 1) > end || eth->h_proto != __builtin_bswap16(ETH_P_IP)) return TC_ACT_OK;
    struct iphdr *ip = (void *) (eth + 1);
    if ((void *) (ip + 1) > end || ip->protocol != IPPROTO_UDP) return TC_ACT_OK;
    if ((((const __u8 *) &ip->daddr)[0] >> 4) != 0xE) return TC_ACT_OK;
    return (bpf_get_prandom_u32() % 1000000u < (__u32) LOSS_PPM) ? TC_ACT_SHOT : TC_ACT_OK;
}

char _license[] __attribute__((section("license"), used)) = "Dual BSD/GPL";
