// A Hugging Face-like HTTP/1.1 server on loopback for the model downloader's tests: it serves
// files under /{repo}/resolve/{revision}/{file} with Content-Length, Accept-Ranges, ETag, the
// X-Linked-Etag / X-Linked-Size headers the hub sends for LFS files and X-Repo-Commit, honours
// "Range: bytes=N-" (416 past the end), answers as the hub does for what it lacks (401
// RepoNotFound for a repository, 404 RevisionNotFound / EntryNotFound), refuses a token it does
// not know with 401 (an expired token, even on a public repository), redirects like the hub (302
// to a CDN on another port, 307 for a renamed repository), and can misbehave on purpose: answer
// with an error status, cut the connection after N bytes (N times), send other bytes than it
// advertises, ignore Range, demand a bearer token. It also acts as a forward HTTP proxy (a
// request for an absolute URL is served as its path, and marked), and speaks TLS through a
// channel factory (hub_tls_channel.h). One connection at a time, each closed after its response;
// a thread accepts until the server is destroyed.
#pragma once

#include "core/hub/sha256.h"

#include <arpa/inet.h>
#include <netinet/in.h>
#include <poll.h>
#include <sys/socket.h>
#include <unistd.h>

#include <atomic>
#include <cctype>
#include <cstdint>
#include <functional>
#include <map>
#include <memory>
#include <mutex>
#include <string>
#include <thread>
#include <vector>

class HubTestServer {
public:
    struct Route {
        std::string body;
        int status = 200;          // an error status is sent with a short text body
        uint64_t cutAfter = 0;     // > 0: close the connection after this many bytes of a response's body ...
        int cuts = 0;              // ... this many times
        bool wrongBytes = false;   // flip a byte in the middle, headers unchanged
        bool linkedHeaders = true; // X-Linked-Etag / X-Linked-Size
        std::string token;         // non-empty: 401 GatedRepo without "Authorization: Bearer TOKEN"
        bool ignoreRange = false;  // answer a range request with 200 and the whole file
        std::string redirect;      // non-empty: answer redirectStatus with this Location (a URL or a path)
        int redirectStatus = 302;  // 302: to the CDN, with the X-Linked headers of `body`; 307: a renamed repository
    };
    struct Request {
        std::string path;
        int64_t rangeStart = -1;   // -1: no Range header
        std::string authorization;
        bool proxied = false;      // asked for an absolute URL, as a client asks its proxy
    };
    // A connection as the server reads and writes it: plain TCP here, TLS in hub_tls_channel.h.
    struct Channel {
        virtual ~Channel() = default;
        virtual ssize_t read(char* data, size_t bytes) = 0;
        virtual ssize_t write(const char* data, size_t bytes) = 0;
    };
    // Makes the channel of an accepted socket; null refuses it (a failed TLS handshake).
    using ChannelFactory = std::function<std::unique_ptr<Channel>(int fd)>;

    HubTestServer() {
        m_listen = ::socket(AF_INET, SOCK_STREAM, 0);
        int one = 1;
        ::setsockopt(m_listen, SOL_SOCKET, SO_REUSEADDR, &one, sizeof one);
        sockaddr_in addr{};
        addr.sin_family = AF_INET;
        addr.sin_addr.s_addr = htonl(INADDR_LOOPBACK);
        addr.sin_port = 0;
        m_ok = ::bind(m_listen, reinterpret_cast<sockaddr*>(&addr), sizeof addr) == 0 && ::listen(m_listen, 8) == 0;
        socklen_t len = sizeof addr;
        ::getsockname(m_listen, reinterpret_cast<sockaddr*>(&addr), &len);
        m_port = ntohs(addr.sin_port);
        if (m_ok) m_thread = std::thread([this] { serve(); });
    }
    ~HubTestServer() {
        m_stop = true;
        if (m_thread.joinable()) m_thread.join();
        ::close(m_listen);
    }

    bool ok() const { return m_ok; }
    std::string baseUrl() const {
        std::lock_guard lock(m_mutex);
        return m_scheme + "://127.0.0.1:" + std::to_string(m_port);
    }
    // Connections from now on go through `factory`, and baseUrl() names `scheme` ("https").
    void setChannelFactory(ChannelFactory factory, const std::string& scheme) {
        std::lock_guard lock(m_mutex);
        m_factory = std::move(factory);
        m_scheme = scheme;
    }

