#!/bin/bash
# dropin_compare.sh — the MPI drop-in (libintercom_mpi.so) next to the MPI
# it replaces: the same unmodified MPI program (bench/dropin_bench.c, all 16
# collectives) run without and with LD_PRELOAD=libintercom_mpi.so.
#
#   bench/dropin_compare.sh [--impl openmpi|mpich|both] [-p 2,4] [--hosts 3x2|none]
#                           [--sizes 8,4K,64K,1M,16M] [--reps 5] [--host-reps 3]
#                           [--colls all|bcast,...] [--build DIR] [--stall 60]
#                           [--sync mpi|pmpi|window] [--name PREFIX] [--bind] [--touch]
#   bench/dropin_compare.sh --report bench/results/dropin-DATE-HOST.csv
#
# Builds what it needs: Debian's Open MPI and MPICH (scripts/deps.sh mpi)
# and gnuplot-nox (scripts/deps.sh gnuplot) if missing, the drop-in targets
# intercom_dropin_<impl> in DIR (default build-bench, Release), and
# DIR/dropin_bench_<impl> with that MPI's mpicc.
#
# Configurations: for each MPI, one job of P ranks on this host for each P
# of -p (Open MPI: mpirun.openmpi --oversubscribe --allow-run-as-root --mca
# btl self,vader,tcp; MPICH: mpiexec.mpich), and with --hosts HxK one job
# of H*K ranks on H pretend hosts of K ranks each (tests/mpi/netns_hosts.sh;
# root needed, skipped with a note otherwise).  For each configuration,
# --reps repetitions (--host-reps for the pretend hosts: their oversubscribed
# TCP runs are slow); in each, one run without and one with the drop-in,
# which one goes first alternating between repetitions.  The drop-in reaches
# the ranks only (-x LD_PRELOAD=... / -genv LD_PRELOAD ...; on the pretend
# hosts MPICH's ranks preload tests/mpi/netns_ucx_close.so in both runs).
#
# Time limits.  A run is stopped when it prints nothing for --stall seconds
# (a cell is timed in one go, so this is the limit per cell) or stays in
# MPI_Finalize for 30 s after its last cell (the finalize is then recorded
# as killed, its cells count).  The cell it was in is recorded "timeout",
# the same collective's larger sizes "skipped" for that library in this and
# the later repetitions of the configuration, and the run goes on with the
# cells left in a new job.  A wrong result (the program prints FAIL) is
# recorded "fail" and the run goes on likewise.
#
# Output:
#   bench/results/dropin-DATE-HOST.csv  one row per run and cell: impl, p,
#       hosts (1 or HxK), coll, bytes, rep, lib (mpi|intercom), median_us,
#       min_us, iters, status (ok|timeout|fail|crash|skipped|error)
#   bench/results/dropin-DATE-HOST.log  every job's command and output
#   docs/perf/dropin-<impl>.md  per configuration: the ratio intercom / MPI,
#       the median over repetitions of the per-repetition ratio of the
#       per-run medians, with the spread (lowest and highest of those
#       ratios), and both times (medians over repetitions)
#   docs/perf/dropin-<impl>-<p2|p4|3x2>-{times,ratio}.png (bench/dropin_plot.gp)
# --report CSV only remakes the tables and figures from a CSV.
#
# --bind: the launcher binds the ranks of this host to its cores round
# robin, in both runs (Open MPI: --bind-to core:overload-allowed --map-by
# core; MPICH: -bind-to core), so that 4 ranks on 2 cores stay 2 and 2
# instead of the kernel moving them (3 and 1 for a while, then 2 and 2:
# docs/perf/placement-p4.md).  The pretend hosts' jobs (--hosts) stay unbound.
#
# --touch: every rank rewrites its input before every timed call (untimed;
# dropin_bench --touch), in every run, as a program that has just computed
# its data would: a peer's single-copy read then finds the lines in the
# writer's cache, not in its own from the call before (docs/benchmarks.md,
# "Touched inputs").  Use with --name (e.g. --name touch) to keep the files
# apart from untouched runs.
#
# --name PREFIX: files are named PREFIX-... instead of dropin-... (bench/compare
# uses it so that its runs leave the drop-in's own tables alone).
#
# --sync pmpi: the benchmark's timing barrier and its allreduce of the
# times are PMPI_Barrier / PMPI_Allreduce, MPI's own in both runs, so that
# only the timed call differs (default mpi: MPI_Barrier, which the drop-in
# serves like any other call).  Its files are named dropin-pmpi-... and
# docs/perf/dropin-<impl>-pmpi*.
# --sync window: no barrier before a call; every rank starts iteration i at
# one common instant and the time runs from it (bench/dropin_bench.c's
# header says why); the window's untimed barrier, broadcast and allreduces
# are the library's own (intercom's under the drop-in); files named
# ...-window-... and docs/perf/...-window*.
set -euo pipefail
trap 'echo "dropin_compare: line $LINENO failed: $BASH_COMMAND" >&2' ERR
here="$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)"
cd "$here"

