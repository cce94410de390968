# What each long test costs, in seconds, so that `ctest -j` starts the longest first (ctest runs
# a test's fixture set-ups before it, then the costliest it may start). Without it, a clean tree
# (no Testing/Temporary/CTestCostData.txt yet: make test's, in CI) starts the tests in the order
# they are defined, and the longest ones (numa_vm, mpi.many_ranks) came last, alone on one core
# while the other sat idle. Measured by CI's make test on 2 cores (seconds of each test, rounded);
# a tree that has run its tests keeps its own times in CTestCostData.txt, which ctest prefers.
# Not a limit: only the order depends on it. The ASan tree (make test-asan) has its own figures:
# every touchstone process there is about 10 times slower (cli.output and cli.reproducible as
# measured after their ASan sizes shrank; cli.default_init, 2 s there now, left out). The fuzzing
# tree (build-fuzz, sanitized too) has the explorations: in the order they were defined, the
# longest (survey_read) came last, alone on one core for some 10 s.
if(TOUCHSTONE_SANITIZE)
  set(ts_test_costs
      fuzz.survey_read 40 fuzz.checkpoint 34 fuzz.run_read 24 fuzz.config 9 fuzz.cli 7
      cli.survey 55 cli.limits 53 cli.read_back 50 mpi.run_ranks 42 cli.output 20 cli.compare 28
      mpi.same_job 26 cli.reproducible 14 mpi.ranks 21 io.read.bad_files 19
      mpi.time_block 18 mpi.unlaunched 17 mpi.readback 16 mpi.xsum_ranks 15 cli.topo_file 13
      mpi.rank_warnings_run 13 cli.variants 12 mpi.rank_tables 10 cli.report 10 cli.run 9
      cli.init_memory 9 cli.readme 8 cli.advise 8 io.read.image 8)
else()
  set(ts_test_costs
      numa_vm.build_portable 75 numa_vm 112 bench.run 95 mpi.many_ranks 90 package.build 75
      html.browser.reports 57 valgrind.memcheck 39 slurm.hybrid_mpirun 39 mpi.time_block 37
      topo.omp_truth 36 cli.plot 34 slurm.hybrid 28 mpi.checkpoint 27 mpi.xsum_ranks 24
      mpi.run_ranks 23 mpi.ranks 22 faults.memory 22 cli.read_back 21 mpi.same_job 19
      cli.survey_resume 19 cli.checkpoint 18 cli.survey 16 cli.compare 15 layout.includes 14
      faults.damaged_checkpoint 14 cli.survey_busy 14 cli.limits 14 mpi.rank_warnings 13
      layout.labels 13 faults.kill_points 13 slurm.requeue 12 package.install 11
      html.browser.network_flags 11)
endif()
# Included at the end of each tests/ folder with long tests: set_tests_properties sees the
# tests of its own folder only (CMake 3.25), so a test defined elsewhere, or not in this tree
# (the ASan tree has no VM, no valgrind...), is skipped here.
while(ts_test_costs)
  list(POP_FRONT ts_test_costs ts_name ts_cost)
  if(TEST ${ts_name})
    set_tests_properties(${ts_name} PROPERTIES COST ${ts_cost})
  endif()
endwhile()
