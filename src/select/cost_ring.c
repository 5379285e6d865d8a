/*
 * cost_ring.c — costs of the ring (bucket) blocks, pairwise exchange, the
 * barrier and scan, step by step as their plans run ([vdG-CCTP]'s bucket
 * formulas are the even-block special cases).
 */
#include "select/cost.h"

#include <stdlib.h>

static double dmax(double a, double b) { return a > b ? a : b; }

/* The common length of len[0..n-1], or -1 when they differ. */
static double equal_len(int n, const size_t *len)
{
    for (int i = 1; i < n; i++)
        if (len[i] != len[0])
            return -1;
    return (double)len[0];
}

double ic_cost_ring_allgather(int n, const size_t *len, const double *ready,
                              const ic_model_t *m, double *done)
{
    /* Equal blocks from a common start: every step is one message long
     * (the closed form the recurrence reduces to, without its O(n^2)). */
    double b = n > 1 && !ready && !done ? equal_len(n, len) : -1;
    if (b >= 0)
        return b == 0 ? 0 : (n - 1) * (m->alpha + b * m->beta + ic_msg_extra(m, b));
    double *have = calloc((size_t)n, sizeof(double)); /* block to send is here at */
    double *sfree = calloc((size_t)n, sizeof(double));
    double *next = calloc((size_t)n, sizeof(double));
    double end = 0;
    if (!have || !sfree || !next) {
        end = -1;
        goto out;
    }
    for (int i = 0; i < n; i++) {
        have[i] = ready ? ready[i] : 0;
        if (done)
            done[i] = have[i];
        end = dmax(end, have[i]);
    }
    for (int k = 0; k < n - 1; k++) {
        for (int i = 0; i < n; i++) {
            int sb = ic_mod(i - k, n), right = ic_ring_right(i, n);
            if (len[sb] == 0) {
                next[right] = have[right]; /* nothing arrives: irrelevant */
                continue;
            }
            double t = dmax(have[i], sfree[i]) + m->alpha + (double)len[sb] * m->beta +
                       ic_msg_extra(m, (double)len[sb]);
            sfree[i] = t;
            next[right] = t;
            if (done)
                done[right] = dmax(done[right], t);
            end = dmax(end, t);
        }
        double *tmp = have;
        have = next;
        next = tmp;
    }
out:
    free(have);
    free(sfree);
    free(next);
    return end;
}

double ic_cost_ring_reduce_scatter(int n, const size_t *len, const ic_model_t *m, double *done,
                                   double *rfree)
{
    /* Equal blocks: receive, combine and forward in a chain each step. */
    double b = n > 1 && !done && !rfree ? equal_len(n, len) : -1;
    if (b >= 0)
        return b == 0 ? 0 : (n - 1) * (m->alpha + b * (m->beta + m->gamma) + ic_msg_extra(m, b));
    double *ready = calloc((size_t)n, sizeof(double)); /* partial to send ready */
    double *sfree = calloc((size_t)n, sizeof(double)); /* end of last send */
    double *send_end = calloc((size_t)n, sizeof(double));
    double end = 0;
    for (int i = 0; i < n; i++) {
        if (rfree)
            rfree[i] = 0;
        if (done)
            done[i] = 0;
    }
    if (!ready || !sfree || !send_end) {
        end = -1;
        goto out;
    }
    for (int k = 0; k < n - 1; k++) {
        for (int i = 0; i < n; i++) {
            int sb = ic_mod(i - k - 1, n), right = ic_ring_right(i, n);
            send_end[i] = -1;
            if (len[sb] == 0)
                continue;
            /* The receiver's buffer part[k&1] was sent from in step k-1. */
            double start = dmax(ready[i], sfree[i]);
            if (k >= 2)
                start = dmax(start, sfree[right]);
            send_end[i] = start + m->alpha + (double)len[sb] * m->beta +
                          ic_msg_extra(m, (double)len[sb]);
        }
        for (int i = 0; i < n; i++) {
            int left = ic_ring_left(i, n), rb = ic_mod(i - k - 2, n);
            if (send_end[i] >= 0)
                sfree[i] = send_end[i];
            if (send_end[left] < 0)
                continue;
            /* Reduce (the last one into out) after the arrival. */
            if (rfree)
                rfree[i] = send_end[left];
            ready[i] = send_end[left] + (double)len[rb] * m->gamma;
            end = dmax(end, ready[i]);
            if (done)
                done[i] = ready[i];
        }
    }
    /* Ready for a next phase: result reduced and the send port free. */
    for (int i = 0; done && i < n; i++)
        done[i] = dmax(done[i], sfree[i]);
out:
    free(ready);
    free(sfree);
    free(send_end);
    return end;
}

