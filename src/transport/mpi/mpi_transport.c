/*
 * mpi_transport.c — the MPI backend (mpi_transport.h).
 *
 * Wire protocol, on a private duplicate of the user's communicator with
 * MPI_ERRORS_RETURN:
 *
 *   tag 1 (CTL)  every message starts with an mpi_hdr_t: the key (comm,
 *                seq, step tag, signature) and a type:
 *                  EAGER   header + payload (at most eager_max bytes);
 *                  RTS     header only: the payload follows on tag rtag;
 *                  NACK    the receiver of an RTS refuses it (size or
 *                          signature mismatch, notice): the sender stops;
 *                  NOTICE  header + text (ops->notify).
 *   tag rtag     the payload of one RTS, in parts of at most 1 GiB (MPI
 *                counts are int), each a plain MPI_Isend / MPI_Irecv of
 *                MPI_BYTE.  The sender picks rtag from a counter in
 *                [2, MPI_TAG_UB]; MPI keeps messages of one (source, tag)
 *                in order, so the parts cannot be confused.
 *
 * Matching is the transport's own (transport.h: by peer and key, in any
 * order): progress drains every CTL message with MPI_Improbe/MPI_Mrecv
 * and matches it against the posted receives, or keeps it as unexpected.
 * An eager send is copied into a bounce buffer and completes at once; an
 * RTS send completes when MPI completes its payload sends.
 *
 * Failures.  Any MPI error fails the request with IC_ERR_PEER_FAILED and
 * the MPI error string (MPI reports a dead peer this way where it can;
 * usually mpirun ends the job first).  Notices fail every request of the
 * calls they name, posted now or later, as on shm (shm_notice.c); the
 * routing layer passes them on to the shm side (base.on_notice,
 * ops->learn).  As on shm, each rank remembers the (comm, seq, signature)
 * of its last CALLS calls: a message of such a call with another
 * signature, arriving before or after the call was posted, fails that
 * call and the later ones of the communicator with IC_ERR_MISMATCH.  Waiting polls MPI with
 * short sleeps; the core's IC_TIMEOUT bounds a wait for a peer that hangs.
 */
#ifndef _GNU_SOURCE
#define _GNU_SOURCE 1
#endif
#include "transport/mpi/mpi_transport.h"

#include "base/status.h"

#include <limits.h>
#include <sched.h>
#include <stdatomic.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#define TAG_CTL 1
#define RTAG_FIRST 2
#define PART_MAX ((size_t)1 << 30)
#define EAGER_DEFAULT ((size_t)16 << 10)
#define RQ_MAGIC 0x6d706972u /* "mpir" */
#define YIELD_S 2e-3
#define CALLS 64
#define SLEEP_NS 50000

enum { MSG_EAGER = 1, MSG_RTS, MSG_NACK, MSG_NOTICE };
enum { RQ_SEND = 1, RQ_RECV };
enum {
    RQ_DONE = 1, /* completed; the instance does not refer to it */
    RQ_ERROR,    /* failed with status; not referred to */
    RQ_POSTED,   /* receive not matched yet (in the posted list) */
    RQ_XFER      /* a payload part in flight in MPI (in the xfer list) */
};

typedef struct mpi_hdr {
    uint32_t type, sig;
    uint64_t comm, seq;
    uint32_t tag;
    int32_t rtag;   /* RTS, NACK: the payload's tag */
    uint64_t bytes; /* EAGER, RTS: payload bytes; NOTICE: text bytes */
    int32_t scope, status;
} mpi_hdr_t;

/* The request, laid over the caller's ic_tx_req_t (at most
 * IC_TX_REQ_BACKEND_WORDS words of it). */
typedef struct mpi_req {
    struct mpi_req *next;
    void *buf;
    size_t bytes, done_bytes; /* payload, and the parts finished so far */
    ic_match_key_t key;
    MPI_Request mreq;
    int32_t peer, status, rtag;
    uint32_t magic;
    uint8_t kind, state;
} mpi_req_t;
_Static_assert(sizeof(mpi_req_t) <= IC_TX_REQ_BACKEND_WORDS * sizeof(uint64_t),
               "mpi_req_t must fit in the backend's part of ic_tx_req_t");

