// Wayland typing through wtype (see wayland_typer.h).
//
// wtype sends keys through the compositor's virtual-keyboard protocol with a keymap it makes for
// the text: every valid UTF-8 character has a key there, so missingCharacter() finds none, and
// the target reads each character from that keymap, not from the user's layout. One wtype run
// types a whole text (its pieces and the Return and Tab keys between them, in order); it exits
// when the compositor has the keys (a void key goes first: see run()). The keyboard is wtype's own, so modifiers the user still
// holds on the real keyboard do not apply to its keys.
#include "core/typing/wayland_typer.h"

#include "core/typing/child_process.h"
#include "core/util/json_text.h"
#include "core/util/utf8.h"

#include <xkbcommon/xkbcommon.h>

#include <cstdio>
#include <cstdlib>

namespace hearsay {
namespace {

constexpr std::string_view kWtypePackage = "wtype";
constexpr int kProbeTimeoutMs = 5000;
constexpr int kChordTimeoutMs = 5000;
constexpr int kKeymapSettleMs = 50;  // see WaylandTyper::run

// A generous bound for a text: wtype sends a key press and release per character.
int typingTimeoutMs(size_t codePoints) { return 10000 + int(codePoints) * 10; }

// wtype's message without its trailing newline, or its exit status when it printed none.
std::string wtypeFailure(const ChildOutput& output) {
    return output.errors.empty() ? "wtype exited with status " + std::to_string(output.exitCode)
                                 : "wtype: " + output.errors;
}

class WaylandTyper final : public TextTyper {
public:
    explicit WaylandTyper(std::string display) : m_display(std::move(display)) {}

    std::string describe() const override { return "Wayland (wtype) on " + m_display; }

    Result<void> type(std::string_view utf8) override {
        auto arguments = wtypeTextArguments(utf8);
        if (!arguments) return arguments.error().prefixed("cannot type the text: ");
        if (arguments->empty()) return {};
        std::vector<std::string> argv{"wtype"};
        argv.insert(argv.end(), arguments->begin(), arguments->end());
        return run(argv, typingTimeoutMs(utf8.size()), "cannot type the text: ");
    }

    // wtype's keymap has every character of the text (see the top of this file): none is missing
    // from valid UTF-8 but the control characters other than newline and tab, which have no key.
    std::optional<uint32_t> missingCharacter(std::string_view utf8) override {
        const auto points = codePointsOf(utf8);
        if (!points) return 0xFFFD;
        for (uint32_t cp : *points)
            if ((cp < 0x20 && cp != '\n' && cp != '\t') || cp == 0x7F) return cp;
        return std::nullopt;
    }

    Result<void> pressChord(const std::vector<std::string>& keysyms) override {
        auto arguments = wtypeChordArguments(keysyms);
        if (!arguments) return arguments.error();
        std::vector<std::string> argv{"wtype"};
        argv.insert(argv.end(), arguments->begin(), arguments->end());
        return run(argv, kChordTimeoutMs, "cannot press the keys: ");
    }

    // Wayland tells clients nothing about other clients' windows; sway does, over its own socket.
    FocusedWindow focusedWindow() override {
        const char* sway = std::getenv("SWAYSOCK");
        if (!sway || !*sway) return {};
        auto tree = runChild({"swaymsg", "-t", "get_tree", "-r"}, {}, kProbeTimeoutMs, "sway");
        if (!tree || tree->exitCode != 0) return {};
        return swayFocusedWindow(tree->out);
    }

private:
    // Each wtype run starts with a key that has no meaning (VoidSymbol) and a pause of
    // kKeymapSettleMs: a Qt editor under sway was seen to drop the first keys after wtype's new
    // keymap, the first letter or a whole short text in about one run of three; with the void key
    // and a 20 ms pause, none was lost in 50 runs (the void key alone still lost some), and 50 ms
    // leaves room for a loaded machine.
    static Result<void> run(std::vector<std::string> argv, int timeoutMs, std::string_view context) {
        argv.insert(argv.begin() + 1, {"-k", "VoidSymbol", "-s", std::to_string(kKeymapSettleMs)});
        auto ran = runChild(argv, {}, timeoutMs, kWtypePackage);
        if (!ran) return ran.error().prefixed(context);
        if (ran->exitCode != 0) return makeError(std::string(context) + wtypeFailure(ran.value()));
        return {};
    }

