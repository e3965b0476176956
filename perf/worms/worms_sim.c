/*
 * worms-sim: the seed 001 sec. 6.4-6.5 experiments on the flit-level
 * simulator (mcastcore/include/pm_wsim.h).  Networks come from the sec. 6.3
 * generator (pm_generate_irregular, seeds 1..--topos); every scheme sees the
 * same networks, sources and destination sets.  Output: CSV on stdout.
 *
 *   worms-sim single [options]   mean single-multicast latency per destination count
 *   worms-sim load [options]     mean latency per effective applied load
 *
 * Options (defaults = the seed's sec. 6.2 system):
 *   --switches 8 --ports 8 --hosts 32 --conn 80 --topos 10
 *   --ths 1000 (t_hs = t_hr)   --R 1 (t_ns = t_nr = t_hs / R)
 *   --msg 128 --pkt 128 (flits)   --cycle-ns 5
 *   --ni-step 0 (1: the seed's step NI model, pm_wsim.h)
 *   --schemes ni-kbinomial,path-lg,tree   --label NAME --value V (copied to the CSV)
 *   single: --dests 2,4,8,16,24,31 --samples 5
 *   load:   --degree 3 --loads 0.01,0.02 --warmup 50000 --measure 200000 --drain 400000 --seed 1
 *           --sat-factor 10 (a scheme's sweep stops after a point above 10x its first latency,
 *           or one whose measured multicasts did not all finish: saturated=1)
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "pm_wsim.h"

#define MAXL 64

typedef struct {
    int switches, ports, hosts, conn, topos;
    long ths;
    double R, cycle_ns;
    int msg, pkt, samples, degree, ni_step;
    int nd, dests[MAXL];
    int nl;
    double loads[MAXL];
    int ns, schemes[PM_WSIM_NSCHEMES];
    long warmup, measure, drain;
    double sat_factor;
    unsigned long long seed;
    const char *label, *value;
} opts_t;

static void usage(void)
{
    fprintf(stderr, "usage: worms-sim single|load [options] (see the source header)\n");
    exit(2);
}

static int split_ints(const char *s, int *out)
{
    int n = 0;
    for (const char *p = s; *p && n < MAXL;) {
        out[n++] = atoi(p);
        p = strchr(p, ',');
        if (!p) break;
        ++p;
    }
    return n;
}

static int split_doubles(const char *s, double *out)
{
    int n = 0;
    for (const char *p = s; *p && n < MAXL;) {
        out[n++] = atof(p);
        p = strchr(p, ',');
        if (!p) break;
        ++p;
    }
    return n;
}

static int split_schemes(const char *s, int *out)
{
    int n = 0;
    char buf[256];
    snprintf(buf, sizeof buf, "%s", s);
    for (char *tok = strtok(buf, ","); tok; tok = strtok(NULL, ",")) {
        int found = -1;
        for (int k = 0; k < PM_WSIM_NSCHEMES; ++k)
            if (!strcmp(tok, pm_wsim_scheme_name((pm_wsim_scheme_t)k))) found = k;
        if (found < 0) {
            fprintf(stderr, "unknown scheme %s\n", tok);
            exit(2);
        }
        out[n++] = found;
    }
    return n;
}

static unsigned long long rng;
static unsigned rnd(unsigned n)
{
    rng = rng * 6364136223846793005ULL + 1442695040888963407ULL;
    return (unsigned)((rng >> 33) % n);
}

static pm_topology_t *network(const opts_t *o, int seed)
{
    char *text, err[256];
    pm_topology_t *t;
    if (pm_generate_irregular(o->switches, o->ports, o->hosts, o->conn, (uint64_t)seed, &text) != PM_OK) {
        fprintf(stderr, "generator refused %d switches x %d ports, %d hosts\n", o->switches, o->ports, o->hosts);
        exit(1);
    }
    if (pm_topology_parse_string(text, PM_FMT_IBNET, "gen", &t, err, sizeof err) != PM_OK) {
        fprintf(stderr, "%s\n", err);
        exit(1);
    }
    pm_free(text);
    return t;
}

static pm_wsim_t *simulator(const opts_t *o, const pm_topology_t *t)
{
    pm_wsim_params_t p;
    pm_wsim_params_default(&p);
    p.t_hs = p.t_hr = o->ths;
    p.t_ns = p.t_nr = (long)(o->ths / o->R + 0.5);
    p.message_flits = o->msg;
    p.ni_step = o->ni_step;
    p.packet_flits = o->pkt;
    if (p.in_buf_flits < p.packet_flits) p.in_buf_flits = p.packet_flits;
    pm_wsim_t *s;
    char err[256];
    if (pm_wsim_create(t, &p, &s, err, sizeof err) != PM_OK) {
        fprintf(stderr, "%s\n", err);
        exit(1);
    }
    return s;
}

static void run_single(const opts_t *o)
{
    printf("label,value,scheme,dests,latency_cycles,latency_us,phases,worms,samples\n");
    double sum[PM_WSIM_NSCHEMES][MAXL] = {{0}}, ph[PM_WSIM_NSCHEMES][MAXL] = {{0}}, wo[PM_WSIM_NSCHEMES][MAXL] = {{0}};
    int cnt[MAXL] = {0};
    int *d = malloc(sizeof(int) * o->hosts), *all = malloc(sizeof(int) * o->hosts);
    for (int topo = 1; topo <= o->topos; ++topo) {
        pm_topology_t *t = network(o, topo);
        pm_wsim_t *s = simulator(o, t);
        for (int i = 0; i < o->nd; ++i) {
            int k = o->dests[i];
            if (k >= o->hosts) continue;
            for (int smp = 0; smp < o->samples; ++smp) {
                rng = (unsigned long long)topo * 1000003ULL + (unsigned long long)k * 7919ULL + (unsigned long long)smp;
                int src = (int)rnd((unsigned)o->hosts), m = 0;
                for (int h = 0; h < o->hosts; ++h)
                    if (h != src) all[m++] = h;
                for (int j = 0; j < k; ++j) {
                    int x = j + (int)rnd((unsigned)(m - j)), y = all[j];
                    all[j] = all[x];
                    all[x] = y;
                    d[j] = all[j];
                }
                for (int c = 0; c < o->ns; ++c) {
                    pm_wsim_result_t r;
                    if (pm_wsim_multicast(s, o->schemes[c], src, k, d, NULL, &r) != PM_OK) {
                        fprintf(stderr, "simulation failed (topology %d, %d destinations)\n", topo, k);
                        exit(1);
                    }
                    sum[c][i] += r.latency;
                    ph[c][i] += r.phases;
                    wo[c][i] += r.worms;
                }
                ++cnt[i];
            }
        }
        pm_wsim_free(s);
        pm_topology_free(t);
    }
    for (int c = 0; c < o->ns; ++c)
        for (int i = 0; i < o->nd; ++i) {
            if (!cnt[i]) continue;
            double lat = sum[c][i] / cnt[i];
            printf("%s,%s,%s,%d,%.1f,%.3f,%.2f,%.2f,%d\n", o->label, o->value,
                   pm_wsim_scheme_name((pm_wsim_scheme_t)o->schemes[c]), o->dests[i], lat, lat * o->cycle_ns / 1000.0,
                   ph[c][i] / cnt[i], wo[c][i] / cnt[i], cnt[i]);
        }
    free(d);
    free(all);
}

static void run_load(const opts_t *o)
{
    printf("label,value,scheme,degree,load,latency_cycles,latency_us,measured,finished,saturated,topologies\n");
    for (int c = 0; c < o->ns; ++c) {
        double first = 0;
        for (int i = 0; i < o->nl; ++i) {
            double sum = 0;
            long meas = 0, fin = 0;
            int sat = 0;
            for (int topo = 1; topo <= o->topos; ++topo) {
                pm_topology_t *t = network(o, topo);
                pm_wsim_t *s = simulator(o, t);
                pm_wsim_load_t ld = {o->degree, o->loads[i], o->warmup, o->measure, o->drain,
                                     o->seed * 1000ULL + (unsigned long long)topo};
                pm_wsim_load_result_t r;
                if (pm_wsim_run_load(s, o->schemes[c], &ld, &r) != PM_OK) {
                    fprintf(stderr, "load run failed\n");
                    exit(1);
                }
                sum += r.mean_latency;
                meas += r.measured;
                fin += r.finished;
                sat |= r.saturated;
                pm_wsim_free(s);
                pm_topology_free(t);
            }
            double lat = sum / o->topos;
            printf("%s,%s,%s,%d,%.4f,%.1f,%.3f,%ld,%ld,%d,%d\n", o->label, o->value,
                   pm_wsim_scheme_name((pm_wsim_scheme_t)o->schemes[c]), o->degree, o->loads[i], lat,
                   lat * o->cycle_ns / 1000.0, meas, fin, sat, o->topos);
            fflush(stdout);
            if (i == 0) first = lat;
            /* beyond saturation higher loads only take longer */
            if (sat || lat > o->sat_factor * first) break;
        }
    }
}

