# The drop-in (docs/dropin.md): for each MPI bridge, libintercom_mpi.so =
# the whole library + the bridge + src/mpi_shim/, compiled against that
# MPI, exporting only the MPI_ functions it defines (dropin.map).  Built
# into <build>/dropin/<impl>/, installed as
# <libdir>/intercom/<impl>/libintercom_mpi.so: LD_PRELOAD it under an MPI
# program of that MPI, or link with -L<libdir>/intercom/<impl> -lintercom_mpi.
file(GLOB IC_DROPIN_SOURCES CONFIGURE_DEPENDS src/mpi_shim/*.c)
foreach(impl ${IC_MPI_IMPLS})
  add_library(intercom_dropin_${impl}_objects OBJECT ${IC_DROPIN_SOURCES})
  # Default visibility: the MPI_ wrappers are the library's interface
  # (the version script keeps everything else local).
  set_target_properties(intercom_dropin_${impl}_objects PROPERTIES
    POSITION_INDEPENDENT_CODE ON)
  target_include_directories(intercom_dropin_${impl}_objects PRIVATE
    ${PROJECT_SOURCE_DIR}/include ${PROJECT_SOURCE_DIR}/src)
  target_compile_definitions(intercom_dropin_${impl}_objects PRIVATE _GNU_SOURCE)
  target_link_libraries(intercom_dropin_${impl}_objects PRIVATE PkgConfig::IC_PC_${impl})

  add_library(intercom_dropin_${impl} SHARED
    $<TARGET_OBJECTS:intercom_objects> $<TARGET_OBJECTS:intercom_mpi_${impl}_objects>
    $<TARGET_OBJECTS:intercom_dropin_${impl}_objects>)
  set_target_properties(intercom_dropin_${impl} PROPERTIES
    OUTPUT_NAME intercom_mpi
    LIBRARY_OUTPUT_DIRECTORY ${PROJECT_BINARY_DIR}/dropin/${impl}
    VERSION ${PROJECT_VERSION} SOVERSION ${PROJECT_VERSION_MAJOR}
    LINK_DEPENDS ${PROJECT_SOURCE_DIR}/src/mpi_shim/dropin.map)
  target_link_libraries(intercom_dropin_${impl} PUBLIC PkgConfig::IC_PC_${impl}
    PRIVATE ${IC_SYSTEM_LIBS})
  target_link_options(intercom_dropin_${impl} PRIVATE -Wl,--no-undefined
    -Wl,--version-script=${PROJECT_SOURCE_DIR}/src/mpi_shim/dropin.map)
  install(TARGETS intercom_dropin_${impl}
    LIBRARY DESTINATION ${CMAKE_INSTALL_LIBDIR}/intercom/${impl})
endforeach()
