// X11 typing through the XTest extension (see x11_typer.h).
//
// Each character becomes a keysym (libxkbcommon's Unicode table: the layouts' own legacy keysyms,
// such as rcaron for ř, where they exist), and the keysym is looked up in the keyboard's current
// layout group: the key that carries it and the level it sits on. The level's modifiers come from
// the key's XKB type (Shift for level 2, the Level3/AltGr modifier for 3, both for 4 on the common
// types), and their keys from the server's modifier mapping. A character the layout lacks gets a
// spare keycode (one with no symbols) mapped to it for the length of the text, as a user's xmodmap
// would; the spare keys are put back once the target has had the time to read the new mapping.
// Targets that follow the core keyboard mapping (xterm) get those characters; Qt and GTK
// programs, which keep an XKB keymap of their own, miss them: missingCharacter() tells the
// desktop application to paste such text instead, with a chord pressChord() sends.
#include "core/typing/x11_typer.h"

#include "core/typing/key_symbols.h"
#include "core/util/utf8.h"

#include <X11/XKBlib.h>
#include <X11/Xatom.h>
#include <X11/Xlib.h>
#include <X11/Xutil.h>
#include <X11/extensions/XTest.h>
#include <X11/keysym.h>
#include <xkbcommon/xkbcommon.h>

#include <chrono>
#include <cstdint>
#include <cstdlib>
#include <optional>
#include <thread>
#include <vector>

namespace hearsay {
namespace {

class X11Typer final : public TextTyper {
public:
    X11Typer(Display* display, std::string name) : m_display(display), m_name(std::move(name)) {}
    ~X11Typer() override { XCloseDisplay(m_display); }

    std::string describe() const override {
        XkbStateRec state{};
        XkbGetState(m_display, XkbUseCoreKbd, &state);
        return "X11 (XTest) on " + m_name + ", layout group " + std::to_string(int(state.group) + 1);
    }

    Result<void> type(std::string_view utf8) override {
        size_t bad = 0;
        const auto points = codePointsOf(utf8, &bad);
        if (!points) return makeError("cannot type the text: not UTF-8 at byte " + std::to_string(bad));
        XkbDescPtr xkb = XkbGetMap(m_display, XkbAllClientInfoMask, XkbUseCoreKbd);
        XModifierKeymap* modifiers = XGetModifierMapping(m_display);
        if (!xkb || !modifiers) {
            if (xkb) XkbFreeKeyboard(xkb, 0, True);
            if (modifiers) XFreeModifiermap(modifiers);
            return makeError("cannot read the keyboard mapping of " + m_name);
        }
        XkbStateRec state{};
        XkbGetState(m_display, XkbUseCoreKbd, &state);
        releaseHeldModifiers(modifiers, state.base_mods);
        Result<void> result;
        std::vector<std::pair<KeySym, KeyCode>> remapped;  // spare keys given a symbol, this text
        for (uint32_t cp : *points) {
            const KeySym sym = keysymForCharacter(cp);
            if (sym == NoSymbol) {
                result = makeError("cannot type " + codePointName(cp) + ": no key symbol for it");
                break;
            }
            std::optional<Stroke> stroke = find(xkb, modifiers, state.group, sym);
            if (!stroke) {
                for (const auto& [mapped, code] : remapped)
                    if (mapped == sym) stroke = Stroke{code, {}};
            }
            if (!stroke) {
                const KeyCode spare = spareKey(xkb, remapped);
                if (spare == 0) {
                    std::string character;
                    appendUtf8(character, cp);
                    result = makeError("cannot type '" + character + "': the layout lacks it and no spare key is left");
                    break;
                }
                setKeySym(spare, sym);
                remapped.emplace_back(sym, spare);
                stroke = Stroke{spare, {}};
            }
            press(*stroke);
        }
        XSync(m_display, False);
        if (!remapped.empty()) {
            // The target reads the key's symbol from the mapping when it handles the event: the
            // spare keys keep theirs until it has had the time to (as xdotool does).
            std::this_thread::sleep_for(std::chrono::milliseconds(200));
            for (const auto& entry : remapped) setKeySym(entry.second, NoSymbol);
            XSync(m_display, False);
        }
        XFreeModifiermap(modifiers);
        XkbFreeKeyboard(xkb, 0, True);
        return result;
    }

    std::optional<uint32_t> missingCharacter(std::string_view utf8) override {
        size_t bad = 0;
        const auto points = codePointsOf(utf8, &bad);
        if (!points) return 0xFFFD;
        Keyboard keyboard(m_display);
        if (!keyboard.valid()) return points->empty() ? std::nullopt : std::optional<uint32_t>(points->front());
        for (uint32_t cp : *points) {
            const KeySym sym = keysymForCharacter(cp);
            if (sym == NoSymbol || !find(keyboard.xkb, keyboard.modifiers, keyboard.state.group, sym)) return cp;
        }
        return std::nullopt;
    }