/* An unexpected CTL message (EAGER or RTS), header and payload. */
typedef struct mpi_ux {
    struct mpi_ux *next;
    int peer;
    mpi_hdr_t h;
    unsigned char data[];
} mpi_ux_t;

/* A send MPI still owns: a bounce buffer, a header, a cancelled part. */
typedef struct mpi_out {
    struct mpi_out *next;
    MPI_Request r;
    unsigned char data[];
} mpi_out_t;

typedef ic_notice_t mpi_notice_t;

typedef struct mpi_transport {
    ic_transport_t base;
    MPI_Comm comm;
    size_t eager_max;
    int tag_ub, next_rtag;
    mpi_req_t *posted;  /* receives not matched yet, in posting order */
    mpi_req_t *xfer;    /* requests with a payload part in flight */
    mpi_ux_t *ux, **ux_tail;
    mpi_out_t *out;
    mpi_notice_t *notices;
    size_t nnotices, capnotices;
    atomic_uint woken;
    struct {
        uint64_t comm, seq;
        uint32_t sig;
    } calls[CALLS]; /* the last calls posted, round robin */
    uint64_t ncalls;
} mpi_transport_t;

static double now_s(void)
{
    struct timespec ts;
    clock_gettime(CLOCK_MONOTONIC, &ts);
    return (double)ts.tv_sec + (double)ts.tv_nsec * 1e-9;
}

static ic_status_t mpi_error(int err, const char *what, int peer)
{
    char s[MPI_MAX_ERROR_STRING];
    int n = 0;
    if (MPI_Error_string(err, s, &n) != MPI_SUCCESS)
        snprintf(s, sizeof s, "MPI error %d", err);
    return ic_set_error(IC_ERR_PEER_FAILED, "mpi: %s with rank %d failed: %s", what, peer, s);
}

/* ---- lists ---------------------------------------------------------- */

static void list_remove(mpi_req_t **head, mpi_req_t *r)
{
    for (mpi_req_t **p = head; *p; p = &(*p)->next)
        if (*p == r) {
            *p = r->next;
            r->next = NULL;
            return;
        }
}

static void list_push(mpi_req_t **head, mpi_req_t *r)
{
    r->next = *head;
    *head = r;
}

static void finish(mpi_req_t *r, ic_status_t st)
{
    r->state = st == IC_OK ? RQ_DONE : RQ_ERROR;
    r->status = st;
}

/* Hands a send to MPI with its own copy of the bytes (header + data). */
static ic_status_t send_copy(mpi_transport_t *t, int peer, const mpi_hdr_t *h, const void *data,
                             size_t len)
{
    mpi_out_t *o = malloc(sizeof *o + sizeof *h + len);
    if (!o)
        return ic_set_error(IC_ERR_NO_MEM, "mpi: out of memory for a %zu-byte message", len);
    memcpy(o->data, h, sizeof *h);
    if (len)
        memcpy(o->data + sizeof *h, data, len);
    int err = MPI_Isend(o->data, (int)(sizeof *h + len), MPI_BYTE, peer, TAG_CTL, t->comm, &o->r);
    if (err != MPI_SUCCESS) {
        free(o);
        return mpi_error(err, "MPI_Isend", peer);
    }
    o->next = t->out;
    t->out = o;
    return IC_OK;
}

/* Frees the bounce buffers MPI is done with. */
static void reap_out(mpi_transport_t *t)
{
    for (mpi_out_t **p = &t->out; *p;) {
        int flag = 0;
        MPI_Test(&(*p)->r, &flag, MPI_STATUS_IGNORE);
        if (flag) {
            mpi_out_t *o = *p;
            *p = o->next;
            free(o);
        } else {
            p = &(*p)->next;
        }
    }
}

/* ---- notices -------------------------------------------------------- */

static const mpi_notice_t *notice_find(const mpi_transport_t *t, const ic_match_key_t *k)
{
    for (size_t i = 0; i < t->nnotices; i++)
        if (ic_notice_covers(&t->notices[i], k))
            return &t->notices[i];
    return NULL;
}

/* Withdraws an in-flight payload part: a receive is cancelled and waited
 * for (MPI may be writing the caller's buffer); a send is cancelled and
 * left to MPI (MPI_Request_free), which may still read the buffer if the
 * cancel comes too late. */
