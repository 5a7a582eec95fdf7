# LocalizeArchive.cmake: a static libclfold.a (and libclfold_mpi.a) whose only
# global symbols are the public API's.
#
# Why: a function that two of the library's files share (device_select, fail,
# block_values_bytes, ...) is a global symbol of its object file, and a plain
# archive of those objects hands every one of them to the program that links
# it, where a function of the same name clashes. The library is compiled with
# -fvisibility=hidden, and CLFOLD_API / CLFOLD_MPI_API (include/clfold.h,
# include/clfold_mpi.h) give the API default visibility: that is all the shared
# library needs to export the API alone. An archive has no such filter, so
# after CMake has archived the objects this step (POST_BUILD)
#   1. links the whole archive into one relocatable object (cc -r): the
#      references of the library's files to each other are resolved inside it;
#   2. makes every hidden symbol of that object local (objcopy
#      --localize-hidden): the API's definitions alone stay global;
#   3. replaces the archive with one that holds that object alone.
# No list of internal names exists to fall behind: a new non-static function
# is hidden, hence local, with nothing to add anywhere. And the library's calls
# to its own functions are bound inside the object, so a program's function of
# the same name neither clashes with nor replaces the library's.
# tests/check_symbols.sh (ctest -R '^symbols$', and .ci/packaging.sh on the
# installed package) checks the libraries' global symbols against the headers.
#
# Where: an ELF toolchain whose compiler driver is gcc's or clang's, with an
# objcopy that has --localize-hidden (GNU binutils' or llvm-objcopy); there
# an objcopy without it stops a static build's configuration. Elsewhere
# (Mach-O, PE, or CMAKE_INTERPROCEDURAL_OPTIMIZATION, whose objects hold
# compiler IR) the archive stays CMake's own: its internal functions are
# global symbols under their own names, as in any plain archive; the
# configuration says so and the symbols test leaves the archive out. (Apple's
# ld -r makes hidden symbols local by itself: a port there is step 1 alone,
# with -all_load for --whole-archive.)
#
# Two uses:
#   include(LocalizeArchive): sets CLFOLD_LOCALIZE_ARCHIVES (ON; OFF, with
#     CLFOLD_LOCALIZE_ARCHIVES_WHY; or NO_OBJCOPY) and defines
#     clfold_localize_archive(target), which adds the step to a static
#     library target (nothing to a shared one).
#   cmake -DARCHIVE=lib.a -DCC=... -DOBJCOPY=... -DAR=... [-DRANLIB=...]
#         [-DCC_FLAGS=a|b] -P LocalizeArchive.cmake: the step itself.

if(CMAKE_SCRIPT_MODE_FILE)
  foreach(var ARCHIVE CC OBJCOPY AR)
    if(NOT DEFINED ${var} OR "${${var}}" STREQUAL "")
      message(FATAL_ERROR "LocalizeArchive.cmake needs -D${var}=...")
    endif()
  endforeach()
  string(REPLACE "|" ";" CC_FLAGS "${CC_FLAGS}")
  get_filename_component(name "${ARCHIVE}" NAME_WE)
  set(work "${ARCHIVE}.localize")
  set(object "${work}/${name}.o")
  set(archive "${work}/${name}.a")
  # Runs one command of the step; on failure removes the archive, so that no
  # build takes the unfinished archive for a finished one.
  function(step)
    execute_process(COMMAND ${ARGN} RESULT_VARIABLE rc OUTPUT_VARIABLE out ERROR_VARIABLE out)
    if(NOT rc EQUAL 0)
      file(REMOVE "${ARCHIVE}")
      file(REMOVE_RECURSE "${work}")
      string(REPLACE ";" " " command "${ARGN}")
      message(FATAL_ERROR "LocalizeArchive: `${command}` failed (${rc}):\n${out}")
    endif()
  endfunction()
  file(REMOVE_RECURSE "${work}")
  file(MAKE_DIRECTORY "${work}")
  step(${CC} ${CC_FLAGS} -r -nostdlib -o "${object}"
       -Wl,--whole-archive "${ARCHIVE}" -Wl,--no-whole-archive)
  step(${OBJCOPY} --localize-hidden "${object}")
  step(${AR} qc "${archive}" "${object}")
  if(RANLIB)
    step(${RANLIB} "${archive}")
  endif()
  file(RENAME "${archive}" "${ARCHIVE}")
  file(REMOVE_RECURSE "${work}")
  return()
