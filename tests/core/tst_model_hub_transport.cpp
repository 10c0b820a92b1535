// The model downloader's transport against the loopback hub (hub_test_server.h): HTTPS with a
// certificate authority made at test time by the openssl command (a trusted one, named in
// CURL_CA_BUNDLE, SSL_CERT_FILE or the options, succeeds through the hub's 302 to its CDN; the
// system's authorities alone, another authority, another host name and a missing bundle fail with
// a message that says what to do, and leave nothing behind), the CLI over HTTPS with HF_ENDPOINT,
// and proxies: one given by the caller (as the desktop's settings are), one from the environment
// (http_proxy), and "direct" overriding the environment.
#include "hub_test_server.h"
#include "hub_tls_channel.h"

#include "core/hub/model_catalog.h"
#include "core/hub/model_download.h"
#include "core/hub/model_store.h"
#include "core/hub/sha256.h"
#include "core/model/test_model.h"

#include <QProcess>
#include <QTemporaryDir>
#include <QtTest>

#include <csignal>
#include <fstream>
#include <sstream>

using namespace hearsay;
using namespace hearsay::hub;
namespace fs = std::filesystem;

namespace {

std::string readAll(const fs::path& p) {
    std::ifstream in(p, std::ios::binary);
    std::stringstream s;
    s << in.rdbuf();
    return s.str();
}

// Runs the openssl command in `dir`; empty on success, else why.
QString openssl(const QString& dir, const QStringList& arguments) {
    QProcess p;
    p.setWorkingDirectory(dir);
    p.start("openssl", arguments);
    if (!p.waitForStarted(10000)) return "the openssl command is missing (bash scripts/setup.sh installs it)";
    if (!p.waitForFinished(60000) || p.exitCode() != 0)
        return "openssl " + arguments.join(' ') + " failed: " + QString::fromUtf8(p.readAllStandardError());
    return {};
}

// A certificate authority (NAME.pem, NAME.key) in `dir`.
QString makeAuthority(const QString& dir, const QString& name) {
    return openssl(dir, {"req", "-x509", "-newkey", "ec", "-pkeyopt", "ec_paramgen_curve:prime256v1", "-nodes",
                         "-keyout", name + ".key", "-out", name + ".pem", "-days", "2", "-subj",
                         "/CN=Hearsay test " + name});
}

// server.pem / server.key for 127.0.0.1 (and no other name), signed by `authority`.
QString makeServerCertificate(const QString& dir, const QString& authority) {
    {
        std::ofstream ext((dir + "/server.ext").toStdString());
        ext << "basicConstraints=CA:FALSE\nsubjectAltName=IP:127.0.0.1\nkeyUsage=digitalSignature\n"
               "extendedKeyUsage=serverAuth\n";
    }
    if (QString why = openssl(dir, {"req", "-newkey", "ec", "-pkeyopt", "ec_paramgen_curve:prime256v1", "-nodes",
                                    "-keyout", "server.key", "-out", "server.csr", "-subj", "/CN=127.0.0.1"});
        !why.isEmpty())
        return why;
    return openssl(dir, {"x509", "-req", "-in", "server.csr", "-CA", authority + ".pem", "-CAkey", authority + ".key",
                         "-CAcreateserial", "-out", "server.pem", "-days", "2", "-extfile", "server.ext"});
}

// Environment variables set for one test, restored (unset) after it.
class ScopedEnvironment {
public:
    ScopedEnvironment() {
        for (const char* name : kNames) qunsetenv(name);
    }
    ~ScopedEnvironment() {
        for (const char* name : kNames) qunsetenv(name);
    }
    void set(const char* name, const std::string& value) { qputenv(name, QByteArray::fromStdString(value)); }

private:
    static constexpr const char* kNames[] = {"CURL_CA_BUNDLE", "SSL_CERT_FILE", "http_proxy", "HTTP_PROXY",
                                             "https_proxy", "HTTPS_PROXY", "all_proxy", "ALL_PROXY",
                                             "no_proxy", "NO_PROXY"};
};

} // namespace

class TestModelHubTransport : public QObject {
    Q_OBJECT

    QTemporaryDir m_tmp;
    QString m_pki;                         // the authorities and the server's certificate
    std::unique_ptr<TlsServerContext> m_tls;
    std::string m_body;                    // a file to serve
    fs::path root() const { return m_tmp.path().toStdString(); }

    FileRequest requestFor(const std::string& base, const fs::path& target) const {
        FileRequest r;
        r.url = base + "/hearsay-test/files/resolve/main/weights.bin";
        r.repo = "hearsay-test/files";
        r.revision = "main";
        r.target = target;
        r.expectedBytes = m_body.size();
        r.expectedSha256 = sha256Hex(m_body);
        return r;
    }

