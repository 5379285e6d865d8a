#!/usr/bin/env bash
# Installs the build tree into a fresh prefix and uses it as an outside
# project would:
#   1. the installed files are there (header, libintercom.so.0 with its
#      soname, libintercom.a, the four tools, intercom.pc, the CMake package);
#   2. the shared library exports only ic_ symbols (the MPI drop-ins,
#      lib/intercom/<mpi>/libintercom_mpi.so, only MPI_ ones);
#   3. consumer.c builds with pkg-config and a plain cc line, and runs on 3
#      processes under the installed intercom-run;
#   4. the same program builds with find_package(intercom CONFIG) in a tiny
#      CMake project (this directory's CMakeLists.txt), and runs;
#   5. it also links statically against libintercom.a, and runs.
# Usage: install_test.sh BUILD_DIR   (run by ctest as test_install)
set -euo pipefail
build=$(cd "$1" && pwd)
here=$(cd "$(dirname "$0")" && pwd)
tmp=$(mktemp -d /tmp/intercom-install-test.XXXXXX)
trap 'rm -rf "$tmp"' EXIT
prefix=$tmp/prefix
fail() { echo "test_install: FAILED: $*"; exit 1; }
passed=0
ok() { passed=$((passed + 1)); echo "ok: $*"; }

cmake --install "$build" --prefix "$prefix" >"$tmp/install.log" || { cat "$tmp/install.log"; fail "cmake --install"; }
pc=$(find "$prefix" -name intercom.pc | head -n 1)
[ -n "$pc" ] || fail "no intercom.pc installed"
libdir=$(dirname "$(dirname "$pc")")
for f in "$prefix/include/intercom.h" "$libdir/libintercom.so" "$libdir/libintercom.so.0" \
         "$libdir/libintercom.a" "$libdir/cmake/intercom/intercomConfig.cmake" \
         "$libdir/cmake/intercom/intercomConfigVersion.cmake" \
         "$prefix/bin/intercom-run" "$prefix/bin/intercom-bench" \
         "$prefix/bin/intercom-sim" "$prefix/bin/intercom-tune"; do
    [ -e "$f" ] || fail "not installed: ${f#"$prefix"/}"
done
ok "installed files present under $(basename "$prefix")/"

soname=$(readelf -d "$libdir/libintercom.so" | sed -n 's/.*Library soname: \[\(.*\)\]/\1/p')
[ "$soname" = "libintercom.so.0" ] || fail "soname is '$soname', want libintercom.so.0"
ok "soname $soname"

nm -D --defined-only "$libdir/libintercom.so" | awk '{print $NF}' >"$tmp/symbols"
nsym=$(wc -l <"$tmp/symbols")
others=$(grep -v '^ic_' "$tmp/symbols" || true)
[ -z "$others" ] || fail "exported symbols without the ic_ prefix: $(echo $others)"
[ "$nsym" -gt 40 ] || fail "only $nsym exported symbols"
ok "$nsym exported symbols, every one starts with ic_"

# The MPI drop-ins (one per MPI built): only MPI_ functions exported.
for d in "$libdir"/intercom/*/; do
    [ -d "$d" ] || continue
    lib="$d/libintercom_mpi.so"
    [ -e "$lib" ] || fail "not installed: ${lib#"$prefix"/}"
    nm -D --defined-only "$lib" | awk '{print $NF}' >"$tmp/dsymbols"
    others=$(grep -v '^MPI_' "$tmp/dsymbols" || true)
    [ -z "$others" ] || fail "$(basename "$d") drop-in exports more than MPI_: $(echo $others | head -c 300)"
    n=$(wc -l <"$tmp/dsymbols")
    [ "$n" -gt 60 ] || fail "$(basename "$d") drop-in exports only $n symbols"
    ok "drop-in $(basename "$d"): $n exported symbols, every one an MPI_ function"
done

run3() { # run3 PROGRAM LABEL: the program on 3 processes, its summary line checked
    local out
    out=$("$prefix/bin/intercom-run" -n 3 --timeout 60 "$1" 2>&1) || { echo "$out"; fail "$2: run failed"; }
    echo "$out" | grep -q "consumer: intercom .* on 3 processes: allreduce and bcast correct" ||
        { echo "$out"; fail "$2: unexpected output"; }
    ok "$2: $(echo "$out" | grep '^consumer:')"
}

export PKG_CONFIG_PATH="$libdir/pkgconfig"
command -v pkg-config >/dev/null || fail "pkg-config is not installed (scripts/deps.sh installs it)"
[ "$(pkg-config --modversion intercom)" = "$(sed -n 's/^Version: //p' "$pc")" ] || fail "pkg-config --modversion"
# shellcheck disable=SC2046 # the flags are meant to split
cc -std=c11 -Wall -Wextra -Werror "$here/consumer.c" -o "$tmp/consumer_pc" $(pkg-config --cflags --libs intercom)
LD_LIBRARY_PATH="$libdir" run3 "$tmp/consumer_pc" "pkg-config + cc"

cmake -S "$here" -B "$tmp/cmake-build" -DCMAKE_PREFIX_PATH="$prefix" >"$tmp/cmake.log" 2>&1 ||
    { cat "$tmp/cmake.log"; fail "find_package(intercom CONFIG)"; }
cmake --build "$tmp/cmake-build" >"$tmp/cmake-build.log" 2>&1 || { cat "$tmp/cmake-build.log"; fail "CMake consumer build"; }
run3 "$tmp/cmake-build/consumer" "find_package + CMake"

# shellcheck disable=SC2046
cc -std=c11 "$here/consumer.c" -o "$tmp/consumer_static" $(pkg-config --cflags intercom) \
    "$libdir/libintercom.a" $(pkg-config --static --libs-only-other --libs-only-l intercom | sed 's/-lintercom//')
ldd "$tmp/consumer_static" | grep -q libintercom && fail "static consumer still needs libintercom.so"
run3 "$tmp/consumer_static" "static libintercom.a"

echo "test_install: $passed passed, 0 failed"
