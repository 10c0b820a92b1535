// hearsay-cli type: types a text into the focused window of another application, through the
// same typer as `stream --type` and the desktop application's dictation (core/typing).
#ifdef HEARSAY_HAVE_TYPING  // engine-only builds type nothing

#include "app/cli/command.h"
#include "app/cli/options.h"
#include "core/typing/newline_mode.h"
#include "core/typing/text_typer.h"

#include <chrono>
#include <cstdio>
#include <fstream>
#include <iostream>
#include <sstream>
#include <thread>

namespace hearsay::cli {
namespace {

const char* kUsage = R"(usage: hearsay-cli type [OPTIONS] (TEXT | --file FILE)
  Types TEXT (UTF-8) into the window that has the keyboard focus, as dictated text is typed:
  each character through the keyboard's current layout; a character the layout lacks through a
  spare key mapped to it for the moment. "\n" in a file is Return (see --newline). X11 only for now.

  --file FILE     type the contents of FILE instead (- for standard input)
  --delay S       wait S seconds first (time to focus the target window; default 0)
  --newline HOW   a newline as: return (default), shift-enter (a line break in chat boxes, where
                  Return sends the message) or space
  --quiet         say nothing on stderr
)";

int runType(const std::vector<std::string>& args) {
    auto fail = [](const std::string& message, int code) {
        std::fprintf(stderr, "hearsay-cli type: %s\n", message.c_str());
        return code;
    };
    auto parsed = Options::parse(args, {"file", "delay", "newline"}, {"help", "quiet"});
    if (!parsed) return fail(parsed.message() + " (see --help)", 2);
    const Options& options = parsed.value();
    if (options.has("help")) {
        std::printf("%s", kUsage);
        return 0;
    }
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
    const auto newline = newlineModeFromName(options.value("newline").value_or("return"));
    if (!newline) return fail("--newline must be return, shift-enter or space", 2);
    auto typer = openTextTyper();
    if (!typer) return fail(typer.message(), 1);
    if (!options.has("quiet")) std::fprintf(stderr, "hearsay-cli type: %s\n", typer.value()->describe().c_str());
    std::this_thread::sleep_for(std::chrono::duration<double>(delay.value()));
    if (auto typed = typeWithNewlines(*typer.value(), text, *newline); !typed) return fail(typed.message(), 1);
    return 0;
}

} // namespace

HEARSAY_CLI_COMMAND(type, "type", "type a text into the focused window of another application (X11)", runType);

} // namespace hearsay::cli

#endif // HEARSAY_HAVE_TYPING
