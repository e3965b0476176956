/*
 * Verification of a size class's choice on live calls (mcast_planner.h, "Verification on
 * live calls"): which candidate a call runs, this rank's times, and the verdict every rank
 * reaches alike from the agreed times.  No clock and no communication here: the glue
 * times the calls and makes the agreement.
 */
#include "mcast_planner.h"

#include <algorithm>
#include <cstring>
#include <limits>

#define MC_API extern "C" __attribute__((visibility("default")))

/* The order of the trial calls (mcast_verify_order): above the eager size inside a node
 * the candidates one after the other, each 1 + trials calls in a row (chosen, other,
 * runner-up), the first of each not counted, so that a candidate's counted calls follow
 * its own calls as in an application's loop (taking turns timed each copy after the other
 * candidate's); at and below it turns call by call (chosen, other, ...; the first turn
 * not counted), where medians of sub-microsecond calls in a row misjudged (E-VERIFY-7). */
static int block_of(const mcast_verify_t *v, int64_t index)
{
    return v->blocks ? int(index / (v->trials + 1)) : int(index % v->candidates);
}

/* The counted trial of call `index` in its candidate's calls, -1 for its warm-up call. */
static int trial_of(const mcast_verify_t *v, int64_t index)
{
    return v->blocks ? int(index % (v->trials + 1)) - 1 : int(index / v->candidates) - 1;
}

/* record_at's bit per trial call */
static_assert(MCAST_VERIFY_CANDIDATES * (MCAST_VERIFY_MAX_TRIALS + 1) <= 32, "seen's bits");

MC_API void mcast_verify_init(mcast_verify_t *v, int trials, double margin, uint64_t recheck)
{
    if (v == nullptr) {
        return;
    }
    std::memset(v, 0, sizeof(*v));
    v->trials = trials <= 0 ? 0 : std::min(trials, MCAST_VERIFY_MAX_TRIALS);
    v->margin = !(margin >= 0.0) ? 0.0 : std::min(margin, 0.99);
    v->recheck = recheck;
    v->candidates = 2;
    v->verdict = MCAST_VERIFY_CHOSEN;
    v->settled = v->trials == 0;
    for (double &a : v->agreed) {
        a = -1.0;
    }
}

MC_API void mcast_verify_order(mcast_verify_t *v, size_t class_bytes, size_t eager_bytes)
{
    if (v != nullptr && v->calls == 0 && v->seen == 0) {
        v->blocks = class_bytes > eager_bytes ? 1 : 0;
    }
}

MC_API int mcast_verify_add_runner_up(mcast_verify_t *v)
{
    if (v == nullptr || v->trials == 0 || v->calls != 0 || v->rounds != 0 || v->seen != 0) {
        return 0;
    }
    v->candidates = MCAST_VERIFY_CANDIDATES;
    return 1;
}

MC_API int mcast_verify_applies(const char *selected_by)
{
    if (selected_by == nullptr) {
        return 0;
    }
    static const char *const model[] = {"model", "previous", "unmodelled", "previous:unmodelled"};
    for (const char *s : model) {
        if (std::strcmp(selected_by, s) == 0) {
            return 1;
        }
    }
    return 0;
}

MC_API int mcast_verify_pick(const mcast_verify_t *v)
{
    if (v == nullptr || v->settled) {
        return v == nullptr ? MCAST_VERIFY_CHOSEN : v->verdict;
    }
    return block_of(v, v->calls);
}

MC_API int mcast_verify_counts_at(const mcast_verify_t *v, int64_t index)
{
    return v != nullptr && v->trials > 0 && index >= 0 &&
                   index < v->candidates * int64_t(v->trials + 1) && trial_of(v, index) >= 0
               ? 1
               : 0;
}

MC_API int mcast_verify_counts(const mcast_verify_t *v)
{
    return v != nullptr && !v->settled ? mcast_verify_counts_at(v, v->calls) : 0;
}

MC_API int mcast_verify_record(mcast_verify_t *v, int cand, double seconds)
{
    if (v == nullptr || v->trials == 0) {
        return 0;
    }
    if (v->settled) {
        if (v->recheck != 0 && ++v->settled_calls >= v->recheck) {
            v->settled = 0; /* the next call starts the trials again */
            v->calls = 0;
            v->settled_calls = 0;
            v->recheck = v->recheck > UINT64_MAX / 2 ? UINT64_MAX : 2 * v->recheck;
        }
        return 0;
    }
    const int c = cand > 0 && cand < v->candidates ? cand : 0;
    const int i = trial_of(v, v->calls);
    if (i >= 0 && i < MCAST_VERIFY_MAX_TRIALS) {
        v->t[c][i] = seconds < 0.0 ? std::numeric_limits<double>::max() : seconds;
    }
    v->calls++;
    return v->calls >= v->candidates * (v->trials + 1) ? 1 : 0;
}

