// Pasting through the Wayland clipboard with wl-copy and wl-paste (see wayland_paste.h).
#include "core/typing/wayland_paste.h"

#include "core/typing/child_process.h"

#include <algorithm>
#include <chrono>
#include <optional>
#include <sstream>
#include <thread>

namespace hearsay {
namespace {

constexpr std::string_view kClipboardPackage = "wl-clipboard";
constexpr int kTimeoutMs = 10000;
constexpr const char* kTextType = "text/plain;charset=utf-8";

// The clipboard before the paste: empty, text, or content of another kind (an image), which
// cannot be put back as text.
struct Saved {
    bool empty = true;
    std::optional<std::string> text;
    std::string otherType;  // the first type offered, when it is not text
};

std::vector<std::string> command(const char* program, bool primary, std::vector<std::string> rest) {
    std::vector<std::string> argv{program};
    if (primary) argv.push_back("--primary");
    argv.insert(argv.end(), rest.begin(), rest.end());
    return argv;
}

Result<Saved> readClipboard(bool primary) {
    auto listed = runChild(command("wl-paste", primary, {"--list-types"}), {}, kTimeoutMs, kClipboardPackage);
    if (!listed) return listed.error();
    Saved saved;
    if (listed->exitCode != 0) return saved;  // "No selection": nothing to keep
    std::vector<std::string> types;
    std::istringstream lines(listed->out);
    for (std::string line; std::getline(lines, line);)
        if (!line.empty()) types.push_back(line);
    if (types.empty()) return saved;
    saved.empty = false;
    for (const char* type : {kTextType, "UTF8_STRING", "text/plain", "STRING", "TEXT"}) {
        if (std::find(types.begin(), types.end(), type) == types.end()) continue;
        auto read = runChild(command("wl-paste", primary, {"--no-newline", "--type", type}), {}, kTimeoutMs, kClipboardPackage);
        if (!read) return read.error();
        if (read->exitCode == 0) saved.text = read->out;
        return saved;
    }
    saved.otherType = types.front();
    return saved;
}

Result<void> copy(bool primary, std::string_view text) {
    auto copied = runChild(command("wl-copy", primary, {"--type", kTextType}), text, kTimeoutMs, kClipboardPackage);
    if (!copied) return copied.error();
    if (copied->exitCode != 0)
        return makeError("wl-copy: " + (copied->errors.empty() ? "exit status " + std::to_string(copied->exitCode)
                                                                : copied->errors));
    return {};
}

// Whether the clipboard still holds `text` (no other program set it since).
bool stillHolds(bool primary, std::string_view text) {
    auto read = runChild(command("wl-paste", primary, {"--no-newline", "--type", kTextType}), {}, kTimeoutMs, kClipboardPackage);
    return read && read->exitCode == 0 && read->out == text;
}

Result<void> putBack(bool primary, const Saved& saved) {
    if (saved.text) return copy(primary, *saved.text);
    auto cleared = runChild(command("wl-copy", primary, {"--clear"}), {}, kTimeoutMs, kClipboardPackage);
    if (!cleared) return cleared.error();
    return {};
}

} // namespace

Result<WaylandPasteOutcome> WaylandPaste::paste(std::string_view text, TextTyper& typer, const PasteChord& chord,
                                                const std::function<void()>& chordSent) const {
    const bool primary = chord.primarySelection;
    auto saved = readClipboard(primary);
    if (!saved) return saved.error().prefixed("cannot paste: ");
    if (auto copied = copy(primary, text); !copied) return copied.error().prefixed("cannot paste: ");
    if (auto pressed = typer.pressChord(chord.keysyms); !pressed) {
        if (stillHolds(primary, text) && (saved->empty || saved->text)) {
            [[maybe_unused]] auto back = putBack(primary, saved.value());  // the chord's error says more
        }
        return makeError("cannot paste with " + chord.name + ": " + pressed.message());
    }
    if (chordSent) chordSent();
    std::this_thread::sleep_for(std::chrono::milliseconds(m_restoreAfterMs));
    WaylandPasteOutcome outcome;
    if (!stillHolds(primary, text)) {
        outcome.note = "another program set the clipboard meanwhile; its content stays";
    } else if (!saved->empty && !saved->text) {
        outcome.note = "the clipboard held " + saved->otherType + ", which is not put back (the pasted text stays there)";
    } else if (auto back = putBack(primary, saved.value()); !back) {
        outcome.note = "the clipboard could not be put back: " + back.message();
    } else {
        outcome.restored = true;
    }
    return outcome;
}

} // namespace hearsay
