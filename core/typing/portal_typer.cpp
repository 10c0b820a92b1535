// Typing through the RemoteDesktop portal (see portal_typer.h).
#include "core/typing/portal_typer.h"

#include "core/typing/key_symbols.h"
#include "core/util/utf8.h"

#include <systemd/sd-bus.h>
#include <xkbcommon/xkbcommon.h>

#include <unistd.h>

#include <chrono>
#include <cstdlib>
#include <cstring>
#include <filesystem>
#include <fstream>
#include <optional>

namespace hearsay {
namespace {

constexpr const char* kPortal = "org.freedesktop.portal.Desktop";
constexpr const char* kPath = "/org/freedesktop/portal/desktop";
constexpr const char* kRemoteDesktop = "org.freedesktop.portal.RemoteDesktop";
constexpr uint32_t kKeyboard = 1;              // device types: keyboard 1, pointer 2, touchscreen 4
constexpr uint32_t kPersistUntilRevoked = 2;   // persist_mode (RemoteDesktop version 2 on)
constexpr uint64_t kCallTimeoutUs = 10'000'000;  // one method call (not the user's answer)
constexpr int kRequestTimeoutMs = 10000;         // CreateSession's and SelectDevices' answers

struct BusClose {
    void operator()(sd_bus* bus) const { sd_bus_flush_close_unref(bus); }
};
using Bus = std::unique_ptr<sd_bus, BusClose>;
struct MessageUnref {
    void operator()(sd_bus_message* m) const { sd_bus_message_unref(m); }
};
using Message = std::unique_ptr<sd_bus_message, MessageUnref>;
struct SlotUnref {
    void operator()(sd_bus_slot* s) const { sd_bus_slot_unref(s); }
};
using Slot = std::unique_ptr<sd_bus_slot, SlotUnref>;

// An sd_bus_error freed when it goes.
struct BusError {
    sd_bus_error e = SD_BUS_ERROR_NULL;
    ~BusError() { sd_bus_error_free(&e); }
    std::string text(int r) const { return e.message ? e.message : std::strerror(-r); }
    bool is(const char* name) const { return e.name && std::strcmp(e.name, name) == 0; }
};

// A failed sd-bus call, in words.
Error busFailure(int r, const std::string& what = "D-Bus") { return makeError(what + ": " + std::strerror(-r)); }

// What a request's Response carries that Hearsay uses.
struct Response {
    bool arrived = false;
    uint32_t code = 2;  // 0 done, 1 the user cancelled, 2 ended otherwise
    std::string sessionHandle, restoreToken;
    std::optional<uint32_t> devices;
    int parseError = 0;
};

int readResults(sd_bus_message* m, Response& out) {
    int r = sd_bus_message_enter_container(m, 'a', "{sv}");
    if (r < 0) return r;
    while ((r = sd_bus_message_enter_container(m, 'e', "sv")) > 0) {
        const char* keyText = nullptr;
        if ((r = sd_bus_message_read(m, "s", &keyText)) < 0) return r;
        const std::string key = keyText;
        char type = 0;
        const char* contentsText = nullptr;
        if ((r = sd_bus_message_peek_type(m, &type, &contentsText)) < 0) return r;
        const std::string contents = contentsText ? contentsText : "";
        if ((key == "session_handle" || key == "restore_token") && (contents == "s" || contents == "o")) {
            const char* value = nullptr;
            if ((r = sd_bus_message_read(m, "v", contents.c_str(), &value)) < 0) return r;
            (key == "session_handle" ? out.sessionHandle : out.restoreToken) = value;
        } else if (key == "devices" && contents == "u") {
            uint32_t value = 0;
            if ((r = sd_bus_message_read(m, "v", "u", &value)) < 0) return r;
            out.devices = value;
        } else if ((r = sd_bus_message_skip(m, "v")) < 0) {
            return r;
        }
        if ((r = sd_bus_message_exit_container(m)) < 0) return r;
    }
    if (r < 0) return r;
    return sd_bus_message_exit_container(m);
}

int onResponse(sd_bus_message* m, void* userdata, sd_bus_error*) {
    auto* response = static_cast<Response*>(userdata);
    if (response->arrived) return 0;
    response->arrived = true;
    int r = sd_bus_message_read(m, "u", &response->code);
    if (r >= 0) r = readResults(m, *response);
    response->parseError = r < 0 ? r : 0;
    return 0;
}

std::string readToken() {
    std::ifstream in(portalRestoreTokenPath());
    std::string token;
    std::getline(in, token);
    return token;
}

void writeToken(const std::string& token) {
    namespace fs = std::filesystem;
    const fs::path path = portalRestoreTokenPath();
    std::error_code ignored;
    fs::create_directories(path.parent_path(), ignored);
    std::ofstream(path, std::ios::trunc) << token << '\n';
    fs::permissions(path, fs::perms::owner_read | fs::perms::owner_write, ignored);  // a permission, kept private
}

// One portal session with the bus it lives on.
class Portal {
public:
    explicit Portal(Bus bus) : m_bus(std::move(bus)) {}
    sd_bus* bus() const { return m_bus.get(); }

