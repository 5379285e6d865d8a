/*
 * intercom_run.c — the launcher: intercom-run -n P [options] program args...
 *
 * Creates the job's shared-memory segment, forks and execs P ranks with
 * their bootstrap environment (IC_SHM_NAME, IC_RANK, IC_SIZE), forwards
 * their output (optionally prefixed with "[rank] "), and returns the first
 * non-zero exit status.  When a rank dies, or the timeout passes, or the
 * launcher is interrupted, it tells the surviving ranks (they then fail
 * with IC_ERR_PEER_FAILED instead of waiting), gives them --grace seconds
 * (default 1) to leave with their own error, stops the rest (SIGTERM, then
 * SIGKILL 2 s later), says which rank failed and how, and removes the
 * segment.  A timeout or an interrupt stops the ranks at once.
 *
 * When the job has no more ranks than the CPUs the launcher may use, rank
 * r is bound to the r-th of those CPUs (as MPI launchers do), so that two
 * ranks never share a core while another sits idle; --no-bind turns it off.
 *
 * Whom to blame.  When ranks fail, the survivors of a dead rank often exit
 * with an error of their own before the launcher has reaped the dead one.
 * So when the first rank ends badly, the launcher looks (without reaping:
 * waitid with WNOWAIT) at every other rank that has already ended: a rank
 * killed by a signal is the cause rather than a rank that exited with an
 * error, and among exits, the first rank the survivors found dead (the
 * segment's record) rather than the one reaped first.
 *
 * The ranks die with the launcher: each is started with PR_SET_PDEATHSIG
 * = SIGKILL, so killing intercom-run (even with SIGKILL) leaves no orphans.
 */
#define _GNU_SOURCE
#include "transport/shm/shm.h"

#include <errno.h>
#include <fcntl.h>
#include <poll.h>
#include <sched.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/prctl.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

static volatile sig_atomic_t interrupted;

static void on_signal(int sig) { interrupted = sig; }

static void usage(void)
{
    fprintf(stderr, "usage: intercom-run -n P [--timeout SECONDS] [--tag-output] [--no-bind] "
                    "program [args...]\n"
                    "  -n P            number of ranks (1..1024)\n"
                    "  --timeout S     stop the job after S seconds (exit status 124)\n"
                    "  --tag-output    prefix every output line with [rank]\n"
                    "  --no-bind       do not bind rank r to the r-th CPU when P <= CPUs\n"
                    "  --grace S       after a rank fails, give the others S seconds to leave\n"
                    "                  with their own error before stopping them (default 1)\n"
                    "  --show-segment  print the job's shared-memory segment name on stderr\n");
}

static double now(void)
{
    struct timespec ts;
    clock_gettime(CLOCK_MONOTONIC, &ts);
    return (double)ts.tv_sec + (double)ts.tv_nsec * 1e-9;
}

typedef struct rank_io {
    int fd[2];        /* read ends of stdout, stderr pipes, -1 when closed */
    char *part[2];    /* unfinished line */
    size_t plen[2];
} rank_io_t;

/* Writes complete lines of data to out with a "[rank] " prefix, keeping
 * the unfinished tail for later. */
static void forward(rank_io_t *io, int k, int rank, const char *data, size_t n, FILE *out)
{
    char *buf = realloc(io->part[k], io->plen[k] + n + 1);
    if (!buf)
        return;
    memcpy(buf + io->plen[k], data, n);
    size_t len = io->plen[k] + n, start = 0;
    for (size_t i = 0; i < len; i++)
        if (buf[i] == '\n') {
            fprintf(out, "[%d] %.*s\n", rank, (int)(i - start), buf + start);
            start = i + 1;
        }
    memmove(buf, buf + start, len - start);
    io->part[k] = buf;
    io->plen[k] = len - start;
    fflush(out);
}