MC_API void mcast_verify_local(const mcast_verify_t *v, double *out)
{
    const int nc = v == nullptr ? 2 : v->candidates;
    for (int c = 0; c < nc; c++) {
        out[c] = -1.0;
        if (v == nullptr || v->trials == 0) {
            continue;
        }
        double t[MCAST_VERIFY_MAX_TRIALS];
        const int n = std::min(v->trials, MCAST_VERIFY_MAX_TRIALS);
        for (int i = 0; i < n; i++) { /* insertion sort: at most 8 */
            double x = v->t[c][i];
            int j = i;
            for (; j > 0 && t[j - 1] > x; j--) {
                t[j] = t[j - 1];
            }
            t[j] = x;
        }
        out[c] = n % 2 != 0 ? t[n / 2] : 0.5 * (t[n / 2 - 1] + t[n / 2]);
    }
}

MC_API int mcast_verify_conclude(mcast_verify_t *v, const double *agreed)
{
    if (v == nullptr) {
        return MCAST_VERIFY_CHOSEN;
    }
    for (int c = 0; c < v->candidates; c++) {
        v->agreed[c] = agreed != nullptr ? agreed[c] : -1.0;
    }
    /* another candidate must be faster than the chosen one by more than the margin (the
     * fastest such one wins); anything unmeasured (negative, NaN) keeps the chosen one */
    int verdict = MCAST_VERIFY_CHOSEN;
    const double *a = v->agreed;
    for (int c = 1; a[0] >= 0.0 && c < v->candidates; c++) {
        if (a[c] >= 0.0 && a[c] < a[0] * (1.0 - v->margin) &&
            (verdict == MCAST_VERIFY_CHOSEN || a[c] < a[verdict])) {
            verdict = c;
        }
    }
    v->verdict = verdict;
    v->settled = 1;
    v->settled_calls = 0;
    v->rounds++;
    return v->verdict;
}

MC_API double mcast_verify_cost(const mcast_verify_t *v)
{
    if (v == nullptr || v->rounds == 0 || v->trials == 0) {
        return 0.0;
    }
    const double *a = v->agreed, tv = a[v->verdict];
    double extra = 0.0;
    for (int c = 0; c < v->candidates; c++) {
        if (!(a[c] >= 0.0 && tv >= 0.0) || a[c] == std::numeric_limits<double>::max()) {
            return 0.0; /* (a failed or unmeasured candidate: no figure) */
        }
        extra += std::max(0.0, a[c] - tv);
    }
    return extra * (v->trials + 1);
}

MC_API int mcast_verify_pick_at(const mcast_verify_t *v, int64_t index)
{
    if (v == nullptr || v->trials == 0 || index < 0) {
        return MCAST_VERIFY_CHOSEN;
    }
    if (index < v->candidates * int64_t(v->trials + 1)) {
        return block_of(v, index);
    }
    return v->settled ? v->verdict : -1;
}

MC_API int mcast_verify_record_at(mcast_verify_t *v, int64_t index, double seconds)
{
    const int64_t calls = v == nullptr ? 0 : v->candidates * int64_t(v->trials + 1);
    if (v == nullptr || v->trials == 0 || v->settled || index < 0 || index >= calls ||
        (v->seen & (uint32_t(1) << index)) != 0) {
        return 0;
    }
    v->seen |= uint32_t(1) << index;
    const int c = block_of(v, index), i = trial_of(v, index);
    if (i >= 0) {
        v->t[c][i] = seconds < 0.0 ? std::numeric_limits<double>::max() : seconds;
    }
    v->calls++;
    return v->calls == calls ? 1 : 0;
}

MC_API void mcast_verify_least(const mcast_verify_t *v, double *out)
{
    const int nc = v == nullptr ? 2 : v->candidates;
    for (int c = 0; c < nc; c++) {
        out[c] = -1.0;
        const int n = v == nullptr ? 0 : std::min(v->trials, MCAST_VERIFY_MAX_TRIALS);
        for (int i = 0; i < n; i++) {
            out[c] = i == 0 ? v->t[c][0] : std::min(out[c], v->t[c][i]);
        }
    }
}
