/*
 * mpi_internal.h — private to src/transport/mpi: the wire header, the
 * request, the instance, and what the files of the backend share
 * (mpi_transport.c: the ops; mpi_progress.c: sending, matching, progress;
 * mpi_notice.c: notices and stray messages).
 */
#ifndef IC_TRANSPORT_MPI_INTERNAL_H
#define IC_TRANSPORT_MPI_INTERNAL_H

#include "transport/mpi/mpi_transport.h"

#include <stdatomic.h>
#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#define TAG_CTL 1
#define RTAG_FIRST 2
#define PART_MAX ((size_t)1 << 30)
#define EAGER_DEFAULT ((size_t)16 << 10)
#define RQ_MAGIC 0x6d706972u /* "mpir" */
#define YIELD_S 2e-3
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
    ic_calls_t calls; /* the last calls posted (transport/notice.c) */
} mpi_transport_t;

/* ---- small list and request helpers ---------------------------------- */

static inline void list_remove(mpi_req_t **head, mpi_req_t *r)
{
    for (mpi_req_t **p = head; *p; p = &(*p)->next)
        if (*p == r) {
            *p = r->next;
            r->next = NULL;
            return;
        }
}

static inline void list_push(mpi_req_t **head, mpi_req_t *r)
{
    r->next = *head;
    *head = r;
}

static inline void finish(mpi_req_t *r, ic_status_t st)
{
    r->state = st == IC_OK ? RQ_DONE : RQ_ERROR;
    r->status = st;
}

static inline bool same_key(const ic_match_key_t *k, const mpi_hdr_t *h)
{
    return k->comm == h->comm && k->seq == h->seq && k->tag == h->tag;
}

/* ---- mpi_progress.c -------------------------------------------------- */

/* IC_ERR_PEER_FAILED naming the MPI call, the peer and MPI's message. */
ic_status_t ic_mpi_error(int err, const char *what, int peer);
/* Hands a CTL message (header + len bytes of data) to MPI with its own copy. */
ic_status_t ic_mpi_send_copy(mpi_transport_t *t, int peer, const mpi_hdr_t *h, const void *data,
                             size_t len);
/* Frees the bounce buffers MPI is done with. */
void ic_mpi_reap_out(mpi_transport_t *t);
/* Posts the next payload part of r (a send, or a matched receive). */
ic_status_t ic_mpi_post_part(mpi_transport_t *t, mpi_req_t *r);
/* A posted receive r meets message (h, data) from its peer. */
void ic_mpi_deliver(mpi_transport_t *t, mpi_req_t *r, const mpi_hdr_t *h, const void *data);
/* Drains CTL messages, advances payload parts, frees bounce buffers;
 * *events counts what happened (also added to t->base.events). */
ic_status_t ic_mpi_progress(mpi_transport_t *t, int *events);

/* ---- mpi_notice.c ---------------------------------------------------- */

/* The notice that covers key, or NULL. */
const mpi_notice_t *ic_mpi_notice_find(const mpi_transport_t *t, const ic_match_key_t *k);
/* Withdraws an in-flight payload part of r. */
void ic_mpi_drop_part(mpi_req_t *r);
/* Records n and fails what it covers. */
ic_status_t ic_mpi_record_notice(mpi_transport_t *t, const mpi_notice_t *n);
/* Notes the call of key; checks the unexpected messages of it. */
void ic_mpi_note_call(mpi_transport_t *t, const ic_match_key_t *key);
/* A message of a remembered call with another signature: the
 * communicator fails here (true); false when it is not a stray. */
bool ic_mpi_stray(mpi_transport_t *t, int peer, const mpi_hdr_t *h);

#endif