    // The hub's answer for weights.bin: 302 to its CDN (X-Linked-* on the redirect), as the real one.
    void serve(HubTestServer& server) const {
        HubTestServer::Route hub{m_body};
        hub.redirect = "/cdn/blob/weights";
        hub.redirectStatus = 302;
        server.add("hearsay-test/files", "weights.bin", hub);
        server.addPath("/cdn/blob/weights", {m_body});
    }

private slots:
    void initTestCase() {
        std::signal(SIGPIPE, SIG_IGN);  // a client that drops a TLS connection must not end the test
        QVERIFY(m_tmp.isValid());
        m_pki = m_tmp.path() + "/pki";
        QVERIFY(QDir().mkpath(m_pki));
        for (const char* name : {"authority", "other-authority"})
            if (QString why = makeAuthority(m_pki, name); !why.isEmpty()) QFAIL(qPrintable(why));
        if (QString why = makeServerCertificate(m_pki, "authority"); !why.isEmpty()) QFAIL(qPrintable(why));
        m_tls = std::make_unique<TlsServerContext>((m_pki + "/server.pem").toStdString(),
                                                   (m_pki + "/server.key").toStdString());
        QVERIFY(m_tls->ok());
        for (uint32_t i = 0; i < 300000; ++i) m_body.push_back(char((i * 7919u) >> 3));
    }

    // A trusted authority, however the downloader is told of it: the file arrives through the
    // hub's redirect to its CDN, verified.
    void httpsTrusted_data() {
        QTest::addColumn<QString>("how");
        QTest::newRow("CURL_CA_BUNDLE") << "CURL_CA_BUNDLE";
        QTest::newRow("SSL_CERT_FILE") << "SSL_CERT_FILE";
        QTest::newRow("DownloadOptions::caBundle") << "options";
    }
    void httpsTrusted() {
        QFETCH(QString, how);
        ScopedEnvironment env;
        const std::string authority = (m_pki + "/authority.pem").toStdString();
        DownloadOptions o;
        if (how == "options") o.caBundle = authority;
        else env.set(how.toUtf8().constData(), authority);
        HubTestServer server;
        server.setChannelFactory(m_tls->factory(), "https");
        serve(server);
        QVERIFY(server.baseUrl().starts_with("https://127.0.0.1:"));
        const fs::path target = root() / ("trusted-" + how.toStdString()) / "weights.bin";
        fs::create_directories(target.parent_path());
        auto r = downloadFile(requestFor(server.baseUrl(), target), o);
        QVERIFY2(r.ok(), r.ok() ? "" : r.message().c_str());
        QVERIFY(r.value().hashChecked);
        QCOMPARE(readAll(target), m_body);
        const auto seen = server.requests();
        QCOMPARE(seen.size(), size_t(2));  // the hub's 302, then the CDN
        QCOMPARE(seen[1].path, std::string("/cdn/blob/weights"));
    }

    // A certificate the downloader cannot trust: a clear message, no retry, nothing kept.
    void httpsUntrusted_data() {
        QTest::addColumn<QString>("bundle");  // CURL_CA_BUNDLE's value, "" for none
        QTest::addColumn<QString>("host");
        QTest::addColumn<QString>("said");
        QTest::newRow("system authorities only")
            << "" << "127.0.0.1"
            << "the certificate of 127.0.0.1 is not trusted (";
        QTest::newRow("another authority")
            << "other-authority.pem" << "127.0.0.1"
            << "name a PEM file holding it in CURL_CA_BUNDLE or SSL_CERT_FILE (now: ";
        QTest::newRow("another host name")
            << "authority.pem" << "localhost"
            << "the certificate of localhost is not trusted (";
        QTest::newRow("bundle file missing")
            << "no-such-bundle.pem" << "127.0.0.1"
            << "cannot use the CA bundle ";
    }
    void httpsUntrusted() {
        QFETCH(QString, bundle);
        QFETCH(QString, host);
        QFETCH(QString, said);
        ScopedEnvironment env;
        if (!bundle.isEmpty()) env.set("CURL_CA_BUNDLE", (m_pki + "/" + bundle).toStdString());
        HubTestServer server;
        server.setChannelFactory(m_tls->factory(), "https");
        serve(server);
        std::string base = server.baseUrl();
        base.replace(base.find("127.0.0.1"), 9, host.toStdString());
        const fs::path dir = root() / ("untrusted-" + std::string(QTest::currentDataTag()));
        fs::create_directories(dir);
        DownloadOptions o;
        auto r = downloadFile(requestFor(base, dir / "weights.bin"), o);
        QVERIFY(!r.ok());
        qInfo("user sees: %s", r.message().c_str());
        QVERIFY2(QString::fromStdString(r.message()).contains(said), r.message().c_str());
        QVERIFY(fs::is_empty(dir));  // neither the file nor a partial one
        for (const auto& seen : server.requests()) QVERIFY(seen.path != "/cdn/blob/weights");
    }

