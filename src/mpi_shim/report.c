/*
 * report.c — what the drop-in did (IC_MPI_VERBOSE=1), and its errors as
 * MPI errors.
 *
 * Every call is counted per MPI function (collective x blocking /
 * nonblocking / persistent x int / _c counts): served, with the catalog
 * entry intercom chose, or fallen back, with the reason.  MPI_Finalize
 * prints the table on rank 0 (its own calls: every rank decides alike).
 *
 * Errors: an intercom status maps to an MPI error class; the code
 * returned is one the drop-in added to that class (MPI_Add_error_code)
 * whose string is intercom's message, naming the argument or the peer, so
 * that MPI_Error_string and MPI's default handler show it (Open MPI; MPICH
 * 4.0 keeps its class's text, so with a fatal handler the message also
 * goes to stderr first).  It is raised
 * through the communicator's error handler (MPI_Comm_call_errhandler).
 */
#include "mpi_shim/shim.h"

#include "base/status.h"

#include <ctype.h>
#include <pthread.h>
#include <stdatomic.h>
#include <stdio.h>
#include <string.h>

#define MAX_ALGOS 12

/* Counters a served call updates without the lock (shim_count_served's
 * usual case) are atomic; the rest change under stats_lock.  A served
 * call is counted once, in the slot of its algorithm: the calls served
 * are the sum of algo_n. */
typedef struct fstats {
    const char *_Atomic algo[MAX_ALGOS];
    _Atomic long algo_n[MAX_ALGOS];
    long fallback;
    long why[SHIM_NREASONS];
} fstats_t;

static fstats_t stats[SHIM_NFUNC][SHIM_NFORMS][2];
static pthread_mutex_t stats_lock = PTHREAD_MUTEX_INITIALIZER;

static const char *const reasons[SHIM_NREASONS] = {
    [SHIM_R_DISABLED] = "disabled (IC_MPI_DISABLE)",
    [SHIM_R_INTER] = "intercommunicator",
    [SHIM_R_NONCONTIG] = "non-contiguous datatype",
    [SHIM_R_HETERO] = "heterogeneous datatype",
    [SHIM_R_NOTYPE] = "no intercom datatype",
    [SHIM_R_MINLOC] = "MINLOC/MAXLOC",
    [SHIM_R_OPTYPE] = "op not for this datatype",
    [SHIM_R_NONCOMM] = "non-commutative user op",
    [SHIM_R_USERDERIVED] = "user op on a derived datatype",
    [SHIM_R_OUTSIDE] = "process outside MPI_COMM_WORLD",
    [SHIM_R_NOTSTARTED] = "intercom not started",
    [SHIM_R_BADCOMM] = "invalid communicator",
};

/* The slot of an algorithm whose name is not in one yet (or is, but as
 * another pointer to the same text): under the lock.  Not inlined, so
 * that shim_served_counter's usual case stays a few instructions. */
__attribute__((noinline)) static _Atomic long *new_algo_slot(fstats_t *s, const char *algo)
{
    pthread_mutex_lock(&stats_lock);
    /* Names are the catalog's constants: the same pointer is the same
     * name, and the pointer is compared first. */
    int i = 0;
    while (i < MAX_ALGOS && s->algo[i] && s->algo[i] != algo && strcmp(s->algo[i], algo) != 0)
        i++;
    if (i == MAX_ALGOS)
        i = MAX_ALGOS - 1; /* the last slot collects the rest */
    if (!s->algo[i])
        s->algo[i] = algo;
    pthread_mutex_unlock(&stats_lock);
    return &s->algo_n[i];
}

_Atomic long *shim_served_counter(int coll, shim_form_t form, int wide, const char *algo)
{
    fstats_t *s = &stats[coll][form][wide != 0];
    /* The usual case without the lock: the name has its slot already (a
     * slot, once set, never changes). */
    for (int i = 0; i < MAX_ALGOS; i++) {
        const char *a = atomic_load_explicit(&s->algo[i], memory_order_acquire);
        if (a == algo)
            return &s->algo_n[i];
        if (!a)
            break;
    }
    return new_algo_slot(s, algo);
}

void shim_count_served(int coll, shim_form_t form, int wide, const char *algo)
{
    atomic_fetch_add_explicit(shim_served_counter(coll, form, wide, algo), 1,
                              memory_order_relaxed);
}

void shim_count_fallback(int coll, shim_form_t form, int wide, shim_reason_t why)
{
    fstats_t *s = &stats[coll][form][wide != 0];
    pthread_mutex_lock(&stats_lock);
    s->fallback++;
    s->why[why]++;
    pthread_mutex_unlock(&stats_lock);
}

