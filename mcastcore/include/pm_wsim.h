/*
 * Flit-level simulator of a cut-through switch network with multidestination
 * worms and smart network interfaces (seed 001 sec. 6.2), for comparing
 * NI-based k-binomial FPFS multicast, path-based LG multicast and one-phase
 * tree-based worms on the same irregular networks and traffic.  Not part of
 * the MPI components: a separate convenience library (libmcastwsim) used by the
 * unit tests and perf/worms.
 *
 * Model (times in cycles, one flit = one link width = flit_bytes bytes):
 *   switch   k ports, an input FIFO of in_buf_flits per port (a packet may
 *            enter before the whole packet fits: cut-through with weaker
 *            buffering), an output buffer of out_buf_flits per port, a
 *            crossbar moving one flit per output per cycle (t_xbar), header
 *            decode t_route, link t_link per flit; input-buffer replication:
 *            each output reads the packet at its own pace, a flit leaves the
 *            input buffer when every output has read it; outputs are granted
 *            first come first served.  Header at each switch: t_route +
 *            t_xbar + t_link; a packet of L flits through h switches arrives
 *            (last flit) t_link + h (t_route + t_xbar + t_link) + L - 1 after
 *            its first flit left the NI.
 *   host     a processor (t_hs per message sent, t_hr per message received),
 *            an I/O bus (DMA of a packet: ceil(bytes / bus_bytes_per_cycle))
 *            and an NI processor (t_ns per packet sent, t_nr per packet
 *            received), each a first-come-first-served server; R = t_hs/t_ns.
 *            (ni_step = 1: the seed's step abstraction, see the parameter.)
 *   schemes  NI-based: k-binomial tree (kbinomial core, KB_SHAPE_KBINOMIAL on
 *            the POC chain, k optimal for the packet count unless given); the
 *            NIs forward packet by packet (FPFS), hosts only send at the
 *            source and receive at the destinations.  Path-based: the LG plan
 *            (pm_worms.h) of multi-drop worms; a secondary source receives the
 *            whole message at its host and sends each of its worms as a new
 *            message.  Tree-based: one bit-string worm (Fig. 18 strings, header
 *            modification).  Also Greedy and SSR variants.
 * The latency of a multicast runs from the source's send call to the last
 * destination's host having received the whole message.
 */
#ifndef PM_WSIM_H
#define PM_WSIM_H

#include <stddef.h>
#include <stdint.h>
#include "pm_worms.h"

#ifdef __cplusplus
extern "C" {
#endif

typedef enum {
    PM_WSIM_NI_KBINOMIAL = 0,
    PM_WSIM_PATH_LG = 1,
    PM_WSIM_TREE = 2,
    PM_WSIM_PATH_GREEDY = 3,
    PM_WSIM_SSR_LG = 4,
    PM_WSIM_NSCHEMES = 5
} pm_wsim_scheme_t;

/* "ni-kbinomial", "path-lg", "tree", "path-greedy", "ssr-lg"; NULL if out of range */
const char *pm_wsim_scheme_name(pm_wsim_scheme_t s);

typedef struct pm_wsim_params {
    int packet_flits;            /* 128 */
    int message_flits;           /* 128 (one packet) */
    int flit_bytes;              /* 1 */
    long t_hs, t_hr;             /* host overheads: 1000, 1000 */
    long t_ns, t_nr;             /* NI overheads per packet: 1000, 1000 (R = 1) */
    double bus_bytes_per_cycle;  /* 266 MB/s x 5 ns = 1.33 */
    int in_buf_flits;            /* 640 */
    int out_buf_flits;           /* 8 */
    int t_route, t_xbar, t_link; /* 1, 1, 1 (each >= 1) */
    int k;                       /* NI-based fan-out; 0 = kb_optimal_k(n, packets) */
    int ni_step;                 /* 0: pipelined NI (one processor for t_ns and t_nr, packets
                                    overlap along a path); 1: the seed's step model (sec. 4.1):
                                    an NI sends one packet per step, a step ends when every
                                    receiver has processed it (t_ns + network + t_nr);
                                    receive processing on its own engine */
} pm_wsim_params_t;

/* The seed's defaults (sec. 6.2). */
void pm_wsim_params_default(pm_wsim_params_t *p);

typedef struct pm_wsim pm_wsim_t;   /* a simulator on one topology (graph kind) */

int pm_wsim_create(const pm_topology_t *topo, const pm_wsim_params_t *p, pm_wsim_t **sim, char *errbuf,
                   size_t errlen);
void pm_wsim_free(pm_wsim_t *sim);

typedef struct pm_wsim_result {
    long latency;        /* cycles */
    int worms;           /* messages/worms hosts or NIs injected (packet copies / packets per message) */
    int phases;          /* host-level phases (path-based: plan phases; NI-based: tree depth; tree: 1) */
    long flit_hops;      /* flits times links traversed, injection and ejection included */
} pm_wsim_result_t;

/* One multicast on an idle network.  done_at (may be NULL) receives, per
 * destination in the given order, the cycle its host had the message. */
int pm_wsim_multicast(pm_wsim_t *sim, pm_wsim_scheme_t scheme, int src_host, int ndst, const int *dst_hosts,
                      long *done_at, pm_wsim_result_t *res);

/* One packet of packet_flits flits carried by a given worm header (SSR /
 * multi-drop / tree, pm_worms.h) from src_host on an idle network: per host
 * (nhosts entries, -1 where nothing arrived) the cycle the packet's last flit
 * reached its NI and the cycle its host had it (t_hs, DMA, t_ns, network,
 * t_nr, DMA, t_hr). */
int pm_wsim_worm(pm_wsim_t *sim, int src_host, const uint8_t *hdr, size_t len, long *ni_arrival,
                 long *host_done);

/* Multicast traffic: every host starts multicasts of `degree` random
 * destinations as a Poisson process; `load` is the effective applied load
 * (degree x flits injected per host per cycle, seed sec. 6.2). */
typedef struct pm_wsim_load {
    int degree;
    double load;
    long warmup_cycles;     /* multicasts started before are not measured */
    long measure_cycles;    /* multicasts started in [warmup, warmup + measure) are */
    long drain_cycles;      /* then at most this long to finish them */
    uint64_t seed;
} pm_wsim_load_t;

typedef struct pm_wsim_load_result {
    double mean_latency;    /* cycles, over the measured multicasts that finished */
    long measured;          /* started in the window */
    long finished;          /* of those, finished before the drain ended */
    int saturated;          /* 1 if some measured multicast did not finish */
    long flit_hops;
} pm_wsim_load_result_t;

int pm_wsim_run_load(pm_wsim_t *sim, pm_wsim_scheme_t scheme, const pm_wsim_load_t *load,
                     pm_wsim_load_result_t *res);

#ifdef __cplusplus
}
#endif
#endif /* PM_WSIM_H */