endif()

set(CLFOLD_LOCALIZE_ARCHIVES OFF)
set(CLFOLD_LOCALIZE_ARCHIVES_WHY "")
set(CLFOLD_LOCALIZE_ARCHIVES_SCRIPT ${CMAKE_CURRENT_LIST_FILE})
if(NOT CMAKE_EXECUTABLE_FORMAT STREQUAL "ELF")
  set(CLFOLD_LOCALIZE_ARCHIVES_WHY "binaries are not ELF ('${CMAKE_EXECUTABLE_FORMAT}')")
elseif(NOT CMAKE_C_COMPILER_ID MATCHES "^(GNU|Clang)$")
  set(CLFOLD_LOCALIZE_ARCHIVES_WHY "the C compiler is ${CMAKE_C_COMPILER_ID}, not gcc or clang")
elseif(CMAKE_INTERPROCEDURAL_OPTIMIZATION)
  set(CLFOLD_LOCALIZE_ARCHIVES_WHY "CMAKE_INTERPROCEDURAL_OPTIMIZATION is on (objects of compiler IR)")
else()
  set(objcopy_help "")
  if(CMAKE_OBJCOPY)
    execute_process(COMMAND ${CMAKE_OBJCOPY} --help
                    OUTPUT_VARIABLE objcopy_help ERROR_VARIABLE objcopy_help)
  endif()
  if(objcopy_help MATCHES "--localize-hidden")
    set(CLFOLD_LOCALIZE_ARCHIVES ON)
  else()
    # An ELF toolchain without it: a static build stops (clfold_localize_archive).
    set(CLFOLD_LOCALIZE_ARCHIVES NO_OBJCOPY)
    set(CLFOLD_LOCALIZE_ARCHIVES_WHY "no objcopy with --localize-hidden ('${CMAKE_OBJCOPY}')")
  endif()
endif()

# The step after a static library target's archive is made; nothing for other targets.
function(clfold_localize_archive target)
  get_target_property(type ${target} TYPE)
  if(NOT type STREQUAL "STATIC_LIBRARY")
    return()
  endif()
  if(CLFOLD_LOCALIZE_ARCHIVES STREQUAL "NO_OBJCOPY")
    message(FATAL_ERROR "clfold: a static ${target} needs an objcopy with --localize-hidden "
      "(GNU binutils' or llvm-objcopy) to hide its internal symbols; CMAKE_OBJCOPY is "
      "'${CMAKE_OBJCOPY}'. Install one, point CMAKE_OBJCOPY at it, or build shared libraries.")
  elseif(NOT CLFOLD_LOCALIZE_ARCHIVES)
    message(STATUS "clfold: ${target}'s internal functions stay global symbols of its archive: "
      "${CLFOLD_LOCALIZE_ARCHIVES_WHY} (cmake/LocalizeArchive.cmake)")
    return()
  endif()
  # The driver links for the same target as it compiles.
  set(cc_flags "")
  if(CMAKE_C_COMPILER_TARGET AND CMAKE_C_COMPILE_OPTIONS_TARGET)
    list(APPEND cc_flags "${CMAKE_C_COMPILE_OPTIONS_TARGET}${CMAKE_C_COMPILER_TARGET}")
  endif()
  string(REPLACE ";" "|" cc_flags "${cc_flags}")
  add_custom_command(TARGET ${target} POST_BUILD
    COMMAND ${CMAKE_COMMAND} -DARCHIVE=$<TARGET_FILE:${target}> -DCC=${CMAKE_C_COMPILER}
            "-DCC_FLAGS=${cc_flags}" -DOBJCOPY=${CMAKE_OBJCOPY} -DAR=${CMAKE_AR}
            -DRANLIB=${CMAKE_RANLIB} -P ${CLFOLD_LOCALIZE_ARCHIVES_SCRIPT}
    COMMENT "Localizing ${target}'s internal symbols (one object, hidden symbols local)"
    VERBATIM)
  # With the Makefile generators a change of this file makes the archive again.
  set_property(TARGET ${target} APPEND PROPERTY LINK_DEPENDS ${CLFOLD_LOCALIZE_ARCHIVES_SCRIPT})
endfunction()
