# The MPI bridges (docs/mpi.md): for each MPI found, libintercom_mpi_<impl>
# = the whole library + the MPI transport + ic_comm_from_mpi, linked with
# that MPI.  IC_MPI picks which: auto (every MPI pkg-config finds: Debian's
# Open MPI is ompi-c, MPICH is mpich), openmpi, mpich, both (an error if
# one is missing), or off.
set(IC_MPI "auto" CACHE STRING "MPI bridges to build: auto, openmpi, mpich, both, off")
set_property(CACHE IC_MPI PROPERTY STRINGS auto openmpi mpich both off)
set(IC_MPI_IMPLS "")
set(ic_pc_openmpi ompi-c)
set(ic_pc_mpich mpich)
if(NOT IC_MPI STREQUAL "off")
  find_package(PkgConfig)
  set(ic_want openmpi mpich)
  if(IC_MPI STREQUAL "openmpi" OR IC_MPI STREQUAL "mpich")
    set(ic_want ${IC_MPI})
  endif()
  foreach(impl ${ic_want})
    if(PKG_CONFIG_FOUND)
      pkg_check_modules(IC_PC_${impl} QUIET IMPORTED_TARGET ${ic_pc_${impl}})
    endif()
    if(IC_PC_${impl}_FOUND)
      list(APPEND IC_MPI_IMPLS ${impl})
    elseif(NOT IC_MPI STREQUAL "auto")
      message(FATAL_ERROR "IC_MPI=${IC_MPI}: ${impl} not found (pkg-config ${ic_pc_${impl}}); "
                          "scripts/deps.sh mpi installs Debian's Open MPI and MPICH")
    endif()
  endforeach()
endif()
message(STATUS "intercom MPI bridges: ${IC_MPI_IMPLS}")

file(GLOB IC_MPI_SOURCES CONFIGURE_DEPENDS src/transport/mpi/*.c src/core/mpi/*.c)
foreach(impl ${IC_MPI_IMPLS})
  add_library(intercom_mpi_${impl}_objects OBJECT ${IC_MPI_SOURCES})
  set_target_properties(intercom_mpi_${impl}_objects PROPERTIES
    POSITION_INDEPENDENT_CODE ON C_VISIBILITY_PRESET hidden)
  target_include_directories(intercom_mpi_${impl}_objects PRIVATE
    ${PROJECT_SOURCE_DIR}/include ${PROJECT_SOURCE_DIR}/src)
  target_compile_definitions(intercom_mpi_${impl}_objects PRIVATE _GNU_SOURCE)
  target_link_libraries(intercom_mpi_${impl}_objects PRIVATE PkgConfig::IC_PC_${impl})

  add_library(intercom_mpi_${impl} SHARED
    $<TARGET_OBJECTS:intercom_objects> $<TARGET_OBJECTS:intercom_mpi_${impl}_objects>)
  set_target_properties(intercom_mpi_${impl} PROPERTIES
    VERSION ${PROJECT_VERSION} SOVERSION ${PROJECT_VERSION_MAJOR} C_VISIBILITY_PRESET hidden)
  target_include_directories(intercom_mpi_${impl} PUBLIC
    $<BUILD_INTERFACE:${PROJECT_SOURCE_DIR}/include>
    $<INSTALL_INTERFACE:${CMAKE_INSTALL_INCLUDEDIR}>)
  target_link_libraries(intercom_mpi_${impl} PUBLIC PkgConfig::IC_PC_${impl}
    PRIVATE ${IC_SYSTEM_LIBS})
  target_link_options(intercom_mpi_${impl} PRIVATE -Wl,--no-undefined)

  # What the MPI tests link: static, with the internal headers.
  add_library(intercom_mpi_${impl}_internal STATIC
    $<TARGET_OBJECTS:intercom_objects> $<TARGET_OBJECTS:intercom_mpi_${impl}_objects>)
  target_include_directories(intercom_mpi_${impl}_internal PUBLIC
    ${PROJECT_SOURCE_DIR}/include ${PROJECT_SOURCE_DIR}/src)
  target_link_libraries(intercom_mpi_${impl}_internal PUBLIC PkgConfig::IC_PC_${impl}
    ${IC_SYSTEM_LIBS})

  install(TARGETS intercom_mpi_${impl}
    LIBRARY DESTINATION ${CMAKE_INSTALL_LIBDIR})
  set(IC_MPI_IMPL ${impl})
  set(IC_MPI_PC ${ic_pc_${impl}})
  configure_file(${PROJECT_SOURCE_DIR}/cmake/intercom-mpi.pc.in
    ${PROJECT_BINARY_DIR}/intercom-mpi-${impl}.pc @ONLY)
  install(FILES ${PROJECT_BINARY_DIR}/intercom-mpi-${impl}.pc
    DESTINATION ${CMAKE_INSTALL_LIBDIR}/pkgconfig)
endforeach()
if(IC_MPI_IMPLS)
  install(FILES include/intercom_mpi.h DESTINATION ${CMAKE_INSTALL_INCLUDEDIR})
endif()

# The side-by-side benchmark (bench/mpi_side_by_side.c), per MPI.
foreach(impl ${IC_MPI_IMPLS})
  add_executable(bench_mpi_${impl} bench/mpi_side_by_side.c)
  target_link_libraries(bench_mpi_${impl} PRIVATE intercom_mpi_${impl})
endforeach()

# intercom-tune under mpirun, measuring the network level too (docs/mpi.md).
foreach(impl ${IC_MPI_IMPLS})
  add_executable(intercom-tune-mpi-${impl} tools/intercom_tune.c tools/tune_fit.c)
  target_compile_definitions(intercom-tune-mpi-${impl} PRIVATE IC_TUNE_MPI)
  target_link_libraries(intercom-tune-mpi-${impl} PRIVATE intercom_mpi_${impl}_internal m)
  install(TARGETS intercom-tune-mpi-${impl} RUNTIME DESTINATION ${CMAKE_INSTALL_BINDIR})
endforeach()