    // Serves `route` at /{repo}/resolve/{revision}/{file}.
    void add(const std::string& repo, const std::string& file, Route route, const std::string& revision = "main") {
        std::lock_guard lock(m_mutex);
        m_routes["/" + repo + "/resolve/" + revision + "/" + file] = std::move(route);
    }
    // Serves `route` at a plain path (a CDN's URL).
    void addPath(const std::string& path, Route route) {
        std::lock_guard lock(m_mutex);
        m_routes[path] = std::move(route);
    }
    // `branch` of `repo` is now at `commit` (X-Repo-Commit); the branch's files are served at that
    // commit, and at every commit it was at before (a moved branch). Without it a branch's commit
    // is a digest of its name.
    void setCommit(const std::string& repo, const std::string& branch, const std::string& commit) {
        std::lock_guard lock(m_mutex);
        m_commits[repo + "@" + branch] = commit;
        m_commitBranch[repo + "@" + commit] = branch;
    }
    static std::string commitOfName(const std::string& repo, const std::string& revision) {
        return hearsay::hub::sha256Hex(repo + "@" + revision).substr(0, 40);
    }
    // Tokens the hub takes besides the routes' own.
    void addValidToken(const std::string& token) {
        std::lock_guard lock(m_mutex);
        m_validTokens.push_back(token);
    }
    std::vector<Request> requests() const {
        std::lock_guard lock(m_mutex);
        return m_requests;
    }

private:
    void serve() {
        while (!m_stop) {
            pollfd p{m_listen, POLLIN, 0};
            if (::poll(&p, 1, 50) <= 0) continue;
            const int fd = ::accept(m_listen, nullptr, nullptr);
            if (fd < 0) continue;
            ChannelFactory factory;
            {
                std::lock_guard lock(m_mutex);
                factory = m_factory;
            }
            std::unique_ptr<Channel> channel = factory ? factory(fd) : std::make_unique<PlainChannel>(fd);
            if (channel) handle(*channel);
            channel.reset();
            ::close(fd);
        }
    }

    struct PlainChannel : Channel {
        explicit PlainChannel(int fd) : fd(fd) {}
        ssize_t read(char* data, size_t bytes) override { return ::recv(fd, data, bytes, 0); }
        ssize_t write(const char* data, size_t bytes) override { return ::send(fd, data, bytes, MSG_NOSIGNAL); }
        int fd;
    };

    static bool sendAll(Channel& fd, const char* data, size_t bytes) {
        while (bytes > 0) {
            const ssize_t n = fd.write(data, bytes);
            if (n <= 0) return false;
            data += n;
            bytes -= size_t(n);
        }
        return true;
    }

    static bool isCommit(const std::string& s) {
        if (s.size() != 40) return false;
        for (char c : s)
            if (!std::isxdigit(static_cast<unsigned char>(c))) return false;
        return true;
    }

    // What the hub would answer for a path no route serves, and the commit a path is at; under m_mutex.
    struct Resolved {
        Route* route = nullptr;
        std::string commit;
        int status = 404;
        std::string errorCode;
    };
    Resolved resolve(const std::string& path) {
        Resolved r;
        const auto at = path.find("/resolve/");
        if (at == std::string::npos) {  // a CDN path
            if (auto it = m_routes.find(path); it != m_routes.end()) r.route = &it->second;
            return r;
        }
        const std::string repo = path.substr(1, at - 1);
        const std::string rest = path.substr(at + 9);
        const std::string revision = rest.substr(0, rest.find('/'));
        const std::string file = rest.substr(revision.size() + 1);
        std::string branch = revision;  // a commit some branch is or was at serves that branch's files
        if (auto b = m_commitBranch.find(repo + "@" + revision); b != m_commitBranch.end()) branch = b->second;
        const std::string prefix = "/" + repo + "/resolve/";
        for (const auto& [key, route] : m_routes) {
            if (!key.starts_with(prefix)) continue;
            const std::string b = key.substr(prefix.size(), key.find('/', prefix.size()) - prefix.size());
            if (!m_commits.count(repo + "@" + b) && commitOfName(repo, b) == revision) branch = b;
        }
        const auto c = m_commits.find(repo + "@" + branch);
        r.commit = c != m_commits.end() ? c->second : isCommit(revision) ? revision : commitOfName(repo, revision);
        if (auto it = m_routes.find("/" + repo + "/resolve/" + branch + "/" + file); it != m_routes.end()) {
            r.route = &it->second;
            return r;
        }
        bool repoKnown = false, revisionKnown = false;
        for (const auto& [key, route] : m_routes) {
            repoKnown |= key.starts_with("/" + repo + "/resolve/");
            revisionKnown |= key.starts_with("/" + repo + "/resolve/" + branch + "/");
        }
        if (!repoKnown) {
            r.status = 401;  // as the hub: a missing repository looks like a private one
            r.errorCode = "RepoNotFound";
        } else {
            r.errorCode = revisionKnown ? "EntryNotFound" : "RevisionNotFound";
        }
        return r;
    }

