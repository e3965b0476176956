/*
 * Link-contention checker: route every message of a plan and count, per
 * step, the pairs of messages that share a directed link:
 *   conflicts(s) = sum over directed links l of C(c_s(l), 2).
 * A contention-free plan (e.g. a k-binomial tree on a dimension-ordered chain
 * of a torus, FPFS single packet) has conflicts(s) = 0 for every step s.
 *
 *   step 2 on a 1x8 ring:  0 ---> 2    and   1 ---> 3   share 1->2: 1 conflict
 *                          0 -> 1 -> 2       1 -> 2 -> 3
 */
#include <algorithm>
#include <cstdlib>

#include "topo/pm_internal.h"

namespace pm {

void check_contention(const Topology &t, pm_routing_t routing, const std::vector<int> &host_of, int nmsgs,
                      const pm_msg_t *msgs, int nsteps, long *conflicts, long *total)
{
    int n = (int)host_of.size();
    std::vector<int> idx(nmsgs);
    for (int i = 0; i < nmsgs; ++i) {
        const pm_msg_t &m = msgs[i];
        if (m.step < 0 || m.step >= nsteps || m.src < 0 || m.src >= n || m.dst < 0 || m.dst >= n)
            throw ArgError(PM_ERR_ARG, "message " + std::to_string(i) + " out of range");
        idx[i] = i;
    }
    std::stable_sort(idx.begin(), idx.end(), [&](int a, int b) { return msgs[a].step < msgs[b].step; });
    std::fill(conflicts, conflicts + nsteps, 0L);
    std::vector<int> cnt(2 * t.links.size(), 0), touched, path;
    long sum = 0;
    for (size_t i = 0; i < idx.size();) {
        int s = msgs[idx[i]].step;
        size_t j = i;
        for (; j < idx.size() && msgs[idx[j]].step == s; ++j) {
            route(t, routing, host_of[msgs[idx[j]].src], host_of[msgs[idx[j]].dst], path);
            for (int l : path) {
                if (cnt[l] == 0) touched.push_back(l);
                conflicts[s] += cnt[l]++;
            }
        }
        for (int l : touched) cnt[l] = 0;
        touched.clear();
        sum += conflicts[s];
        i = j;
    }
    *total = sum;
}

void plan_from_tree(const kb_tree_t *k, std::vector<pm_msg_t> &out, int *nsteps)
{
    std::vector<int> recv(k->n, 0), stack{k->root};
    int last = -1;
    out.clear();
    while (!stack.empty()) {
        int u = stack.back();
        stack.pop_back();
        for (int j = k->child_off[u]; j < k->child_off[u + 1]; ++j) {
            int ch = k->children[j];
            if (ch < 0 || ch >= k->n || (int)out.size() >= k->n) throw ArgError(PM_ERR_ARG, "malformed tree");
            pm_msg_t m;
            m.step = recv[u] + (j - k->child_off[u]);
            m.src = u;
            m.dst = ch;
            recv[ch] = m.step + 1;
            last = std::max(last, m.step);
            out.push_back(m);
            stack.push_back(ch);
        }
    }
    *nsteps = last + 1;
}

}  // namespace pm
