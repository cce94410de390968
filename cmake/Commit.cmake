# The commit a build comes from, for `touchstone --version` (docs/building.md): the cache
# variable TOUCHSTONE_COMMIT when given (a package built from a release tarball has no .git:
# its rules pass what they know), else git's HEAD of the source tree at configure time, else
# "unknown". Sets TOUCHSTONE_COMMIT_NAME.
#
# CMake configures again when HEAD moves (a commit, a checkout), so a build after a commit names
# the new one: its HEAD file and the ref HEAD points to are configure dependencies. A tree with
# changes not committed is still named by its commit: what was edited, git cannot say here.
set(TOUCHSTONE_COMMIT "" CACHE STRING "The commit touchstone --version names (empty: ask git at configure time)")
set(TOUCHSTONE_COMMIT_NAME "${TOUCHSTONE_COMMIT}")
if(TOUCHSTONE_COMMIT_NAME STREQUAL "")
  set(TOUCHSTONE_COMMIT_NAME "unknown")
  find_package(Git QUIET)
  if(GIT_FOUND)
    execute_process(COMMAND ${GIT_EXECUTABLE} -C ${PROJECT_SOURCE_DIR} rev-parse --short=12 HEAD
                    OUTPUT_VARIABLE ts_head RESULT_VARIABLE ts_status OUTPUT_STRIP_TRAILING_WHITESPACE ERROR_QUIET)
    if(ts_status EQUAL 0 AND ts_head MATCHES "^[0-9a-f]+$")
      set(TOUCHSTONE_COMMIT_NAME "${ts_head}")
      # HEAD (per worktree), the branch it names and packed-refs, where each exists.
      execute_process(COMMAND ${GIT_EXECUTABLE} -C ${PROJECT_SOURCE_DIR} rev-parse --path-format=absolute
                              --git-path HEAD --git-path packed-refs
                      OUTPUT_VARIABLE ts_files OUTPUT_STRIP_TRAILING_WHITESPACE ERROR_QUIET)
      execute_process(COMMAND ${GIT_EXECUTABLE} -C ${PROJECT_SOURCE_DIR} symbolic-ref -q HEAD
                      OUTPUT_VARIABLE ts_ref OUTPUT_STRIP_TRAILING_WHITESPACE ERROR_QUIET)
      if(ts_ref)
        execute_process(COMMAND ${GIT_EXECUTABLE} -C ${PROJECT_SOURCE_DIR} rev-parse --path-format=absolute
                                --git-path ${ts_ref}
                        OUTPUT_VARIABLE ts_ref_file OUTPUT_STRIP_TRAILING_WHITESPACE ERROR_QUIET)
        # A branch kept only in packed-refs gets its loose file at its next commit: its folder changes.
        get_filename_component(ts_ref_dir "${ts_ref_file}" DIRECTORY)
        string(APPEND ts_files "\n${ts_ref_file}\n${ts_ref_dir}")
      endif()
      string(REPLACE "\n" ";" ts_files "${ts_files}")
      foreach(file IN LISTS ts_files)
        if(EXISTS "${file}")
          set_property(DIRECTORY APPEND PROPERTY CMAKE_CONFIGURE_DEPENDS "${file}")
        endif()
      endforeach()
    endif()
  endif()
endif()