    // Ends `session` (errors ignored: the desktop ends it too when the bus connection goes).
    void close(const std::string& session) {
        BusError error;
        sd_bus_call_method(bus(), kPortal, session.c_str(), "org.freedesktop.portal.Session", "Close", &error.e,
                           nullptr, nullptr);
    }

    // Calls `method` of RemoteDesktop with `session` (when not empty), `parentWindow` (when
    // `withParent`) and the options `options` appends (a handle token is added), then waits up to
    // `timeoutMs` for the Response.
    template <typename AppendOptions>
    Result<Response> request(const char* method, const std::string& session, bool withParent, AppendOptions options,
                             int timeoutMs) {
        const std::string token = "hearsay_" + std::to_string(getpid()) + "_" + std::to_string(++m_tokens);
        const char* unique = nullptr;
        if (int r = sd_bus_get_unique_name(bus(), &unique); r < 0) return busFailure(r);
        std::string sender = unique + 1;  // ":1.42" -> "1_42"
        for (char& c : sender)
            if (c == '.') c = '_';
        const std::string expected = std::string(kPath) + "/request/" + sender + "/" + token;
        Response response;
        sd_bus_slot* slot = nullptr;
        // No sender in the match: the path holds this connection's name and a fresh token.
        if (int r = sd_bus_match_signal(bus(), &slot, nullptr, expected.c_str(), "org.freedesktop.portal.Request",
                                        "Response", onResponse, &response);
            r < 0)
            return busFailure(r, "D-Bus: cannot listen for the portal's answer");
        Slot match(slot), otherMatch;

        sd_bus_message* raw = nullptr;
        if (int r = sd_bus_message_new_method_call(bus(), &raw, kPortal, kPath, kRemoteDesktop, method); r < 0)
            return busFailure(r);
        Message call(raw);
        int r = 0;
        if (!session.empty() && r >= 0) r = sd_bus_message_append(call.get(), "o", session.c_str());
        if (withParent && r >= 0) r = sd_bus_message_append(call.get(), "s", "");
        if (r >= 0) r = sd_bus_message_open_container(call.get(), 'a', "{sv}");
        if (r >= 0) r = sd_bus_message_append(call.get(), "{sv}", "handle_token", "s", token.c_str());
        if (r >= 0) r = options(call.get());
        if (r >= 0) r = sd_bus_message_close_container(call.get());
        if (r < 0) return busFailure(r);

        BusError error;
        sd_bus_message* replyRaw = nullptr;
        if (r = sd_bus_call(bus(), call.get(), kCallTimeoutUs, &error.e, &replyRaw); r < 0)
            return makeError(std::string(method) + ": " + error.text(r));
        Message reply(replyRaw);
        const char* handle = nullptr;
        if (sd_bus_message_read(reply.get(), "o", &handle) >= 0 && handle && expected != handle) {
            // An older portal chose another request path: listen there too (its answer waits in
            // the queue until processed below).
            if (sd_bus_match_signal(bus(), &slot, nullptr, handle, "org.freedesktop.portal.Request", "Response",
                                    onResponse, &response) >= 0)
                otherMatch.reset(slot);
        }
        const auto deadline = std::chrono::steady_clock::now() + std::chrono::milliseconds(timeoutMs);
        while (!response.arrived) {
            if (r = sd_bus_process(bus(), nullptr); r < 0) return busFailure(r);
            if (r > 0) continue;
            const auto left =
                std::chrono::duration_cast<std::chrono::microseconds>(deadline - std::chrono::steady_clock::now());
            if (left.count() <= 0) return makeError(std::string(method) + ": no answer from the desktop");
            if (r = sd_bus_wait(bus(), uint64_t(left.count())); r < 0) return busFailure(r);
        }
        if (response.parseError < 0) return makeError(std::string(method) + ": an answer Hearsay cannot read");
        return response;
    }

private:
    Bus m_bus;
    int m_tokens = 0;
};

class PortalTyper final : public TextTyper {
public:
    PortalTyper(std::unique_ptr<Portal> portal, std::string session, uint32_t version)
        : m_portal(std::move(portal)), m_session(std::move(session)), m_version(version) {}

