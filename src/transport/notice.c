/*
 * notice.c — what every backend does alike with a failure notice
 * (transport.h): which calls it covers, and the error it fails them with.
 */
#include "transport/transport.h"

#include "base/status.h"

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
