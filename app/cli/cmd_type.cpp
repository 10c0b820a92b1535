// hearsay-cli type: types a text into the focused window of another application, through the
// same typer as `stream --type` and the desktop application's dictation (core/typing).
#ifdef HEARSAY_HAVE_TYPING  // engine-only builds type nothing

#include "app/cli/command.h"
#include "core/typing/insertion_method.h"
#include "core/typing/newline_mode.h"
#include "core/typing/text_typer.h"
#include "core/typing/wayland_paste.h"
#include "core/typing/wayland_typer.h"

#include <chrono>
#include <cstdio>
#include <fstream>
#include <iostream>
#include <sstream>
#include <thread>

namespace hearsay::cli {
namespace {

void declareType(CLI::App& c) {
    c.footer("Types TEXT (UTF-8) into the window that has the keyboard focus, as dictated text is typed.\n"
             "X11: each character through the keyboard's current layout; a character the layout lacks\n"
             "through a spare key mapped to it for the moment. Wayland (sway, Hyprland, river and other\n"
             "wlroots compositors): through wtype, any character. GNOME and KDE (Wayland): through the desktop\n"
             "portal's RemoteDesktop interface, as key symbols the desktop types with the user's layout (the\n"
             "desktop asks the user first). HEARSAY_TYPER=x11|wayland|portal chooses. \"\\n\" in a file is Return\n"
             "(see --newline), \"\\t\" Tab.");
    addPositional(c, "TEXT", "the text to type (or --file FILE)");
    addText(c, "--file", "FILE", "type the contents of FILE instead (- for standard input)");
    addChoice(c, "--method", {"type", "paste", "automatic", "auto"},
              "type (the default), paste, or automatic (paste a text of 100 characters or more, 40 through wtype, "
              "or one with a character the layout lacks; type anything else). Pasting puts the text on the "
              "clipboard (wl-copy), presses the paste chord of the focused window (Ctrl+V; Ctrl+Shift+V in terminals that sway names) "
              "and puts the previous text back; Wayland only (on X11 the desktop application pastes, and automatic "
              "types)");
    addNumber(c, "--delay", 0.0, 3600.0, "wait S seconds first (time to focus the target window; default 0)");
    addChoice(c, "--newline", {"return", "shift-enter", "space"},
              "a newline as: return (default), shift-enter (a line break in chat boxes, where Return sends the "
              "message) or space");
    addFlag(c, "--quiet", "say nothing on stderr");
}

int runType(const Options& options) {
    auto fail = [](const std::string& message, int code) {
        std::fprintf(stderr, "hearsay-cli type: %s\n", message.c_str());
        return code;
    };
    const auto file = options.value("file");
    if (bool(file) == !options.positional().empty() || options.positional().size() > 1)
        return fail("give one TEXT or --file FILE (see --help)", 2);
    std::string text;
    if (file) {
        std::ostringstream buffer;
        if (*file == "-") {
            buffer << std::cin.rdbuf();
        } else {
            std::ifstream in(*file, std::ios::binary);
            if (!in) return fail("cannot read '" + *file + "'", 1);
            buffer << in.rdbuf();
        }
        text = buffer.str();
    } else {
        text = options.positional().front();
    }
    auto delay = options.doubleValue("delay", 0.0);
    if (!delay || delay.value() < 0.0) return fail(delay ? "--delay must be >= 0" : delay.message(), 2);
    const std::string methodName = options.value("method", "type");
    const auto method = insertionModeFromName(methodName == "auto" ? "automatic" : methodName);
    if (!method) return fail("--method must be type, paste or automatic, not '" + methodName + "'", 2);
    const auto newline = newlineModeFromName(options.value("newline").value_or("return"));
    if (!newline) return fail("--newline must be return, shift-enter or space", 2);
    const bool quiet = options.has("quiet");
    auto opened = openTextTyper();
    if (!opened) return fail(opened.message(), 1);
    TextTyper& typer = *opened.value();
    if (!quiet) std::fprintf(stderr, "hearsay-cli type: %s\n", typer.describe().c_str());
    std::this_thread::sleep_for(std::chrono::duration<double>(delay.value()));
    const auto missing = *method == InsertionMode::Automatic ? typer.missingCharacter(text) : std::nullopt;
    if (pasteReason(*method, text, missing, pasteFromCodePoints(typer)) != PasteReason::Typed) {
        if (isWaylandTyper(typer)) {
            // Pasted piece by piece, a Shift+Enter line break pressed between pieces.
            const PasteChord chord = pasteChordFor(typer.focusedWindow());
            std::string note;
            Result<void> outcome;
            int done = 0;  // steps that went in: after one, a failure is not retried by typing (no text twice)
            for (const InsertionStep& step : planNewlines(text, *newline)) {
                if (step.lineBreak) {
                    outcome = typer.pressChord(shiftEnterChord());
                } else if (auto pasted = WaylandPaste().paste(step.text, typer, chord); pasted) {
                    note = pasted->restored ? "the clipboard is as it was" : pasted->note;
                } else {
                    outcome = makeError(pasted.message());
                }
                if (!outcome) break;
                ++done;
            }
            if (outcome) {
                if (!quiet) std::fprintf(stderr, "hearsay-cli type: pasted with %s; %s\n", chord.name.c_str(), note.c_str());
                return 0;
            }
            if (*method == InsertionMode::Paste || done > 0) return fail(outcome.message(), 1);
            if (!quiet) std::fprintf(stderr, "hearsay-cli type: %s; typing instead\n", outcome.message().c_str());
        } else if (*method == InsertionMode::Paste) {
            return fail("--method paste: hearsay-cli pastes on wlroots Wayland only (wl-clipboard with wtype); on X11 "
                        "the desktop application pastes, and through the desktop portal text is typed",
                        2);
        }
    }
    if (auto typed = typeWithNewlines(typer, text, *newline); !typed) return fail(typed.message(), 1);
    return 0;
}

} // namespace

HEARSAY_CLI_COMMAND(type, "type", "type a text into the focused window of another application (X11, Wayland)",
                    declareType, runType);

} // namespace hearsay::cli

#endif // HEARSAY_HAVE_TYPING
