/*
 * route.h — a transport made of two: one communicator's peers reached
 * some through a local backend (shm, the ranks on this host) and the rest
 * through a remote one (MPI, the ranks on other hosts), chosen per peer
 * and invisible to the algorithms above.
 */
#ifndef IC_TRANSPORT_ROUTE_H
#define IC_TRANSPORT_ROUTE_H

#include "transport/transport.h"

/* Opens a routing transport of size ranks in which this process is rank.
 * Peer i goes through local as its rank local_rank[i] when local_rank[i]
 * >= 0, and otherwise through remote as rank i (remote's ranks are the
 * routing transport's).  local may be NULL when every local_rank[i] < 0
 * but this rank's own; remote may be NULL when every peer is local.  The
 * new transport owns both (its close closes them); local_rank is copied. */
ic_status_t ic_route_open(int rank, int size, ic_transport_t *local, const int *local_rank,
                          ic_transport_t *remote, ic_transport_t **out);

/* How many peers (this rank excluded) t reaches through its local and its
 * remote backend; for a transport that is not a routing one, all are
 * counted as local. */
void ic_route_counts(const ic_transport_t *t, int *nlocal, int *nremote);

#endif
