#!/bin/bash
# A: default (large one-way messages streamed); B: IC_SHM_CMA_LARGE_X100=100 (shared)
cd /work/main
lib=$PWD/build-bench/dropin/openmpi/libintercom_mpi.so
ITERS=${ITERS:-}
for r in 1 2 3 4 5; do
  for lab in A B; do
    [[ $(( r % 2 )) == 0 ]] && lab=$([[ $lab == A ]] && echo B || echo A)
    envs=(-x LD_PRELOAD=$lib)
    [[ $lab == B ]] && envs+=(-x IC_SHM_CMA_LARGE_X100=100)
    mpirun.openmpi --oversubscribe --allow-run-as-root --mca btl self,vader,tcp -n 2 "${envs[@]}" \
      build-bench/dropin_bench_openmpi --sizes 16M,64M --colls bcast,scatter,gather,scan,exscan,reduce --sync window ${ITERS:+--iters $ITERS} 2>/dev/null \
      | awk -v l=$lab -v r=$r '/^cell/ {split($2,c,"="); split($3,b,"="); split($6,m,"="); print l, r, c[2], b[2], m[2]}'
  done
done