static void drop_part(mpi_req_t *r)
{
    MPI_Cancel(&r->mreq);
    if (r->kind == RQ_RECV)
        MPI_Wait(&r->mreq, MPI_STATUS_IGNORE);
    else
        MPI_Request_free(&r->mreq);
}

static void apply_notice(mpi_transport_t *t, const mpi_notice_t *n)
{
    for (mpi_req_t **p = &t->posted; *p;) {
        mpi_req_t *r = *p;
        if (ic_notice_covers(n, &r->key)) {
            *p = r->next;
            finish(r, ic_notice_error(n));
        } else {
            p = &r->next;
        }
    }
    for (mpi_req_t **p = &t->xfer; *p;) {
        mpi_req_t *r = *p;
        if (ic_notice_covers(n, &r->key)) {
            *p = r->next;
            drop_part(r);
            finish(r, ic_notice_error(n));
        } else {
            p = &r->next;
        }
    }
    /* Unexpected messages of those calls will never be received. */
    for (mpi_ux_t **p = &t->ux; *p;) {
        mpi_ux_t *u = *p;
        ic_match_key_t k = {u->h.comm, u->h.seq, u->h.tag, u->h.sig};
        if (ic_notice_covers(n, &k)) {
            *p = u->next;
            free(u);
        } else {
            p = &u->next;
        }
    }
    t->ux_tail = &t->ux;
    while (*t->ux_tail)
        t->ux_tail = &(*t->ux_tail)->next;
}

static ic_status_t record_notice(mpi_transport_t *t, const mpi_notice_t *n)
{
    if (t->nnotices == t->capnotices) {
        size_t cap = t->capnotices ? 2 * t->capnotices : 8;
        mpi_notice_t *g = realloc(t->notices, cap * sizeof *g);
        if (!g)
            return ic_set_error(IC_ERR_NO_MEM, "mpi: out of memory for a notice");
        t->notices = g;
        t->capnotices = cap;
    }
    t->notices[t->nnotices++] = *n;
    apply_notice(t, n);
    return IC_OK;
}

/* A message from peer of this rank's call key.comm/key.seq came with
 * signature sig: the communicator fails here from that call on. */
static void mismatch_found(mpi_transport_t *t, int peer, uint64_t comm, uint64_t seq,
                           uint32_t theirs, uint32_t ours)
{
    mpi_notice_t n;
    memset(&n, 0, sizeof n);
    n.comm = comm;
    n.seq = seq;
    n.scope = IC_NOTICE_COMM;
    n.status = IC_ERR_MISMATCH;
    n.from = peer;
    snprintf(n.text, sizeof n.text,
             "mpi: rank %d sent a message of call %llu with signature %08x, this rank's call "
             "has %08x (the ranks called different collectives or arguments)",
             peer, (unsigned long long)seq, theirs, ours);
    record_notice(t, &n);
    if (t->base.on_notice)
        t->base.on_notice(t->base.on_notice_ctx, &t->base, &n);
}

/* The signature of this rank's call comm/seq if it is remembered, else 0
 * with *found = 0. */
static uint32_t call_sig(const mpi_transport_t *t, uint64_t comm, uint64_t seq, int *found)
{
    uint64_t n = t->ncalls < CALLS ? t->ncalls : CALLS;
    for (uint64_t i = 0; i < n; i++) {
        uint64_t j = (t->ncalls - 1 - i) % CALLS;
        if (t->calls[j].comm == comm && t->calls[j].seq == seq) {
            *found = 1;
            return t->calls[j].sig;
        }
    }
    *found = 0;
    return 0;
}

/* Remembers the call of key, and checks the messages of it that came
 * before it was posted. */
static void note_call(mpi_transport_t *t, const ic_match_key_t *key)
{
    if (t->ncalls > 0) {
        uint64_t j = (t->ncalls - 1) % CALLS;
        if (t->calls[j].comm == key->comm && t->calls[j].seq == key->seq)
            return;
    }
    uint64_t j = t->ncalls++ % CALLS;
    t->calls[j].comm = key->comm;
    t->calls[j].seq = key->seq;
    t->calls[j].sig = key->sig;
    for (mpi_ux_t *u = t->ux; u; u = u->next)
        if (u->h.comm == key->comm && u->h.seq == key->seq && u->h.sig != key->sig) {
            mismatch_found(t, u->peer, key->comm, key->seq, u->h.sig, key->sig);
            return;
        }
}