    Result<void> pressChord(const std::vector<std::string>& keysyms) override {
        Keyboard keyboard(m_display);
        if (!keyboard.valid()) return makeError("cannot read the keyboard mapping of " + m_name);
        std::vector<KeyCode> codes;
        for (const std::string& name : keysyms) {
            const KeySym sym = xkb_keysym_from_name(name.c_str(), XKB_KEYSYM_NO_FLAGS);
            const KeyCode code = sym == NoSymbol ? 0 : plainKey(keyboard.xkb, keyboard.state.group, sym);
            if (code == 0) return makeError("cannot press " + name + ": no key of the keyboard carries it");
            codes.push_back(code);
        }
        releaseHeldModifiers(keyboard.modifiers, keyboard.state.base_mods);
        for (KeyCode code : codes) XTestFakeKeyEvent(m_display, code, True, CurrentTime);
        for (auto code = codes.rbegin(); code != codes.rend(); ++code) XTestFakeKeyEvent(m_display, *code, False, CurrentTime);
        XSync(m_display, False);
        return {};
    }

    // The focus window, or the window manager's active window when the focus follows the
    // pointer; then up through its parents to the one that carries WM_CLASS (the application's
    // top-level window, inside a window manager's frame).
    FocusedWindow focusedWindow() override {
        Window focus = None;
        int revert = 0;
        XGetInputFocus(m_display, &focus, &revert);
        const Window root = DefaultRootWindow(m_display);
        if (focus == None || focus == PointerRoot || focus == root) focus = activeWindow(root);
        for (Window w = focus; w != None && w != root;) {
            XClassHint hint{};
            if (XGetClassHint(m_display, w, &hint)) {
                FocusedWindow found{w, hint.res_name ? hint.res_name : "", hint.res_class ? hint.res_class : ""};
                if (hint.res_name) XFree(hint.res_name);
                if (hint.res_class) XFree(hint.res_class);
                return found;
            }
            Window parent = None, rootReturn = None, *children = nullptr;
            unsigned count = 0;
            if (!XQueryTree(m_display, w, &rootReturn, &parent, &children, &count)) break;
            if (children) XFree(children);
            w = parent;
        }
        return FocusedWindow{focus == None || focus == PointerRoot ? 0 : focus, {}, {}};
    }

private:
    // The server's keyboard description, its modifier mapping and state, freed when it goes.
    struct Keyboard {
        XkbDescPtr xkb = nullptr;
        XModifierKeymap* modifiers = nullptr;
        XkbStateRec state{};
        explicit Keyboard(Display* display)
            : xkb(XkbGetMap(display, XkbAllClientInfoMask, XkbUseCoreKbd)), modifiers(XGetModifierMapping(display)) {
            XkbGetState(display, XkbUseCoreKbd, &state);
        }
        ~Keyboard() {
            if (xkb) XkbFreeKeyboard(xkb, 0, True);
            if (modifiers) XFreeModifiermap(modifiers);
        }
        bool valid() const { return xkb && modifiers; }
        Keyboard(const Keyboard&) = delete;
        Keyboard& operator=(const Keyboard&) = delete;
    };

    // A key that carries `sym` on its first level, in the current group or else in any group (a
    // Latin letter for a shortcut while a Cyrillic or Greek group is active: programs look its
    // shortcut up there too); 0 when none does.
    static KeyCode plainKey(XkbDescPtr xkb, int group, KeySym sym) {
        for (int pass = 0; pass < 2; ++pass) {
            for (int code = xkb->min_key_code; code <= xkb->max_key_code; ++code) {
                const int groups = XkbKeyNumGroups(xkb, code);
                for (int g = 0; g < groups; ++g) {
                    if (pass == 0 && g != group % groups) continue;
                    if (XkbKeyGroupWidth(xkb, code, g) > 0 && XkbKeySymEntry(xkb, code, 0, g) == sym) return KeyCode(code);
                }
            }
        }
        return 0;
    }

    Window activeWindow(Window root) {
        const Atom active = XInternAtom(m_display, "_NET_ACTIVE_WINDOW", False);
        Atom type = None;
        int format = 0;
        unsigned long count = 0, after = 0;
        unsigned char* data = nullptr;
        Window window = None;
        if (XGetWindowProperty(m_display, root, active, 0, 1, False, XA_WINDOW, &type, &format, &count, &after, &data) ==
                Success &&
            data && count == 1 && format == 32)
            window = *reinterpret_cast<Window*>(data);
        if (data) XFree(data);
        return window;
    }

    struct Stroke {
        KeyCode code = 0;
        std::vector<KeyCode> modifiers;  // held while the key goes down and up
    };

