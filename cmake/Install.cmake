# What `cmake --install build --prefix DIR` puts where (GNUInstallDirs; docs/building.md):
#   DIR/bin/touchstone
#   DIR/share/touchstone/plot.py        found by the binary as ../share/touchstone/plot.py
#   DIR/share/touchstone/configs/*.ini
#   DIR/share/touchstone/jobs/          the batch scripts, with their executable bits
#   DIR/share/doc/touchstone/           README.md, LICENSE, docs/ (as in the source tree, so
#                                       that the links between them still work)
#   DIR/share/man/man1/touchstone.1     the manual page, docs/touchstone.1 (not again in docs/)
# Nothing here names the prefix: the tree works wherever it is moved.
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
