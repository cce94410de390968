# HDF5 for every target that talks to it: ts_hdf5, one target, so that no executable ever
# holds two copies of the library (a static and a shared one have separate global state).
#
# Linked statically when the HDF5 installation has its archive (Debian's libhdf5-dev does):
# the shared libhdf5 needs libcurl and libcrypto for its S3 driver, and with them GnuTLS,
# LDAP, Kerberos, SSH and ~25 more libraries, whose loading and relocation every start of
# touchstone pays (bench/README.md, "Notes behind the code"), and a run starts touchstone twice
# (the binding re-exec). The archive brings only the objects we call: no S3 driver, no curl.
#
# The parallel HDF5 (built over Open MPI: libhdf5-openmpi-dev), so that ranks can write one file
# together; it serves the single-process program as well. FindHDF5 picks the serial one unless
# told (no hdf5-config.cmake is shipped, and hdf5.pc names whichever was installed last).
option(TOUCHSTONE_STATIC_HDF5 "Link HDF5's static archive when it is installed (fewer libraries to load at start)" ON)

set(HDF5_PREFER_PARALLEL ON)
# A build directory configured before touchstone needed the parallel HDF5 caches the serial
# wrapper (h5cc) and its libraries: forget them, so that it finds the parallel one too.
if(HDF5_C_COMPILER_EXECUTABLE AND NOT HDF5_C_COMPILER_EXECUTABLE MATCHES "h5pcc")
  get_cmake_property(ts_cache_vars CACHE_VARIABLES)
  foreach(var IN LISTS ts_cache_vars)
    if(var MATCHES "^HDF5_")
      unset(${var} CACHE)
    endif()
  endforeach()
endif()
find_package(HDF5 REQUIRED COMPONENTS C)
if(NOT HDF5_IS_PARALLEL)
  message(FATAL_ERROR "HDF5: found ${HDF5_C_LIBRARIES}, a serial HDF5; touchstone needs the parallel one "
                      "(Debian: libhdf5-openmpi-dev, scripts/setup-deps.sh)")
endif()
add_library(ts_hdf5 INTERFACE)
target_include_directories(ts_hdf5 SYSTEM INTERFACE ${HDF5_C_INCLUDE_DIRS} ${HDF5_INCLUDE_DIRS})
target_compile_definitions(ts_hdf5 INTERFACE ${HDF5_C_DEFINITIONS} ${HDF5_DEFINITIONS})

set(TS_HDF5_ARCHIVE "")
if(TOUCHSTONE_STATIC_HDF5)
  foreach(lib IN LISTS HDF5_C_LIBRARIES)
    if(lib MATCHES "/libhdf5(_serial)?\\.so$")
      string(REGEX REPLACE "\\.so$" ".a" archive "${lib}")
      if(EXISTS "${archive}")
        set(TS_HDF5_ARCHIVE "${archive}")
      endif()
    endif()
  endforeach()
endif()

if(TS_HDF5_ARCHIVE)
  # What the archive's objects need besides libc (libhdf5.settings, "Extra libraries"), less
  # curl and crypto, which only the S3 driver uses.
  find_library(TS_SZ_LIBRARY sz)
  find_package(ZLIB REQUIRED) # also for io/h5_inflate.c
  target_link_libraries(ts_hdf5 INTERFACE "${TS_HDF5_ARCHIVE}" MPI::MPI_C ZLIB::ZLIB ${CMAKE_DL_LIBS} m)
  if(TS_SZ_LIBRARY)
    target_link_libraries(ts_hdf5 INTERFACE "${TS_SZ_LIBRARY}")
  endif()
  message(STATUS "HDF5: static archive ${TS_HDF5_ARCHIVE}")
else()
  # zlib also for io/h5_inflate.c, which checks deflate streams before HDF5 inflates them.
  find_package(ZLIB REQUIRED)
  target_link_libraries(ts_hdf5 INTERFACE HDF5::HDF5 MPI::MPI_C ZLIB::ZLIB)
  message(STATUS "HDF5: shared library (${HDF5_C_LIBRARIES})")
endif()
