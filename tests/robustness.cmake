# tests/robustness.cmake, included by tests/CMakeLists.txt: the tests of
# docs/testing.md's robustness checks and docs/design.md's threading rules (label "robustness"), and the fuzzers.

# ---- driver faults ----------------------------------------------------------
# cl_shim.c interposes on the OpenCL API: it counts every object created and
# released, makes chosen calls fail, and can hide cl_khr_fp64. Linked into
# test_faults, whose exported definitions take libclfold's calls (shared or
# static); built as a module too, to be LD_PRELOADed into the runner.
add_executable(test_faults test_faults.c cl_shim.c)
target_link_libraries(test_faults PRIVATE clfold_reference clfold m Threads::Threads ${CMAKE_DL_LIBS})
target_compile_options(test_faults PRIVATE ${CLFOLD_WARNINGS})
set_target_properties(test_faults PROPERTIES ENABLE_EXPORTS ON)
foreach(mode sweep-own sweep-queue out-of-memory no-fp64)
  string(REPLACE "-" "_" name ${mode})
  clfold_add_test(faults_${name} 300 "faults;robustness" test_faults --${mode})
endforeach()
# The same sweep with the GPU path's values watched for in host memory
# (src/reduce/landing.c's test switch on POCL): its map, flush and wait fail too.
clfold_add_test(faults_sweep_own_watched 300 "faults;robustness" test_faults --sweep-own)
set_tests_properties(faults_sweep_own_watched PROPERTIES ENVIRONMENT
  "CLFOLD_AUTO_SHAPE=gpu;CLFOLD_HOST_RESULT=1")
# POCL_MEMORY_LIMIT=1: POCL reports 1 GiB of global memory, so that 1.5 GiB
# of host data (untouched pages: no RAM) is more than the device has.
clfold_add_test(faults_beyond_global_memory 300 "faults;robustness" test_faults --beyond-global-memory)
set_tests_properties(faults_beyond_global_memory PROPERTIES ENVIRONMENT "POCL_MEMORY_LIMIT=1")

add_library(clfold_cl_shim MODULE cl_shim.c)
target_link_libraries(clfold_cl_shim PRIVATE OpenCL::OpenCL Threads::Threads ${CMAKE_DL_LIBS})
target_compile_definitions(clfold_cl_shim PRIVATE CL_TARGET_OPENCL_VERSION=120)
target_compile_options(clfold_cl_shim PRIVATE ${CLFOLD_WARNINGS})

# Threading rules: contexts of their own in parallel; one context behind a mutex.
clfold_test_executable(test_threads)
target_link_libraries(test_threads PRIVATE Threads::Threads)
foreach(mode own-contexts shared-context)
  string(REPLACE "-" "_" name ${mode})
  clfold_add_test(threads_${name} 300 "threads;robustness" test_threads --${mode})
endforeach()

# Nothing grows with use: thousands of contexts, and of reductions on one.
clfold_test_executable(test_resources)
foreach(mode contexts reductions)
  clfold_add_test(resources_${mode} 300 "resources;robustness" test_resources --${mode})
endforeach()

# The runner against malformed files, bad options and a failing driver.
if(CLFOLD_BUILD_RUNNER)
  clfold_add_test(cli_robust 300 "cli;robustness" bash ${CMAKE_CURRENT_SOURCE_DIR}/test_cli_robust.sh
    $<TARGET_FILE:clfold_runner> $<TARGET_FILE:npy_tool> $<TARGET_FILE:clfold_cl_shim>)
endif()

# ---- fuzzing: -DCLFOLD_FUZZ=ON, with clang (libFuzzer) -------------------------
# fuzz_npy: npy_read_memory; fuzz_args: cli_parse; fuzz_json: json_parse
# (clfold compare's reader). Their sources are compiled
# into the fuzzers, so that libFuzzer sees their coverage. The entries
# fuzz_*_seeds run each over its seed corpus once (-runs=0); .ci/robustness.sh
# fuzzes for a minute each.
option(CLFOLD_FUZZ "Build the libFuzzer targets fuzz_npy, fuzz_args and fuzz_json (needs clang)" OFF)
if(CLFOLD_FUZZ AND CLFOLD_BUILD_RUNNER)
  # npy.c writes through whole_file.c too.
  set(fuzz_npy_sources ${PROJECT_SOURCE_DIR}/src/cli/whole_file.c)
  foreach(target npy args json)
    add_executable(fuzz_${target} fuzz/fuzz_${target}.c ${PROJECT_SOURCE_DIR}/src/cli/${target}.c
      ${fuzz_${target}_sources})
    target_include_directories(fuzz_${target} PRIVATE ${PROJECT_SOURCE_DIR}/src/cli)
    target_link_libraries(fuzz_${target} PRIVATE clfold)
    target_compile_options(fuzz_${target} PRIVATE ${CLFOLD_WARNINGS}
      -fsanitize=fuzzer,address,undefined -fno-sanitize-recover=all)
    target_link_options(fuzz_${target} PRIVATE -fsanitize=fuzzer,address,undefined)
    clfold_add_test(fuzz_${target}_seeds 120 "fuzz;robustness"
      fuzz_${target} -runs=0 ${CMAKE_CURRENT_SOURCE_DIR}/fuzz/corpus/${target})
  endforeach()
endif()

# The command-line parser on its own (host only; CI runs it under valgrind too).
if(CLFOLD_BUILD_RUNNER)
  add_executable(test_args test_args.c)
  target_link_libraries(test_args PRIVATE clfold_cli_parts clfold_reference)
  target_compile_options(test_args PRIVATE ${CLFOLD_WARNINGS})
  clfold_add_test(args 60 "cli;quick;robustness" test_args)
  # The JSON reader of clfold compare (host only; CI runs it under valgrind too).
  add_executable(test_json test_json.c)
  target_link_libraries(test_json PRIVATE clfold_cli_parts clfold_reference)
  target_compile_options(test_json PRIVATE ${CLFOLD_WARNINGS})
  clfold_add_test(cli_json 60 "cli;quick;robustness" test_json)
endif()
