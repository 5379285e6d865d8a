/*
 * notice.c — what every backend does alike with failure notices
 * (transport.h): which calls a notice covers, the error it fails them
 * with, the notice of a mismatch, and the memory of the last calls.
 */
#include "transport/transport.h"

#include "base/status.h"

#include <stdio.h>
#include <string.h>

int ic_notice_covers(const ic_notice_t *n, const ic_match_key_t *k)
{
    return n->comm == k->comm && (n->scope == IC_NOTICE_COMM ? k->seq >= n->seq : k->seq == n->seq);
}

ic_status_t ic_notice_error(const ic_notice_t *n)
{
    if (n->status == IC_ERR_MISMATCH)
        return ic_set_error(IC_ERR_MISMATCH, "%s", n->text);
    if (n->scope == IC_NOTICE_CALL)
        return ic_set_error((ic_status_t)n->status,
                            "rank %d (of the job) rejected its arguments of this call: %s",
                            n->from, n->text);
    return ic_set_error((ic_status_t)n->status,
                        "the communicator failed on rank %d (of the job): %s", n->from, n->text);
}

ic_status_t ic_sig_mismatch_error(const char *who, int peer, const ic_match_key_t *key,
                                  uint32_t sig)
{
    return ic_set_error(IC_ERR_MISMATCH,
                        "%s: rank %d's message (comm %llu, seq %llu, tag %u) belongs to another "
                        "call (signature %08x, this call's %08x): the ranks called different "
                        "collectives, roots, counts, datatypes or operations",
                        who, peer, (unsigned long long)key->comm, (unsigned long long)key->seq,
                        key->tag, sig, key->sig);
}

void ic_notice_mismatch(ic_notice_t *n, const char *who, int from, uint64_t comm, uint64_t seq,
                        uint32_t theirs, uint32_t ours)
{
    memset(n, 0, sizeof *n);
    n->comm = comm;
    n->seq = seq;
    n->scope = IC_NOTICE_COMM;
    n->status = IC_ERR_MISMATCH;
    n->from = from;
    snprintf(n->text, sizeof n->text,
             "%s: rank %d sent a message of call %llu with signature %08x, this rank's call "
             "has %08x (the ranks called different collectives or arguments)",
             who, from, (unsigned long long)seq, theirs, ours);
}

/* The slot of call comm/seq: consecutive calls of one communicator take
 * consecutive slots. */
static size_t calls_slot(uint64_t comm, uint64_t seq)
{
    return (size_t)((seq + comm * 0x9E3779B97F4A7C15ull) % IC_CALLS_KEPT);
}

bool ic_calls_note(ic_calls_t *m, const ic_match_key_t *key)
{
    if (m->n > 0 && m->last_comm == key->comm && m->last_seq == key->seq)
        return false;
    size_t j = calls_slot(key->comm, key->seq);
    m->c[j].comm = key->comm;
    m->c[j].seq = key->seq;
    m->c[j].sig = key->sig;
    m->c[j].used = 1;
    m->last_comm = key->comm;
    m->last_seq = key->seq;
    m->n++;
    return true;
}

bool ic_calls_find(const ic_calls_t *m, uint64_t comm, uint64_t seq, uint32_t *sig)
{
    size_t j = calls_slot(comm, seq);
    if (!m->c[j].used || m->c[j].comm != comm || m->c[j].seq != seq)
        return false;
    *sig = m->c[j].sig;
    return true;
}