    // The CLI over HTTPS: HF_ENDPOINT names the mirror, CURL_CA_BUNDLE its authority; without
    // it, the user is told why the certificate is refused.
    void cliOverHttpsWithHfEndpoint() {
        TestModelOptions m;
        m.dims = "64x2x2";
        m.seed = 11;
        m.format = ModelFormat::Ggml;
        m.dtype = DType::F16;
        m.vocabularyFile = fs::path(HEARSAY_SHARED_DATA_DIR) / "ggml-vocab-tiny.bin";
        auto made = makeTestModel(m, root() / "cli-source.bin");
        QVERIFY2(made.ok(), made.ok() ? "" : made.message().c_str());
        const std::string ggml = readAll(root() / "cli-source.bin");
        HubTestServer server;
        server.setChannelFactory(m_tls->factory(), "https");
        server.add("ggerganov/whisper.cpp", "ggml-tiny.en.bin", {ggml}, "main");
        const QString models = m_tmp.path() + "/cli-models";
        const QStringList download = {"models", "download", "tiny.en", "--format", "ggml",
                                      "--revision", "main", "--models-dir", models};
        QProcessEnvironment env = QProcessEnvironment::systemEnvironment();
        env.remove("HEARSAY_HUB_URL");
        env.remove("CURL_CA_BUNDLE");
        env.remove("SSL_CERT_FILE");
        env.insert("HF_ENDPOINT", QString::fromStdString(server.baseUrl()));
        QProcess cli;
        cli.setProcessEnvironment(env);
        cli.start(HEARSAY_CLI_PATH, download);
        QVERIFY(cli.waitForFinished(60000));
        QCOMPARE(cli.exitCode(), 1);
        const QString refused = QString::fromUtf8(cli.readAllStandardError());
        qInfo("user sees: %s", qPrintable(refused.trimmed()));
        QVERIFY2(refused.contains("is not trusted") && refused.contains("CURL_CA_BUNDLE"), qPrintable(refused));
        QVERIFY(!fs::exists(models.toStdString() + "/ggml-tiny.en.bin"));

        env.insert("CURL_CA_BUNDLE", m_pki + "/authority.pem");
        cli.setProcessEnvironment(env);
        cli.start(HEARSAY_CLI_PATH, download);
        QVERIFY(cli.waitForFinished(60000));
        QVERIFY2(cli.exitCode() == 0, qPrintable(QString::fromUtf8(cli.readAllStandardError())));
        QCOMPARE(readAll(models.toStdString() + "/ggml-tiny.en.bin"), ggml);
        const auto origin = readOrigin(*findCatalogEntry("tiny.en", ModelFormat::Ggml), models.toStdString());
        QVERIFY(origin.has_value());
        QCOMPARE(origin->hubUrl, server.baseUrl());
    }

    // Proxies: the caller's (the desktop's settings, passed in by the GUI), the environment's,
    // and "direct" overriding the environment. The loopback hub doubles as the proxy: a request
    // for an absolute URL is a proxied one. The hub's own name does not resolve, so only a
    // proxy can reach it.
    void proxies_data() {
        QTest::addColumn<QString>("how");
        QTest::newRow("from the caller (desktop settings)") << "options";
        QTest::newRow("from the environment (http_proxy)") << "environment";
        QTest::newRow("direct overrides the environment") << "direct";
    }
    void proxies() {
        QFETCH(QString, how);
        ScopedEnvironment env;
        HubTestServer server;
        serve(server);
        HubTestServer otherProxy;  // set in the environment when the caller says "direct"
        DownloadOptions o;
        std::string base = "http://hub.invalid";
        if (how == "options") {
            o.proxy = server.baseUrl();
        } else if (how == "environment") {
            env.set("http_proxy", server.baseUrl());
        } else {
            env.set("http_proxy", otherProxy.baseUrl());
            o.proxy = "direct";
            base = server.baseUrl();
        }
        const fs::path target = root() / ("proxy-" + how.toStdString()) / "weights.bin";
        fs::create_directories(target.parent_path());
        auto r = downloadFile(requestFor(base, target), o);
        QVERIFY2(r.ok(), r.ok() ? "" : r.message().c_str());
        QCOMPARE(readAll(target), m_body);
        const auto seen = server.requests();
        QCOMPARE(seen.size(), size_t(2));  // the hub's 302 and the CDN, both through the proxy or neither
        for (const auto& s : seen) QCOMPARE(s.proxied, how != "direct");
        QVERIFY(otherProxy.requests().empty());
    }
};

QTEST_GUILESS_MAIN(TestModelHubTransport)
#include "tst_model_hub_transport.moc"
