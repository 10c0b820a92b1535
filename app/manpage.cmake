# Writes a man page (section 1) from a program's own --help, at build time, so that the page
# cannot drift from the program. For hearsay-cli, every command's --help follows the overview.
#   cmake -DPROGRAM=path/to/hearsay-cli -DNAME=hearsay-cli -DSUMMARY="..." -DVERSION=0.1.0
#         -DSUBCOMMANDS=ON -DOUT=hearsay-cli.1 -P manpage.cmake
set(ENV{QT_QPA_PLATFORM} offscreen)  # the GUI parses --help after making its QApplication

function(help_of out)
    execute_process(COMMAND ${PROGRAM} ${ARGN} OUTPUT_VARIABLE text ERROR_VARIABLE errors RESULT_VARIABLE status)
    if(NOT text)
        set(text "${errors}")
    endif()
    if(NOT text)
        message(FATAL_ERROR "${PROGRAM} ${ARGN} printed no help (status ${status})")
    endif()
    string(REPLACE "${PROGRAM}" "${NAME}" text "${text}")  # Qt's usage line names the path it was run by
    set(${out} "${text}" PARENT_SCOPE)
endfunction()

# Preformatted text as troff reads it literally: backslashes escaped, control characters at the
# start of a line neutralised.
function(as_troff out text)
    string(REPLACE "\\" "\\e" text "${text}")
    string(REGEX REPLACE "(^|\n)([.'])" "\\1\\\\&\\2" text "${text}")
    set(${out} "${text}" PARENT_SCOPE)
endfunction()

help_of(overview --help)
string(TIMESTAMP today "%Y-%m-%d" UTC)
as_troff(body "${overview}")
set(page ".TH ${NAME} 1 \"${today}\" \"Hearsay ${VERSION}\" \"User Commands\"\n")
string(APPEND page ".SH NAME\n${NAME} \\- ${SUMMARY}\n.SH DESCRIPTION\n.nf\n${body}\n.fi\n")
if(SUBCOMMANDS)
    string(REGEX MATCHALL "\n  [a-z][a-z-]+ " lines "${overview}")
    foreach(line ${lines})
        string(STRIP "${line}" command)
        help_of(text ${command} --help)
        as_troff(text "${text}")
        string(TOUPPER "${command}" heading)
        string(APPEND page ".SH ${heading}\n.nf\n${text}\n.fi\n")
    endforeach()
endif()
string(APPEND page ".SH FILES\n.TP\n\$XDG_STATE_HOME/hearsay (~/.local/state/hearsay)\n"
       "the dictation journals: text a run that did not end normally left, offered for restoring\n"
       ".TP\n\$XDG_DATA_HOME/hearsay/models (~/.local/share/hearsay/models)\nmodels downloaded by the model manager\n")
string(APPEND page ".SH SEE ALSO\nhearsay(1), hearsay-cli(1)\n")
file(WRITE "${OUT}.part" "${page}")
file(RENAME "${OUT}.part" "${OUT}")
