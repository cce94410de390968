# What `cmake --install build --prefix DIR` puts where (GNUInstallDirs; docs/building.md):
#   DIR/bin/touchstone
#   DIR/share/touchstone/plot.py        found by the binary as ../share/touchstone/plot.py
#   DIR/share/touchstone/configs/*.ini
#   DIR/share/touchstone/jobs/          the batch scripts, with their executable bits
#   DIR/share/doc/touchstone/           README.md, LICENSE, docs/ (as in the source tree, so
#                                       that the links between them still work)
#   DIR/share/man/man1/touchstone.1     the manual page, docs/touchstone.1 (not again in docs/)
#   DIR/share/bash-completion/completions/touchstone
#                                       tools/completion.bash, where bash-completion looks
#                                       (TOUCHSTONE_BASH_COMPLETION_DIR)
#   DIR/share/modulefiles/touchstone/VERSION.lua and .../VERSION
#                                       the environment modules, for Lmod and Environment
#                                       Modules, written with the prefix they are installed to
#                                       (TOUCHSTONE_MODULEFILE_DIR, cmake/Modulefile.cmake)
# Nothing here names the prefix, so the tree works wherever it is moved, but for the modulefiles:
# a module has to name the tree it puts on the PATH (install again after a move).
install(TARGETS touchstone RUNTIME DESTINATION ${CMAKE_INSTALL_BINDIR})
install(PROGRAMS ${PROJECT_SOURCE_DIR}/tools/plot.py DESTINATION ${CMAKE_INSTALL_DATADIR}/touchstone)
install(DIRECTORY ${PROJECT_SOURCE_DIR}/configs/ DESTINATION ${CMAKE_INSTALL_DATADIR}/touchstone/configs
        FILES_MATCHING PATTERN "*.ini")
install(DIRECTORY ${PROJECT_SOURCE_DIR}/jobs/ DESTINATION ${CMAKE_INSTALL_DATADIR}/touchstone/jobs
        USE_SOURCE_PERMISSIONS)
install(FILES ${PROJECT_SOURCE_DIR}/README.md DESTINATION ${CMAKE_INSTALL_DOCDIR})
install(FILES ${PROJECT_SOURCE_DIR}/LICENSE DESTINATION ${CMAKE_INSTALL_DOCDIR} OPTIONAL)
install(DIRECTORY ${PROJECT_SOURCE_DIR}/docs/ DESTINATION ${CMAKE_INSTALL_DOCDIR}/docs PATTERN "*.1" EXCLUDE)
install(FILES ${PROJECT_SOURCE_DIR}/docs/touchstone.1 DESTINATION ${CMAKE_INSTALL_MANDIR}/man1)

# bash-completion's completions folder, below DATADIR as its pkg-config file places it (its
# datadir redefined, so that the folder is under this prefix, never the system's /usr/share),
# else the folder it has always used.
set(ts_completions "${CMAKE_INSTALL_DATADIR}/bash-completion/completions")
find_package(PkgConfig QUIET)
if(PKG_CONFIG_FOUND)
  execute_process(COMMAND ${PKG_CONFIG_EXECUTABLE} --define-variable=datadir=@DATADIR@ --variable=completionsdir
                          bash-completion
                  OUTPUT_VARIABLE ts_pc_dir OUTPUT_STRIP_TRAILING_WHITESPACE RESULT_VARIABLE ts_pc_status ERROR_QUIET)
  if(ts_pc_status EQUAL 0 AND ts_pc_dir MATCHES "^@DATADIR@/(.+)$")
    set(ts_completions "${CMAKE_INSTALL_DATADIR}/${CMAKE_MATCH_1}")
  endif()
endif()
set(TOUCHSTONE_BASH_COMPLETION_DIR "${ts_completions}"
    CACHE STRING "Where the bash completion is installed (relative: below the install prefix)")
install(FILES ${PROJECT_SOURCE_DIR}/tools/completion.bash DESTINATION ${TOUCHSTONE_BASH_COMPLETION_DIR}
        RENAME touchstone)

# The environment modules (docs/building.md, "An environment module"): a site installs each
# version into a prefix of its own (/opt/apps/touchstone/1.2.3) and its modulefiles into one
# tree for all versions (-DTOUCHSTONE_MODULEFILE_DIR=/opt/apps/modulefiles). Written at install
# time, when the prefix is known (cmake --install --prefix); a package that installs into /usr
# needs none (-DTOUCHSTONE_INSTALL_MODULEFILES=OFF).
option(TOUCHSTONE_INSTALL_MODULEFILES "cmake --install writes the environment modules (Lmod, Environment Modules)" ON)
set(TOUCHSTONE_MODULEFILE_DIR "${CMAKE_INSTALL_DATADIR}/modulefiles"
    CACHE STRING "Where the modulefiles go, as MODULEFILE_DIR/touchstone/VERSION[.lua] (relative: below the prefix)")
set(TOUCHSTONE_MODULE_VERSION "${PROJECT_VERSION}"
    CACHE STRING "The module's version, the modulefile's name (a site may add its toolchain: 0.1.0-gcc12)")
if(TOUCHSTONE_INSTALL_MODULEFILES)
  install(CODE "
    if(NOT DEFINED TOUCHSTONE_MODULEFILE_DIR)
      set(TOUCHSTONE_MODULEFILE_DIR [[${TOUCHSTONE_MODULEFILE_DIR}]])
    endif()
    set(ts_bindir [[${CMAKE_INSTALL_BINDIR}]])
    set(ts_mandir [[${CMAKE_INSTALL_MANDIR}]])
    set(ts_datadir [[${CMAKE_INSTALL_DATADIR}]])
    set(ts_docdir [[${CMAKE_INSTALL_DOCDIR}]])
    set(ts_templates [[${PROJECT_SOURCE_DIR}/cmake/modulefile]])
    if(NOT DEFINED TOUCHSTONE_MODULE_VERSION)
      set(TOUCHSTONE_MODULE_VERSION [[${TOUCHSTONE_MODULE_VERSION}]])
    endif()
    include([[${PROJECT_SOURCE_DIR}/cmake/Modulefile.cmake]])
  ")
endif()