    // The key and modifiers that give `sym` in `group`, lowest level first; none when the layout
    // lacks it or a level's modifiers have no key.
    static std::optional<Stroke> find(XkbDescPtr xkb, XModifierKeymap* modifiers, int group, KeySym sym) {
        for (int level = 0; level < 4; ++level) {
            for (int code = xkb->min_key_code; code <= xkb->max_key_code; ++code) {
                const int groups = XkbKeyNumGroups(xkb, code);
                if (groups == 0) continue;
                const int g = group % groups;
                if (level >= XkbKeyGroupWidth(xkb, code, g) || XkbKeySymEntry(xkb, code, level, g) != sym) continue;
                XkbKeyTypePtr type = XkbKeyKeyType(xkb, code, g);
                unsigned mask = 0;
                bool reachable = level == 0;
                for (int i = 0; i < type->map_count && !reachable; ++i) {
                    if (type->map[i].active && type->map[i].level == level) {
                        mask = type->map[i].mods.mask;
                        reachable = true;
                    }
                }
                if (!reachable) continue;
                Stroke stroke{KeyCode(code), {}};
                for (int bit = 0; bit < 8 && reachable; ++bit) {
                    if (!(mask & (1u << bit))) continue;
                    KeyCode held = 0;
                    for (int k = 0; k < modifiers->max_keypermod && !held; ++k)
                        held = modifiers->modifiermap[bit * modifiers->max_keypermod + k];
                    if (held) stroke.modifiers.push_back(held);
                    else reachable = false;
                }
                if (reachable) return stroke;
            }
        }
        return std::nullopt;
    }

    // A keycode with no symbol in any group, not already used for this text; 0 when none.
    KeyCode spareKey(XkbDescPtr xkb, const std::vector<std::pair<KeySym, KeyCode>>& taken) const {
        for (int code = xkb->max_key_code; code >= xkb->min_key_code; --code) {
            if (XkbKeyNumSyms(xkb, code) != 0) continue;
            bool used = false;
            for (const auto& entry : taken) used = used || entry.second == code;
            if (!used) return KeyCode(code);
        }
        return 0;
    }

    // Gives `code` the symbol `sym` at both levels (NoSymbol: none), through the core protocol
    // as xmodmap does. Clients that read the core mapping (xterm, Xlib programs) follow; clients
    // that keep an XKB keymap of their own (Qt, GTK through libxkbcommon) were seen not to.
    void setKeySym(KeyCode code, KeySym sym) {
        KeySym both[2] = {sym, sym};
        XChangeKeyboardMapping(m_display, code, 2, both, 1);
        XSync(m_display, False);
    }

    // Modifier keys the user still holds (the Ctrl and Alt of a push-to-talk shortcut) would turn
    // the typed letters into shortcuts: they are released first, as xdotool's --clearmodifiers
    // does. Caps Lock (a locked modifier, not a held key) is left as it is.
    void releaseHeldModifiers(XModifierKeymap* modifiers, unsigned held) {
        char keys[32];
        XQueryKeymap(m_display, keys);
        for (int bit = 0; bit < 8; ++bit) {
            if (bit == LockMapIndex || !(held & (1u << bit))) continue;
            for (int k = 0; k < modifiers->max_keypermod; ++k) {
                const KeyCode code = modifiers->modifiermap[bit * modifiers->max_keypermod + k];
                if (code != 0 && (keys[code / 8] & (1 << (code % 8)))) XTestFakeKeyEvent(m_display, code, False, CurrentTime);
            }
        }
        XSync(m_display, False);
    }

    void press(const Stroke& stroke) {
        for (KeyCode m : stroke.modifiers) XTestFakeKeyEvent(m_display, m, True, CurrentTime);
        XTestFakeKeyEvent(m_display, stroke.code, True, CurrentTime);
        XTestFakeKeyEvent(m_display, stroke.code, False, CurrentTime);
        for (auto m = stroke.modifiers.rbegin(); m != stroke.modifiers.rend(); ++m)
            XTestFakeKeyEvent(m_display, *m, False, CurrentTime);
        XFlush(m_display);
    }

    Display* m_display;
    std::string m_name;
};

} // namespace

Result<std::unique_ptr<TextTyper>> openX11Typer() {
    const char* name = std::getenv("DISPLAY");
    if (!name || !*name) return makeError("cannot type into other applications: no display ($DISPLAY is not set)");
    Display* display = XOpenDisplay(name);
    if (!display) return makeError(std::string("cannot type into other applications: cannot open the display ") + name);
    int event = 0, error = 0, major = 0, minor = 0;
    if (!XTestQueryExtension(display, &event, &error, &major, &minor)) {
        XCloseDisplay(display);
        return makeError(std::string("cannot type into other applications: the X server on ") + name +
                         " lacks the XTest extension");
    }
    return std::unique_ptr<TextTyper>(std::make_unique<X11Typer>(display, name));
}

} // namespace hearsay