static void drain(rank_io_t *io, int nranks, int timeout_ms)
{
    struct pollfd pf[2 * 1024];
    int map[2 * 1024], n = 0;
    for (int r = 0; r < nranks; r++)
        for (int k = 0; k < 2; k++)
            if (io[r].fd[k] >= 0) {
                pf[n] = (struct pollfd){io[r].fd[k], POLLIN, 0};
                map[n++] = r * 2 + k;
            }
    if (n == 0) {
        if (timeout_ms > 0)
            poll(NULL, 0, timeout_ms);
        return;
    }
    if (poll(pf, (nfds_t)n, timeout_ms) <= 0)
        return;
    for (int i = 0; i < n; i++) {
        if (!(pf[i].revents & (POLLIN | POLLHUP | POLLERR)))
            continue;
        int r = map[i] / 2, k = map[i] % 2;
        char data[4096];
        ssize_t got = read(pf[i].fd, data, sizeof data);
        if (got > 0) {
            forward(&io[r], k, r, data, (size_t)got, k ? stderr : stdout);
        } else if (got == 0 || errno != EINTR) {
            if (io[r].plen[k]) /* last line without newline */
                forward(&io[r], k, r, "\n", 1, k ? stderr : stdout);
            close(io[r].fd[k]);
            io[r].fd[k] = -1;
        }
    }
}

/* Binds the calling process to the r-th CPU of set (a child, before exec). */
static void bind_to(const cpu_set_t *set, int r)
{
    for (int cpu = 0, seen = 0; cpu < CPU_SETSIZE; cpu++) {
        if (!CPU_ISSET(cpu, set))
            continue;
        if (seen++ == r) {
            cpu_set_t one;
            CPU_ZERO(&one);
            CPU_SET(cpu, &one);
            sched_setaffinity(0, sizeof one, &one); /* best effort */
            return;
        }
    }
}

/* The rank to blame when rank r ended with status: a rank that has
 * already ended by a signal, else the rank the survivors found dead first
 * (recorded in the segment), else r.  *st gets the blamed rank's status
 * (0 when it is only known from the segment). */
static int culprit(ic_shm_job_t *job, const pid_t *pid, const int *alive, int nranks, int r,
                   int status, int *st)
{
    *st = status;
    if (WIFSIGNALED(status))
        return r;
    int first = ic_shm_job_first_failed(job), first_status = -1;
    for (int q = 0; q < nranks; q++) {
        siginfo_t si;
        memset(&si, 0, sizeof si);
        if (q == r || !alive[q] ||
            waitid(P_PID, (id_t)pid[q], &si, WEXITED | WNOHANG | WNOWAIT) != 0 || si.si_pid == 0)
            continue;
        if (si.si_code == CLD_KILLED || si.si_code == CLD_DUMPED) {
            *st = si.si_status & 0x7f; /* as a wait status: killed by that signal */
            return q;
        }
        if (q == first) /* as a wait status: exited with that code */
            first_status = (si.si_status & 0xff) << 8;
    }
    if (first >= 0 && first < nranks && first != r) {
        /* Found dead by its peers a moment before it finished exiting:
         * give it up to 200 ms to become reapable, for its real status. */
        for (int k = 0; k < 200 && first_status < 0 && alive[first]; k++) {
            siginfo_t si;
            memset(&si, 0, sizeof si);
            if (waitid(P_PID, (id_t)pid[first], &si, WEXITED | WNOHANG | WNOWAIT) == 0 &&
                si.si_pid != 0)
                first_status = si.si_code == CLD_EXITED ? (si.si_status & 0xff) << 8
                                                        : si.si_status & 0x7f;
            else
                usleep(1000);
        }
        *st = first_status >= 0 ? first_status : 0;
        return first;
    }
    return r;
}