double ic_cost_pairwise(int n, const size_t *slen_of, const ic_model_t *m)
{
    double t = 0, alpha = m->alpha; /* the first message's start-up */
    for (int k = 1; k < n; k++)
        if (slen_of[k] > 0) {
            t += alpha + (double)slen_of[k] * m->beta + ic_msg_extra(m, (double)slen_of[k]);
            alpha = ic_model_alpha_next(m, n); /* the others' (crowded: 0) */
        }
    return t;
}

double ic_cost_barrier(int n, const ic_model_t *m)
{
    return ic_ceil_log2(n) * m->alpha;
}

double ic_cost_scan(int n, size_t bytes, bool exclusive, bool in_place, const ic_model_t *m)
{
    if (n <= 1 || bytes == 0)
        return 0;
    double *x = calloc((size_t)n, sizeof(double));     /* x ready to send */
    double *sfree = calloc((size_t)n, sizeof(double));
    double *yfree = calloc((size_t)n, sizeof(double)); /* y buffer reusable */
    double *arr = calloc((size_t)n, sizeof(double));
    double end = 0;
    if (!x || !sfree || !yfree || !arr) {
        end = -1;
        goto out;
    }
    /* The copy of the input into x (dissemination_scan.c): every member of
     * an inclusive scan out of place; an exclusive one's members whose x
     * changes or whose input is the output. */
    for (int i = 0; i < n; i++) {
        bool x_changes = false;
        for (int d = 1; exclusive && d < n; d *= 2)
            x_changes |= i - d >= 0 && i + 2 * d < n;
        bool copies = exclusive ? x_changes || (in_place && i != 0) : !in_place;
        x[i] = copies ? (double)bytes * m->delta : 0;
    }
    for (int d = 1; d < n; d *= 2) {
        /* The n - d members that receive in this round copy and combine
         * at once (ic_model_crowd). */
        ic_model_t mr = ic_model_crowd(m, n - d);
        double red = (double)bytes * mr.gamma;
        double msg = mr.alpha + (double)bytes * mr.beta + ic_msg_extra(&mr, (double)bytes);
        /* A member that receives in no round from this one on (i < d)
         * sends one-way (the executor's IC_SEND_ONEWAY). */
        double oneway =
            mr.alpha + (double)bytes * mr.beta + ic_msg_extra_oneway(&mr, (double)bytes);
        for (int i = 0; i + d < n; i++) {
            double start = dmax(dmax(x[i], sfree[i]), yfree[i + d]);
            sfree[i] = start + (i < d ? oneway : msg);
            arr[i + d] = sfree[i];
        }
        for (int i = n - 1; i >= d; i--) {
            double t = arr[i];
            bool update_x = !exclusive || i + 2 * d < n;
            bool have_e = exclusive && d > 1;
            if (have_e)
                t += red; /* e = y (op) e; the first y lands in e itself */
            if (update_x)
                t += red;
            /* x may only change after this round's send of it left. */
            if (update_x && i + d < n && sfree[i] > arr[i] + (have_e ? red : 0))
                t = sfree[i] + red;
            if (!exclusive || have_e) /* the y buffer was used */
                yfree[i] = t;
            if (update_x)
                x[i] = t;
            end = dmax(end, t);
        }
        for (int i = 0; i < d && i < n; i++)
            end = dmax(end, sfree[i]);
    }
out:
    free(x);
    free(sfree);
    free(yfree);
    free(arr);
    return end;
}