/* ---- matching -------------------------------------------------------- */

static bool same_key(const ic_match_key_t *k, const mpi_hdr_t *h)
{
    return k->comm == h->comm && k->seq == h->seq && k->tag == h->tag;
}

static ic_status_t sig_mismatch(const mpi_req_t *r, uint32_t sig)
{
    return ic_set_error(IC_ERR_MISMATCH,
                        "mpi: rank %d's message (comm %llu, seq %llu, tag %u) belongs to another "
                        "call (signature %08x, this call's %08x): the ranks called different "
                        "collectives, roots, counts, datatypes or operations",
                        r->peer, (unsigned long long)r->key.comm, (unsigned long long)r->key.seq,
                        r->key.tag, sig, r->key.sig);
}

static ic_status_t size_mismatch(const mpi_req_t *r, uint64_t bytes)
{
    return ic_set_error(IC_ERR_TRANSPORT,
                        "mpi: rank %d sent %llu bytes for a receive of %zu (comm %llu, seq %llu, "
                        "tag %u)",
                        r->peer, (unsigned long long)bytes, r->bytes,
                        (unsigned long long)r->key.comm, (unsigned long long)r->key.seq,
                        r->key.tag);
}

static ic_status_t nack(mpi_transport_t *t, int peer, const mpi_hdr_t *rts, ic_status_t why)
{
    mpi_hdr_t h = *rts;
    h.type = MSG_NACK;
    h.status = why;
    return send_copy(t, peer, &h, NULL, 0);
}

/* Posts the next payload part of r (a send or a matched receive). */
static ic_status_t post_part(mpi_transport_t *t, mpi_req_t *r)
{
    size_t left = r->bytes - r->done_bytes, n = left < PART_MAX ? left : PART_MAX;
    char *p = (char *)r->buf + r->done_bytes;
    int err = r->kind == RQ_SEND
                  ? MPI_Isend(p, (int)n, MPI_BYTE, r->peer, r->rtag, t->comm, &r->mreq)
                  : MPI_Irecv(p, (int)n, MPI_BYTE, r->peer, r->rtag, t->comm, &r->mreq);
    if (err != MPI_SUCCESS)
        return mpi_error(err, r->kind == RQ_SEND ? "MPI_Isend" : "MPI_Irecv", r->peer);
    r->state = RQ_XFER;
    list_push(&t->xfer, r);
    return IC_OK;
}

/* A posted receive r meets message (h, data) from its peer. */
static void deliver(mpi_transport_t *t, mpi_req_t *r, const mpi_hdr_t *h, const void *data)
{
    if (h->sig != r->key.sig || h->bytes != r->bytes) {
        ic_status_t st = h->sig != r->key.sig ? sig_mismatch(r, h->sig) : size_mismatch(r, h->bytes);
        if (h->type == MSG_RTS)
            nack(t, r->peer, h, st);
        finish(r, st);
        return;
    }
    if (h->type == MSG_EAGER) {
        if (h->bytes)
            memcpy(r->buf, data, h->bytes);
        finish(r, IC_OK);
        return;
    }
    r->rtag = h->rtag;
    r->done_bytes = 0;
    if (r->bytes == 0) {
        finish(r, IC_OK);
        return;
    }
    ic_status_t st = post_part(t, r);
    if (st != IC_OK)
        finish(r, st);
}

static void on_nack(mpi_transport_t *t, int peer, const mpi_hdr_t *h)
{
    for (mpi_req_t *r = t->xfer; r; r = r->next)
        if (r->kind == RQ_SEND && r->peer == peer && r->rtag == h->rtag && same_key(&r->key, h)) {
            list_remove(&t->xfer, r);
            drop_part(r);
            finish(r, ic_set_error((ic_status_t)h->status,
                                   "mpi: rank %d refused this rank's message (comm %llu, seq "
                                   "%llu, tag %u): its receive was of another call or size",
                                   peer, (unsigned long long)h->comm,
                                   (unsigned long long)h->seq, h->tag));
            return;
        }
}