    void handle(Channel& fd) {
        std::string head;
        char buf[4096];
        while (head.find("\r\n\r\n") == std::string::npos) {
            const ssize_t n = fd.read(buf, sizeof buf);
            if (n <= 0) return;
            head.append(buf, size_t(n));
        }
        Request req;
        const auto sp1 = head.find(' '), sp2 = head.find(' ', sp1 + 1);
        req.path = head.substr(sp1 + 1, sp2 - sp1 - 1);
        if (req.path.starts_with("http://")) {  // a client talking to its proxy: serve the URL's path
            req.proxied = true;
            const auto slash = req.path.find('/', 7);
            req.path = slash == std::string::npos ? "/" : req.path.substr(slash);
        }
        const bool isHead = head.starts_with("HEAD ");
        std::string lowerHead = head;
        for (auto& c : lowerHead) c = char(std::tolower(static_cast<unsigned char>(c)));
        if (auto r = lowerHead.find("\r\nrange: bytes="); r != std::string::npos)
            req.rangeStart = std::stoll(head.substr(r + 15));
        if (auto a = lowerHead.find("\r\nauthorization: "); a != std::string::npos)
            req.authorization = head.substr(a + 17, head.find("\r\n", a + 2) - a - 17);

        Route route;
        bool found = false;
        int status = 404;
        std::string errorCode, commit;
        bool tokenKnown = req.authorization.empty();
        {
            std::lock_guard lock(m_mutex);
            m_requests.push_back(req);
            Resolved r = resolve(req.path);
            commit = r.commit;
            status = r.status;
            errorCode = r.errorCode;
            if (r.route) {
                found = true;
                route = *r.route;
                status = route.status;
                errorCode.clear();
                if (route.cuts > 0) --r.route->cuts;  // the cut happens this many times only
                else route.cutAfter = 0;
            }
            for (const auto& [key, any] : m_routes) tokenKnown |= !any.token.empty() && req.authorization == "Bearer " + any.token;
            for (const auto& t : m_validTokens) tokenKnown |= req.authorization == "Bearer " + t;
        }
        if (!tokenKnown) {
            status = 401;  // the hub checks a token before anything else
            errorCode.clear();
        } else if (found && !route.token.empty() && req.authorization != "Bearer " + route.token) {
            status = 401;
            errorCode = "GatedRepo";
        }
        const std::string repoCommit = commit.empty() ? std::string() : "X-Repo-Commit: " + commit + "\r\n";
        if (status == 200 && !route.redirect.empty()) {
            std::string response = "HTTP/1.1 " + std::to_string(route.redirectStatus) + " Redirect\r\nLocation: " +
                                   route.redirect + "\r\n" + repoCommit;
            if (route.redirectStatus == 302 && route.linkedHeaders)
                response += "X-Linked-Etag: \"" + hearsay::hub::sha256Hex(route.body) + "\"\r\nX-Linked-Size: " +
                            std::to_string(route.body.size()) + "\r\n";
            response += "Content-Length: 0\r\nConnection: close\r\n\r\n";
            sendAll(fd, response.data(), response.size());
            return;
        }
        if (status != 200) {
            const std::string text = "error " + std::to_string(status) + "\n";
            const std::string response = "HTTP/1.1 " + std::to_string(status) + " Error\r\nContent-Length: " +
                                         std::to_string(text.size()) + "\r\n" +
                                         (errorCode.empty() ? std::string() : "X-Error-Code: " + errorCode + "\r\n") +
                                         "Connection: close\r\n\r\n" + text;
            sendAll(fd, response.data(), response.size());
            return;
        }
        if (route.ignoreRange) req.rangeStart = -1;
        const std::string sha = hearsay::hub::sha256Hex(route.body);
        std::string body = route.body;
        if (route.wrongBytes && !body.empty()) body[body.size() / 2] = char(body[body.size() / 2] ^ 0x5a);
        const uint64_t total = body.size();
        uint64_t start = 0;
        std::string statusLine = "HTTP/1.1 200 OK\r\n";
        std::string extra;
        if (req.rangeStart >= 0) {
            start = uint64_t(req.rangeStart);
            if (start >= total) {
                const std::string response = "HTTP/1.1 416 Range Not Satisfiable\r\nContent-Range: bytes */" +
                                             std::to_string(total) + "\r\nContent-Length: 0\r\nConnection: close\r\n\r\n";
                sendAll(fd, response.data(), response.size());
                return;
            }
            statusLine = "HTTP/1.1 206 Partial Content\r\n";
            extra = "Content-Range: bytes " + std::to_string(start) + "-" + std::to_string(total - 1) + "/" +
                    std::to_string(total) + "\r\n";
        }
        std::string headers = statusLine + "Content-Length: " + std::to_string(total - start) +
                              "\r\nAccept-Ranges: bytes\r\nETag: \"" + sha + "\"\r\n" + extra;
        if (route.linkedHeaders)
            headers += "X-Linked-Etag: \"" + sha + "\"\r\nX-Linked-Size: " + std::to_string(route.body.size()) + "\r\n";
        headers += repoCommit + "Connection: close\r\n\r\n";
        if (!sendAll(fd, headers.data(), headers.size()) || isHead) return;
        uint64_t end = total;
        if (route.cutAfter > 0 && start + route.cutAfter < total) end = start + route.cutAfter;
        sendAll(fd, body.data() + start, size_t(end - start));
    }

    int m_listen = -1;
    bool m_ok = false;
    uint16_t m_port = 0;
    std::atomic<bool> m_stop{false};
    std::thread m_thread;
    mutable std::mutex m_mutex;
    std::map<std::string, Route> m_routes;
    std::map<std::string, std::string> m_commits;       // "repo@branch" -> commit
    std::map<std::string, std::string> m_commitBranch;  // "repo@commit" -> branch
    std::vector<std::string> m_validTokens;
    std::vector<Request> m_requests;
    ChannelFactory m_factory;
    std::string m_scheme = "http";
};