# The program's order.
ALL_COLLS="bcast reduce allreduce scatter scatterv gather gatherv allgather allgatherv"
ALL_COLLS+=" reduce_scatter reduce_scatter_block alltoall alltoallv barrier scan exscan"

impl_arg=both ps=2,4 hosts_arg=3x2 sizes_arg=8,4K,64K,1M,16M reps=5 host_reps=3
colls_arg=all build=$here/build-bench stall=60 done_grace=30 report_csv="" sync=mpi name=dropin
bind=0 touch=0
cmdline="bench/dropin_compare.sh${*:+ $*}"

usage() { sed -n '2,10p' "$0" >&2; exit 2; }
while (($#)); do
    if [[ $1 == --bind ]]; then bind=1; shift; continue; fi
    if [[ $1 == --touch ]]; then touch=1; shift; continue; fi
    [[ $# -ge 2 || $1 == -h || $1 == --help ]] || usage
    case $1 in
        --impl) impl_arg=$2 ;;
        -p) ps=$2 ;;
        --hosts) hosts_arg=$2 ;;
        --sizes) sizes_arg=$2 ;;
        --reps) reps=$2 ;;
        --host-reps) host_reps=$2 ;;
        --colls) colls_arg=$2 ;;
        --build) build=$2 ;;
        --stall) stall=$2 ;;
        --report) report_csv=$2 ;;
        --sync) sync=$2 ;;
        --name) name=$2 ;;
        *) usage ;;
    esac
    shift 2
done

case $sync in
    mpi) tag="" ;;
    pmpi) tag=-pmpi ;;
    window) tag=-window ;;
    *) echo "dropin_compare: --sync mpi|pmpi|window" >&2; exit 2 ;;
esac
case $impl_arg in
    both) impls="openmpi mpich" ;;
    openmpi | mpich) impls=$impl_arg ;;
    *) echo "dropin_compare: --impl openmpi|mpich|both" >&2; exit 2 ;;
esac
[[ $reps =~ ^[1-9][0-9]*$ && $host_reps =~ ^[1-9][0-9]*$ && $stall =~ ^[1-9][0-9]*$ ]] ||
    { echo "dropin_compare: --reps, --host-reps, --stall: positive integers" >&2; exit 2; }
[[ $ps =~ ^([1-9][0-9]*)(,[1-9][0-9]*)*$ || $ps == none ]] ||
    { echo "dropin_compare: -p 2,4 (or none)" >&2; exit 2; }
[[ $ps == none ]] && ps=""
nhosts=0 per_host=0
if [[ $hosts_arg != none ]]; then
    [[ $hosts_arg =~ ^([1-9][0-9]*)x([1-9][0-9]*)$ ]] ||
        { echo "dropin_compare: --hosts HxK (e.g. 3x2) or none" >&2; exit 2; }
    nhosts=${BASH_REMATCH[1]} per_host=${BASH_REMATCH[2]}
fi

