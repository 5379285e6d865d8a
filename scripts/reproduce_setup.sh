# reproduce_setup.sh — sourced by the scripts/reproduce_*.sh figure scripts
# (not run on its own): goes to the repository root, installs gnuplot if
# missing, builds the given CMake targets in $BUILD (Release) and sets
#   BUILD     the build directory (first argument of the script, else $BUILD,
#             else build)
#   SIM       $BUILD/intercom-sim
#   FIG, RES  docs/figures and bench/results (created)
#   tmp       a scratch directory, removed when the script exits
#   TERM_PNG  gnuplot's PNG terminal (pngcairo when there is one)
# usage: source "$(dirname "$0")/reproduce_setup.sh" "$@" -- TARGET...
repro_args=()
while [ $# -gt 0 ] && [ "$1" != -- ]; do
  repro_args+=("$1")
  shift
done
[ $# -gt 0 ] && shift
cd "$(dirname "${BASH_SOURCE[0]}")/.."
BUILD=${repro_args[0]:-${BUILD:-build}}
bash scripts/deps.sh gnuplot
cmake -S . -B "$BUILD" -DCMAKE_BUILD_TYPE=Release >/dev/null
cmake --build "$BUILD" -j2 --target "$@" >/dev/null
SIM="$BUILD/intercom-sim"
FIG=docs/figures
RES=bench/results
mkdir -p "$FIG" "$RES"
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT
if gnuplot -e 'set terminal' 2>&1 | grep pngcairo >/dev/null; then
  TERM_PNG='pngcairo font "sans,9"'
else
  TERM_PNG='png small'
fi
