/*
 * netns_ucx_close.c — LD_PRELOAD for MPICH ranks started by netns_hosts.sh.
 *
 * MPICH 4.0.2 (ch4:ucx) with UCX 1.13 over TCP often hangs in MPI_Finalize:
 * each rank closes its endpoints (ucp_disconnect_nb) and polls until all
 * closes complete (ucp_request_is_completed); a peer that has finished its
 * own closes waits in the PMI barrier without progressing UCX, and the
 * close of an endpoint to it may never complete.  It happens without
 * namespaces too (MPIR_CVAR_NOLOCAL=1 UCX_TLS=tcp,self mpiexec.mpich -n 4
 * on one host: ~40% of runs of an MPI hello) and is not intercom's.
 *
 * Here, once NETNS_UCX_CLOSE_TIMEOUT seconds (default 10) have passed since
 * the first close, a close still pending is reported complete, so MPICH
 * goes on to destroy the worker.  By then every rank has completed all of
 * its communication (it is in MPI_Finalize), so nothing is lost; a rank
 * that still needed data would fail, not pass.  Prints one line when used.
 * No UCX headers needed: the handles are pointers.
 */
#define _GNU_SOURCE
#include <dlfcn.h>
#include <stdio.h>
#include <stdlib.h>
#include <time.h>

static double deadline;
static int given_up;

static double now(void)
{
    struct timespec ts;
    clock_gettime(CLOCK_MONOTONIC, &ts);
    return (double)ts.tv_sec + (double)ts.tv_nsec * 1e-9;
}

void *ucp_disconnect_nb(void *ep)
{
    static void *(*real)(void *);
    if (!real)
        *(void **)&real = dlsym(RTLD_NEXT, "ucp_disconnect_nb");
    if (deadline == 0) {
        const char *s = getenv("NETNS_UCX_CLOSE_TIMEOUT");
        deadline = now() + (s ? atof(s) : 10.0);
    }
    return real(ep);
}

int ucp_request_is_completed(void *request)
{
    static int (*real)(void *);
    if (!real)
        *(void **)&real = dlsym(RTLD_NEXT, "ucp_request_is_completed");
    if (real(request))
        return 1;
    if (deadline == 0 || now() < deadline)
        return 0;
    if (!given_up++)
        fprintf(stderr, "netns_ucx_close: an endpoint close still pending in MPI_Finalize "
                        "after the timeout; treated as done (MPICH/UCX finalize hang)\n");
    return 1;
}
