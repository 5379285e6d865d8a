# dropin_plot.gp — the figures of bench/dropin_compare.sh (one MPI, one
# layout): time against size per collective, with and without the drop-in,
# or the ratio intercom / MPI against size, one curve per collective.
#
#   gnuplot -e "dat='x.dat'; out='x.png'; ttl='...'; colls='bcast reduce ...'; \
#               empty='0 0 1 ...'; xt='(\"8\" 8, \"4K\" 4096)'; kind='times'" \
#           bench/dropin_plot.gp
#
# dat: one block per collective of colls, in that order, blocks separated
# by two blank lines; columns: bytes, MPI median (us), intercom median (us),
# ratio, lowest ratio, highest ratio (NaN where there is no figure).  The
# barrier has no size: its one figure is repeated at every size.  empty:
# 1 for a collective without a single figure (its panel says so).  xt: the
# x tics.  kind: 'times' (a panel per collective, log-log) or 'ratio'.
# term (optional): the gnuplot terminal, e.g. 'png small'.

if (!exists("term")) term = 'pngcairo font "sans,9"'
if (!exists("kind")) kind = 'times'
if (!exists("empty")) empty = ''
n = words(colls)
isempty(i) = (words(empty) >= i && word(empty, i) eq '1')

set logscale x 2
eval('set xtics ' . xt)
set grid
set mxtics default
set offsets graph 0.04, graph 0.04, 0, 0

if (kind eq 'times') {
    nc = (n < 4 ? n : 4)
    nr = int((n + nc - 1) / nc)
    eval(sprintf('set terminal %s size %d,%d', term, 400 * nc, 290 * nr + 50))
    set termoption noenhanced
    set output out
    set multiplot layout nr, nc title ttl
    set logscale y
    set format y '%g'
    set key top left box opaque samplen 2
    set xlabel 'bytes'
    set ylabel 'median time (us)'
    do for [i = 1:n] {
        set title word(colls, i) . (word(colls, i) eq 'barrier' ? ' (no data; one figure)' : '')
        if (isempty(i)) {
            set label 1 'no figure (timed out, failed or skipped)' at graph 0.5, 0.5 center
            set yrange [1:10]
            plot 1 lc rgb 'white' notitle
            unset label 1
            set yrange [*:*]
        } else {
            plot dat index (i - 1) u 1:2 w lp pt 7 ps 0.6 lw 1.5 lc rgb '#1f77b4' t 'MPI', \
                 '' index (i - 1) u 1:3 w lp pt 5 ps 0.6 lw 1.5 lc rgb '#d62728' t 'intercom drop-in'
        }
    }
    unset multiplot
} else {
    eval(sprintf('set terminal %s size 1100,620', term))
    set termoption noenhanced
    set output out
    set title ttl
    set logscale y
    set format y '%g'
    set xlabel 'bytes'
    set ylabel 'time intercom / time MPI (median over repetitions)'
    set key outside right top samplen 3
    set arrow 1 from graph 0, first 1 to graph 1, first 1 nohead lw 2 lc rgb 'black'
    colors = '#1f77b4 #d62728 #2ca02c #ff7f0e #9467bd #8c564b #e377c2 #17becf'
    do for [i = 1:n] {
        eval(sprintf("set linetype %d lc rgb '%s' dt %d pt %d lw 1.5 ps 0.7", i, \
                     word(colors, (i - 1) % 8 + 1), (i - 1) / 8 + 1, (i - 1) % 14 + 1))
    }
    plot for [i = 1:n] dat index (i - 1) u 1:(isempty(i) ? NaN : $4) w lp lt i t word(colls, i)
}