/* Handles one CTL message (m: header + payload, malloc'd, len bytes). */
static ic_status_t on_message(mpi_transport_t *t, int peer, mpi_ux_t *m)
{
    const mpi_hdr_t *h = &m->h;
    if (h->type == MSG_NACK) {
        on_nack(t, peer, h);
        free(m);
        return IC_OK;
    }
    if (h->type == MSG_NOTICE) {
        mpi_notice_t n;
        memset(&n, 0, sizeof n);
        n.comm = h->comm;
        n.seq = h->seq;
        n.scope = h->scope;
        n.status = h->status;
        n.from = peer;
        size_t len = h->bytes < sizeof n.text ? (size_t)h->bytes : sizeof n.text - 1;
        memcpy(n.text, m->data, len);
        free(m);
        ic_status_t st = record_notice(t, &n);
        if (t->base.on_notice)
            t->base.on_notice(t->base.on_notice_ctx, &t->base, &n);
        return st;
    }
    ic_match_key_t k = {h->comm, h->seq, h->tag, h->sig};
    if (notice_find(t, &k)) { /* a call this rank has given up: drop it */
        if (h->type == MSG_RTS)
            nack(t, peer, h, IC_ERR_REVOKED);
        free(m);
        return IC_OK;
    }
    for (mpi_req_t *r = t->posted; r; r = r->next)
        if (r->peer == peer && same_key(&r->key, h)) {
            list_remove(&t->posted, r);
            deliver(t, r, h, m->data);
            free(m);
            return IC_OK;
        }
    int known = 0;
    uint32_t ours = call_sig(t, h->comm, h->seq, &known);
    if (known && ours != h->sig) { /* a stray message of another call */
        if (h->type == MSG_RTS)
            nack(t, peer, h, IC_ERR_MISMATCH);
        uint64_t comm = h->comm, seq = h->seq;
        uint32_t theirs = h->sig;
        free(m);
        mismatch_found(t, peer, comm, seq, theirs, ours);
        return IC_OK;
    }
    m->next = NULL;
    *t->ux_tail = m;
    t->ux_tail = &m->next;
    return IC_OK;
}

/* Receives every CTL message that has arrived; *events counts them. */
static ic_status_t drain(mpi_transport_t *t, int *events)
{
    for (;;) {
        int flag = 0;
        MPI_Message msg;
        MPI_Status s;
        int err = MPI_Improbe(MPI_ANY_SOURCE, TAG_CTL, t->comm, &flag, &msg, &s);
        if (err != MPI_SUCCESS)
            return mpi_error(err, "MPI_Improbe", -1);
        if (!flag)
            return IC_OK;
        int len = 0;
        MPI_Get_count(&s, MPI_BYTE, &len);
        if (len < (int)sizeof(mpi_hdr_t))
            return ic_set_error(IC_ERR_TRANSPORT, "mpi: a %d-byte message from rank %d is not "
                                                  "an intercom message", len, s.MPI_SOURCE);
        mpi_ux_t *m = malloc(sizeof *m - sizeof m->h + (size_t)len);
        if (!m)
            return ic_set_error(IC_ERR_NO_MEM, "mpi: out of memory for a %d-byte message", len);
        err = MPI_Mrecv(&m->h, len, MPI_BYTE, &msg, MPI_STATUS_IGNORE);
        if (err != MPI_SUCCESS) {
            free(m);
            return mpi_error(err, "MPI_Mrecv", s.MPI_SOURCE);
        }
        m->peer = s.MPI_SOURCE;
        if (m->h.type == MSG_EAGER && m->h.bytes != (uint64_t)len - sizeof(mpi_hdr_t)) {
            free(m);
            return ic_set_error(IC_ERR_TRANSPORT, "mpi: a message from rank %d is truncated",
                                s.MPI_SOURCE);
        }
        (*events)++;
        ic_status_t st = on_message(t, s.MPI_SOURCE, m);
        if (st != IC_OK)
            return st;
    }
}