    std::string m_display;
};

// The virtual keyboard's modifier names for wtype's -M and -m.
const char* modifierName(std::string_view keysym) {
    if (keysym == "Control_L" || keysym == "Control_R") return "ctrl";
    if (keysym == "Shift_L" || keysym == "Shift_R") return "shift";
    if (keysym == "Alt_L" || keysym == "Alt_R" || keysym == "Meta_L" || keysym == "Meta_R") return "alt";
    if (keysym == "Super_L" || keysym == "Super_R") return "logo";
    if (keysym == "ISO_Level3_Shift") return "altgr";
    if (keysym == "Caps_Lock") return "capslock";
    return nullptr;
}

// A string member of `node`, or "" (sway's tree is read as untrusted input: no exceptions).
std::string stringAt(const nlohmann::json& node, const char* key) {
    const auto it = node.find(key);
    return it != node.end() && it->is_string() ? it->get<std::string>() : std::string();
}

void collectFocused(const nlohmann::json& node, FocusedWindow& found, bool& seen) {
    if (seen || !node.is_object()) return;
    const auto focused = node.find("focused");
    if (focused != node.end() && focused->is_boolean() && focused->get<bool>()) {
        seen = true;
        const auto id = node.find("id");
        found.id = id != node.end() && id->is_number_unsigned() ? id->get<uint64_t>() : 0;
        const std::string appId = stringAt(node, "app_id");
        const auto x11 = node.find("window_properties");
        const bool hasX11 = x11 != node.end() && x11->is_object();
        found.instance = !appId.empty() ? appId : hasX11 ? stringAt(*x11, "instance") : std::string();
        found.windowClass = !appId.empty() ? appId : hasX11 ? stringAt(*x11, "class") : std::string();
        return;
    }
    for (const char* children : {"nodes", "floating_nodes"}) {
        const auto list = node.find(children);
        if (list == node.end() || !list->is_array()) continue;
        for (const nlohmann::json& child : *list) collectFocused(child, found, seen);
    }
}

} // namespace

Result<std::vector<std::string>> wtypeTextArguments(std::string_view utf8) {
    size_t bad = 0;
    const auto points = codePointsOf(utf8, &bad);
    if (!points) return makeError("not UTF-8 at byte " + std::to_string(bad));
    std::vector<std::string> arguments;
    std::string piece;
    auto flush = [&] {
        size_t dashes = 0;
        while (dashes < piece.size() && piece[dashes] == '-') ++dashes;
        for (size_t i = 0; i < dashes; ++i) arguments.insert(arguments.end(), {"-k", "minus"});
        if (dashes < piece.size()) arguments.push_back(piece.substr(dashes));
        piece.clear();
    };
    for (uint32_t cp : *points) {
        if (cp == '\n' || cp == '\t') {
            flush();
            arguments.insert(arguments.end(), {"-k", cp == '\n' ? "Return" : "Tab"});
        } else if (cp < 0x20 || cp == 0x7F) {
            return makeError(codePointName(cp) + " is a control character, which has no key");
        } else {
            appendUtf8(piece, cp);
        }
    }
    flush();
    return arguments;
}

Result<std::vector<std::string>> wtypeChordArguments(const std::vector<std::string>& keysyms) {
    std::vector<std::string> press, release;
    for (const std::string& name : keysyms) {
        if (const char* modifier = modifierName(name)) {
            press.insert(press.end(), {"-M", modifier});
            release.insert(release.begin(), {"-m", modifier});
        } else if (xkb_keysym_from_name(name.c_str(), XKB_KEYSYM_NO_FLAGS) != XKB_KEY_NoSymbol) {
            press.insert(press.end(), {"-P", name});
            release.insert(release.begin(), {"-p", name});
        } else {
            return makeError("cannot press " + name + ": it is not a key symbol");
        }
    }
    press.insert(press.end(), release.begin(), release.end());
    return press;
}

FocusedWindow swayFocusedWindow(std::string_view treeJson) {
    auto tree = parseJson(treeJson);
    FocusedWindow found;
    bool seen = false;
    if (tree) collectFocused(tree.value(), found, seen);
    return found;
}

Result<std::unique_ptr<TextTyper>> openWaylandTyper() {
    const char* display = std::getenv("WAYLAND_DISPLAY");
    const std::string name = display && *display ? display : "wayland-0";
    // An empty text types nothing: wtype connects, asks for the virtual keyboard and exits.
    auto probe = runChild({"wtype", ""}, {}, kProbeTimeoutMs, kWtypePackage);
    if (!probe) return probe.error().prefixed("cannot type into other applications: ");
    if (probe->exitCode != 0) {
        std::string message = "cannot type into other applications on Wayland (" + name + "): " + wtypeFailure(probe.value());
        // wtype's words for a compositor without the protocol: "... the virtual keyboard protocol".
        if (probe->errors.find("virtual keyboard") != std::string::npos)
            message += ". Typing needs the virtual-keyboard protocol (sway, Hyprland, river and other wlroots "
                       "compositors have it); GNOME and KDE type through the RemoteDesktop portal "
                       "(HEARSAY_TYPER=portal)";
        return makeError(message);
    }
    return std::unique_ptr<TextTyper>(std::make_unique<WaylandTyper>(name));
}

bool isWaylandTyper(const TextTyper& typer) { return dynamic_cast<const WaylandTyper*>(&typer) != nullptr; }

} // namespace hearsay