/* "MPI_Allreduce", "MPI_Iallreduce", "MPI_Allreduce_init", + "_c". */
static void mpi_name(int coll, int form, int wide, char *buf, size_t len)
{
    char low[32], cap[32];
    snprintf(low, sizeof low, "%s",
             coll == SHIM_REDUCE_LOCAL ? "reduce_local" : ic_coll_name((ic_coll_t)coll));
    snprintf(cap, sizeof cap, "%s", low);
    cap[0] = (char)toupper((unsigned char)cap[0]);
    if (form == SHIM_NONBLOCKING)
        snprintf(buf, len, "MPI_I%s%s", low, wide ? "_c" : "");
    else
        snprintf(buf, len, "MPI_%s%s%s", cap, form == SHIM_PERSISTENT ? "_init" : "",
                 wide ? "_c" : "");
}

void shim_report_print(int size)
{
    printf("intercom drop-in report: calls on rank 0 of %d\n", size);
    printf("  %-24s %6s %7s %10s  %s\n", "MPI function", "calls", "served", "fell back",
           "details");
    pthread_mutex_lock(&stats_lock);
    for (int c = 0; c < SHIM_NFUNC; c++)
        for (int f = 0; f < SHIM_NFORMS; f++)
            for (int w = 0; w < 2; w++) {
                fstats_t *s = &stats[c][f][w];
                long served = 0;
                for (int i = 0; i < MAX_ALGOS; i++)
                    served += s->algo_n[i];
                if (served + s->fallback == 0)
                    continue;
                char name[48], details[1024];
                size_t at = 0;
                mpi_name(c, f, w, name, sizeof name);
                details[0] = 0;
                for (int i = 0; i < MAX_ALGOS && s->algo[i]; i++)
                    at += (size_t)snprintf(details + at, sizeof details - at, "%s%s %ld",
                                           i ? ", " : "served: ", s->algo[i], s->algo_n[i]);
                for (int r = 0, first = 1; r < SHIM_NREASONS && at < sizeof details; r++) {
                    if (!s->why[r])
                        continue;
                    at += (size_t)snprintf(details + at, sizeof details - at, "%s%s %ld",
                                           first ? (at ? "; fell back: " : "fell back: ") : ", ",
                                           reasons[r], s->why[r]);
                    first = 0;
                }
                printf("  %-24s %6ld %7ld %10ld  %s\n", name, served + s->fallback, served,
                       s->fallback, details);
            }
    pthread_mutex_unlock(&stats_lock);
    fflush(stdout);
}

/* ---- errors ----------------------------------------------------------- */

static const struct {
    ic_status_t st;
    int cls;
} class_of[] = {
    {IC_ERR_ARG, MPI_ERR_ARG},       {IC_ERR_COUNT, MPI_ERR_COUNT},
    {IC_ERR_ROOT, MPI_ERR_ROOT},     {IC_ERR_DTYPE, MPI_ERR_TYPE},
    {IC_ERR_OP, MPI_ERR_OP},         {IC_ERR_COMM, MPI_ERR_COMM},
    {IC_ERR_BUFFER, MPI_ERR_BUFFER}, {IC_ERR_NO_MEM, MPI_ERR_NO_MEM},
    {IC_ERR_INTERNAL, MPI_ERR_INTERN},
    {IC_ERR_NOT_SUPPORTED, MPI_ERR_UNSUPPORTED_OPERATION},
};
#define NCLASSES (sizeof class_of / sizeof class_of[0])

static int codes[NCLASSES + 1]; /* the drop-in's code per class; last: MPI_ERR_OTHER */
static pthread_mutex_t err_lock = PTHREAD_MUTEX_INITIALIZER;

void shim_errors_init(void)
{
    for (size_t i = 0; i <= NCLASSES; i++)
        if (PMPI_Add_error_code(i < NCLASSES ? class_of[i].cls : MPI_ERR_OTHER, &codes[i]) !=
            MPI_SUCCESS)
            codes[i] = i < NCLASSES ? class_of[i].cls : MPI_ERR_OTHER;
}

int shim_error(MPI_Comm comm, ic_status_t st)
{
    size_t i = 0;
    while (i < NCLASSES && class_of[i].st != st)
        i++;
    char msg[MPI_MAX_ERROR_STRING];
    const char *why = ic_last_error();
    snprintf(msg, sizeof msg, "intercom: %s", why && *why ? why : ic_status_string(st));
    pthread_mutex_lock(&err_lock);
    int code = codes[i];
    PMPI_Add_error_string(code, msg);
    pthread_mutex_unlock(&err_lock);
    /* A fatal handler stops the job with MPI's text for the code; MPICH's
     * ignores the string added to a predefined class, so say it first. */
    MPI_Errhandler eh = MPI_ERRHANDLER_NULL;
    if (PMPI_Comm_get_errhandler(comm, &eh) == MPI_SUCCESS && eh != MPI_ERRHANDLER_NULL) {
        int fatal = eh == MPI_ERRORS_ARE_FATAL;
#ifdef MPI_ERRORS_ABORT
        fatal |= eh == MPI_ERRORS_ABORT;
#endif
        if (fatal)
            fprintf(stderr, "%s\n", msg);
        PMPI_Errhandler_free(&eh);
    }
    PMPI_Comm_call_errhandler(comm, code);
    return code;
}