/* Advances the payload parts in flight; *events counts completions. */
static void advance_xfers(mpi_transport_t *t, int *events)
{
    for (mpi_req_t **p = &t->xfer; *p;) {
        mpi_req_t *r = *p;
        int flag = 0;
        MPI_Status s;
        int err = MPI_Test(&r->mreq, &flag, &s);
        if (err != MPI_SUCCESS) {
            *p = r->next;
            finish(r, mpi_error(err, "MPI_Test", r->peer));
            (*events)++;
            continue;
        }
        if (!flag) {
            p = &r->next;
            continue;
        }
        (*events)++;
        size_t n = r->bytes - r->done_bytes;
        r->done_bytes += n < PART_MAX ? n : PART_MAX;
        *p = r->next;
        if (r->done_bytes == r->bytes) {
            finish(r, IC_OK);
        } else {
            ic_status_t st = post_part(t, r); /* pushes r at the head again */
            if (st != IC_OK)
                finish(r, st);
        }
    }
}

static ic_status_t progress_events(mpi_transport_t *t, int *events)
{
    int ev = 0;
    ic_status_t st = drain(t, &ev);
    advance_xfers(t, &ev);
    reap_out(t);
    *events += ev;
    t->base.events += (uint64_t)ev;
    return st;
}

/* ---- ops -------------------------------------------------------------- */

static ic_status_t check_args(ic_transport_t *tt, int peer, const void *buf, size_t bytes,
                              ic_tx_req_t *req, const char *fn)
{
    if (!tt || !req)
        return ic_set_error(IC_ERR_ARG, "mpi %s: transport or req is NULL", fn);
    if (peer < 0 || peer >= tt->size)
        return ic_set_error(IC_ERR_ARG, "mpi %s: peer %d is not in 0..%d", fn, peer, tt->size - 1);
    if (!buf && bytes > 0)
        return ic_set_error(IC_ERR_BUFFER, "mpi %s: buf is NULL for %zu bytes", fn, bytes);
    return IC_OK;
}

static mpi_req_t *init_req(ic_tx_req_t *req, int kind, int peer, ic_match_key_t key, void *buf,
                           size_t bytes)
{
    mpi_req_t *r = (mpi_req_t *)(void *)req;
    memset(r, 0, sizeof *r);
    r->magic = RQ_MAGIC;
    r->kind = (uint8_t)kind;
    r->peer = peer;
    r->key = key;
    r->buf = buf;
    r->bytes = bytes;
    return r;
}

static ic_status_t op_isend(ic_transport_t *tt, int peer, ic_match_key_t key, const void *buf,
                            size_t bytes, ic_tx_req_t *req)
{
    mpi_transport_t *t = (mpi_transport_t *)tt;
    ic_status_t st = check_args(tt, peer, buf, bytes, req, "isend");
    if (st != IC_OK)
        return st;
    mpi_req_t *r = init_req(req, RQ_SEND, peer, key, (void *)(uintptr_t)buf, bytes);
    note_call(t, &key);
    const mpi_notice_t *n = notice_find(t, &key);
    if (n) {
        finish(r, ic_notice_error(n));
        return IC_OK;
    }
    mpi_hdr_t h;
    memset(&h, 0, sizeof h);
    h.comm = key.comm;
    h.seq = key.seq;
    h.tag = key.tag;
    h.sig = key.sig;
    h.bytes = bytes;
    if (bytes <= t->eager_max) {
        h.type = MSG_EAGER;
        st = send_copy(t, peer, &h, buf, bytes);
        finish(r, st);
        return IC_OK;
    }
    h.type = MSG_RTS;
    h.rtag = t->next_rtag;
    t->next_rtag = t->next_rtag >= t->tag_ub ? RTAG_FIRST : t->next_rtag + 1;
    r->rtag = h.rtag;
    st = send_copy(t, peer, &h, NULL, 0);
    if (st == IC_OK)
        st = post_part(t, r);
    if (st != IC_OK)
        finish(r, st);
    return IC_OK;
}

static ic_status_t op_irecv(ic_transport_t *tt, int peer, ic_match_key_t key, void *buf,
                            size_t bytes, ic_tx_req_t *req)
{
    mpi_transport_t *t = (mpi_transport_t *)tt;
    ic_status_t st = check_args(tt, peer, buf, bytes, req, "irecv");
    if (st != IC_OK)
        return st;
    mpi_req_t *r = init_req(req, RQ_RECV, peer, key, buf, bytes);
    note_call(t, &key);
    const mpi_notice_t *n = notice_find(t, &key);
    if (n) {
        finish(r, ic_notice_error(n));
        return IC_OK;
    }
    for (mpi_ux_t **p = &t->ux; *p; p = &(*p)->next) {
        mpi_ux_t *u = *p;
        if (u->peer == peer && same_key(&key, &u->h)) {
            *p = u->next;
            if (t->ux_tail == &u->next)
                t->ux_tail = p;
            deliver(t, r, &u->h, u->data);
            free(u);
            return IC_OK;
        }
    }
    r->state = RQ_POSTED;
    /* Appended, so that receives of one key match in posting order. */
    mpi_req_t **tail = &t->posted;
    while (*tail)
        tail = &(*tail)->next;
    *tail = r;
    return IC_OK;
}