# 4K -> 4096
to_bytes() {
    local s=$1 v
    [[ $s =~ ^([0-9]+)([kKmM]?)$ ]] || { echo "dropin_compare: bad size '$s'" >&2; exit 2; }
    v=${BASH_REMATCH[1]}
    case ${BASH_REMATCH[2]} in k | K) v=$((v << 10)) ;; m | M) v=$((v << 20)) ;; esac
    echo "$v"
}
sizes=$(for s in ${sizes_arg//,/ }; do to_bytes "$s"; done | sort -n -u | tr '\n' ' ')
sizes=${sizes% }
if [[ $colls_arg == all ]]; then
    colls=$ALL_COLLS
else
    colls=""
    for c in $ALL_COLLS; do # the program's order
        [[ ,$colls_arg, == *,$c,* ]] && colls+=${colls:+ }$c
    done
    for c in ${colls_arg//,/ }; do
        [[ " $ALL_COLLS " == *" $c "* ]] || { echo "dropin_compare: unknown collective '$c'" >&2; exit 2; }
    done
fi

# ---------------------------------------------------------------------------
# The report: tables (markdown) and figures from a CSV.

human() { # bytes -> 8, 4K, 64K, 1M
    local b=$1
    if ((b >= 1 << 20 && b % (1 << 20) == 0)); then echo "$((b >> 20))M"
    elif ((b >= 1 << 10 && b % (1 << 10) == 0)); then echo "$((b >> 10))K"
    else echo "$b"; fi
}

# Aggregates CSV into rows: impl cfg coll bytes mpi_med ic_med ratio rlo rhi
# npaired nreps mpi_bad ic_bad (bad: "-" or the statuses that were not ok).
aggregate() {
    awk -F, '
    function sortn(a, n,   i, j, t) {
        for (i = 2; i <= n; i++) { t = a[i]; for (j = i - 1; j >= 1 && a[j] > t; j--) a[j + 1] = a[j]; a[j + 1] = t }
    }
    function med(a, n) { sortn(a, n); return n % 2 ? a[(n + 1) / 2] : (a[n / 2] + a[n / 2 + 1]) / 2 }
    NR == 1 { next }
    {
        cfg = ($3 == "1" ? "p" $2 : $3)
        key = $1 SUBSEP cfg SUBSEP $4 SUBSEP $5
        if (!(key in seen)) { seen[key] = 1; order[++nk] = key }
        if ($11 == "ok") val[key, $7, $6] = $8
        else if (index(bad[key, $7], $11) == 0) bad[key, $7] = bad[key, $7] (bad[key, $7] == "" ? "" : "+") $11
        if (!((key, $6) in rep)) { rep[key, $6] = 1; reps[key] = reps[key] " " $6 }
        nrep[key] += ((key, $6) in cnt) ? 0 : 1; cnt[key, $6] = 1
    }
    END {
        for (k = 1; k <= nk; k++) {
            key = order[k]; split(key, f, SUBSEP)
            nm = ni = np = 0; rlo = rhi = "NaN"
            nr = split(reps[key], rr, " ")
            for (i = 1; i <= nr; i++) {
                r = rr[i]
                if ((key, "mpi", r) in val) m[++nm] = val[key, "mpi", r]
                if ((key, "intercom", r) in val) c[++ni] = val[key, "intercom", r]
                if (((key, "mpi", r) in val) && ((key, "intercom", r) in val) && val[key, "mpi", r] > 0) {
                    q = val[key, "intercom", r] / val[key, "mpi", r]; pq[++np] = q
                    if (rlo == "NaN" || q < rlo) rlo = q
                    if (rhi == "NaN" || q > rhi) rhi = q
                }
            }
            mm = nm ? med(m, nm) : "NaN"; mc = ni ? med(c, ni) : "NaN"
            # The median of the per-repetition ratios: the two runs of a
            # repetition follow one another, and this shared host changes speed
            # between repetitions (the medians taken alone can pair the
            # fast runs of one library with the slow runs of the other).
            ratio = np ? med(pq, np) : "NaN"
            printf "%s %s %s %s %s %s %s %s %s %d %d %s %s\n", f[1], f[2], f[3], f[4], mm, mc, ratio, rlo, rhi,
                np, nrep[key], (bad[key, "mpi"] == "" ? "-" : bad[key, "mpi"]),
                (bad[key, "intercom"] == "" ? "-" : bad[key, "intercom"])
            delete m; delete c; delete pq
        }
    }' "$1"
}

# The markdown of one MPI: a section per configuration.
write_md() {
    local impl=$1 agg=$2 csv=$3 md=$4 log=${3%.csv}.log cfg lib_line p hosts note
    lib_line=$(grep -m1 -h "^# dropin_bench: .*$(if [[ $impl == mpich ]]; then echo MPICH; else echo 'Open MPI'; fi)" \
        "$log" 2>/dev/null | sed 's/.*; //; s/, package.*//; s/[[:space:]]\+/ /g; s/MPICH Version: /MPICH /') || true
    {
        local sub=""
        [[ $tag != -pmpi ]] || sub=" (timed with MPI's own barrier)"
        [[ $tag != -window ]] || sub=" (timed from a common start instant)"
        ! grep -q -- '--touch' "$log" 2>/dev/null || sub+=", inputs rewritten before every call"
        echo "# The MPI drop-in next to $( [[ $impl == mpich ]] && echo MPICH || echo "Open MPI") itself$sub"
        echo
        echo "\`libintercom_mpi.so\` LD_PRELOADed under an unmodified MPI program"
        echo "(\`bench/dropin_bench.c\`), against the same program on ${lib_line:-$impl} alone."
        echo "Made by \`bench/dropin_compare.sh\` (the command is in the log); data:"
        echo "\`${csv#"$here"/}\`, every job's output: \`${log#"$here"/}\`."
        echo
        echo "**How to read.** A cell is *ratio (lowest–highest)*: the median over"
        echo "repetitions of one repetition's ratio, the run's median time with the drop-in"
        echo "divided by the same without it (the two runs follow one another); in brackets"
        echo "the lowest and highest of those ratios. Below 1: intercom is faster."
        echo "A run's figure for a cell is the median of"
        if [[ $tag == -window ]]; then
            echo "its timed iterations, each the slowest rank's time from a common start"
            echo "instant to the end of its call (\`--sync window\` of bench/dropin_bench.c: no"
            echo "barrier before the call, so no library's barrier exit order shows in the"
            echo "time). Sizes: the whole vector for bcast, reduce, allreduce, scan,"
        else
        echo "its timed iterations, each the slowest rank's time of one call after an"
        fi
        if [[ $tag == -window ]]; then
            :
        elif [[ -n $tag ]]; then
            echo "PMPI_Barrier (MPI's own also in the runs with the drop-in, as is the"
            echo "allreduce of the times: only the timed call differs). Sizes: the whole"
            echo "vector for bcast, reduce, allreduce, scan,"
        else
            echo "MPI_Barrier (in the runs with the drop-in intercom's, like every"
            echo "collective: a barrier that lets the ranks leave far apart shows in the"
            echo "next call; \`bench/dropin_compare.sh --sync pmpi\` times with MPI's own"
            echo "barrier). Sizes: the whole vector for bcast, reduce, allreduce, scan,"
        fi
        echo "exscan (floats, sum); one rank's block (per destination or source) for"
        echo "scatter, gather, allgather, alltoall and their v-forms (bytes, equal counts);"
        echo "one rank's result block for reduce_scatter(_block) (floats, sum). Barrier has"
        echo "no size (one cell, in the first column). Marks: † some repetitions missing"
        echo "(n = repetitions with both figures); *timeout* (no output for" \
            "$(grep -m1 '^# limits: ' "$log" 2>/dev/null | sed 's/.*stall \([0-9]*\) s.*/\1/' || echo '?') s:"
        echo "the cell did not finish), *skipped* (after a timeout at a smaller or the same"
        echo "size in an earlier repetition), *fail* (wrong result), *crash*: what happened"
        echo "to the library named, in one or more repetitions."
        echo "Machine: $(nproc) vCPUs ($(grep -m1 'model name' /proc/cpuinfo | sed 's/.*: //' || true)),"
        echo "shared with other work while measured; times in multiples of ~4 ms are"
        echo "scheduler quanta of oversubscribed cores."
        if grep -q '^## job: .*bind-to' "$log" 2>/dev/null; then
            echo "Both libraries' ranks bound to the cores round robin by the launcher (\`--bind\`)."
        fi
        for cfg in $(awk -v i="$impl" '$1 == i { print $2 }' "$agg" | awk '!s[$0]++'); do
            if [[ $cfg == p* ]]; then
                p=${cfg#p}
                hosts="one host"
                note=$( ((p > $(nproc))) && echo ", **oversubscribed** ($p ranks on $(nproc) cores)" ||
                    echo ", not oversubscribed")
            else
                p=$((${cfg%x*} * ${cfg#*x}))
                hosts="${cfg%x*} pretend hosts × ${cfg#*x} ranks (Linux namespaces, TCP between hosts, shared memory inside)"
                note=$( ((p > $(nproc))) && echo ", **oversubscribed** ($p ranks on $(nproc) cores)" || echo "")
            fi
            echo
            echo "## $impl, p = $p: $hosts$note"
            echo
            awk -v i="$impl" -v c="$cfg" -v nrep="$(awk -F, -v i="$impl" -v c="$cfg" \
                'NR > 1 && $1 == i && (($3 == "1" ? "p" $2 : $3) == c) { r[$6] = 1 } END { print length(r) }' "$csv")" '
            function hum(b) { return b >= 1048576 && b % 1048576 == 0 ? b / 1048576 " MiB" : b >= 1024 && b % 1024 == 0 ? b / 1024 " KiB" : b " B" }
            function r(v) { return v >= 100 ? sprintf("%.0f", v) : v >= 10 ? sprintf("%.1f", v) : v >= 0.1 ? sprintf("%.2f", v) : sprintf("%.2g", v) }
            function t(v) { return v == "NaN" ? "–" : v >= 100 ? sprintf("%.0f", v) : v >= 10 ? sprintf("%.1f", v) : sprintf("%.2f", v) }
            function marks(mb, ib, s) {
                s = ""
                if (mb != "-") s = s " MPI *" mb "*"
                if (ib != "-") s = s " intercom *" ib "*"
                return s
            }
            $1 == i && $2 == c {
                if (!($3 in cs)) { cs[$3] = 1; co[++nc] = $3 }
                if ($3 != "barrier" && !($4 in bs)) { bs[$4] = 1; b[++nb] = $4 + 0 }
                k = $3 SUBSEP ($3 == "barrier" ? "first" : $4)
                if ($7 != "NaN") {
                    cell[k] = r($7) " (" r($8) "–" r($9) ")" ($10 < nrep ? sprintf(" †%d", $10) : "")
                    lr += log($7); nl++
                    if ($9 < 1) faster++
                    else if ($8 > 1) slower++
                    else mixed++
                } else cell[k] = "–"
                cell[k] = cell[k] marks($12, $13)
                tm[k] = t($6) " / " t($5)
            }
            END {
                for (x = 2; x <= nb; x++) { v = b[x]; for (y = x - 1; y >= 1 && b[y] > v; y--) b[y + 1] = b[y]; b[y + 1] = v }
                printf "%d repetition%s. Ratio intercom / MPI (lowest–highest over repetitions):\n\n", nrep, nrep == 1 ? "" : "s"
                h = "| collective |"; s = "|---|"
                for (x = 1; x <= nb; x++) { h = h " " hum(b[x]) " |"; s = s "---:|" }
                print h; print s
                for (y = 1; y <= nc; y++) {
                    line = "| " co[y] " |"
                    for (x = 1; x <= nb; x++) {
                        k = co[y] SUBSEP (co[y] == "barrier" ? (x == 1 ? "first" : "none") : b[x])
                        line = line " " (k in cell ? cell[k] : "") " |"
                    }
                    print line
                }
                if (nl) printf "\nGeometric mean of the ratios: %.2f over %d cells; intercom faster in every repetition in %d cells, slower in every repetition in %d, mixed in %d.\n", exp(lr / nl), nl, faster, slower, mixed
                printf "\nMedian times in µs, intercom / MPI:\n\n"
                print h; print s
                for (y = 1; y <= nc; y++) {
                    line = "| " co[y] " |"
                    for (x = 1; x <= nb; x++) {
                        k = co[y] SUBSEP (co[y] == "barrier" ? (x == 1 ? "first" : "none") : b[x])
                        line = line " " (k in tm ? tm[k] : "") " |"
                    }
                    print line
                }
            }' "$agg"
            echo
            echo "![times, $impl $cfg]($name-$impl$tag-$cfg-times.png)"
            echo "![ratios, $impl $cfg]($name-$impl$tag-$cfg-ratio.png)"
        done
        echo
        echo "Command: \`$(grep -m1 '^# command: ' "$log" 2>/dev/null | sed 's/^# command: //' || true)\`"
        grep -m1 '^# source: ' "$log" 2>/dev/null | sed 's/^# source: /Source of the drop-in: /' || true
        grep -m1 '^# total: ' "$log" 2>/dev/null | sed 's/^# total: /Total run time of the command: /' || true
    } > "$md"
}

# The figures of one MPI and configuration.
plot_cfg() {
    local impl=$1 cfg=$2 agg=$3 tmp=$4 dat list empty xt term
    dat=$tmp/$impl-$cfg.dat
    list=$(awk -v i="$impl" -v c="$cfg" '$1 == i && $2 == c { print $3 }' "$agg" | awk '!s[$0]++' | tr '\n' ' ')
    list=${list% }
    # Blocks per collective; the barrier's one figure at every size.
    awk -v i="$impl" -v c="$cfg" -v list="$list" '
        $1 == i && $2 == c { r[$3, $4] = $4 " " $5 " " $6 " " $7 " " $8 " " $9; if ($3 != "barrier") bs[$4 + 0] = 1; if ($3 == "barrier") bar = $5 " " $6 " " $7 " " $8 " " $9 }
        END {
            nb = 0; for (x in bs) b[++nb] = x + 0
            for (x = 2; x <= nb; x++) { v = b[x]; for (y = x - 1; y >= 1 && b[y] > v; y--) b[y + 1] = b[y]; b[y + 1] = v }
            n = split(list, cl, " ")
            for (k = 1; k <= n; k++) {
                if (k > 1) printf "\n\n"
                for (x = 1; x <= nb; x++)
                    if (cl[k] == "barrier") print b[x], bar
                    else if ((cl[k], b[x]) in r) print r[cl[k], b[x]]
                    else print b[x], "NaN NaN NaN NaN NaN"
            }
        }' "$agg" > "$dat"
    empty=$(for c in $list; do
        awk -v i="$impl" -v c="$cfg" -v k="$c" '$1 == i && $2 == c && $3 == k && ($5 != "NaN" || $6 != "NaN") { ok = 1 }
            END { print ok ? 0 : 1 }' "$agg"; done | tr '\n' ' ')
    xt="($(for b in $(awk -v i="$impl" -v c="$cfg" '$1 == i && $2 == c && $3 != "barrier" { print $4 }' "$agg" | sort -n -u); do
        printf '"%s" %s, ' "$(human "$b")" "$b"; done | sed 's/, $//'))"
    [[ $xt != "()" ]] || xt="(\"8\" 8)"
    if gnuplot -e 'set terminal' 2>&1 | grep -q pngcairo; then term='pngcairo font "sans,9"'; else term='png small'; fi
    local label="$impl, $cfg" pfx=docs/perf/$name-$impl$tag-$cfg
    [[ $cfg == p* ]] && label="$impl, p = ${cfg#p}, one host" || label="$impl, $cfg pretend hosts"
    [[ $tag != -pmpi ]] || label+=", timing barrier PMPI_Barrier"
    [[ $tag != -window ]] || label+=", timed from a common instant"
    gnuplot -e "dat='$dat'; out='$pfx-times.png'; kind='times'; term='$term'; colls='$list'; empty='$empty'; xt='$xt'; ttl='MPI collectives with and without the intercom drop-in: $label (median over repetitions)'" \
        bench/dropin_plot.gp
    gnuplot -e "dat='$dat'; out='$pfx-ratio.png'; kind='ratio'; term='$term'; colls='$list'; empty='$empty'; xt='$xt'; ttl='intercom drop-in / MPI: $label (below 1: intercom faster)'" \
        bench/dropin_plot.gp
}

report() {
    local csv=$1 tmp agg impl cfg
    [[ -s $csv ]] || { echo "dropin_compare: no CSV '$csv'" >&2; return 1; }
    command -v gnuplot >/dev/null || bash scripts/deps.sh gnuplot
    mkdir -p docs/perf
    tmp=$(mktemp -d)
    agg=$tmp/agg.txt
    aggregate "$csv" > "$agg"
    for impl in $(awk '{ print $1 }' "$agg" | awk '!s[$0]++'); do
        write_md "$impl" "$agg" "$csv" "docs/perf/$name-$impl$tag.md"
        echo "dropin_compare: docs/perf/$name-$impl$tag.md"
        for cfg in $(awk -v i="$impl" '$1 == i { print $2 }' "$agg" | awk '!s[$0]++'); do
            plot_cfg "$impl" "$cfg" "$agg" "$tmp" || echo "dropin_compare: figures of $impl $cfg failed" >&2
        done
    done
    rm -rf "$tmp"
}

if [[ -n $report_csv ]]; then
    [[ ${report_csv##*/} != *-pmpi-* ]] || tag=-pmpi
    [[ ${report_csv##*/} != *-window-* ]] || tag=-window
    [[ ${report_csv##*/} != compare-* ]] || name=compare
    report "$report_csv"
    exit
fi

# ---------------------------------------------------------------------------
# Build.

bash scripts/deps.sh mpi
command -v gnuplot >/dev/null || bash scripts/deps.sh gnuplot
mkdir -p "$build"
build=$(cd "$build" && pwd)
[[ -f $build/CMakeCache.txt ]] || cmake -S . -B "$build" -DCMAKE_BUILD_TYPE=Release >/dev/null
targets=()
for impl in $impls; do targets+=("intercom_dropin_$impl"); done
echo "dropin_compare: building ${targets[*]} in $build"
cmake --build "$build" -j2 --target "${targets[@]}" >/dev/null
for impl in $impls; do
    [[ -f $build/dropin/$impl/libintercom_mpi.so ]] ||
        { echo "dropin_compare: no $build/dropin/$impl/libintercom_mpi.so" >&2; exit 1; }
    mpicc.$impl -std=c11 -O2 -Wall -Wextra -Werror -Wshadow -Wstrict-prototypes \
        -o "$build/dropin_bench_$impl" bench/dropin_bench.c
done

# ---------------------------------------------------------------------------
# Runs.

mkdir -p bench/results
stamp=$name$tag-$(date +%Y-%m-%d)-$(hostname -s)
csv=bench/results/$stamp.csv
k=2
while [[ -e $csv ]]; do csv=bench/results/$stamp-$k.csv; k=$((k + 1)); done
log=${csv%.csv}.log
echo "impl,p,hosts,coll,bytes,rep,lib,median_us,min_us,iters,status" > "$csv"
{
    echo "# command: $cmdline"
    echo "# date: $(date -Is), host $(hostname), $(nproc) cores"
    echo "# sizes: $sizes; collectives: $colls"
    echo "# limits: stall $stall s per cell, $done_grace s in MPI_Finalize"
    echo "# source: $(git rev-parse --short HEAD 2>/dev/null)$(git diff --quiet HEAD -- src 2>/dev/null || echo " + uncommitted changes in src/")"
} > "$log"

# Configurations: impl kind(local|hosts) np counts label reps
configs=()
for impl in $impls; do
    for p in ${ps//,/ }; do configs+=("$impl local $p - p$p $reps"); done
    if ((nhosts > 0)); then
        counts=$(printf "$per_host%.0s," $(seq "$nhosts")); counts=${counts%,}
        configs+=("$impl hosts $((nhosts * per_host)) $counts ${nhosts}x$per_host $host_reps")
    fi
done
total_runs=0
for c in "${configs[@]}"; do set -- $c; total_runs=$((total_runs + 2 * $6)); done

netns_on=0
netns_ok() {
    ((netns_on)) && return 0
    source tests/mpi/netns_hosts.sh
    local why
    why=$(netns_probe) || { echo "dropin_compare: no pretend hosts here ($why): skipped" >&2; return 1; }
    netns_up "$nhosts"
    netns_on=1
    # MPICH's ranks on the pretend hosts preload the finalize helper in both runs.
    ucx_close=$NETNS_RUN/$IC_NETNS/netns_ucx_close.so
    cc -shared -fPIC -O2 -o "$ucx_close" tests/mpi/netns_ucx_close.c -ldl
}
job_pid=""
cleanup() {
    [[ -z $job_pid ]] || kill_job "$job_pid"
    if ((netns_on)); then netns_down || true; netns_on=0; fi
}
trap cleanup EXIT
trap 'exit 130' INT
trap 'exit 143' TERM

# Kills a job: the launcher, its descendants, and (pretend hosts) every
# process in our namespaces but their holders.
kill_job() {
    local pids="" todo=$1 p kids k h
    while [[ -n $todo ]]; do
        set -- $todo; todo=""
        for p; do
            pids+=" $p"
            kids=$(ps -o pid= --ppid "$p" 2>/dev/null || true)
            todo+=" $kids"
        done
        todo=$(echo $todo)
    done
    if ((netns_on)); then
        for ((k = 0; k < nhosts; k++)); do
            h=$(cat "$NETNS_RUN/$IC_NETNS/h$k.pid" 2>/dev/null || echo none)
            for p in $(ip netns pids "${IC_NETNS}h$k" 2>/dev/null || true); do
                [[ $p == "$h" ]] || pids+=" $p"
            done
        done
    fi
    kill -TERM $pids 2>/dev/null || true
    sleep 2
    kill -KILL $pids 2>/dev/null || true
}

t_start=$SECONDS
run_no=0
declare -A banned # "impl label lib coll" -> smallest banned size
fmt_t() { printf '%dm%02ds' $(($1 / 60)) $(($1 % 60)); }
progress() { # shown on a terminal only
    [[ -t 2 ]] && printf '\r\033[K[run %d/%d, %s] %s' "$run_no" "$total_runs" "$(fmt_t $((SECONDS - t_start)))" "$1" >&2
    return 0
}

# launch IMPL KIND NP COUNTS LIB OUT COLLS SIZES: one job; sets job_status
# (done | exit N | stall | finalize-killed).
launch() {
    local impl=$1 kind=$2 np=$3 counts=$4 lib=$5 out=$6 cl=$7 sz=$8 what=$9
    local bin=$build/dropin_bench_$impl dl=$build/dropin/$impl/libintercom_mpi.so cmd=() pid
    local size=-1 last=$SECONDS done_at="" now cur n rc=0
    if [[ $kind == local ]]; then
        if [[ $impl == openmpi ]]; then
            # shellcheck disable=SC2054 # commas: one argument
            cmd=(mpirun.openmpi --oversubscribe --allow-run-as-root --mca btl self,vader,tcp -n "$np")
            if ((bind)); then cmd+=(--bind-to core:overload-allowed --map-by core); fi
            [[ $lib == mpi ]] || cmd+=(-x "LD_PRELOAD=$dl")
        else
            cmd=(mpiexec.mpich -n "$np")
            if ((bind)); then cmd+=(-bind-to core); fi
            [[ $lib == mpi ]] || cmd+=(-genv LD_PRELOAD "$dl")
        fi
    else
        cmd=("$here/tests/mpi/netns_hosts.sh" mpirun "$impl" "$counts")
        if [[ $impl == openmpi ]]; then
            [[ $lib == mpi ]] || cmd+=(-x "LD_PRELOAD=$dl")
        elif [[ $lib == mpi ]]; then
            cmd+=(-genv LD_PRELOAD "$ucx_close")
        else # after netns_hosts.sh's own -genv LD_PRELOAD: the last one counts
            cmd+=(-genv LD_PRELOAD "$ucx_close $dl")
        fi
    fi
    cmd+=("$bin" --sizes "${sz// /,}" --colls "${cl// /,}" --sync "$sync")
    [[ $touch == 0 ]] || cmd+=(--touch)
    echo "## job: ${cmd[*]}" >> "$log"
    setsid "${cmd[@]}" > "$out" 2>&1 < /dev/null &
    pid=$!
    job_pid=$pid
    job_status=""
    while kill -0 "$pid" 2>/dev/null; do
        sleep 1
        now=$(stat -c %s "$out")
        if [[ $now != "$size" ]]; then size=$now last=$SECONDS; fi
        if [[ -z $done_at ]] && grep -q '^# done' "$out"; then done_at=$SECONDS; fi
        if [[ -n $done_at ]] && ((SECONDS - done_at > done_grace)); then
            kill_job "$pid"; job_status=finalize-killed; break
        fi
        if ((SECONDS - last > stall)); then
            kill_job "$pid"; job_status=stall; break
        fi
        cur=$(grep '^# begin' "$out" | tail -1 | sed 's/# begin coll=//; s/ bytes=/ /' || true)
        n=$(grep -c '^cell' "$out" || true)
        progress "$what: $n cells, now ${cur:-starting} ($((SECONDS - last)) s)"
    done
    wait "$pid" || rc=$?
    job_pid=""
    if [[ -z $job_status ]]; then
        if ((rc == 0)); then job_status="done"; else job_status="exit $rc"; fi
    fi
    cat "$out" >> "$log"
    echo "## job end: $job_status" >> "$log"
}

# One run (configuration, library, repetition): every cell, as many jobs as
# it takes.
run_lib() {
    local impl=$1 kind=$2 np=$3 counts=$4 label=$5 lib=$6 rep=$7 nreps=$8
    local hostcol=1 c b key pend=() grp_c first sset job=0 out t0=$SECONDS
    local ok=0 bad=0 culprit cc cb st line
    [[ $kind == local ]] || hostcol=$label
    row() { echo "$impl,$np,$hostcol,$1,$2,$rep,$lib,$3,$4,$5,$6" >> "$csv"; }
    local -A done_=()
    for c in $colls; do
        for b in $sizes; do
            [[ $c == barrier ]] && b=0
            if [[ -n ${banned["$impl $label $lib $c"]:-} ]] && ((b >= ${banned["$impl $label $lib $c"]})); then
                row "$c" "$b" "" "" "" skipped
            else
                pend+=("$c:$b")
            fi
            [[ $c == barrier ]] && break
        done
    done
    run_no=$((run_no + 1))
    while ((${#pend[@]})); do
        # A job: the first pending collective's sizes, and every collective
        # pending at exactly those sizes (the barrier joins any job).
        first="" grp_c="" sset=""
        for key in "${pend[@]}"; do
            c=${key%:*}
            [[ $c == barrier ]] && continue
            [[ -z $first ]] && first=$c
            [[ $c == "$first" ]] && sset+=" ${key#*:}"
        done
        [[ -n $sset ]] || sset=" ${sizes%% *}"
        for c in $colls; do
            cc=""
            for key in "${pend[@]}"; do [[ ${key%:*} == "$c" ]] && cc+=" ${key#*:}"; done
            [[ -n $cc ]] || continue
            [[ $c == barrier || $cc == "$sset" ]] && grp_c+=" $c"
        done
        job=$((job + 1))
        out=$(mktemp)
        launch "$impl" "$kind" "$np" "$counts" "$lib" "$out" "${grp_c# }" "${sset# }" \
            "$impl $label rep $rep/$nreps $lib"
        # Cells measured.
        local progressed=0
        while read -r line; do
            set -- $line
            local -A v=()
            for f in "$@"; do [[ $f == *=* ]] && v[${f%%=*}]=${f#*=}; done
            row "${v[coll]}" "${v[bytes]}" "${v[median_us]}" "${v[min_us]}" "${v[iters]}" ok
            done_["${v[coll]}:${v[bytes]}"]=1
            ok=$((ok + 1)) progressed=1
        done < <(grep '^cell ' "$out" || true)
        # The cell it stopped in.
        culprit=""
        if ! grep -q '^# done' "$out"; then
            line=$(grep '^# begin' "$out" | tail -1 || true)
            if [[ -n $line ]]; then
                cc=$(sed 's/.*coll=\([a-z_]*\).*/\1/' <<<"$line")
                cb=$(sed 's/.*bytes=\([0-9]*\).*/\1/' <<<"$line")
                [[ $cc == barrier ]] && cb=0
                [[ -n ${done_["$cc:$cb"]:-} ]] || culprit=$cc:$cb
            fi
        fi
        if [[ -n $culprit ]]; then
            cc=${culprit%:*} cb=${culprit#*:}
            if grep -q "^FAIL coll=$cc " "$out"; then st=fail
            elif [[ $job_status == stall ]]; then st=timeout
            else st=crash; fi
            row "$cc" "$cb" "" "" "" "$st"
            done_[$culprit]=1
            bad=$((bad + 1)) progressed=1
            echo "dropin_compare: $impl $label rep $rep $lib: $cc $cb bytes: $st ($job_status); job output in $log" >&2
            if [[ $st == timeout ]]; then
                banned["$impl $label $lib $cc"]=$cb
                for key in "${pend[@]}"; do
                    c=${key%:*} b=${key#*:}
                    if [[ $c == "$cc" && -z ${done_[$key]:-} ]] && ((b > cb)); then
                        row "$c" "$b" "" "" "" skipped; done_[$key]=1
                    fi
                done
            fi
        fi
        rm -f "$out"
        local rest=()
        for key in "${pend[@]}"; do
            c=${key%:*}
            if [[ -n ${done_[$key]:-} ]]; then continue; fi
            # A job that did not run its cells (no progress): errors.
            if ((!progressed)) && [[ " $grp_c " == *" $c "* && " $sset " == *" ${key#*:} "* ||
                                     ( $c == barrier && " $grp_c " == *" barrier "* ) ]]; then
                row "$c" "${key#*:}" "" "" "" error; bad=$((bad + 1))
                continue
            fi
            rest+=("$key")
        done
        ((!progressed)) && echo "dropin_compare: $impl $label rep $rep $lib: a job ran no cell ($job_status); see $log" >&2
        pend=("${rest[@]}")
    done
    [[ -t 2 ]] && printf '\r\033[K' >&2
    printf '[run %2d/%d, %s] %-8s %-4s rep %d/%d %-8s: %d cells ok, %d not, %d job(s), %d s\n' \
        "$run_no" "$total_runs" "$(fmt_t $((SECONDS - t_start)))" "$impl" "$label" "$rep" "$nreps" \
        "$lib" "$ok" "$bad" "$job" $((SECONDS - t0)) >&2
}

for cfgline in "${configs[@]}"; do
    read -r impl kind np counts label nreps <<<"$cfgline"
    if [[ $kind == hosts ]] && ! netns_ok; then continue; fi
    for ((rep = 1; rep <= nreps; rep++)); do
        if ((rep % 2)); then order="mpi intercom"; else order="intercom mpi"; fi
        for lib in $order; do
            run_lib "$impl" "$kind" "$np" "$counts" "$label" "$lib" "$rep" "$nreps"
        done
    done
done
cleanup
echo "# total: $(fmt_t $((SECONDS - t_start)))" >> "$log"
echo "dropin_compare: $csv, $log ($(fmt_t $((SECONDS - t_start))))" >&2
report "$csv"
