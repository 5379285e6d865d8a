/*
 * dropin_nb.c — nonblocking and persistent collectives: batches of cases
 * outstanding together on one communicator, completed in every way MPI
 * offers (Wait in order and reversed, Test loops, Waitall / Waitany /
 * Waitsome / Testall / Testany / Testsome over arrays that also hold a
 * point-to-point Isend/Irecv pair), persistent requests started several
 * times with new data (MPI_Start and MPI_Startall) and freed; the _c forms
 * the same way.
 */
#include "dropin.h"

#include <sched.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#define NMETHODS 9
#define P2P_TAG 4242

void complete_all(MPI_Request *reqs, int n, MPI_Comm comm, int method)
{
    int m = method % NMETHODS, pair = 0, me = 0, np = 1, left = 0, right = 0;
    int sendv = 0, recvv = SENTINEL;
    if (comm != MPI_COMM_NULL && m >= 2 && m != 5 && m != 7) {
        int inter = 0;
        MPI_Comm_test_inter(comm, &inter);
        pair = !inter;
    }
    switch (m) {
    case 0:
        for (int i = 0; i < n; i++)
            OKQ(MPI_Wait(&reqs[i], MPI_STATUS_IGNORE));
        return;
    case 1:
        for (int i = n - 1; i >= 0; i--)
            OKQ(MPI_Wait(&reqs[i], MPI_STATUS_IGNORE));
        return;
    case 5: /* MPI_Test on each in turn until all are done */
        for (;;) {
            int done = 1;
            for (int i = 0; i < n; i++) {
                int flag = 0;
                OKQ(MPI_Test(&reqs[i], &flag, MPI_STATUS_IGNORE));
                done &= flag;
            }
            if (done)
                return;
            sched_yield();
        }
    default:
        break;
    }
    /* Array methods: [irecv] reqs... [isend] */
    int na = n + 2 * pair, off = pair;
    MPI_Request *a = xmalloc(sizeof *a * (size_t)na);
    MPI_Status *st = xmalloc(sizeof *st * (size_t)na);
    int *idx = xmalloc(sizeof *idx * (size_t)na);
    memcpy(a + off, reqs, sizeof *a * (size_t)n);
    if (pair) {
        MPI_Comm_rank(comm, &me);
        MPI_Comm_size(comm, &np);
        left = (me + np - 1) % np;
        right = (me + 1) % np;
        sendv = val(me, method, 77);
        MPI_Irecv(&recvv, 1, MPI_INT, left, P2P_TAG, comm, &a[0]);
        MPI_Isend(&sendv, 1, MPI_INT, right, P2P_TAG, comm, &a[na - 1]);
    }
    switch (m) {
    case 2:
        OKQ(MPI_Waitall(na, a, st));
        break;
    case 3:
        for (;;) {
            int i;
            OKQ(MPI_Waitany(na, a, &i, st));
            if (i == MPI_UNDEFINED)
                break;
        }
        break;
    case 4:
        for (;;) {
            int flag = 0;
            OKQ(MPI_Testall(na, a, &flag, st));
            if (flag)
                break;
            sched_yield();
        }
        break;
    case 6:
        for (;;) {
            int out = 0;
            OKQ(MPI_Waitsome(na, a, &out, idx, st));
            if (out == MPI_UNDEFINED)
                break;
        }
        break;
    case 7:
        for (;;) {
            int i, flag = 0;
            OKQ(MPI_Testany(na, a, &i, &flag, st));
            if (flag && i == MPI_UNDEFINED)
                break;
            if (!flag)
                sched_yield();
        }
        break;
    case 8:
        for (;;) {
            int out = 0;
            OKQ(MPI_Testsome(na, a, &out, idx, st));
            if (out == MPI_UNDEFINED)
                break;
            if (out == 0)
                sched_yield();
        }
        break;
    default:
        break;
    }
    memcpy(reqs, a + off, sizeof *a * (size_t)n);
    if (pair)
        check(recvv == val(left, method, 77),
              "point-to-point pair among collectives (method %d):"
              " got %d",
              m, recvv);
    free(a);
    free(st);
    free(idx);
}

void start_all(MPI_Request *reqs, int n, int method)
{
    if (method % 2 == 0) {
        OKQ(MPI_Startall(n, reqs));
    } else {
        for (int i = 0; i < n; i++)
            OKQ(MPI_Start(&reqs[i]));
    }
}

