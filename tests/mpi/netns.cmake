# Real separate hosts (tests/mpi/netns_test.sh): test_real under each MPI
# across pretend hosts made of Linux namespaces (own network, hostname,
# /dev/shm).  IC_TEST_SAMPLED=1: the 1 MiB cases between hosts run on the
# 4-rank layouts (2x2, 4x1); the 6- and 7-rank ones leave them out.
# Needs root; SKIPPED (exit 77) where namespaces are not permitted.
# Serial: it creates namespaces and uses the whole machine.
foreach(impl ${IC_MPI_IMPLS})
  add_test(NAME test_mpi_${impl}_netns
           COMMAND ${PROJECT_SOURCE_DIR}/tests/mpi/netns_test.sh ${impl}
                   $<TARGET_FILE:test_mpi_real_${impl}>)
  set_tests_properties(test_mpi_${impl}_netns PROPERTIES TIMEOUT 1500
    SKIP_RETURN_CODE 77 RUN_SERIAL TRUE RESOURCE_LOCK netns
    ENVIRONMENT "IC_TIMEOUT=300;IC_TEST_SAMPLED=1")
  # Reproducible reductions across the pretend hosts (3 + 2 + 2 ranks).
  add_test(NAME test_mpi_reproducible_${impl}_netns
           COMMAND ${PROJECT_SOURCE_DIR}/tests/mpi/netns_test.sh ${impl}
                   $<TARGET_FILE:test_mpi_reproducible_${impl}> test_reproducible_real)
  set_tests_properties(test_mpi_reproducible_${impl}_netns PROPERTIES TIMEOUT 1500
    SKIP_RETURN_CODE 77 RUN_SERIAL TRUE RESOURCE_LOCK netns
    ENVIRONMENT "IC_TIMEOUT=300;NETNS_LAYOUTS=3,2,2")
endforeach()