    ~PortalTyper() override { m_portal->close(m_session); }

    Result<void> type(std::string_view utf8) override {
        size_t bad = 0;
        const auto points = codePointsOf(utf8, &bad);
        if (!points) return makeError("cannot type: not UTF-8 at byte " + std::to_string(bad));
        std::vector<uint32_t> keysyms;
        for (uint32_t cp : *points) {
            const uint32_t keysym = keysymForCharacter(cp);
            if (keysym == XKB_KEY_NoSymbol)
                return makeError("cannot type " + codePointName(cp) + ": it has no key symbol");
            keysyms.push_back(keysym);
        }
        for (uint32_t keysym : keysyms) {
            for (uint32_t state : {1u, 0u})
                if (auto sent = send(keysym, state); !sent) return sent;
        }
        return {};
    }

    std::optional<uint32_t> missingCharacter(std::string_view utf8) override {
        const auto points = codePointsOf(utf8);
        if (!points) return 0xFFFD;
        for (uint32_t cp : *points)
            if (keysymForCharacter(cp) == XKB_KEY_NoSymbol) return cp;
        return std::nullopt;
    }

    Result<void> pressChord(const std::vector<std::string>& names) override {
        std::vector<uint32_t> keysyms;
        for (const std::string& name : names) {
            const uint32_t keysym = xkb_keysym_from_name(name.c_str(), XKB_KEYSYM_NO_FLAGS);
            if (keysym == XKB_KEY_NoSymbol) return makeError("cannot press " + name + ": it is not a key symbol");
            keysyms.push_back(keysym);
        }
        for (uint32_t keysym : keysyms)
            if (auto sent = send(keysym, 1); !sent) return sent;
        for (auto it = keysyms.rbegin(); it != keysyms.rend(); ++it)
            if (auto sent = send(*it, 0); !sent) return sent;
        return {};
    }

    // The portal does not say which window has the focus.
    FocusedWindow focusedWindow() override { return {}; }

    std::string describe() const override {
        return "Wayland (RemoteDesktop portal, keyboard; version " + std::to_string(m_version) + ")";
    }

private:
    Result<void> send(uint32_t keysym, uint32_t state) {
        BusError error;
        const int r = sd_bus_call_method(m_portal->bus(), kPortal, kPath, kRemoteDesktop, "NotifyKeyboardKeysym",
                                         &error.e, nullptr, "oa{sv}iu", m_session.c_str(), 0, int32_t(keysym), state);
        if (r < 0) return makeError("the desktop no longer takes keys (RemoteDesktop portal): " + error.text(r));
        return {};
    }