int main(int argc, char **argv)
{
    if (argc < 2) usage();
    opts_t o = {8, 8, 32, 80, 10, 1000, 1.0, 5.0, 128, 128, 5, 3, 0, 0, {0}, 0, {0}, 0, {0}, 50000, 200000, 400000,
                10.0, 1, "default", "-"};
    o.nd = split_ints("2,4,8,16,24,31", o.dests);
    o.nl = split_doubles("0.01,0.02", o.loads);
    o.ns = split_schemes("ni-kbinomial,path-lg,tree", o.schemes);
    for (int i = 2; i < argc; ++i) {
        const char *a = argv[i], *v = i + 1 < argc ? argv[i + 1] : NULL;
        if (!v) usage();
        ++i;
        if (!strcmp(a, "--switches")) o.switches = atoi(v);
        else if (!strcmp(a, "--ports")) o.ports = atoi(v);
        else if (!strcmp(a, "--hosts")) o.hosts = atoi(v);
        else if (!strcmp(a, "--conn")) o.conn = atoi(v);
        else if (!strcmp(a, "--topos")) o.topos = atoi(v);
        else if (!strcmp(a, "--ths")) o.ths = atol(v);
        else if (!strcmp(a, "--R")) o.R = atof(v);
        else if (!strcmp(a, "--cycle-ns")) o.cycle_ns = atof(v);
        else if (!strcmp(a, "--msg")) o.msg = atoi(v);
        else if (!strcmp(a, "--pkt")) o.pkt = atoi(v);
        else if (!strcmp(a, "--ni-step")) o.ni_step = atoi(v);
        else if (!strcmp(a, "--samples")) o.samples = atoi(v);
        else if (!strcmp(a, "--dests")) o.nd = split_ints(v, o.dests);
        else if (!strcmp(a, "--degree")) o.degree = atoi(v);
        else if (!strcmp(a, "--loads")) o.nl = split_doubles(v, o.loads);
        else if (!strcmp(a, "--schemes")) o.ns = split_schemes(v, o.schemes);
        else if (!strcmp(a, "--warmup")) o.warmup = atol(v);
        else if (!strcmp(a, "--measure")) o.measure = atol(v);
        else if (!strcmp(a, "--drain")) o.drain = atol(v);
        else if (!strcmp(a, "--seed")) o.seed = strtoull(v, NULL, 10);
        else if (!strcmp(a, "--sat-factor")) o.sat_factor = atof(v);
        else if (!strcmp(a, "--label")) o.label = v;
        else if (!strcmp(a, "--value")) o.value = v;
        else usage();
    }
    if (o.R <= 0 || o.topos < 1 || o.samples < 1) usage();
    if (!strcmp(argv[1], "single")) run_single(&o);
    else if (!strcmp(argv[1], "load")) run_load(&o);
    else usage();
    return 0;
}