static ic_status_t op_test(ic_transport_t *tt, ic_tx_req_t *req, int *done)
{
    mpi_transport_t *t = (mpi_transport_t *)tt;
    mpi_req_t *r = (mpi_req_t *)(void *)req;
    if (!t || !r || !done || r->magic != RQ_MAGIC)
        return ic_set_error(IC_ERR_ARG, "mpi test: not a request of this transport");
    *done = 0;
    if (r->state == RQ_POSTED || r->state == RQ_XFER) {
        int ev = 0;
        ic_status_t st = progress_events(t, &ev);
        if (st != IC_OK)
            return st;
    }
    if (r->state == RQ_DONE) {
        *done = 1;
        return IC_OK;
    }
    if (r->state == RQ_ERROR) {
        r->magic = 0; /* reported once; no longer a live request */
        const mpi_notice_t *n = notice_find(t, &r->key);
        if (n)
            return ic_notice_error(n);
        return ic_set_error((ic_status_t)r->status, "%s", ic_last_error());
    }
    return IC_OK;
}

static ic_status_t op_cancel(ic_transport_t *tt, ic_tx_req_t *req)
{
    mpi_transport_t *t = (mpi_transport_t *)tt;
    mpi_req_t *r = (mpi_req_t *)(void *)req;
    if (!t || !r)
        return ic_set_error(IC_ERR_ARG, "mpi cancel: transport or req is NULL");
    if (r->state == RQ_POSTED) {
        list_remove(&t->posted, r);
    } else if (r->state == RQ_XFER) {
        list_remove(&t->xfer, r);
        drop_part(r);
    }
    if (r->state == RQ_POSTED || r->state == RQ_XFER)
        finish(r, IC_ERR_REVOKED);
    return IC_OK;
}

static ic_status_t op_notify(ic_transport_t *tt, int peer, ic_match_key_t key, int scope,
                             ic_status_t status, const char *text)
{
    mpi_transport_t *t = (mpi_transport_t *)tt;
    if (!t || peer < 0 || peer >= tt->size || peer == tt->rank ||
        (scope != IC_NOTICE_CALL && scope != IC_NOTICE_COMM))
        return ic_set_error(IC_ERR_ARG, "mpi notify: bad transport, peer %d or scope %d", peer,
                            scope);
    char msg[IC_NOTICE_TEXT_MAX];
    snprintf(msg, sizeof msg, "%s", text ? text : "");
    mpi_hdr_t h;
    memset(&h, 0, sizeof h);
    h.type = MSG_NOTICE;
    h.comm = key.comm;
    h.seq = key.seq;
    h.scope = scope;
    h.status = status;
    h.bytes = strlen(msg) + 1;
    return send_copy(t, peer, &h, msg, (size_t)h.bytes);
}

static ic_status_t op_learn(ic_transport_t *tt, const ic_notice_t *n)
{
    if (!tt || !n || (n->scope != IC_NOTICE_CALL && n->scope != IC_NOTICE_COMM))
        return ic_set_error(IC_ERR_ARG, "mpi learn: bad transport or notice");
    return record_notice((mpi_transport_t *)tt, n);
}

static ic_status_t op_progress(ic_transport_t *tt)
{
    int ev = 0;
    return progress_events((mpi_transport_t *)tt, &ev);
}

/* Polls for about 20 us, then yields the CPU between polls up to
 * YIELD_S (other ranks on this core run meanwhile; a reply from another
 * host usually comes within that time), then sleeps SLEEP_NS at a time
 * (MPI offers no blocking wait for "any message of this communicator"
 * that another thread could interrupt), up to timeout_s. */
