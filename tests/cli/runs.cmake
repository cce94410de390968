# Reading run files back: compare, report, show, plot, and the first touch's counters that compare
# and show judge (init_memory) (included from CMakeLists.txt). Every
# file is made in the test by the real touchstone. The reader on damaged files is tests/io's
# io.read.*, which uses h5_doctor too.
add_executable(h5_doctor h5_doctor.c)
target_link_libraries(h5_doctor PRIVATE ts_hdf5 ts_common)

foreach(name compare report show init_memory)
  add_test(NAME cli.${name}
           COMMAND sh ${CMAKE_CURRENT_SOURCE_DIR}/test_${name}.sh $<TARGET_FILE:touchstone> ${PROJECT_SOURCE_DIR}
                   $<TARGET_FILE:h5_get> $<TARGET_FILE:h5_doctor>)
endforeach()
add_test(NAME cli.plot
         COMMAND sh ${CMAKE_CURRENT_SOURCE_DIR}/test_plot.sh $<TARGET_FILE:touchstone> ${PROJECT_SOURCE_DIR}
                 ${TOUCHSTONE_PYTHON})
# Hang guards, not verdicts on speed: cli.plot took 47 s with the suite beside it on a loaded
# 2-core machine, where 120 s was less than three times that.
set_tests_properties(cli.compare cli.report cli.show cli.init_memory cli.plot PROPERTIES TIMEOUT 900)
# Every way a run can end, read back by report, compare and plot (the fault library slows the
# checkpoint writes so that a signal stops a run exactly where the test wants).
add_test(NAME cli.read_back
         COMMAND sh ${CMAKE_CURRENT_SOURCE_DIR}/test_read_back.sh $<TARGET_FILE:touchstone> ${PROJECT_SOURCE_DIR}
                 $<TARGET_FILE:h5_get> $<TARGET_FILE:faultfs> ${TOUCHSTONE_PYTHON})
set_tests_properties(cli.read_back PROPERTIES TIMEOUT 900)
