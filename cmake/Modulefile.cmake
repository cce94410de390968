# Run by cmake --install (cmake/Install.cmake): writes the environment modules of the tree being
# installed, with its real prefix, DESTDIR respected: MODULEDIR/touchstone/VERSION.lua for Lmod
# and MODULEDIR/touchstone/VERSION for Environment Modules (Lmod takes the .lua one when both
# are there; Environment Modules reads only files that start with #%Module).
# Given: TOUCHSTONE_MODULEFILE_DIR, ts_bindir, ts_mandir, ts_datadir, ts_docdir (each relative to the prefix
# or absolute), ts_templates, TOUCHSTONE_MODULE_VERSION (the two in capitals the cache's, unless
# `cmake -DNAME=... -P BUILD/cmake_install.cmake` sets them for one install).
function(ts_full out dir)
  if(IS_ABSOLUTE "${dir}")
    set(full "${dir}")
  else()
    set(full "${CMAKE_INSTALL_PREFIX}/${dir}")
  endif()
  cmake_path(NORMAL_PATH full)
  string(REGEX REPLACE "(.)/$" "\\1" full "${full}")
  set(${out} "${full}" PARENT_SCOPE)
endfunction()

ts_full(TS_PREFIX "${CMAKE_INSTALL_PREFIX}")
ts_full(TS_BIN "${ts_bindir}")
ts_full(TS_MAN "${ts_mandir}")
ts_full(TS_SHARE "${ts_datadir}")
ts_full(TS_DATA "${ts_datadir}/touchstone")
ts_full(TS_DOC "${ts_docdir}")
ts_full(ts_dir "${TOUCHSTONE_MODULEFILE_DIR}/touchstone")
set(TS_MODULE_VERSION "${TOUCHSTONE_MODULE_VERSION}")
foreach(kind lua tcl)
  set(file "${ts_dir}/${TS_MODULE_VERSION}")
  if(kind STREQUAL "lua")
    string(APPEND file ".lua")
  endif()
  message(STATUS "Installing: $ENV{DESTDIR}${file}")
  configure_file("${ts_templates}/touchstone.${kind}.in" "$ENV{DESTDIR}${file}" @ONLY)
  list(APPEND CMAKE_INSTALL_MANIFEST_FILES "${file}")
endforeach()