static ic_status_t op_wait(ic_transport_t *tt, double timeout_s)
{
    mpi_transport_t *t = (mpi_transport_t *)tt;
    unsigned w0 = atomic_load(&t->woken);
    double start = now_s();
    for (;;) {
        int ev = 0;
        ic_status_t st = progress_events(t, &ev);
        if (st != IC_OK || ev > 0 || atomic_load(&t->woken) != w0)
            return st;
        double waited = now_s() - start;
        if (!(waited < timeout_s))
            return IC_OK;
        ic_tx_guard_release(tt);
        if (waited < 20e-6) {
            /* poll */
        } else if (waited < YIELD_S) {
            sched_yield();
        } else {
            struct timespec ts = {0, SLEEP_NS};
            nanosleep(&ts, NULL);
        }
        ic_tx_guard_take(tt);
    }
}

static void op_wake(ic_transport_t *tt)
{
    if (tt)
        atomic_fetch_add(&((mpi_transport_t *)tt)->woken, 1);
}

static ic_status_t op_peer_alive(ic_transport_t *tt, int peer)
{
    if (!tt || peer < 0 || peer >= tt->size)
        return ic_set_error(IC_ERR_ARG, "mpi peer_alive: peer %d is not in range", peer);
    return IC_OK; /* MPI reports failures through errors of its calls */
}

static ic_status_t op_abort(ic_transport_t *tt, int code)
{
    MPI_Abort(((mpi_transport_t *)tt)->comm, code);
    return IC_OK;
}

static ic_status_t op_close(ic_transport_t *tt)
{
    mpi_transport_t *t = (mpi_transport_t *)tt;
    if (!t)
        return IC_OK;
    /* Bounce buffers: MPI finishes small sends on its own; give it a
     * second, then leave what is left to it (and leak those buffers). */
    double start = now_s();
    while (t->out && now_s() - start < 1.0) {
        int ev = 0;
        progress_events(t, &ev);
        if (t->out)
            sched_yield();
    }
    for (mpi_out_t *o = t->out, *next; o; o = next) {
        next = o->next;
        MPI_Request_free(&o->r);
    }
    for (mpi_ux_t *u = t->ux, *next; u; u = next) {
        next = u->next;
        free(u);
    }
    free(t->notices);
    MPI_Comm_free(&t->comm);
    free(t);
    return IC_OK;
}

static const ic_transport_ops_t mpi_ops = {
    .size = sizeof(ic_transport_ops_t),
    .name = "mpi",
    .isend = op_isend,
    .irecv = op_irecv,
    .test = op_test,
    .cancel = op_cancel,
    .notify = op_notify,
    .learn = op_learn,
    .progress = op_progress,
    .wait = op_wait,
    .wake = op_wake,
    .peer_alive = op_peer_alive,
    .abort = op_abort,
    .close = op_close,
};

ic_status_t ic_mpi_transport_open(MPI_Comm comm, size_t eager_max, ic_transport_t **out)
{
    if (!out)
        return ic_set_error(IC_ERR_ARG, "ic_mpi_transport_open: out is NULL");
    mpi_transport_t *t = calloc(1, sizeof *t);
    if (!t)
        return ic_set_error(IC_ERR_NO_MEM, "ic_mpi_transport_open: out of memory");
    int err = MPI_Comm_dup(comm, &t->comm);
    if (err != MPI_SUCCESS) {
        free(t);
        return mpi_error(err, "MPI_Comm_dup", -1);
    }
    MPI_Comm_set_errhandler(t->comm, MPI_ERRORS_RETURN);
    MPI_Comm_rank(t->comm, &t->base.rank);
    MPI_Comm_size(t->comm, &t->base.size);
    int *ub = NULL, flag = 0;
    MPI_Comm_get_attr(t->comm, MPI_TAG_UB, &ub, &flag);
    t->tag_ub = flag && ub && *ub > RTAG_FIRST ? *ub : 32767;
    t->next_rtag = RTAG_FIRST;
    t->eager_max = eager_max ? eager_max : EAGER_DEFAULT;
    if (t->eager_max > INT_MAX - sizeof(mpi_hdr_t))
        t->eager_max = INT_MAX - sizeof(mpi_hdr_t);
    t->ux_tail = &t->ux;
    t->base.ops = &mpi_ops;
    *out = &t->base;
    return IC_OK;
}