    std::unique_ptr<Portal> m_portal;
    std::string m_session;
    uint32_t m_version;
};

} // namespace

std::string portalRestoreTokenPath() {
    const char* state = std::getenv("XDG_STATE_HOME");
    std::string base;
    if (state && *state == '/') base = state;
    else base = std::string(std::getenv("HOME") ? std::getenv("HOME") : ".") + "/.local/state";
    return base + "/hearsay/remote-desktop-token";
}

Result<std::unique_ptr<TextTyper>> openPortalTyper(int startTimeoutMs) {
    const std::string context = "cannot type through the desktop portal: ";
    sd_bus* raw = nullptr;
    if (int r = sd_bus_open_user(&raw); r < 0)
        return makeError(context + "no session bus (" + std::strerror(-r) + ")");
    auto portal = std::make_unique<Portal>(Bus(raw));
    uint32_t version = 0, types = 0;
    {
        BusError error;
        int r = sd_bus_get_property_trivial(portal->bus(), kPortal, kPath, kRemoteDesktop, "version", &error.e, 'u',
                                            &version);
        if (r < 0 && (error.is(SD_BUS_ERROR_SERVICE_UNKNOWN) || error.is(SD_BUS_ERROR_NAME_HAS_NO_OWNER)))
            return makeError(context + "no desktop portal runs on the session bus (xdg-desktop-portal)");
        if (r < 0)
            return makeError(context + "the portal offers no RemoteDesktop interface (" + error.text(r) +
                             "); GNOME's and KDE's portal backends have it, xdg-desktop-portal-wlr does not");
        r = sd_bus_get_property_trivial(portal->bus(), kPortal, kPath, kRemoteDesktop, "AvailableDeviceTypes", &error.e,
                                        'u', &types);
        if (r >= 0 && !(types & kKeyboard)) return makeError(context + "the desktop offers no keyboard to programs");
    }
    auto created = portal->request("CreateSession", {}, false,
                                   [](sd_bus_message* m) {
                                       return sd_bus_message_append(m, "{sv}", "session_handle_token", "s", "hearsay");
                                   },
                                   kRequestTimeoutMs);
    if (!created) return created.error().prefixed(context);
    if (created->code != 0 || created->sessionHandle.empty())
        return makeError(context + "the desktop did not open a session (answer " + std::to_string(created->code) + ")");
    const std::string session = created->sessionHandle;
    // From here the session is closed when a later step fails (and by the typer when none does).
    const std::string saved = version >= 2 ? readToken() : std::string();
    auto selected = portal->request("SelectDevices", session, false,
                                    [&](sd_bus_message* m) {
                                        int r = sd_bus_message_append(m, "{sv}", "types", "u", kKeyboard);
                                        if (r >= 0 && version >= 2)
                                            r = sd_bus_message_append(m, "{sv}", "persist_mode", "u",
                                                                      kPersistUntilRevoked);
                                        if (r >= 0 && !saved.empty())
                                            r = sd_bus_message_append(m, "{sv}", "restore_token", "s", saved.c_str());
                                        return r;
                                    },
                                    kRequestTimeoutMs);
    if (!selected || selected->code != 0) {
        portal->close(session);
        if (!selected) return selected.error().prefixed(context);
        return makeError(context + "the desktop refused the keyboard (answer " + std::to_string(selected->code) + ")");
    }
    auto started = portal->request("Start", session, true, [](sd_bus_message*) { return 0; }, startTimeoutMs);
    if (!started || started->code != 0) {
        portal->close(session);
        if (!started) return started.error().prefixed(context);
        return makeError(context + (started->code == 1
                                        ? "the user did not allow Hearsay to type (the desktop's question was "
                                          "answered no)"
                                        : "the desktop ended the session before it started"));
    }
    if (!started->devices || !(*started->devices & kKeyboard)) {
        portal->close(session);
        return makeError(context + "the desktop started the session without a keyboard");
    }
    if (!started->restoreToken.empty()) writeToken(started->restoreToken);
    return std::unique_ptr<TextTyper>(std::make_unique<PortalTyper>(std::move(portal), session, version));
}

bool isPortalTyper(const TextTyper& typer) { return dynamic_cast<const PortalTyper*>(&typer) != nullptr; }

} // namespace hearsay