static int rooted(int coll)
{
    return coll == C_BCAST || coll == C_REDUCE || coll == C_SCATTER || coll == C_SCATTERV ||
           coll == C_GATHER || coll == C_GATHERV;
}

/* The ways that work for persistent collective requests under MPICH
 * 4.0.2: its MPI_Waitany, MPI_Waitsome (and MPI_Testany, MPI_Testsome
 * when a point-to-point request is in the array) never retire a completed
 * one, returning the same index forever, and its MPI_Testall fails on
 * them. */
static int pers_method(int k)
{
    static const int ok[4] = {0, 1, 2, 5};
    return ok[k % 4];
}

/* Runs a batch of cases together: nonblocking ones issued back to back
 * and completed together; persistent ones created together, then started
 * and completed together `reps` times with new data each time (a case
 * with start_once set only the first time). */
static void run_batch(tcase_t *t, int n, int form, MPI_Comm comm, int method, int reps)
{
    MPI_Request *reqs = xmalloc(sizeof *reqs * (size_t)n);
    int *at = xmalloc(sizeof *at * (size_t)n);
    if (!form_is_pers(form))
        reps = 1;
    for (int rep = 0; rep < reps; rep++) {
        int m = 0;
        for (int i = 0; i < n; i++)
            if (rep == 0 || !t[i].start_once)
                at[m++] = i;
        for (int k = 0; k < m; k++)
            tc_fill(&t[at[k]], rep);
        for (int k = 0; k < m; k++) {
            if (rep == 0)
                call_issue(&t[at[k]].call);
            reqs[k] = t[at[k]].call.req;
        }
        if (form_is_pers(form)) {
            start_all(reqs, m, method + rep);
            complete_all(reqs, m, comm, pers_method(method + rep));
        } else {
            complete_all(reqs, m, comm, method + rep);
        }
        for (int k = 0; k < m; k++) {
            tcase_t *c = &t[at[k]];
            c->call.req = reqs[k];
            if (!form_is_pers(form))
                check(reqs[k] == MPI_REQUEST_NULL, "completed %s request not freed",
                      coll_name[c->coll]);
            tc_check(c, rep);
        }
    }
    free(reqs);
    free(at);
}

void test_coll_batches(MPI_Comm comm)
{
    static const int counts[3] = {0, 1, 7};
    static const int forms[4] = {F_NB, F_PERS, F_NB_C, F_PERS_C};
    int p, salt = 3000, method = 0;
    MPI_Comm_size(comm, &p);
    tcase_t t[C_NCOLLS > 8 ? C_NCOLLS : 8];
    for (int fi = 0; fi < 4; fi++) {
        int form = forms[fi];
        if (!form_available(form))
            continue;
        /* One collective at a time: a batch of its cases (every root). */
        for (int coll = 0; coll < C_NCOLLS; coll++) {
            if (!coll_has_form(coll, form))
                continue;
            int n = rooted(coll) ? (p > 6 ? p : 6) : 6;
            if (coll == C_BARRIER)
                n = 3;
            for (int k = 0; k < n; k++)
                tc_make(&t[k], coll, form, comm, rooted(coll) ? (k + fi) % p : 0, counts[k % 3],
                        coll != C_BCAST && coll != C_BARRIER && (k / 3 + fi) % 2, salt++);
            run_batch(t, n, form, comm, method++, 3);
            for (int k = 0; k < n; k++)
                tc_free(&t[k]);
        }
        /* Every collective at once, interleaved. */
        int n = 0;
        for (int coll = 0; coll < C_NCOLLS; coll++)
            if (coll_has_form(coll, form))
                tc_make(&t[n++], coll, form, comm, (coll + fi) % p, 7 + coll,
                        (coll + fi) % 2 && coll != C_BCAST && coll != C_BARRIER, salt++);
        run_batch(t, n, form, comm, method++, 2);
        for (int k = 0; k < n; k++)
            tc_free(&t[k]);
    }
    /* Large counts outstanding together. */
    tc_make(&t[0], C_ALLREDUCE, F_NB, comm, 0, g_large, 0, salt++);
    tc_make(&t[1], C_BCAST, F_NB, comm, p / 2, g_large, 0, salt++);
    tc_make(&t[2], C_ALLTOALL, F_NB, comm, 0, g_large / 8, 1, salt++);
    tc_make(&t[3], C_REDUCE_SCATTER_BLOCK, F_NB, comm, 0, g_large / 4, 0, salt++);
    tc_make(&t[4], C_ALLGATHERV, F_NB, comm, 0, g_large / 4, 1, salt++);
    run_batch(t, 5, F_NB, comm, 2, 1);
    for (int k = 0; k < 5; k++)
        tc_free(&t[k]);
    if (DROPIN_MPI4) {
        tc_make(&t[0], C_ALLREDUCE, F_PERS, comm, 0, g_large, 1, salt++);
        tc_make(&t[1], C_REDUCE, F_PERS_C, comm, p - 1, g_large, 0, salt++);
        run_batch(t, 2, F_PERS, comm, 3, 2);
        for (int k = 0; k < 2; k++)
            tc_free(&t[k]);
    }
}

