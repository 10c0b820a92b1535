# Run at every build (cmake -P, from app/CMakeLists.txt): writes OUT, a header defining
# HEARSAY_GIT_COMMIT as the source tree's commit ("-dirty" with changes to tracked files, "unknown"
# outside a git checkout). The file is rewritten only when that text changes, so a build after a
# commit recompiles the few files that print it and nothing else.
execute_process(COMMAND git rev-parse --short=12 HEAD WORKING_DIRECTORY ${SOURCE_DIR}
                OUTPUT_VARIABLE commit OUTPUT_STRIP_TRAILING_WHITESPACE ERROR_QUIET)
execute_process(COMMAND git status --porcelain --untracked-files=no WORKING_DIRECTORY ${SOURCE_DIR}
                OUTPUT_VARIABLE dirty OUTPUT_STRIP_TRAILING_WHITESPACE ERROR_QUIET)
if(NOT commit)
    set(commit unknown)
elseif(dirty)
    string(APPEND commit "-dirty")
endif()
set(text "#define HEARSAY_GIT_COMMIT \"${commit}\"\n")
set(old "")
if(EXISTS ${OUT})
    file(READ ${OUT} old)
endif()
if(NOT old STREQUAL text)
    file(WRITE ${OUT} "${text}")
endif()
