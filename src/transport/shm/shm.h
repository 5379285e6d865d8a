/*
 * shm.h — the shared-memory transport: processes of one job on one host.
 *
 * The launcher (tools/intercom-run) creates the job's segment with
 * ic_shm_job_create and passes its name to the ranks in the environment
 * (IC_SHM_NAME, IC_RANK, IC_SIZE); each rank attaches with ic_shm_open.
 * The segment is created with O_EXCL, mode 0600 and a name with at least
 * 64 random bits, and is unlinked as soon as every rank has attached (by
 * the last rank to attach), or by ic_shm_job_destroy if some never do.
 */
#ifndef IC_TRANSPORT_SHM_H
#define IC_TRANSPORT_SHM_H

#include "transport/transport.h"

typedef struct ic_shm_job ic_shm_job_t;

/* The most ranks one job may have. */
#define IC_SHM_MAX_RANKS 256

/* Launcher side: creates the segment for nranks ranks and writes its name
 * (for shm_open, starting with '/') into name. */
ic_status_t ic_shm_job_create(int nranks, ic_shm_job_t **job, char *name, size_t namelen);
/* How many ranks have attached so far. */
int ic_shm_job_attached(const ic_shm_job_t *job);
/* Records that rank died (status as from waitpid) so that every other
 * rank's transport calls fail with IC_ERR_PEER_FAILED within a bounded
 * time instead of waiting forever. */
void ic_shm_job_mark_failed(ic_shm_job_t *job, int rank, int status);
/* The first rank marked failed in the segment (by the launcher, or by a
 * rank that found it dead), or -1. */
int ic_shm_job_first_failed(const ic_shm_job_t *job);
/* The rank that aborted the job (ops->abort) and its code, or -1. */
int ic_shm_job_aborted(const ic_shm_job_t *job, int *code);
/* Unlinks the segment if it still exists, unmaps it, frees job. */
ic_status_t ic_shm_job_destroy(ic_shm_job_t *job);

/* Rank side: attaches rank of size to the segment called name. */
ic_status_t ic_shm_open(const char *name, int rank, int size, ic_transport_t **out);

/* Whether the single-copy path (process_vm_readv) is in use on t. */
int ic_shm_single_copy(const ic_transport_t *t);

#endif