/* Requests of both kinds in one array: a call the drop-in hands to MPI
 * (MINLOC on MPI_2INT) between served ones (Bcast, Allreduce SUM),
 * nonblocking (completed in every way) and, under MPI 4, persistent
 * (started together several times, completed by Waitall, Wait, Test). */
void test_mixed(MPI_Comm comm)
{
    int r, p, salt = 4000;
    MPI_Comm_rank(comm, &r);
    MPI_Comm_size(comm, &p);
    struct {
        int v, i;
    } a[5], g[5], w[5];
    int b[7], bw[7], s[9], gs[9], ws[9];
    MPI_Request rq[3];
    int npers = DROPIN_MPI4 ? 4 : 0;
    for (int k = 0; k < NMETHODS + npers; k++, salt++) {
        int pers = k >= NMETHODS, root = (pers ? NMETHODS : k) % p;
        for (int i = 0; i < 9; i++) {
            if (i < 5) {
                a[i].v = val(r, i, salt) % 5, a[i].i = r, g[i].v = g[i].i = SENTINEL;
                w[i].v = val(0, i, salt) % 5, w[i].i = 0;
                for (int q = 1; q < p; q++)
                    if (val(q, i, salt) % 5 < w[i].v)
                        w[i].v = val(q, i, salt) % 5, w[i].i = q;
            }
            if (i < 7)
                bw[i] = val(root, i, salt), b[i] = r == root ? bw[i] : SENTINEL;
            s[i] = val(r, i, salt + 1), gs[i] = SENTINEL, ws[i] = 0;
            for (int q = 0; q < p; q++)
                ws[i] += val(q, i, salt + 1);
        }
        if (!pers) {
            OK(MPI_Iallreduce(a, g, 5, MPI_2INT, MPI_MINLOC, comm, &rq[0]));
            OK(MPI_Ibcast(b, 7, MPI_INT, root, comm, &rq[1]));
            OK(MPI_Iallreduce(s, gs, 9, MPI_INT, MPI_SUM, comm, &rq[2]));
            complete_all(rq, 3, comm, k);
        } else {
#if DROPIN_MPI4
            if (k == NMETHODS) {
                OK(MPI_Allreduce_init(a, g, 5, MPI_2INT, MPI_MINLOC, comm, MPI_INFO_NULL, &rq[0]));
                OK(MPI_Bcast_init(b, 7, MPI_INT, root, comm, MPI_INFO_NULL, &rq[1]));
                OK(MPI_Allreduce_init(s, gs, 9, MPI_INT, MPI_SUM, comm, MPI_INFO_NULL, &rq[2]));
            }
            start_all(rq, 3, k);
            complete_all(rq, 3, comm, pers_method(k));
#endif
        }
        check_bytes(g, w, sizeof g, 1, "%s MINLOC MPI_2INT among served calls (method %d)",
                    pers ? "Allreduce_init" : "Iallreduce", pers ? pers_method(k) : k % NMETHODS);
        check_ints(b, bw, 7, "%s among MPI's calls root=%d", pers ? "Bcast_init" : "Ibcast", root);
        check_ints(gs, ws, 9, "%s SUM among MPI's calls", pers ? "Allreduce_init" : "Iallreduce");
    }
    if (npers)
        for (int i = 0; i < 3; i++)
            MPI_Request_free(&rq[i]);
}