static void describe_status(int rank, int status)
{
    if (WIFSIGNALED(status))
        fprintf(stderr, "intercom-run: rank %d was killed by signal %d (%s)\n", rank,
                WTERMSIG(status), strsignal(WTERMSIG(status)));
    else if (WIFEXITED(status))
        fprintf(stderr, "intercom-run: rank %d exited with status %d\n", rank,
                WEXITSTATUS(status));
}

int main(int argc, char **argv)
{
    int nranks = 0, tag = 0, bind = 1, argi = 1, show_segment = 0;
    double timeout = 0, grace = 1.0;
    for (; argi < argc && argv[argi][0] == '-'; argi++) {
        if (strcmp(argv[argi], "-n") == 0 && argi + 1 < argc) {
            nranks = atoi(argv[++argi]);
        } else if (strcmp(argv[argi], "--timeout") == 0 && argi + 1 < argc) {
            timeout = atof(argv[++argi]);
        } else if (strcmp(argv[argi], "--tag-output") == 0) {
            tag = 1;
        } else if (strcmp(argv[argi], "--no-bind") == 0) {
            bind = 0;
        } else if (strcmp(argv[argi], "--grace") == 0 && argi + 1 < argc) {
            grace = atof(argv[++argi]);
        } else if (strcmp(argv[argi], "--show-segment") == 0) {
            show_segment = 1;
        } else if (strcmp(argv[argi], "--") == 0) {
            argi++;
            break;
        } else {
            usage();
            return 2;
        }
    }
    if (nranks < 1 || nranks > 1024 || argi >= argc || timeout < 0 || !(grace >= 0)) {
        usage();
        return 2;
    }
    char name[64], num[32];
    ic_shm_job_t *job = NULL;
    if (ic_shm_job_create(nranks, &job, name, sizeof name) != IC_OK) {
        fprintf(stderr, "intercom-run: cannot create the job: %s\n", ic_last_error());
        return 1;
    }
    if (show_segment)
        fprintf(stderr, "intercom-run: segment %s\n", name);
    struct sigaction sa = {0};
    sa.sa_handler = on_signal;
    sigaction(SIGINT, &sa, NULL);
    sigaction(SIGTERM, &sa, NULL);
    sigaction(SIGHUP, &sa, NULL);
    pid_t *pid = calloc((size_t)nranks, sizeof(pid_t));
    rank_io_t *io = calloc((size_t)nranks, sizeof(rank_io_t));
    int *alive = calloc((size_t)nranks, sizeof(int));
    if (!pid || !io || !alive) {
        fprintf(stderr, "intercom-run: out of memory\n");
        ic_shm_job_destroy(job);
        return 1;
    }
    cpu_set_t cpus;
    if (bind && (sched_getaffinity(0, sizeof cpus, &cpus) != 0 || CPU_COUNT(&cpus) < nranks))
        bind = 0;
    setenv("IC_SHM_NAME", name, 1);
    snprintf(num, sizeof num, "%d", nranks);
    setenv("IC_SIZE", num, 1);
    int started = 0, result = 0, failed_rank = -1;
    for (int r = 0; r < nranks; r++) {
        int out[2] = {-1, -1}, err[2] = {-1, -1};
        io[r].fd[0] = io[r].fd[1] = -1;
        if (tag && (pipe2(out, O_CLOEXEC) || pipe2(err, O_CLOEXEC))) {
            perror("intercom-run: pipe");
            result = 1;
            break;
        }
        snprintf(num, sizeof num, "%d", r);
        setenv("IC_RANK", num, 1);
        pid_t launcher = getpid();
        pid[r] = fork();
        if (pid[r] == 0) {
            /* Die with the launcher; it may have died before this line. */
            if (prctl(PR_SET_PDEATHSIG, SIGKILL) != 0 || getppid() != launcher)
                _exit(126);
            signal(SIGINT, SIG_DFL);
            signal(SIGTERM, SIG_DFL);
            signal(SIGHUP, SIG_DFL);
            if (bind)
                bind_to(&cpus, r);
            if (tag) {
                dup2(out[1], 1);
                dup2(err[1], 2);
                close(out[0]);
                close(out[1]);
                close(err[0]);
                close(err[1]);
            }
            execvp(argv[argi], argv + argi);
            fprintf(stderr, "intercom-run: cannot run %s: %s\n", argv[argi], strerror(errno));
            _exit(127);
        }
        if (pid[r] < 0) {
            perror("intercom-run: fork");
            result = 1;
            break;
        }
        if (tag) {
            close(out[1]);
            close(err[1]);
            io[r].fd[0] = out[0];
            io[r].fd[1] = err[0];
        }
        alive[r] = 1;
        started++;
    }
    double start = now(), kill_at = 0, term_at = 0;
    int running = started, stopping = result != 0;
    while (running > 0) {
        drain(io, nranks, 20);
        int status;
        pid_t w;
        while ((w = waitpid(-1, &status, WNOHANG)) > 0) {
            int r = 0;
            while (r < nranks && pid[r] != w)
                r++;
            if (r == nranks || !alive[r])
                continue;
            alive[r] = 0;
            running--;
            int bad = !WIFEXITED(status) || WEXITSTATUS(status) != 0;
            int code = 0, aborter = ic_shm_job_aborted(job, &code);
            if (bad && !stopping && aborter >= 0) {
                /* ic_abort: the job's status is the aborting rank's code,
                 * whoever exits first. */
                fprintf(stderr, "intercom-run: rank %d aborted the job (code %d)\n", aborter,
                        code);
                failed_rank = aborter;
                result = code;
                stopping = 1;
                term_at = now() + grace;
            }
            if (bad && !stopping) {
                int cst, c = culprit(job, pid, alive, nranks, r, status, &cst);
                if (c != r && cst == 0) /* known dead from the segment only */
                    fprintf(stderr, "intercom-run: rank %d failed first (its peers found it "
                                    "dead)\n", c);
                else
                    describe_status(c, cst);
                failed_rank = c;
                result = cst == 0 && c != r ? 1
                         : WIFEXITED(cst)   ? WEXITSTATUS(cst)
                                            : 128 + WTERMSIG(cst);
                ic_shm_job_mark_failed(job, c, cst);
                stopping = 1;
                term_at = now() + grace; /* the survivors fail by themselves meanwhile */
            }
        }
        if (!stopping && timeout > 0 && now() - start > timeout) {
            fprintf(stderr, "intercom-run: timeout after %.1f s, stopping the job\n", timeout);
            ic_shm_job_mark_failed(job, -1, 0);
            result = 124;
            stopping = 1;
        }
        if (!stopping && interrupted) {
            fprintf(stderr, "intercom-run: interrupted, stopping the job\n");
            ic_shm_job_mark_failed(job, -1, 0);
            result = 128 + interrupted;
            stopping = 1;
        }
        if (interrupted && term_at > 0)
            term_at = now(); /* Ctrl-C during the grace period: stop now */
        if (stopping && kill_at == 0 && (term_at == 0 || now() >= term_at)) {
            for (int r = 0; r < nranks; r++)
                if (alive[r])
                    kill(pid[r], SIGTERM);
            kill_at = now() + 2.0;
        }
        if (stopping && kill_at > 0 && now() > kill_at) {
            for (int r = 0; r < nranks; r++)
                if (alive[r])
                    kill(pid[r], SIGKILL);
            kill_at = now() + 3600;
        }
    }
    for (int k = 0; k < 50; k++) /* the rest of the output */
        drain(io, nranks, 0);
    ic_shm_job_destroy(job);
    if (failed_rank >= 0)
        fprintf(stderr, "intercom-run: job failed (rank %d); the other ranks were stopped\n",
                failed_rank);
    for (int r = 0; r < nranks; r++)
        for (int k = 0; k < 2; k++)
            free(io[r].part[k]);
    free(pid);
    free(io);
    free(alive);
    return result;
}
